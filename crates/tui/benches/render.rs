//! One frame over a 100,000-row transcript (bar: < 2 ms warm). The warm
//! case is the steady state while streaming: the runtime has printed the
//! final entries into the scrollback and redraws the live area (the whole
//! screen is drawn here, history tail included). The cold case includes
//! wrapping the visible part again after a resize. The transcript view
//! (Ctrl+O) lays out the whole transcript unfolded: its first frame is
//! cold, later frames (scrolling) are warm.

use catui_protocol::{ContentBlock, PermissionMode};
use catui_tui::{AppState, Pager, SessionInfo, render};
use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

fn transcript_state() -> AppState {
    let mut s = AppState::new(
        SessionInfo {
            model: "bench-model".into(),
            cwd: "/bench".into(),
            session_id: "bench".into(),
            auto_mode_enabled: false,
        },
        PermissionMode::Default,
    );
    // 11,200 rounds of ~9 rows each: a question, a Markdown answer with
    // a code block, and a tool call with a folded result.
    for i in 0..11_200 {
        s.submit_text(format!("Question {i}: what does module {i} do?"));
        s.apply(result_event());
        s.apply(catui_core::engine::EngineEvent::Assistant {
            message: catui_protocol::Message {
                role: catui_protocol::Role::Assistant,
                content: vec![
                    ContentBlock::text(format!(
                        "Module **{i}** parses `input` and returns a value.\n\n```rust\nfn f{i}() -> u32 {{ {i} }}\n```"
                    )),
                    ContentBlock::ToolUse {
                        id: format!("t{i}"),
                        name: "Read".into(),
                        input: json!({"file_path": format!("src/m{i}.rs")}),
                    },
                ],
            },
            parent_tool_use_id: None,
            response: Default::default(),
        });
        s.apply(catui_core::engine::EngineEvent::ToolEnd {
            id: format!("t{i}"),
            name: "Read".into(),
            display: "Read 120 lines".into(),
            is_error: false,
            failed: false,
            parent_tool_use_id: None,
        });
    }
    s.apply(catui_core::engine::EngineEvent::Delta {
        agent_id: None,
        event: catui_protocol::ModelEvent::TextDelta {
            text: "Streaming an answer with `code` and *emphasis*…".into(),
        },
    });
    s
}

/// Ends the turn right away, so the next question is sent, not queued.
fn result_event() -> catui_core::engine::EngineEvent {
    catui_core::engine::EngineEvent::Result(catui_core::engine::TurnOutcome {
        subtype: catui_protocol::stream_json::ResultSubtype::Success,
        is_error: false,
        result: String::new(),
        num_turns: 1,
        duration_ms: 1,
        usage: catui_protocol::Usage::default(),
        cost: Default::default(),
        permission_mode: PermissionMode::Default,
        plan_file: None,
        view: None,
    })
}

fn bench_render(c: &mut Criterion) {
    let mut state = transcript_state();
    let mut terminal = match Terminal::new(TestBackend::new(120, 40)) {
        Ok(t) => t,
        Err(e) => panic!("terminal: {e}"),
    };
    // What the runtime does before its first frame: print the final
    // entries (measured once, not per frame).
    let printed = state.take_settled_rows(120).len();
    let rows = state.transcript.height(120);
    assert!(rows >= 100_000, "transcript has {rows} rows");
    assert!(printed >= 99_000, "printed {printed} rows");
    c.bench_function("frame_100k_rows_warm", |b| {
        b.iter(|| {
            state.tick += 1;
            let _ = terminal.draw(|f| render(f, &state));
        })
    });
    let mut width = 100u16;
    c.bench_function("frame_100k_rows_cold_resize", |b| {
        b.iter(|| {
            // A new width invalidates every row cache.
            width = if width == 100 { 101 } else { 100 };
            terminal.backend_mut().resize(width, 40);
            let _ = terminal.draw(|f| render(f, &state));
        })
    });
    terminal.backend_mut().resize(120, 40);
    state.pager = Some(Pager { scroll: 0 });
    let mut scroll = 0usize;
    c.bench_function("transcript_view_100k_rows_scrolling", |b| {
        b.iter(|| {
            scroll = (scroll + 20) % 90_000;
            state.pager = Some(Pager { scroll });
            let _ = terminal.draw(|f| render(f, &state));
        })
    });
}

criterion_group!(benches, bench_render);
criterion_main!(benches);
