//! One frame of a 5,000-line transcript (SPEC quality bar: < 8 ms). The
//! warm case is the steady state while streaming (row caches filled); the
//! cold case includes wrapping everything once (first frame, or a resize).

use catui_protocol::{ContentBlock, PermissionMode};
use catui_tui::{AppState, SessionInfo, render};
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
    // 500 rounds of ~10 rows each: a question, a Markdown answer with a
    // code block, and a tool call with a folded result.
    for i in 0..500 {
        s.submit_text(format!("Question {i}: what does module {i} do?"));
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

fn bench_render(c: &mut Criterion) {
    let state = transcript_state();
    let mut terminal = match Terminal::new(TestBackend::new(120, 40)) {
        Ok(t) => t,
        Err(e) => panic!("terminal: {e}"),
    };
    let rows = state.transcript.height(120);
    assert!(rows >= 5_000, "transcript has {rows} rows");
    c.bench_function("frame_5000_rows_warm", |b| {
        b.iter(|| {
            let _ = terminal.draw(|f| render(f, &state));
        })
    });
    let mut width = 100u16;
    c.bench_function("frame_5000_rows_cold_resize", |b| {
        b.iter(|| {
            // A new width invalidates every row cache.
            width = if width == 100 { 101 } else { 100 };
            terminal.backend_mut().resize(width, 40);
            let _ = terminal.draw(|f| render(f, &state));
        })
    });
}

criterion_group!(benches, bench_render);
criterion_main!(benches);
