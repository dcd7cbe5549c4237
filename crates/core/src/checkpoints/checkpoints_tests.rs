//! The checkpoint service over real git, a real transcript file and real
//! project files in temporary folders.

use std::path::{Path, PathBuf};

use catui_protocol::Message;

use super::*;
use crate::engine::Record as EngineRecord;
use crate::plan::{PlanFiles, PlanModeConfig};
use crate::session::{Redactor, TranscriptRecorder, TranscriptWriter};

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    transcript: PathBuf,
    recorder: Arc<TranscriptRecorder>,
    checkpoints: Arc<Checkpoints>,
    plan: Arc<PlanSession>,
    events: tokio::sync::mpsc::UnboundedReceiver<EngineEvent>,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let transcript = dir.path().join("s.jsonl");
    let recorder = Arc::new(TranscriptRecorder::new(
        TranscriptWriter::open(&transcript)
            .unwrap()
            .with_redactor(Redactor::default()),
    ));
    let plan = Arc::new(PlanSession::new(
        PlanFiles::new(dir.path().join("plans"), "s"),
        PlanModeConfig::default(),
        None,
    ));
    let (tx, events) = tokio::sync::mpsc::unbounded_channel();
    let checkpoints = Checkpoints::new(CheckpointSetup {
        session_id: "s".into(),
        config_dir: dir.path().join("home"),
        project: root.clone(),
        recorder: recorder.clone(),
        transcript: Some(transcript.clone()),
        entries: Vec::new(),
        plan: plan.clone(),
        events: tx,
        limits: Default::default(),
        rewind: true,
    });
    Fixture {
        _dir: dir,
        root,
        transcript,
        recorder,
        checkpoints,
        plan,
        events,
    }
}

impl Fixture {
    fn write(&self, rel: &str, text: &str) {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(rel)).ok()
    }

    /// One user message whose turn runs `work` as catui's change.
    fn turn(&self, uuid: &str, text: &str, work: impl FnOnce(&Path)) {
        self.checkpoints.input_started(uuid, text);
        self.recorder.record_with_uuid(
            uuid,
            EngineRecord::User {
                message: Message::user_text(text),
                is_meta: false,
            },
        );
        self.checkpoints.before_change();
        work(&self.root);
        self.checkpoints.input_handled();
    }

    fn rewind(&self, target: RewindTarget, force: bool) -> Result<RewindReport, CheckpointError> {
        self.checkpoints.rewind(&RewindRequest {
            target,
            code: true,
            conversation: false,
            force,
            dry_run: false,
        })
    }
}

fn message(uuid: &str) -> RewindTarget {
    RewindTarget::Message(uuid.into())
}

#[test]
fn each_message_rewinds_to_the_files_before_its_turn_and_a_rewind_can_be_undone() {
    let f = fixture();
    f.write("a.txt", "one\n");
    f.turn("m1", "change a", |root| {
        std::fs::write(root.join("a.txt"), "two\n").unwrap()
    });
    f.turn("m2", "add b, drop a", |root| {
        std::fs::write(root.join("b.txt"), "bee\n").unwrap();
        std::fs::remove_file(root.join("a.txt")).unwrap();
    });
    f.turn("m3", "just talk", |_| {});

    let points = f.checkpoints.points();
    assert_eq!(points.len(), 3);
    assert_eq!(points[0].files, ["a.txt"]);
    let mut files = points[1].files.clone();
    files.sort();
    assert_eq!(files, ["a.txt", "b.txt"]);

    let report = f.rewind(message("m2"), false).unwrap();
    assert_eq!(f.read("a.txt").as_deref(), Some("two\n"));
    assert_eq!(f.read("b.txt"), None);
    assert_eq!(report.restored, ["a.txt"]);
    assert_eq!(report.deleted, ["b.txt"]);

    f.rewind(message("m1"), false).unwrap();
    assert_eq!(f.read("a.txt").as_deref(), Some("one\n"));

    // The last rewind is a point of its own: undo it.
    let undo = f
        .checkpoints
        .points()
        .into_iter()
        .rev()
        .find(|p| p.kind == PointKind::BeforeRewind)
        .unwrap();
    // Named by the rewind it takes back, in the user's words.
    assert_eq!(undo.label, "Undo the rewind to \"change a\"");
    assert_eq!(undo.files, ["a.txt"], "the files that rewind changed");
    let dry = f
        .checkpoints
        .rewind(&RewindRequest {
            target: undo.target.clone(),
            code: true,
            conversation: false,
            force: false,
            dry_run: true,
        })
        .unwrap();
    // The preview: per file, what the undo adds and removes from now.
    assert_eq!(
        dry.files,
        [crate::checkpoints::FileLines {
            path: "a.txt".into(),
            insertions: 1,
            deletions: 1,
        }]
    );
    let report = f.rewind(undo.target, false).unwrap();
    assert_eq!(f.read("a.txt").as_deref(), Some("two\n"));
    assert_eq!(
        report.summary(),
        "Undid the rewind to \"change a\": restored 1 file."
    );

    // The transcript holds the line: a resumed session knows it.
    let loaded = crate::session::load(&f.transcript).unwrap();
    let line = Line::from_entries(&loaded.entries);
    assert_eq!(line.start_of("m2"), f.checkpoints.line().start_of("m2"));
    assert!(
        loaded
            .entries
            .iter()
            .any(|e| matches!(&e.body, catui_protocol::transcript::EntryBody::Rewind { target, .. } if target == "m1"))
    );
}

#[test]
fn files_changed_outside_catui_are_listed_and_only_overwritten_when_forced() {
    let f = fixture();
    f.write("mine.txt", "mine\n");
    f.write("a.txt", "a\n");
    f.turn("m1", "change a", |root| {
        std::fs::write(root.join("a.txt"), "A\n").unwrap()
    });
    // The user edits in their editor between turns.
    f.write("mine.txt", "my edit\n");
    f.turn("m2", "change a again", |root| {
        std::fs::write(root.join("a.txt"), "AA\n").unwrap()
    });
    f.write("notes.txt", "written after the last turn\n");

    let dry = f
        .checkpoints
        .rewind(&RewindRequest {
            target: message("m1"),
            code: true,
            conversation: false,
            force: false,
            dry_run: true,
        })
        .unwrap();
    assert_eq!(dry.outside, ["mine.txt", "notes.txt"]);
    assert_eq!(
        f.read("a.txt").as_deref(),
        Some("AA\n"),
        "a dry run changes nothing"
    );

    match f.rewind(message("m1"), false) {
        Err(CheckpointError::OutsideChanges(files)) => {
            assert_eq!(files, ["mine.txt", "notes.txt"])
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(f.read("mine.txt").as_deref(), Some("my edit\n"));

    // Rewinding to m2 would delete notes.txt (it did not exist then).
    assert!(matches!(
        f.rewind(message("m2"), false),
        Err(CheckpointError::OutsideChanges(files)) if files == ["notes.txt"]
    ));
    // Once the user removed it, nobody else's work is in the way.
    std::fs::remove_file(f.root.join("notes.txt")).unwrap();
    f.rewind(message("m2"), false).unwrap();
    assert_eq!(f.read("a.txt").as_deref(), Some("A\n"));
    assert_eq!(f.read("mine.txt").as_deref(), Some("my edit\n"));

    f.rewind(message("m1"), true).unwrap();
    assert_eq!(f.read("mine.txt").as_deref(), Some("mine\n"));
    assert_eq!(f.read("notes.txt"), None);
}

#[test]
fn a_message_without_changes_since_is_a_point_with_nothing_to_restore() {
    let f = fixture();
    f.write("a.txt", "a\n");
    f.turn("m1", "only reads", |_| {});
    // No checkpoint was needed: nothing changed since m1.
    f.checkpoints.input_started("m2", "reads too");
    f.checkpoints.input_handled();
    let report = f.rewind(message("m1"), false).unwrap();
    assert!(report.restored.is_empty() && report.deleted.is_empty());
    assert!(matches!(
        f.rewind(message("nope"), false),
        Err(CheckpointError::UnknownTarget(_))
    ));
}

#[test]
fn a_conversation_rewind_rebuilds_the_conversation_before_the_message() {
    let f = fixture();
    f.turn("m1", "first", |_| {});
    f.recorder.record(EngineRecord::Assistant {
        message: Message::assistant_text("answer one"),
        usage: Default::default(),
        model: None,
    });
    f.turn("m2", "second", |_| {});
    let report = f
        .checkpoints
        .rewind(&RewindRequest {
            target: message("m2"),
            code: false,
            conversation: true,
            force: false,
            dry_run: false,
        })
        .unwrap();
    assert!(report.conversation);
    assert_eq!(report.prompt.as_deref(), Some("second"));
    let loaded = crate::session::load(&f.transcript).unwrap();
    let texts: Vec<String> = crate::session::rebuild_messages(&loaded.entries)
        .iter()
        .map(|m| m.text())
        .collect();
    assert_eq!(texts, ["first", "answer one"]);

    // The message is no longer in the conversation: not a point any more,
    // here or in a resumed session.
    let labels: Vec<String> = f
        .checkpoints
        .points()
        .into_iter()
        .map(|p| p.label)
        .collect();
    assert_eq!(labels, ["first"]);
    let line = Line::from_entries(&loaded.entries);
    assert!(line.prompt("m2").is_some_and(|p| p.rewound));
    assert!(line.prompt("m1").is_some_and(|p| !p.rewound));
}

#[test]
fn the_plan_approval_is_a_point_and_the_work_is_compared_with_the_plan() {
    let mut f = fixture();
    f.write("src/lib.rs", "lib\n");
    f.checkpoints.input_started("m1", "plan and do it");
    let plan = "# Plan\n1. Change src/lib.rs\n2. Add tests/lib_test.rs\n";
    f.checkpoints.plan_approved("calm-blue-river", plan);
    f.checkpoints.before_change();
    f.write("src/lib.rs", "lib changed\n");
    f.write("setup.cfg", "not in the plan\n");
    let note = f.checkpoints.before_turn_end().expect("a drift note");
    assert!(note.contains("setup.cfg"), "{note}");
    assert!(note.contains("Add tests/lib_test.rs"), "{note}");
    assert_eq!(f.checkpoints.before_turn_end(), None, "once per turn");
    f.checkpoints.input_handled();
    let report = std::iter::from_fn(|| f.events.try_recv().ok())
        .find_map(|e| match e {
            EngineEvent::PlanCompliance(r) => Some(r),
            _ => None,
        })
        .expect("a compliance event");
    assert_eq!(report.unplanned_files, ["setup.cfg"]);
    assert_eq!(report.untouched_files, ["tests/lib_test.rs"]);
    assert_eq!((report.steps_done, report.steps_total), (0, 2));

    // Back to the plan: the files as at approval, the plan file holds it.
    let report = f.rewind(RewindTarget::parse("plan"), true).unwrap();
    assert_eq!(f.read("src/lib.rs").as_deref(), Some("lib\n"));
    assert_eq!(f.read("setup.cfg"), None);
    let plan_file = report.plan_file.unwrap();
    assert_eq!(std::fs::read_to_string(plan_file).unwrap(), plan);
    assert!(f.checkpoints.line().baseline.is_none());
    assert!(f.plan.files.read(None).is_some());
}

#[test]
fn the_sdk_variable_wins_then_the_setting_then_the_front_end() {
    assert!(enabled(Some("true"), Some(false), false));
    assert!(!enabled(Some("0"), Some(true), true));
    assert!(!enabled(None, Some(false), true));
    assert!(enabled(None, None, true));
    assert!(!enabled(None, None, false));
    assert!(enabled(Some("maybe"), None, true));
}
