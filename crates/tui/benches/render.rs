//! One frame over a 100,000-row transcript (bar: < 2 ms warm). The warm
//! case is the steady state while streaming: the runtime has printed the
//! final entries into the scrollback and redraws the live area (the whole
//! screen is drawn here, history tail included). The cold case includes
//! wrapping the visible part again after a resize. The transcript view
//! (Ctrl+O) lays out the whole transcript unfolded: its first frame is
//! cold, later frames (scrolling) are warm.

mod fixture;

use catui_tui::{Pager, render};
use criterion::{Criterion, criterion_group, criterion_main};
use fixture::transcript_state;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

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
