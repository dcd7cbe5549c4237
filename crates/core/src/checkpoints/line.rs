//! A session's line of checkpoints as its transcript records it: the
//! user's messages, the checkpoints taken for them (and for plan
//! approvals and rewinds), the messages still waiting for one, and the
//! approved plan whose implementation is being compared with it. Built
//! from the entries on resume and fork, then kept up to date as the
//! session goes on.

use catui_protocol::checkpoint::CheckpointKind;
use catui_protocol::transcript::{EntryBody, TranscriptEntry};
use catui_protocol::{ContentBlock, Message, PermissionMode};

use crate::plan::contract::PLAN_APPROVED_KEY;

/// One checkpoint (a `checkpoint` entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The transcript entry's uuid.
    pub entry: String,
    pub timestamp: String,
    pub kind: CheckpointKind,
    pub commit: String,
    pub messages: Vec<String>,
    pub plan_slug: Option<String>,
    pub changed: Vec<String>,
    pub skipped: Vec<String>,
    pub target: Option<String>,
}

impl Record {
    /// The transcript body of this record.
    pub fn body(&self) -> EntryBody {
        EntryBody::Checkpoint {
            kind: self.kind,
            commit: self.commit.clone(),
            messages: self.messages.clone(),
            plan_slug: self.plan_slug.clone(),
            changed: self.changed.clone(),
            skipped: self.skipped.clone(),
            target: self.target.clone(),
        }
    }
}

/// A message the user typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub uuid: String,
    pub text: String,
    pub timestamp: String,
    /// A conversation rewind took this message back: it is no longer in
    /// the conversation, so it is no point to go back to.
    pub rewound: bool,
}

/// The approved plan the work is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Baseline {
    pub slug: String,
    /// The checkpoint taken at approval.
    pub commit: String,
    /// The approved text.
    pub plan: String,
    /// A report was made since the approval (a later `/clear` ends the
    /// comparison; the clear of "approve and start clean" comes before).
    pub reported: bool,
}

/// See the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Line {
    pub records: Vec<Record>,
    pub prompts: Vec<Prompt>,
    /// Messages since the last `turn_start` checkpoint.
    pub pending: Vec<String>,
    pub baseline: Option<Baseline>,
    /// Each approved plan's text, by slug, in order of approval.
    pub approved: Vec<(String, String)>,
}

/// Whether a user message is one the user typed (not tool results, not
/// catui's own notes).
pub fn is_prompt(message: &Message) -> bool {
    let mut text = false;
    for block in &message.content {
        match block {
            ContentBlock::ToolResult { .. } => return false,
            ContentBlock::Text { .. } => text = true,
            _ => {}
        }
    }
    text
}

impl Line {
    /// The line as recorded in `entries`.
    pub fn from_entries(entries: &[TranscriptEntry]) -> Line {
        let mut line = Line::default();
        let mut approved_text: Option<String> = None;
        for entry in entries {
            match &entry.body {
                EntryBody::User {
                    message,
                    is_meta: false,
                    ..
                } if is_prompt(message) => line.add_prompt(Prompt {
                    uuid: entry.uuid.clone(),
                    text: message.text(),
                    timestamp: entry.timestamp.clone(),
                    rewound: false,
                }),
                EntryBody::Rewind {
                    target,
                    conversation: true,
                    ..
                } => line.rewind_conversation(target),
                EntryBody::FileSnapshot { key, content, .. } if key == PLAN_APPROVED_KEY => {
                    approved_text = Some(content.clone());
                }
                EntryBody::Checkpoint {
                    kind,
                    commit,
                    messages,
                    plan_slug,
                    changed,
                    skipped,
                    target,
                } => {
                    let record = Record {
                        entry: entry.uuid.clone(),
                        timestamp: entry.timestamp.clone(),
                        kind: *kind,
                        commit: commit.clone(),
                        messages: messages.clone(),
                        plan_slug: plan_slug.clone(),
                        changed: changed.clone(),
                        skipped: skipped.clone(),
                        target: target.clone(),
                    };
                    if *kind == CheckpointKind::PlanApproved {
                        line.approved.push((
                            plan_slug.clone().unwrap_or_default(),
                            approved_text.clone().unwrap_or_default(),
                        ));
                        line.baseline = Some(Baseline {
                            slug: plan_slug.clone().unwrap_or_default(),
                            commit: commit.clone(),
                            plan: approved_text.clone().unwrap_or_default(),
                            reported: false,
                        });
                    }
                    line.push(record);
                }
                EntryBody::PlanCompliance { .. } => {
                    if let Some(b) = &mut line.baseline {
                        b.reported = true;
                    }
                }
                EntryBody::System { subtype, .. }
                    if subtype == crate::engine::CONVERSATION_CLEARED
                        && line.baseline.as_ref().is_some_and(|b| b.reported) =>
                {
                    line.baseline = None;
                }
                EntryBody::PermissionMode {
                    mode: PermissionMode::Plan,
                    ..
                } => line.baseline = None,
                _ => {}
            }
        }
        line
    }

    pub fn add_prompt(&mut self, prompt: Prompt) {
        self.pending.push(prompt.uuid.clone());
        self.prompts.push(prompt);
    }

    /// The conversation went back to before message `uuid`: it and every
    /// message after it are rewound.
    pub fn rewind_conversation(&mut self, uuid: &str) {
        if let Some(at) = self.prompts.iter().position(|p| p.uuid == uuid) {
            for p in &mut self.prompts[at..] {
                p.rewound = true;
            }
        }
    }

    /// Adds a checkpoint; a `turn_start` settles the messages it names.
    pub fn push(&mut self, record: Record) {
        if record.kind == CheckpointKind::TurnStart {
            self.pending.retain(|m| !record.messages.contains(m));
        }
        self.records.push(record);
    }

    /// The index of the checkpoint that holds the files as they were at
    /// message `uuid`: the first taken after it (before catui's first
    /// change since).
    pub fn start_of(&self, uuid: &str) -> Option<usize> {
        self.records.iter().position(|r| {
            r.kind == CheckpointKind::TurnStart && r.messages.iter().any(|m| m == uuid)
        })
    }

    /// The index of an approval of plan `slug` (of any plan when `None`):
    /// the `nth` (from 1, in order), or the last when `None`.
    pub fn approval(&self, slug: Option<&str>, nth: Option<usize>) -> Option<usize> {
        let mut approvals = self.records.iter().enumerate().filter(|(_, r)| {
            r.kind == CheckpointKind::PlanApproved
                && slug.is_none_or(|s| r.plan_slug.as_deref() == Some(s))
        });
        match nth {
            None => approvals.next_back().map(|(i, _)| i),
            Some(0) => None,
            Some(n) => approvals.nth(n - 1).map(|(i, _)| i),
        }
    }

    /// The text approved at the approval checkpoint `index` (approvals and
    /// their texts are kept in the same order).
    pub fn approved_text_at(&self, index: usize) -> Option<&str> {
        let nth = self
            .records
            .get(..=index)?
            .iter()
            .filter(|r| r.kind == CheckpointKind::PlanApproved)
            .count();
        let nth = nth.checked_sub(1)?;
        self.approved.get(nth).map(|(_, text)| text.as_str())
    }

    /// The index of the checkpoint whose entry is `entry`.
    pub fn by_entry(&self, entry: &str) -> Option<usize> {
        self.records.iter().position(|r| r.entry == entry)
    }

    /// The files the turn of message `uuid` changed.
    pub fn changed_by(&self, uuid: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.records {
            if r.kind == CheckpointKind::TurnEnd && r.messages.iter().any(|m| m == uuid) {
                for f in &r.changed {
                    if !out.contains(f) {
                        out.push(f.clone());
                    }
                }
            }
        }
        out
    }

    /// The approved text of plan `slug` (the last approved when `None`).
    pub fn approved_text(&self, slug: Option<&str>) -> Option<&str> {
        self.approved
            .iter()
            .rev()
            .find(|(s, _)| slug.is_none_or(|want| s == want))
            .map(|(_, text)| text.as_str())
    }

    pub fn prompt(&self, uuid: &str) -> Option<&Prompt> {
        self.prompts.iter().find(|p| p.uuid == uuid)
    }

    /// The last checkpoint's commit.
    pub fn last_commit(&self) -> Option<&str> {
        self.records.last().map(|r| r.commit.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(uuid: &str, body: EntryBody) -> TranscriptEntry {
        TranscriptEntry {
            uuid: uuid.into(),
            parent_uuid: None,
            timestamp: format!("2026-01-01T00:00:0{}.000Z", uuid.len() % 10),
            session_id: "s".into(),
            cwd: "/p".into(),
            slug: None,
            agent_id: None,
            git_branch: None,
            body,
        }
    }

    fn checkpoint(kind: CheckpointKind, commit: &str, messages: &[&str]) -> EntryBody {
        EntryBody::Checkpoint {
            kind,
            commit: commit.into(),
            messages: messages.iter().map(|m| m.to_string()).collect(),
            plan_slug: (kind == CheckpointKind::PlanApproved).then(|| "a-b-c".to_string()),
            changed: vec!["x.rs".into()],
            skipped: Vec::new(),
            target: None,
        }
    }

    #[test]
    fn messages_wait_for_the_next_turn_start() {
        let entries = vec![
            entry("m1", EntryBody::user(Message::user_text("one"))),
            entry(
                "r1",
                EntryBody::user(Message {
                    role: catui_protocol::Role::User,
                    content: vec![ContentBlock::tool_result("t", "ok", false)],
                }),
            ),
            entry("m2", EntryBody::user(Message::user_text("two"))),
            entry(
                "c1",
                checkpoint(CheckpointKind::TurnStart, "aaa", &["m1", "m2"]),
            ),
            entry("c2", checkpoint(CheckpointKind::TurnEnd, "bbb", &["m2"])),
            entry("m3", EntryBody::user(Message::user_text("three"))),
        ];
        let line = Line::from_entries(&entries);
        assert_eq!(line.prompts.len(), 3, "tool results are not prompts");
        assert_eq!(line.pending, ["m3"]);
        assert_eq!(line.start_of("m1"), Some(0));
        assert_eq!(line.start_of("m2"), Some(0));
        assert_eq!(line.start_of("m3"), None);
        assert_eq!(line.changed_by("m2"), ["x.rs"]);
        assert_eq!(line.last_commit(), Some("bbb"));
    }

    #[test]
    fn the_baseline_follows_approvals_plan_mode_and_clear() {
        let approved = EntryBody::FileSnapshot {
            key: PLAN_APPROVED_KEY.into(),
            path: "/plans/a-b-c.md".into(),
            content: "# Plan\n1. x\n".into(),
        };
        let cleared = EntryBody::System {
            subtype: crate::engine::CONVERSATION_CLEARED.into(),
            text: "cleared".into(),
        };
        let report = EntryBody::PlanCompliance {
            report: Default::default(),
        };
        let mut entries = vec![
            entry("s1", approved),
            entry("c1", checkpoint(CheckpointKind::PlanApproved, "aaa", &[])),
            // "Approve and start clean" clears before any report.
            entry("x1", cleared.clone()),
        ];
        let line = Line::from_entries(&entries);
        let baseline = line.baseline.unwrap();
        assert_eq!(baseline.plan, "# Plan\n1. x\n");
        assert_eq!(baseline.commit, "aaa");
        entries.push(entry("p1", report));
        assert!(Line::from_entries(&entries).baseline.is_some());
        entries.push(entry("x2", cleared));
        assert!(
            Line::from_entries(&entries).baseline.is_none(),
            "/clear ends it"
        );
        entries.truncate(4);
        entries.push(entry(
            "mode",
            EntryBody::PermissionMode {
                mode: PermissionMode::Plan,
                pre_plan_mode: None,
            },
        ));
        assert!(
            Line::from_entries(&entries).baseline.is_none(),
            "a new plan ends it"
        );
    }
}
