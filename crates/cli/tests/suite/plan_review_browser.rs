//! The plan review page in a real browser (issue 41): Debian's Chromium
//! driven through chromedriver by Selenium (`tests/browser/review_page.py`)
//! against the real catui binary and the testkit mock model.
//!
//! - In the terminal UI (in tmux): a scripted model presents a plan; `b`
//!   opens its page; the browser comments on line 3 and sends it back (the
//!   model's next request has the comment under that line); the model
//!   presents a revision; the browser approves it with "accept edits"; the
//!   dialog closes saying what the browser decided and the session is in
//!   accept-edits mode. The page's screenshot goes to
//!   docs/images/plan-review.png when `CATUI_UPDATE_SCREENSHOT=1`.
//! - For an ended session: a 60-step plan from a headless planning run is
//!   opened with `catui plans review`, its render time measured, a step
//!   skipped and the plan approved; `catui --resume` carries it out.
//!
//! They need Chromium, chromedriver and Selenium: `.ci/run` runs
//! `bash .ci/browser-setup` and then these with `--run-ignored only`;
//! locally the same (`cargo nextest run -p catui --test
//! plan_review_browser --run-ignored only`). The interpreter is
//! `$CATUI_BROWSER_PYTHON`, else `target/browser-venv/bin/python`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use catui_testkit::{Script, Turn};
use common::review::PlansReview;
use common::tmux::*;
use common::{json_lines, plan_path_in, result_of, writes_plan_then_exits};
use serde_json::{Value, json};

const PLAN: &str = "# Add a --json flag to `todo list`\n\n1. Parse --json in cli.py\n2. Serialise items with json.dumps in report.py\n3. Add tests in tests/test_report.py\n\n## Notes\n\n<script>window.__pwned = true</script>\n\n| file | change |\n|---|---|\n| cli.py | flag |\n\n```python\nprint(json.dumps(items))\n```\n\n## Verification\n\n- python -m pytest\n";

fn python() -> PathBuf {
    if let Ok(p) = std::env::var("CATUI_BROWSER_PYTHON") {
        return PathBuf::from(p);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/browser-venv/bin/python")
}

/// Runs one browser step of `review_page.py`; the facts it printed.
fn browser(args: &[&str]) -> Value {
    let python = python();
    assert!(
        python.exists(),
        "{} is missing: run `bash .ci/browser-setup` (or set CATUI_BROWSER_PYTHON)",
        python.display()
    );
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/browser/review_page.py");
    let mut cmd = Command::new(&python);
    cmd.arg(script)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", std::env::temp_dir())
        // Selenium must not look for drivers on the network.
        .env("SE_OFFLINE", "true");
    let out = common::output_within(cmd, b"", 120);
    let stdout = common::stdout(&out);
    assert!(
        out.status.success(),
        "review_page.py {args:?} failed\nstdout:\n{stdout}\nstderr:\n{}",
        common::stderr(&out)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or("{}")).unwrap()
}

/// The review page's address on the screen, other than `not`.
fn url_on_screen(s: &Setup, not: Option<&str>) -> String {
    wait_for("the review page's address", &s.tmux, || {
        s.tmux.screen().lines().find_map(|l| {
            let at = l.find("http://127.0.0.1:")?;
            let url: String = l[at..]
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '│')
                .collect();
            (url.len() > 60 && Some(url.as_str()) != not).then_some(url)
        })
    })
}

#[test]
#[ignore = "needs Chromium, chromedriver and Selenium; .ci/run runs it"]
fn a_plan_is_sent_back_and_approved_from_the_browser_in_the_terminal_ui() {
    require_tmux();
    let s = setup(
        |_, plans_dir, _| {
            let dir = plans_dir.to_string();
            writes_plan_then_exits(plans_dir, PLAN)
                .turn(Turn::respond(move |r| {
                    let path = plan_path_in(r, &dir);
                    let revised = PLAN.replace("json.dumps", "orjson.dumps");
                    common::write("p2", &path, &revised)
                }))
                .turn(common::exit_plan("x2"))
                .turn(Turn::text("Implementing the plan now."))
        },
        None,
    );
    let bin = assert_cmd::cargo::cargo_bin("catui");
    s.tmux.type_text(&format!(
        "'{}' --permission-mode plan; echo \"catui-exit=$?\"",
        bin.display()
    ));
    s.tmux.keys(&["Enter"]);
    s.tmux
        .wait_screen("the status line", |sc| !status_line(sc).is_empty());
    s.tmux.submit("Add a --json flag to todo list");
    s.tmux.wait_text("Exit plan mode?");

    // b: the page of the presented plan (no browser here: its address).
    s.tmux.keys(&["b"]);
    let first_url = url_on_screen(&s, None);
    s.tmux.wait_text("No browser could be started");
    let sent = browser(&[
        "send-back",
        &first_url,
        "3",
        "Use orjson instead.",
        "Close, one change.",
    ]);
    assert_eq!(sent["scripts"], 0, "{sent}");
    assert_eq!(sent["alerts"], "undefined", "the plan's script ran: {sent}");
    assert!(
        sent["planText"]
            .as_str()
            .unwrap()
            .contains("<script>window.__pwned = true</script>"),
        "{sent}"
    );
    assert_eq!(sent["tokenLeftAddress"], true, "{sent}");
    assert_eq!(
        sent["outline"],
        json!(["Add a --json flag to todo list", "Notes", "Verification"])
    );
    assert_eq!(sent["decided"], "Sent back with 1 comment: keep planning");
    s.tmux
        .wait_history("Decided in the browser: Sent back with 1 comment");

    // The model's next request: the comment under line 3.
    let reqs = wait_for("the model's next request", &s.tmux, || {
        let reqs = s.server.requests();
        (reqs.len() >= 3).then_some(reqs)
    });
    let (feedback, is_error) = result_of(&reqs[2], "x");
    assert!(is_error, "{feedback}");
    common::assert_contains(
        &feedback,
        "Close, one change.\n\nComments on lines of the plan:\n\n> line 3: 1. Parse --json in cli.py\nUse orjson instead.",
    );

    // The revision: approved in the browser with "accept edits".
    s.tmux.wait_text("Exit plan mode?");
    s.tmux.keys(&["b"]);
    let second_url = url_on_screen(&s, Some(&first_url));
    let shot = s.sb.dir.path().join("plan-review.png");
    let approved = browser(&[
        "approve",
        &second_url,
        "acceptEdits",
        shot.to_str().unwrap(),
    ]);
    assert_eq!(approved["revisions"], 2, "{approved}");
    assert_eq!(approved["decided"], "Approved, continuing in acceptEdits");
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000);
    if std::env::var_os("CATUI_UPDATE_SCREENSHOT").is_some() {
        let docs =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/images/plan-review.png");
        std::fs::create_dir_all(docs.parent().unwrap()).unwrap();
        std::fs::copy(&shot, docs).unwrap();
    }

    // The terminal saw the same decision: the dialog closed, the mode changed.
    let screen = s.tmux.wait_text("Implementing the plan now.");
    assert_eq!(mode_on_screen(&screen), "acceptEdits", "{screen}");
    s.tmux
        .wait_history("Decided in the browser: Approved, continuing in acceptEdits");
    common::assert_lacks(&screen, "Exit plan mode?");
    let reqs = s.server.requests();
    let (result, is_error) = result_of(&reqs[4], "x2");
    assert!(
        !is_error && result.contains("User has approved your plan"),
        "{result}"
    );
    common::assert_contains(&result, "orjson.dumps");
    eprintln!("render of the plan page: {} ms", approved["renderMs"]);
    quit_and_check_terminal(&s);
}

/// A 60-step plan with code, a table and raw HTML.
fn long_plan() -> String {
    let mut plan =
        String::from("# Migrate the storage layer\n\n<script>window.__pwned = true</script>\n\n");
    for section in 0..6 {
        plan.push_str(&format!("## Phase {}\n\n", section + 1));
        for i in 0..10 {
            let n = section * 10 + i + 1;
            plan.push_str(&format!(
                "{n}. Move `table_{n}` to the new store and check row counts\n"
            ));
        }
        plan.push_str("\n```rust\nfn migrate(rows: &[Row]) -> Result<(), Error> {\n    for row in rows { store.put(row)?; }\n    Ok(())\n}\n```\n\n| table | rows |\n|---|---|\n| a | 10 |\n\n");
    }
    plan
}

#[test]
#[ignore = "needs Chromium, chromedriver and Selenium; .ci/run runs it"]
fn a_long_plan_of_an_ended_session_is_approved_in_the_browser_and_resumed() {
    let sb = common::Sandbox::new();
    let plan = long_plan();
    assert_eq!(
        catui_core::plan::approval::progress::plan_steps(&plan).len(),
        60
    );
    let server = common::mock(writes_plan_then_exits(&common::plans_dir(&sb), &plan));
    let out = sb.run_planning(&server, "plan the migration");
    let ready = json_lines(&out.stdout).pop().unwrap();
    assert_eq!(ready["subtype"], "plan_ready", "{ready}");
    let session = ready["session_id"].as_str().unwrap().to_string();
    let slug = std::path::Path::new(ready["plan_file"].as_str().unwrap())
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();

    let review = PlansReview::start(&sb, &slug);
    let facts = browser(&["skip-and-approve", &review.url, "2", "manual"]);
    assert_eq!(facts["alerts"], "undefined", "{facts}");
    assert_eq!(facts["outline"].as_array().unwrap().len(), 7, "{facts}");
    assert_eq!(
        facts["decided"],
        "Approved, continuing in the mode from before plan mode without step(s) 2"
    );
    eprintln!(
        "render of the 60-step plan page: {} ms (load {} ms)",
        facts["renderMs"], facts["loadMs"]
    );
    let (code, out) = review.finish();
    assert_eq!(code, 0, "{out}");

    let server = common::mock(Script::new().turn(Turn::text("Migrating.")));
    let out = sb.run(
        &server,
        [
            "-p",
            "--output-format",
            "stream-json",
            "--resume",
            &session,
            "go",
        ],
    );
    let done = json_lines(&out.stdout).pop().unwrap();
    assert_eq!(done["permission_mode"], "default", "{done}");
    let told = server.requests()[0].last_user_text().unwrap_or_default();
    common::assert_contains(&told, "User has approved your plan");
    assert!(
        told.contains(
            "~~Move `table_2` to the new store and check row counts~~ (skipped by the user)"
        ),
        "{told}"
    );
}
