//! `@path` mentions through the real binary (headless `-p`): a mentioned
//! file is attached as Read numbers it and a mentioned directory as its
//! listing; a mention that links into a secret store is refused through
//! the file gate (nothing of it in the request) and the user is told; a
//! word after `@` that names nothing is left alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::os::unix::fs::symlink;

use catui_testkit::{Script, Turn};
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
    assert!(text.contains("The user mentioned @notes/"), "{text}");
    assert!(text.contains("other.md\nplan.txt"), "no listing:\n{text}");
    let body = requests[0].body.to_string();
    assert!(!body.contains(KEY_CANARY), "the secret reached the model");
    assert!(!text.contains("mentioned @key.txt"), "{text}");
    assert!(!text.contains("mentioned @nobody"), "{text}");
    assert!(
        stderr.contains("@key.txt was not attached"),
        "the refusal is not said:\n{stderr}"
    );
}
