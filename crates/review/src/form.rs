//! The decision the review page sends, read into the one decision type
//! every front end produces ([`ApprovalDecision`]). The page's fields are
//! checked against the page it answers: the revision (its hash), line
//! numbers of comments and step numbers must be the page's own, and the
//! decisions must be open; anything else is refused with a sentence the
//! page shows, and nothing is decided.

use catui_core::plan::approval::decision::ApprovalDecision;
use catui_core::plan::approval::review::LineComment;
use catui_protocol::PermissionMode;
use serde::Deserialize;

use crate::page::{Decisions, ReviewPage};

/// Longest text accepted in one field (feedback, a comment, a passage).
const MAX_TEXT: usize = 20_000;
/// Most comments accepted in one decision.
const MAX_COMMENTS: usize = 500;

/// A comment as the page sends it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageComment {
    pub line: usize,
    pub text: String,
    #[serde(default)]
    pub passage: Option<String>,
}

/// The page's decision (`POST /api/decision`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PageDecision {
    /// `approve`, `keep_planning` or `park`.
    pub verdict: String,
    /// The revision answered (the page's `hash`).
    pub plan_hash: String,
    /// Approve: the mode to continue in; `None`: the mode from before.
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub clear_context: bool,
    #[serde(default)]
    pub skip_steps: Vec<usize>,
    #[serde(default)]
    pub model: Option<String>,
    /// Keep planning: the feedback; park: the note.
    #[serde(default)]
    pub feedback: String,
    #[serde(default)]
    pub comments: Vec<PageComment>,
}

fn too_long(what: &str) -> String {
    format!("The {what} is too long (at most {MAX_TEXT} characters).")
}

/// Reads `body` (JSON) as a decision on `page`.
pub fn read_decision(page: &ReviewPage, body: &[u8]) -> Result<ApprovalDecision, String> {
    let form: PageDecision = serde_json::from_slice(body)
        .map_err(|e| format!("The decision could not be read: {e}."))?;
    if form.plan_hash != page.hash {
        return Err(
            "This decision is about another revision of the plan than the one under review: reload the page."
                .to_string(),
        );
    }
    if form.feedback.chars().count() > MAX_TEXT {
        return Err(too_long("feedback"));
    }
    let mut decision = match form.verdict.as_str() {
        "keep_planning" => ApprovalDecision::keep_planning(form.feedback.trim()),
        "approve" | "park" if page.decisions != Decisions::All => {
            return Err(
                "Nothing asks for approval of this plan now: send your comments back instead."
                    .to_string(),
            );
        }
        "park" => ApprovalDecision::park(form.feedback.trim()),
        "approve" => {
            let mode = match form.mode.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(name) => Some(
                    name.parse::<PermissionMode>()
                        .map_err(|e| format!("Unknown mode {name:?}: {e}"))?,
                ),
            };
            if mode == Some(PermissionMode::Plan) {
                return Err("Approving leaves plan mode: pick another mode.".to_string());
            }
            ApprovalDecision::approve(mode)
        }
        other => return Err(format!("Unknown decision {other:?}.")),
    };
    decision.plan_hash = Some(page.hash.clone());
    if decision.verdict == catui_core::plan::approval::decision::ApprovalVerdict::Approve {
        decision.clear_context = form.clear_context;
        let mut skip = form.skip_steps;
        skip.sort_unstable();
        skip.dedup();
        if let Some(bad) = skip.iter().find(|n| **n == 0 || **n > page.steps.len()) {
            return Err(format!(
                "Step {bad} is not a step of this plan (it has {}).",
                page.steps.len()
            ));
        }
        if !page.steps.is_empty() && skip.len() == page.steps.len() {
            return Err("Skipping every step approves nothing: keep at least one.".to_string());
        }
        decision.skip_steps = skip;
        decision.model = form
            .model
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty() && Some(m) != page.model.as_ref());
    }
    if decision.verdict == catui_core::plan::approval::decision::ApprovalVerdict::KeepPlanning {
        if form.comments.len() > MAX_COMMENTS {
            return Err(format!(
                "At most {MAX_COMMENTS} comments can be sent at once."
            ));
        }
        let lines = page.plan.lines().count();
        for c in form.comments {
            if c.line == 0 || c.line > lines {
                return Err(format!(
                    "Line {} is not a line of this plan (it has {lines}).",
                    c.line
                ));
            }
            if c.text.chars().count() > MAX_TEXT {
                return Err(too_long("comment"));
            }
            if c.passage
                .as_ref()
                .is_some_and(|p| p.chars().count() > MAX_TEXT)
            {
                return Err(too_long("selected passage"));
            }
            if c.text.trim().is_empty() {
                continue;
            }
            decision.comments.push(LineComment {
                line: c.line,
                text: c.text.trim().to_string(),
                passage: c.passage.filter(|p| !p.trim().is_empty()),
            });
        }
        decision.comments.sort_by_key(|c| c.line);
    }
    Ok(decision)
}

#[cfg(test)]
#[path = "form_tests.rs"]
mod tests;
