//! Checkpoints and rewinds as data: what a transcript records about the
//! project's files at a moment ([`CheckpointKind`]), and the plan
//! compliance report ([`PlanCompliance`]) that both the transcript and the
//! stream-json protocol carry. The store that takes checkpoints lives in
//! catui-core (`checkpoints`).

use serde::{Deserialize, Serialize};

/// Why a checkpoint was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointKind {
    /// Before the first change catui made after the user messages it
    /// names: their state ("rewind to this message" restores it).
    TurnStart,
    /// When a turn that changed something ended: what catui left.
    TurnEnd,
    /// The moment a plan was approved (back to the plan restores it).
    PlanApproved,
    /// Just before a rewind restored files: undoes the rewind.
    BeforeRewind,
    /// Just after a rewind restored files.
    AfterRewind,
}

impl CheckpointKind {
    /// Whether the changes since the snapshot before this one were made by
    /// catui (a turn's own work, a restore) rather than by someone else.
    pub fn follows_catui_changes(self) -> bool {
        matches!(self, CheckpointKind::TurnEnd | CheckpointKind::AfterRewind)
    }
}

/// How the implementation of an approved plan compares with the plan: the
/// stream-json `plan_compliance` event and the transcript's record of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanCompliance {
    /// The plan's slug.
    pub slug: String,
    /// Files changed since the approval that the plan never names.
    pub unplanned_files: Vec<String>,
    /// Files the plan names that are unchanged since the approval.
    pub untouched_files: Vec<String>,
    /// Numbered steps of the plan marked done.
    pub steps_done: usize,
    pub steps_total: usize,
    /// The steps not done yet, in plan order.
    #[serde(default)]
    pub undone_steps: Vec<String>,
}

impl PlanCompliance {
    /// Whether anything departs from the plan (unplanned files or steps
    /// not done).
    pub fn drifted(&self) -> bool {
        !self.unplanned_files.is_empty() || self.steps_done < self.steps_total
    }

    /// One line for a person: `plan brisk-cedar-otter: 2/3 steps, 1
    /// unplanned file, 0 untouched`.
    pub fn summary(&self) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut out = format!(
            "Plan {}: {}/{} steps done",
            self.slug, self.steps_done, self.steps_total
        );
        // Only counts that say something: no "0 unplanned files".
        if !self.unplanned_files.is_empty() {
            out.push_str(", ");
            out.push_str(&plural(
                self.unplanned_files.len(),
                "unplanned file",
                "unplanned files",
            ));
        }
        if !self.untouched_files.is_empty() {
            out.push_str(", ");
            out.push_str(&plural(
                self.untouched_files.len(),
                "planned file untouched",
                "planned files untouched",
            ));
        }
        out
    }

    /// Whether the report says anything yet: some step done or some file
    /// changed (right after an approval there is nothing to report).
    pub fn has_news(&self) -> bool {
        self.steps_done > 0 || !self.unplanned_files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_and_drift() {
        let mut c = PlanCompliance {
            slug: "a-b-c".into(),
            steps_done: 2,
            steps_total: 2,
            ..Default::default()
        };
        assert!(!c.drifted());
        c.unplanned_files.push("x.rs".into());
        assert!(c.drifted());
        assert_eq!(c.summary(), "Plan a-b-c: 2/2 steps done, 1 unplanned file");
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["unplanned_files"][0], "x.rs");
        assert_eq!(v["steps_total"], 2);
    }
}
