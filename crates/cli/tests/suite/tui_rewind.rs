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
use serde_json::json;

#[test]
fn esc_esc_opens_the_picker_and_restores_code_and_conversation() {
    require_tmux();
    let s = setup(
        |sb, _, _| {
            let lib = sb.project().join("src/lib.rs").display().to_string();
            let util = sb.project().join("src/util.rs").display().to_string();
            Script::new()
                .turn(Turn::tool_use(
                    "w1",
                    "Write",
                    json!({"file_path": lib, "content": "pub fn one() {}\n"}),
                ))
                .turn(Turn::text("Made the library."))
                .turn(Turn::tool_use(
                    "w2",
                    "Write",
                    json!({"file_path": util, "content": "pub fn two() {}\n"}),
                ))
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
    s.tmux.type_text("make the library");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_history("Made the library.");
    s.tmux.type_text("make the helpers");
    s.tmux.keys(&["Enter"]);
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
    assert!(screen.contains("make the library"), "{screen}");
    assert!(screen.contains("❯ make the helpers"), "{screen}");
    assert!(screen.contains("changed src/util.rs"), "{screen}");
    s.tmux.keys(&["Enter"]);
    let screen = s.tmux.wait_text("Restore code and conversation");
    assert!(screen.contains("Restore conversation only"), "{screen}");
    assert!(screen.contains("Restore code only"), "{screen}");
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
    s.tmux.wait_history("deleted 1 file(s) created since");

    // Edited and sent again: the model sees the conversation before it.
    s.tmux.type_text(", differently");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_history("Done differently.");
    let last = s.server.requests().pop().unwrap();
    let sent: Vec<String> = last.messages().iter().map(|m| m.to_string()).collect();
    let sent = sent.join("\n");
    assert!(sent.contains("Made the library."), "{sent}");
    assert!(!sent.contains("Made the helpers."), "{sent}");
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
    assert!(screen.contains("src/lib.rs"), "{screen}");
    s.tmux.keys(&["n"]);
    s.tmux.wait_screen("the picker closed", |sc| {
        !sc.contains("changed outside catui")
    });
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), "my own edit\n");
    quit_and_check_terminal(&s);
}
