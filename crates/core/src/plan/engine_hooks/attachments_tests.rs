//! Tests of the plan-mode attachment decisions, driven by a small model of
//! the engine: each request appends the rendered attachments to the last
//! user message, exactly as `engine::inject_attachments` does.

use std::path::PathBuf;

use catui_protocol::attachment::ReminderType;
use catui_protocol::{Attachment, ContentBlock, Message, PermissionMode, Role};
use serde_json::json;

use super::*;
use crate::plan::prompts::{PlanModeConfig, PlanVariant, PromptOptions};

struct Sim {
    messages: Vec<Message>,
    meta: Vec<usize>,
    state: PlanState,
    mode: PermissionMode,
    plan_exists: bool,
    is_sub_agent: bool,
    path: PathBuf,
    config: PlanModeConfig,
}

impl Sim {
    fn new(mode: PermissionMode) -> Self {
        Self {
            messages: Vec::new(),
            meta: Vec::new(),
            state: PlanState::new(),
            mode,
            plan_exists: false,
            is_sub_agent: false,
            path: PathBuf::from("/home/u/.catui/plans/brisk-cedar-otter.md"),
            config: PlanModeConfig::default(),
        }
    }

    /// One model request: decide, render, append like the engine does.
    fn request(&mut self) -> Vec<Attachment> {
        let input = PlanAttachmentInput {
            messages: &self.messages,
            meta_message_indices: &self.meta,
            mode: self.mode,
            is_sub_agent: self.is_sub_agent,
            plan_file_path: &self.path,
            plan_exists: self.plan_exists,
        };
        let found = plan_attachments(&input, &self.state);
        let options = PromptOptions::new(
            self.path.to_string_lossy(),
            self.plan_exists,
            self.is_sub_agent,
            &self.config,
        );
        for a in &found {
            let text = wrap_system_reminder(&render_attachment(a, &options));
            match self.messages.last_mut() {
                Some(last) if last.role == Role::User => {
                    last.content.push(ContentBlock::text(text))
                }
                _ => self.messages.push(Message::user_text(text)),
            }
        }
        found
    }

    /// A human turn with `tool_loops` tool round trips; returns the
    /// attachments of every request of the turn.
    fn turn(&mut self, tool_loops: usize) -> Vec<Vec<Attachment>> {
        self.messages.push(Message::user_text("please continue"));
        let mut per_request = vec![self.request()];
        for k in 0..tool_loops {
            self.messages.push(Message {
                role: Role::Assistant,
                content: vec![ContentBlock::ToolUse {
                    id: format!("t{k}"),
                    name: "Read".into(),
                    input: json!({"file_path": "/x"}),
                }],
            });
            self.messages.push(Message {
                role: Role::User,
                content: vec![ContentBlock::tool_result(format!("t{k}"), "ok", false)],
            });
            per_request.push(self.request());
        }
        self.messages.push(Message::assistant_text("done"));
        per_request
    }

    fn set_mode(&mut self, to: PermissionMode) {
        self.state.handle_plan_mode_transition(self.mode, to);
        self.mode = to;
    }
}

fn reminder_type(a: &Attachment) -> Option<ReminderType> {
    match a {
        Attachment::PlanMode { reminder_type, .. } => Some(*reminder_type),
        _ => None,
    }
}

/// The human turns (1-based) that got a plan_mode attachment, with its type.
fn cadence(sim: &mut Sim, turns: usize, tool_loops: usize) -> Vec<(usize, ReminderType)> {
    let mut out = Vec::new();
    for t in 1..=turns {
        let requests = sim.turn(tool_loops);
        for (i, found) in requests.iter().enumerate() {
            if i > 0 {
                assert!(
                    found.is_empty(),
                    "tool-loop request {i} of turn {t} got {found:?}"
                );
            }
        }
        if let Some(rt) = requests[0].iter().find_map(reminder_type) {
            out.push((t, rt));
        }
    }
    out
}

#[test]
fn twelve_turns_get_reminders_at_1_6_11_only() {
    let mut sim = Sim::new(PermissionMode::Plan);
    let got = cadence(&mut sim, 12, 2);
    use ReminderType::*;
    assert_eq!(got, vec![(1, Full), (6, Sparse), (11, Sparse)]);
    assert_eq!(sim.state.reminders_sent(), (1, 2));
}

#[test]
fn sixth_attachment_at_turn_26_is_full_again() {
    let mut sim = Sim::new(PermissionMode::Plan);
    let got = cadence(&mut sim, 26, 1);
    use ReminderType::*;
    assert_eq!(
        got,
        vec![
            (1, Full),
            (6, Sparse),
            (11, Sparse),
            (16, Sparse),
            (21, Sparse),
            (26, Full)
        ]
    );
}

#[test]
fn cadence_survives_resume_from_the_transcript() {
    let mut sim = Sim::new(PermissionMode::Plan);
    cadence(&mut sim, 7, 1); // attachments at 1 (full) and 6 (sparse)
    // Round-trip the conversation through JSON, like a transcript, and
    // continue with fresh in-memory state.
    let saved = serde_json::to_string(&sim.messages).unwrap();
    let mut resumed = Sim::new(PermissionMode::Plan);
    resumed.messages = serde_json::from_str(&saved).unwrap();
    let got = cadence(&mut resumed, 9, 0);
    // Turns 8..=16 of the session: the next ones are 11 and 16, both sparse.
    assert_eq!(
        got,
        vec![(4, ReminderType::Sparse), (9, ReminderType::Sparse)]
    );
}

#[test]
fn no_plan_mode_attachment_outside_plan_mode() {
    let mut sim = Sim::new(PermissionMode::Default);
    for _ in 0..6 {
        assert!(sim.turn(1).iter().all(Vec::is_empty));
    }
}

#[test]
fn plan_exists_is_reported() {
    let mut sim = Sim::new(PermissionMode::Plan);
    let found = sim.turn(0).remove(0);
    assert!(matches!(
        found[..],
        [Attachment::PlanMode {
            plan_exists: false,
            ..
        }]
    ));
    let mut sim = Sim::new(PermissionMode::Plan);
    sim.plan_exists = true;
    let found = sim.turn(0).remove(0);
    assert!(matches!(
        found[..],
        [Attachment::PlanMode {
            plan_exists: true,
            ..
        }]
    ));
    let text = sim.messages[0].content[1].clone();
    let ContentBlock::Text { text } = text else {
        panic!()
    };
    assert!(text.contains("already exists"));
}

#[test]
fn entering_plan_mode_mid_turn_injects_at_the_next_request() {
    let mut sim = Sim::new(PermissionMode::Default);
    sim.messages.push(Message::user_text("plan a refactor"));
    assert!(sim.request().is_empty());
    // EnterPlanMode runs in the tool loop.
    sim.set_mode(PermissionMode::Plan);
    sim.messages.push(Message::assistant_text("entering"));
    sim.messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::tool_result("e1", "Entered plan mode.", false)],
    });
    let found = sim.request();
    assert!(matches!(
        found[..],
        [Attachment::PlanMode {
            reminder_type: ReminderType::Full,
            ..
        }]
    ));
}

#[test]
fn exit_attachment_once_then_reentry_before_full_reminder() {
    let mut sim = Sim::new(PermissionMode::Default);
    sim.set_mode(PermissionMode::Plan);
    sim.turn(0);
    sim.plan_exists = true;
    // ExitPlanMode approved in the tool loop of turn 2.
    sim.messages.push(Message::user_text("looks fine, go"));
    sim.request();
    sim.state.record_plan_approved_exit();
    sim.set_mode(PermissionMode::AcceptEdits);
    sim.messages
        .push(Message::assistant_text("calling ExitPlanMode"));
    sim.messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::tool_result("x1", "approved", false)],
    });
    let found = sim.request();
    assert_eq!(
        found,
        vec![Attachment::PlanModeExit {
            plan_file_path: sim.path.to_string_lossy().into_owned(),
            plan_exists: true,
            parked: false,
        }]
    );
    assert!(
        !sim.state.needs_plan_mode_exit_attachment(),
        "flag consumed"
    );
    assert!(
        sim.turn(1).iter().all(Vec::is_empty),
        "exit is sent only once"
    );

    // Re-enter two turns later: announced at once, re-entry first, full again.
    sim.set_mode(PermissionMode::Plan);
    let found = sim.turn(0).remove(0);
    assert!(matches!(
        found[..],
        [
            Attachment::PlanModeReentry { .. },
            Attachment::PlanMode {
                reminder_type: ReminderType::Full,
                ..
            }
        ]
    ));
    assert!(
        !sim.state.has_exited_plan_mode_in_session(),
        "re-entry flag consumed"
    );
    // And the cadence restarts from there.
    let later = cadence(&mut sim, 5, 0);
    assert_eq!(later, vec![(5, ReminderType::Sparse)]);
}

#[test]
fn no_reentry_without_a_plan_file() {
    let mut sim = Sim::new(PermissionMode::Plan);
    sim.turn(0);
    sim.state.record_plan_approved_exit();
    sim.set_mode(PermissionMode::Default);
    sim.turn(0);
    sim.set_mode(PermissionMode::Plan);
    let found = sim.turn(0).remove(0);
    assert!(matches!(found[..], [Attachment::PlanMode { .. }]));
    assert!(
        sim.state.has_exited_plan_mode_in_session(),
        "kept for a later re-entry"
    );
}

#[test]
fn exit_flag_is_dropped_when_back_in_plan_mode() {
    let sim = Sim::new(PermissionMode::Plan);
    sim.state.set_needs_plan_mode_exit_attachment(true);
    let input = PlanAttachmentInput {
        messages: &[],
        meta_message_indices: &[],
        mode: PermissionMode::Plan,
        is_sub_agent: false,
        plan_file_path: &sim.path,
        plan_exists: false,
    };
    assert!(plan_mode_exit_attachments(&input, &sim.state).is_empty());
    assert!(!sim.state.needs_plan_mode_exit_attachment());
}

#[test]
fn only_real_human_input_counts_as_a_turn() {
    let reminder = wrap_system_reminder("something else");
    assert!(is_human_turn(&Message::user_text("hi"), false));
    assert!(!is_human_turn(&Message::user_text("hi"), true), "meta");
    assert!(
        !is_human_turn(&Message::user_text(reminder.clone()), false),
        "reminder only"
    );
    assert!(!is_human_turn(&Message::assistant_text("hi"), false));
    let tool = Message {
        role: Role::User,
        content: vec![
            ContentBlock::tool_result("t", "ok", false),
            ContentBlock::text("note"),
        ],
    };
    assert!(!is_human_turn(&tool, false), "tool results");
    let image = Message {
        role: Role::User,
        content: vec![
            ContentBlock::Image { source: json!({}) },
            ContentBlock::text(reminder),
        ],
    };
    assert!(is_human_turn(&image, false));

    // Meta and reminder-only messages do not advance the throttle.
    let mut sim = Sim::new(PermissionMode::Plan);
    sim.turn(0);
    for _ in 0..6 {
        sim.meta.push(sim.messages.len());
        sim.messages
            .push(Message::user_text("<command-name>/mode</command-name>"));
        sim.messages.push(Message::user_text(wrap_system_reminder(
            "todo list changed",
        )));
    }
    assert_eq!(
        turns_since_last_plan_mode_attachment(&sim.messages, &sim.meta),
        (0, true)
    );
}

#[test]
fn sub_agent_gets_its_own_reminder_and_leaves_session_flags_alone() {
    let mut sim = Sim::new(PermissionMode::Plan);
    sim.is_sub_agent = true;
    sim.path = PathBuf::from("/p/brisk-cedar-otter-agent-a1.md");
    sim.state.record_plan_approved_exit();
    sim.plan_exists = true;
    let found = sim.turn(0).remove(0);
    assert!(matches!(
        found[..],
        [Attachment::PlanMode {
            is_sub_agent: true,
            ..
        }]
    ));
    let ContentBlock::Text { text } = &sim.messages[0].content[1] else {
        panic!()
    };
    assert!(text.contains("/p/brisk-cedar-otter-agent-a1.md"));
    assert!(text.contains("sub-agent"));
    assert!(sim.state.has_exited_plan_mode_in_session());
    sim.mode = PermissionMode::Default;
    assert!(sim.turn(0)[0].is_empty());
    assert!(sim.state.needs_plan_mode_exit_attachment());
}

#[test]
fn auto_mode_exit_once_and_only_when_auto_is_off() {
    let s = PlanState::new();
    assert!(auto_mode_exit_attachments(&s, false).is_empty());
    s.set_needs_auto_mode_exit_attachment(true);
    assert!(auto_mode_exit_attachments(&s, true).is_empty());
    assert!(!s.needs_auto_mode_exit_attachment());
    s.set_needs_auto_mode_exit_attachment(true);
    assert_eq!(
        auto_mode_exit_attachments(&s, false),
        vec![Attachment::AutoModeExit]
    );
    assert!(auto_mode_exit_attachments(&s, false).is_empty());
}

#[test]
fn every_rendered_attachment_is_recognised_by_its_marker() {
    let path = "/p/a-b-c.md".to_string();
    let mut cases = vec![
        (
            Attachment::PlanModeReentry {
                plan_file_path: path.clone(),
            },
            ReminderKind::PlanModeReentry,
        ),
        (
            Attachment::PlanModeExit {
                plan_file_path: path.clone(),
                plan_exists: true,
                parked: false,
            },
            ReminderKind::PlanModeExit,
        ),
        (
            Attachment::PlanFileReference {
                plan_file_path: path.clone(),
                plan_content: "# Plan".into(),
                approved: false,
                file_changed: false,
            },
            ReminderKind::PlanFileReference,
        ),
        (Attachment::AutoModeExit, ReminderKind::AutoModeExit),
    ];
    for reminder_type in [ReminderType::Full, ReminderType::Sparse] {
        for is_sub_agent in [false, true] {
            for plan_exists in [false, true] {
                cases.push((
                    Attachment::PlanMode {
                        reminder_type,
                        is_sub_agent,
                        plan_file_path: path.clone(),
                        plan_exists,
                    },
                    ReminderKind::PlanMode,
                ));
            }
        }
    }
    for variant in PlanVariant::ALL {
        for interview_phase in [false, true] {
            let config = PlanModeConfig {
                variant,
                interview_phase,
                ..PlanModeConfig::default()
            };
            let options = PromptOptions::new(path.clone(), false, false, &config);
            for (attachment, kind) in &cases {
                let text = wrap_system_reminder(&render_attachment(attachment, &options));
                assert_eq!(classify_reminder(&text), Some(*kind), "{attachment:?}");
            }
        }
    }
    assert_eq!(
        classify_reminder("Plan mode is active."),
        None,
        "not a reminder block"
    );
    assert_eq!(classify_reminder(&wrap_system_reminder("other")), None);
}

#[test]
fn json_rendered_attachments_are_recognised_too() {
    let a = Attachment::PlanMode {
        reminder_type: ReminderType::Sparse,
        is_sub_agent: false,
        plan_file_path: "/p.md".into(),
        plan_exists: false,
    };
    let text = wrap_system_reminder(&serde_json::to_string(&a).unwrap());
    assert_eq!(classify_reminder(&text), Some(ReminderKind::PlanMode));
    let exit = Attachment::PlanModeExit {
        plan_file_path: "/p.md".into(),
        plan_exists: true,
        parked: false,
    };
    let text = wrap_system_reminder(&serde_json::to_string(&exit).unwrap());
    assert_eq!(classify_reminder(&text), Some(ReminderKind::PlanModeExit));
    assert_eq!(classify_reminder(&wrap_system_reminder("{not json")), None);
}
