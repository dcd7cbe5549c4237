//! The `@` file picker in the terminal UI (tmux, 80x24): typing `@` and a
//! few letters of a name lists the project's files (gitignored ones left
//! out), Enter puts the chosen path in the input, and sending attaches the
//! file: its content is in the model's request.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::tmux::{launch, quit_and_check_terminal, require_tmux, setup_sized, wait_for};

#[test]
fn the_at_picker_inserts_the_chosen_path_and_the_file_is_attached_on_send() {
    require_tmux();
    let s = setup_sized(
        |sb, _, _| {
            sb.write("docs/release-checklist.md", "marker-checklist-step-7\n");
            sb.write("docs/readme.md", "other\n");
            sb.write("build/release-checklist.md", "ignored copy\n");
            sb.write(".gitignore", "build/\n");
            Script::new().turn(Turn::text("Checklist read."))
        },
        None,
        (80, 24),
    );
    launch(&s);
    s.tmux.type_text("follow @rel");
    let screen = s.tmux.wait_text("@docs/release-checklist.md");
    assert!(
        !screen.contains("@build/"),
        "a gitignored file is offered:\n{screen}"
    );
    s.tmux.type_text("chk");
    s.tmux.wait_screen("the picker narrowed to one file", |sc| {
        sc.contains("1 file ·") && sc.contains("@docs/release-checklist.md")
    });
    s.tmux.keys(&["Enter"]);
    let screen = s.tmux.wait_text("> follow @docs/release-checklist.md");
    assert!(
        s.server.requests().is_empty(),
        "Enter on the picker sent the input:\n{screen}"
    );
    s.tmux.submit("please");
    s.tmux.wait_text("Checklist read.");
    let request = wait_for("the request", &s.tmux, || {
        s.server.requests().into_iter().next()
    });
    let text = request.last_user_text().unwrap();
    assert!(
        text.contains("marker-checklist-step-7"),
        "the chosen file is not attached:\n{text}"
    );
    assert!(!text.contains("ignored copy"), "{text}");
    assert!(
        text.contains("follow @docs/release-checklist.md please"),
        "{text}"
    );
    quit_and_check_terminal(&s);
}

#[test]
fn esc_closes_the_picker_and_leaves_what_was_typed() {
    require_tmux();
    let s = setup_sized(
        |sb, _, _| {
            sb.write("notes.txt", "n\n");
            Script::new()
        },
        None,
        (80, 24),
    );
    launch(&s);
    s.tmux.type_text("@not");
    s.tmux.wait_text("@notes.txt");
    s.tmux.keys(&["Escape"]);
    let screen = s.tmux.wait_screen("the picker closed", |sc| {
        !sc.contains("tab/enter insert") && sc.contains("> @not")
    });
    assert!(!screen.contains("@notes.txt"), "{screen}");
    quit_and_check_terminal(&s);
}
