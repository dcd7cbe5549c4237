//! The plan review page for a plan an ended session left awaiting approval
//! (issue 41), through the real binary against the testkit mock model: a
//! headless planning run presents a plan; `catui plans review` lists it;
//! `catui plans review SLUG` serves its page, and a client that speaks to
//! it as a browser does (token, cookie, CSRF token, Origin) sends it back
//! with a comment on line 3, which the resumed session delivers to the
//! model; the revision presented next is approved with "accept edits",
//! which the resumed session carries out. The same flow in a real browser
//! is `plan_review_browser.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{MockServer, Script, Turn};
use common::review::{PageClient, PlansReview};
use common::{Sandbox, json_lines, plans_dir, writes_plan_then_exits};
use serde_json::{Value, json};

const PLAN: &str =
    "# Add a --json flag\n\n1. Parse --json in cli.py\n2. Serialise with json.dumps\n3. Test it\n";
const REVISED: &str =
    "# Add a --json flag\n\n1. Parse --json in cli.py\n2. Serialise with orjson\n3. Test it\n";

/// Runs `catui -p ... PROMPT` (stream-json) against `server`; the last line.
fn headless(sb: &Sandbox, server: &MockServer, args: &[&str]) -> Value {
    let out = sb
        .catui(server)
        .args(["-p", "--output-format", "stream-json"])
        .args(args)
        .output()
        .unwrap();
    common::assert_ok(&out);
    json_lines(&out.stdout).pop().unwrap()
}

/// The slug of the plan a `plan_ready` line names (its file's stem).
fn slug_of_ready(ready: &Value) -> String {
    std::path::Path::new(ready["plan_file"].as_str().unwrap())
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn plans_review_list(sb: &Sandbox) -> String {
    let out = sb.bare().args(["plans", "review"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    common::stdout(&out)
}

#[test]
fn an_ended_session_s_plan_is_sent_back_then_approved_on_its_page_and_resumed() {
    let sb = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let dir = plans_dir(&sb);
    let server = common::mock(writes_plan_then_exits(&dir, PLAN));
    let ready = headless(
        &sb,
        &server,
        &["--permission-mode", "plan", "plan a --json flag"],
    );
    assert_eq!(ready["subtype"], "plan_ready");
    let session = ready["session_id"].as_str().unwrap().to_string();
    let plan_file = ready["plan_file"].as_str().unwrap().to_string();
    let slug = slug_of_ready(&ready);

    let listed = plans_review_list(&sb);
    assert!(
        listed.contains(&slug) && listed.contains(&session),
        "{listed}"
    );

    // Sent back with a comment on line 3.
    let review = PlansReview::start(&sb, &slug);
    assert!(
        review
            .lines
            .iter()
            .any(|l| l.contains("no browser can be started here")),
        "{:?}",
        review.lines
    );
    let page = PageClient::open(&review.url);
    let shown = page.page();
    assert_eq!(shown["plan"], PLAN);
    assert_eq!(shown["decisions"], "all");
    assert_eq!(shown["steps"].as_array().unwrap().len(), 3);
    assert_eq!(shown["revisions"].as_array().unwrap().len(), 1);
    let hash = shown["hash"].as_str().unwrap().to_string();
    let (status, answer) = page.decide(&json!({
        "verdict": "keep_planning", "planHash": hash, "feedback": "Nearly.",
        "comments": [{"line": 3, "text": "Also accept -j."}]
    }));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["summary"], "Sent back with 1 comment: keep planning");
    let (code, out) = review.finish();
    assert_eq!(code, 0, "{out}");
    common::assert_contains(&out, &format!("catui --resume {session}"));
    assert!(plans_review_list(&sb).contains("No plan of this project awaits"));

    // The resumed session tells the model first, and stays in plan mode;
    // its model revises the plan and presents it again.
    // (A new conversation reads the plan before rewriting it.)
    let server = common::mock(
        Script::new()
            .turn(common::read("r2", &plan_file))
            .turn(common::write("p2", &plan_file, REVISED))
            .turn(common::exit_plan("x2")),
    );
    let ready = headless(&sb, &server, &["--resume", &session, "go on"]);
    assert_eq!(ready["subtype"], "plan_ready", "{ready}");
    let first = server.requests()[0].last_user_text().unwrap_or_default();
    common::assert_contains(&first, "The user rejected the plan");
    common::assert_contains(
        &first,
        "Nearly.\n\nComments on lines of the plan:\n\n> line 3: 1. Parse --json in cli.py\nAlso accept -j.",
    );
    let (told, typed) = (
        first.find("The user rejected").unwrap(),
        first.find("go on").unwrap(),
    );
    assert!(told < typed, "the user's input comes after: {first}");

    // Approved with "accept edits" on the revision's page, which shows
    // the history.
    let review = PlansReview::start(&sb, &slug);
    let page = PageClient::open(&review.url);
    let shown = page.page();
    assert_eq!(shown["plan"], REVISED);
    let revisions = shown["revisions"].as_array().unwrap();
    assert_eq!(revisions.len(), 2, "{revisions:?}");
    assert!(
        revisions[1]["diff"]
            .as_str()
            .unwrap()
            .contains("+2. Serialise with orjson")
    );
    let (status, answer) = page.decide(&json!({
        "verdict": "approve", "planHash": shown["hash"], "mode": "acceptEdits"
    }));
    assert_eq!(status, 200, "{answer}");
    let (code, out) = review.finish();
    assert_eq!(code, 0, "{out}");
    common::assert_contains(&out, "Decided: Approved, continuing in acceptEdits.");

    let server = common::mock(Script::new().turn(Turn::text("Implementing.")));
    let done = headless(&sb, &server, &["--resume", &session, "start"]);
    assert_eq!(done["subtype"], "success", "{done}");
    assert_eq!(done["permission_mode"], "acceptEdits");
    let first = server.requests()[0].last_user_text().unwrap_or_default();
    common::assert_contains(&first, "User has approved your plan");
    common::assert_contains(&first, "2. Serialise with orjson");
    // Carried out once: the next resume tells the model nothing more.
    let server = common::mock(Script::new().turn(Turn::text("ok")));
    headless(&sb, &server, &["--resume", &session, "again"]);
    let again = server.requests()[0].last_user_text().unwrap_or_default();
    common::assert_lacks(&again, "User has approved");
    // `plans show` marks the approved revision.
    let out = sb.bare().args(["plans", "show", &slug]).output().unwrap();
    let shown = common::stdout(&out);
    common::assert_contains(&shown, "this is the approved revision");
}

#[test]
fn plans_review_names_what_is_not_awaiting_and_refuses_bad_names() {
    let sb = Sandbox::new();
    // `catui plans review SLUG`, which must refuse it with exit code 2.
    let refused = |slug: &str| {
        let out = sb.bare().args(["plans", "review", slug]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{slug}");
        out
    };
    let err = common::stderr(&refused("no-such-plan"));
    common::assert_contains(&err, "plan 'no-such-plan' does not await a decision");
    refused("../etc/passwd");
    assert!(plans_review_list(&sb).contains("No plan of this project awaits"));
}

#[test]
fn a_parked_decision_ends_plan_mode_on_resume_without_approving() {
    let sb = Sandbox::new();
    let server = common::mock(writes_plan_then_exits(&plans_dir(&sb), PLAN));
    let ready = headless(&sb, &server, &["--permission-mode", "plan", "plan it"]);
    let session = ready["session_id"].as_str().unwrap().to_string();
    let slug = slug_of_ready(&ready);
    let review = PlansReview::start(&sb, &slug);
    let page = PageClient::open(&review.url);
    let hash = page.page()["hash"].clone();
    // Refused decisions decide nothing and keep the page open.
    let (status, _) =
        page.decide(&json!({"verdict": "approve", "planHash": hash, "skipSteps": [9]}));
    assert_eq!(status, 400);
    let (status, answer) =
        page.decide(&json!({"verdict": "park", "planHash": hash, "feedback": "later"}));
    assert_eq!(status, 200, "{answer}");
    let (code, _) = review.finish();
    assert_eq!(code, 0);
    let server = common::mock(Script::new().turn(Turn::text("Something else then.")));
    let done = headless(&sb, &server, &["--resume", &session, "do something else"]);
    assert_eq!(done["permission_mode"], "default", "{done}");
    let first = server.requests()[0].last_user_text().unwrap_or_default();
    common::assert_contains(&first, "The user parked the plan");
    let out = sb.bare().args(["plans", "list"]).output().unwrap();
    assert!(common::stdout(&out).contains("[parked]"));
}

/// A browser launcher that fails (`$BROWSER` names one that finds no
/// browser) is reported as such: the address is printed to open by hand,
/// never "Opened ... in your browser".
#[test]
fn a_browser_that_cannot_start_is_not_said_to_have_opened() {
    let sb = Sandbox::new();
    let server = common::mock(writes_plan_then_exits(&plans_dir(&sb), PLAN));
    let ready = headless(&sb, &server, &["--permission-mode", "plan", "plan it"]);
    let slug = slug_of_ready(&ready);
    let review = PlansReview::start_with_env(&sb, &slug, &[("BROWSER", "false")]);
    let said = review.lines.join("\n");
    common::assert_lacks(&said, "Opened the review page");
    assert!(
        said.contains(&format!(
            "Open the review page of {slug} in a browser (false did not open a browser"
        )),
        "{said}"
    );
    assert!(review.url.starts_with("http://127.0.0.1:"));
}
