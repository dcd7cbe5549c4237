//! Screen snapshots (ratatui TestBackend + insta) of the states that matter:
//! idle, streaming, diffs, each dialog, sub-agents, `/plan`, the status line
//! in every mode, and a narrow terminal. Screens are taken at 80 and 120
//! columns.

mod common;

use catui_protocol::{ContentBlock, PermissionMode};
use catui_tui::render_status;
use common::*;
use crossterm::event::KeyCode;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::json;

#[test]
fn idle_screen() {
    let s = state();
    insta::assert_snapshot!(both(&s, 16));
}

#[test]
fn streaming_answer_with_code_block() {
    let mut s = state();
    press(&mut s, key(KeyCode::Char('x')));
    press(&mut s, key(KeyCode::Backspace));
    s.submit_text("How do I print in Rust?".into());
    for chunk in [
        "## Printing\n\nUse the **`println!`** macro:\n\n",
        "```rust\nfn main() {\n    println!(\"hello\");\n}\n```\n\n",
        "It writes to *stdout*",
    ] {
        s.apply(text_delta(chunk));
    }
    insta::assert_snapshot!(both(&s, 24));
}

#[test]
fn edit_diff_and_bash_result() {
    let mut s = state();
    s.submit_text("Bump the version and run the tests".into());
    s.apply(assistant(vec![
        ContentBlock::text("I'll update the version first."),
        tool_use(
            "e1",
            "Edit",
            json!({"file_path": "Cargo.toml", "old_string": "version = \"0.1.0\"\nedition = \"2024\"", "new_string": "version = \"0.2.0\"\nedition = \"2024\""}),
        ),
        tool_use("b1", "Bash", json!({"command": "cargo test -q"})),
    ]));
    s.apply(tool_start("e1", "Edit", "Edit(Cargo.toml)", None));
    s.apply(tool_end(
        "e1",
        "Edit",
        "Updated Cargo.toml with 1 change",
        false,
    ));
    s.apply(tool_start("b1", "Bash", "Bash(cargo test -q)", None));
    s.apply(tool_end(
        "b1",
        "Bash",
        "running 12 tests\n............\ntest result: ok. 12 passed\n\nexit code 0\nextra line",
        false,
    ));
    insta::assert_snapshot!(both(&s, 22));
}

#[test]
fn permission_dialog_for_bash() {
    let mut s = state();
    s.submit_text("Clean the build".into());
    s.apply(assistant(vec![tool_use(
        "call-Bash",
        "Bash",
        json!({"command": "rm -rf target/debug", "description": "Remove debug build output"}),
    )]));
    s.push_request(request(
        "Bash",
        json!({"command": "rm -rf target/debug", "description": "Remove debug build output"}),
    ));
    insta::assert_snapshot!(both(&s, 20));
}

#[test]
fn permission_dialog_for_edit_with_feedback_field() {
    let mut s = state();
    s.push_request(request(
        "Edit",
        json!({"file_path": "src/lib.rs", "old_string": "fn a() {}\n", "new_string": "fn a() -> u8 { 1 }\n"}),
    ));
    press(&mut s, key(KeyCode::Char('3')));
    type_text(&mut s, "keep it unit");
    insta::assert_snapshot!(both(&s, 18));
}

#[test]
fn enter_plan_mode_consent_dialog() {
    let mut s = state();
    s.submit_text("Rework the storage layer".into());
    s.push_request(request(
        "EnterPlanMode",
        json!({"reason": "This touches the storage, cache and sync modules; I'd like to plan first."}),
    ));
    insta::assert_snapshot!(both(&s, 18));
}

#[test]
fn enter_plan_mode_declined_with_a_note() {
    let mut s = state();
    s.push_request(request("EnterPlanMode", json!({"reason": null})));
    press(&mut s, key(KeyCode::Char('2')));
    type_text(&mut s, "small change, just do it");
    insta::assert_snapshot!(both(&s, 16));
}

fn plan_request() -> catui_core::engine::PermissionRequest {
    request(
        "ExitPlanMode",
        json!({
            "plan": "# Add retries\n\n1. Wrap `send` in a retry loop\n2. Honour `retry-after`\n\n## Verification\n\n- `cargo test -p providers`",
            "planFilePath": "/home/dev/.catui/plans/brave-quiet-otter.md",
            "planDiff": "@@ -1,3 +1,3 @@\n # Add retries\n-1. Retry forever\n+1. Wrap `send` in a retry loop\n+2. Honour `retry-after`"
        }),
    )
}

#[test]
fn plan_approval_dialog() {
    let mut s = state_in(PermissionMode::Plan);
    s.push_request(plan_request());
    insta::assert_snapshot!(both(&s, 24));
}

#[test]
fn plan_approval_dialog_showing_the_diff() {
    let mut s = state_in(PermissionMode::Plan);
    s.push_request(plan_request());
    press(&mut s, key(KeyCode::Char('d')));
    insta::assert_snapshot!(both(&s, 24));
}

#[test]
fn plan_approval_dialog_after_the_plan_changed_under_review() {
    let mut s = state_in(PermissionMode::Plan);
    let mut request = plan_request();
    request.input["planChanged"] = json!(true);
    request.reason =
        "The plan file changed while you were reviewing it; review the new text.".into();
    s.push_request(request);
    insta::assert_snapshot!(both(&s, 26));
}

#[test]
fn plan_approval_dialog_with_review_comments() {
    let mut s = state_in(PermissionMode::Plan);
    s.push_request(plan_request());
    press(&mut s, key(KeyCode::Char('c')));
    press(&mut s, key(KeyCode::Down));
    press(&mut s, key(KeyCode::Down));
    press(&mut s, key(KeyCode::Enter));
    type_text(&mut s, "retry at most 3 times");
    press(&mut s, key(KeyCode::Enter));
    press(&mut s, key(KeyCode::Down));
    press(&mut s, key(KeyCode::Enter));
    type_text(&mut s, "and log each retry");
    insta::assert_snapshot!(both(&s, 26));
}

#[test]
fn ask_user_question_dialog() {
    let mut s = state();
    s.push_request(request(
        "AskUserQuestion",
        json!({"questions": [
            {"question": "Which storage backend should the cache use?", "header": "Storage", "multiSelect": false,
             "options": [{"label": "SQLite", "description": "one file, transactional"},
                         {"label": "Files", "description": "one JSON file per entry"}]},
            {"question": "Which platforms must work?", "header": "Platforms", "multiSelect": true,
             "options": [{"label": "Linux", "description": ""}, {"label": "macOS", "description": ""}]}
        ]}),
    ));
    press(&mut s, key(KeyCode::Down));
    insta::assert_snapshot!(both(&s, 18));
}

#[test]
fn parallel_agents_progress() {
    let mut s = state_in(PermissionMode::Plan);
    s.submit_text("/plan add caching".into());
    s.apply(assistant(vec![
        ContentBlock::text("Exploring the code in parallel."),
        tool_use("a1", "Agent", json!({"subagent_type": "Explore", "description": "Find HTTP client code", "prompt": "..."})),
        tool_use("a2", "Agent", json!({"subagent_type": "Explore", "description": "Find existing caches", "prompt": "..."})),
        tool_use("a3", "Agent", json!({"subagent_type": "Explore", "description": "Map the tests", "prompt": "..."})),
    ]));
    for id in ["a1", "a2", "a3"] {
        s.apply(tool_start(id, "Agent", "Agent", None));
    }
    s.apply(sub_assistant(
        "a1",
        vec![tool_use("x1", "Grep", json!({"pattern": "reqwest"}))],
    ));
    s.apply(tool_start("x1", "Grep", "Grep(reqwest)", Some("a1")));
    s.apply(sub_assistant(
        "a2",
        vec![tool_use("x2", "Glob", json!({"pattern": "**/cache*"}))],
    ));
    s.apply(sub_assistant(
        "a2",
        vec![tool_use("x3", "Read", json!({"file_path": "src/cache.rs"}))],
    ));
    s.apply(tool_start("x3", "Read", "Read(src/cache.rs)", Some("a2")));
    s.apply(sub_assistant("a3", vec![ContentBlock::text("done")]));
    s.apply(tool_end("a3", "Agent", "Tests live in tests/", false));
    insta::assert_snapshot!(both(&s, 20));
}

#[test]
fn plan_command_display() {
    let mut s = state_in(PermissionMode::Plan);
    s.submit_text("/plan".into());
    let mut shown = result(
        "Current Plan\n/home/dev/.catui/plans/brave-quiet-otter.md\n\n# Add retries\n\n1. Wrap `send`\n2. Test it\n\n\"/plan open\" to edit this plan in vi",
        0,
        false,
        PermissionMode::Plan,
    );
    if let catui_core::engine::EngineEvent::Result(outcome) = &mut shown {
        outcome.view = Some(catui_core::engine::CommandView::Document {
            title: "Current Plan".into(),
            path: "/home/dev/.catui/plans/brave-quiet-otter.md".into(),
            content: "# Add retries\n\n1. Wrap `send`\n2. Test it".into(),
            hint: Some("\"/plan open\" to edit this plan in vi".into()),
        });
    }
    s.apply(shown);
    insta::assert_snapshot!(both(&s, 20));
}

#[test]
fn status_line_in_each_mode() {
    let mut out = String::new();
    for mode in PermissionMode::ALL {
        let s = state_in(mode);
        let mut buf = Buffer::empty(Rect::new(0, 0, 90, 1));
        render_status(&s, buf.area, &mut buf);
        let row: String = (0..90).map(|x| buf[(x, 0)].symbol().to_string()).collect();
        let fg = buf[(0, 0)].fg;
        out.push_str(&format!(
            "{:<18} {fg:?}\n{}\n",
            mode.as_str(),
            row.trim_end()
        ));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn narrow_terminal_with_wide_characters() {
    let mut s = state();
    s.submit_text("把这个函数翻译成英文 and explain the wide characters".into());
    s.apply(assistant(vec![
        ContentBlock::text("The function `翻译` translates text; 日本語 and emoji 🎉 take two cells each."),
        tool_use("r1", "Read", json!({"file_path": "src/very/long/path/to/some/deeply/nested/module/file.rs"})),
        tool_use("t1", "TodoWrite", json!({"todos": [
            {"content": "Read the module", "status": "completed", "activeForm": "Reading the module"},
            {"content": "Translate names", "status": "in_progress", "activeForm": "Translating names"},
            {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"}
        ]})),
    ]));
    s.apply(tool_start(
        "r1",
        "Read",
        "Read(src/very/long/path/to/some/deeply/nested/module/file.rs)",
        None,
    ));
    s.apply(tool_end("r1", "Read", "Read 42 lines", false));
    type_text(&mut s, "继续 please");
    insta::assert_snapshot!(screen(&s, 60, 22).backend());
}

#[test]
fn resume_session_picker() {
    use catui_tui::{PickerItem, PickerState, render_picker};
    use std::time::{Duration, SystemTime};
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000);
    let item =
        |id: &str, age: u64, count, prompt: Option<&str>, mode, slug: Option<&str>| PickerItem {
            session_id: id.into(),
            modified: now - Duration::from_secs(age),
            first_prompt: prompt.map(String::from),
            message_count: count,
            permission_mode: mode,
            plan_slug: Some(slug.unwrap_or("never-planned-slug").to_string()),
            planned: slug.is_some(),
        };
    let mut state = PickerState::new(
        vec![
            item(
                "a",
                3 * 86_400,
                40,
                Some("Refactor the config loader"),
                None,
                None,
            ),
            item(
                "b",
                20,
                12,
                Some("Add a retry to the\nOpenAI client"),
                Some(PermissionMode::Plan),
                Some("gentle-retry-otter"),
            ),
            item(
                "c",
                2 * 3_600,
                3,
                None,
                Some(PermissionMode::AcceptEdits),
                None,
            ),
            item("d", 900, 7, Some("fix the config parser test"), None, None),
        ],
        now,
    );
    state.on_key(crossterm::event::KeyEvent::new(
        KeyCode::Down,
        crossterm::event::KeyModifiers::NONE,
    ));
    let mut terminal = match ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 10)) {
        Ok(t) => t,
        Err(e) => panic!("test terminal: {e}"),
    };
    if let Err(e) = terminal.draw(|f| render_picker(f, &state)) {
        panic!("draw: {e}");
    }
    insta::assert_snapshot!("resume_session_picker_all", terminal.backend());
    state.set_query("CONFIG");
    if let Err(e) = terminal.draw(|f| render_picker(f, &state)) {
        panic!("draw: {e}");
    }
    insta::assert_snapshot!("resume_session_picker_filtered", terminal.backend());
}

#[test]
fn thinking_shown_collapsed_and_cost_in_the_status_line() {
    for width in [80, 120] {
        let mut s = state();
        s.submit_text("Why does the test fail?".into());
        s.apply(assistant(vec![
            ContentBlock::Thinking {
                thinking: "The assertion compares a sorted list with an unsorted one.\nSo the fix is to sort before comparing, or compare sets.".into(),
                signature: "sig".into(),
            },
            ContentBlock::Reasoning {
                id: "rs_1".into(),
                summary: "Checking the fixture order.".into(),
                encrypted_content: Some("e".into()),
            },
            ContentBlock::text("The list is compared before it is sorted."),
        ]));
        let mut done = result(
            "The list is compared before it is sorted.",
            1,
            false,
            PermissionMode::Default,
        );
        if let catui_core::engine::EngineEvent::Result(outcome) = &mut done {
            outcome.cost.total_cost_usd = 0.1234;
        }
        s.apply(done);
        let name = format!("thinking_collapsed_cost_{width}");
        insta::assert_snapshot!(name, screen(&s, width, 14).backend());
    }
}
