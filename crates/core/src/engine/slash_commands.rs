//! Slash commands: the one dispatcher shared by the TUI and headless
//! stream-json input. A command either answers locally (one `result` with
//! `num_turns` 0) or turns into a prompt for the model. [`COMMANDS`] is the
//! one table of names (the TUI palette and `/help` read it); the engine
//! answers `/help`, `/mode`, `/clear` and `/cost` here, and extensions their
//! own: `/plan` (`crate::plan::slash_command`), `/team` (`crate::teams::slash_command`),
//! `/mcp` and servers' prompts (`crate::mcp::slash_commands`). The `catui`
//! subcommands (`catui plans`...) are another thing, in
//! `crates/cli/src/subcommands/`.

use catui_protocol::PermissionMode;
use catui_providers::UsageLedger;

use super::Engine;

/// A parsed `/name args` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlashCommand {
    pub name: String,
    pub args: String,
}

/// What a command produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandOutput {
    /// Answered locally with this text.
    Local { text: String, is_error: bool },
    /// Answered locally with `text`, which a drawing front end may show as
    /// `view` instead.
    Shown {
        text: String,
        view: super::CommandView,
    },
    /// Send this prompt to the model (after showing `notice`, if any).
    Query {
        notice: Option<String>,
        prompt: String,
    },
    /// Send this prompt as a turn of its own, with its model and allow
    /// rules for that turn only (a custom command: `crate::custom_commands`).
    Turn(CommandTurn),
}

/// A prompt turn with settings of its own (see [`CommandOutput::Turn`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandTurn {
    /// Shown before the turn, if any.
    pub notice: Option<String>,
    pub prompt: String,
    /// Allow rules (`Bash(git add:*)`) that hold during this turn only.
    pub allowed_tools: Vec<String>,
    /// The model of this turn's requests, if not the session's.
    pub model: Option<String>,
    /// The file the command came from (named as the rules' origin).
    pub source: std::path::PathBuf,
}

/// `/clear`'s answer.
pub const CLEARED: &str = "Conversation cleared. Starting fresh.";

/// The commands and their one-line help, in display order.
pub const COMMANDS: &[(&str, &str)] = &[
    ("help", "list the slash commands"),
    (
        "plan",
        "enter plan mode, or show the plan: /plan [open|review|export|<description>]",
    ),
    (
        "goal",
        "keep working until a condition holds, checked after each turn: /goal [TEXT|clear]",
    ),
    (
        "mode",
        "show or set the permission mode: /mode [default|acceptEdits|plan|bypassPermissions|auto]",
    ),
    (
        "team",
        "list teammates and their status: /team [show NAME | stop NAME]",
    ),
    ("cost", "what this session has used and cost, per model"),
    (
        "skills",
        "the skills the model can load, and where they come from",
    ),
    (
        "model",
        "show the model, or switch it from the next request: /model [NAME]",
    ),
    (
        "mcp",
        "MCP servers and their tools: /mcp [approve|reject|enable|disable|reconnect NAME]",
    ),
    (
        "clear",
        "start a new conversation (the permission mode stays; new plan file)",
    ),
    (
        "compact",
        "summarise older turns to free context: /compact [instructions]",
    ),
    (
        "rewind",
        "go back to before a message (code, conversation or both) or to an approved plan: /rewind [N|plan]",
    ),
];

/// Parses `text` as a slash command when it starts with `/` followed by a
/// name (so `/usr/bin/env` pasted as a question is not taken for one).
pub fn parse(text: &str) -> Option<SlashCommand> {
    let rest = text.trim_start().strip_prefix('/')?;
    let name_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let name = &rest[..name_end];
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == ':')
        || name.starts_with(':')
    {
        return None;
    }
    Some(SlashCommand {
        name: name.to_string(),
        args: rest[name_end..].trim().to_string(),
    })
}

/// Runs a command against the engine.
pub fn run(engine: &mut Engine, command: &SlashCommand) -> CommandOutput {
    match command.name.as_str() {
        "help" => CommandOutput::Local {
            text: help_text(engine),
            is_error: false,
        },
        "mode" => mode(engine, &command.args),
        "model" => model(engine, &command.args),
        "clear" => {
            engine.clear_conversation();
            CommandOutput::Local {
                text: CLEARED.to_string(),
                is_error: false,
            }
        }
        "cost" => CommandOutput::Local {
            text: match engine.ledger() {
                Some(ledger) => cost_text(ledger),
                None => "This session does not keep account of its usage.".into(),
            },
            is_error: false,
        },
        other => {
            // Commands of the conversation's extensions (`/plan`, `/team`).
            let found = engine
                .shared
                .extensions
                .iter()
                .find_map(|e| e.command(command, engine.session_hooks()));
            found.unwrap_or_else(|| CommandOutput::Local {
                text: if COMMANDS.iter().any(|(name, _)| *name == other) {
                    format!("/{other} is not available in this session.")
                } else {
                    format!("Unknown command: /{other}. Type /help to list the commands.")
                },
                is_error: true,
            })
        }
    }
}

/// `/model`: the model in use, or a switch for the next requests.
fn model(engine: &mut Engine, args: &str) -> CommandOutput {
    let name = args.trim();
    if name.is_empty() {
        return CommandOutput::Local {
            text: format!(
                "Model: {}. Switch with /model NAME (from the next request).",
                engine.config.model
            ),
            is_error: false,
        };
    }
    if name.contains(char::is_whitespace) {
        return CommandOutput::Local {
            text: format!("A model name is one word: /model NAME (got `{name}`)."),
            is_error: true,
        };
    }
    engine.config.model = name.to_string();
    CommandOutput::Local {
        text: format!("Model set to {name} (from the next request)."),
        is_error: false,
    }
}

fn help_text(engine: &Engine) -> String {
    let mut out = String::from("Commands:\n");
    for (name, help) in COMMANDS {
        out.push_str(&format!("  /{name:<8} {help}\n"));
    }
    let custom: Vec<(String, String)> = engine
        .shared
        .extensions
        .iter()
        .flat_map(|e| e.listed_commands())
        .collect();
    if !custom.is_empty() {
        out.push_str("Custom commands:\n");
        for (name, help) in custom {
            out.push_str(&format!("  /{name:<8} {help}\n"));
        }
    }
    out
}

/// The `/cost` report: total, time, budget, per-model usage, the share of
/// input served from the prompt cache, and models without a price.
pub fn cost_text(ledger: &UsageLedger) -> String {
    let models = ledger.models();
    let total = ledger.total_usage();
    let mut out = format!("Total cost:     ${:.4}\n", ledger.total_cost_usd());
    out.push_str(&format!(
        "Model time:     {:.1}s\n",
        ledger.api_time().as_secs_f64()
    ));
    if let Some(limit) = ledger.budget_usd() {
        let share = if limit > 0.0 {
            ledger.total_cost_usd() / limit * 100.0
        } else {
            100.0
        };
        out.push_str(&format!(
            "Budget:         ${limit:.4} ({share:.0}% spent)\n"
        ));
    }
    if models.is_empty() {
        out.push_str("No model requests yet.\n");
        return out;
    }
    let prompt = total.prompt_tokens();
    if prompt > 0 {
        out.push_str(&format!(
            "From cache:     {:.0}% of {} input tokens\n",
            total.cache_read_input_tokens as f64 / prompt as f64 * 100.0,
            tokens(prompt)
        ));
    }
    out.push_str("Usage by model:\n");
    for (name, m) in &models {
        out.push_str(&format!(
            "  {name}: {} requests, {} input, {} output, {} cache read, {} cache write (${:.4})\n",
            m.requests,
            tokens(m.input_tokens),
            tokens(m.output_tokens),
            tokens(m.cache_read_input_tokens),
            tokens(m.cache_creation_input_tokens),
            m.cost_usd
        ));
    }
    let unpriced = ledger.unpriced_models();
    if !unpriced.is_empty() {
        out.push_str(&format!(
            "No price known for {} (counted as free): set `models.<name>.pricing` in settings.\n",
            unpriced.join(", ")
        ));
    }
    out
}

/// `1234` → `1.2k`, `2_500_000` → `2.5M`.
fn tokens(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

fn mode(engine: &mut Engine, args: &str) -> CommandOutput {
    if args.is_empty() {
        return CommandOutput::Local {
            text: format!("Permission mode: {}", engine.permission_mode()),
            is_error: false,
        };
    }
    let to = match args.parse::<PermissionMode>() {
        Ok(m) => m,
        Err(e) => {
            return CommandOutput::Local {
                text: e.to_string(),
                is_error: true,
            };
        }
    };
    match engine.set_permission_mode(to) {
        Ok(()) => CommandOutput::Local {
            text: format!("Permission mode: {to}"),
            is_error: false,
        },
        Err(e) => CommandOutput::Local {
            text: e.to_string(),
            is_error: true,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_report_names_models_cache_share_budget_and_unpriced_models() {
        use catui_protocol::Usage;
        use std::time::Duration;
        let ledger = UsageLedger::new(Default::default()).with_budget(Some(1.0));
        assert!(cost_text(&ledger).contains("No model requests yet."));
        let usage = Usage {
            input_tokens: 1_000,
            output_tokens: 2_000,
            cache_read_input_tokens: 3_000,
            cache_creation_input_tokens: 0,
        };
        ledger.record("claude-sonnet-4-5", &usage, Duration::from_millis(1500));
        ledger.record("my-local-model", &usage, Duration::ZERO);
        let text = cost_text(&ledger);
        // 1000*3 + 2000*15 + 3000*0.3 = 33_900 micro-dollars
        assert!(text.contains("Total cost:     $0.0339"), "{text}");
        assert!(text.contains("Model time:     1.5s"), "{text}");
        assert!(
            text.contains("Budget:         $1.0000 (3% spent)"),
            "{text}"
        );
        assert!(
            text.contains("From cache:     75% of 8.0k input tokens"),
            "{text}"
        );
        assert!(
            text.contains("claude-sonnet-4-5: 1 requests, 1.0k input, 2.0k output, 3.0k cache read, 0 cache write ($0.0339)"),
            "{text}"
        );
        assert!(text.contains("No price known for my-local-model"), "{text}");
    }

    #[test]
    fn parses_commands_not_paths() {
        assert_eq!(
            parse("/plan fix the bug"),
            Some(SlashCommand {
                name: "plan".into(),
                args: "fix the bug".into()
            })
        );
        assert_eq!(
            parse("  /help"),
            Some(SlashCommand {
                name: "help".into(),
                args: String::new()
            })
        );
        assert_eq!(parse("/usr/bin/env is what?"), None);
        assert_eq!(parse("hello /plan"), None);
        assert_eq!(parse("/"), None);
        assert_eq!(parse("/git:commit now").unwrap().name, "git:commit");
        assert_eq!(parse("/:x"), None);
    }
}
