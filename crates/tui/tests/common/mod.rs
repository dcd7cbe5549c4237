//! Builders shared by the TUI tests: a state with fixed session facts,
//! engine events, and rendering to a text screen.
#![allow(dead_code)]

use std::time::Instant;

use catui_core::engine::{EngineEvent, PermissionRequest, TurnOutcome};
use catui_protocol::stream_json::ResultSubtype;
use catui_protocol::{ContentBlock, Message, ModelEvent, PermissionMode, Role, Usage};
use catui_tui::{Action, AppState, SessionInfo, render};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::Value;

pub fn state() -> AppState {
    state_in(PermissionMode::Default)
}

pub fn state_in(mode: PermissionMode) -> AppState {
    AppState::new(
        SessionInfo {
            model: "claude-sonnet-4-5".into(),
            cwd: "/home/dev/project".into(),
            session_id: "s-1".into(),
            auto_mode_enabled: true,
            commands: Vec::new(),
        },
        mode,
    )
}

/// Renders `state` on a `width`×`height` test terminal.
pub fn screen(state: &AppState, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = match Terminal::new(TestBackend::new(width, height)) {
        Ok(t) => t,
        Err(e) => panic!("test terminal: {e}"),
    };
    if let Err(e) = terminal.draw(|f| render(f, state)) {
        panic!("draw: {e}");
    }
    terminal
}

/// Both widths of one screen (80 and 120 columns), in one snapshot.
pub fn both(state: &AppState, height: u16) -> String {
    let mut out = String::new();
    for width in [80, 120] {
        out.push_str(&format!("--- {width} columns\n"));
        out.push_str(&format!("{}\n", screen(state, width, height).backend()));
    }
    out
}

pub fn text_delta(text: &str) -> EngineEvent {
    EngineEvent::Delta {
        agent_id: None,
        event: ModelEvent::TextDelta { text: text.into() },
    }
}

pub fn assistant(blocks: Vec<ContentBlock>) -> EngineEvent {
    EngineEvent::Assistant {
        uuid: "u".into(),
        message: Message {
            role: Role::Assistant,
            content: blocks,
        },
        parent_tool_use_id: None,
        response: Default::default(),
    }
}

pub fn sub_assistant(parent: &str, blocks: Vec<ContentBlock>) -> EngineEvent {
    EngineEvent::Assistant {
        uuid: "u".into(),
        message: Message {
            role: Role::Assistant,
            content: blocks,
        },
        parent_tool_use_id: Some(parent.into()),
        response: Default::default(),
    }
}

pub fn tool_use(id: &str, name: &str, input: Value) -> ContentBlock {
    ContentBlock::ToolUse {
        id: id.into(),
        name: name.into(),
        input,
    }
}

pub fn tool_start(id: &str, name: &str, summary: &str, parent: Option<&str>) -> EngineEvent {
    EngineEvent::ToolStart {
        id: id.into(),
        name: name.into(),
        summary: summary.into(),
        parent_tool_use_id: parent.map(str::to_string),
    }
}

pub fn tool_end(id: &str, name: &str, display: &str, is_error: bool) -> EngineEvent {
    EngineEvent::ToolEnd {
        id: id.into(),
        name: name.into(),
        display: display.into(),
        is_error,
        failed: is_error,
        parent_tool_use_id: None,
    }
}

pub fn result(text: &str, num_turns: u32, is_error: bool, mode: PermissionMode) -> EngineEvent {
    EngineEvent::Result(TurnOutcome {
        subtype: if is_error {
            ResultSubtype::ErrorDuringExecution
        } else {
            ResultSubtype::Success
        },
        is_error,
        result: text.into(),
        num_turns,
        duration_ms: 10,
        usage: Usage {
            input_tokens: 1200,
            output_tokens: 340,
            ..Usage::default()
        },
        cost: Default::default(),
        permission_mode: mode,
        plan_file: Some("/home/dev/.catui/plans/brave-quiet-otter.md".into()),
        view: None,
        structured_output: None,
        left_running: Vec::new(),
        goal: None,
        plan_report: None,
    })
}

pub fn request(tool: &str, input: Value) -> PermissionRequest {
    PermissionRequest {
        tool_use_id: format!("call-{tool}"),
        tool_name: tool.into(),
        input,
        reason: String::new(),
        agent_id: None,
        suggestion: None,
        dry_run: false,
    }
}

pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

pub fn press(state: &mut AppState, key: KeyEvent) -> Vec<Action> {
    state.handle_key(key, Instant::now())
}

pub fn type_text(state: &mut AppState, text: &str) {
    for c in text.chars() {
        press(state, self::key(KeyCode::Char(c)));
    }
}
