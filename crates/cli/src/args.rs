//! The command line.

use std::path::PathBuf;

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

    /// anthropic or openai (any OpenAI-compatible server).
    #[arg(long)]
    pub provider: Option<String>,

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

    /// An extra settings file, applied last.
    #[arg(long)]
    pub settings: Option<PathBuf>,

    /// Another directory the agent may work in.
    #[arg(long, num_args = 1..)]
    pub add_dir: Vec<PathBuf>,

    /// Show tool activity and diagnostics on stderr.
    #[arg(long)]
    pub verbose: bool,

    #[command(subcommand)]
    pub command: Option<Command>,
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
    /// List this project's sessions.
    Sessions,
    /// The plan files: list, show SLUG, path.
    Plans {
        #[command(subcommand)]
        action: Option<PlansAction>,
    },
}

#[derive(Debug, Subcommand)]
pub enum PlansAction {
    List,
    Show { slug: String },
    Path,
}
