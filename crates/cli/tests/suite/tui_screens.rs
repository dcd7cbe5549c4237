//! Clean screens: what the terminal UI leaves in the scrollback and what
//! it prints, seen in a tmux pane running the real `catui` binary against
//! the testkit mock model. Nothing live (spinner, prompt echo, dialogs)
//! is ever committed to the scrollback, also across a resize; messages
//! say what happened; the replay of a session is its live transcript; the
//! todo panel after a long plan is short, counts the rest and stays while
//! todos are open.
//!
//! Every wait polls the screen with a generous timeout. Without tmux the
//! tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use catui_testkit::{Hold, Script, Turn};
use common::tmux::*;
use serde_json::json;

/// An answer of `n` numbered lines, each naming `marker`.
fn tall_answer(marker: &str, n: usize) -> String {
    (1..=n)
        .map(|i| format!("{marker} row {i:02} with some words to make the line longer than seventy columns, and more.\n\n"))
        .collect()
}

#[test]
fn narrowing_the_window_during_a_turn_commits_nothing_live() {
    require_tmux();
    narrowing_during_a_turn((80, 24), 70);
    narrowing_during_a_turn((120, 40), 100);
}

fn narrowing_during_a_turn(size: (u16, u16), narrower: u16) {
    // The second answer waits until the narrowed live area was seen: a
    // fixed delay could end the turn first on a loaded machine, and the
    // wait for a spinner at the new width would never be met.
    let slow = Hold::new();
    let s = tmux_session_sized(
        Script::new()
            .turn(Turn::text(tall_answer("FULL", 30)))
            .turn(Turn::text("SLOW answer arrived.").held(&slow)),
        size,
    );
    launch(&s);
    s.tmux.submit("fill the screen");
    s.tmux.wait_history("FULL row 30");
    s.tmux
        .wait_screen("the first turn over", |sc| !sc.contains("esc to interrupt"));
    s.tmux.submit("the second question");
    s.tmux.wait_text("esc to interrupt");
    s.tmux.resize(narrower, size.1);
    s.tmux.wait_screen("the live area at the new width", |sc| {
        sc.lines().any(|l| l.contains("esc to interrupt"))
            && sc.lines().all(|l| l.chars().count() <= narrower as usize)
    });
    slow.release();
    s.tmux.wait_history("SLOW answer arrived.");
    s.tmux
        .wait_screen("the turn over", |sc| !sc.contains("esc to interrupt"));
    let all = s.tmux.history();
    assert!(
        !all.contains("Working…"),
        "a spinner frame in the scrollback:\n{all}"
    );
    assert_eq!(
        all.matches("> the second question").count(),
        1,
        "the prompt echo once:\n{all}"
    );
    assert_eq!(all.matches("Type a message").count(), 1, "{all}");
    quit_and_check_terminal(&s);
}

/// The status line of an HTTP GET of `url` (`http://127.0.0.1:PORT/...`),
/// or the connection error.
fn http_get(url: &str) -> Result<String, std::io::Error> {
    use std::io::{Read, Write};
    let rest = url.trim_start_matches("http://");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = std::net::TcpStream::connect(host)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n")?;
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    Ok(response.lines().next().unwrap_or("").to_string())
}

/// The pane's lines with the terminal's own wrapping undone (`-J`).
fn joined_screen(s: &Setup) -> String {
    String::from_utf8_lossy(
        &s.tmux
            .run(&["capture-pane", "-p", "-J", "-t", "e2e"])
            .stdout,
    )
    .into_owned()
}

fn joined_history(s: &Setup) -> String {
    String::from_utf8_lossy(
        &s.tmux
            .run(&[
                "capture-pane",
                "-p",
                "-J",
                "-S",
                "-",
                "-E",
                "-",
                "-t",
                "e2e",
            ])
            .stdout,
    )
    .into_owned()
}

#[test]
fn without_a_browser_the_review_address_is_whole_and_only_shown_while_it_works_and_approval_is_quiet()
 {
    require_tmux();
    for size in [(80, 24), (120, 40)] {
        let s = setup_sized(
            |_, dir, _| common::presents_plan(dir, "Implementing now."),
            None,
            size,
        );
        s.sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
        launch(&s);
        cycle_mode_to(&s.tmux, "plan");
        s.tmux.submit("plan the parser rewrite");
        s.tmux.wait_text("Would you like to proceed?");
        s.tmux.keys(&["b"]);
        s.tmux.wait_text("No browser could be started");
        let screen = joined_screen(&s);
        common::assert_lacks(&screen, "Review page open");
        // The address is a line of its own, whole (the terminal's wrap
        // undone), outside the dialog's frame.
        let url = screen
            .lines()
            .find(|l| l.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no address on a line of its own:\n{screen}"))
            .trim_end()
            .to_string();
        common::assert_contains(&url, "token=");
        common::assert_lacks(&url, "│");
        let status = http_get(&url).expect("the page answers while the dialog is open");
        assert!(
            status.contains(" 200") || status.contains(" 30"),
            "{status}"
        );
        // Decided here: the page stops, and its address is gone with it.
        s.tmux.keys(&["2"]);
        s.tmux.wait_history("Implementing now.");
        s.tmux
            .wait_screen("the turn over", |sc| !sc.contains("esc to interrupt"));
        let all = joined_history(&s);
        // Quiet by default: the approval without its hash, no report of
        // nothing done.
        common::assert_contains(&all, "Plan approved:");
        common::assert_lacks(&all, "sha256");
        common::assert_lacks(&all, "0 unplanned files");
        common::assert_lacks(&all, "0/1 steps done");
        let token = url.split("token=").nth(1).unwrap();
        assert!(!all.contains(token), "a dead address was left:\n{all}");
        common::assert_lacks(&all, "No browser could be started");
        let address = url.split("/?").next().unwrap();
        wait_for("the page's server to stop", &s.tmux, || {
            http_get(&format!("{address}/")).is_err().then_some(())
        });
        quit_and_check_terminal(&s);
    }
}

/// Clears the pane and its scrollback, so only the next run's output is
/// there to be found.
fn clear_pane(s: &Setup) {
    s.tmux.submit("clear");
    s.tmux.wait_screen("a cleared screen", |sc| {
        !sc.contains("catui-exit") && sc.contains(SHELL_PROMPT.trim_end())
    });
    assert!(s.tmux.run(&["clear-history", "-t", "e2e"]).status.success());
}

#[test]
fn a_resumed_session_marks_a_failed_command_as_the_live_one_did() {
    let s = tmux_session_sized(
        Script::new()
            .turn(common::bash("b1", "echo broken-build >&2; exit 3"))
            .turn(Turn::text("FAILED-ANSWER: the build broke.")),
        (80, 24),
    );
    launch(&s);
    s.tmux.submit("build it");
    let live = s.tmux.wait_history("FAILED-ANSWER");
    assert!(live.contains("✗ Bash(echo broken-build"), "{live}");
    quit_and_check_terminal(&s);

    clear_pane(&s);
    launch_with_pid(&s, "--continue", false);
    let replay = s.tmux.wait_history("FAILED-ANSWER");
    assert!(
        replay.contains("✗ Bash(echo broken-build"),
        "the replay keeps the failure's mark:\n{replay}"
    );
    assert!(!replay.contains("● Bash(echo broken-build"), "{replay}");
    quit_and_check_terminal(&s);
}

#[test]
fn the_status_line_counts_no_zero_tokens_while_the_spinner_counts() {
    // Held until the spinner was seen, however slow the machine.
    let answer = Hold::new();
    let s = tmux_session_sized(
        Script::new().turn(Turn::text("COUNTED answer.").usage(1200, 34).held(&answer)),
        (80, 24),
    );
    launch(&s);
    s.tmux.submit("count something");
    let screen = s.tmux.wait_text("esc to interrupt");
    let status = status_line(&screen);
    assert!(status.contains("test-model"), "{screen}");
    assert!(
        !status.contains("0 tokens"),
        "nothing counted yet:\n{screen}"
    );
    answer.release();
    s.tmux.wait_history("COUNTED answer.");
    s.tmux
        .wait_screen("the turn's tokens in the status line", |sc| {
            status_line(sc).contains("1.2k tokens")
        });
    quit_and_check_terminal(&s);
}

#[test]
fn help_lays_out_its_sheet_for_the_width() {
    require_tmux();
    for size in [(80, 24), (120, 40)] {
        let s = tmux_session_sized(Script::new(), size);
        launch(&s);
        s.tmux.submit("/help");
        s.tmux.wait_history("/rewind");
        let all = joined_history(&s);
        let lines: Vec<&str> = all.lines().collect();
        // No row is wider than the window (the terminal wrapped none).
        for line in &lines {
            assert!(
                line.chars().count() <= size.0 as usize,
                "a row wider than the window: {line:?}\n{all}"
            );
        }
        // A long description goes on under itself, not under its name.
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with("/agents "))
            .unwrap_or_else(|| panic!("no /agents row:\n{all}"));
        let column = lines[at].find("every session").unwrap();
        if size.0 == 80 {
            let next = lines[at + 1];
            let indent = next.len() - next.trim_start().len();
            assert_eq!(indent, column, "{next:?} under {:?}\n{all}", lines[at]);
            assert!(!next.trim_start().starts_with('/'), "{all}");
        } else {
            assert!(lines[at].contains("resume a local one"), "{all}");
        }
        quit_and_check_terminal(&s);
    }
}

/// The pane's history with colours (tmux's escape sequences kept).
fn styled_history(s: &Setup) -> String {
    String::from_utf8_lossy(
        &s.tmux
            .run(&["capture-pane", "-p", "-e", "-J", "-S", "-", "-t", "e2e"])
            .stdout,
    )
    .into_owned()
}

#[test]
fn the_plan_is_shown_once_and_the_users_own_no_is_not_an_error() {
    require_tmux();
    let s = setup_sized(
        |_, dir, _| {
            common::presents_plan(dir, "Back to planning.")
                .turn(common::bash("b1", "rm -rf build"))
                .turn(Turn::text("Keeping the build dir."))
        },
        None,
        (80, 24),
    );
    s.sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    launch(&s);
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("plan the parser rewrite");
    s.tmux.wait_text("Would you like to proceed?");
    // One full path (the dialog's), and the plan's text once: in the
    // dialog, not also as a preview above it.
    let all = joined_history(&s);
    assert_eq!(all.matches(s.plans_dir.as_str()).count(), 1, "{all}");
    assert_eq!(all.matches("Rewrite the parser").count(), 1, "{all}");
    assert!(all.contains("Write(plan "), "{all}");
    common::assert_contains(&all, "Plan written (3 lines)");

    s.tmux.keys(&["3"]);
    s.tmux.wait_text("What should change?");
    s.tmux.submit("do the lexer first");
    s.tmux.wait_history("Back to planning.");
    cycle_mode_to(&s.tmux, "default");
    s.tmux.submit("clean up");
    s.tmux.wait_text("Do you want to proceed?");
    s.tmux.keys(&["3"]);
    s.tmux.wait_text("tell the agent");
    s.tmux.submit("keep the build dir");
    let all = s.tmux.wait_history("Keeping the build dir.");
    // The user's own answers: no failure mark, not in the error colour.
    common::assert_contains(&all, "● ExitPlanMode");
    common::assert_contains(&all, "Plan not approved · do the lexer first");
    common::assert_contains(&all, "● Bash(rm -rf build)");
    common::assert_contains(&all, "Declined · keep the build dir");
    common::assert_lacks(&all, "✗");
    let styled = styled_history(&s);
    for line in styled.lines().filter(|l| {
        l.contains("ExitPlanMode") || l.contains("lexer first") || l.contains("build dir")
    }) {
        // Red (31 or 91, or the theme's 256/RGB reds) is for failures.
        assert!(
            !line.contains("[31m") && !line.contains("[91m") && !line.contains("38;5;160"),
            "red on the user's own answer: {line:?}"
        );
    }
    quit_and_check_terminal(&s);

    // The replay marks the declined command as the live run did.
    clear_pane(&s);
    // Tall enough for the start-up lines to stay on screen.
    s.tmux.resize(120, 60);
    launch_with_pid(&s, "--continue", false);
    let replay = s.tmux.wait_history("Keeping the build dir.");
    common::assert_contains(&replay, "● Bash(rm -rf build)");
    common::assert_lacks(&replay, "✗ Bash(rm -rf build)");
    // The user's words under each declined call, as live.
    common::assert_contains(&replay, "Plan not approved · do the lexer first");
    common::assert_contains(&replay, "Declined · keep the build dir");
    quit_and_check_terminal(&s);
}

#[test]
fn an_edit_stopped_with_esc_keeps_its_diff_in_the_scrollback() {
    require_tmux();
    for size in [(80, 24), (120, 40)] {
        let s = tmux_session_sized(
            Script::new()
                .turn(common::edit(
                    "e1",
                    "src/main.rs",
                    "println!(\"hello\");",
                    "println!(\"REJECTED-CHANGE\");",
                ))
                .turn(Turn::text("Should not be asked for.")),
            size,
        );
        launch(&s);
        s.tmux.submit("change the greeting");
        s.tmux.wait_text("Do you want to");
        s.tmux.keys(&["Escape"]);
        s.tmux
            .wait_screen("the dialog closed and the turn over", |sc| {
                !sc.contains("Do you want to") && !sc.contains("esc to interrupt")
            });
        let all = s.tmux.history();
        let at = all
            .find("Edit(src/main.rs)")
            .unwrap_or_else(|| panic!("no edit line:\n{all}"));
        let after = &all[at..];
        assert!(after.contains("- println!(\"hello\");"), "{all}");
        assert!(after.contains("+ println!(\"REJECTED-CHANGE\");"), "{all}");
        common::assert_lacks(&all, "✗ Edit");
        assert_eq!(
            std::fs::read_to_string(&s.main_rs).unwrap(),
            "fn main() {\n    println!(\"hello\");\n}\n",
            "the file is untouched"
        );
        assert_eq!(s.server.requests().len(), 1, "Esc stopped the turn");
        quit_and_check_terminal(&s);
    }
}

/// Rows of the todo panel on `screen` (☐ ☒ ◼ and the "+N more" line).
fn todo_panel_rows(screen: &str) -> usize {
    screen
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            t.starts_with(['☐', '☒', '◼']) || (t.starts_with("… +") && t.contains(" more ("))
        })
        .count()
}

#[test]
fn the_todo_panel_is_short_counts_the_rest_and_stays_while_todos_are_open() {
    require_tmux();
    let todos: Vec<serde_json::Value> = (1..=30)
        .map(|i| {
            json!({"content": format!("Step {i}: edit `src/mod{i}.rs`"),
                   "activeForm": format!("Editing `src/mod{i}.rs`"),
                   "status": if i < 3 { "completed" } else if i == 3 { "in_progress" } else { "pending" }})
        })
        .collect();
    let s = setup_sized(
        move |_, _, _| {
            Script::new()
                .turn(common::todo_write("t1", &todos))
                .turn(Turn::text("Working through the steps.").delay(Duration::from_secs(2)))
        },
        None,
        (80, 24),
    );
    launch(&s);
    s.tmux.submit("do the 30 steps");
    // A quarter of 24 rows: five steps and the count of the rest.
    let screen = s.tmux.wait_text("+25 more");
    common::assert_contains(&screen, "(2/30 done)");
    assert_eq!(todo_panel_rows(&screen), 6, "{screen}");
    let panel: Vec<&str> = screen
        .lines()
        .filter(|l| l.trim_start().starts_with(['☐', '☒', '◼']))
        .collect();
    assert!(
        panel.iter().any(|l| l.contains("◼ Editing src/mod3.rs")),
        "{screen}"
    );
    assert!(
        panel.iter().all(|l| !l.contains('`')),
        "no raw backticks:\n{screen}"
    );
    // The turn ends with todos still open: the panel stays.
    let screen = s.tmux.wait_text("Working through the steps.");
    assert_eq!(todo_panel_rows(&screen), 6, "{screen}");
    // The transcript's checklist draws code as the panel does.
    let all = s.tmux.history();
    common::assert_contains(&all, "edit src/mod1.rs");
    assert!(
        !all.contains('`'),
        "no raw backticks in the transcript:\n{all}"
    );
    // Ctrl+T hides it between turns, and brings it back.
    s.tmux.keys(&["C-t"]);
    s.tmux
        .wait_screen("the panel hidden", |sc| todo_panel_rows(sc) == 0);
    s.tmux.keys(&["C-t"]);
    let screen = s
        .tmux
        .wait_screen("the panel back", |sc| todo_panel_rows(sc) == 6);
    common::assert_contains(&screen, "◼ Editing src/mod3.rs");
    s.tmux.keys(&["?"]);
    s.tmux.wait_text("Ctrl+T");
    s.tmux.keys(&["Escape"]);
    quit_and_check_terminal(&s);
}
