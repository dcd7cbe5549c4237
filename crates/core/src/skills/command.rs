//! `/skills`: the session's skills, where each was found, and which are
//! not listed to the model (the listing budget).

use std::fmt::Write as _;
use std::sync::Arc;

use super::SkillSet;
use crate::engine::EngineExtension;
use crate::engine::slash_commands::{CommandOutput, SlashCommand};
use crate::tools::SessionHooks;

/// The extension answering `/skills`.
pub struct SkillsCommand(pub Arc<SkillSet>);

/// The `/skills` text.
pub fn skills_text(set: &SkillSet) -> String {
    if set.is_empty() {
        return "No skills. A skill is a folder with a SKILL.md (front matter `name` and `description`, instructions below) in .catui/skills/ or .claude/skills/ of the project, or in skills/ of catui's directory.".into();
    }
    let mut out = String::from("Skills:\n");
    for skill in &set.skills {
        let _ = writeln!(
            out,
            "  {} ({}) — {}{}",
            skill.name,
            skill.source.label(),
            skill.description,
            if skill.listed {
                ""
            } else {
                " [not listed to the model: listing budget]"
            }
        );
        let _ = writeln!(out, "      {}", skill.dir.display());
    }
    for warning in &set.warnings {
        let _ = writeln!(out, "  ! {warning}");
    }
    out
}

impl EngineExtension for SkillsCommand {
    fn command(&self, command: &SlashCommand, _: &dyn SessionHooks) -> Option<CommandOutput> {
        (command.name == "skills").then(|| CommandOutput::Local {
            text: skills_text(&self.0),
            is_error: false,
        })
    }
}
