//! What a rewind did, or would do (a dry run, the picker's preview):
//! the files it restores and deletes with their line counts, and the one
//! line the user reads afterwards. Every target is named in words (a
//! message's text, a plan's name, the rewind an undo takes back), never
//! by an internal id: ids are for scripts (`--rewind-to`), not for people.

use std::path::PathBuf;

use super::line::Line;
use super::shadow::FileLines;
use super::target::RewindTarget;

/// How deep "the undo of the undo of …" goes before it says "an earlier
/// rewind" (a chain of undos is rare; a cycle must not loop).
const MAX_UNDO_DEPTH: usize = 3;

/// What a rewind did (or, dry, would do).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RewindReport {
    /// The point gone back to, in words (`"fix the parser"`, `plan
    /// brisk-cedar-otter as approved`, `just before the rewind to "…"`).
    pub target: String,
    pub dry_run: bool,
    /// Files written back.
    pub restored: Vec<String>,
    /// Files deleted (they did not exist at the point).
    pub deleted: Vec<String>,
    /// Files changed outside catui since the point (overwritten only when
    /// forced).
    pub outside: Vec<String>,
    /// Files left as they are: not in the checkpoints (too large, nested
    /// repositories).
    pub kept: Vec<String>,
    /// Paths refused for safety (a symlinked folder on the way).
    pub refused: Vec<String>,
    /// Lines the restore adds and removes.
    pub insertions: u64,
    pub deletions: u64,
    /// The same, per file restored or deleted, relative to the files as
    /// they are now (what the picker's preview shows).
    pub files: Vec<FileLines>,
    /// The rewind undoes an earlier one: that rewind in words ("the
    /// rewind to \"fix the parser\"").
    pub undone: Option<String>,
    /// The conversation was rewound; `prompt` is the message's text, for
    /// the user to edit and send again.
    pub conversation: bool,
    pub prompt: Option<String>,
    /// Back to a plan: the plan file that holds the approved plan again.
    pub plan_file: Option<PathBuf>,
}

impl RewindReport {
    /// One line for the user.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        let (restore, delete) = if self.dry_run {
            ("would restore", "would delete")
        } else {
            ("restored", "deleted")
        };
        if !self.restored.is_empty() {
            parts.push(format!("{restore} {}", files(self.restored.len())));
        }
        if !self.deleted.is_empty() {
            parts.push(format!(
                "{delete} {} created since",
                files(self.deleted.len())
            ));
        }
        if parts.is_empty() && !self.conversation && self.plan_file.is_none() {
            parts.push("no file differs from that point".to_string());
        }
        if self.conversation {
            parts.push("the conversation goes back to before that message".to_string());
        }
        if let Some(plan) = &self.plan_file {
            parts.push(format!(
                "plan mode again, with the approved plan in {}",
                plan.display()
            ));
        }
        if !self.kept.is_empty() {
            parts.push(format!("left as they are: {}", self.kept.join(", ")));
        }
        if !self.refused.is_empty() {
            parts.push(format!("not touched: {}", self.refused.join(", ")));
        }
        match &self.undone {
            Some(undone) if self.dry_run => format!("Would undo {undone}: {}.", parts.join("; ")),
            Some(undone) => format!("Undid {undone}: {}.", parts.join("; ")),
            None => format!("Rewind to {}: {}.", self.target, parts.join("; ")),
        }
    }
}

/// "1 file", "3 files".
fn files(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}

/// `target` in the user's words: a message's text in quotes, a plan by
/// name, or (for an undo) the moment just before the rewind it undoes.
pub(super) fn target_words(line: &Line, target: &RewindTarget) -> String {
    match target {
        RewindTarget::Message(uuid) => line
            .prompt(uuid)
            .map(|p| format!("\"{}\"", one_line(&p.text, 60)))
            .unwrap_or_else(|| "an earlier message".to_string()),
        RewindTarget::Plan {
            slug: Some(s),
            approval: Some(n),
        } if *n > 1 => format!("plan {s} as approved the {} time", ordinal(*n)),
        RewindTarget::Plan { slug: Some(s), .. } => format!("plan {s} as approved"),
        RewindTarget::Plan { slug: None, .. } => "the approved plan".to_string(),
        RewindTarget::BeforeRewind(entry) => format!("just before {}", rewind_words(line, entry)),
    }
}

/// The rewind whose before-checkpoint is the entry `entry`, in words:
/// `the rewind to "fix the parser"`, `the undo of the rewind to …`.
pub(super) fn rewind_words(line: &Line, entry: &str) -> String {
    rewind_words_at(line, entry, 0)
}

fn rewind_words_at(line: &Line, entry: &str, depth: usize) -> String {
    let target = line
        .by_entry(entry)
        .and_then(|i| line.records[i].target.as_deref())
        .map(RewindTarget::parse);
    match target {
        Some(RewindTarget::BeforeRewind(inner)) if depth < MAX_UNDO_DEPTH => {
            format!("the undo of {}", rewind_words_at(line, &inner, depth + 1))
        }
        Some(RewindTarget::BeforeRewind(_)) | None => "an earlier rewind".to_string(),
        Some(target) => format!("the rewind to {}", target_words(line, &target)),
    }
}

/// One line of `text`, at most `max` characters.
pub(super) fn one_line(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() <= max {
        line.to_string()
    } else {
        let cut: String = line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// "second", "third", ... for the label of a plan approved again.
pub(super) fn ordinal(n: usize) -> String {
    match n {
        2 => "second".into(),
        3 => "third".into(),
        n => format!("{n}th"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoints::line::{Prompt, Record};
    use catui_protocol::checkpoint::CheckpointKind;

    fn before_rewind(entry: &str, target: &str) -> Record {
        Record {
            entry: entry.into(),
            timestamp: String::new(),
            kind: CheckpointKind::BeforeRewind,
            commit: "c".into(),
            messages: Vec::new(),
            plan_slug: None,
            changed: Vec::new(),
            skipped: Vec::new(),
            target: Some(target.into()),
        }
    }

    #[test]
    fn an_undo_is_named_by_the_rewind_it_takes_back_never_by_an_id() {
        let mut line = Line::default();
        line.add_prompt(Prompt {
            uuid: "1a8fe278-0000-4000-8000-000000000000".into(),
            text: "make the helpers\nand more".into(),
            timestamp: String::new(),
            rewound: false,
        });
        line.push(before_rewind("e1", "1a8fe278-0000-4000-8000-000000000000"));
        line.push(before_rewind("e2", "undo:e1"));
        line.push(before_rewind("e3", "plan:brisk-cedar-otter#2"));
        line.push(before_rewind("loop", "undo:loop"));
        let undo = |e: &str| target_words(&line, &RewindTarget::BeforeRewind(e.into()));
        assert_eq!(undo("e1"), "just before the rewind to \"make the helpers\"");
        assert_eq!(
            undo("e2"),
            "just before the undo of the rewind to \"make the helpers\""
        );
        assert_eq!(
            undo("e3"),
            "just before the rewind to plan brisk-cedar-otter as approved the second time"
        );
        let looped = undo("loop");
        assert!(looped.ends_with("an earlier rewind"), "{looped}");
        assert!(!undo("unknown").contains("unknown"));

        let report = RewindReport {
            target: undo("e1"),
            undone: Some(rewind_words(&line, "e1")),
            restored: vec!["src/util.rs".into()],
            deleted: vec!["a.rs".into(), "b.rs".into()],
            ..RewindReport::default()
        };
        assert_eq!(
            report.summary(),
            "Undid the rewind to \"make the helpers\": restored 1 file; deleted 2 files created since."
        );
    }
}
