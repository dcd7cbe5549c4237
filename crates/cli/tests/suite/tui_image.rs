//! An image attached in the terminal UI, end to end: the real `catui` in a
//! tmux pane against the mock model. Pasting (or dropping, which terminals
//! turn into a paste of the path) an image file's path puts
//! `[image: name.png]` in the input box, and the message sent carries the
//! image as an image block; a path to a file that is not a readable image
//! stays text, with the reason shown. Without tmux the test fails.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use super::media::{PNG, PNG_B64};

use catui_testkit::{Script, Turn};
use common::tmux::*;

/// Pastes `text` into the pane as a bracketed paste (what a terminal sends
/// for a paste or a dropped file).
fn paste(s: &Setup, text: &str) {
    assert!(
        s.tmux
            .run(&["set-buffer", "-b", "drop", "--", text])
            .status
            .success()
    );
    assert!(
        s.tmux
            .run(&["paste-buffer", "-p", "-d", "-b", "drop", "-t", "e2e"])
            .status
            .success()
    );
}

#[test]
fn a_pasted_image_path_is_attached_and_sent_as_an_image_block() {
    let s = tmux_session(Script::new().turn(Turn::text("A single dot.")));
    let shot = s.sb.project().join("my shot.png");
    std::fs::write(&shot, PNG).unwrap();
    let broken = s.sb.project().join("broken.png");
    std::fs::write(&broken, b"not a png at all").unwrap();
    launch(&s);

    // Not an image inside: refused with the reason, the path kept as text.
    paste(&s, &format!("'{}'", broken.display()));
    s.tmux.wait_text("Image not attached");
    s.tmux.wait_text("broken.png");
    s.tmux.keys(&["C-u"]);

    // Dropped as a quoted path: attached, shown by name only.
    paste(&s, &format!("'{}'", shot.display()));
    let screen = s.tmux.wait_text("[image: my shot.png]");
    assert!(
        !screen.contains(&shot.display().to_string()),
        "the placeholder replaces the path:\n{screen}"
    );
    s.tmux.submit(" what is this?");
    s.tmux.wait_history("A single dot.");

    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 1);
    let content = reqs[0].messages()[0]["content"].as_array().unwrap().clone();
    let texts: Vec<&str> = content.iter().filter_map(|b| b["text"].as_str()).collect();
    assert!(
        texts
            .iter()
            .any(|t| t.contains("[image: my shot.png] what is this?")),
        "{content:?}"
    );
    let images: Vec<_> = content.iter().filter(|b| b["type"] == "image").collect();
    assert_eq!(images.len(), 1, "{content:?}");
    assert_eq!(images[0]["source"]["media_type"], "image/png");
    assert_eq!(images[0]["source"]["data"], PNG_B64);
    quit_and_check_terminal(&s);
}
