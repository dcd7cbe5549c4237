//! What catui's `@` file picker runs on, apart from drawing: the project's
//! file list ([`FileIndex`]: walked once in the background, respecting
//! `.gitignore`, kept for the session and refreshed when it is old) and
//! fuzzy ranking of those paths against what was typed after `@`
//! ([`Matcher`], incremental as the query grows; [`score`] for one path).
//!
//! It has no terminal or engine types, so the interface (crates/tui) owns
//! the keys and rows, and `examples/picker_bench.rs` measures opening and
//! filtering on a large tree without building the rest of catui
//! (docs/BENCHMARKS.md).
//!
//! ```
//! use catui_fuzzy::{Entry, Matcher};
//! let entries: Vec<Entry> = ["docs/README.md", "src/main.rs", "src/domain/mod.rs"]
//!     .into_iter()
//!     .map(Entry::new)
//!     .collect();
//! let mut matcher = Matcher::default();
//! let best = matcher.rank(&entries, 0, "main", 10);
//! assert_eq!(entries[best[0]].path(), "src/main.rs");
//! ```

mod index;
mod rank;
mod score;

pub use index::{FileIndex, IndexStatus, MAX_ENTRIES};
pub use rank::Matcher;
pub use score::{Entry, score};
