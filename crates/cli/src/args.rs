//! The command line.

use std::path::PathBuf;

use catui_protocol::{Effort, Reasoning, ThinkingDisplay};
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    #[value(name = "stream-json")]
    StreamJson,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    Text,
    #[value(name = "stream-json")]
    StreamJson,
}

/// catui: a terminal coding agent with an enforced plan mode.
#[derive(Debug, Parser)]
#[command(name = "catui", version, about, args_conflicts_with_subcommands = true)]
pub struct Args {
    /// The first prompt (with -p: the whole task; read from stdin when absent).
    pub prompt: Option<String>,

    /// Headless: answer and exit.
    #[arg(short = 'p', long = "print")]
    pub print: bool,

    /// Output format of headless runs.
    #[arg(long, value_enum, default_value = "text")]
    pub output_format: OutputFormat,

    /// Input format of headless runs (stream-json: user turns and control
    /// messages as JSON lines on stdin).
    #[arg(long, value_enum, default_value = "text")]
    pub input_format: InputFormat,

    /// default, acceptEdits, plan, bypassPermissions or auto.
    #[arg(long)]
    pub permission_mode: Option<String>,

    /// The main model.
    #[arg(long)]
    pub model: Option<String>,

    /// The fast model for Explore agents and the auto-mode classifier.
    #[arg(long)]
    pub small_model: Option<String>,

    /// The model for planning: requests made in plan mode and by the Plan
    /// agent (setting `planModel`). After approval the session's model
    /// implements.
    #[arg(long)]
    pub plan_model: Option<String>,

    /// anthropic, openai (Chat Completions: any OpenAI-compatible server)
    /// or openai-responses (the OpenAI Responses API).
    #[arg(long)]
    pub provider: Option<String>,

    /// Reasoning effort of the main model: none, minimal, low, medium,
    /// high, xhigh or max (each provider maps it onto its own scale).
    #[arg(long, value_parser = parse_effort)]
    pub effort: Option<Effort>,

    /// Reasoning effort in plan mode and for the completion gate's turn
    /// (setting `planEffort`); the session's effort elsewhere.
    #[arg(long, value_parser = parse_effort)]
    pub plan_effort: Option<Effort>,

    /// Extended thinking of the main model: adaptive, enabled or disabled.
    #[arg(long, value_parser = ["adaptive", "enabled", "disabled"])]
    pub thinking: Option<String>,

    /// Thinking budget in tokens (enables thinking; 0 disables it).
    #[arg(long, value_name = "N")]
    pub max_thinking_tokens: Option<u32>,

    /// How thinking comes back: summarized or omitted.
    #[arg(long, value_parser = ["summarized", "omitted"])]
    pub thinking_display: Option<String>,

    /// Stop the run once the session has cost this many US dollars (by
    /// the price table); the result is `error_max_budget_usd`.
    #[arg(long, value_name = "USD", value_parser = parse_budget, allow_negative_numbers = true)]
    pub max_budget_usd: Option<f64>,

    /// A completion condition: after each turn the small model checks it,
    /// and while it is not met catui keeps working by itself (at most
    /// `goalMaxContinuations` times per input). `/goal` shows it.
    #[arg(long, value_name = "TEXT")]
    pub goal: Option<String>,

    /// Take up a plan of the library (`catui plans list`): an approved,
    /// unchanged plan continues without a new approval (todos from its
    /// undone steps); a changed one goes to approval again; a parked or
    /// draft plan goes back to planning. Same as `/plan use SLUG`.
    #[arg(long = "plan", value_name = "SLUG")]
    pub pick_up_plan: Option<String>,

    /// Model requests allowed per user input.
    #[arg(long)]
    pub max_turns: Option<u32>,

    /// Allow rules, e.g. "Bash(git diff:*)" "Edit".
    #[arg(long, num_args = 1.., value_delimiter = ',', alias = "allowedTools")]
    pub allowed_tools: Vec<String>,

    /// Deny rules, e.g. "Bash(rm:*)".
    #[arg(long, num_args = 1.., value_delimiter = ',', alias = "disallowedTools")]
    pub disallowed_tools: Vec<String>,

    /// Continue the most recent session of this project.
    #[arg(short = 'c', long = "continue")]
    pub continue_session: bool,

    /// Resume a session (by id; the most recent when no id is given).
    #[arg(short = 'r', long, num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,

    /// With --resume/--continue: continue in a new session (new id, own plan file).
    #[arg(long)]
    pub fork_session: bool,

    /// Use this session id (a UUID).
    #[arg(long)]
    pub session_id: Option<String>,

    /// An extra settings file, applied last; or the settings themselves as
    /// inline JSON (`{...}`).
    #[arg(long)]
    pub settings: Option<String>,

    /// Trust the project's own configuration for this run only (as
    /// `catui trust` does for good). Also CATUI_TRUST_PROJECT=1.
    #[arg(long)]
    pub trust_project: bool,

    /// Nobody is there to answer while the run lasts, even though a
    /// program drives it (stream-json in CI): the model is told so, is not
    /// offered AskUserQuestion, and is asked to check its work before the
    /// run ends. Plain `-p` runs are unattended without it.
    #[arg(long)]
    pub unattended: bool,

    /// Another directory the agent may work in.
    #[arg(long, num_args = 1..)]
    pub add_dir: Vec<PathBuf>,

    /// Show tool activity and diagnostics on stderr.
    #[arg(long)]
    pub verbose: bool,

    /// With stream-json output: also print the model's stream as
    /// `stream_event` lines.
    #[arg(long)]
    pub include_partial_messages: bool,

    /// With stream-json input and output: echo each user message on stdout
    /// with its `uuid` (the id `rewind_files` takes).
    #[arg(long)]
    pub replay_user_messages: bool,

    /// With --resume/--continue: go back to the moment before this user
    /// message (its uuid; `plan:SLUG` for a plan approval), then exit.
    /// Restores the files and the conversation (see --rewind-scope).
    #[arg(long, value_name = "UUID")]
    pub rewind_to: Option<String>,

    /// What --rewind-to restores: code, conversation or both.
    #[arg(long, value_name = "WHAT", value_parser = ["code", "conversation", "both"], requires = "rewind_to")]
    pub rewind_scope: Option<String>,

    /// With --rewind-to: also overwrite files changed outside catui since
    /// that point (they are listed, and the rewind refused, without it).
    #[arg(long, requires = "rewind_to")]
    pub force: bool,

    /// Options the Agent SDKs pass (docs/SDK.md says what each does here).
    #[command(flatten)]
    pub sdk: SdkArgs,

    /// Sessions, approvals and teams across machines (docs/SCALE.md).
    #[command(flatten)]
    pub broker: BrokerArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Flags the official Agent SDKs pass. catui accepts all of them; those
/// it has no feature for are reported once at the start of the session
/// (see `sdk_flags::unsupported`).
#[derive(Debug, Default, clap::Args)]
pub struct SdkArgs {
    /// Replaces catui's own base prompt (who it is, how it works); its
    /// rules on permissions and safety, the environment and AGENTS.md stay.
    #[arg(long, value_name = "TEXT")]
    pub system_prompt: Option<String>,
    /// Text added to the end of the system prompt.
    #[arg(long, value_name = "TEXT")]
    pub append_system_prompt: Option<String>,
    /// --system-prompt read from a file.
    #[arg(long, value_name = "FILE", conflicts_with = "system_prompt")]
    pub system_prompt_file: Option<PathBuf>,
    /// Sub-agent types for this run, as JSON: {"name": {"description": ...,
    /// "prompt": ..., "tools": [...], "model": ...}} (like .catui/agents/).
    #[arg(long, value_name = "JSON")]
    pub agents: Option<String>,
    /// The tools offered: a comma-separated list, `default`, or "" for none.
    /// Tools not listed are denied for the session.
    #[arg(long)]
    pub tools: Option<String>,
    /// `stdio`: permission prompts go to the client as `can_use_tool`
    /// control requests (what stream-json input does anyway).
    #[arg(long, hide = true)]
    pub permission_prompt_tool: Option<String>,
    /// Which settings files to read: user, project, local, joined by
    /// commas; empty for none (the Agent SDKs' `setting_sources`).
    #[arg(long, hide = true)]
    pub setting_sources: Option<String>,
    #[arg(long, hide = true)]
    pub include_hook_events: bool,
    /// MCP servers for this run: a JSON file or inline JSON
    /// (`{"mcpServers": {...}}`, as in .mcp.json); repeatable.
    #[arg(long, value_name = "FILE|JSON")]
    pub mcp_config: Vec<String>,
    /// Use only the --mcp-config servers (not .mcp.json or settings).
    #[arg(long)]
    pub strict_mcp_config: bool,
    /// Send requests to this model when the main one stays overloaded or
    /// unavailable after its retries (announced; the session stays on it).
    #[arg(long, value_name = "MODEL")]
    pub fallback_model: Option<String>,
    #[arg(long, hide = true)]
    pub task_budget: Option<String>,
    #[arg(long, hide = true)]
    pub betas: Option<String>,
    /// The final answer must be JSON matching this schema (an object
    /// schema); it is returned as `structured_output` in the result.
    #[arg(long, value_name = "SCHEMA")]
    pub json_schema: Option<String>,
    #[arg(long, hide = true)]
    pub plugin_dir: Vec<String>,
    /// With --resume: continue from the message with this uuid, leaving
    /// out what came after it.
    #[arg(long, value_name = "UUID")]
    pub resume_session_at: Option<String>,
    #[arg(long, hide = true)]
    pub resume_drops_turn: Option<String>,
    #[arg(long, hide = true)]
    pub session_mirror: bool,
    // Passed by the TypeScript SDK (0.3): accepted; see sdk_flags.
    #[arg(long, hide = true)]
    pub debug: bool,
    #[arg(long, hide = true)]
    pub debug_file: Option<String>,
    #[arg(long, hide = true)]
    pub agent: Option<String>,
    #[arg(long, hide = true)]
    pub permission_prompts: Option<String>,
    #[arg(long, hide = true)]
    pub channels: Vec<String>,
    #[arg(long, hide = true)]
    pub allow_dangerously_skip_permissions: bool,
    #[arg(long, hide = true)]
    pub project_config_root: Option<String>,
    #[arg(long, hide = true)]
    pub await_initialize: bool,
    #[arg(long, hide = true)]
    pub plugin_dir_no_mcp: Vec<String>,
    /// Write no transcript for this session (it cannot be resumed).
    #[arg(long)]
    pub no_session_persistence: bool,
    #[arg(long, hide = true)]
    pub initialize_fields: Option<String>,
    #[arg(long, hide = true)]
    pub managed_settings_in_initialize: bool,
    #[arg(long, hide = true)]
    pub managed_settings: Option<String>,
}

/// The broker: where sessions, approvals and team messages go when they
/// leave this machine.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct BrokerArgs {
    /// The NATS broker with JetStream: nats://host:port or tls://host:port
    /// (user:password@ allowed). Also CATUI_BROKER or setting `broker`.
    #[arg(long, env = "CATUI_BROKER", hide_env_values = true, value_name = "URL")]
    pub broker: Option<String>,
    /// A NATS credentials file for the broker (setting `brokerCredentials`).
    #[arg(long, value_name = "FILE")]
    pub broker_credentials: Option<PathBuf>,
    /// Who answers a headless run's permission prompts and plan approvals:
    /// `broker` publishes them for `catui approvals` on any machine
    /// (setting `approvals`).
    #[arg(long, value_parser = ["broker", "none"])]
    pub approvals: Option<String>,
    /// How long a request waits for its answer before it is refused:
    /// 90s, 30m, 2h or seconds (default 30m).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub approval_timeout: Option<std::time::Duration>,
}

/// `90s`, `30m`, `2h`, `1500ms` or a number of seconds.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    let bad = || format!("'{s}' is not a duration: use e.g. 90s, 30m, 2h or 1500ms");
    let (number, unit) = match s.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let n: f64 = number.parse().map_err(|_| bad())?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(bad()),
    };
    if !secs.is_finite() || secs <= 0.0 {
        return Err(bad());
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// An offline walk-through of plan mode (no key needed).
    Demo {
        /// Run headless and print the session instead of the terminal UI.
        #[arg(long)]
        print: bool,
        /// Put the sample project (DIR/project) and the demo's catui home
        /// (DIR/config) here instead of a new temp directory.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Serve the Agent Client Protocol on stdin/stdout, for editors
    /// (Zed, JetBrains, Neovim, Emacs): see docs/EDITORS.md.
    Acp,
    /// List this project's sessions.
    Sessions,
    /// The project's MCP servers: list them, or approve or reject the
    /// ones its .mcp.json names (all of them when no name is given).
    Mcp {
        #[command(subcommand)]
        action: Option<McpAction>,
    },
    /// Trust this project's own configuration (.catui/, .mcp.json, its
    /// agents) as it is now: its allow rules, env, hooks and MCP servers
    /// apply. Until then only what narrows permissions does.
    Trust {
        /// Withdraw the trust (and approvals of its MCP servers).
        #[arg(long, conflicts_with = "show")]
        revoke: bool,
        /// Show what the project configures, whether it is trusted and
        /// what changed since; change nothing.
        #[arg(long)]
        show: bool,
    },
    /// The plan files: list, show SLUG, path, export, review.
    Plans {
        #[command(subcommand)]
        action: Option<PlansAction>,
    },
    /// Every session on the broker, on every machine: running, waiting
    /// for you, done (docs/SCALE.md).
    Agents {
        /// One JSON array (with --watch: one JSON object per change).
        #[arg(long)]
        json: bool,
        /// Keep listing changes until interrupted.
        #[arg(long)]
        watch: bool,
        #[command(flatten)]
        broker: BrokerArgs,
    },
    /// Permission requests and plans waiting for an answer on the broker:
    /// list, show ID, approve ID, reject ID.
    Approvals {
        /// JSON output.
        #[arg(long, global = true)]
        json: bool,
        /// List answered requests too.
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        broker: BrokerArgs,
        #[command(subcommand)]
        action: Option<ApprovalsAction>,
    },
    /// Host teammates for leads on other machines: a TeamCreate member
    /// with "host": NAME runs here, in this machine's checkout.
    Worker {
        /// This worker's name (what leads put in "host").
        #[arg(long)]
        name: String,
        /// The checkout teammates work in (default: the working directory).
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        #[command(flatten)]
        broker: BrokerArgs,
    },
}

#[derive(Debug, Subcommand)]
pub enum ApprovalsAction {
    /// The request: the plan text or the command, the diff, the session.
    Show { id: String },
    /// Approve it (the first answer applies; a later one is refused).
    Approve {
        id: String,
        /// For a plan: the mode to carry it out in (default, acceptEdits,
        /// bypassPermissions, auto; default: the mode before plan mode).
        #[arg(long)]
        mode: Option<String>,
        /// For a plan: step numbers to leave out, e.g. 2,4.
        #[arg(long, value_delimiter = ',', value_name = "N,...")]
        skip_steps: Vec<usize>,
    },
    /// Reject it; for a plan the feedback reaches the model, which keeps
    /// planning.
    Reject {
        id: String,
        #[arg(long, value_name = "TEXT")]
        feedback: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum McpAction {
    List,
    Approve { names: Vec<String> },
    Reject { names: Vec<String> },
}

#[derive(Debug, Subcommand)]
pub enum PlansAction {
    /// Every plan of the project with its state (draft, parked, approved,
    /// in_progress, done, abandoned), title, age and session.
    List {
        /// One JSON array instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Mark a plan abandoned (it stays on disk; approving it again revives it).
    Abandon {
        slug: String,
    },
    /// Hand an approved plan to a background agent in a new git worktree
    /// (branch `catui/SLUG`); returns at once unless `--wait`.
    Dispatch {
        slug: String,
        /// Run the agent in the foreground and print the summary.
        #[arg(long)]
        wait: bool,
        /// The worktree already made for it (the background half).
        #[arg(long, hide = true)]
        in_worktree: Option<std::path::PathBuf>,
        /// The agent's permission mode (the one chosen at approval when
        /// the approval dispatches it); default `acceptEdits`.
        #[arg(long, value_name = "MODE", default_value = "acceptEdits")]
        permission_mode: String,
        /// Say what was started as one JSON object (slug, branch,
        /// worktree, log, events, message).
        #[arg(long)]
        json: bool,
    },
    /// Move this project's plans from your plans directory into the
    /// project (its history in the transcripts follows them).
    Move {
        /// Required: the plans go into the project.
        #[arg(long)]
        to_project: bool,
        /// The folder in the project (default: `plansDirectory`, else
        /// `.catui/plans`).
        #[arg(long)]
        to: Option<std::path::PathBuf>,
    },
    Show {
        slug: String,
    },
    Path,
    /// Copy a session's approved plan into the repository, with its
    /// revision history as an appendix.
    Export {
        /// The plan's slug (default: the newest plan of this project's
        /// sessions).
        slug: Option<String>,
        /// The folder to write to (default: docs/plans in the project).
        #[arg(long)]
        to: Option<std::path::PathBuf>,
    },
    /// Review a plan that an ended session left awaiting approval in your
    /// browser (without SLUG: list those plans); the decision is carried
    /// out when the session is resumed.
    Review {
        /// The plan's slug.
        slug: Option<String>,
    },
}

fn parse_effort(s: &str) -> Result<Effort, String> {
    s.parse()
}

fn parse_budget(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "'{s}' is not an amount of US dollars above 0, e.g. 0.50"
        )),
    }
}

impl Args {
    /// The main model's reasoning options from `--effort`, `--thinking`,
    /// `--max-thinking-tokens` and `--thinking-display`.
    pub fn reasoning(&self) -> Result<Reasoning, String> {
        let thinking = catui_providers::catalog::thinking_from(
            self.thinking.as_deref(),
            self.max_thinking_tokens,
        )?;
        let display = match self.thinking_display.as_deref() {
            Some("summarized") => Some(ThinkingDisplay::Summarized),
            Some("omitted") => Some(ThinkingDisplay::Omitted),
            _ => None,
        };
        Ok(Reasoning {
            effort: self.effort,
            thinking,
            display,
            summaries: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use catui_protocol::Thinking;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("catui").chain(args.iter().copied()))
    }

    #[test]
    fn reasoning_and_budget_flags_parse_as_the_agent_sdks_pass_them() {
        // The Python SDK: `--thinking adaptive`, `--max-thinking-tokens N`
        // for enabled, `--effort`, and `--max-budget-usd str(float)`.
        let a = parse(&[
            "-p",
            "--effort",
            "xhigh",
            "--thinking",
            "adaptive",
            "--thinking-display",
            "summarized",
            "--max-budget-usd",
            "0.1",
        ])
        .unwrap();
        let r = a.reasoning().unwrap();
        assert_eq!(r.effort, Some(Effort::XHigh));
        assert_eq!(r.thinking, Some(Thinking::Adaptive));
        assert_eq!(r.display, Some(ThinkingDisplay::Summarized));
        assert_eq!(a.max_budget_usd, Some(0.1));
        let a = parse(&["--max-thinking-tokens", "8000", "--max-budget-usd=5"]).unwrap();
        assert_eq!(
            a.reasoning().unwrap().thinking,
            Some(Thinking::Enabled {
                budget_tokens: 8000
            })
        );
        assert_eq!(a.max_budget_usd, Some(5.0));
        let a = parse(&["--thinking", "disabled"]).unwrap();
        assert_eq!(a.reasoning().unwrap().thinking, Some(Thinking::Disabled));
        assert!(parse(&[]).unwrap().reasoning().unwrap().is_default());

        for bad in [
            &["--effort", "extreme"][..],
            &["--thinking", "sometimes"],
            &["--max-budget-usd", "-1"],
            &["--max-budget-usd", "lots"],
            &["--max-thinking-tokens", "many"],
        ] {
            let err = parse(bad).unwrap_err().to_string();
            assert!(err.contains(bad[0]), "{bad:?}: {err}");
        }
    }
}
