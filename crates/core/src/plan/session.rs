//! One session's plan mode: its plan files, its state flags, its prompt
//! configuration and what it remembers about presented revisions. The
//! engine, the two plan tools and `/plan` all work through this one value.

use crate::sync::lock;
use std::sync::{Arc, Mutex};

use super::files::PlanFiles;
use super::prompts::PlanModeConfig;
use super::provider::PlanAttachmentProvider;
use super::state::PlanState;

#[derive(Debug)]
pub struct PlanSession {
    pub files: Arc<PlanFiles>,
    pub state: Arc<PlanState>,
    pub config: PlanModeConfig,
    pub provider: Arc<PlanAttachmentProvider>,
    /// The approved plan's steps, bound to the todo list.
    pub steps: super::progress::StepTracker,
    /// The plan text last shown for approval (for the next request's diff).
    presented: Mutex<Option<String>>,
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
}

/// Writes a plan's approved revision: `(slug, target directory)` -> the
/// file written, or why not.
#[derive(Clone)]
#[allow(clippy::type_complexity)]
pub struct PlanExporter(
    pub  Arc<
        dyn Fn(&str, Option<&std::path::Path>) -> Result<std::path::PathBuf, String> + Send + Sync,
    >,
);

impl std::fmt::Debug for PlanExporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlanExporter")
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
            presented: Mutex::new(None),
            changed_while_shown: Default::default(),
            verification: Mutex::new(None),
            editor,
            ends_run_at_plan: false,
            team_tool: false,
            snapshots: false,
            exporter: None,
        }
    }

    /// Lets `/plan export` write the approved plan into the project.
    pub fn with_exporter(mut self, exporter: PlanExporter) -> Self {
        self.exporter = Some(exporter);
        self
    }

    /// `/plan export [--to DIR]`: the approved revision of this
    /// conversation's plan, with its history, into the project.
    pub fn export(&self, to: Option<&std::path::Path>) -> Result<std::path::PathBuf, String> {
        match &self.exporter {
            Some(export) => (export.0)(&self.files.slug(), to),
            None => Err("plan export is not available in this session".to_string()),
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
            session.snapshot_file(super::contract::PLAN_SNAPSHOT_KEY, &path, &text);
        }
    }

    /// A new todo list: completed steps of the approved plan are checked
    /// in the plan file's progress section (and the user told `3/5 steps`).
    pub fn todos_changed(&self, todos: &[crate::tools::TodoItem], ctx: &crate::tools::ToolContext) {
        let now = chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string();
        let Some((section, done, total)) = self.steps.update(todos, &now) else {
            return;
        };
        let path = self.files.path(None);
        let Some(text) = self.files.read(None) else {
            return;
        };
        let updated = super::progress::with_progress(&text, &section);
        if let Err(e) = crate::tools::fs_atomic::write_atomic(&path, updated.as_bytes()) {
            tracing::warn!(
                "could not write the plan's progress to {}: {e}",
                path.display()
            );
            return;
        }
        if let Some(session) = &ctx.session {
            self.snapshot(session.0.as_ref());
            session.0.notify(
                "plan-progress",
                &format!("Plan progress: {done}/{total} steps ({})", path.display()),
            );
        }
    }

    pub fn team_tool_available(&self) -> bool {
        self.team_tool
    }

    /// Whether presenting the plan ends the main conversation's run.
    pub fn ends_run_at_plan(&self) -> bool {
        self.ends_run_at_plan
    }

    /// Remembers `plan` as presented for approval and returns the diff
    /// against the previously presented (and so rejected) revision.
    pub fn present_revision(&self, plan: &str) -> Option<String> {
        let mut presented = lock(&self.presented);
        let diff = presented
            .as_deref()
            .map(|previous| super::exit::plan_diff(previous, plan))
            .filter(|d| !d.is_empty());
        *presented = Some(plan.to_string());
        diff
    }

    /// The SHA-256 (hex) of the revision last shown for approval: what an
    /// answer approves.
    pub fn presented_hash(&self) -> Option<String> {
        lock(&self.presented).as_deref().map(plan_hash)
    }

    /// Whether `answer` (the approval's input) approves another text than
    /// the main plan file holds now. An answer carrying its own edited plan
    /// approves that text; a plan file that is gone is left to the tool
    /// call, which refuses.
    pub fn answer_is_stale(&self, answer: &serde_json::Value) -> bool {
        let shown = answer
            .get("planHash")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
            .or_else(|| self.presented_hash());
        let Some(shown) = shown else {
            return false;
        };
        if let Some(edited) = answer.get("plan").and_then(serde_json::Value::as_str)
            && plan_hash(edited) != shown
        {
            return false;
        }
        let stale = self
            .files
            .read(None)
            .is_some_and(|now| plan_hash(&now) != shown);
        if stale {
            self.changed_while_shown
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        stale
    }

    /// True once after [`Self::answer_is_stale`] found a changed plan: the
    /// presentation that follows is a re-presentation.
    pub fn take_changed_while_shown(&self) -> bool {
        self.changed_while_shown
            .swap(false, std::sync::atomic::Ordering::Relaxed)
    }

    /// Forgets presented revisions (after an approval).
    pub fn clear_revisions(&self) {
        *lock(&self.presented) = None;
    }

    pub fn set_verification(&self, text: Option<String>) {
        *lock(&self.verification) = text;
    }

    /// The pending verification steps, once.
    pub fn take_verification(&self) -> Option<String> {
        lock(&self.verification).take()
    }
}

/// The SHA-256 of a plan's text, as lowercase hex: the identity of the
/// revision an approval is bound to.
pub fn plan_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
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
        while let Some(next) = lines.peek() {
            let next_level = next.chars().take_while(|c| *c == '#').count();
            if next_level > 0 && next_level <= level && next[next_level..].starts_with(' ') {
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
mod tests {
    use super::*;

    #[test]
    fn finds_the_verification_section() {
        let plan = "# Plan\n\n## Steps\n1. do\n\n## Verification\n- cargo test\n- run the demo\n\n## Risks\nnone\n";
        assert_eq!(
            verification_section(plan).unwrap(),
            "- cargo test\n- run the demo"
        );
        assert_eq!(
            verification_section("# Plan\n## Testing\n\n`make check`").unwrap(),
            "`make check`"
        );
        assert_eq!(verification_section("# Plan\nno sections"), None);
    }

    #[test]
    fn revisions_diff_against_the_previous_one() {
        let dir = tempfile::tempdir().unwrap();
        let s = PlanSession::new(
            PlanFiles::new(dir.path().into(), "s"),
            PlanModeConfig::default(),
            None,
        );
        assert_eq!(s.present_revision("a\nb\n"), None);
        let diff = s.present_revision("a\nc\n").unwrap();
        assert!(diff.contains("-b") && diff.contains("+c"), "{diff}");
        assert_eq!(
            s.present_revision("a\nc\n"),
            None,
            "an unchanged plan has no diff"
        );
        s.clear_revisions();
        assert_eq!(s.present_revision("x\n"), None);
    }
}
