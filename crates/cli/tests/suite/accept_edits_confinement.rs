//! acceptEdits' shell edits are judged on the path really written, not on
//! the words before the line runs (issue 47, item 2), through the real
//! binary with a client that denies every prompt:
//!
//! - lines that copy or move a link and then write through the copy
//!   (`cp -a docs d3 && echo … >> d3/ssh/authorized_keys`, a relative link
//!   moved up a level) change nothing outside the project;
//! - a link made mid-line by a command an allow rule covers leads no
//!   write out: the line runs confined to the working directories;
//! - ordinary edits still run unasked, confined;
//!
//! each with every sandbox layer, without bubblewrap (Landlock alone keeps
//! the writes in), and without any layer (those lines then ask).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use catui_testkit::{Script, Turn};
use common::{Sandbox, StreamSession};
use serde_json::json;

/// The sandbox configurations: layers switched off (`CATUI_SANDBOX_DISABLE`).
const CONFIGS: &[&str] = &["", "bubblewrap", "bubblewrap,landlock,seccomp"];

/// Runs `lines` (one Bash call each, ids `c0`, `c1`, …) in acceptEdits with
/// a client that denies every prompt; returns the ids asked about and the
/// final request the model received.
fn run_lines(
    sb: &Sandbox,
    disable: &str,
    lines: &[&str],
) -> (BTreeSet<String>, catui_testkit::RecordedRequest) {
    let mut script = Script::new();
    for (i, line) in lines.iter().enumerate() {
        script = script.turn(common::bash_timeout(format!("c{i}"), line, 10000));
    }
    let server = common::mock(script.turn(Turn::text("done")));
    let mut cmd = sb.catui(&server);
    cmd.env("CATUI_SANDBOX_DISABLE", disable);
    let mut s = StreamSession::start(cmd, &["--permission-mode", "acceptEdits"]);
    s.send_user("go");
    let mut asked = BTreeSet::new();
    loop {
        let v = s.wait_for("a prompt or the result", |v| {
            v["type"] == "result" || v["type"] == "control_request"
        });
        if v["type"] == "result" {
            break;
        }
        asked.insert(v["request"]["tool_use_id"].as_str().unwrap().to_string());
        s.send(json!({"type": "control_response", "response": {
            "subtype": "success", "request_id": v["request_id"],
            "response": {"behavior": "deny", "message": "The user said no."}}}));
    }
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    (asked, server.requests().pop().unwrap())
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn lines_that_copy_or_move_a_link_write_nothing_outside_the_project() {
    for disable in CONFIGS {
        let sb = Sandbox::new();
        let home = sb.dir.path();
        // ~/.ssh with its keys, and a plain directory beside the project.
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/authorized_keys"), "mine\n").unwrap();
        std::fs::create_dir_all(home.join("z")).unwrap();
        // The clone: `docs/ssh` leads to ~/.ssh; `deep/y/lnk` leads to the
        // project's own `z` from where it is, and to ~/z one level up.
        let project = sb.project();
        std::fs::create_dir_all(project.join("docs")).unwrap();
        std::fs::create_dir_all(project.join("deep/y")).unwrap();
        std::fs::create_dir_all(project.join("z")).unwrap();
        std::os::unix::fs::symlink("../../.ssh", project.join("docs/ssh")).unwrap();
        std::os::unix::fs::symlink("../../z", project.join("deep/y/lnk")).unwrap();
        std::os::unix::fs::symlink("../../z", project.join("docs/zz")).unwrap();
        run_lines(
            &sb,
            disable,
            &[
                "cp -a docs d3 && echo 'ssh-ed25519 AAAAattacker' >> d3/ssh/authorized_keys",
                "mv deep/y yy && echo x > yy/lnk/c.txt",
                "cp -r docs d4 && echo x > d4/ssh/rc",
                "cp -R docs/. d5 && touch d5/zz/t.txt",
                "mkdir m && cp -a docs m/ && mv m n && echo x > n/docs/zz/u.txt",
            ],
        );
        assert_eq!(
            read(&home.join(".ssh/authorized_keys")),
            "mine\n",
            "[{disable}] authorized_keys changed"
        );
        for path in [".ssh/rc", "z/c.txt", "z/t.txt", "z/u.txt"] {
            assert!(!home.join(path).exists(), "[{disable}] ~/{path} written");
        }
    }
}

#[test]
fn a_link_made_mid_line_by_a_command_a_rule_allows_leads_no_write_out() {
    for disable in CONFIGS {
        let sb = Sandbox::new();
        let outside = sb.dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        sb.user_settings(r#"{"permissions": {"allow": ["Bash(ln:*)"]}}"#);
        let (asked, last) = run_lines(
            &sb,
            disable,
            &["ln -s ../outside lnk && echo x > lnk/pwned.txt"],
        );
        assert!(!outside.join("pwned.txt").exists(), "[{disable}] written");
        if disable.contains("landlock") {
            // Nothing could confine it: it was asked about, and denied.
            assert!(asked.contains("c0"), "[{disable}] not asked");
        } else {
            // It ran unasked, confined: the write was refused, and the
            // model was told where it may write.
            assert!(asked.is_empty(), "[{disable}] asked: {asked:?}");
            assert!(sb.project().join("lnk").is_symlink(), "[{disable}] ln ran");
            let (text, _) = common::result_of(&last, "c0");
            common::assert_contains(&text, "writing is only allowed under");
        }
    }
}

#[test]
fn ordinary_edits_still_run_unasked() {
    for disable in CONFIGS {
        let sb = Sandbox::new();
        sb.write("src/a/main.rs", "fn main() {}\n");
        sb.write("notes.txt", "note\n");
        let (asked, _) = run_lines(
            &sb,
            disable,
            &[
                "cp -r src src2 && echo ok > src2/new.txt",
                "echo more >> notes.txt && cp notes.txt n2.txt",
            ],
        );
        let project = sb.project();
        if disable.contains("landlock") {
            // Without any layer a tree copy asks; plain files do not.
            assert_eq!(asked, BTreeSet::from(["c0".to_string()]), "[{disable}]");
            assert!(!project.join("src2").exists());
        } else {
            assert!(asked.is_empty(), "[{disable}] asked: {asked:?}");
            assert_eq!(read(&project.join("src2/new.txt")), "ok\n");
        }
        assert_eq!(read(&project.join("n2.txt")), "note\nmore\n", "[{disable}]");
    }
}

/// Sends a message and waits for its echo (returning its uuid) and result.
fn message(s: &mut StreamSession, text: &str) -> String {
    s.send_user(text);
    let echo = s.wait_for("the echo", |v| v["type"] == "user" && v["isReplay"] == true);
    let result = s.wait_type("result");
    assert_eq!(result["subtype"], "success", "{result}");
    echo["uuid"].as_str().unwrap().to_string()
}

#[test]
fn a_line_that_swaps_a_folder_for_a_link_leaves_checkpoints_on() {
    let sb = Sandbox::new();
    sb.write("d/a.txt", "a\n");
    sb.user_settings(r#"{"permissions": {"allow": ["Bash(ln:*)"]}}"#);
    let after = sb.project().join("after.txt");
    let server = common::mock(
        Script::new()
            .turn(common::bash("swap", "mv d d.old && ln -s d.old d"))
            .turn(Turn::text("swapped"))
            .turn(common::write("w", after.to_str().unwrap(), "later\n"))
            .turn(Turn::text("wrote")),
    );
    let mut cmd = sb.catui(&server);
    cmd.env("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING", "true");
    let mut s = StreamSession::start(
        cmd,
        &["--replay-user-messages", "--permission-mode", "acceptEdits"],
    );
    message(&mut s, "swap the folder");
    assert!(sb.project().join("d").is_symlink(), "the line ran");
    let second = message(&mut s, "write after.txt");
    assert!(after.exists());
    // Checkpoints still work: the file the second message wrote goes.
    s.send(
        json!({"type": "control_request", "request_id": "rw", "request":
        {"subtype": "rewind_files", "user_message_id": second}}),
    );
    let answer = s.wait_for("the rewind", |v| {
        v["type"] == "control_response" && v["response"]["request_id"] == "rw"
    });
    assert_eq!(answer["response"]["subtype"], "success", "{answer}");
    assert!(!after.exists(), "not rewound");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    let notices: Vec<&str> = seen
        .iter()
        .filter(|v| v["subtype"] == "notification")
        .filter_map(|v| v["text"].as_str())
        .collect();
    assert!(
        !notices.iter().any(|n| n.contains("Checkpoints are off")),
        "{notices:?}"
    );
    assert!(
        notices
            .iter()
            .any(|n| n.contains("d/a.txt") && n.contains("symbolic link")),
        "the path left out is reported: {notices:?}"
    );
}
