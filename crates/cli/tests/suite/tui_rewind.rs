//! The rewind picker in the terminal UI, end to end: the real `catui`
//! binary in a tmux pane against the testkit mock model. Esc Esc on an
//! empty prompt opens the list of messages with the files each changed;
//! "Restore code and conversation" puts the files back, and the message
//! back into the input box to be sent again; files changed outside catui
//! ask for a confirmation first.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::tmux::*;

#[test]
fn esc_esc_opens_the_picker_and_restores_code_and_conversation() {
    require_tmux();
    let s = setup(
        |sb, _, _| {
            let lib = sb.project().join("src/lib.rs").display().to_string();
            let util = sb.project().join("src/util.rs").display().to_string();
            Script::new()
                .turn(common::write("w1", &lib, "pub fn one() {}\n"))
                .turn(Turn::text("Made the library."))
                .turn(common::write("w2", &util, "pub fn two() {}\n"))
                .turn(Turn::text("Made the helpers."))
                .turn(Turn::text("Done differently."))
        },
        None,
    );
    // Writes run without a prompt (the user's own settings).
    std::fs::write(
        s.sb.config().join("settings.json"),
        r#"{"permissions": {"defaultMode": "acceptEdits"}}"#,
    )
    .unwrap();
    launch(&s);
    s.tmux.submit("make the library");
    s.tmux.wait_history("Made the library.");
    s.tmux.submit("make the helpers");
    s.tmux.wait_history("Made the helpers.");
    let util = s.sb.project().join("src/util.rs");
    let lib = s.sb.project().join("src/lib.rs");
    assert!(util.exists() && lib.exists());

    // Esc Esc on the empty prompt: the picker, newest message selected.
    // The answer's text is on screen a moment before the turn ends, and an
    // Esc while it runs interrupts instead: wait for the spinner to go.
    s.tmux.wait_screen("the turn to end", |screen| {
        !screen.contains("esc to interrupt")
    });
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_text("Esc again to rewind");
    s.tmux.keys(&["Escape"]);
    let screen = s.tmux.wait_text("Go back to before which message?");
    common::assert_contains(&screen, "make the library");
    common::assert_contains(&screen, "❯ make the helpers");
    common::assert_contains(&screen, "changed src/util.rs");
    s.tmux.keys(&["Enter"]);
    let screen = s.tmux.wait_text("Restore code and conversation");
    common::assert_contains(&screen, "Restore conversation only");
    common::assert_contains(&screen, "Restore code only");
    s.tmux.keys(&["Enter"]);

    // The files as before the message; the message back in the input box.
    s.tmux.wait_screen("the picker to close", |sc| {
        !sc.contains("Restore code only") && !sc.contains("Go back to before")
    });
    // The input box (the last `> ` line, below the transcript) holds the
    // message again.
    let screen = s
        .tmux
        .wait_screen("the message back in the input box", |sc| {
            sc.lines()
                .rev()
                .find(|l| l.trim_start().starts_with("> "))
                .is_some_and(|l| l.contains("> make the helpers"))
        });
    assert!(
        !util.exists(),
        "the file the message created is gone:\n{screen}"
    );
    assert!(lib.exists());
    s.tmux.wait_history("deleted 1 file created since");

    // Edited and sent again: the model sees the conversation before it.
    s.tmux.submit(", differently");
    s.tmux.wait_history("Done differently.");
    let last = s.server.requests().pop().unwrap();
    let sent: Vec<String> = last.messages().iter().map(|m| m.to_string()).collect();
    let sent = sent.join("\n");
    common::assert_contains(&sent, "Made the library.");
    common::assert_lacks(&sent, "Made the helpers.");
    assert_eq!(
        last.last_user_text()
            .as_deref()
            .map(|t| t.starts_with("make the helpers, differently")),
        Some(true)
    );

    // A file changed outside catui asks first; `n` keeps everything.
    std::fs::write(&lib, "my own edit\n").unwrap();
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_text("Esc again to rewind");
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_text("Go back to before which message?");
    for _ in 0..5 {
        if s.tmux.screen().contains("❯ make the library") {
            break;
        }
        s.tmux.keys(&["Up"]);
        std::thread::sleep(POLL);
    }
    s.tmux.wait_text("❯ make the library");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Restore code only");
    s.tmux.keys(&["3"]);
    let screen = s.tmux.wait_text("changed outside catui since then");
    common::assert_contains(&screen, "src/lib.rs");
    s.tmux.keys(&["n"]);
    s.tmux.wait_screen("the picker closed", |sc| {
        !sc.contains("changed outside catui")
    });
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), "my own edit\n");
    quit_and_check_terminal(&s);
}

/// The rewind box's rows (from its top border to its bottom one): the
/// transcript above it names the same messages.
fn picker_rows(screen: &str) -> Vec<String> {
    let rows: Vec<&str> = screen.lines().collect();
    let Some(top) = rows
        .iter()
        .rposition(|l| l.contains("╭") && l.contains("Rewind"))
    else {
        return Vec::new();
    };
    rows[top..]
        .iter()
        .take_while(|l| !l.contains("╰"))
        .map(|l| l.to_string())
        .collect()
}

/// Issue 53 item 7 at 80x24: the status line stops asking for the second
/// Esc once the picker is open; choosing a point previews, per file, what
/// restoring the code adds and removes; a message rewound out of the
/// conversation is not offered again; and the rewind's undo is named in
/// words, in the picker and in the transcript, never by an id.
#[test]
fn rewind_at_80x24_previews_per_file_and_names_the_undo_in_words() {
    require_tmux();
    let s = setup_sized(
        |sb, _, _| {
            let lib = sb.project().join("src/lib.rs").display().to_string();
            let util = sb.project().join("src/util.rs").display().to_string();
            Script::new()
                .turn(common::write("w1", &lib, "pub fn one() {}\n"))
                .turn(Turn::text("Made the library."))
                .turn(common::write(
                    "w2",
                    &lib,
                    "pub fn one() {}\npub fn two() {}\npub fn three() {}\n",
                ))
                .turn(common::write("w3", &util, "a\nb\n"))
                .turn(Turn::text("Extended it."))
        },
        None,
        (80, 24),
    );
    std::fs::write(
        s.sb.config().join("settings.json"),
        r#"{"permissions": {"defaultMode": "acceptEdits"}}"#,
    )
    .unwrap();
    launch(&s);
    s.tmux.submit("make the library");
    s.tmux.wait_history("Made the library.");
    s.tmux.submit("extend the library");
    s.tmux.wait_history("Extended it.");
    s.tmux.wait_screen("the turn to end", |screen| {
        !screen.contains("esc to interrupt")
    });
    let lib = s.sb.project().join("src/lib.rs");
    let util = s.sb.project().join("src/util.rs");

    // The second Esc opens the picker: the status line no longer asks for it.
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_text("Esc again to rewind");
    s.tmux.keys(&["Escape"]);
    let screen = s.tmux.wait_text("Go back to before which message?");
    common::assert_lacks(&screen, "Esc again to rewind");
    common::assert_contains(&screen, "↑/↓ choose · Enter select · Esc cancel");
    // Closed with Esc, it does not come back; one more Esc asks again.
    s.tmux.keys(&["Escape"]);
    let screen = s.tmux.wait_screen("the picker to close", |sc| {
        !sc.contains("Go back to before which message?")
    });
    common::assert_lacks(&screen, "Esc again to rewind");
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_text("Esc again to rewind");
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_text("❯ extend the library");

    // Before restoring: per file, what restoring the code adds and removes
    // relative to the file as it is now.
    s.tmux.keys(&["Enter"]);
    let screen = s.tmux.wait_text("Restoring the code changes:");
    common::assert_contains(&screen, "  +0 −2  src/lib.rs");
    common::assert_contains(&screen, "  +0 −2  src/util.rs (deleted: created since)");
    common::assert_contains(&screen, "↑/↓ choose · Enter restore · Esc back");
    common::assert_lacks(&screen, "Esc again to rewind");
    s.tmux.keys(&["1"]);
    s.tmux.wait_history(
        "Rewind to \"extend the library\": restored 1 file; deleted 1 file created since",
    );
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), "pub fn one() {}\n");
    assert!(!util.exists());

    // The message is back in the input box; cleared, Esc Esc again.
    s.tmux
        .wait_screen("the message back in the input box", |sc| {
            sc.lines()
                .rev()
                .find(|l| l.trim_start().starts_with("> "))
                .is_some_and(|l| l.contains("> extend the library"))
        });
    s.tmux.keys(&["C-c"]);
    s.tmux.wait_screen("the input cleared", |sc| {
        sc.lines()
            .rev()
            .find(|l| l.trim_start().starts_with(">"))
            .is_some_and(|l| !l.contains("extend the library"))
    });
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_text("Esc again to rewind");
    s.tmux.keys(&["Escape"]);
    let screen = s.tmux.wait_text("Go back to before which message?");
    let rows = picker_rows(&screen);
    // The rewound message is no longer a point; the rewind is, in words.
    assert!(
        rows.iter().any(|l| l.contains("make the library")),
        "{screen}"
    );
    assert!(
        rows.iter()
            .any(|l| l.contains("❯ ↶ Undo the rewind to \"extend the library\"")),
        "{screen}"
    );
    assert!(
        rows.iter()
            .filter(|l| l.contains("extend the library"))
            .all(|l| l.contains("Undo the rewind to")),
        "a rewound message is offered again:\n{screen}"
    );
    common::assert_lacks(&screen, "undo:");
    // Under it, the files that rewind changed (what the undo restores).
    let below = rows
        .iter()
        .skip_while(|l| !l.contains("Undo the rewind to"))
        .nth(1)
        .cloned()
        .unwrap_or_default();
    assert!(
        below.contains("changed src/lib.rs, src/util.rs"),
        "{screen}"
    );

    // The undo previews and restores both files, and says so in words.
    s.tmux.keys(&["Enter"]);
    let screen = s.tmux.wait_text("Restoring the code changes:");
    common::assert_contains(&screen, "  +2 −0  src/lib.rs");
    common::assert_contains(&screen, "  +2 −0  src/util.rs");
    common::assert_contains(&screen, "1. Restore the code as it was before that rewind");
    s.tmux.keys(&["Enter"]);
    let history = s
        .tmux
        .wait_history("Undid the rewind to \"extend the library\": restored 2 files.");
    common::assert_lacks(&history, "undo:");
    assert_eq!(std::fs::read_to_string(&util).unwrap(), "a\nb\n");
    assert_eq!(
        std::fs::read_to_string(&lib).unwrap(),
        "pub fn one() {}\npub fn two() {}\npub fn three() {}\n"
    );
    quit_and_check_terminal(&s);
}
