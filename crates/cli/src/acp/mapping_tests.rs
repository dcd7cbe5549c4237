use super::*;
use agent_client_protocol::v1::schema::SelectedPermissionOutcome;

fn selected(id: &str) -> Result<RequestPermissionOutcome, String> {
    Ok(RequestPermissionOutcome::Selected(
        SelectedPermissionOutcome::new(id.to_string()),
    ))
}

#[test]
fn modes_list_the_permission_modes_and_auto_only_when_enabled() {
    let ids = |s: SessionModeState| -> Vec<String> {
        s.available_modes
            .iter()
            .map(|m| m.id.0.to_string())
            .collect()
    };
    let state = modes(PermissionMode::Plan, false);
    assert_eq!(state.current_mode_id.0.as_ref(), "plan");
    assert_eq!(
        ids(state),
        ["default", "acceptEdits", "plan", "bypassPermissions"]
    );
    assert!(ids(modes(PermissionMode::Default, true)).contains(&"auto".to_string()));
    // Every id parses back to the mode it names.
    for id in ids(modes(PermissionMode::Default, true)) {
        assert_eq!(id.parse::<PermissionMode>().unwrap().to_string(), id);
    }
}

#[test]
fn tools_get_kinds_titles_locations_and_diffs() {
    let cwd = Path::new("/proj");
    assert_eq!(tool_kind("Edit"), ToolKind::Edit);
    assert_eq!(tool_kind("Bash"), ToolKind::Execute);
    assert_eq!(tool_kind("Grep"), ToolKind::Search);
    assert_eq!(tool_kind("ExitPlanMode"), ToolKind::SwitchMode);
    assert_eq!(tool_kind("SomethingElse"), ToolKind::Other);

    let edit = json!({"file_path": "src/a.rs", "old_string": "x", "new_string": "y"});
    assert_eq!(tool_title("Edit", &edit, cwd), "Edit(src/a.rs)");
    let locations = tool_locations(&edit, cwd);
    assert_eq!(locations[0].path, PathBuf::from("/proj/src/a.rs"));
    match tool_diff("Edit", &edit, cwd) {
        Some(ToolCallContent::Diff(d)) => {
            assert_eq!(d.path, PathBuf::from("/proj/src/a.rs"));
            assert_eq!(d.old_text.as_deref(), Some("x"));
            assert_eq!(d.new_text, "y");
        }
        other => panic!("{other:?}"),
    }
    let read = json!({"file_path": "/abs/f.txt", "offset": 12});
    assert_eq!(tool_locations(&read, cwd)[0].line, Some(12));
    assert!(tool_diff("Read", &read, cwd).is_none());
    assert_eq!(
        tool_title("Bash", &json!({"command": "cargo test\nmore"}), cwd),
        "Bash(cargo test)"
    );
}

#[test]
fn a_write_diff_holds_the_file_it_replaces() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "old\n").unwrap();
    let input = json!({"file_path": "f.txt", "content": "new\n"});
    match tool_diff("Write", &input, dir.path()) {
        Some(ToolCallContent::Diff(d)) => {
            assert_eq!(d.old_text.as_deref(), Some("old\n"));
            assert_eq!(d.new_text, "new\n");
        }
        other => panic!("{other:?}"),
    }
    let fresh = json!({"file_path": "g.txt", "content": "x"});
    match tool_diff("Write", &fresh, dir.path()) {
        Some(ToolCallContent::Diff(d)) => assert_eq!(d.old_text, None),
        other => panic!("{other:?}"),
    }
}

#[test]
fn permission_options_mean_what_the_tui_options_mean() {
    let ids = |o: Vec<PermissionOption>| -> Vec<(String, PermissionOptionKind)> {
        o.into_iter()
            .map(|o| (o.option_id.0.to_string(), o.kind))
            .collect()
    };
    assert_eq!(
        ids(permission_options("Bash", Some("Bash(npm test:*)"))),
        [
            (ALLOW_ONCE.to_string(), PermissionOptionKind::AllowOnce),
            (ALLOW_ALWAYS.to_string(), PermissionOptionKind::AllowAlways),
            (REJECT.to_string(), PermissionOptionKind::RejectOnce),
        ]
    );
    // No rule to remember: no "always".
    assert_eq!(permission_options("Bash", None).len(), 2);

    assert_eq!(
        permission_answer(selected(ALLOW_ONCE), Some("Edit")),
        PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: None
        }
    );
    assert_eq!(
        permission_answer(selected(ALLOW_ALWAYS), Some("Bash(npm test:*)")),
        PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: Some(json!([{
                "type": "addRules",
                "behavior": "allow",
                "destination": "session",
                "rules": [{"toolName": "Bash", "ruleContent": "npm test:*"}],
            }]))
        }
    );
    // Reject, cancel and an unknown option deny; a failed request runs
    // nothing either, as no decision of the user's.
    for outcome in [
        selected(REJECT),
        selected("something"),
        Ok(RequestPermissionOutcome::Cancelled),
    ] {
        assert!(
            matches!(
                permission_answer(outcome, Some("Edit")),
                PermissionAnswer::Deny { .. }
            ),
            "must deny"
        );
    }
    assert!(matches!(
        permission_answer(Err("connection closed".to_string()), Some("Edit")),
        PermissionAnswer::Unanswered { .. }
    ));
}

#[test]
fn plan_choices_map_to_modes_and_fail_closed() {
    let input = json!({"plan": "# P\n1. a", "planFilePath": "/p.md"});
    let ids: Vec<String> = plan_options()
        .into_iter()
        .map(|o| o.option_id.0.to_string())
        .collect();
    assert_eq!(
        ids,
        [
            PLAN_ACCEPT_EDITS,
            PLAN_REVIEW_EDITS,
            PLAN_KEEP_PLANNING,
            PLAN_BACKGROUND,
            PLAN_PARK
        ]
    );
    // The fifth choice: approved, for a background agent.
    match plan_answer(selected(PLAN_BACKGROUND), &input, None) {
        PermissionAnswer::Allow {
            updated_input: Some(v),
            ..
        } => {
            assert_eq!(v["dispatch"], "worktree");
            assert_eq!(v["mode"], "acceptEdits");
        }
        other => panic!("{other:?}"),
    }

    match plan_answer(selected(PLAN_ACCEPT_EDITS), &input, None) {
        PermissionAnswer::Allow {
            updated_input: Some(v),
            ..
        } => {
            assert_eq!(v["mode"], "acceptEdits");
            assert_eq!(v["plan"], "# P\n1. a");
        }
        other => panic!("{other:?}"),
    }
    match plan_answer(selected(PLAN_REVIEW_EDITS), &input, None) {
        PermissionAnswer::Allow {
            updated_input: Some(v),
            ..
        } => assert_eq!(v["mode"], Value::Null),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        plan_answer(
            selected(PLAN_KEEP_PLANNING),
            &input,
            Some("add tests".into())
        ),
        PermissionAnswer::Deny {
            message: "add tests".into()
        }
    );
    // Parking approves nothing: the call carries `park` and the note.
    match plan_answer(
        selected(PLAN_PARK),
        &input,
        Some("after the release".into()),
    ) {
        PermissionAnswer::Allow {
            updated_input: Some(v),
            ..
        } => {
            assert_eq!(v["park"], true);
            assert_eq!(v["note"], "after the release");
            assert!(v.get("mode").is_none(), "{v}");
        }
        other => panic!("{other:?}"),
    }
    // Cancelled: keep planning; failed: no decision. Never an approval.
    assert!(matches!(
        plan_answer(
            Ok(RequestPermissionOutcome::Cancelled),
            &input,
            Some("ignored".into())
        ),
        PermissionAnswer::Deny { .. }
    ));
    assert!(matches!(
        plan_answer(Err("gone".to_string()), &input, Some("ignored".into())),
        PermissionAnswer::Unanswered { .. }
    ));
}

#[test]
fn plan_request_shows_the_plan_and_the_diff_since_last_time() {
    let content = plan_request_content(&json!({
        "plan": "# Plan\n1. step",
        "planDiff": "-old\n+new\n",
    }));
    assert_eq!(content.len(), 2);
    let text = |c: &ToolCallContent| match c {
        ToolCallContent::Content(c) => match &c.content {
            acp::ContentBlock::Text(t) => t.text.clone(),
            _ => String::new(),
        },
        _ => String::new(),
    };
    assert_eq!(text(&content[0]), "# Plan\n1. step");
    assert!(text(&content[1]).contains("```diff\n-old\n+new\n```"));
    assert_eq!(plan_request_content(&json!({"plan": "x"})).len(), 1);
}

#[test]
fn plans_and_todos_become_plan_entries() {
    let todos = todo_entries(&json!({"todos": [
        {"content": "Write test", "status": "completed", "activeForm": "Writing"},
        {"content": "Fix bug", "status": "in_progress", "activeForm": "Fixing"},
        {"content": "Docs", "status": "pending", "activeForm": "Writing docs"},
    ]}))
    .unwrap();
    let statuses: Vec<PlanEntryStatus> = todos.iter().map(|e| e.status.clone()).collect();
    assert_eq!(
        statuses,
        [
            PlanEntryStatus::Completed,
            PlanEntryStatus::InProgress,
            PlanEntryStatus::Pending
        ]
    );
    assert_eq!(todos[1].content, "Fix bug");

    let steps = plan_steps(
        "# Plan\n\nContext.\n\n## Steps\n1. Add the parser\n   1. nested\n2) Wire it\n\n- a note\n",
    );
    let contents: Vec<&str> = steps.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(contents, ["Add the parser", "Wire it"]);
    let bullets = plan_steps("# P\n- [ ] one\n* two\n  - nested\n");
    let contents: Vec<&str> = bullets.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(contents, ["one", "two"]);
}

#[test]
fn prompts_keep_text_links_and_embedded_files() {
    let blocks = prompt_blocks(vec![
        acp::ContentBlock::Text(acp::TextContent::new("fix it")),
        acp::ContentBlock::ResourceLink(acp::ResourceLink::new("a.rs", "file:///p/a.rs")),
        acp::ContentBlock::Resource(acp::EmbeddedResource::new(
            acp::EmbeddedResourceResource::TextResourceContents(acp::TextResourceContents::new(
                "unsaved text",
                "file:///p/b.rs",
            )),
        )),
    ]);
    assert_eq!(
        blocks,
        [
            ContentBlock::text("fix it"),
            ContentBlock::text("@/p/a.rs"),
            ContentBlock::text("<context ref=\"/p/b.rs\">\nunsaved text\n</context>"),
        ]
    );
}
