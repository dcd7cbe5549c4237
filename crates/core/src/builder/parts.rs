//! Pieces the session builder gathers: where its conversations are
//! recorded (the transcript and the sub-agents' sidechain files), the plan
//! library's exporter, dispatcher and lookup, the checkpoints, the sandbox
//! and the system prompt.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::WarningSink;
use crate::engine::EngineEvent;
use crate::engine::{MemoryRecorder, Recorder, RecorderFactory};
use crate::permissions::sandbox::{SandboxPolicy, SessionSandbox, Stage};
use crate::prompt::{self, PromptOptions};
use crate::session::{Notifier, SessionLock, TranscriptRecorder, TranscriptWriter};

/// The completion gate and the effort by phase, from the settings
/// (`completionCheck`, `planEffort`), the environment
/// (`CATUI_COMPLETION_CHECK`, which wins over the setting) and the command
/// line (`--plan-effort`, which wins); a wrong value is said and ignored.
pub(super) fn completion_gate(
    settings: &crate::settings::Settings,
    env_check: Option<String>,
    plan_effort: Option<catui_protocol::Effort>,
    nobody_here: bool,
    warn: &WarningSink,
) -> crate::completion::CompletionGate {
    use crate::completion::{CompletionCheck, CompletionGate};
    let check_text = env_check.or_else(|| settings.completion_check.clone());
    let check = match check_text.as_deref().map(str::parse) {
        Some(Ok(check)) => check,
        Some(Err(e)) => {
            warn(&format!("{e}; using \"auto\""));
            CompletionCheck::Auto
        }
        None => CompletionCheck::Auto,
    };
    let effort = plan_effort.or_else(|| {
        let text = settings.plan_effort.as_deref()?;
        match text.parse::<catui_protocol::Effort>() {
            Ok(effort) => Some(effort),
            Err(e) => {
                warn(&format!("planEffort: {e}; the session's effort is used"));
                None
            }
        }
    });
    CompletionGate::new(check, nobody_here, effort)
}

/// Where the main conversation is recorded.
pub(super) enum MainRecorder {
    /// The session's transcript file.
    File(Arc<TranscriptRecorder>),
    /// A recorder the caller gave.
    Given(Arc<dyn Recorder>),
    /// Nowhere: the transcript could not be opened.
    None,
}

impl MainRecorder {
    pub(super) fn path(&self) -> Option<PathBuf> {
        match self {
            MainRecorder::File(r) => Some(r.path().to_path_buf()),
            _ => None,
        }
    }
}

/// The session's transcript, or nothing (with a warning) when it cannot be
/// opened: a read-only home must not stop the user from working.
/// The recorder keeps the session's lock and announces write failures
/// through `notifier`.
pub(super) fn open_transcript(
    config_dir: &Path,
    cwd: &Path,
    session_id: &str,
    lock: Option<SessionLock>,
    notifier: Notifier,
    warn: &WarningSink,
) -> MainRecorder {
    match TranscriptWriter::for_session(config_dir, cwd, session_id) {
        Ok(w) => {
            let recorder = TranscriptRecorder::new(w).with_notifier(notifier);
            MainRecorder::File(Arc::new(match lock {
                Some(lock) => recorder.with_lock(lock),
                None => recorder,
            }))
        }
        Err(e) => {
            warn(&format!(
                "the transcript cannot be written ({e}); this session will not be resumable"
            ));
            MainRecorder::None
        }
    }
}

/// Sub-agents and teammates record into sidechain files beside the
/// session's transcript (in memory when it has none).
pub(super) fn sidechain_recorders(
    session_path: Option<PathBuf>,
    session_id: String,
    cwd: PathBuf,
    warn: WarningSink,
) -> RecorderFactory {
    Arc::new(move |agent_id: &str| -> Arc<dyn Recorder> {
        let Some(path) = &session_path else {
            return Arc::new(MemoryRecorder::default());
        };
        match TranscriptWriter::for_sidechain(path, &session_id, &cwd, agent_id) {
            Ok(w) => Arc::new(TranscriptRecorder::new(w)),
            Err(e) => {
                warn(&format!("the sub-agent transcript cannot be written: {e}"));
                Arc::new(MemoryRecorder::default())
            }
        }
    })
}

/// `/plan export`: the approved revision of a plan, found in this project's
/// transcripts (`sessions_dir`), written into the project at `cwd`.
pub(super) fn plan_exporter(
    sessions_dir: PathBuf,
    cwd: PathBuf,
) -> crate::plan::export::PlanExporter {
    crate::plan::export::PlanExporter(Arc::new(move |slug: &str, to: Option<&Path>| {
        crate::session::plan_history::export(&sessions_dir, &cwd, slug, to)
    }))
}

/// `/plan use`: what this project's library (its transcripts in
/// `sessions_dir`, its plan files in `plans_dir`) knows about a plan.
#[allow(clippy::type_complexity)]
pub(super) fn plan_library_lookup(
    sessions_dir: PathBuf,
    plans_dir: PathBuf,
) -> Arc<dyn Fn(&str) -> Option<crate::plan::pick_up::LibraryPlan> + Send + Sync> {
    Arc::new(move |slug: &str| {
        let e = crate::session::plan_library::entry(&sessions_dir, &plans_dir, slug)?;
        Some(crate::plan::pick_up::LibraryPlan {
            approved: e.approved.map(|(_, text)| text),
            changed_since_approval: e.changed_since_approval,
            state: e.state.as_str().to_string(),
        })
    })
}

/// The approval's fifth choice: `catui plans dispatch SLUG --json` run by
/// this very binary in the project (it makes the worktree, starts the
/// background agent detached, and returns at once); the session then
/// follows that agent as one of its background tasks.
pub(super) fn plan_dispatcher(
    cwd: PathBuf,
    agents: Arc<crate::agents::BackgroundAgents>,
) -> crate::plan::pick_up::Dispatcher {
    Arc::new(move |request: crate::plan::pick_up::DispatchRequest<'_>| {
        let exe = std::env::current_exe().map_err(|e| format!("catui cannot find itself: {e}"))?;
        let mut command = std::process::Command::new(exe);
        command.args(["plans", "dispatch", request.slug, "--json"]);
        // The background agent works with the permissions chosen at
        // approval.
        if let Some(mode) = request.mode {
            command.args(["--permission-mode", mode.as_str()]);
        }
        let output = command
            .current_dir(&cwd)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("could not run `catui plans dispatch`: {e}"))?;
        let said = |bytes: &[u8]| {
            let text = String::from_utf8_lossy(bytes).trim().to_string();
            text.strip_prefix("catui: ").unwrap_or(&text).to_string()
        };
        if !output.status.success() {
            return Err(said(&output.stderr));
        }
        let started: catui_protocol::task::DispatchStarted =
            serde_json::from_slice(&output.stdout).map_err(|e| {
                format!(
                    "`catui plans dispatch` started the agent but said something else than expected ({e}): {}",
                    said(&output.stdout)
                )
            })?;
        let message = started.message.clone();
        let task = agents.follow_dispatch(started, request.tool_use_id.map(str::to_string));
        Ok(format!(
            "{message}\nIt is background task {}: you are told when it ends, with its summary.",
            task.id
        ))
    })
}

/// The session's checkpoints, told of plan approvals (through a weak
/// handle: the plan session must not keep the service alive).
pub(super) fn checkpoints(
    setup: crate::checkpoints::CheckpointSetup,
) -> Arc<crate::checkpoints::Checkpoints> {
    let plan = setup.plan.clone();
    let checkpoints = crate::checkpoints::Checkpoints::new(setup);
    let weak = Arc::downgrade(&checkpoints);
    plan.on_approved(Arc::new(
        move |approved: &crate::plan::state::plan_session::ApprovedPlan| {
            let slug = approved
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Some(c) = weak.upgrade() {
                c.plan_approved(&slug, &approved.text);
            }
        },
    ));
    checkpoints
}

/// Sandbox: the policy approved commands run under, the session's
/// confiner (which `permissions` and `tool_ctx` learn about), and plan
/// mode's dry-run area.
pub(super) fn sandbox_stage(
    b: &super::base::Base,
    permissions: &mut crate::permissions::PermissionContext,
    tool_ctx: &mut crate::tools::ToolContext,
) -> Arc<SessionSandbox> {
    let (config, settings) = (&b.config, &b.settings);
    // Commands someone approved run confined to the working dirs when
    // the `sandbox` setting says so; those judged read-only always run
    // in the read-only sandbox, whose layers decide whether they may
    // run unasked at all.
    let approved = match &settings.sandbox {
        Some(s) if s.enabled => {
            let mut writable = permissions.working_dirs.clone();
            writable.push(std::env::temp_dir());
            SandboxPolicy::WorkingDirs {
                writable,
                network: s.network.clone(),
            }
        }
        _ => SandboxPolicy::None,
    };
    // The same stores the permission layer asks about, and the same
    // home their `~` and `.env` files were found in.
    let confiner = Arc::new(SessionSandbox::new(
        config.sandbox_stage.clone().map(Stage::catui),
        permissions.secrets.clone(),
        b.home.clone(),
        approved.clone(),
    ));
    permissions.can_confine = confiner.complete();
    permissions.can_confine_writes = confiner.confines_writes();
    // Plan mode's dry runs: on unless settings turn them off, where
    // the sandbox can mount their overlays; each session's scratch
    // area beside the temp dirs, and those of killed sessions removed.
    let dry_run_root = crate::permissions::dry_run::default_root();
    crate::permissions::dry_run::sweep(&dry_run_root);
    let dry_run_unavailable = confiner.dry_run_unavailable();
    permissions.dry_run = settings.dry_run.enabled() && dry_run_unavailable.is_none();
    let area = crate::permissions::dry_run::DryRunArea::new(dry_run_root, &b.session_id);
    area.set_max_mib(settings.dry_run.max_scratch_mib());
    area.set_max_processes(settings.dry_run.max_processes());
    tool_ctx.dry_run = Arc::new(area);
    tool_ctx.set_sandbox_policy(approved);
    tool_ctx.confiner = confiner.clone();
    confiner
}

/// The prompt stage's result: what the system prompt is made of and the
/// prompt itself.
pub(super) struct PromptStage {
    pub options: PromptOptions,
    pub memory: Vec<prompt::MemoryFile>,
    pub choice: prompt::SystemPromptChoice,
    pub system_prompt: String,
}

/// Prompt: the memory files (through the file gate; what it refused, and
/// the skills' and commands' problems, said once) and the system prompt.
pub(super) fn prompt_stage(
    b: &super::base::Base,
    tools: &super::tools::ToolsStage,
    permissions: &crate::permissions::PermissionContext,
    events_tx: &tokio::sync::mpsc::UnboundedSender<crate::engine::EngineEvent>,
) -> PromptStage {
    let (config, warn, extras) = (&b.config, &b.warn, &tools.extras);
    let prompt_opts = PromptOptions {
        config_dir: b.config_dir().clone(),
        nobody_here: b.nobody_here,
        ..PromptOptions::detect(
            b.cwd().clone(),
            tools.tools.names(),
            b.resolved.model.clone(),
        )
    };
    // Memory files pass the file gate; what it refused is said once.
    let gate = crate::file_gate::FileGate::for_session(
        &permissions.working_dirs,
        &config.config_dir,
        permissions.secrets.clone(),
    );
    let memory_load = prompt::load_memory_files(&config.cwd, &config.config_dir, &gate);
    for line in &memory_load.refused {
        warn(line);
        let _ = events_tx.send(EngineEvent::Notification {
            key: "file-gate".into(),
            text: line.clone(),
        });
    }
    for line in extras
        .skills
        .warnings
        .iter()
        .chain(&extras.commands.warnings)
    {
        warn(line);
        let _ = events_tx.send(EngineEvent::Notification {
            key: "file-gate".into(),
            text: line.clone(),
        });
    }
    let memory = memory_load.files;
    let prompt_choice = prompt::SystemPromptChoice {
        base: config.system_prompt.clone(),
        append: config.append_system_prompt.clone(),
    };
    let system_prompt = prompt_choice.render(&prompt_opts, &memory);
    PromptStage {
        options: prompt_opts,
        memory,
        choice: prompt_choice,
        system_prompt,
    }
}
