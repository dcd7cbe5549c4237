//! Memory of a 100,000-row transcript in the terminal UI: builds the
//! benchmark transcript (benches/fixture), lays it out as the runtime does
//! before its first frame, draws a frame and opens the Ctrl+O view (which
//! lays out every entry unfolded), then prints the peak RSS.
//!
//! `cargo run --release -p catui-tui --example transcript_memory`

#[path = "../benches/fixture/mod.rs"]
mod fixture;

use catui_tui::{Pager, render};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// `VmHWM` (peak RSS) or `VmRSS` from /proc/self/status, in KiB.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or_else(
        || "unknown".into(),
        |k| format!("{:.1} MiB", k as f64 / 1024.0),
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let before = status_kib("VmRSS:");
    let started = std::time::Instant::now();
    let mut state = fixture::transcript_state();
    let built = started.elapsed();
    let mut terminal = Terminal::new(TestBackend::new(120, 40))?;
    let printed = state.take_settled_rows(120).len();
    terminal.draw(|f| render(f, &state))?;
    let after_frame = status_kib("VmHWM:");
    state.pager = Some(Pager { scroll: 0 });
    terminal.draw(|f| render(f, &state))?;
    let rows = state.transcript.height(120);
    println!(
        "{} rounds, {rows} rows at 120 columns ({printed} printed to the scrollback), built in {:.0} ms",
        fixture::ROUNDS,
        built.as_secs_f64() * 1000.0
    );
    println!("RSS before building: {}", mib(before));
    println!("peak RSS after the first frame: {}", mib(after_frame));
    println!(
        "peak RSS after opening the Ctrl+O transcript view: {}",
        mib(status_kib("VmHWM:"))
    );
    Ok(())
}
