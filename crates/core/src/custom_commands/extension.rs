//! The extension that answers custom commands: `/NAME args` becomes a
//! turn with the command's prompt, and with its model and allow rules
//! for that turn only ([`CommandOutput::Turn`]).

use std::sync::Arc;

use super::{CommandSet, expand};
use crate::engine::EngineExtension;
use crate::engine::slash_commands::{CommandOutput, CommandTurn, SlashCommand};
use crate::tools::SessionHooks;

/// Custom commands as an engine extension (consulted after the built-in
/// commands, so those always win).
pub struct CustomCommands(pub Arc<CommandSet>);

impl EngineExtension for CustomCommands {
    fn listed_commands(&self) -> Vec<(String, String)> {
        self.0.entries()
    }

    fn command(&self, command: &SlashCommand, _: &dyn SessionHooks) -> Option<CommandOutput> {
        let custom = self.0.get(&command.name)?;
        let notice = (!custom.held_tools.is_empty()).then(|| {
            format!(
                "/{}: the project's allowed-tools ({}) wait until you trust the project; this turn asks as usual",
                custom.name,
                custom.held_tools.join(", ")
            )
        });
        Some(CommandOutput::Turn(CommandTurn {
            notice,
            prompt: expand(&custom.body, &command.args),
            allowed_tools: custom.allowed_tools.clone(),
            model: custom.model.clone(),
            source: custom.path.clone(),
        }))
    }
}
