//! The plan module's hook into the engine: an
//! [`AttachmentProvider`](crate::engine::AttachmentProvider) that asks
//! [`crate::plan::engine_hooks::attachments`] what to inject, and renders plan attachments with
//! the plan-mode prompts. Thin on purpose: every rule lives in the pure
//! functions it calls. An attachment provider (context before a model
//! request), not a model provider: those are the `catui-providers` crate,
//! chosen in `crate::builder::provider`.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use catui_protocol::Attachment;
use catui_protocol::attachment::ReminderType;

use crate::engine::{AttachmentContext, AttachmentProvider};
use crate::plan::engine_hooks::attachments::{
    PlanAttachmentInput, auto_mode_exit_attachments, plan_attachments, render_attachment,
};
use crate::plan::files::PlanFiles;
use crate::plan::prompts::{PlanModeConfig, PromptOptions};
use crate::plan::state::PlanState;
use crate::sync::lock;
use catui_protocol::PermissionMode;

/// Produces `plan_mode`, `plan_mode_reentry` and `plan_mode_exit`
/// attachments for one conversation (main or sub-agent: the agent id comes
/// from the [`AttachmentContext`]).
#[derive(Debug, Clone)]
pub struct PlanAttachmentProvider {
    state: Arc<PlanState>,
    files: Arc<PlanFiles>,
    config: PlanModeConfig,
    /// Sub-agents without Write/Edit (their reminder has no plan file).
    read_only_agents: Arc<Mutex<HashSet<String>>>,
}

impl PlanAttachmentProvider {
    pub fn new(state: Arc<PlanState>, files: Arc<PlanFiles>, config: PlanModeConfig) -> Self {
        Self {
            state,
            files,
            config,
            read_only_agents: Arc::default(),
        }
    }

    /// Records whether the sub-agent `id` can write (Write or Edit): a
    /// read-only one is reminded to plan in its final answer.
    pub fn set_sub_agent_writes(&self, id: &str, writes: bool) {
        let mut read_only = lock(&self.read_only_agents);
        if writes {
            read_only.remove(id);
        } else {
            read_only.insert(id.to_string());
        }
    }

    /// The model-facing body of `attachment` (to be wrapped in
    /// `<system-reminder>` by the engine).
    pub fn render(&self, attachment: &Attachment, agent_id: Option<&str>) -> String {
        let path = self.files.path(agent_id);
        let mut options = PromptOptions::new(
            path.to_string_lossy(),
            self.files.exists(agent_id),
            agent_id.is_some(),
            &self.config,
        );
        options.sub_agent_writes =
            agent_id.is_none_or(|id| !lock(&self.read_only_agents).contains(id));
        render_attachment(attachment, &options)
    }
}

impl AttachmentProvider for PlanAttachmentProvider {
    fn attachments(&self, ctx: &AttachmentContext<'_>) -> Vec<Attachment> {
        let path = self.files.path(ctx.agent_id);
        let input = PlanAttachmentInput {
            messages: ctx.messages,
            meta_message_indices: &[],
            mode: ctx.mode,
            is_sub_agent: ctx.agent_id.is_some(),
            plan_file_path: &path,
            plan_exists: self.files.exists(ctx.agent_id),
        };
        let mut out = plan_attachments(&input, &self.state);
        // With each full reminder: which commands run dry, and what that
        // is for (checking the plan, citing the results in it).
        let full = out.iter().any(|a| {
            matches!(
                a,
                Attachment::PlanMode {
                    reminder_type: ReminderType::Full,
                    ..
                }
            )
        });
        if full && ctx.dry_run && ctx.agent_id.is_none() {
            out.push(Attachment::Reminder {
                text: crate::plan::prompts::dry_run_reminder().to_string(),
            });
        }
        // After auto mode ends, the model must ask again.
        out.extend(auto_mode_exit_attachments(
            &self.state,
            ctx.mode == PermissionMode::Auto,
        ));
        out
    }

    fn render(&self, attachment: &Attachment, agent_id: Option<&str>) -> Option<String> {
        Some(PlanAttachmentProvider::render(self, attachment, agent_id))
    }
}

#[cfg(test)]
mod tests {
    use catui_protocol::attachment::ReminderType;
    use catui_protocol::{ContentBlock, Message, PermissionMode, Role};

    use super::*;
    use crate::engine::attachments::render_attachment as engine_render;
    use crate::plan::engine_hooks::attachments::wrap_system_reminder;

    fn request(
        provider: &PlanAttachmentProvider,
        messages: &mut Vec<Message>,
        mode: PermissionMode,
        engine_rendering: bool,
    ) -> Vec<Attachment> {
        let found = provider.attachments(&AttachmentContext {
            mode,
            messages: messages.as_slice(),
            is_human_turn: true,
            agent_id: None,
            tools: &[],
            dry_run: false,
        });
        for a in &found {
            let text = if engine_rendering {
                engine_render(a)
            } else {
                wrap_system_reminder(&provider.render(a, None))
            };
            match messages.last_mut() {
                Some(last) if last.role == Role::User => {
                    last.content.push(ContentBlock::text(text))
                }
                _ => messages.push(Message::user_text(text)),
            }
        }
        found
    }

    #[test]
    fn provider_keeps_the_cadence_with_either_renderer() {
        for engine_rendering in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let files = Arc::new(PlanFiles::new(dir.path().to_path_buf(), "s"));
            let provider = PlanAttachmentProvider::new(
                Arc::new(PlanState::new()),
                files.clone(),
                PlanModeConfig::default(),
            );
            let mut messages = Vec::new();
            let mut hits = Vec::new();
            for turn in 1..=11 {
                if turn == 3 {
                    std::fs::write(files.path(None), "# Plan").unwrap();
                }
                messages.push(Message::user_text(format!("turn {turn}")));
                let found = request(
                    &provider,
                    &mut messages,
                    PermissionMode::Plan,
                    engine_rendering,
                );
                for a in found {
                    if let Attachment::PlanMode {
                        reminder_type,
                        plan_exists,
                        plan_file_path,
                        ..
                    } = a
                    {
                        assert_eq!(plan_file_path, files.path(None).to_string_lossy());
                        hits.push((turn, reminder_type, plan_exists));
                    }
                }
                messages.push(Message::assistant_text("ok"));
            }
            assert_eq!(
                hits,
                vec![
                    (1, ReminderType::Full, false),
                    (6, ReminderType::Sparse, true),
                    (11, ReminderType::Sparse, true)
                ],
                "engine rendering: {engine_rendering}"
            );
        }
    }

    #[test]
    fn rendered_text_uses_the_plan_prompts() {
        let dir = tempfile::tempdir().unwrap();
        let files = Arc::new(PlanFiles::new(dir.path().to_path_buf(), "s"));
        let provider = PlanAttachmentProvider::new(
            Arc::new(PlanState::new()),
            files.clone(),
            PlanModeConfig::default(),
        );
        let text = provider.render(
            &Attachment::PlanMode {
                reminder_type: ReminderType::Full,
                is_sub_agent: false,
                plan_file_path: files.path(None).to_string_lossy().into_owned(),
                plan_exists: false,
            },
            None,
        );
        assert!(text.contains("### Phase 1"));
        assert!(text.contains(&*files.path(None).to_string_lossy()));
    }
}
