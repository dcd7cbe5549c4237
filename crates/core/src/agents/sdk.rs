//! Agent types defined by an SDK application, in the form the Agent SDKs
//! send (`--agents JSON`, and `agents` in the `initialize` request):
//!
//! ```json
//! {"reviewer": {"description": "Reviews diffs", "prompt": "You review code.",
//!               "tools": ["Read", "Grep"], "model": "haiku"}}
//! ```
//!
//! Each becomes an [`AgentDefinition`] exactly like an agent file in
//! `.catui/agents/`: `description`, `prompt` (its system prompt), `tools`
//! (absent: every tool of the parent), `disallowedTools`, `model`
//! (`inherit`, `haiku` for the small model, `sonnet`/`opus` for the main
//! model, or a model's name) and `maxTurns`. It is read-only, and offered in
//! plan mode, when its tools are. `skills` names skills whose
//! instructions go into its prompt from the start. Fields catui has no use
//! for (`memory`, `mcpServers`, ...) are ignored.

use serde_json::Value;

use super::definitions::{AgentDefinition, ModelChoice, tools_read_only, valid_agent_name};

/// The agent types of one SDK `agents` value, and one line per entry that
/// could not be used.
pub fn parse_sdk_agents(value: &Value, origin: &str) -> (Vec<AgentDefinition>, Vec<String>) {
    let Some(map) = value.as_object() else {
        return (
            Vec::new(),
            vec![format!(
                "{origin}: agents must be an object of agent names to definitions"
            )],
        );
    };
    let mut agents = Vec::new();
    let mut problems = Vec::new();
    for (name, entry) in map {
        match parse_one(name, entry, origin) {
            Ok(def) => agents.push(def),
            Err(why) => problems.push(format!("{origin}: skipped agent `{name}`: {why}")),
        }
    }
    (agents, problems)
}

fn strings(value: Option<&Value>, key: &str) -> Result<Option<Vec<String>>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("`{key}` must be a list of tool names"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(format!("`{key}` must be a list of tool names")),
    }
}

fn text<'a>(entry: &'a Value, key: &str) -> Result<&'a str, String> {
    entry
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| format!("it needs a non-empty `{key}`"))
}

fn parse_one(name: &str, entry: &Value, origin: &str) -> Result<AgentDefinition, String> {
    if !valid_agent_name(name) {
        return Err("agent names may only contain letters, digits, '-' and '_'".into());
    }
    if !entry.is_object() {
        return Err("its definition must be an object".into());
    }
    let description = text(entry, "description")?.to_string();
    let prompt = text(entry, "prompt")?.to_string();
    let tools = strings(entry.get("tools"), "tools")?;
    let disallowed_tools =
        strings(entry.get("disallowedTools"), "disallowedTools")?.unwrap_or_default();
    let model = match entry.get("model") {
        None | Some(Value::Null) => ModelChoice::Inherit,
        Some(Value::String(m)) => match m.trim() {
            "" | "inherit" | "sonnet" | "opus" => ModelChoice::Inherit,
            "haiku" | "small" | "fast" => ModelChoice::Small,
            other => ModelChoice::Named(other.to_string()),
        },
        Some(_) => return Err("`model` must be a string".into()),
    };
    let max_turns = match entry.get("maxTurns") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| *n > 0)
                .ok_or("`maxTurns` must be a positive number")?,
        ),
    };
    Ok(AgentDefinition {
        name: name.to_string(),
        description,
        read_only: tools_read_only(tools.as_deref()),
        tools,
        disallowed_tools,
        model,
        system_prompt: prompt,
        omit_memory: false,
        max_turns,
        source: origin.to_string(),
        skills: strings(entry.get("skills"), "skills")?.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_sdk_form_becomes_agent_types() {
        let (agents, problems) = parse_sdk_agents(
            &json!({
                "reviewer": {"description": "Reviews diffs", "prompt": "You review code.",
                             "tools": ["Read", "Grep", "Glob"], "model": "haiku", "maxTurns": 3},
                "fixer": {"description": "Fixes things", "prompt": "Fix it.",
                          "disallowedTools": ["Bash"], "model": "claude-x", "skills": ["s"]},
                "bad name": {"description": "d", "prompt": "p"},
                "noprompt": {"description": "d"},
                "badtools": {"description": "d", "prompt": "p", "tools": "Read"}
            }),
            "initialize.agents",
        );
        assert_eq!(agents.len(), 2, "{problems:?}");
        let reviewer = &agents[0];
        assert_eq!(reviewer.name, "reviewer");
        assert_eq!(reviewer.description, "Reviews diffs");
        assert_eq!(reviewer.system_prompt, "You review code.");
        assert_eq!(reviewer.model, ModelChoice::Small);
        assert_eq!(reviewer.max_turns, Some(3));
        assert!(
            reviewer.read_only,
            "only reading tools: offered in plan mode"
        );
        assert!(reviewer.allows_tool("Grep") && !reviewer.allows_tool("Edit"));
        let fixer = &agents[1];
        assert_eq!(fixer.tools, None);
        assert!(!fixer.read_only);
        assert!(!fixer.allows_tool("Bash") && fixer.allows_tool("Edit"));
        assert_eq!(fixer.model, ModelChoice::Named("claude-x".into()));
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("`bad name`")));
        assert!(
            problems
                .iter()
                .any(|p| p.contains("`noprompt`") && p.contains("`prompt`"))
        );
        assert!(problems.iter().any(|p| p.contains("`tools`")));

        let (none, problems) = parse_sdk_agents(&json!([1]), "--agents");
        assert!(none.is_empty() && problems.len() == 1);
    }
}
