//! How checkpoints plug into the engine: a checkpoint before the first
//! call of each input that may change the project (in the main
//! conversation or any sub-agent it starts), the turn's end recorded and
//! compared with an approved plan, a drift note before the model ends a
//! turn, notes about rewinds for the model's next request, and `/rewind`
//! for front ends without a picker (stream-json, editors).

use std::path::Path;
use std::sync::Arc;

use catui_protocol::{Attachment, PermissionMode};

use super::Checkpoints;
use super::rewind::{PointKind, RewindRequest};
use super::target::RewindTarget;
use crate::engine::attachments::{AttachmentContext, AttachmentProvider};
use crate::engine::slash_commands::{CommandOutput, SlashCommand};
use crate::engine::{EngineExtension, InputView, Notice, ToolRunView};
use crate::permissions::{Access, Grant, ModeChange};
use crate::tools::SessionHooks;

/// [`Checkpoints`] as an engine extension.
pub struct CheckpointExtension(pub Arc<Checkpoints>);

/// Whether a call about to run may change the project's files.
fn may_change_project(call: &ToolRunView<'_>, project: &Path) -> bool {
    if call.call.is_read_only()
        || matches!(call.ctx.grant, Grant::ReadOnly | Grant::DryRun)
        || call.ctx.permission_mode() == PermissionMode::Plan
    {
        return false;
    }
    match call.call.access(call.ctx) {
        Access::Read { .. } | Access::Session | Access::Interaction => false,
        Access::Write { path } => {
            let path = std::fs::canonicalize(&path)
                .or_else(|_| {
                    // A new file: its folder tells.
                    path.parent()
                        .map(std::fs::canonicalize)
                        .unwrap_or_else(|| Ok(path.clone()))
                })
                .unwrap_or(path);
            path.starts_with(project)
        }
        Access::Agent { read_only, .. } => !read_only,
        Access::Shell { .. } | Access::External { .. } => true,
    }
}

impl EngineExtension for CheckpointExtension {
    fn attachment_provider(&self) -> Option<Arc<dyn AttachmentProvider>> {
        Some(Arc::new(RewindNotes(self.0.clone())))
    }

    fn mode_changed(&self, change: &ModeChange) {
        if change.changed() && change.to == PermissionMode::Plan {
            // Planning again: the approved plan is no longer the work.
            self.0.end_comparison();
        }
    }

    fn before_run(&self, call: &ToolRunView<'_>) {
        if may_change_project(call, self.0.repo.project()) {
            self.0.before_change();
        }
    }

    fn input_started(&self, input: &InputView<'_>) {
        self.0.input_started(input.uuid, input.text);
    }

    fn before_turn_end(&self) -> Option<String> {
        self.0.before_turn_end()
    }

    fn input_handled(&self) -> Vec<Notice> {
        self.0.input_handled();
        Vec::new()
    }

    fn conversation_cleared(
        &self,
        _recorder: &dyn crate::engine::Recorder,
    ) -> Option<std::path::PathBuf> {
        self.0.end_comparison();
        None
    }

    fn command(
        &self,
        command: &SlashCommand,
        _session: &dyn SessionHooks,
    ) -> Option<CommandOutput> {
        (command.name == "rewind").then(|| rewind_command(&self.0, &command.args))
    }
}

/// Notes about rewinds the model did not see happen, before its next
/// request in the main conversation.
struct RewindNotes(Arc<Checkpoints>);

impl AttachmentProvider for RewindNotes {
    fn attachments(&self, ctx: &AttachmentContext<'_>) -> Vec<Attachment> {
        if ctx.agent_id.is_some() {
            return Vec::new();
        }
        self.0.take_notes()
    }
}

/// `/rewind` — list the points (`/rewind`), or go back to one:
/// `/rewind N|ID [code|conversation|both] [--force] [--dry-run]`,
/// `/rewind plan [SLUG]`.
pub fn rewind_command(checkpoints: &Checkpoints, args: &str) -> CommandOutput {
    let words: Vec<&str> = args.split_whitespace().collect();
    let points = checkpoints.points();
    let Some(first) = words.first().copied().filter(|w| *w != "list") else {
        return CommandOutput::Local {
            text: list_points(&points),
            is_error: false,
        };
    };
    let mut request = RewindRequest {
        target: RewindTarget::parse(first),
        code: true,
        conversation: true,
        force: false,
        dry_run: false,
    };
    if first == "plan" {
        // `/rewind plan [SLUG [N]]`: the N-th approval of SLUG (or
        // `plan:SLUG#N`, as the list names it).
        request.target = match words.get(1) {
            Some(slug) if !slug.contains('#') => RewindTarget::Plan {
                slug: Some(slug.to_string()),
                approval: words.get(2).and_then(|n| n.parse().ok()),
            },
            Some(id) => RewindTarget::parse(&format!("plan:{id}")),
            None => RewindTarget::Plan {
                slug: None,
                approval: None,
            },
        };
    } else if let Ok(n) = first.parse::<usize>() {
        match points.get(n.wrapping_sub(1)) {
            Some(p) => request.target = p.target.clone(),
            None => {
                return CommandOutput::Local {
                    text: format!(
                        "There is no point {n}; `/rewind` lists {} point(s).",
                        points.len()
                    ),
                    is_error: true,
                };
            }
        }
    }
    for word in &words[1..] {
        match *word {
            "code" => (request.code, request.conversation) = (true, false),
            "conversation" => (request.code, request.conversation) = (false, true),
            "both" => (request.code, request.conversation) = (true, true),
            "--force" | "force" => request.force = true,
            "--dry-run" => request.dry_run = true,
            _ => {}
        }
    }
    if !matches!(request.target, RewindTarget::Message(_)) {
        (request.code, request.conversation) = (true, false);
    }
    match checkpoints.rewind_now(&request) {
        Ok(report) => {
            let mut text = report.summary();
            if let Some(prompt) = report.prompt.filter(|_| report.conversation) {
                text.push_str(&format!("\n\nThe message was:\n{prompt}"));
            }
            CommandOutput::Local {
                text,
                is_error: false,
            }
        }
        Err(e) => CommandOutput::Local {
            text: format!("Not rewound: {e}"),
            is_error: true,
        },
    }
}

/// The numbered list `/rewind` shows.
pub fn list_points(points: &[super::RewindPoint]) -> String {
    if points.is_empty() {
        return "Nothing to rewind to yet.".to_string();
    }
    let mut out = String::from("Points to go back to (`/rewind N [code|conversation|both]`):\n");
    for (i, p) in points.iter().enumerate() {
        let what = match p.kind {
            PointKind::Message => "",
            PointKind::PlanApproval => "[plan] ",
            PointKind::BeforeRewind => "[undo] ",
        };
        let files = if p.files.is_empty() {
            String::new()
        } else {
            format!(" — changed {}", p.files.join(", "))
        };
        out.push_str(&format!(
            "{:>3}. {what}{}{files}  ({})\n",
            i + 1,
            p.label,
            p.target.id()
        ));
    }
    out
}
