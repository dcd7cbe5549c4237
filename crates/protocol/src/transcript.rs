//! The transcript entry format: one JSON object per line, with the
//! bookkeeping fields every entry carries ([`TranscriptEntry`]) and the
//! typed payload ([`EntryBody`]) flattened beside them.
//!
//! All keys are camelCase (`parentUuid`, `sessionId`, `isMeta`,
//! `prePlanMode`, ...); the payload kind is the snake_case `type` tag. New
//! payload kinds are new [`EntryBody`] variants; readers that meet a kind
//! they do not know keep the entry as [`EntryBody::Unknown`] instead of
//! failing, so older binaries can read newer transcripts.

use crate::checkpoint::{CheckpointKind, PlanCompliance};
use crate::{Attachment, Message, PermissionMode, Usage};
use serde::{Deserialize, Serialize};

/// One line of a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptEntry {
    /// A fresh v4 UUID.
    pub uuid: String,
    /// The uuid of the entry written just before this one in the same file
    /// (the chain that resume and fork follow); `None` for the first entry.
    #[serde(default)]
    pub parent_uuid: Option<String>,
    /// RFC 3339, UTC, millisecond precision.
    pub timestamp: String,
    pub session_id: String,
    pub cwd: String,
    /// The plan slug of the session, once one exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
    /// Set in sub-agent (sidechain) transcripts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// The git branch checked out when the transcript was opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
    #[serde(flatten)]
    pub body: EntryBody,
}

/// What an entry records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum EntryBody {
    /// A user message: a human turn, tool results, or (with `is_meta`)
    /// text the user did not type.
    User {
        message: Message,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_meta: bool,
        /// The plan text, when this message carries an approved plan
        /// (used to recover the plan on resume).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        plan_content: Option<String>,
    },
    /// A complete assistant message.
    Assistant {
        message: Message,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    /// An attachment injected before a model request.
    Attachment { attachment: Attachment },
    /// The permission mode changed.
    PermissionMode {
        mode: PermissionMode,
        #[serde(default)]
        pre_plan_mode: Option<PermissionMode>,
    },
    /// A notice from catui itself (errors, local command output, ...).
    System { subtype: String, text: String },
    /// The content of a file at a point in time (plan snapshots).
    FileSnapshot {
        key: String,
        path: String,
        content: String,
    },
    /// A compaction summary: the conversation before it is replaced by
    /// this text on resume.
    Summary { summary: String },
    /// The todo list after a TodoWrite.
    Todos { todos: serde_json::Value },
    /// The user's answer to the plan a session presented for approval,
    /// given after the session ended (the plan review page of `catui plans
    /// review`): the answer a stream-json client would have sent, carried
    /// out when the session is resumed. `path` is the plan file, `plan`
    /// the revision answered.
    PlanAnswer {
        path: String,
        plan: String,
        answer: crate::control::PermissionResponse,
    },
    /// The project's files at a moment: a commit of catui's shadow
    /// repository (in its data directory, never in the project).
    Checkpoint {
        kind: CheckpointKind,
        /// The shadow repository's commit.
        commit: String,
        /// The user messages (their entries' uuids) whose state this is
        /// (`turn_start`), or whose turn this ends (`turn_end`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        messages: Vec<String>,
        /// The approved plan (`plan_approved`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        plan_slug: Option<String>,
        /// Files changed since the turn's start (`turn_end`), relative to
        /// the project.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        changed: Vec<String>,
        /// Files left out of this checkpoint (too large, nested
        /// repositories), with why.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        skipped: Vec<String>,
        /// What a rewind went back to (`before_rewind`, `after_rewind`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<String>,
    },
    /// A rewind: the code and/or the conversation went back to the state
    /// before the user message `target` (or to the approval of a plan,
    /// `plan:SLUG`). A resume rebuilds the conversation as it was before
    /// that message when `conversation` is set.
    Rewind {
        target: String,
        code: bool,
        conversation: bool,
    },
    /// How the implementation compared with the approved plan at the end
    /// of a turn.
    PlanCompliance { report: PlanCompliance },
    /// The session's free-text goal was set (`/goal TEXT`, `--goal`) or
    /// cleared (`None`): what the goal loop checks, kept across resume and
    /// fork.
    Goal {
        #[serde(default)]
        text: Option<String>,
    },
    /// catui ran the approved plan's verification commands.
    PlanVerification {
        run: crate::contract::PlanVerification,
    },
    /// The work on an approved plan ended: its report.
    PlanReport { report: crate::contract::PlanReport },
    /// An entry of a kind this build does not know (written by a newer
    /// catui). Kept so loading never fails on it; never written.
    #[serde(other)]
    Unknown,
}

impl EntryBody {
    /// The `type` tag of this body, as written to disk.
    pub fn kind(&self) -> &'static str {
        match self {
            EntryBody::User { .. } => "user",
            EntryBody::Assistant { .. } => "assistant",
            EntryBody::Attachment { .. } => "attachment",
            EntryBody::PermissionMode { .. } => "permission_mode",
            EntryBody::System { .. } => "system",
            EntryBody::FileSnapshot { .. } => "file_snapshot",
            EntryBody::Summary { .. } => "summary",
            EntryBody::Todos { .. } => "todos",
            EntryBody::PlanAnswer { .. } => "plan_answer",
            EntryBody::Checkpoint { .. } => "checkpoint",
            EntryBody::Rewind { .. } => "rewind",
            EntryBody::PlanCompliance { .. } => "plan_compliance",
            EntryBody::Goal { .. } => "goal",
            EntryBody::PlanVerification { .. } => "plan_verification",
            EntryBody::PlanReport { .. } => "plan_report",
            EntryBody::Unknown => "unknown",
        }
    }

    /// A plain user message (not meta, no plan).
    pub fn user(message: Message) -> Self {
        EntryBody::User {
            message,
            is_meta: false,
            plan_content: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(body: EntryBody) -> TranscriptEntry {
        TranscriptEntry {
            uuid: "u2".into(),
            parent_uuid: Some("u1".into()),
            timestamp: "2025-01-02T03:04:05.678Z".into(),
            session_id: "s1".into(),
            cwd: "/repo".into(),
            slug: Some("calm-blue-river".into()),
            agent_id: None,
            git_branch: None,
            body,
        }
    }

    #[test]
    fn keys_are_camel_case_and_type_is_flattened() {
        let e = entry(EntryBody::User {
            message: Message::user_text("hi"),
            is_meta: true,
            plan_content: Some("# Plan".into()),
        });
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(
            v,
            json!({
                "uuid": "u2", "parentUuid": "u1", "timestamp": "2025-01-02T03:04:05.678Z",
                "sessionId": "s1", "cwd": "/repo", "slug": "calm-blue-river",
                "type": "user",
                "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                "isMeta": true, "planContent": "# Plan"
            })
        );
        let back: TranscriptEntry = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
    }

    #[test]
    fn permission_mode_uses_wire_names() {
        let e = entry(EntryBody::PermissionMode {
            mode: PermissionMode::Plan,
            pre_plan_mode: Some(PermissionMode::AcceptEdits),
        });
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], "permission_mode");
        assert_eq!(v["mode"], "plan");
        assert_eq!(v["prePlanMode"], "acceptEdits");
        assert_eq!(serde_json::from_value::<TranscriptEntry>(v).unwrap(), e);
    }

    #[test]
    fn every_kind_round_trips() {
        let bodies = vec![
            EntryBody::Assistant {
                message: Message::assistant_text("ok"),
                usage: Some(Usage {
                    input_tokens: 3,
                    output_tokens: 4,
                    ..Usage::default()
                }),
                model: Some("m".into()),
            },
            EntryBody::Attachment {
                attachment: Attachment::PlanModeReentry {
                    plan_file_path: "/p.md".into(),
                },
            },
            EntryBody::System {
                subtype: "error".into(),
                text: "boom".into(),
            },
            EntryBody::FileSnapshot {
                key: "plan".into(),
                path: "/p.md".into(),
                content: "x".into(),
            },
            EntryBody::Summary {
                summary: "earlier".into(),
            },
            EntryBody::Todos {
                todos: json!([{"content": "a", "status": "pending"}]),
            },
            EntryBody::Checkpoint {
                kind: CheckpointKind::TurnEnd,
                commit: "abc".into(),
                messages: vec!["u1".into()],
                plan_slug: None,
                changed: vec!["src/a.rs".into()],
                skipped: Vec::new(),
                target: None,
            },
            EntryBody::Rewind {
                target: "u1".into(),
                code: true,
                conversation: false,
            },
            EntryBody::PlanCompliance {
                report: PlanCompliance {
                    slug: "a-b-c".into(),
                    steps_total: 3,
                    ..Default::default()
                },
            },
        ];
        for body in bodies {
            let e = entry(body.clone());
            let v = serde_json::to_value(&e).unwrap();
            assert_eq!(v["type"], body.kind());
            assert_eq!(serde_json::from_value::<TranscriptEntry>(v).unwrap(), e);
        }
    }

    #[test]
    fn unknown_kinds_load_as_unknown() {
        let line = r#"{"uuid":"a","parentUuid":null,"timestamp":"t","sessionId":"s","cwd":"/","type":"from_the_future","extra":{"x":1}}"#;
        let e: TranscriptEntry = serde_json::from_str(line).unwrap();
        assert_eq!(e.body, EntryBody::Unknown);
        assert_eq!(e.uuid, "a");
    }
}
