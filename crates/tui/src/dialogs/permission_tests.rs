//! Tests of the permission dialog: its options, keys, hints and rows.

use super::*;
use crossterm::event::KeyModifiers;

fn dialog(name: &str, input: Value) -> PermissionDialog {
    PermissionDialog::new(PermissionRequest {
        tool_use_id: "t1".into(),
        tool_name: name.into(),
        input,
        reason: String::new(),
        agent_id: None,
        suggestion: None,
        dry_run: false,
    })
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn d_runs_a_dry_run_where_offered_and_does_nothing_elsewhere() {
    let dry = DialogOutcome::Answer(PermissionAnswer::DryRun {
        updated_input: None,
    });
    let mut offered = dialog("Bash", json!({"command": "touch x"}));
    offered.request.dry_run = true;
    offered = PermissionDialog::new(offered.request.clone());
    assert_eq!(offered.choice.options.len(), 4);
    assert_eq!(offered.choice.options[3], DRY_RUN_LABEL);
    assert!(
        offered
            .footer(200)
            .0
            .iter()
            .any(|l| l.to_string().contains("d dry run"))
    );
    assert_eq!(offered.handle_key(key(KeyCode::Char('d'))), dry);
    assert_eq!(offered.handle_key(key(KeyCode::Char('4'))), dry);
    // Typed into the note field, `d` is a letter.
    offered.handle_key(key(KeyCode::Char('3')));
    assert_eq!(
        offered.handle_key(key(KeyCode::Char('d'))),
        DialogOutcome::Pending
    );
    assert_eq!(offered.choice.note(), "d");

    let mut not = dialog("Bash", json!({"command": "touch x"}));
    assert_eq!(not.choice.options.len(), 3);
    assert!(
        !not.footer(200)
            .0
            .iter()
            .any(|l| l.to_string().contains("dry run"))
    );
    assert_eq!(
        not.handle_key(key(KeyCode::Char('d'))),
        DialogOutcome::Pending
    );
    assert_eq!(
        not.handle_key(key(KeyCode::Char('4'))),
        DialogOutcome::Pending
    );
}

#[test]
fn yes_and_always_answers() {
    let mut d = dialog("Bash", json!({"command": "git diff --stat"}));
    assert_eq!(
        d.handle_key(key(KeyCode::Char('1'))),
        DialogOutcome::Answer(PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: None
        })
    );
    d.handle_key(key(KeyCode::Down));
    let DialogOutcome::Answer(PermissionAnswer::Allow {
        updated_permissions: Some(p),
        ..
    }) = d.handle_key(key(KeyCode::Enter))
    else {
        panic!("expected an allow with rules");
    };
    assert_eq!(p[0]["type"], "addRules");
    assert_eq!(p[0]["behavior"], "allow");
    assert_eq!(
        p[0]["rules"][0],
        json!({"toolName": "Bash", "ruleContent": "git diff:*"})
    );
}

#[test]
fn a_command_with_no_rule_to_name_offers_no_dont_ask_again() {
    for command in ["$(echo ls)", "$CMD --flag", "\"$tool\" x"] {
        let mut d = dialog("Bash", json!({ "command": command }));
        assert_eq!(
            d.choice.options,
            ["Yes", "No, and tell the agent what to do differently"],
            "{command}"
        );
        let shown: Vec<String> = d.footer(200).0.iter().map(|l| l.to_string()).collect();
        assert!(
            shown.iter().all(|l| !l.contains("don't ask again")),
            "{command}: {shown:?}"
        );
        // 2 is now "No": it opens the note field; nothing adds a rule.
        assert_eq!(
            d.handle_key(key(KeyCode::Char('2'))),
            DialogOutcome::Pending
        );
        assert!(d.choice.feedback.is_some(), "{command}");
        assert_eq!(
            d.handle_key(key(KeyCode::Enter)),
            DialogOutcome::Answer(PermissionAnswer::Deny {
                message: String::new()
            })
        );
        let mut d = dialog("Bash", json!({ "command": command }));
        assert_eq!(
            d.handle_key(key(KeyCode::Char('3'))),
            DialogOutcome::Pending,
            "no third option"
        );
    }
    // With a dry run offered it is option 3.
    let mut req = dialog("Bash", json!({"command": "$(echo ls)"})).request;
    req.dry_run = true;
    let mut d = PermissionDialog::new(req);
    assert_eq!(d.choice.options[2], DRY_RUN_LABEL);
    assert_eq!(
        d.handle_key(key(KeyCode::Char('3'))),
        DialogOutcome::Answer(PermissionAnswer::DryRun {
            updated_input: None
        })
    );
}

#[test]
fn no_with_feedback_and_escape_deny() {
    let mut d = dialog("Bash", json!({"command": "rm -rf target"}));
    assert_eq!(
        d.handle_key(key(KeyCode::Char('3'))),
        DialogOutcome::Pending
    );
    for c in "use cargo clean".chars() {
        d.handle_key(key(KeyCode::Char(c)));
    }
    assert_eq!(
        d.handle_key(key(KeyCode::Enter)),
        DialogOutcome::Answer(PermissionAnswer::Deny {
            message: "use cargo clean".into()
        })
    );
    let mut d = dialog("Bash", json!({"command": "ls"}));
    assert_eq!(
        d.handle_key(key(KeyCode::Esc)),
        DialogOutcome::Stop(PermissionAnswer::Deny {
            message: String::new()
        })
    );
}

#[test]
fn edits_are_numbered_as_lines_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.rs");
    std::fs::write(&path, "a\nb\nc\nd\ne\nlet x = 1;\n").unwrap();
    let d = dialog(
        "Edit",
        json!({"file_path": path.to_string_lossy(), "old_string": "let x = 1;", "new_string": "let x = 2;"}),
    );
    let text: Vec<String> = d.body.iter().map(|l| l.to_string()).collect();
    assert!(text.contains(&"6 - let x = 1;".to_string()), "{text:?}");
    assert!(text.contains(&"6 + let x = 2;".to_string()), "{text:?}");
}

#[test]
fn the_reason_does_not_repeat_the_command_or_the_path() {
    let input = json!({"command": "touch a b"});
    assert_eq!(
        tidy_reason(
            "Bash wants to run `touch a b` (`touch` is not a known read-only command)",
            "Bash",
            &input
        ),
        "Bash wants to run this command (`touch` is not a known read-only command)"
    );
    let input = json!({"file_path": "/w/p/src/main.rs"});
    assert_eq!(
        tidy_reason("Edit wants to change /w/p/src/main.rs", "Edit", &input),
        "Edit wants to change this file"
    );
}

#[test]
fn rules_for_commands() {
    assert_eq!(bash_rules("npm test -- --watch"), ["npm test:*"]);
    assert_eq!(bash_rules("ls -la"), ["ls:*"]);
    assert!(bash_rules("./build.sh").is_empty());
    // The commands that really run, not the loop's words.
    assert_eq!(
        bash_rules("for i in 1 2 3; do echo $i | tee -a out.txt; done"),
        ["tee:*"]
    );
    assert_eq!(
        bash_rules("cargo build && rm -rf target/tmp"),
        ["cargo:*", "rm:*"]
    );
    assert_eq!(bash_rules("touch a; touch b; touch c"), ["touch:*"]);
}

#[test]
fn write_diffs_against_the_file_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    std::fs::write(&path, "one\ntwo\n").unwrap();
    let d = dialog(
        "Write",
        json!({"file_path": path.to_string_lossy(), "content": "one\nthree\n"}),
    );
    let text: Vec<String> = d.body.iter().map(|l| l.to_string()).collect();
    assert!(d.title.starts_with("Overwrite "), "{}", d.title);
    assert!(d.title.ends_with("a.txt"), "{}", d.title);
    assert_eq!(text, ["1   one", "2 - two", "2 + three"]);
}
