//! The `Skill` tool: the model loads a skill's instructions by name and
//! gets the list of the skill's files (which it reads with Read and runs
//! with Bash, under the normal rules). Its description lists every skill
//! the session has, so the first request tells the model what exists.
//! Loading a skill only reads, so plan mode allows it.

use std::fmt::Write as _;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::SkillSet;
use crate::permissions::Access;
use crate::tools::{ToolContext, ToolError, ToolOutput, TypedTool};

use catui_protocol::tool_names::SKILL as NAME;

pub struct SkillTool(pub Arc<SkillSet>);

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillInput {
    /// The name of the skill to load, as listed in this tool's description.
    pub skill: String,
}

#[async_trait]
impl TypedTool for SkillTool {
    type Input = SkillInput;
    fn name(&self) -> &'static str {
        NAME
    }
    fn description(&self) -> String {
        format!(
            "Loads a skill: instructions (and often scripts or reference files) for a particular \
             kind of task, kept by the user or the project. When a task matches a skill's \
             description, load the skill first and follow its instructions. The result names the \
             skill's files: read them with Read and run its scripts with Bash when the \
             instructions say so.\n\nAvailable skills:\n{}",
            self.0.listing()
        )
    }
    fn is_read_only(&self, _: &SkillInput) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _: &SkillInput) -> bool {
        true
    }
    fn access(&self, _: &SkillInput, _: &ToolContext) -> Access {
        // Text catui reads through its file gate, like a memory file.
        Access::Session
    }
    fn summary(&self, input: &SkillInput) -> String {
        format!("Skill({})", input.skill)
    }
    async fn call(&self, input: SkillInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let name = input.skill.trim().trim_start_matches('/');
        let Some(skill) = self.0.get(name) else {
            return Err(ToolError::invalid(format!(
                "There is no skill named `{name}`. The skills are: {}.",
                self.0.names().join(", ")
            )));
        };
        let loaded = self
            .0
            .load(skill)
            .map_err(|e| ToolError::failed(e.to_string()))?;
        let mut out = format!(
            "Skill `{}` ({} skill, folder {})\n\n{}\n",
            skill.name,
            skill.source.label(),
            skill.dir.display(),
            loaded.body
        );
        if !loaded.files.is_empty() {
            out.push_str("\nFiles of this skill (read them with Read; run scripts with Bash):\n");
            for file in &loaded.files {
                let _ = writeln!(out, "- {}", file.display());
            }
        }
        for note in &loaded.left_out {
            let _ = writeln!(out, "(left out: {note})");
        }
        Ok(ToolOutput::text(out).with_display(format!("Loaded skill {}", skill.name)))
    }
}
