//! `@path` mentions through the real binary (headless `-p`): a mentioned
//! file is attached as Read numbers it and a mentioned directory as its
//! listing; a mention that links into a secret store is refused through
//! the file gate (nothing of it in the request) and the user is told; a
//! word after `@` that names nothing is left alone.
//!
//! The `@` file picker in the terminal UI (tmux, 80x24): typing `@` and a
//! few letters of a name lists the project's files (gitignored ones left
//! out), Enter puts the chosen path in the input, and sending attaches the
//! file: its content is in the model's request.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::os::unix::fs::symlink;

use catui_testkit::{Script, Turn};
use common::tmux::{launch, quit_and_check_terminal, require_tmux, setup_sized, wait_for};
use common::{Sandbox, output_within};

const KEY_CANARY: &str = "ssh-key-canary-mention-71c4";

#[test]
fn mentioned_files_and_directories_are_attached_and_a_link_to_a_secret_is_refused() {
    let sb = Sandbox::new();
    sb.write("notes/plan.txt", "first line\nsecond line of the plan\n");
    sb.write("notes/other.md", "x\n");
    let home = sb.dir.path();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), KEY_CANARY).unwrap();
    symlink("../.ssh/id_rsa", sb.project().join("key.txt")).unwrap();
    let server = common::mock(Script::new().turn(Turn::text("read them")));
    let mut cmd = sb.catui(&server);
    cmd.args([
        "-p",
        "compare @notes/plan.txt with @notes/ and @key.txt, ask @nobody",
    ]);
    let out = output_within(cmd, b"", 60);
    let stderr = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let requests = server.requests();
    let text = requests[0].last_user_text().unwrap();
    assert!(
        text.contains("     2\tsecond line of the plan"),
        "the file is not attached as Read numbers it:\n{text}"
    );
    common::assert_contains(&text, "The user mentioned @notes/");
    assert!(text.contains("other.md\nplan.txt"), "no listing:\n{text}");
    let body = requests[0].body.to_string();
    assert!(!body.contains(KEY_CANARY), "the secret reached the model");
    common::assert_lacks(&text, "mentioned @key.txt");
    common::assert_lacks(&text, "mentioned @nobody");
    assert!(
        stderr.contains("@key.txt was not attached"),
        "the refusal is not said:\n{stderr}"
    );
}

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
    common::assert_lacks(&text, "ignored copy");
    common::assert_contains(&text, "follow @docs/release-checklist.md please");
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
    common::assert_lacks(&screen, "@notes.txt");
    quit_and_check_terminal(&s);
}
