//! Behaviour of the interface state: keys become the right actions, engine
//! events land in the right places, prompts are answered and queued.

mod common;

use std::time::{Duration, Instant};

use catui_core::engine::{EngineEvent, PermissionAnswer};
use catui_protocol::{ContentBlock, Message, ModelEvent, PermissionMode, Role};
use catui_tui::Action;
use common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

#[test]
fn enter_sends_and_shift_enter_or_ctrl_j_add_lines() {
    let mut s = state();
    type_text(&mut s, "line one");
    press(&mut s, KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT));
    type_text(&mut s, "two");
    press(&mut s, ctrl('j'));
    type_text(&mut s, "three");
    let actions = press(&mut s, key(KeyCode::Enter));
    assert_eq!(actions, [Action::Submit("line one\ntwo\nthree".into())]);
    assert!(s.busy());
    assert!(s.input.is_empty());
    // Up on the empty box recalls it.
    press(&mut s, key(KeyCode::Up));
    assert_eq!(s.input.text(), "line one\ntwo\nthree");
}

#[test]
fn shift_tab_cycles_modes_through_the_engine() {
    let mut s = state_in(PermissionMode::Plan);
    assert_eq!(
        press(&mut s, key(KeyCode::BackTab)),
        [Action::SetMode(PermissionMode::Auto)]
    );
    s.apply(EngineEvent::PermissionMode {
        mode: PermissionMode::Auto,
        pre_plan_mode: None,
    });
    assert_eq!(s.mode, PermissionMode::Auto);
    assert_eq!(
        press(&mut s, key(KeyCode::BackTab)),
        [Action::SetMode(PermissionMode::Default)]
    );
}

#[test]
fn escape_interrupts_only_a_running_turn() {
    let mut s = state();
    assert!(press(&mut s, key(KeyCode::Esc)).is_empty());
    s.submit_text("go".into());
    assert_eq!(press(&mut s, key(KeyCode::Esc)), [Action::Interrupt]);
}

#[test]
fn ctrl_c_twice_within_the_window_quits() {
    let mut s = state();
    let t0 = Instant::now();
    type_text(&mut s, "draft");
    assert!(s.handle_key(ctrl('c'), t0).is_empty());
    assert!(s.input.is_empty(), "first Ctrl+C clears the input");
    assert!(s.ctrl_c_at.is_some());
    assert_eq!(
        s.handle_key(ctrl('c'), t0 + Duration::from_millis(500)),
        [Action::Quit]
    );

    let mut s = state();
    s.submit_text("work".into());
    assert_eq!(s.handle_key(ctrl('c'), t0), [Action::Interrupt]);
    assert!(s.expire_hints(t0 + Duration::from_secs(2)));
    assert!(s.handle_key(ctrl('c'), t0 + Duration::from_secs(2)) != [Action::Quit]);
}

#[test]
fn slash_palette_completes_and_runs() {
    let mut s = state();
    type_text(&mut s, "/");
    let all = s.palette().len();
    for _ in 0..all {
        press(&mut s, key(KeyCode::Down));
    }
    assert_eq!(
        s.palette_selected,
        all - 1,
        "the selection reaches the last command"
    );
    let mut s = state();
    type_text(&mut s, "/pl");
    // /plans (the interface's own, first) and /plan.
    assert_eq!(s.palette().len(), 2);
    press(&mut s, key(KeyCode::Tab));
    assert_eq!(s.input.text(), "/plans");
    let mut s = state();
    type_text(&mut s, "/comp");
    assert_eq!(
        press(&mut s, key(KeyCode::Enter)),
        [Action::Submit("/compact".into())]
    );
    let mut s = state();
    type_text(&mut s, "/exit");
    assert_eq!(press(&mut s, key(KeyCode::Enter)), [Action::Quit]);
    // Esc hides the palette so a literal path can be typed.
    let mut s = state();
    type_text(&mut s, "/");
    press(&mut s, key(KeyCode::Esc));
    assert!(s.palette().is_empty());
}

#[test]
fn plan_open_uses_the_known_plan_file() {
    let mut s = state_in(PermissionMode::Plan);
    s.submit_text("hi".into());
    s.apply(result("ok", 1, false, PermissionMode::Plan));
    type_text(&mut s, "/plan open");
    assert_eq!(
        press(&mut s, key(KeyCode::Enter)),
        [Action::OpenPlanFile(
            "/home/dev/.catui/plans/brave-quiet-otter.md".into()
        )]
    );
}

#[test]
fn ctrl_g_asks_for_the_editor() {
    let mut s = state();
    assert_eq!(press(&mut s, ctrl('g')), [Action::EditInput]);
}

#[test]
fn ctrl_g_opens_the_plan_while_planning() {
    let plan = "/home/dev/.catui/plans/brave-quiet-otter.md";
    // Plan mode but no plan file known: the input.
    let mut s = state_in(PermissionMode::Plan);
    assert_eq!(press(&mut s, ctrl('g')), [Action::EditInput]);
    // A plan file outside plan mode: still the input.
    let mut s = state();
    s.plan_file = Some(plan.into());
    assert_eq!(press(&mut s, ctrl('g')), [Action::EditInput]);
    // Entering plan mode (Shift+Tab goes through the engine's event).
    s.apply(EngineEvent::PermissionMode {
        mode: PermissionMode::Plan,
        pre_plan_mode: Some(PermissionMode::Default),
    });
    assert_eq!(
        press(&mut s, ctrl('g')),
        [Action::EditPlanFile(plan.into())]
    );
    // The approval dialog has its own Ctrl+G: edit the plan being approved.
    s.push_request(catui_core::engine::PermissionRequest {
        tool_use_id: "x1".into(),
        tool_name: "ExitPlanMode".into(),
        input: json!({"plan": "# P\n", "planFilePath": plan}),
        reason: "approve".into(),
        agent_id: None,
        suggestion: None,
        dry_run: false,
    });
    assert_eq!(press(&mut s, ctrl('g')), [Action::EditPlan]);
}

#[test]
fn streamed_text_is_replaced_by_the_committed_message_and_retry_discards() {
    let mut s = state();
    s.submit_text("q".into());
    s.apply(text_delta("partial that will be retried"));
    s.apply(EngineEvent::Delta {
        agent_id: None,
        event: ModelEvent::Retrying {
            attempt: 1,
            delay_ms: 500,
            reason: "overloaded".into(),
        },
    });
    assert!(s.live_text.is_empty());
    let retrying = format!("{}", screen(&s, 60, 16).backend());
    assert!(
        retrying.contains("⟳ Retrying in 1s (attempt 1) · overloaded"),
        "{retrying}"
    );
    s.apply(text_delta("final"));
    assert!(
        s.retry.is_none(),
        "the retry line goes once text streams again"
    );
    // Sub-agent deltas never reach the main answer.
    s.apply(EngineEvent::Delta {
        agent_id: Some("agent-1".into()),
        event: ModelEvent::TextDelta { text: "SUB".into() },
    });
    assert_eq!(s.live_text, "final");
    s.apply(assistant(vec![ContentBlock::text("final answer")]));
    assert!(s.live_text.is_empty());
    s.apply(result("final answer", 1, false, PermissionMode::Default));
    assert!(!s.busy());
    assert_eq!(s.usage.total(), 1540);
    let screen = format!("{}", screen(&s, 60, 16).backend());
    assert!(screen.contains("● final answer"));
    assert!(
        !screen.contains("Retrying"),
        "no permanent retry lines:\n{screen}"
    );
    assert!(!screen.contains("partial that"));
}

#[test]
fn denied_calls_get_their_result_from_the_tool_result_message() {
    let mut s = state();
    s.submit_text("delete it".into());
    s.apply(assistant(vec![tool_use(
        "call-Bash",
        "Bash",
        json!({"command": "rm x"}),
    )]));
    s.push_request(request("Bash", json!({"command": "rm x"})));
    // Esc declines and stops the turn (a typed reason would carry on).
    let actions = press(&mut s, key(KeyCode::Esc));
    assert_eq!(
        actions,
        [
            Action::Answer {
                tool_use_id: "call-Bash".into(),
                answer: PermissionAnswer::Deny {
                    message: String::new()
                }
            },
            Action::Interrupt
        ]
    );
    assert!(s.dialog.is_none());
    // The engine's user-facing line, not the text meant for the model.
    s.apply(EngineEvent::ToolEnd {
        id: "call-Bash".into(),
        name: "Bash".into(),
        display: "Declined".into(),
        is_error: true,
        failed: true,
        parent_tool_use_id: None,
    });
    s.apply(EngineEvent::User {
        uuid: "u".into(),
        message: Message {
            role: Role::User,
            content: vec![ContentBlock::tool_result(
                "call-Bash",
                "The user declined to run Bash.",
                true,
            )],
        },
        parent_tool_use_id: None,
    });
    let screen = format!("{}", screen(&s, 60, 14).backend());
    assert!(screen.contains("⎿  Declined"), "{screen}");
    assert!(!screen.contains("The user declined"), "{screen}");
}

#[test]
fn prompts_queue_and_abandoned_ones_close() {
    let mut s = state();
    s.push_request(request("Bash", json!({"command": "a"})));
    let mut second = request(
        "Write",
        json!({"file_path": "/nonexistent/x", "content": "y"}),
    );
    second.tool_use_id = "w".into();
    s.push_request(second);
    assert_eq!(s.queued.len(), 1);
    let actions = press(&mut s, key(KeyCode::Char('1')));
    assert!(
        matches!(&actions[..], [Action::Answer { tool_use_id, answer: PermissionAnswer::Allow { .. } }] if tool_use_id == "call-Bash")
    );
    assert_eq!(
        s.dialog.as_ref().map(|d| d.request().tool_use_id.clone()),
        Some("w".into())
    );
    s.drop_request("w");
    assert!(s.dialog.is_none());
}

#[test]
fn local_command_results_show_as_system_lines_and_clear_resets() {
    let mut s = state();
    s.submit_text("/mode".into());
    s.apply(result(
        "Permission mode: default",
        0,
        false,
        PermissionMode::Default,
    ));
    let text = format!("{}", screen(&s, 60, 12).backend());
    assert!(text.contains("Permission mode: default"));
    s.submit_text("/clear".into());
    s.apply(result(
        "Conversation cleared.",
        0,
        false,
        PermissionMode::Default,
    ));
    assert_eq!(s.transcript.entries().len(), 1);
}

#[test]
fn pasted_text_goes_to_the_focused_field() {
    let mut s = state();
    s.paste(&"x\n".repeat(30));
    assert_eq!(s.input.text(), "[Pasted 30 lines]");
    s.push_request(request("Bash", json!({"command": "ls"})));
    press(&mut s, key(KeyCode::Char('3')));
    s.paste("use fd");
    let actions = press(&mut s, key(KeyCode::Enter));
    assert!(
        matches!(&actions[..], [Action::Answer { answer: PermissionAnswer::Deny { message }, .. }] if message == "use fd")
    );
}

#[test]
fn todos_follow_the_latest_todowrite() {
    let mut s = state();
    // The list shows while a turn runs.
    s.submit_text("work".into());
    s.apply(assistant(vec![tool_use(
        "t",
        "TodoWrite",
        json!({"todos": [
            {"content": "A", "status": "in_progress", "activeForm": "Doing A"}
        ]}),
    )]));
    assert_eq!(s.todos.len(), 1);
    s.apply(assistant(vec![tool_use(
        "t2",
        "TodoWrite",
        json!({"todos": [
            {"content": "A", "status": "completed", "activeForm": "Doing A"},
            {"content": "B", "status": "pending", "activeForm": "Doing B"}
        ]}),
    )]));
    assert_eq!(s.todos[1].content, "B");
    let text = format!("{}", screen(&s, 60, 14).backend());
    assert!(text.contains("☐ B"));
}

#[test]
fn page_up_and_ctrl_o_open_the_full_transcript_view() {
    let mut s = state();
    for i in 0..40 {
        s.submit_text(format!("message {i}"));
        s.apply(result("ok", 1, false, PermissionMode::Default));
    }
    s.viewport = (60, 10);
    press(&mut s, key(KeyCode::PageUp));
    assert_eq!(s.pager.map(|p| p.scroll), Some(8));
    let text = format!("{}", screen(&s, 60, 10).backend());
    assert!(text.contains("Transcript · all output expanded"), "{text}");
    assert!(text.contains("message 35"), "{text}");
    assert!(!text.contains("message 39"), "{text}");
    press(&mut s, key(KeyCode::PageDown));
    assert_eq!(s.pager.map(|p| p.scroll), Some(0));
    press(&mut s, key(KeyCode::Esc));
    assert!(s.pager.is_none());
    press(&mut s, ctrl('o'));
    press(&mut s, key(KeyCode::Home));
    let top = format!("{}", screen(&s, 60, 10).backend());
    assert!(top.contains("✻ catui"), "{top}");
    press(&mut s, ctrl('o'));
    assert!(s.pager.is_none());
}

#[test]
fn input_during_a_turn_is_queued_editable_and_sent_after_it() {
    let mut s = state();
    assert_eq!(
        s.submit_text("first".into()),
        [Action::Submit("first".into())]
    );
    type_text(&mut s, "second");
    assert!(press(&mut s, key(KeyCode::Enter)).is_empty());
    type_text(&mut s, "third");
    assert!(press(&mut s, key(KeyCode::Enter)).is_empty());
    assert_eq!(s.queued_inputs, ["second", "third"]);
    let text = format!("{}", screen(&s, 60, 16).backend());
    assert!(text.contains("⏵ queued  second"), "{text}");
    // Up takes the last one back to edit.
    press(&mut s, key(KeyCode::Up));
    assert_eq!(s.input.text(), "third");
    type_text(&mut s, "!");
    press(&mut s, key(KeyCode::Enter));
    assert_eq!(s.queued_inputs, ["second", "third!"]);
    // Nothing is sent until the turn ends; then one at a time, in order.
    assert!(s.take_due_input().is_empty());
    s.apply(assistant(vec![ContentBlock::text("one")]));
    s.apply(result("one", 1, false, PermissionMode::Default));
    assert_eq!(s.take_due_input(), [Action::Submit("second".into())]);
    assert!(s.take_due_input().is_empty());
    s.apply(result("two", 1, false, PermissionMode::Default));
    assert_eq!(s.take_due_input(), [Action::Submit("third!".into())]);
}

#[test]
fn escape_before_any_reply_puts_the_prompt_back() {
    let mut s = state();
    s.submit_text("fix it".into());
    type_text(&mut s, "and test");
    press(&mut s, key(KeyCode::Enter));
    assert_eq!(press(&mut s, key(KeyCode::Esc)), [Action::Interrupt]);
    assert_eq!(s.input.text(), "fix it\nand test");
    assert!(s.queued_inputs.is_empty());
    s.apply(result(
        "Interrupted by the user.",
        1,
        true,
        PermissionMode::Default,
    ));
    let text = format!("{}", screen(&s, 60, 12).backend());
    assert!(!text.contains("Interrupted"), "{text}");
    assert_eq!(
        s.transcript.entries().len(),
        1,
        "the prompt left the transcript"
    );

    // After a reply has begun, Esc only stops the turn.
    let mut s = state();
    s.submit_text("explain".into());
    s.apply(text_delta("Sure"));
    assert_eq!(press(&mut s, key(KeyCode::Esc)), [Action::Interrupt]);
    assert!(s.input.is_empty());
    s.apply(result(
        "Interrupted by the user.",
        1,
        true,
        PermissionMode::Default,
    ));
    let text = format!("{}", screen(&s, 60, 12).backend());
    assert!(
        text.contains("Interrupted · tell catui what to do instead"),
        "{text}"
    );
}

#[test]
fn ctrl_c_clears_a_draft_that_ctrl_y_brings_back() {
    let mut s = state();
    type_text(&mut s, "a long draft");
    let now = std::time::Instant::now();
    assert!(s.handle_key(ctrl('c'), now).is_empty());
    assert!(s.input.is_empty());
    let status = format!("{}", screen(&s, 80, 8).backend());
    assert!(status.contains("Ctrl+Y brings it back"), "{status}");
    press(&mut s, ctrl('y'));
    assert_eq!(s.input.text(), "a long draft");
}

#[test]
fn question_mark_and_help_show_the_generated_sheet() {
    let mut s = state();
    press(&mut s, key(KeyCode::Char('?')));
    assert!(s.help_open && s.input.is_empty());
    let text = format!("{}", screen(&s, 100, 60).backend());
    assert!(text.contains("Ctrl+J / Shift+Enter"), "{text}");
    assert!(text.contains("/compact"), "{text}");
    press(&mut s, key(KeyCode::Esc));
    assert!(!s.help_open);
    assert!(s.submit_text("/help".into()).is_empty(), "answered here");
    // The whole sheet fits 60 rows: the main keys and, last, the
    // question dialog's.
    let text = format!("{}", screen(&s, 100, 60).backend());
    assert!(text.contains("Ctrl+O"), "{text}");
    assert!(text.contains("When the agent asks you questions"), "{text}");
}

#[test]
fn final_entries_go_to_the_scrollback_once_and_in_order() {
    let mut s = state();
    s.submit_text("q".into());
    // A prompt without a reply stays live (Esc may take it back).
    assert_eq!(s.settled(), 1);
    s.apply(assistant(vec![
        ContentBlock::text("Let me look."),
        tool_use("r1", "Read", json!({"file_path": "/home/dev/project/a.rs"})),
    ]));
    let rows: Vec<String> = s
        .take_settled_rows(60)
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert!(rows.iter().any(|r| r == "> q"), "{rows:?}");
    assert!(rows.iter().any(|r| r == "● Let me look."), "{rows:?}");
    assert!(
        !rows.iter().any(|r| r.contains("Read(")),
        "the running call stays live"
    );
    assert!(s.take_settled_rows(60).is_empty());
    s.apply(tool_start(
        "r1",
        "Read",
        "Read(/home/dev/project/a.rs)",
        None,
    ));
    s.apply(tool_end("r1", "Read", "Read 3 lines", false));
    let rows: Vec<String> = s
        .take_settled_rows(60)
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert_eq!(rows[0], "● Read(a.rs)", "paths are relative to the project");
}

#[test]
fn b_and_plan_review_open_the_review_page_whose_decision_closes_the_dialog() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("brave-quiet-otter.md");
    let mut s = state_in(PermissionMode::Plan);
    // No plan written yet: nothing to review.
    s.plan_file = Some(plan.display().to_string());
    type_text(&mut s, "/plan review");
    assert_eq!(press(&mut s, key(KeyCode::Enter)), []);
    assert!(format!("{}", screen(&s, 100, 20).backend()).contains("No plan written yet"));
    std::fs::write(&plan, "# P\n1. a\n").unwrap();
    type_text(&mut s, "/plan review");
    assert_eq!(
        press(&mut s, key(KeyCode::Enter)),
        [Action::ReviewPlanFile(plan.display().to_string())]
    );
    // b in the approval dialog; the page's address is shown in it.
    s.push_request(request(
        "ExitPlanMode",
        json!({"plan": "# P\n1. a\n", "planFilePath": plan}),
    ));
    assert_eq!(
        press(&mut s, key(KeyCode::Char('b'))),
        [Action::ReviewInBrowser]
    );
    let url = "http://127.0.0.1:40000/?token=0123abcd";
    s.set_review_url("call-ExitPlanMode", "No browser could be started", url);
    let shown = format!("{}", screen(&s, 100, 30).backend());
    assert!(
        shown.contains("No browser could be started") && shown.contains(url),
        "{shown}"
    );
    // The page decided: the dialog closes and says what was decided.
    s.decided_in_browser("call-ExitPlanMode", "Approved, continuing in acceptEdits");
    assert!(s.dialog.is_none());
    let shown = format!("{}", screen(&s, 100, 30).backend());
    assert!(
        shown.contains("Decided in the browser: Approved, continuing in acceptEdits"),
        "{shown}"
    );
}

#[test]
fn a_request_waiting_for_mcp_servers_says_which_and_esc_goes_on_without_them() {
    let mut s = state();
    s.submit_text("use the database".into());
    s.apply(EngineEvent::AwaitingTools {
        pending: vec!["MCP server `db`".into()],
    });
    let shown = format!("{}", screen(&s, 100, 20).backend());
    assert!(
        shown.contains("Waiting for MCP server `db` to start") && shown.contains("esc to go on"),
        "{shown}"
    );
    // The first Esc stops the wait, not the turn.
    assert_eq!(
        press(&mut s, key(KeyCode::Esc)),
        [Action::StopWaitingForTools]
    );
    let shown = format!("{}", screen(&s, 100, 20).backend());
    assert!(!shown.contains("Waiting for MCP server"), "{shown}");
    // The next one interrupts as usual.
    assert_eq!(press(&mut s, key(KeyCode::Esc)), [Action::Interrupt]);
    // The engine's own end of the wait clears the line too.
    s.apply(EngineEvent::AwaitingTools {
        pending: vec!["MCP server `db`".into()],
    });
    s.apply(EngineEvent::AwaitingTools { pending: vec![] });
    assert!(s.awaiting_tools.is_empty());
}
