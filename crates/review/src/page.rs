//! What the review page shows: one plan revision awaiting the user, its
//! history (every revision shown for approval, with the approved, parked
//! and "(edited)" marks and the diff from the one before), its numbered
//! steps, the implementing model, and which decisions are open. Built
//! from an `ExitPlanMode` presentation (a live prompt), from a plan an
//! ended session left awaiting approval, or from the plan file alone.

use std::path::Path;

use catui_core::plan::approval::progress::plan_steps;
use catui_core::plan::{plan_diff, plan_hash};
use catui_core::session::plan_history;
use catui_core::session::plan_review::AwaitingPlan;
use serde::Serialize;
use serde_json::Value;

use crate::render::{Rendered, render_plan};

/// Which decisions the page offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Decisions {
    /// Approve, send back, park: the plan was presented for approval.
    All,
    /// Only sending comments back: nothing asks for approval now (the
    /// model has not presented this plan).
    SendBackOnly,
}

/// One revision in the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageRevision {
    pub number: usize,
    /// RFC 3339, empty for the revision shown now when it was not recorded.
    pub at: String,
    pub hash: String,
    pub text: String,
    /// Unified diff from the revision before (empty for the first).
    pub diff: String,
    pub approved: bool,
    pub parked: bool,
    /// Approved as the user edited it (it differs from what was shown).
    pub edited: bool,
    /// The revision under review.
    pub current: bool,
}

/// A numbered step of the plan (what "skip steps" refers to).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageStep {
    pub number: usize,
    pub text: String,
}

/// Everything the page shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewPage {
    pub title: String,
    /// The plan file.
    pub path: String,
    /// Where the plan comes from ("Session ID, ended").
    pub context: String,
    pub plan: String,
    pub hash: String,
    /// The model that will implement; `None`: the session's.
    pub model: Option<String>,
    pub decisions: Decisions,
    /// Things to say above the plan (it changed while shown, it is the
    /// text sent back before).
    pub notes: Vec<String>,
    pub revisions: Vec<PageRevision>,
    pub steps: Vec<PageStep>,
    #[serde(flatten)]
    pub rendered: Rendered,
}

impl ReviewPage {
    /// The page of `plan` (the text to review) in file `path`; its history
    /// comes from the transcripts in `sessions_dir` when given.
    pub fn new(plan: &str, path: &str, decisions: Decisions, sessions_dir: Option<&Path>) -> Self {
        let slug = Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let title = plan
            .lines()
            .map(|l| l.trim().trim_start_matches('#').trim())
            .find(|l| !l.is_empty())
            .map_or_else(|| slug.clone(), str::to_string);
        let recorded = sessions_dir
            .map(|dir| plan_history::revisions(dir, &slug))
            .unwrap_or_default();
        ReviewPage {
            title,
            path: path.to_string(),
            context: format!("Plan {slug}"),
            hash: plan_hash(plan),
            plan: plan.to_string(),
            model: None,
            decisions,
            notes: Vec::new(),
            revisions: history(&recorded, plan),
            steps: plan_steps(plan)
                .into_iter()
                .enumerate()
                .map(|(i, text)| PageStep {
                    number: i + 1,
                    text,
                })
                .collect(),
            rendered: render_plan(plan),
        }
    }

    /// The page of a live `ExitPlanMode` prompt whose input is `shown`.
    pub fn for_presentation(shown: &Value, sessions_dir: Option<&Path>) -> Self {
        let text = |key: &str| shown.get(key).and_then(Value::as_str).unwrap_or_default();
        let mut page = Self::new(
            text("plan"),
            text("planFilePath"),
            Decisions::All,
            sessions_dir,
        );
        page.context = "Waiting for your decision in catui".to_string();
        page.model = Some(text("model").to_string()).filter(|m| !m.is_empty());
        if shown.get("planChanged") == Some(&Value::Bool(true)) {
            page.notes.push(
                "The plan file changed while you were reviewing it: this is the new text."
                    .to_string(),
            );
        }
        if shown.get("planUnchanged") == Some(&Value::Bool(true)) {
            page.notes
                .push("This is the same plan you sent back: it has not changed since.".to_string());
        }
        page
    }

    /// The page of a plan an ended session left awaiting approval.
    pub fn for_ended_session(plan: &AwaitingPlan, sessions_dir: &Path) -> Self {
        let mut page = Self::new(
            &plan.plan,
            &plan.path.display().to_string(),
            Decisions::All,
            Some(sessions_dir),
        );
        page.context = format!(
            "Presented at {} in session {}, which has ended: your decision is carried out when it is resumed (catui --resume {})",
            plan.presented_at, plan.session_id, plan.session_id
        );
        page
    }

    /// The page as JSON for the page's script.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The recorded revisions followed by `current` (unless the last recorded
/// one is that text already), numbered, each with its diff from the one
/// before. A repeated presentation of the same text is kept once.
fn history(recorded: &[plan_history::Revision], current: &str) -> Vec<PageRevision> {
    let mut out: Vec<PageRevision> = Vec::new();
    for r in recorded {
        let previous = out.last();
        if let Some(last) = previous
            && last.text == r.content
        {
            // The approval or parking of the revision just shown: a mark.
            let last = out.len() - 1;
            out[last].approved |= r.approved;
            out[last].parked |= r.parked;
            continue;
        }
        let diff = previous.map_or_else(String::new, |p| plan_diff(&p.text, &r.content));
        let edited = r.approved && previous.is_some_and(|p| !p.approved && !p.parked);
        out.push(PageRevision {
            number: out.len() + 1,
            at: r.timestamp.clone(),
            hash: r.hash.clone(),
            text: r.content.clone(),
            diff,
            approved: r.approved,
            parked: r.parked,
            edited,
            current: false,
        });
    }
    if out.last().is_none_or(|r| r.text != current) {
        let diff = out
            .last()
            .map_or_else(String::new, |p| plan_diff(&p.text, current));
        out.push(PageRevision {
            number: out.len() + 1,
            at: String::new(),
            hash: plan_hash(current),
            text: current.to_string(),
            diff,
            approved: false,
            parked: false,
            edited: false,
            current: true,
        });
    } else if let Some(last) = out.last_mut() {
        last.current = true;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn revision(at: &str, content: &str, approved: bool) -> plan_history::Revision {
        plan_history::Revision {
            timestamp: at.into(),
            session_id: "s".into(),
            content: content.into(),
            hash: plan_hash(content),
            approved,
            parked: false,
        }
    }

    #[test]
    fn history_numbers_revisions_with_diffs_and_marks_edits_and_approvals() {
        let recorded = [
            revision("t1", "a\nb\n", false),
            revision("t2", "a\nc\n", false),
            // Approved as the user edited it.
            revision("t3", "a\nc\nd\n", true),
            revision("t4", "x\n", false),
        ];
        let h = history(&recorded, "x\n");
        assert_eq!(h.len(), 4);
        assert_eq!(h[0].diff, "");
        assert!(h[1].diff.contains("-b") && h[1].diff.contains("+c"));
        assert!(h[2].approved && h[2].edited);
        assert!(h[3].current && !h[3].approved);
        // An approval of the text just shown marks it, without a new row.
        let h = history(
            &[revision("t1", "a\n", false), revision("t2", "a\n", true)],
            "b\n",
        );
        assert_eq!(h.len(), 2);
        assert!(h[0].approved && !h[0].edited);
        assert!(h[1].current && h[1].diff.contains("+b"));
    }
}
