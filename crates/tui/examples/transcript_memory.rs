//! Memory of a 100,000-row transcript in the terminal UI: builds the
//! benchmark transcript (benches/fixture), lays it out as the runtime does
//! before its first frame, draws a frame and opens the Ctrl+O view (which
//! lays out every entry unfolded), then prints the peak RSS and the heap
//! bytes the transcript holds (counted by the allocator, so memory the
//! allocator kept after a transient peak is not mistaken for the session's).
//!
//! `cargo run --release -p catui-tui --example transcript_memory`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// A benchmark-only allocator wrapper; the library itself has no unsafe code.
#[allow(unsafe_code)]
// SAFETY: every call is forwarded to the system allocator unchanged; the
// counter is only arithmetic on the sizes it was given.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live_mib() -> String {
    format!(
        "{:.1} MiB",
        LIVE.load(Ordering::Relaxed) as f64 / 1024.0 / 1024.0
    )
}

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
    let before_print = live_mib();
    let printed = state.take_settled_rows(120).len();
    terminal.draw(|f| render(f, &state))?;
    let after_frame = status_kib("VmHWM:");
    state.pager = Some(Pager { scroll: 0 });
    terminal.draw(|f| render(f, &state))?;
    let rows = state.transcript.height(120);
    println!(
        "{} rounds, {} entries, {rows} rows at 120 columns ({printed} printed to the scrollback), \
         built in {:.0} ms",
        fixture::ROUNDS,
        state.transcript.entries().len(),
        built.as_secs_f64() * 1000.0
    );
    println!("RSS before building: {}", mib(before));
    println!("peak RSS after the first frame: {}", mib(after_frame));
    println!(
        "peak RSS after opening the Ctrl+O transcript view: {}",
        mib(status_kib("VmHWM:"))
    );
    println!("RSS now: {}", mib(status_kib("VmRSS:")));
    println!("heap held by the transcript once built: {before_print}");
    drop(terminal);
    println!(
        "heap held by the session now (after the frames): {}",
        live_mib()
    );
    drop(state);
    Ok(())
}
