//! The terminal UI in daily use, end to end: the real `catui` binary in a
//! tmux pane against the testkit mock model over HTTP. A failed command
//! is shown red with its exit code, Ctrl+O expands folded output, input
//! typed during a turn is queued and sent in order after it, Esc before
//! any reply puts the prompt back, the transcript stays in the terminal's
//! scrollback after exit (with how to resume), the palette scrolls, and
//! resizing the window leaves one live area, not copies of it.
//!
//! Every wait polls the screen with a generous timeout; nothing sleeps for
//! a fixed time beyond a poll. Without tmux the tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use catui_testkit::{Script, Turn};
use common::result_of;
use common::tmux::*;

/// The line of `text` that contains `needle`.
fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{text}"))
}

#[test]
fn a_failed_command_is_red_with_its_exit_code_and_ctrl_o_expands_output() {
    let s = tmux_session(
        Script::new()
            .turn(common::bash(
                "b1",
                "seq 1 30; echo 'boom: the build broke' >&2; exit 3",
            ))
            .turn(Turn::text("The build failed with exit code 3.")),
    );
    launch(&s);
    s.tmux.submit("build it");
    // Judged read-only, the command runs (confined) without a prompt.
    s.tmux.wait_history("The build failed with exit code 3.");

    // The model got the output and the exit code as an ordinary result.
    let reqs = s.server.requests();
    let (content, is_error) = result_of(&reqs[1], "b1");
    common::assert_contains(&content, "Exit code: 3");
    assert!(!is_error);

    // The user sees the last lines (the error, the exit code) folded under
    // a red ✗ (its shape tells a failure even without colour).
    let all = s.tmux.history();
    common::assert_contains(&all, "boom: the build broke");
    common::assert_contains(&all, "Exit code: 3");
    common::assert_contains(&all, "lines above (ctrl+o to expand)");
    assert!(
        !all.contains("\n     1\n"),
        "the head of the output is folded away:\n{all}"
    );
    let styled = String::from_utf8_lossy(
        &s.tmux
            .run(&["capture-pane", "-p", "-e", "-S", "-", "-t", "e2e"])
            .stdout,
    )
    .into_owned();
    let header = line_with(&styled, "(seq 1 30");
    // Red is colour 1: `ESC[31m`, or `ESC[38;5;1m` as tmux writes it.
    let before_bullet = header.split('✗').next().unwrap_or("");
    assert!(
        ["\u{1b}[31m", "\u{1b}[38;5;1m"]
            .iter()
            .any(|r| before_bullet.contains(r)),
        "the failed call's bullet is red: {header:?}"
    );

    // Ctrl+O shows the whole output, expanded; Esc comes back.
    s.tmux.keys(&["C-o"]);
    let pager = s.tmux.wait_text("all output expanded");
    assert_eq!(s.tmux.display("#{alternate_on}"), "1");
    common::assert_contains(&pager, "Exit code: 3");
    s.tmux.keys(&["Home"]);
    let top = s.tmux.wait_screen("the top of the transcript", |sc| {
        sc.contains("> build it") && sc.contains("⎿  1\n")
    });
    assert!(
        top.contains("✗ Bash("),
        "a failure keeps its own glyph: {top}"
    );
    s.tmux.keys(&["Escape"]);
    wait_for("the normal screen", &s.tmux, || {
        (s.tmux.display("#{alternate_on}") == "0").then_some(())
    });
    s.tmux
        .wait_screen("the status line", |sc| !status_line(sc).is_empty());
    quit_and_check_terminal(&s);
}

#[test]
fn input_typed_during_a_turn_is_queued_and_sent_in_order_after_it() {
    let s = tmux_session(
        Script::new()
            .turn(Turn::text("Answer one.").delay(Duration::from_secs(6)))
            .turn(Turn::text("Answer two."))
            .turn(Turn::text("Answer three.")),
    );
    launch(&s);
    s.tmux.submit("first question");
    s.tmux.wait_text("esc to interrupt");
    s.tmux.submit("second question");
    s.tmux.submit("third question");
    let screen = s.tmux.wait_text("queued  third question");
    common::assert_contains(&screen, "queued  second question");
    assert_eq!(
        s.server.requests().len(),
        1,
        "queued input waits for the turn"
    );

    let all = s.tmux.wait_history("Answer three.");
    let order: Vec<usize> = [
        "> first question",
        "Answer one.",
        "> second question",
        "Answer two.",
        "> third question",
        "Answer three.",
    ]
    .iter()
    .map(|t| all.find(t).unwrap_or_else(|| panic!("{t} missing:\n{all}")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}\n{all}");
    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(
        reqs[1].last_user_typed().as_deref(),
        Some("second question")
    );
    assert_eq!(reqs[2].last_user_typed().as_deref(), Some("third question"));
    assert!(!s.tmux.screen().contains("queued"));
    quit_and_check_terminal(&s);
}

#[test]
fn escape_before_any_reply_puts_the_prompt_back() {
    let s = tmux_session(
        Script::new()
            .turn(Turn::text("too late").delay(Duration::from_secs(30)))
            .turn(Turn::text("Fixed.")),
    );
    launch(&s);
    s.tmux.submit("fix the bug in main");
    s.tmux.wait_text("esc to interrupt");
    // The slow first answer is under way (else the retry would get it).
    wait_for("the first request at the model", &s.tmux, || {
        (s.server.unused_turns() == 1).then_some(())
    });
    s.tmux.keys(&["Escape"]);
    let screen = s
        .tmux
        .wait_screen("the prompt back in the input box", |sc| {
            !sc.contains("esc to interrupt") && sc.contains("> fix the bug in main")
        });
    common::assert_lacks(&screen, "too late");
    common::assert_lacks(&screen, "Interrupted");
    // It is editable and can be sent again.
    s.tmux.submit(" please");
    s.tmux.wait_history("Fixed.");
    let reqs = s.server.requests();
    assert_eq!(
        reqs.last().unwrap().last_user_text().as_deref(),
        Some("fix the bug in main please")
    );
    quit_and_check_terminal(&s);
}

#[test]
fn the_transcript_stays_in_the_scrollback_after_exit() {
    require_tmux();
    let long: String = (1..=80)
        .map(|i| format!("Line {i} of the answer.\n\n"))
        .collect();
    let s = setup(move |_, _, _| Script::new().turn(Turn::text(long)), None);
    launch(&s);
    s.tmux.submit("tell me a long story");
    s.tmux.wait_history("Line 80 of the answer.");
    quit_and_check_terminal(&s);
    let all = s.tmux.history();
    for needle in [
        "> tell me a long story",
        "Line 1 of the answer.",
        "Line 40 of the answer.",
        "Line 80 of the answer.",
        "catui --resume ",
    ] {
        assert!(all.contains(needle), "{needle} missing:\n{all}");
    }
    // The shell prompt comes after the hint, nothing is drawn over it.
    let hint = all.rfind("catui --resume").unwrap();
    assert!(all[hint..].contains("catui-exit=0"), "{all}");
}

#[test]
fn the_palette_scrolls_to_every_command() {
    let s = tmux_session(Script::new());
    launch(&s);
    s.tmux.type_text("/");
    let first = s.tmux.wait_text("more");
    common::assert_contains(&first, "/help");
    common::assert_lacks(&first, "/compact");
    for _ in 0..20 {
        s.tmux.keys(&["Down"]);
    }
    // The last command of the list (/rewind) comes into view.
    let last = s.tmux.wait_text("/rewind");
    common::assert_contains(&last, "/compact");
    common::assert_contains(&last, "↑");
    common::assert_lacks(&last, "/help ");
    // Tab completes the entry that is shown selected.
    s.tmux.keys(&["Tab"]);
    s.tmux.wait_text("> /rewind");
    s.tmux.keys(&["C-u"]);
    // `?` opens the key sheet, generated from the real tables.
    s.tmux.type_text("?");
    let sheet = s.tmux.wait_text("Ctrl+J");
    common::assert_contains(&sheet, "Ctrl+O");
    s.tmux.keys(&["Escape"]);
    quit_and_check_terminal(&s);
}

/// Rows that are a rule across the pane (the input box has two).
fn rules(screen: &str) -> usize {
    screen
        .lines()
        .filter(|l| l.len() > 3 && l.chars().all(|c| c == '─'))
        .count()
}

#[test]
fn resizing_the_window_leaves_one_live_area() {
    let s = tmux_session(
        Script::new()
            .turn(Turn::text("First answer."))
            .turn(Turn::text("Second answer.")),
    );
    launch(&s);
    s.tmux.submit("first question");
    s.tmux.wait_history("First answer.");
    s.tmux.wait_text("Type a message");
    // Narrower re-wraps the full-width rules on screen; wider and shorter
    // move them again.
    for (w, h) in [(60, 40), (110, 30), (45, 20), (110, 40)] {
        let (w, h) = (w.to_string(), h.to_string());
        let out = s
            .tmux
            .run(&["resize-window", "-t", "e2e", "-x", &w, "-y", &h]);
        assert!(out.status.success(), "resize-window {w}x{h}");
        let screen = s
            .tmux
            .wait_screen(&format!("one live area at {w}x{h}"), |sc| {
                sc.matches("Type a message").count() == 1 && rules(sc) == 2
            });
        common::assert_contains(&screen, "First answer.");
    }
    // It still works, at the new size.
    s.tmux.submit("second question");
    let all = s.tmux.wait_history("Second answer.");
    assert_eq!(all.matches("> second question").count(), 1, "{all}");
    quit_and_check_terminal(&s);
}

/// The SGR parameters of every `ESC[...m` sequence in `styled` that sets a
/// colour (foreground or background, any palette).
fn colour_codes(styled: &str) -> Vec<String> {
    let mut found = Vec::new();
    for part in styled.split("\u{1b}[").skip(1) {
        let Some(end) = part.find('m') else { continue };
        let params = &part[..end];
        if !params.chars().all(|c| c.is_ascii_digit() || c == ';') {
            continue;
        }
        let colour = params.split(';').any(|p| {
            matches!(
                p.parse::<u32>(),
                Ok(30..=38 | 40..=48 | 90..=97 | 100..=107)
            )
        });
        if colour {
            found.push(params.to_string());
        }
    }
    found
}

/// catui started with `env`, after a Bash call that failed: the session and
/// the pane's whole history with its escape sequences.
fn failed_command_styled(env: &str) -> (Setup, String) {
    let s = tmux_session(
        Script::new()
            .turn(common::bash("b1", "echo 'boom' >&2; exit 3"))
            .turn(Turn::text("It failed with exit code 3.")),
    );
    launch_with(&s, env);
    s.tmux.submit("build it");
    s.tmux.wait_history("It failed with exit code 3.");
    let styled = String::from_utf8_lossy(
        &s.tmux
            .run(&["capture-pane", "-p", "-e", "-S", "-", "-t", "e2e"])
            .stdout,
    )
    .into_owned();
    (s, styled)
}

#[test]
fn no_color_draws_without_any_colour() {
    require_tmux();
    let (s, styled) = failed_command_styled("NO_COLOR=1 ");
    // The failure still shows, by its glyph and words.
    assert!(
        styled.contains('✗') && styled.contains("Exit code: 3"),
        "{styled}"
    );
    let colours = colour_codes(&styled);
    assert!(
        colours.is_empty(),
        "colours drawn under NO_COLOR: {colours:?}"
    );
    quit_and_check_terminal(&s);
}

#[test]
fn colour_codes_are_recognised() {
    assert_eq!(
        colour_codes("a\u{1b}[1mb\u{1b}[38;5;1mc\u{1b}[2;41md\u{1b}[0m"),
        ["38;5;1", "2;41"]
    );
}

#[test]
fn the_light_theme_draws_in_its_own_colours() {
    require_tmux();
    let (s, styled) = failed_command_styled("CATUI_THEME=light ");
    let colours = colour_codes(&styled);
    // The failure in the light theme's red (160), dim text in its grey
    // (244); none of the dark theme's red (1) or grey (8).
    let header = line_with(&styled, "exit 3");
    assert!(
        header.split('✗').next().unwrap_or("").contains("38;5;160"),
        "{header:?}"
    );
    assert!(
        colours.iter().any(|c| c.contains("38;5;244")),
        "{colours:?}"
    );
    assert!(
        !colours
            .iter()
            .any(|c| c.ends_with("38;5;1") || c.ends_with("38;5;8") || c == "31"),
        "dark-theme colours in the light theme: {colours:?}"
    );
    quit_and_check_terminal(&s);
}
