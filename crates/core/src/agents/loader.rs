//! User-defined agents: Markdown files with a YAML-style front matter
//! (`name`, `description`, `tools`, `model`) whose body is the system
//! prompt, from `$CATUI_CONFIG_DIR/agents/*.md` and `<project>/.catui/agents/*.md`.
//! Project agents override user agents, which override built-ins of the
//! same name. A project agent is used only when the caller accepts it (the
//! project's trust: docs/SECURITY.md, "Trust").

use std::path::{Path, PathBuf};

use super::definitions::{AgentDefinition, ModelChoice, tools_read_only, valid_agent_name};
use crate::file_gate::{FileGate, GateRefusal};
use crate::permissions::secrets::SecretStores;

/// The largest agent file read: a system prompt, not a data dump (and a
/// link to `/dev/zero` must not exhaust memory).
const MAX_AGENT_FILE_BYTES: u64 = 1024 * 1024;

/// Why an agent file was not used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentFileError {
    #[error("it must start with a front matter block delimited by --- lines")]
    NoFrontMatter,
    #[error("the front matter is not closed by a --- line")]
    UnclosedFrontMatter,
    #[error("front matter line is not `key: value`: {0}")]
    BadLine(String),
    #[error("the front matter has no `name`")]
    NoName,
    #[error("agent name '{0}' may only contain letters, digits, '-' and '_'")]
    BadName(String),
    #[error("the file has no system prompt after the front matter")]
    NoSystemPrompt,
}

/// Which agent files a session reads.
pub struct AgentSources<'a> {
    /// `$CATUI_CONFIG_DIR/agents`, when the user's settings are read.
    pub user_dir: Option<PathBuf>,
    /// `<project>/.catui/agents`, when the project's are.
    pub project_dir: Option<PathBuf>,
    /// Whether a project agent may be used (the project's trust decides):
    /// its file, its text and what it defines.
    pub accept_project: &'a dyn Fn(&Path, &str, &AgentDefinition) -> bool,
    /// The session's file gate: an agent file must resolve inside the
    /// project or catui's directory, never into a secret store.
    pub gate: FileGate,
}

impl AgentSources<'_> {
    /// The user's and the project's agent directories, every project agent
    /// accepted.
    pub fn all(project_root: &Path, config_dir: &Path) -> AgentSources<'static> {
        let project = [project_root.to_path_buf()];
        AgentSources {
            user_dir: Some(config_dir.join("agents")),
            project_dir: Some(project_root.join(".catui").join("agents")),
            accept_project: &|_, _, _| true,
            gate: FileGate::for_session(
                &project,
                config_dir,
                SecretStores::for_user(&[], &project).with_catui_dir(config_dir, &[]),
            ),
        }
    }
}

/// The agents of a session.
#[derive(Debug, Default)]
pub struct LoadedAgents {
    /// Built-ins, then the user's, then the project's (a later one
    /// replaces an earlier one of the same name).
    pub agents: Vec<AgentDefinition>,
    /// Files that were skipped, one line each.
    pub warnings: Vec<String>,
    /// Project agents not accepted (they wait for the project's trust),
    /// with their files' text.
    pub held: Vec<(AgentDefinition, String)>,
}

/// Every agent type of a session.
pub fn load_agents(sources: &AgentSources<'_>) -> LoadedAgents {
    let mut loaded = LoadedAgents {
        agents: super::builtin_agents(),
        ..LoadedAgents::default()
    };
    let dirs = [(&sources.user_dir, false), (&sources.project_dir, true)];
    for (dir, from_project) in dirs {
        let Some(dir) = dir else { continue };
        for path in agent_files(dir) {
            match read_agent(&path, &sources.gate) {
                Ok((text, def)) => {
                    if from_project && !(sources.accept_project)(&path, &text, &def) {
                        loaded.held.push((def, text));
                        continue;
                    }
                    loaded.agents.retain(|a| a.name != def.name);
                    loaded.agents.push(def);
                }
                Err(e) => loaded
                    .warnings
                    .push(format!("skipped agent file {}: {e}", path.display())),
            }
        }
    }
    loaded
}

/// Why an agent file could not be read or used.
#[derive(Debug, thiserror::Error)]
pub enum ReadAgentError {
    /// The file gate refused the file, or it could not be read.
    #[error(transparent)]
    Read(#[from] GateRefusal),
    /// The file was read but does not define an agent.
    #[error(transparent)]
    Parse(#[from] AgentFileError),
}

/// Reads (through `gate`) and parses one agent file: its text and what it
/// defines.
pub fn read_agent(
    path: &Path,
    gate: &FileGate,
) -> Result<(String, AgentDefinition), ReadAgentError> {
    let text = gate.read_text(path, MAX_AGENT_FILE_BYTES)?;
    let def = parse_agent(&text, path)?;
    Ok((text, def))
}

/// The agent files (`*.md`) of `dir`, sorted.
pub fn agent_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    files
}

/// Parses one agent file.
pub fn parse_agent(text: &str, path: &Path) -> Result<AgentDefinition, AgentFileError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---")
        .ok_or(AgentFileError::NoFrontMatter)?;
    let end = rest
        .find("\n---")
        .ok_or(AgentFileError::UnclosedFrontMatter)?;
    let (front, body) = (&rest[..end], &rest[end + 4..]);
    let body = body.split_once('\n').map(|(_, b)| b).unwrap_or("").trim();

    let mut name = None;
    let mut description = None;
    let mut tools: Option<Vec<String>> = None;
    let mut model = ModelChoice::Inherit;
    let mut lines = front.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let (key, value) = line
            .split_once(':')
            .ok_or_else(|| AgentFileError::BadLine(line.to_string()))?;
        let value = unquote(value.trim());
        match key.trim() {
            "name" => name = Some(value.to_string()),
            "description" => description = Some(value.to_string()),
            "model" => {
                model = match value {
                    "" | "inherit" => ModelChoice::Inherit,
                    "small" | "haiku" | "fast" => ModelChoice::Small,
                    "plan" | "planning" => ModelChoice::Planning,
                    other => ModelChoice::Named(other.to_string()),
                }
            }
            "tools" => {
                let mut list = Vec::new();
                if value.is_empty() {
                    // YAML block list on the following lines.
                    while let Some(next) = lines.peek() {
                        let Some(item) = next.trim().strip_prefix("- ") else {
                            break;
                        };
                        list.push(unquote(item.trim()).to_string());
                        lines.next();
                    }
                } else {
                    let inner = value.trim_start_matches('[').trim_end_matches(']');
                    list.extend(
                        inner
                            .split(',')
                            .map(|t| unquote(t.trim()).to_string())
                            .filter(|t| !t.is_empty()),
                    );
                }
                tools = Some(list);
            }
            _ => {} // unknown keys are allowed (forward compatible)
        }
    }
    let name = name
        .filter(|n| !n.is_empty())
        .ok_or(AgentFileError::NoName)?;
    if !valid_agent_name(&name) {
        return Err(AgentFileError::BadName(name));
    }
    if body.is_empty() {
        return Err(AgentFileError::NoSystemPrompt);
    }
    let read_only = tools_read_only(tools.as_deref());
    Ok(AgentDefinition {
        description: description.unwrap_or_else(|| format!("User-defined agent {name}")),
        name,
        tools,
        disallowed_tools: vec![],
        model,
        system_prompt: body.to_string(),
        omit_memory: false,
        max_turns: None,
        read_only,
        source: path.display().to_string(),
        skills: Vec::new(),
    })
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    for q in ['"', '\''] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_errors_say_whether_the_file_or_its_text_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let gate = FileGate::new([dir.path().to_path_buf()], SecretStores::default());
        let missing = read_agent(&dir.path().join("none.md"), &gate).unwrap_err();
        assert!(matches!(missing, ReadAgentError::Read(_)), "{missing}");
        let bare = dir.path().join("bare.md");
        std::fs::write(&bare, "no front matter").unwrap();
        let bad = read_agent(&bare, &gate).unwrap_err();
        assert!(
            matches!(bad, ReadAgentError::Parse(AgentFileError::NoFrontMatter)),
            "{bad}"
        );
        // The message is the inner error's, as the loader's warning shows it.
        assert_eq!(bad.to_string(), AgentFileError::NoFrontMatter.to_string());
    }

    #[test]
    fn parses_inline_and_block_tool_lists() {
        let a = parse_agent(
            "---\nname: reviewer\ndescription: \"Reviews diffs\"\ntools: Read, Grep, Glob\nmodel: small\n---\nYou review code.\n",
            Path::new("r.md"),
        )
        .unwrap();
        assert_eq!(a.name, "reviewer");
        assert_eq!(a.description, "Reviews diffs");
        assert_eq!(
            a.tools,
            Some(vec!["Read".into(), "Grep".into(), "Glob".into()])
        );
        assert_eq!(a.model, ModelChoice::Small);
        assert!(a.read_only);
        assert_eq!(a.system_prompt, "You review code.");

        let b = parse_agent(
            "---\nname: fixer\ntools:\n  - Read\n  - Edit\n---\nFix things.",
            Path::new("f.md"),
        )
        .unwrap();
        assert_eq!(b.tools, Some(vec!["Read".into(), "Edit".into()]));
        assert!(!b.read_only);
        assert!(!b.allows_tool("Bash"));
        assert!(b.allows_tool("Edit"));

        // Every tool, or tools only known at run time, are not read-only.
        for tools in ["\"*\"", "Read, mcp__db__query", "Read, Bash"] {
            let c = parse_agent(
                &format!("---\nname: c\ntools: {tools}\n---\nDo it."),
                Path::new("c.md"),
            )
            .unwrap();
            assert!(!c.read_only, "{tools}");
        }
    }

    #[test]
    fn bad_files_are_reported_not_fatal() {
        let err = |text: &str| parse_agent(text, Path::new("x.md")).unwrap_err();
        assert_eq!(err("no front matter"), AgentFileError::NoFrontMatter);
        assert!(err("no front matter").to_string().contains("front matter"));
        assert_eq!(err("---\nname: x\n"), AgentFileError::UnclosedFrontMatter);
        assert_eq!(
            err("---\ndescription: d\n---\nbody"),
            AgentFileError::NoName
        );
        assert_eq!(
            err("---\nname: a b\n---\nbody"),
            AgentFileError::BadName("a b".into())
        );
        assert_eq!(err("---\nname: a\n---\n"), AgentFileError::NoSystemPrompt);
    }

    #[test]
    fn project_agents_override_user_and_builtin() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        let config = dir.path().join("c");
        std::fs::create_dir_all(project.join(".catui/agents")).unwrap();
        std::fs::create_dir_all(config.join("agents")).unwrap();
        std::fs::write(
            config.join("agents/explore.md"),
            "---\nname: Explore\n---\nuser explore",
        )
        .unwrap();
        std::fs::write(
            project.join(".catui/agents/explore.md"),
            "---\nname: Explore\n---\nproject explore",
        )
        .unwrap();
        std::fs::write(project.join(".catui/agents/broken.md"), "nope").unwrap();
        let LoadedAgents {
            agents, warnings, ..
        } = load_agents(&AgentSources::all(&project, &config));
        let explore: Vec<_> = agents.iter().filter(|a| a.name == "Explore").collect();
        assert_eq!(explore.len(), 1);
        assert_eq!(explore[0].system_prompt, "project explore");
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("broken.md"));
        assert!(agents.iter().any(|a| a.name == "general-purpose"));
    }

    #[test]
    fn hostile_agent_files_are_skipped_without_hanging() {
        let dir = tempfile::tempdir().unwrap();
        let agents = dir.path().join("p/.catui/agents");
        std::fs::create_dir_all(&agents).unwrap();
        std::os::unix::fs::symlink("/dev/zero", agents.join("zero.md")).unwrap();
        crate::safe_fs::mkfifo(&agents.join("pipe.md"));
        std::fs::write(agents.join("huge.md"), vec![b'x'; 2 * 1024 * 1024]).unwrap();
        let warnings = load_agents(&AgentSources::all(
            &dir.path().join("p"),
            &dir.path().join("c"),
        ))
        .warnings;
        let all = warnings.join("\n");
        assert_eq!(warnings.len(), 3, "{all}");
        assert!(all.contains("zero.md was not read"), "{all}");
        assert!(all.contains("FIFO"), "{all}");
        assert!(all.contains("too large"), "{all}");
    }

    #[test]
    fn agent_files_linking_out_of_the_project_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let agents = root.join("p/.catui/agents");
        std::fs::create_dir_all(&agents).unwrap();
        std::fs::write(root.join("outside.md"), "---\nname: out\n---\nOUTSIDE").unwrap();
        std::os::unix::fs::symlink("../../../outside.md", agents.join("out.md")).unwrap();
        let loaded = load_agents(&AgentSources::all(&root.join("p"), &root.join("c")));
        assert!(!loaded.agents.iter().any(|a| a.name == "out"));
        assert!(
            loaded.warnings.join("\n").contains("outside"),
            "{:?}",
            loaded.warnings
        );
    }
}
