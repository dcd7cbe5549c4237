//! The plan review page from the terminal interface: `b` in the plan
//! dialog serves the presented plan's page (its decision answers the
//! dialog's prompt), `/plan review` serves the plan file's page (nothing
//! asks for approval then: the page can only send comments back, as the
//! next message). One page at a time; it stops when its prompt is answered
//! in the terminal, when a new page replaces it, or when the interface
//! ends.

use std::path::PathBuf;

use catui_core::engine::PermissionRequest;
use catui_core::plan::approval::decision::ApprovalDecision;
use catui_review::{Decisions, ReviewLinks, ReviewPage, RunningReview, open_review};
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio_util::sync::{CancellationToken, DropGuard};

/// A decision made on the review page.
#[derive(Debug)]
pub struct PageDecision {
    /// The prompt it answers (its tool_use_id and shown input); `None`:
    /// the page of `/plan review`.
    pub prompt: Option<(String, Value)>,
    pub decision: ApprovalDecision,
}

/// The running page.
struct Running {
    /// The prompt it answers, if any.
    tool_use_id: Option<String>,
    links: ReviewLinks,
    _stop: DropGuard,
}

/// The interface's review page, at most one at a time.
pub struct BrowserReview {
    sessions_dir: Option<PathBuf>,
    decided: UnboundedSender<PageDecision>,
    running: Option<Running>,
}

impl BrowserReview {
    /// A review slot; decisions arrive on the returned receiver.
    pub fn new(sessions_dir: Option<PathBuf>) -> (Self, UnboundedReceiver<PageDecision>) {
        let (decided, rx) = unbounded_channel();
        (
            BrowserReview {
                sessions_dir,
                decided,
                running: None,
            },
            rx,
        )
    }

    /// Serves the page of a presented plan (the prompt `request`); a page
    /// already running for it is kept. Returns its links.
    pub fn open_prompt(&mut self, request: &PermissionRequest) -> Result<ReviewLinks, String> {
        if let Some(running) = &self.running
            && running.tool_use_id.as_deref() == Some(request.tool_use_id.as_str())
        {
            return Ok(running.links.clone());
        }
        let page = ReviewPage::for_presentation(&request.input, self.sessions_dir.as_deref());
        self.serve(
            page,
            Some((request.tool_use_id.clone(), request.input.clone())),
        )
    }

    /// Serves the page of the plan file at `path` (`/plan review`).
    pub fn open_file(&mut self, path: &str) -> Result<ReviewLinks, String> {
        let plan = std::fs::read_to_string(path)
            .map_err(|e| format!("Could not read the plan {path}: {e}"))?;
        let page = ReviewPage::new(
            &plan,
            path,
            Decisions::SendBackOnly,
            self.sessions_dir.as_deref(),
        );
        self.serve(page, None)
    }

    fn serve(
        &mut self,
        page: ReviewPage,
        prompt: Option<(String, Value)>,
    ) -> Result<ReviewLinks, String> {
        // A new page replaces the old one (which stops).
        self.running = None;
        let mut review = RunningReview::start(page)
            .map_err(|e| format!("The review page could not be started: {e}"))?;
        let links = review.links();
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        let decided = self.decided.clone();
        let tool_use_id = prompt.as_ref().map(|(id, _)| id.clone());
        tokio::spawn(async move {
            tokio::select! {
                decision = review.decision() => {
                    if let Some(decision) = decision {
                        let _ = decided.send(PageDecision { prompt, decision });
                    }
                }
                // Dropping the review ends its server.
                () = stopped.cancelled() => {}
            }
        });
        self.running = Some(Running {
            tool_use_id,
            links: links.clone(),
            _stop: stop.drop_guard(),
        });
        Ok(links)
    }

    /// The prompt `tool_use_id` was answered (or withdrawn): its page stops.
    pub fn prompt_answered(&mut self, tool_use_id: &str) {
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.tool_use_id.as_deref() == Some(tool_use_id))
        {
            self.running = None;
        }
    }

    /// Opens a prompt's page in a browser; returns what happened, said
    /// plainly, and the address to show on a line of its own: the
    /// address the opened browser gets back in at, or a link that works
    /// once when no browser could be started.
    pub fn announce_prompt(&self, links: &ReviewLinks) -> (String, String) {
        match open_review(links, |name| std::env::var(name).ok()) {
            Ok(()) => (
                "Review page opened in your browser: decide there or here. Its address:"
                    .to_string(),
                links.address(),
            ),
            Err(why) => (
                format!(
                    "No browser could be started ({why}). To review the plan there, open this \
                     address (it works once; decide there or here):"
                ),
                links.link(),
            ),
        }
    }

    /// Opens the page in a browser (a hand-off file: no token on its
    /// command line); returns the line to show and the address in it: a
    /// link that works once when no browser could be opened, so the
    /// user can, else the address the opened browser gets back in at.
    pub fn announce(&self, links: &ReviewLinks) -> (String, String) {
        match open_review(links, |name| std::env::var(name).ok()) {
            Ok(()) => {
                let address = links.address();
                (
                    format!(
                        "Opened the plan review page in your browser (its link works once; that browser gets back in at):\n{address}"
                    ),
                    address,
                )
            }
            Err(why) => {
                let link = links.link();
                (
                    format!(
                        "Open the plan review page in a browser ({why}; the link works once):\n{link}"
                    ),
                    link,
                )
            }
        }
    }
}
