//! Resuming in the terminal UI shows the conversation: the real `catui`
//! binary in a tmux pane against the testkit mock model. `--continue`,
//! `--resume ID` and the session picker open on the earlier prompts,
//! answers and tool calls (in the scrollback and in Ctrl+O), with the
//! session's token count carried on; `/resume` in a session switches to
//! the chosen one.
//!
//! Without tmux the tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::tmux::*;

/// Clears the pane and its scrollback, so only the next run's output is
/// there to be found.
fn clear_pane(s: &Setup) {
    s.tmux.submit("clear");
    s.tmux.wait_screen("a cleared screen", |sc| {
        !sc.contains("catui-exit") && sc.contains(SHELL_PROMPT.trim_end())
    });
    assert!(s.tmux.run(&["clear-history", "-t", "e2e"]).status.success());
    assert!(!s.tmux.history().contains("ALPHA-ANSWER"));
}

/// Starts `catui ARGS` (shell words) and waits for its first frame.
fn launch_args(s: &Setup, args: &str) {
    launch_with_pid(s, args, false);
}

/// What a resumed run must show: the earlier turns in the scrollback, the
/// token count carried on, Ctrl+O with the tool output.
fn assert_shows_the_conversation(s: &Setup) {
    let all = s.tmux.wait_history("BETA-ANSWER");
    let order: Vec<usize> = [
        "> first question",
        "ALPHA-ANSWER",
        "> second question",
        "Bash(echo tool-output-here)",
        "BETA-ANSWER",
    ]
    .iter()
    .map(|t| all.find(t).unwrap_or_else(|| panic!("{t} missing:\n{all}")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}\n{all}");
    // 1,200 + 34 + 600 + 66 + 900 + 100 tokens, as the first run ended.
    let screen = s.tmux.wait_text("2.9k tokens");
    assert!(!status_line(&screen).contains(" 0 tokens"), "{screen}");
    s.tmux.keys(&["C-o"]);
    let pager = s.tmux.wait_text("all output expanded");
    common::assert_contains(&pager, "tool-output-here");
    s.tmux.keys(&["Escape"]);
    wait_for("the normal screen", &s.tmux, || {
        (s.tmux.display("#{alternate_on}") == "0").then_some(())
    });
}

#[test]
fn continue_resume_and_the_picker_show_the_conversation() {
    let s = tmux_session(
        Script::new()
            .turn(Turn::text("The ALPHA-ANSWER.").usage(1_200, 34))
            .turn(common::bash("b1", "echo tool-output-here").usage(600, 66))
            .turn(Turn::text("The BETA-ANSWER.").usage(900, 100))
            .turn(Turn::text("Carried on after --continue.").usage(10, 1)),
    );
    launch(&s);
    s.tmux.submit("first question");
    s.tmux.wait_history("ALPHA-ANSWER");
    s.tmux.submit("second question");
    s.tmux.wait_history("BETA-ANSWER");
    s.tmux.wait_text("2.9k tokens");
    quit_and_check_terminal(&s);
    let id = s.sb.transcripts()[0]
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();

    // --continue: the conversation is there, and the next turn goes on.
    clear_pane(&s);
    launch_args(&s, "--continue");
    assert_shows_the_conversation(&s);
    s.tmux.submit("and then?");
    s.tmux.wait_history("Carried on after --continue.");
    let sent = serde_json::to_string(s.server.requests().last().unwrap().messages()).unwrap();
    assert!(sent.contains("first question") && sent.contains("BETA-ANSWER"));
    quit_and_check_terminal(&s);

    // --resume ID.
    clear_pane(&s);
    launch_args(&s, &format!("--resume {id}"));
    assert_shows_the_conversation(&s);
    quit_and_check_terminal(&s);

    // --resume without an id: the picker, Enter takes the latest.
    clear_pane(&s);
    s.tmux.type_text(&format!(
        "'{}' --resume; echo \"catui-exit=$?\"",
        catui_bin().display()
    ));
    s.tmux.keys(&["Enter"]);
    wait_for("the session picker", &s.tmux, || {
        (s.tmux.display("#{alternate_on}") == "1" && s.tmux.screen().contains("first question"))
            .then_some(())
    });
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Shift+Tab cycles permission modes");
    assert_shows_the_conversation(&s);
    quit_and_check_terminal(&s);
}

/// Writes a finished session straight into the sandbox's transcript folder:
/// every session has a slug, only `planned` ones entered plan mode.
fn write_session(s: &Setup, id: &str, prompt: &str, slug: &str, planned: bool) {
    let mode = planned.then_some(catui_protocol::PermissionMode::Plan);
    common::fixtures::write_transcript(&s.sb, id, prompt, Some(slug), mode);
}

/// Issue 53 item 6, at 80x24: the picker names a plan only on the row of a
/// session that planned, and a long prompt is cut after a whole word with
/// "…" instead of mid-word at the border.
#[test]
fn picker_names_plans_only_for_planning_sessions_and_cuts_prompts_at_a_word() {
    let s = tmux_session_sized(Script::new(), (80, 24));
    let long = "refactor the configuration loader so that every setting is validated \
                before the session starts and each error names its file";
    write_session(&s, "chat-session", long, "quiet-blue-fox", false);
    write_session(&s, "plan-session", "plan the parser", "bold-red-owl", true);
    s.tmux.type_text(&format!(
        "'{}' --resume; echo \"catui-exit=$?\"",
        catui_bin().display()
    ));
    s.tmux.keys(&["Enter"]);
    let screen = s.tmux.wait_screen("the session picker", |sc| {
        sc.contains("Resume a session") && sc.contains("plan the parser") && sc.contains("refactor")
    });
    let row = |needle: &str| {
        screen
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no row with {needle}:\n{screen}"))
            .trim_end()
            .to_string()
    };
    let planned = row("plan the parser");
    common::assert_contains(&planned, "plan:bold-red-owl");
    let chat = row("refactor");
    assert!(
        !chat.contains("plan:"),
        "a plan name on a session that never planned: {chat}"
    );
    common::assert_lacks(&screen, "quiet-blue-fox");
    // Cut after a whole word of the prompt, with "…", inside 80 columns.
    let shown = chat
        .split("  ")
        .last()
        .unwrap_or_default()
        .strip_suffix('…')
        .unwrap_or_else(|| panic!("no … at the end of the cut prompt: {chat}"));
    assert!(
        long.starts_with(shown),
        "{shown:?} is not the prompt's start"
    );
    assert!(long[shown.len()..].starts_with(' '), "cut mid-word: {chat}");
    assert!(chat.chars().count() <= 80, "{chat}");
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_text("catui-exit=");
}

#[test]
fn resume_in_a_session_switches_to_the_chosen_one() {
    let s = tmux_session(
        Script::new()
            .turn(Turn::text("Answer of the FIRST-SESSION."))
            .turn(Turn::text("Answer of the second session.")),
    );
    launch(&s);
    s.tmux.submit("first session question");
    s.tmux.wait_history("FIRST-SESSION");
    quit_and_check_terminal(&s);
    launch(&s);
    s.tmux.submit("second session question");
    s.tmux.wait_history("Answer of the second session.");
    s.tmux.submit("/resume");
    wait_for("the session picker", &s.tmux, || {
        (s.tmux.display("#{alternate_on}") == "1"
            && s.tmux.screen().contains("first session question"))
        .then_some(())
    });
    assert!(!s.tmux.screen().contains("second session question"));
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Resumed this session");
    let all = s.tmux.history();
    let resumed = all.rfind("Resumed this session").unwrap();
    assert!(
        all[..resumed].rfind("> first session question").is_some(),
        "{all}"
    );
    assert!(all[..resumed].contains("FIRST-SESSION"), "{all}");
    quit_and_check_terminal(&s);
}
