//! `catui sessions` and `catui plans` through the real binary, on
//! transcripts and plan files written into a sandboxed config home.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::time::{Duration, SystemTime};

use catui_core::session::{EntryBody, Redactor, TranscriptWriter};
use catui_protocol::{Message, PermissionMode};
use common::Sandbox;

fn write_session(
    sb: &Sandbox,
    id: &str,
    prompt: &str,
    slug: Option<&str>,
    mode: Option<PermissionMode>,
    age_secs: u64,
) {
    let path = common::fixtures::write_transcript(sb, id, prompt, slug, mode);
    set_age(&path, age_secs);
}

fn set_age(path: &Path, age_secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(age_secs))
        .unwrap();
}

fn run(sb: &Sandbox, args: &[&str]) -> (i32, String, String) {
    let out = sb.bare().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        common::stdout(&out),
        common::stderr(&out),
    )
}

#[test]
fn sessions_with_none_prints_a_friendly_line() {
    let sb = Sandbox::new();
    let (code, out, err) = run(&sb, &["sessions"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("No sessions yet"), "{out}");
    assert_eq!(out.trim().lines().count(), 1);
}

#[test]
fn sessions_lists_newest_first_with_mode_slug_and_prompt() {
    let sb = Sandbox::new();
    write_session(
        &sb,
        "old-session",
        "fix the flaky test",
        Some("idle-grey-moth"),
        None,
        3 * 86_400,
    );
    write_session(
        &sb,
        "new-session",
        "plan the\nparser refactor",
        Some("calm-blue-river"),
        Some(PermissionMode::Plan),
        120,
    );
    let (code, out, err) = run(&sb, &["sessions"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("ID"), "{out}");
    assert!(lines[0].contains("FIRST PROMPT"));
    assert!(lines[1].starts_with("new-session"), "{out}");
    for cell in [
        "2m ago",
        "plan",
        "calm-blue-river",
        "plan the parser refactor",
    ] {
        assert!(lines[1].contains(cell), "missing {cell}: {}", lines[1]);
    }
    assert!(lines[2].starts_with("old-session"), "{out}");
    assert!(lines[2].contains("3d ago") && lines[2].contains("fix the flaky test"));
    // Every session has a slug; one that never planned shows no plan.
    assert!(!lines[2].contains("idle-grey-moth"), "{out}");
    assert!(out.contains("2 session(s)"));
    // The listing left an index behind for next time.
    let index =
        catui_core::session::project_dir(&sb.config(), &sb.project()).join("sessions-index.json");
    assert!(index.is_file());
}

#[test]
fn plans_list_show_and_path() {
    let sb = Sandbox::new();
    let plans = sb.config().join("plans");
    std::fs::create_dir_all(&plans).unwrap();
    write_session(
        &sb,
        "owner-session",
        "plan it",
        Some("brisk-cedar-otter"),
        Some(PermissionMode::Plan),
        60,
    );
    std::fs::write(
        plans.join("brisk-cedar-otter.md"),
        "# Parser refactor\n\n1. split\n",
    )
    .unwrap();
    std::fs::write(
        plans.join("brisk-cedar-otter-agent-a1.md"),
        "# Agent notes\n",
    )
    .unwrap();
    std::fs::write(plans.join("quiet-green-owl.md"), "# Someone else's plan\n").unwrap();

    let (code, out, err) = run(&sb, &["plans"]);
    assert_eq!(code, 0, "{err}");
    let ours = out.find("Plans of this project").expect(&out);
    let others = out.find("Other plans in").expect(&out);
    assert!(ours < others);
    let (ours_part, others_part) = out.split_at(others);
    assert!(ours_part.contains("brisk-cedar-otter "), "{out}");
    assert!(ours_part.contains("brisk-cedar-otter-agent-a1"), "{out}");
    assert!(ours_part.contains("session owner-session"), "{out}");
    assert!(ours_part.contains("# Parser refactor"), "{out}");
    assert!(others_part.contains("quiet-green-owl"), "{out}");
    assert!(!ours_part.contains("quiet-green-owl"), "{out}");
    let (_, listed, _) = run(&sb, &["plans", "list"]);
    assert_eq!(listed, out);

    let (code, shown, _) = run(&sb, &["plans", "show", "brisk-cedar-otter"]);
    assert_eq!(code, 0);
    assert_eq!(shown, "# Parser refactor\n\n1. split\n");

    let (code, out, err) = run(&sb, &["plans", "show", "no-such-plan"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("no plan 'no-such-plan'") && err.contains("catui plans list"),
        "{err}"
    );
    let (code, _, err) = run(&sb, &["plans", "show", "../secrets"]);
    assert_eq!(code, 2);
    common::assert_contains(&err, "not a plan name");

    let (code, out, _) = run(&sb, &["plans", "path"]);
    assert_eq!(code, 0);
    assert_eq!(out.trim(), plans.display().to_string());
}

#[test]
fn plans_with_none_prints_a_friendly_line() {
    let sb = Sandbox::new();
    let (code, out, err) = run(&sb, &["plans"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("No plan files yet"), "{out}");
}

/// `catui sessions` over 1,000 sessions (target < 200 ms), wall time of the
/// real binary. Run with `cargo test -p catui --release --test sessions_cli
/// -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_sessions_command_1000() {
    let sb = Sandbox::new();
    for i in 0..1_000 {
        let mut w =
            TranscriptWriter::for_session(&sb.config(), &sb.project(), &format!("s-{i:04}"))
                .unwrap()
                .with_redactor(Redactor::default());
        let mut bodies = Vec::new();
        for t in 0..10 {
            bodies.push(EntryBody::user(Message::user_text(format!(
                "session {i} turn {t}: explain the module layout and propose a refactor"
            ))));
            bodies.push(EntryBody::Assistant {
                message: Message::assistant_text("The layout is ... ".repeat(20)),
                usage: None,
                model: None,
            });
        }
        w.append_batch(bodies).unwrap();
    }
    let mut times = Vec::new();
    for _ in 0..8 {
        let started = std::time::Instant::now();
        let (code, out, _) = run(&sb, &["sessions"]);
        times.push(started.elapsed());
        assert_eq!(code, 0);
        assert!(out.contains("1000 session(s)"));
    }
    let cold = times.remove(0);
    times.sort();
    println!(
        "catui sessions, 1,000 sessions: first run (builds the index) {cold:?}; with the index median {:?} (min {:?}, max {:?})",
        times[times.len() / 2],
        times[0],
        times[times.len() - 1]
    );
}
