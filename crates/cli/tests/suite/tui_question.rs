//! The question dialog (AskUserQuestion) in the real `catui` binary in a
//! tmux pane against the testkit mock model: its hint row names the keys
//! that work on the tab shown (the test presses exactly the keys the row
//! names and checks each does what the row says), the `?` sheet lists the
//! same keys, and Esc stops with the questions left open, as on the plan
//! dialog.
//!
//! Every wait polls the screen with a generous timeout. Without tmux the
//! tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::last_user;
use common::tmux::*;
use serde_json::Value;

/// Two questions, one of a single choice and one of several.
pub(super) fn questions() -> Value {
    common::fixtures::cache_questions("Where should the cache live?")
}

/// The rows inside the dialog's frame.
fn dialog_rows(screen: &str) -> impl Iterator<Item = &str> {
    screen
        .lines()
        .filter(|l| l.starts_with('│'))
        .map(|l| l.trim_start_matches('│').trim_end_matches('│').trim())
}

/// The dialog's hint row as (key, words) pairs: the row inside the frame
/// that ends naming Esc.
fn hint(screen: &str) -> Option<Vec<(String, String)>> {
    let row = dialog_rows(screen).find(|l| l.contains(" · ") && l.ends_with("Esc stop"))?;
    Some(
        row.split(" · ")
            .map(|part| {
                let (key, words) = part.split_once(' ').unwrap_or((part, ""));
                (key.to_string(), words.to_string())
            })
            .collect(),
    )
}

/// Waits for a hint naming exactly `keys`, and returns it.
fn wait_hint(s: &Setup, keys: &[&str]) -> Vec<(String, String)> {
    let named =
        |sc: &str| hint(sc).filter(|h| h.iter().map(|(k, _)| k.as_str()).eq(keys.iter().copied()));
    let screen = s
        .tmux
        .wait_screen(&format!("a hint naming {keys:?}"), |sc| named(sc).is_some());
    named(&screen).unwrap()
}

/// Waits for the tab of `question` (its question heads the tab; the
/// Submit tab lists the questions indented after a bullet).
fn on_tab(s: &Setup, question: &str) {
    s.tmux
        .wait_screen(&format!("the tab asking {question:?}"), |sc| {
            dialog_rows(sc).any(|r| r.starts_with(question))
        });
}

#[test]
fn the_hint_row_names_the_keys_that_work_and_the_sheet_lists_them() {
    require_tmux();
    for size in [(80, 24), (120, 40)] {
        let s = tmux_session_sized(
            Script::new()
                .turn(Turn::tool_use("q1", "AskUserQuestion", questions()))
                .turn(Turn::text("Noted your choices.")),
            size,
        );
        launch(&s);

        // The ? sheet lists the dialog's keys, from the same table.
        s.tmux.keys(&["?"]);
        s.tmux.wait_text("any other key closes this sheet");
        // The question section sits above the sheet's last one (the rewind
        // picker's keys): from the end, scroll up a row at a time until its
        // heading shows.
        s.tmux.keys(&["End"]);
        s.tmux.wait_text("close; nothing is restored");
        let sheet = wait_for("the question section of the sheet", &s.tmux, || {
            let screen = s.tmux.screen();
            if screen.contains("When the agent asks you questions") {
                return Some(screen);
            }
            s.tmux.keys(&["Up"]);
            None
        });
        for words in [
            "tick or untick the selected option",
            "next question, then Submit",
            "previous question",
            "on Submit: send the answers",
        ] {
            assert!(sheet.contains(words), "{words:?} in the sheet:\n{sheet}");
        }
        s.tmux.keys(&["Escape"]);
        s.tmux
            .wait_screen("the sheet closed", |sc| !sc.contains("When the agent asks"));

        s.tmux.submit("Add a cache");
        on_tab(&s, "Where should the cache live?");

        // A single-choice question: numbers, tabs both ways, Esc.
        let first = wait_hint(&s, &["1-3", "Tab/→", "Shift+Tab/←", "Esc"]);
        assert_eq!(first[0].1, "choose");
        assert_eq!(first[1].1, "next");
        assert_eq!(first[2].1, "back");
        // Tab/→: both keys go to the next tab; Shift+Tab/←: both come back.
        for (next, back) in [("Tab", "BTab"), ("Right", "Left")] {
            s.tmux.keys(&[next]);
            on_tab(&s, "Which platforms matter?");
            s.tmux.keys(&[back]);
            on_tab(&s, "Where should the cache live?");
        }
        // 1-3 choose: 2 picks Disk and, a single choice, moves on.
        s.tmux.keys(&["2"]);
        on_tab(&s, "Which platforms matter?");

        // Several choices: Space toggle is named, and works.
        let multi = wait_hint(&s, &["1-4", "Space", "Tab/→", "Shift+Tab/←", "Esc"]);
        assert_eq!(multi[1].1, "toggle");
        s.tmux.keys(&["Space"]);
        s.tmux.wait_text("[✔] Linux");
        s.tmux.keys(&["3"]);
        s.tmux.wait_text("[✔] Windows");
        // 4 is the Other row: its own keys are named while it has focus.
        s.tmux.keys(&["4"]);
        let other = wait_hint(&s, &["Enter", "↑", "Esc"]);
        assert_eq!(other[0].1, "answers with this text");
        assert_eq!(other[1].1, "options");
        s.tmux.type_text("BSD");
        s.tmux.wait_text("Other: BSD");
        // ↑ options: back to the options, the text stays.
        s.tmux.keys(&["Up"]);
        wait_hint(&s, &["1-4", "Space", "Tab/→", "Shift+Tab/←", "Esc"]);
        assert!(s.tmux.screen().contains("Other: BSD"));
        s.tmux.keys(&["Down"]);
        wait_hint(&s, &["Enter", "↑", "Esc"]);
        // Enter answers with the text and goes on to Submit.
        s.tmux.keys(&["Enter"]);
        s.tmux.wait_text("Review your answers");
        let submit = wait_hint(&s, &["Enter", "Tab/→", "Shift+Tab/←", "Esc"]);
        assert_eq!(submit[0].1, "submit");
        s.tmux.keys(&["Left"]);
        on_tab(&s, "Which platforms matter?");
        s.tmux.keys(&["Tab"]);
        submit_and_check_answers(
            &s,
            r#""Where should the cache live?" = "Disk", "Which platforms matter?" = "Linux, Windows, BSD""#,
        );
    }
}

/// On the Submit tab: Enter sends the answers; the model's answer shows,
/// and the tool result it got (the second request) reads `expected`.
/// Then quits and checks the terminal was restored.
pub(super) fn submit_and_check_answers(s: &Setup, expected: &str) {
    s.tmux.wait_text("Review your answers");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Noted your choices.");
    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 2);
    let result = reqs[1].tool_result("q1").unwrap();
    assert!(!result.is_error, "{}", result.content);
    common::assert_contains(&result.content, expected);
    quit_and_check_terminal(s);
}

/// Esc, as on the plan dialog: the turn stops and nothing goes to the
/// model until the user writes; the call then reads as not run (the user
/// stopped), not as questions the user refused to answer.
#[test]
fn esc_stops_with_the_questions_left_open() {
    let s = tmux_session_sized(
        Script::new()
            .turn(Turn::tool_use("q1", "AskUserQuestion", questions()))
            .turn(Turn::text("I will ask again when you are ready.")),
        (80, 24),
    );
    launch(&s);
    s.tmux.submit("Add a cache");
    s.tmux.wait_text("Where should the cache live?");
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_screen("the dialog closed", |sc| {
        !sc.contains("Where should the cache live?")
    });
    s.tmux
        .wait_screen("the turn over", |sc| !sc.contains("esc to interrupt"));
    assert_eq!(s.server.requests().len(), 1, "Esc stopped the turn");

    s.tmux.submit("one moment");
    s.tmux.wait_history("I will ask again when you are ready.");
    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 2);
    assert!(last_user(&reqs[1]).contains("one moment"));
    let result = reqs[1].tool_result("q1").unwrap();
    assert!(
        result.content.starts_with("Interrupted by the user")
            || result
                .content
                .starts_with("The user declined to run AskUserQuestion."),
        "{}",
        result.content
    );
    assert!(
        !result.content.contains("declined to answer"),
        "{}",
        result.content
    );
    quit_and_check_terminal(&s);
}
