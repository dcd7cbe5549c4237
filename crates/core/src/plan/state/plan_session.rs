//! One session's plan mode: its plan files, its state flags, its prompt
//! configuration and what it remembers about presented revisions. The
//! engine, the two plan tools and `/plan` all work through this one value.
//! (Not the [`crate::session`] module, which keeps transcripts and resumes
//! them.)

use crate::sync::lock;
use std::sync::{Arc, Mutex};

use crate::plan::engine_hooks::attachment_provider::PlanAttachmentProvider;
use crate::plan::export::{PlanExportError, PlanExporter};
use crate::plan::files::PlanFiles;
use crate::plan::prompts::PlanModeConfig;
use crate::plan::state::PlanState;

#[derive(Debug)]
pub struct PlanSession {
    pub files: Arc<PlanFiles>,
    pub state: Arc<PlanState>,
    pub config: PlanModeConfig,
    pub provider: Arc<PlanAttachmentProvider>,
    /// The approved plan's steps, bound to the todo list.
    pub steps: crate::plan::approval::progress::StepTracker,
    /// The plan texts shown for approval: the last one (for the next
    /// request's diff) and the one before it.
    presented: Mutex<Presented>,
    /// The next presentation asks again about the same revision (the
    /// answer named another one): it compares with the one before.
    asking_again: std::sync::atomic::AtomicBool,
    /// The last presentation showed the very text presented before it
    /// (and so rejected): the model is told when it is rejected again.
    presented_unchanged: std::sync::atomic::AtomicBool,
    /// The approved text while it is being carried out (kept across
    /// compaction instead of whatever the file holds then).
    approved: Mutex<Option<String>>,
    /// Told about each approved plan (see [`Self::on_approved`]).
    approval_observers: Mutex<ApprovalObservers>,
    /// The model for requests made in plan mode and by the Plan agent
    /// (`planModel`); `None`: the session's model.
    plan_model: Option<String>,
    /// The plan file changed while its approval was pending: the next
    /// presentation says so (and shows what changed first).
    changed_while_shown: std::sync::atomic::AtomicBool,
    /// The approved plan's verification steps, shown when the run ends.
    verification: Mutex<Option<String>>,
    /// `$VISUAL` / `$EDITOR` as seen at start (for `/plan open`).
    pub editor: Option<String>,
    /// A headless planning run: presenting the plan ends the run (nobody
    /// is there to approve it).
    ends_run_at_plan: bool,
    /// The conversation can start teammates (TeamCreate): the approved
    /// plan's result suggests splitting the work.
    team_tool: bool,
    /// Plan snapshots are on (`CATUI_REMOTE`, `snapshotPlans`): every change
    /// of the plan file made outside a tool call is kept in the transcript.
    snapshots: bool,
    /// Writes the approved revision of a plan (by slug) into the project
    /// (`/plan export`); the session layer provides it.
    exporter: Option<PlanExporter>,
    /// What the model reads before the next input: the outcome of a
    /// decision carried out while no conversation ran (see
    /// [`crate::plan::carry_out_recorded`]).
    preamble: Mutex<Option<String>>,
    /// The main plan file's hash as the input being handled started
    /// (`None`: no plan then): a planning run ends with the plan only when
    /// this input wrote it.
    plan_at_input: Mutex<Option<String>>,
    /// Amendments approved for the plan being carried out.
    amendments: std::sync::atomic::AtomicUsize,
    /// The project's plan library, for `/plan use` (set by the builder).
    pub library: crate::plan::state::library_hooks::LibraryHooks,
}

/// A plan the user approved, as the observers of approvals see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovedPlan {
    pub path: std::path::PathBuf,
    /// The approved text (skipped steps marked).
    pub text: String,
    /// Its SHA-256 ([`plan_hash`]).
    pub hash: String,
    /// The texts of the steps the user left out.
    pub skipped_steps: Vec<String>,
    /// The mode implementation continues in.
    pub mode: catui_protocol::PermissionMode,
    /// The model that implements.
    pub model: String,
}

/// Runs when a plan is approved (see [`PlanSession::on_approved`]).
pub type ApprovalObserver = Arc<dyn Fn(&ApprovedPlan) + Send + Sync>;

/// The observers of approvals.
#[derive(Clone, Default)]
struct ApprovalObservers(Vec<ApprovalObserver>);

impl std::fmt::Debug for ApprovalObservers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ApprovalObservers({})", self.0.len())
    }
}

impl PlanSession {
    pub fn new(files: PlanFiles, config: PlanModeConfig, editor: Option<String>) -> Self {
        let files = Arc::new(files);
        let state = Arc::new(PlanState::new());
        let provider = Arc::new(PlanAttachmentProvider::new(
            state.clone(),
            files.clone(),
            config,
        ));
        Self {
            files,
            state,
            config,
            provider,
            steps: Default::default(),
            presented: Mutex::new(Presented::default()),
            asking_again: Default::default(),
            presented_unchanged: Default::default(),
            approved: Mutex::new(None),
            approval_observers: Mutex::new(ApprovalObservers::default()),
            plan_model: None,
            changed_while_shown: Default::default(),
            verification: Mutex::new(None),
            editor,
            ends_run_at_plan: false,
            team_tool: false,
            snapshots: false,
            exporter: None,
            preamble: Mutex::new(None),
            plan_at_input: Mutex::new(None),
            amendments: Default::default(),
            library: Default::default(),
        }
    }

    /// Keeps `text` for the model to read before the next input.
    pub fn tell_model_next(&self, text: String) {
        if !text.trim().is_empty() {
            *lock(&self.preamble) = Some(text);
        }
    }

    /// An input starts: remembers the plan file as it is, so that
    /// [`Self::plan_written_this_input`] can tell.
    pub fn input_started(&self) {
        *lock(&self.plan_at_input) = self.files.read(None).as_deref().map(plan_hash);
    }

    /// Whether the main plan file was written (or changed) since the
    /// input being handled started.
    pub fn plan_written_this_input(&self) -> bool {
        let now = self.files.read(None).as_deref().map(plan_hash);
        now.is_some() && now != *lock(&self.plan_at_input)
    }

    /// The text kept by [`Self::tell_model_next`], once.
    pub fn take_preamble(&self) -> Option<String> {
        lock(&self.preamble).take()
    }

    /// Requests in plan mode (and by the Plan agent) use `model`.
    pub fn with_plan_model(mut self, model: Option<String>) -> Self {
        self.plan_model = model.filter(|m| !m.trim().is_empty());
        self
    }

    /// The planning model, when one is set (`planModel`, `--plan-model`).
    pub fn plan_model(&self) -> Option<&str> {
        self.plan_model.as_deref()
    }

    /// Calls `observer` with every plan the user approves in this session
    /// (the moment implementation starts), after the mode has changed.
    pub fn on_approved(&self, observer: ApprovalObserver) {
        lock(&self.approval_observers).0.push(observer);
    }

    /// Tells the observers about an approval and keeps the approved text
    /// for compaction.
    pub(in crate::plan) fn approved(&self, plan: &ApprovedPlan) {
        *lock(&self.approved) = Some(plan.text.clone());
        let observers = lock(&self.approval_observers).clone();
        for observer in observers.0 {
            observer(plan);
        }
    }

    /// Takes up the approved text being carried out in a resumed session
    /// (the observers were told when it was approved).
    pub fn restore_approved(&self, text: String) {
        *lock(&self.approved) = Some(text);
    }

    /// The approved text being carried out, if any.
    pub fn approved_text(&self) -> Option<String> {
        lock(&self.approved).clone()
    }

    /// Implementation of the approved plan is over (a new plan-mode
    /// episode, `/clear`, a parked plan).
    pub fn forget_approved(&self) {
        *lock(&self.approved) = None;
        self.amendments
            .store(0, std::sync::atomic::Ordering::Relaxed);
    }

    /// Lets `/plan export` write the approved plan into the project.
    pub fn with_exporter(mut self, exporter: PlanExporter) -> Self {
        self.exporter = Some(exporter);
        self
    }

    /// `/plan export [--to DIR]`: the approved revision of this
    /// conversation's plan, with its history, into the project.
    pub fn export(
        &self,
        to: Option<&std::path::Path>,
    ) -> Result<std::path::PathBuf, PlanExportError> {
        match &self.exporter {
            Some(export) => Ok((export.0)(&self.files.slug(), to)?),
            None => Err(PlanExportError::Unavailable),
        }
    }

    /// Makes this a headless planning run (see [`Self::ends_run_at_plan`]).
    pub fn ending_runs_at_plan(mut self, yes: bool) -> Self {
        self.ends_run_at_plan = yes;
        self
    }

    /// Marks the conversation as able to start teammates.
    pub fn with_team_tool(mut self, yes: bool) -> Self {
        self.team_tool = yes;
        self
    }

    /// Turns plan snapshots on (see [`Self::snapshot`]).
    pub fn with_snapshots(mut self, yes: bool) -> Self {
        self.snapshots = yes;
        self
    }

    /// Keeps the main plan file's current text in the transcript (key
    /// `plan`) when snapshots are on. Write/Edit calls are snapshotted by the
    /// recorder; this covers the other writers (the plan edited at
    /// approval, `/plan open`).
    pub fn snapshot(&self, session: &dyn crate::tools::SessionHooks) {
        if !self.snapshots {
            return;
        }
        if let Some(text) = self.files.read(None) {
            let path = self.files.path(None).display().to_string();
            session.snapshot_file(crate::plan::contract::PLAN_SNAPSHOT_KEY, &path, &text);
        }
    }

    /// A new todo list: completed steps of the approved plan are checked
    /// in the plan file's progress section (and the user told `3/5 steps`).
    pub fn todos_changed(&self, todos: &[crate::tools::TodoItem], ctx: &crate::tools::ToolContext) {
        let now = progress_time();
        let Some((section, done, total)) = self.steps.update(todos, &now) else {
            return;
        };
        let session = ctx.session.as_ref().map(|s| s.0.as_ref());
        if self.write_progress(&section, session) {
            let path = self.files.path(None);
            if let Some(session) = session {
                session.notify(
                    "plan-progress",
                    &format!("Plan progress: {done}/{total} steps ({})", path.display()),
                );
            }
        }
    }

    /// Writes `section` as the plan file's progress section (and keeps the
    /// file's text in the transcript with snapshots on); false when the
    /// file could not be written.
    pub fn write_progress(
        &self,
        section: &str,
        session: Option<&dyn crate::tools::SessionHooks>,
    ) -> bool {
        let path = self.files.path(None);
        let Some(text) = self.files.read(None) else {
            return false;
        };
        let updated = crate::plan::approval::progress::with_progress(&text, section);
        if let Err(e) = crate::tools::fs_atomic::write_atomic(&path, updated.as_bytes()) {
            tracing::warn!(
                "could not write the plan's progress to {}: {e}",
                path.display()
            );
            return false;
        }
        if let Some(session) = session {
            self.snapshot(session);
        }
        true
    }

    /// Adds a line about the work after the steps of the progress section
    /// (the last verification, the end report) and writes the section.
    pub fn note_progress(
        &self,
        kind: crate::plan::approval::progress::NoteKind,
        text: String,
        session: Option<&dyn crate::tools::SessionHooks>,
    ) {
        if let Some(section) = self.steps.note(kind, text) {
            self.write_progress(&section, session);
        }
    }

    /// Amendments approved for the plan being carried out.
    pub fn amendments(&self) -> usize {
        self.amendments.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// An amendment was approved: `text` is the approved plan now.
    pub(in crate::plan) fn amended(&self, text: String) {
        self.amendments
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        *lock(&self.approved) = Some(text);
    }

    pub fn team_tool_available(&self) -> bool {
        self.team_tool
    }

    /// Whether presenting the plan ends the main conversation's run.
    pub fn ends_run_at_plan(&self) -> bool {
        self.ends_run_at_plan
    }

    /// Remembers `plan` as presented for approval and returns how it
    /// compares with the previously presented (and so rejected) revision.
    pub fn present_revision(&self, plan: &str) -> RevisionChange {
        let mut presented = lock(&self.presented);
        let again = self
            .asking_again
            .swap(false, std::sync::atomic::Ordering::Relaxed);
        if !again {
            presented.before = presented.last.take();
        }
        let revision = match presented.before.as_deref() {
            None => RevisionChange::First,
            Some(previous) if previous == plan => RevisionChange::Unchanged,
            Some(previous) => {
                RevisionChange::Changed(crate::plan::tools::exit_rules::plan_diff(previous, plan))
            }
        };
        self.presented_unchanged.store(
            revision == RevisionChange::Unchanged,
            std::sync::atomic::Ordering::Relaxed,
        );
        presented.last = Some(plan.to_string());
        revision
    }

    /// Whether the last presentation repeated the revision shown before it.
    pub fn presented_unchanged(&self) -> bool {
        self.presented_unchanged
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The SHA-256 (hex) of the revision last shown for approval: what an
    /// answer approves.
    pub fn presented_hash(&self) -> Option<String> {
        lock(&self.presented).last.as_deref().map(plan_hash)
    }

    /// Whether `answer` (the approval's input) answers another text than
    /// the one to approve: it names another revision than the one shown
    /// (its `planHash`), or the main plan file changed since it was shown.
    /// An answer carrying its own edited plan approves that text; a plan
    /// file that is gone is left to the tool call, which refuses; a park
    /// approves nothing and is never stale.
    pub fn answer_is_stale(&self, answer: &serde_json::Value) -> Staleness {
        if answer.get("park") == Some(&serde_json::Value::Bool(true)) {
            return Staleness::Fresh;
        }
        let answered = match answer.get("planHash") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(hash)) => Some(hash.clone()),
            // A hash that cannot be read names no revision shown: nothing
            // is approved.
            Some(_) => {
                self.asking_again
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                return Staleness::AnotherRevision;
            }
        };
        let presented = self.presented_hash();
        if let (Some(answered), Some(presented)) = (&answered, &presented)
            && answered != presented
        {
            self.asking_again
                .store(true, std::sync::atomic::Ordering::Relaxed);
            return Staleness::AnotherRevision;
        }
        let Some(shown) = presented.or(answered) else {
            return Staleness::Fresh;
        };
        if let Some(edited) = answer.get("plan").and_then(serde_json::Value::as_str)
            && plan_hash(edited) != shown
        {
            return Staleness::Fresh;
        }
        let stale = self
            .files
            .read(None)
            .is_some_and(|now| plan_hash(&now) != shown);
        if !stale {
            return Staleness::Fresh;
        }
        self.changed_while_shown
            .store(true, std::sync::atomic::Ordering::Relaxed);
        Staleness::FileChanged
    }

    /// True once after [`Self::answer_is_stale`] found a changed plan: the
    /// presentation that follows is a re-presentation.
    pub fn take_changed_while_shown(&self) -> bool {
        self.changed_while_shown
            .swap(false, std::sync::atomic::Ordering::Relaxed)
    }

    /// The next presentation is compared with `text` (a plan taken up
    /// again after it changed since its approval: the diff since then).
    pub fn compare_next_with(&self, text: String) {
        let mut presented = lock(&self.presented);
        presented.last = Some(text);
        presented.before = None;
    }

    /// Forgets presented revisions (after an approval).
    pub fn clear_revisions(&self) {
        *lock(&self.presented) = Presented::default();
        self.presented_unchanged
            .store(false, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn set_verification(&self, text: Option<String>) {
        *lock(&self.verification) = text;
    }

    /// The pending verification steps, once.
    pub fn take_verification(&self) -> Option<String> {
        lock(&self.verification).take()
    }
}

/// The texts shown for approval in this plan-mode episode.
#[derive(Debug, Default)]
struct Presented {
    last: Option<String>,
    before: Option<String>,
}

/// How a presented revision compares with the one presented before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RevisionChange {
    /// Nothing was presented before (in this plan-mode episode).
    First,
    /// The same text as before (which the user rejected).
    Unchanged,
    /// Changed: the unified diff from the previous revision.
    Changed(String),
}

/// Whether an approval answers the text it would approve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Staleness {
    Fresh,
    /// The answer's `planHash` names another revision than the one shown.
    AnotherRevision,
    /// The plan file changed after it was shown.
    FileChanged,
}

/// The SHA-256 of a plan's text, as lowercase hex: the identity of the
/// revision an approval is bound to.
pub fn plan_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The time a step was done, as the progress section shows it.
pub fn progress_time() -> String {
    chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string()
}

/// The body of the plan's verification section: the first Markdown heading
/// whose title mentions verification or testing, up to the next heading of
/// the same or a higher level.
pub fn verification_section(plan: &str) -> Option<String> {
    let mut lines = plan.lines().peekable();
    while let Some(line) = lines.next() {
        let level = line.chars().take_while(|c| *c == '#').count();
        if level == 0 || !line[level..].starts_with(' ') {
            continue;
        }
        let title = line[level..].trim().to_ascii_lowercase();
        if !(title.contains("verif") || title.contains("test") || title.contains("validat")) {
            continue;
        }
        let mut body = Vec::new();
        // A `# comment` inside a fenced block is not a heading.
        let mut fenced = false;
        while let Some(next) = lines.peek() {
            if next.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            let next_level = next.chars().take_while(|c| *c == '#').count();
            if !fenced
                && next_level > 0
                && next_level <= level
                && next[next_level..].starts_with(' ')
            {
                break;
            }
            body.push(*next);
            lines.next();
        }
        let text = body.join("\n").trim().to_string();
        return (!text.is_empty()).then_some(text);
    }
    None
}

#[cfg(test)]
#[path = "plan_session_tests.rs"]
mod tests;
