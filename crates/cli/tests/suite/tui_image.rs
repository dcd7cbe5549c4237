//! An image attached in the terminal UI, end to end: the real `catui` in a
//! tmux pane against the mock model. Pasting (or dropping, which terminals
//! turn into a paste of the path) an image file's path puts
//! `[image: name.png]` in the input box, and the message sent carries the
//! image as an image block; a path to a file that is not a readable image
//! stays text, with the reason shown. Without tmux the test fails.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::tmux::*;

/// A 1x1 PNG, and the base64 the wire carries for it.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0xd, 0xa, 0x1a, 0xa, 0x0, 0x0, 0x0, 0xd, 0x49, 0x48, 0x44, 0x52, 0x0,
    0x0, 0x0, 0x1, 0x0, 0x0, 0x0, 0x1, 0x8, 0x6, 0x0, 0x0, 0x0, 0x1f, 0x15, 0xc4, 0x89, 0x0, 0x0,
    0x0, 0xd, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0xf8, 0xcf, 0x50, 0xf, 0x0, 0x3,
    0x86, 0x1, 0x80, 0x5a, 0x34, 0x7d, 0x6b, 0x0, 0x0, 0x0, 0x0, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];
const PNG_B64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

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
