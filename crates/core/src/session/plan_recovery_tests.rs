//! Tests of plan restoration on resume (from every place a plan can be recovered), of forking
//! and of plan snapshots, on real files in temp dirs.

use std::sync::Arc;

use catui_protocol::{Message, PermissionMode};
use serde_json::json;

use super::*;
use crate::engine::{Record, Recorder};
use crate::plan::contract::PLAN_APPROVED;
use crate::session::fork::{FORK_ENTRY_SUBTYPE, fork_session};
use crate::session::paths::session_path;
use crate::session::recorder::TranscriptRecorder;
use crate::session::resume::resume_session;
use crate::session::resume::tests::{assistant, tool_call, tool_result, writer};
use crate::session::snapshot::{PlanSnapshotRecorder, snapshot_plans_enabled};
use crate::session::transcript::load;

const SLUG: &str = "calm-blue-river";

struct Fixture {
    cfg: tempfile::TempDir,
    plans: tempfile::TempDir,
    cwd: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        Fixture {
            cfg: tempfile::tempdir().unwrap(),
            plans: tempfile::tempdir().unwrap(),
            cwd: PathBuf::from("/repo/plans"),
        }
    }

    /// Writes session `id` with the slug and `bodies`, in plan mode.
    fn session(&self, id: &str, bodies: Vec<EntryBody>) {
        let mut w = writer(self.cfg.path(), &self.cwd, id);
        w.set_slug(Some(SLUG.into()));
        w.append(EntryBody::PermissionMode {
            mode: PermissionMode::Plan,
            pre_plan_mode: Some(PermissionMode::Default),
        })
        .unwrap();
        w.append_batch(bodies).unwrap();
    }

    fn plan_files(&self) -> PlanFiles {
        PlanFiles::new(self.plans.path().to_path_buf(), "fresh-process")
    }

    fn plan_path(&self) -> PathBuf {
        self.plans.path().join(format!("{SLUG}.md"))
    }

    /// Resumes `id` with the plan file deleted; returns what was restored.
    fn restore(&self, id: &str) -> PlanRestore {
        let _ = std::fs::remove_file(self.plan_path());
        let resumed = resume_session(self.cfg.path(), &self.cwd, Some(id)).unwrap();
        let files = self.plan_files();
        let restore = copy_plan_for_resume(&resumed, &files).unwrap();
        assert_eq!(files.session_id(), id);
        assert_eq!(files.path(None), self.plan_path(), "slug adopted");
        restore
    }
}

fn recovered(restore: &PlanRestore) -> PlanSource {
    match restore {
        PlanRestore::Recovered { source, .. } => *source,
        other => panic!("expected a recovery, got {other:?}"),
    }
}

#[test]
fn present_plan_file_is_kept_and_slug_adopted() {
    let f = Fixture::new();
    f.session("s", vec![EntryBody::user(Message::user_text("go"))]);
    std::fs::write(f.plan_path(), "# On disk").unwrap();
    let resumed = resume_session(f.cfg.path(), &f.cwd, Some("s")).unwrap();
    let files = f.plan_files();
    assert_eq!(
        copy_plan_for_resume(&resumed, &files).unwrap(),
        PlanRestore::Present {
            path: f.plan_path()
        }
    );
    assert_eq!(std::fs::read_to_string(f.plan_path()).unwrap(), "# On disk");
    assert_eq!(resumed.permission_mode, Some(PermissionMode::Plan));
}

#[test]
fn missing_plan_without_any_copy_is_reported() {
    let f = Fixture::new();
    f.session("s", vec![EntryBody::user(Message::user_text("go"))]);
    assert_eq!(
        f.restore("s"),
        PlanRestore::Missing {
            path: f.plan_path()
        }
    );
    assert!(!f.plan_path().exists());
}

#[test]
fn a_session_that_never_planned_expects_no_plan_file() {
    let f = Fixture::new();
    let mut w = writer(f.cfg.path(), &f.cwd, "s");
    w.set_slug(Some(SLUG.into()));
    w.append(EntryBody::user(Message::user_text("just a question")))
        .unwrap();
    assert_eq!(
        f.restore("s"),
        PlanRestore::NeverPlanned {
            path: f.plan_path()
        }
    );
}

#[test]
fn recovers_from_a_file_snapshot() {
    let f = Fixture::new();
    f.session(
        "s",
        vec![
            EntryBody::FileSnapshot {
                key: "plan".into(),
                path: "/old.md".into(),
                content: "# Old snapshot".into(),
            },
            // Lower-priority sources are present too and must lose.
            EntryBody::User {
                message: Message::user_text("approved"),
                is_meta: false,
                plan_content: Some("# From planContent".into()),
            },
            EntryBody::FileSnapshot {
                key: "other".into(),
                path: "/x".into(),
                content: "not a plan".into(),
            },
            EntryBody::FileSnapshot {
                key: "plan".into(),
                path: "/old.md".into(),
                content: "# Latest snapshot".into(),
            },
        ],
    );
    assert_eq!(recovered(&f.restore("s")), PlanSource::FileSnapshot);
    assert_eq!(
        std::fs::read_to_string(f.plan_path()).unwrap(),
        "# Latest snapshot"
    );
}

#[test]
fn recovers_from_the_exit_plan_mode_input() {
    let f = Fixture::new();
    f.session(
        "s",
        vec![
            assistant(tool_call(
                "e1",
                "ExitPlanMode",
                json!({"plan": "# First try"}),
            )),
            tool_result("e1", "User rejected the plan", true),
            assistant(tool_call(
                "e2",
                "ExitPlanMode",
                json!({"plan": "# Second try"}),
            )),
            EntryBody::Attachment {
                attachment: Attachment::PlanFileReference {
                    plan_file_path: "/p.md".into(),
                    plan_content: "# From attachment".into(),
                    approved: false,
                    file_changed: false,
                },
            },
        ],
    );
    assert_eq!(recovered(&f.restore("s")), PlanSource::ExitPlanModeInput);
    assert_eq!(
        std::fs::read_to_string(f.plan_path()).unwrap(),
        "# Second try"
    );
}

#[test]
fn recovers_from_the_approved_plan_in_the_tool_result() {
    let f = Fixture::new();
    let approved = format!(
        "{PLAN_APPROVED}\n\nYour plan has been saved to: /p.md\n\n{APPROVED_PLAN_HEADING}\n# Approved\n- step"
    );
    f.session(
        "s",
        vec![
            assistant(tool_call("e1", "ExitPlanMode", json!({}))),
            tool_result("e1", &approved, false),
        ],
    );
    assert_eq!(recovered(&f.restore("s")), PlanSource::ApprovedPlanResult);
    assert_eq!(
        std::fs::read_to_string(f.plan_path()).unwrap(),
        "# Approved\n- step"
    );

    // A plan the user edited on approval beats the call's input.
    let edited = format!("{PLAN_APPROVED}\n\n{APPROVED_PLAN_EDITED_HEADING}\n# Edited by user");
    f.session(
        "s2",
        vec![
            assistant(tool_call(
                "e1",
                "ExitPlanMode",
                json!({"plan": "# Model's"}),
            )),
            tool_result("e1", &edited, false),
        ],
    );
    assert_eq!(recovered(&f.restore("s2")), PlanSource::EditedApprovedPlan);
    assert_eq!(
        std::fs::read_to_string(f.plan_path()).unwrap(),
        "# Edited by user"
    );
}

#[test]
fn recovers_from_a_user_plan_content() {
    let f = Fixture::new();
    f.session(
        "s",
        vec![
            EntryBody::User {
                message: Message::user_text("implement the plan"),
                is_meta: false,
                plan_content: Some("# From planContent".into()),
            },
            EntryBody::Attachment {
                attachment: Attachment::PlanFileReference {
                    plan_file_path: "/p.md".into(),
                    plan_content: "# From attachment".into(),
                    approved: false,
                    file_changed: false,
                },
            },
        ],
    );
    assert_eq!(recovered(&f.restore("s")), PlanSource::UserPlanContent);
    assert_eq!(
        std::fs::read_to_string(f.plan_path()).unwrap(),
        "# From planContent"
    );
}

#[test]
fn recovers_from_a_plan_file_reference_attachment() {
    let f = Fixture::new();
    f.session(
        "s",
        vec![
            EntryBody::Summary {
                summary: "earlier work".into(),
            },
            EntryBody::Attachment {
                attachment: Attachment::PlanFileReference {
                    plan_file_path: "/p.md".into(),
                    plan_content: "# From attachment".into(),
                    approved: false,
                    file_changed: false,
                },
            },
        ],
    );
    assert_eq!(recovered(&f.restore("s")), PlanSource::PlanFileReference);
    assert_eq!(
        std::fs::read_to_string(f.plan_path()).unwrap(),
        "# From attachment"
    );
}

#[test]
fn session_without_slug_has_no_plan() {
    let f = Fixture::new();
    let mut w = writer(f.cfg.path(), &f.cwd, "plain");
    w.append(EntryBody::user(Message::user_text("hi"))).unwrap();
    let resumed = resume_session(f.cfg.path(), &f.cwd, Some("plain")).unwrap();
    let files = f.plan_files();
    assert_eq!(
        copy_plan_for_resume(&resumed, &files).unwrap(),
        PlanRestore::NoPlan
    );
    assert_eq!(files.existing_slug(), None);
}

#[test]
fn fork_gets_its_own_plan_and_leaves_the_parent_alone() {
    let f = Fixture::new();
    f.session(
        "parent",
        vec![
            EntryBody::user(Message::user_text("plan it")),
            assistant(Message::assistant_text("planned")),
        ],
    );
    std::fs::write(f.plan_path(), "# Shared start").unwrap();
    let parent_file = session_path(f.cfg.path(), &f.cwd, "parent");
    let parent_bytes = std::fs::read(&parent_file).unwrap();
    let parent = resume_session(f.cfg.path(), &f.cwd, Some("parent")).unwrap();

    let files_a = f.plan_files();
    let a = fork_session(f.cfg.path(), &f.cwd, &parent, &files_a, None).unwrap();
    let files_b = f.plan_files();
    let b = fork_session(f.cfg.path(), &f.cwd, &parent, &files_b, Some("fork-b")).unwrap();

    let a_plan = a.plan_path.clone().unwrap();
    let b_plan = b.plan_path.clone().unwrap();
    assert_ne!(a_plan, f.plan_path());
    assert_ne!(b_plan, f.plan_path());
    assert_ne!(a_plan, b_plan, "two forks never share a plan file");
    assert_eq!(std::fs::read_to_string(&a_plan).unwrap(), "# Shared start");
    assert_eq!(files_a.path(None), a_plan);
    assert_eq!(b.session.session_id, "fork-b");
    assert_eq!(b.parent_session_id, "parent");
    assert_ne!(a.session.session_id, "parent");
    assert_eq!(a.session.messages, parent.messages);
    assert_eq!(a.session.permission_mode, Some(PermissionMode::Plan));

    // Editing the fork's plan does not touch the parent's.
    std::fs::write(files_a.path(None), "# Fork A's own plan").unwrap();
    assert_eq!(
        std::fs::read_to_string(f.plan_path()).unwrap(),
        "# Shared start"
    );
    assert_eq!(std::fs::read(&parent_file).unwrap(), parent_bytes);

    // The fork's transcript stands alone and resumes with its own slug.
    let loaded = load(&a.session.path).unwrap();
    assert!(
        loaded
            .entries
            .iter()
            .all(|e| e.session_id == a.session.session_id)
    );
    assert!(matches!(
        &loaded.entries.last().unwrap().body,
        EntryBody::System { subtype, text } if subtype == FORK_ENTRY_SUBTYPE && text.contains("parent")
    ));
    let again = resume_session(f.cfg.path(), &f.cwd, Some(&a.session.session_id)).unwrap();
    let files = f.plan_files();
    assert_eq!(
        copy_plan_for_resume(&again, &files).unwrap(),
        PlanRestore::Present { path: a_plan }
    );

    // Forking into an existing session id is refused.
    let err = fork_session(
        f.cfg.path(),
        &f.cwd,
        &parent,
        &f.plan_files(),
        Some("fork-b"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
}

#[test]
fn fork_recovers_a_missing_parent_plan_from_the_transcript() {
    let f = Fixture::new();
    f.session(
        "parent",
        vec![EntryBody::FileSnapshot {
            key: "plan".into(),
            path: "/gone.md".into(),
            content: "# Snapshotted".into(),
        }],
    );
    let parent = resume_session(f.cfg.path(), &f.cwd, Some("parent")).unwrap();
    let forked = fork_session(f.cfg.path(), &f.cwd, &parent, &f.plan_files(), None).unwrap();
    let plan = forked.plan_path.unwrap();
    assert_ne!(plan, f.plan_path());
    assert_eq!(std::fs::read_to_string(plan).unwrap(), "# Snapshotted");
    assert!(
        !f.plan_path().exists(),
        "the parent's file is not recreated"
    );
}

#[test]
fn snapshot_switch_follows_setting_and_env() {
    assert!(snapshot_plans_enabled(true, |_| None));
    assert!(!snapshot_plans_enabled(false, |_| None));
    assert!(snapshot_plans_enabled(false, |k| (k == "CATUI_REMOTE").then(|| "1".into())));
    assert!(snapshot_plans_enabled(false, |_| Some("true".into())));
    assert!(!snapshot_plans_enabled(false, |_| Some("0".into())));
}

#[test]
fn snapshot_recorder_snapshots_successful_plan_writes_only() {
    let f = Fixture::new();
    let files = Arc::new(f.plan_files());
    let plan = files.path(None);
    let transcript = Arc::new(TranscriptRecorder::new(writer(
        f.cfg.path(),
        &f.cwd,
        "snap",
    )));
    let recorder = PlanSnapshotRecorder::new(transcript.clone(), files);
    let plan_str = plan.to_string_lossy().into_owned();

    // A successful Write of the plan: snapshot after the result.
    std::fs::write(&plan, "# v1").unwrap();
    recorder.record(Record::Assistant {
        message: tool_call(
            "w1",
            "Write",
            json!({"file_path": plan_str, "content": "# v1"}),
        ),
        usage: Default::default(),
        model: None,
    });
    recorder.record(Record::User {
        message: Message {
            role: catui_protocol::Role::User,
            content: vec![catui_protocol::ContentBlock::tool_result("w1", "ok", false)],
        },
        is_meta: false,
    });
    // A failed Edit of the plan and a Write elsewhere: no snapshot.
    recorder.record(Record::Assistant {
        message: tool_call("e1", "Edit", json!({"file_path": plan_str})),
        usage: Default::default(),
        model: None,
    });
    recorder.record(Record::User {
        message: Message {
            role: catui_protocol::Role::User,
            content: vec![catui_protocol::ContentBlock::tool_result(
                "e1", "no match", true,
            )],
        },
        is_meta: false,
    });
    recorder.record(Record::Assistant {
        message: tool_call("w2", "Write", json!({"file_path": "/repo/plans/src/x.rs"})),
        usage: Default::default(),
        model: None,
    });
    recorder.record(Record::User {
        message: Message {
            role: catui_protocol::Role::User,
            content: vec![catui_protocol::ContentBlock::tool_result("w2", "ok", false)],
        },
        is_meta: false,
    });

    let kinds: Vec<&str> = load(transcript.path())
        .unwrap()
        .entries
        .iter()
        .map(|e| e.body.kind())
        .collect::<Vec<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        kinds,
        [
            "assistant",
            "user",
            "file_snapshot",
            "assistant",
            "user",
            "assistant",
            "user"
        ]
    );
    let entries = load(transcript.path()).unwrap().entries;
    assert_eq!(
        entries[2].body,
        EntryBody::FileSnapshot {
            key: "plan".into(),
            path: plan_str,
            content: "# v1".into(),
        }
    );
    // And the snapshot is what recovery uses.
    std::fs::remove_file(&plan).unwrap();
    assert_eq!(
        recover_plan_content(&entries),
        Some(("# v1".to_string(), PlanSource::FileSnapshot))
    );
}
