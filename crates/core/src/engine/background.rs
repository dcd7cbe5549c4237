//! Background commands in conversations: every conversation of a session
//! (sub-agents included) reaches the session's one
//! [`BackgroundShells`] list, and the model of the conversation that
//! started a command is told, with its next request, when it ended (its
//! id, how it ended and its last lines), so it need not poll.

use std::sync::Arc;

use catui_protocol::Attachment;

use super::attachments::{AttachmentContext, AttachmentProvider};
use super::extension::{AttachContext, EngineExtension};
use crate::tools::bash::{BackgroundShells, Shell};

/// Lines of output the finished reminder quotes.
const REMINDER_LINES: usize = 10;
/// Characters of those lines it quotes at most.
const REMINDER_CHARS: usize = 2_000;

/// The plug-in that gives conversations the session's background list.
pub struct BackgroundCommands(pub Arc<BackgroundShells>);

impl EngineExtension for BackgroundCommands {
    fn attach(&self, conversation: &mut AttachContext<'_>) {
        conversation.tool_ctx.values.insert(self.0.clone());
    }

    fn attachment_provider(&self) -> Option<Arc<dyn AttachmentProvider>> {
        Some(Arc::new(FinishedReminders(self.0.clone())))
    }
}

/// Tells a conversation's model about its background commands that ended.
struct FinishedReminders(Arc<BackgroundShells>);

impl AttachmentProvider for FinishedReminders {
    fn attachments(&self, ctx: &AttachmentContext<'_>) -> Vec<Attachment> {
        self.0
            .take_finished(ctx.agent_id)
            .iter()
            .map(|shell| Attachment::Reminder {
                text: finished_text(shell),
            })
            .collect()
    }
}

/// The reminder for one command that ended.
pub fn finished_text(shell: &Shell) -> String {
    let lines = shell.last_lines(REMINDER_LINES);
    let mut quoted = lines.join("\n");
    if quoted.chars().count() > REMINDER_CHARS {
        let skip = quoted.chars().count() - REMINDER_CHARS;
        quoted = format!("…{}", quoted.chars().skip(skip).collect::<String>());
    }
    let mut text = format!(
        "Background command {} (`{}`) has ended: {}.",
        shell.id,
        shell.command,
        shell.status().describe()
    );
    if quoted.is_empty() {
        text.push_str(" It printed nothing.");
    } else {
        text.push_str(&format!(
            " Its last lines:\n{quoted}\nThe whole output is in {} (BashOutput with id {} \
             returns what you have not read yet).",
            shell.output_path.display(),
            shell.id
        ));
    }
    text
}
