//! The system prompt: who the agent is, how it works (with the house
//! rules: permissions, safety, untrusted content, what `<system-reminder>`
//! text is, git), notes for the tools it has, the environment (with the
//! git branch), and the memory files (AGENTS.md / CLAUDE.md).
//!
//! A caller may replace the base (who the agent is, how it works, the tool
//! notes) with its own text ([`SystemPromptChoice`], the SDKs'
//! `system_prompt`); the house rules, the environment and the memory files
//! stay, and so do everything outside the prompt: tool descriptions and
//! plan-mode reminders.
//!
//! [`build_system_prompt`] reads the memory files and renders;
//! [`render_system_prompt`] is the pure part (snapshot-tested).
//! [`PromptOptions::detect`] fills the options from the real environment
//! without running anything. Plan-mode instructions are not here, and
//! neither is the git snapshot ([`git`]): they arrive as attachments.

mod environment;
pub mod git;
mod guidance;
pub mod machine;
mod memory;

use std::fmt::Write as _;
use std::path::PathBuf;

pub use git::{GIT_TIMEOUT, GitSnapshot, GitStatusAttachments, GitSummary, git_summary};
pub use machine::{MachineAttachments, MachineFacts};
pub use memory::{
    MAX_IMPORT_DEPTH, MEMORY_FILE_CAP_BYTES, MEMORY_FILE_NAMES, MemoryFile, MemoryLoad,
    load_memory_files,
};

/// Everything the system prompt depends on. Injectable so tests and
/// snapshots are deterministic.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptOptions {
    /// The working directory (absolute).
    pub cwd: PathBuf,
    /// The names of the tools offered to the model, in order.
    pub tool_names: Vec<String>,
    pub model: String,
    /// Whether to include the memory files.
    pub include_memory: bool,
    /// `$CATUI_CONFIG_DIR`, for the user's own `AGENTS.md`.
    pub config_dir: PathBuf,
    /// Today's date, e.g. `2025-06-01`.
    pub date: String,
    /// e.g. `linux (x86_64)`.
    pub platform: String,
    /// The checked-out branch (or detached HEAD) when `cwd` is inside a
    /// git work tree; `None` outside a repository.
    pub git_branch: Option<String>,
    /// Nobody can answer or approve anything (a plain `-p` run, or
    /// `--unattended`): the prompt says so ([`guidance::nobody_here`]).
    pub nobody_here: bool,
}

impl PromptOptions {
    /// Options for a real session in `cwd`: the configured catui home,
    /// today's local date, this machine's platform and the git branch (read
    /// from the repository's HEAD file; no process is started).
    pub fn detect(
        cwd: impl Into<PathBuf>,
        tool_names: Vec<String>,
        model: impl Into<String>,
    ) -> Self {
        let cwd = cwd.into();
        let git_branch =
            crate::session::git_branch::head(&cwd).map(|head| git::describe_head(&head));
        Self {
            cwd,
            tool_names,
            model: model.into(),
            include_memory: true,
            config_dir: crate::config_dir::config_dir(),
            date: chrono::Local::now().format("%Y-%m-%d").to_string(),
            platform: format!("{} ({})", std::env::consts::OS, std::env::consts::ARCH),
            git_branch,
            nobody_here: false,
        }
    }
}

/// The system prompt for a session, memory files read from disk when
/// `opts.include_memory` is set (through the gate of a session in
/// `opts.cwd` with the user's secret stores).
pub fn build_system_prompt(opts: &PromptOptions) -> String {
    let memory = if opts.include_memory {
        let project = std::slice::from_ref(&opts.cwd);
        let secrets = crate::permissions::secrets::SecretStores::for_user(&[], project)
            .with_catui_dir(&opts.config_dir, &[]);
        let gate = crate::file_gate::FileGate::for_session(project, &opts.config_dir, secrets);
        load_memory_files(&opts.cwd, &opts.config_dir, &gate).files
    } else {
        Vec::new()
    };
    render_system_prompt(opts, &memory)
}

/// The system prompt from options and already-loaded memory files.
pub fn render_system_prompt(opts: &PromptOptions, memory: &[MemoryFile]) -> String {
    render(None, opts, memory)
}

/// The system prompt with `base` in place of catui's own identity, ways of
/// working and tool notes; the house rules, the environment and the memory
/// files are kept.
pub fn render_custom_system_prompt(
    base: &str,
    opts: &PromptOptions,
    memory: &[MemoryFile],
) -> String {
    render(Some(base), opts, memory)
}

fn render(custom: Option<&str>, opts: &PromptOptions, memory: &[MemoryFile]) -> String {
    let mut out = String::new();
    match custom {
        Some(base) => {
            out.push_str(base.trim_end());
            out.push_str("\n\n");
            out.push_str(&guidance::house_rules(opts.nobody_here));
            out.push_str("\n\n");
            if opts.nobody_here {
                out.push_str(&guidance::nobody_here(&opts.tool_names));
                out.push_str("\n\n");
            }
        }
        None => {
            out.push_str(guidance::IDENTITY);
            out.push_str("\n\n");
            out.push_str(&guidance::conduct(opts.nobody_here));
            out.push_str("\n\n");
            if opts.nobody_here {
                out.push_str(&guidance::nobody_here(&opts.tool_names));
                out.push_str("\n\n");
            }
            let before_tools = out.len();
            guidance::render_tools(&mut out, &opts.tool_names);
            if out.len() > before_tools {
                out.push('\n');
            }
        }
    }
    environment::render_environment(
        &mut out,
        &opts.cwd,
        opts.git_branch.as_deref(),
        &opts.platform,
        &opts.date,
        &opts.model,
    );
    if !memory.is_empty() {
        out.push('\n');
        render_memory(&mut out, memory);
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

/// What the caller asked of the main conversation's system prompt: its own
/// base instead of catui's (`--system-prompt`, the SDKs' `system_prompt`
/// string), and text to add at the end (`--append-system-prompt`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SystemPromptChoice {
    /// Replaces catui's base; blank text keeps catui's (the SDKs send `""`
    /// when nothing was asked).
    pub base: Option<String>,
    pub append: Option<String>,
}

impl SystemPromptChoice {
    /// The prompt this choice makes.
    pub fn render(&self, opts: &PromptOptions, memory: &[MemoryFile]) -> String {
        let mut prompt = match self.base.as_deref().filter(|b| !b.trim().is_empty()) {
            Some(base) => render_custom_system_prompt(base, opts, memory),
            None => render_system_prompt(opts, memory),
        };
        if let Some(extra) = self.append.as_deref().map(str::trim)
            && !extra.is_empty()
        {
            prompt.push_str("\n\n");
            prompt.push_str(extra);
        }
        prompt
    }
}

/// The `# Memory files` section: each file under a header with its path.
fn render_memory(out: &mut String, memory: &[MemoryFile]) {
    out.push_str(
        "# Memory files\n\
         The user keeps standing instructions for you in these files. Follow them; they \
         override the general guidance above. When two files disagree, the later one (closer \
         to the working directory) wins.\n",
    );
    for file in memory {
        let _ = write!(out, "\n## {}", file.path.display());
        if let Some(by) = &file.imported_by {
            let _ = write!(out, " (imported by {})", by.display());
        }
        let _ = write!(out, "\n{}\n", file.content.trim_end());
    }
}

/// The system prompt of a sub-agent: its own instructions, the environment,
/// and the memory files unless the agent type omits them.
pub fn render_agent_prompt(
    agent_prompt: &str,
    opts: &PromptOptions,
    memory: &[MemoryFile],
) -> String {
    let mut out = String::new();
    out.push_str(agent_prompt.trim_end());
    out.push_str("\n\n");
    environment::render_environment(
        &mut out,
        &opts.cwd,
        opts.git_branch.as_deref(),
        &opts.platform,
        &opts.date,
        &opts.model,
    );
    if !memory.is_empty() {
        out.push('\n');
        render_memory(&mut out, memory);
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed_options() -> PromptOptions {
        PromptOptions {
            cwd: PathBuf::from("/home/dev/project"),
            tool_names: [
                "Read",
                "Write",
                "Edit",
                "Glob",
                "Grep",
                "Bash",
                "TodoWrite",
                "Agent",
                "AskUserQuestion",
                "EnterPlanMode",
                "ExitPlanMode",
                "mcp__tracker__search",
            ]
            .map(String::from)
            .to_vec(),
            model: "test-model-1".into(),
            include_memory: true,
            config_dir: PathBuf::from("/home/dev/.catui"),
            date: "2025-06-01".into(),
            platform: "linux (x86_64)".into(),
            git_branch: Some("feature/login".into()),
            nobody_here: false,
        }
    }

    #[test]
    fn full_prompt_snapshot() {
        let memory = vec![
            MemoryFile {
                path: PathBuf::from("/home/dev/.catui/AGENTS.md"),
                content: "Always answer in British English.\n".into(),
                imported_by: None,
            },
            MemoryFile {
                path: PathBuf::from("/home/dev/project/AGENTS.md"),
                content: "Run `cargo test` before saying you are done.".into(),
                imported_by: None,
            },
        ];
        insta::assert_snapshot!(render_system_prompt(&fixed_options(), &memory));
    }

    #[test]
    fn minimal_prompt_snapshot() {
        let opts = PromptOptions {
            tool_names: vec![],
            git_branch: None,
            include_memory: false,
            ..fixed_options()
        };
        insta::assert_snapshot!(render_system_prompt(&opts, &[]));
    }

    #[test]
    fn a_custom_base_keeps_the_house_rules_environment_and_memory() {
        let memory = vec![MemoryFile {
            path: PathBuf::from("/home/dev/project/AGENTS.md"),
            content: "Use tabs.".into(),
            imported_by: None,
        }];
        let choice = SystemPromptChoice {
            base: Some("You are a terse SQL reviewer.".into()),
            append: Some("Answer in French.".into()),
        };
        let prompt = choice.render(&fixed_options(), &memory);
        assert!(prompt.starts_with("You are a terse SQL reviewer.\n\n# Permissions and safety\n"));
        assert!(prompt.contains("<system-reminder>"), "{prompt}");
        assert!(prompt.contains("do not repeat the same call"), "{prompt}");
        assert!(prompt.contains("/home/dev/project"), "{prompt}");
        assert!(prompt.contains("Use tabs."), "{prompt}");
        assert!(prompt.trim_end().ends_with("Answer in French."), "{prompt}");
        // catui's identity, style and tool notes are gone.
        assert!(!prompt.contains(guidance::IDENTITY), "{prompt}");
        assert!(!prompt.contains("# How to work"), "{prompt}");
        assert!(!prompt.contains("# Tools"), "{prompt}");

        // A blank base (what the SDKs send by default) keeps catui's.
        let blank = SystemPromptChoice {
            base: Some(String::new()),
            append: None,
        };
        assert_eq!(
            blank.render(&fixed_options(), &memory),
            render_system_prompt(&fixed_options(), &memory)
        );
    }

    #[test]
    fn build_reads_memory_only_when_asked() {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().canonicalize().unwrap();
        std::fs::write(cwd.join("AGENTS.md"), "use tabs").unwrap();
        let opts = PromptOptions {
            cwd: cwd.clone(),
            config_dir: cwd.join("cfg"),
            git_branch: None,
            ..fixed_options()
        };
        let with = build_system_prompt(&opts);
        assert!(with.contains(&format!(
            "## {}\nuse tabs\n",
            cwd.join("AGENTS.md").display()
        )));
        assert!(with.contains("Is a git repository: no"));
        let without = build_system_prompt(&PromptOptions {
            include_memory: false,
            ..opts
        });
        assert!(!without.contains("use tabs"));
        assert!(!without.contains("# Memory files"));
    }

    #[test]
    fn detect_fills_the_environment() {
        let tmp = tempfile::tempdir().unwrap();
        let opts = PromptOptions::detect(tmp.path(), vec!["Read".into()], "m");
        assert_eq!(opts.git_branch, None);
        assert!(opts.include_memory);
        assert_eq!(opts.date.len(), 10);
        assert!(opts.platform.starts_with(std::env::consts::OS));
    }
}
