//! Slash commands: the one dispatcher shared by the TUI and headless
//! stream-json input. A command either answers locally (one `result` with
//! `num_turns` 0) or turns into a prompt for the model.

use catui_protocol::PermissionMode;

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
    /// Send this prompt to the model (after showing `notice`, if any).
    Query {
        notice: Option<String>,
        prompt: String,
    },
}

/// The commands and their one-line help, in display order.
pub const COMMANDS: &[(&str, &str)] = &[
    ("help", "list the slash commands"),
    (
        "plan",
        "enter plan mode, or show the plan: /plan [open|<description>]",
    ),
    (
        "mode",
        "show or set the permission mode: /mode [default|acceptEdits|plan|bypassPermissions|auto]",
    ),
    (
        "team",
        "list teammates and their status: /team [show NAME | stop NAME]",
    ),
    (
        "compact",
        "summarise older turns to free context: /compact [instructions]",
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
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
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
            text: help_text(),
            is_error: false,
        },
        "mode" => mode(engine, &command.args),
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

fn help_text() -> String {
    let mut out = String::from("Commands:\n");
    for (name, help) in COMMANDS {
        out.push_str(&format!("  /{name:<8} {help}\n"));
    }
    out
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
            text: e,
            is_error: true,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
