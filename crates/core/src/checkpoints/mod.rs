//! Checkpoints and rewind: the project's files before each change catui
//! makes, and going back to them (docs/CHECKPOINTS.md).
//!
//! - [`git`] / [`shadow`]: the shadow git repository in catui's data
//!   directory that snapshots the whole project (whatever changed it:
//!   Write, Edit, NotebookEdit, a shell command, a sub-agent); [`watch`]:
//!   the kernel's file notifications, so a snapshot looks only at what
//!   changed.
//! - [`restore`]: putting files back as a snapshot had them, inside the
//!   project only.
//! - [`line`]: a session's checkpoints as its transcript records them
//!   (resume and fork carry them; a fork continues on its own line).
//! - [`compliance`]: the work after a plan approval compared with the plan.
//! - [`Checkpoints`] (this file, [`rewind`]): the session's service —
//!   checkpoints taken lazily before the first change of each user message,
//!   at plan approvals and around rewinds; the points to go back to; rewinds
//!   of code, conversation or both, and back to an approved plan.
//! - [`target`]: where a rewind goes back to; [`report`]: what it did, in
//!   words.
//! - [`extension`]: how the service plugs into the engine (tool lifecycle
//!   hooks, the end of each turn, `/rewind`).

pub mod compliance;
pub mod extension;
pub mod git;
pub mod line;
pub mod report;
pub mod restore;
pub mod rewind;
pub mod shadow;
pub mod target;
pub mod watch;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use catui_protocol::checkpoint::{CheckpointKind, PlanCompliance};
use catui_protocol::transcript::TranscriptEntry;
use tokio::sync::mpsc::UnboundedSender;

use crate::engine::{
    EngineControl, EngineEvent, Record as EngineRecord, Recorder, WeakEngineControl,
};
use crate::plan::PlanSession;
use crate::sync::lock;
use line::{Baseline, Line, Prompt, Record};
use shadow::{ShadowRepo, Snapshot};

pub use extension::CheckpointExtension;
pub use rewind::{PointKind, RewindPoint, RewindReport, RewindRequest};
pub use shadow::FileLines;
pub use target::RewindTarget;

/// The environment variable the Agent SDKs set for
/// `enable_file_checkpointing`.
pub const SDK_CHECKPOINTING_ENV: &str = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING";

/// Notification key of checkpoint notices (off, skipped files, rewinds).
pub const NOTICE_KEY: &str = "checkpoints";

/// At most this many changed files are listed per turn in the transcript.
const MAX_LISTED_FILES: usize = 200;

/// Why a checkpoint could not be taken or a rewind could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("git was not found on PATH; checkpoints need git (install it to be able to rewind)")]
    GitMissing,
    #[error("git {command} failed: {message}")]
    Git { command: String, message: String },
    #[error("could not {what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{count} files changed at once, more than checkpoints take in ({limit}); checkpoints are off for this session (add what should not be kept to .gitignore)"
    )]
    TooManyChanges { count: usize, limit: usize },
    #[error(
        "the content of object {0} is no longer in the checkpoint store (checkpoints are kept for 30 days after their session was last used)"
    )]
    MissingObject(String),
    #[error("checkpoints are off in this session{0}")]
    Off(String),
    #[error(
        "file checkpointing is not enabled in this session: pass enable_file_checkpointing=True to the SDK (CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true), or set \"fileCheckpointingEnabled\": true"
    )]
    NotEnabled,
    #[error("no message {0} in this session; `/rewind` lists the points you can go back to")]
    UnknownTarget(String),
    #[error(
        "no checkpoint was taken for {0} (checkpoints were off when it ran), so its files cannot be restored; the conversation can still be rewound"
    )]
    NoCheckpoint(String),
    #[error("no plan was approved in this session{0}")]
    NoApproval(String),
    #[error("a turn is running: wait for its result (or interrupt it) before rewinding")]
    TurnRunning,
    #[error(
        "files changed outside catui since that point: {}. Rewinding would overwrite them; confirm to rewind anyway (`force`)",
        .0.join(", ")
    )]
    OutsideChanges(Vec<String>),
    #[error("the conversation cannot be rewound: {0}")]
    Conversation(String),
}

/// What the checkpoint service needs from its session.
pub struct CheckpointSetup {
    pub session_id: String,
    /// catui's home (`CATUI_CONFIG_DIR`).
    pub config_dir: PathBuf,
    /// The project (the session's working directory).
    pub project: PathBuf,
    /// The main conversation's transcript.
    pub recorder: Arc<dyn Recorder>,
    /// Its file, when it has one (conversation rewinds read it).
    pub transcript: Option<PathBuf>,
    /// Entries of a resumed or forked session.
    pub entries: Vec<TranscriptEntry>,
    pub plan: Arc<PlanSession>,
    pub events: UnboundedSender<EngineEvent>,
    /// What a snapshot may take in.
    pub limits: shadow::Limits,
    /// Checkpoints before each change, and rewind. When off the service
    /// only compares the work after a plan approval with the plan.
    pub rewind: bool,
}

/// One session's checkpoints (see the module documentation).
pub struct Checkpoints {
    repo: ShadowRepo,
    session_id: String,
    recorder: Arc<dyn Recorder>,
    transcript: Option<PathBuf>,
    transcripts_dir: PathBuf,
    plan: Arc<PlanSession>,
    events: UnboundedSender<EngineEvent>,
    /// Weak: the conversation's extensions hold this service.
    engine: OnceLock<WeakEngineControl>,
    /// The project's folders under watch, from the first snapshot on
    /// (`None` inside: not possible here, every snapshot scans).
    watch: OnceLock<Option<watch::Watch>>,
    state: Mutex<State>,
    /// See [`CheckpointSetup::rewind`].
    rewind_on: bool,
}

#[derive(Default)]
struct State {
    line: Line,
    /// This session's last snapshot (the parent of the next).
    last: Option<Snapshot>,
    /// The input being handled.
    turn: Option<Turn>,
    /// Why checkpoints stopped, once they did (said once).
    off: Option<String>,
    /// The line was attached to the repository (fork adoption, cleanup).
    opened: bool,
    /// A snapshot of every file was taken in this process (after it, the
    /// watch says what changed).
    scanned: bool,
    /// The last drift the model was told about (so it is told once).
    alerted: Option<PlanCompliance>,
    /// Notes for the model's next request (a rewind it did not make).
    notes: Vec<catui_protocol::Attachment>,
}

struct Turn {
    uuid: String,
    /// The checkpoint taken before this turn's first change.
    start: Option<Snapshot>,
    /// Something that may change the project ran in this turn.
    changed: bool,
    /// Files the snapshots since the turn's start found changed.
    files: Vec<String>,
    alerted: bool,
}

impl Checkpoints {
    pub fn new(setup: CheckpointSetup) -> Arc<Self> {
        let CheckpointSetup {
            session_id,
            config_dir,
            project,
            recorder,
            transcript,
            entries,
            plan,
            events,
            limits,
            rewind,
        } = setup;
        let transcripts_dir = crate::session::project_dir(&config_dir, &project);
        let line = Line::from_entries(&entries);
        Arc::new(Checkpoints {
            repo: ShadowRepo::new(&config_dir, &project).with_limits(limits),
            session_id,
            recorder,
            transcript,
            transcripts_dir,
            plan,
            events,
            engine: OnceLock::new(),
            watch: OnceLock::new(),
            state: Mutex::new(State {
                line,
                ..State::default()
            }),
            rewind_on: rewind,
        })
    }

    /// The main conversation's controls (mode changes and conversation
    /// rewinds go through them); set once the engine is built.
    pub fn set_engine(&self, control: EngineControl) {
        let _ = self.engine.set(control.downgrade());
    }

    /// The main conversation's controls, while it lives.
    fn engine(&self) -> Option<EngineControl> {
        self.engine.get().and_then(WeakEngineControl::upgrade)
    }

    /// Whether checkpoints are taken and rewinds possible (otherwise only
    /// the plan comparison runs).
    pub fn rewind_enabled(&self) -> bool {
        self.rewind_on
    }

    /// The shadow repository.
    pub fn repo(&self) -> &ShadowRepo {
        &self.repo
    }

    /// The line as it stands (for front ends and tests).
    pub fn line(&self) -> Line {
        self.state().line.clone()
    }

    fn notify(&self, text: String) {
        let _ = self.events.send(EngineEvent::Notification {
            key: NOTICE_KEY.to_string(),
            text,
        });
    }

    /// Appends a checkpoint entry and keeps it in the line.
    fn record(&self, state: &mut State, mut record: Record) {
        record.entry = uuid::Uuid::new_v4().to_string();
        record.timestamp = now();
        self.recorder
            .record_with_uuid(&record.entry, EngineRecord::Entry(record.body()));
        state.line.push(record);
    }

    /// Takes a snapshot on this session's line; on failure checkpoints are
    /// switched off for the session (said once) and `None` is returned.
    /// Only what the watch saw change is looked at, unless `full` (the
    /// files a rewind is about to overwrite are always scanned).
    fn snapshot(&self, state: &mut State, full: bool) -> Option<Snapshot> {
        if state.off.is_some() {
            return None;
        }
        let result = crate::sync::blocking_io(|| {
            self.open(state);
            let watch = self
                .watch
                .get_or_init(|| watch::Watch::start(self.repo.project()));
            let changes = watch
                .as_ref()
                .map_or(watch::Changes::Unknown, watch::Watch::take_changes);
            // The watch knows only what happened since this process's
            // first scan.
            let full = full || !std::mem::replace(&mut state.scanned, true);
            match (changes, &state.last) {
                (watch::Changes::Nothing, Some(last)) if !full => Ok(last.clone()),
                (watch::Changes::Paths(paths), Some(last)) if !full => {
                    self.repo
                        .snapshot(&self.session_id, Some(last), Some(&paths))
                }
                _ => self
                    .repo
                    .snapshot(&self.session_id, state.last.as_ref(), None),
            }
        });
        match result {
            Ok(snapshot) => {
                if let Some(turn) = state.turn.as_mut().filter(|t| t.start.is_some()) {
                    for file in &snapshot.changed {
                        if !turn.files.contains(file) {
                            turn.files.push(file.clone());
                        }
                    }
                }
                state.last = Some(snapshot.clone());
                Some(snapshot)
            }
            Err(e) => {
                let why = e.to_string();
                self.notify(format!(
                    "Checkpoints are off for the rest of this session: {why}. Rewind is not available for what follows."
                ));
                state.off = Some(why);
                None
            }
        }
    }

    /// First use in this process: the line's last commit becomes the
    /// parent of the next one (and the tip of a fork's own line), and old
    /// lines are cleaned up in the background.
    fn open(&self, state: &mut State) {
        if std::mem::replace(&mut state.opened, true) {
            return;
        }
        if let Some(commit) = state.line.last_commit().map(str::to_string)
            && let Some(tree) = self.repo.tree_of(&commit)
        {
            let _ = self.repo.adopt(&self.session_id, &commit);
            state.last = Some(Snapshot {
                commit,
                tree,
                skipped: Vec::new(),
                skipped_why: Vec::new(),
                changed: Vec::new(),
            });
        }
        let repo = self.repo.clone();
        let transcripts = self.transcripts_dir.clone();
        let keep = self.session_id.clone();
        let _ = std::thread::Builder::new()
            .name("catui-checkpoint-cleanup".into())
            .spawn(move || {
                if let Err(e) = repo.clean_up(&transcripts, &keep) {
                    tracing::debug!("checkpoint cleanup: {e}");
                }
            });
    }

    /// A user's input starts being handled.
    pub fn input_started(&self, uuid: &str, text: &str) {
        let mut state = self.state();
        state.turn = Some(Turn {
            uuid: uuid.to_string(),
            start: None,
            changed: false,
            files: Vec::new(),
            alerted: false,
        });
        if crate::engine::slash_commands::parse(text).is_none() {
            state.line.add_prompt(Prompt {
                uuid: uuid.to_string(),
                text: text.to_string(),
                timestamp: now(),
                rewound: false,
            });
        }
    }

    /// Something is about to change the project: the turn's checkpoint is
    /// taken now unless it was already.
    pub fn before_change(&self) {
        let mut state = self.state();
        if let Some(turn) = &mut state.turn {
            turn.changed = true;
        }
        if !self.rewind_on || state.turn.as_ref().is_some_and(|t| t.start.is_some()) {
            return;
        }
        let Some(snapshot) = self.snapshot(&mut state, false) else {
            return;
        };
        let messages = std::mem::take(&mut state.line.pending);
        if !snapshot.skipped_why.is_empty() {
            self.notify(format!(
                "Left out of this checkpoint (a rewind leaves them as they are): {}",
                snapshot.skipped_why.join("; ")
            ));
        }
        self.record(
            &mut state,
            Record {
                kind: CheckpointKind::TurnStart,
                commit: snapshot.commit.clone(),
                messages,
                skipped: snapshot.skipped.clone(),
                ..blank()
            },
        );
        match &mut state.turn {
            Some(turn) => turn.start = Some(snapshot),
            None => {
                state.turn = Some(Turn {
                    uuid: String::new(),
                    start: Some(snapshot),
                    changed: true,
                    files: Vec::new(),
                    alerted: false,
                })
            }
        }
    }

    /// A plan was approved: its checkpoint, and the baseline the work is
    /// compared with from now on.
    pub fn plan_approved(&self, slug: &str, plan: &str) {
        let mut state = self.state();
        let Some(snapshot) = self.snapshot(&mut state, false) else {
            return;
        };
        let messages = state.turn.iter().map(|t| t.uuid.clone()).collect();
        self.record(
            &mut state,
            Record {
                kind: CheckpointKind::PlanApproved,
                commit: snapshot.commit.clone(),
                messages,
                plan_slug: Some(slug.to_string()),
                ..blank()
            },
        );
        state
            .line
            .approved
            .push((slug.to_string(), plan.to_string()));
        state.line.baseline = Some(Baseline {
            slug: slug.to_string(),
            commit: snapshot.commit,
            plan: plan.to_string(),
            reported: false,
        });
        state.alerted = None;
    }

    /// The comparison with the approved plan ends (a new plan, `/clear`).
    pub fn end_comparison(&self) {
        self.state().line.baseline = None;
    }

    /// The compliance report now (`now`: a snapshot just taken), when a
    /// plan is being followed.
    fn compliance(&self, state: &mut State, now: Option<Snapshot>) -> Option<PlanCompliance> {
        let baseline = state.line.baseline.clone()?;
        let now = match now {
            Some(now) => now,
            None => self.snapshot(state, false)?,
        };
        let changes = crate::sync::blocking_io(|| self.repo.changes(&baseline.commit, &now.commit))
            .unwrap_or_default();
        // The plan files themselves (a plans directory inside the project)
        // are catui's record of the work, not the work.
        let plans = self
            .plan
            .files
            .dir()
            .strip_prefix(self.repo.project())
            .ok()
            .map(|rel| rel.to_string_lossy().into_owned());
        let slug = self.plan.files.slug();
        let is_plan_file = |path: &str| match &plans {
            None => false,
            Some(dir) if !dir.is_empty() => path.starts_with(&format!("{dir}/")),
            // The project's root itself: only this session's plan files.
            Some(_) => path == format!("{slug}.md") || path.starts_with(&format!("{slug}-agent-")),
        };
        let changed: Vec<String> = changes
            .into_iter()
            .map(|c| c.path)
            .filter(|p| !is_plan_file(p))
            .collect();
        let plan_file = self.plan.files.read(None);
        // An approved amendment widens the plan: the files and steps it
        // adds are planned from then on.
        let plan = self
            .plan
            .approved_text()
            .unwrap_or_else(|| baseline.plan.clone());
        Some(compliance::report(&compliance::ComplianceInput {
            slug: &baseline.slug,
            plan: &plan,
            plan_file_now: plan_file.as_deref(),
            changed: &changed,
            project: self.repo.project(),
        }))
    }

    /// How the work compares with the approved plan now (`None`: no plan
    /// is being followed, or no snapshot could be taken).
    pub fn compliance_now(&self) -> Option<PlanCompliance> {
        let mut state = self.state();
        self.compliance(&mut state, None)
    }

    /// The model is about to end a turn in which it changed files: a note
    /// when the work drifted from the approved plan (see
    /// [`compliance::worth_a_note`]), once per turn and not again for the
    /// same drift.
    pub fn before_turn_end(&self) -> Option<String> {
        let mut state = self.state();
        state.line.baseline.as_ref()?;
        if state.turn.as_ref().is_none_or(|t| t.alerted || !t.changed) {
            return None;
        }
        let report = self.compliance(&mut state, None)?;
        if let Some(turn) = &mut state.turn {
            turn.alerted = true;
        }
        if !compliance::worth_a_note(&report) || state.alerted.as_ref() == Some(&report) {
            return None;
        }
        state.alerted = Some(report.clone());
        Some(compliance::drift_note(&report))
    }

    /// The input was handled: what the turn changed is recorded, and the
    /// work is compared with the approved plan. Done before the input's
    /// result, so that what happens after it is never taken for catui's.
    pub fn input_handled(&self) {
        let mut state = self.state();
        if let Some(turn) = state.turn.take() {
            self.end_turn(&mut state, turn);
        }
    }

    /// The state.
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Records the end of `turn` (its checkpoint, the files it changed)
    /// and, while a plan is followed, the comparison with it.
    fn end_turn(&self, state: &mut State, turn: Turn) {
        let mut end_snapshot = None;
        if turn.start.is_some()
            && let Some(end) = self.snapshot(state, false)
        {
            end_snapshot = Some(end.clone());
            // What the turn's snapshots found changed (the running turn was
            // taken out of the state above: add the last one's).
            let mut changed = turn.files.clone();
            for file in &end.changed {
                if !changed.contains(file) {
                    changed.push(file.clone());
                }
            }
            changed.truncate(MAX_LISTED_FILES);
            self.record(
                state,
                Record {
                    kind: CheckpointKind::TurnEnd,
                    commit: end.commit.clone(),
                    messages: Some(turn.uuid)
                        .filter(|u| !u.is_empty())
                        .into_iter()
                        .collect(),
                    changed,
                    skipped: end.skipped,
                    ..blank()
                },
            );
        }
        if let Some(report) = self.compliance(state, end_snapshot) {
            self.recorder.record(EngineRecord::Entry(
                catui_protocol::transcript::EntryBody::PlanCompliance {
                    report: report.clone(),
                },
            ));
            if let Some(b) = &mut state.line.baseline {
                b.reported = true;
            }
            let _ = self.events.send(EngineEvent::PlanCompliance(report));
        }
    }

    /// Whether an input is being handled.
    pub fn turn_running(&self) -> bool {
        self.state().turn.is_some()
    }

    /// Notes for the model's next request.
    fn take_notes(&self) -> Vec<catui_protocol::Attachment> {
        std::mem::take(&mut self.state().notes)
    }
}

fn blank() -> Record {
    Record {
        entry: String::new(),
        timestamp: String::new(),
        kind: CheckpointKind::TurnStart,
        commit: String::new(),
        messages: Vec::new(),
        plan_slug: None,
        changed: Vec::new(),
        skipped: Vec::new(),
        target: None,
    }
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Whether checkpoints are on: the SDK's variable (`true`/`1` on, `false`/`0`
/// off) wins, then the setting `fileCheckpointingEnabled`, then the front
/// end's default (on where someone is at the keyboard).
pub fn enabled(env: Option<&str>, setting: Option<bool>, interactive: bool) -> bool {
    match env.map(|v| v.trim().to_ascii_lowercase()) {
        Some(v) if matches!(v.as_str(), "1" | "true" | "yes" | "on") => true,
        Some(v) if matches!(v.as_str(), "0" | "false" | "no" | "off") => false,
        _ => setting.unwrap_or(interactive),
    }
}

#[cfg(test)]
#[path = "checkpoints_tests.rs"]
mod tests;
