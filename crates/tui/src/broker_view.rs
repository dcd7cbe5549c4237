//! `/agents` and `/approvals` in the terminal UI: the broker's views (every
//! session on every machine; the approval requests waiting) without leaving
//! the session. The interface knows nothing of the broker: the binary hands
//! it a [`BrokerCommands`] when one is configured (crate cli, over
//! catui-broker), so the text is the same as `catui agents` and `catui
//! approvals`. The network calls run in a task of their own; the answer
//! comes back to the event loop as a [`BrokerReply`].
//!
//! `/agents ID` jumps to a session of this project on this machine (as
//! `/resume ID`): the broker lists sessions everywhere, but only a local
//! transcript can be resumed.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use tokio::sync::mpsc::UnboundedSender;

/// One session as the broker lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentListing {
    pub session_id: String,
    pub host: String,
    pub project: String,
}

/// The broker's `/agents` view: the table and the sessions in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentsView {
    /// What `catui agents` prints.
    pub table: String,
    pub sessions: Vec<AgentListing>,
}

/// What the binary offers the interface of the broker.
#[async_trait]
pub trait BrokerCommands: Send + Sync {
    /// Every session on the broker.
    async fn agents(&self) -> Result<AgentsView, String>;
    /// `/approvals ARGS`: as `catui approvals ARGS` (list, `show ID`,
    /// `approve ID [--mode M] [--skip-steps N,…]`, `reject ID [--feedback
    /// TEXT]`); the text to show.
    async fn approvals(&self, args: &str) -> Result<String, String>;
}

/// The binary's [`BrokerCommands`], as the interface's options carry it.
#[derive(Clone)]
pub struct BrokerLink(pub Arc<dyn BrokerCommands>);

impl std::fmt::Debug for BrokerLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BrokerLink")
    }
}

/// A `/agents` or `/approvals` line typed by the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrokerCommand {
    Agents(String),
    Approvals(String),
}

impl BrokerCommand {
    /// `text` as one of the broker's commands, if it is one.
    pub fn parse(text: &str) -> Option<BrokerCommand> {
        let text = text.trim();
        let (name, args) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        let args = args.trim().to_string();
        match name {
            "/agents" => Some(BrokerCommand::Agents(args)),
            "/approvals" => Some(BrokerCommand::Approvals(args)),
            _ => None,
        }
    }
}

/// What a broker command came back with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrokerReply {
    Text {
        text: String,
        is_error: bool,
    },
    /// `/agents ID` named a local session: resume it.
    Resume(String),
}

/// Without a broker: how to get one.
pub const NO_BROKER: &str = "No broker is connected: /agents and /approvals show the sessions and approval requests of every machine once catui runs with --broker URL (or CATUI_BROKER, or the setting \"broker\").";

/// Runs `command` in the background; its reply goes to `replies`.
/// `session_id` and `cwd` are this session's (for `/agents ID`).
pub fn start(
    commands: Arc<dyn BrokerCommands>,
    command: BrokerCommand,
    session_id: String,
    cwd: String,
    replies: UnboundedSender<BrokerReply>,
) {
    tokio::spawn(async move {
        let reply = match command {
            BrokerCommand::Agents(id) => match commands.agents().await {
                Ok(view) if id.is_empty() => BrokerReply::Text {
                    text: format!(
                        "{}\n/agents ID jumps to a session of this project on this machine.",
                        view.table.trim_end()
                    ),
                    is_error: false,
                },
                Ok(view) => jump(&view, &id, &session_id, Path::new(&cwd)),
                Err(e) => BrokerReply::Text {
                    text: e,
                    is_error: true,
                },
            },
            BrokerCommand::Approvals(args) => match commands.approvals(&args).await {
                Ok(text) => BrokerReply::Text {
                    text: text.trim_end().to_string(),
                    is_error: false,
                },
                Err(e) => BrokerReply::Text {
                    text: e,
                    is_error: true,
                },
            },
        };
        let _ = replies.send(match reply {
            BrokerReply::Text { text, is_error } => BrokerReply::Text {
                text: printable(&text),
                is_error,
            },
            resume => resume,
        });
    });
}

/// What other machines wrote, through the one terminal sanitiser (no
/// escape sequence from the broker reaches the terminal).
fn printable(text: &str) -> String {
    catui_protocol::terminal::sanitize(text).into_owned()
}

/// `/agents ID`: the session whose id starts with `id`, resumed when its
/// transcript is in this project on this machine.
fn jump(view: &AgentsView, id: &str, current: &str, cwd: &Path) -> BrokerReply {
    let error = |text: String| BrokerReply::Text {
        text,
        is_error: true,
    };
    let found: Vec<&AgentListing> = view
        .sessions
        .iter()
        .filter(|s| s.session_id.starts_with(id))
        .collect();
    let listing = match found.as_slice() {
        [] => return error(format!("No session {id} on the broker (see /agents).")),
        [one] => *one,
        _ => {
            return error(format!(
                "{} sessions start with {id}: give more of the id.",
                found.len()
            ));
        }
    };
    if listing.session_id == current {
        return error("That is this session.".to_string());
    }
    let dir = catui_core::session::project_dir_in_config_dir(cwd);
    let local = catui_core::session::list_sessions(&dir)
        .iter()
        .any(|s| s.session_id == listing.session_id);
    if local {
        BrokerReply::Resume(listing.session_id.clone())
    } else {
        error(format!(
            "Session {} runs on {} in {}: only this project's sessions on this machine can be resumed here.",
            listing.session_id, listing.host, listing.project
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_broker_commands_only() {
        assert_eq!(
            BrokerCommand::parse("/agents"),
            Some(BrokerCommand::Agents(String::new()))
        );
        assert_eq!(
            BrokerCommand::parse(" /approvals  approve ab12 --mode acceptEdits "),
            Some(BrokerCommand::Approvals(
                "approve ab12 --mode acceptEdits".into()
            ))
        );
        assert_eq!(BrokerCommand::parse("/agentsx"), None);
        assert_eq!(BrokerCommand::parse("tell me about /agents"), None);
    }

    #[test]
    fn escape_sequences_from_the_broker_are_not_printed() {
        assert_eq!(printable("a\u{1b}[2Jb\nc\u{7}d"), "ab\ncd");
    }

    #[test]
    fn jumps_only_to_a_single_local_match() {
        let view = AgentsView {
            table: String::new(),
            sessions: vec![
                AgentListing {
                    session_id: "aaa1".into(),
                    host: "far".into(),
                    project: "/elsewhere".into(),
                },
                AgentListing {
                    session_id: "aaa2".into(),
                    host: "far".into(),
                    project: "/elsewhere".into(),
                },
            ],
        };
        let cwd = Path::new("/nonexistent-project");
        assert!(matches!(
            jump(&view, "aaa", "x", cwd),
            BrokerReply::Text { text, is_error: true } if text.contains("2 sessions")
        ));
        assert!(matches!(
            jump(&view, "bbb", "x", cwd),
            BrokerReply::Text { text, is_error: true } if text.contains("No session bbb")
        ));
        assert!(matches!(
            jump(&view, "aaa1", "x", cwd),
            BrokerReply::Text { text, is_error: true } if text.contains("runs on far")
        ));
        assert!(matches!(
            jump(&view, "aaa1", "aaa1", cwd),
            BrokerReply::Text { text, is_error: true } if text.contains("this session")
        ));
    }
}
