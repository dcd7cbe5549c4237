//! `!command` in the terminal UI (tmux): the user's own shell command runs
//! in the session's directory with no model turn, its output is on screen
//! and opens the next request; it gets the filtered child environment
//! (no API key), and plan mode runs only commands that read.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::tmux::{cycle_mode_to, launch, quit_and_check_terminal, require_tmux, setup, wait_for};

#[test]
fn a_bang_command_runs_shows_its_output_and_reaches_the_next_request() {
    require_tmux();
    let s = setup(
        |sb, _, _| {
            sb.write("notes.txt", "marker-from-the-file\n");
            Script::new().turn(Turn::text("I see the notes."))
        },
        None,
    );
    launch(&s);
    // `pwd` proves the session's working directory; the key check proves
    // the child environment is the filtered one.
    s.tmux.type_text(
        "!cat notes.txt; pwd; echo \"key=[${ANTHROPIC_API_KEY:-none}]\"; touch made-by-user.txt",
    );
    s.tmux.keys(&["Enter"]);
    let screen = s.tmux.wait_text("key=[none]");
    common::assert_contains(&screen, "marker-from-the-file");
    let project = s.sb.project().canonicalize().unwrap();
    assert!(
        screen.contains(&project.display().to_string()),
        "pwd is not the project:\n{screen}"
    );
    common::assert_lacks(&screen, "test-key-not-secret");
    // The user ran it: no model request, no permission prompt, and the
    // file it wrote is there (the default mode lets the user write).
    assert!(s.server.requests().is_empty(), "a model turn ran");
    wait_for("the file the command made", &s.tmux, || {
        project.join("made-by-user.txt").exists().then_some(())
    });

    s.tmux.submit("what did the notes say?");
    s.tmux.wait_text("I see the notes.");
    let request = wait_for("the request", &s.tmux, || {
        s.server.requests().into_iter().next()
    });
    let text = request.last_user_text().unwrap();
    assert!(
        text.contains("<command>cat notes.txt; pwd;"),
        "the command is not in the request:\n{text}"
    );
    common::assert_contains(&text, "marker-from-the-file");
    assert_eq!(
        request.last_user_typed().unwrap().trim(),
        "what did the notes say?"
    );
    quit_and_check_terminal(&s);
}

#[test]
fn plan_mode_runs_a_reading_command_and_refuses_a_writing_one() {
    require_tmux();
    let s = setup(
        |sb, _, _| {
            sb.write("notes.txt", "planning-notes\n");
            Script::new()
        },
        None,
    );
    launch(&s);
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("!touch written-in-plan-mode.txt");
    s.tmux.wait_text("Plan mode runs only commands that read");
    assert!(!s.sb.project().join("written-in-plan-mode.txt").exists());
    s.tmux.submit("!cat notes.txt");
    s.tmux.wait_text("planning-notes");
    assert!(s.server.requests().is_empty(), "a model turn ran");
    quit_and_check_terminal(&s);
}
