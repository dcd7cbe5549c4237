//! The plan review page: a local web page for reading a long plan, its
//! revisions and their differences, commenting on lines or selected
//! passages, and deciding — approve (mode, fresh conversation, steps to
//! skip, implementing model), send back with the comments, or park.
//!
//! The page produces the same [`ApprovalDecision`] as the terminal dialog
//! and the stream-json answer; the front end that started it carries that
//! decision out the way it carries out its own (the terminal UI answers
//! its pending prompt, `catui plans review` records it for the ended
//! session). Nothing here runs unless a review is asked for.
//!
//! - [`page`]: what the page shows ([`ReviewPage`]).
//! - [`render`]: the plan's Markdown as safe HTML.
//! - [`form`]: the page's decision read into an [`ApprovalDecision`].
//! - [`server`]: the server (127.0.0.1, token, cookie, Host/Origin checks,
//!   CSRF, CSP) — [`RunningReview`].
//! - [`browser`]: opening the page, or saying why not.
//!
//! ```no_run
//! # async fn review(shown: serde_json::Value) -> std::io::Result<()> {
//! use catui_review::{ReviewPage, RunningReview};
//! let page = ReviewPage::for_presentation(&shown, None);
//! let mut review = RunningReview::start(page)?;
//! println!("Review the plan at {}", review.links().link());
//! if let Some(decision) = review.decision().await {
//!     println!("{}", decision.summary());
//! }
//! # Ok(()) }
//! ```
//!
//! [`ApprovalDecision`]: catui_core::plan::approval::decision::ApprovalDecision

mod assets;
pub mod browser;
pub mod form;
pub mod page;
pub mod render;
pub mod server;

pub use browser::{NotOpened, open_in_browser, open_review};
pub use page::{Decisions, ReviewPage};
pub use server::{ReviewLinks, RunningReview};
