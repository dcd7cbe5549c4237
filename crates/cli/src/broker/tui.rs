//! The terminal UI's `/agents` and `/approvals` over the broker: the same
//! text as `catui agents` and `catui approvals`, through the interface's
//! [`BrokerCommands`] (crate tui knows nothing of the broker).

use async_trait::async_trait;
use catui_broker::{Approvals, Broker, Registry};
use catui_tui::{AgentListing, AgentsView, BrokerCommands};
use clap::Parser;

use crate::args::ApprovalsAction;

/// `/approvals ARGS` parsed as `catui approvals ARGS`.
#[derive(Debug, Parser)]
#[command(name = "/approvals", disable_help_flag = true)]
struct Slash {
    /// List answered requests too.
    #[arg(long)]
    all: bool,
    #[command(subcommand)]
    action: Option<ApprovalsAction>,
}

/// The session's broker, for the interface.
pub struct TuiBroker {
    broker: Broker,
}

impl TuiBroker {
    pub fn new(broker: Broker) -> Self {
        TuiBroker { broker }
    }
}

#[async_trait]
impl BrokerCommands for TuiBroker {
    async fn agents(&self) -> Result<AgentsView, String> {
        let registry = Registry::open(&self.broker)
            .await
            .map_err(|e| e.to_string())?;
        let entries = registry.list().await.map_err(|e| e.to_string())?;
        Ok(AgentsView {
            table: super::agents::table_text(&entries),
            sessions: entries
                .into_iter()
                .map(|e| AgentListing {
                    session_id: e.session_id,
                    host: e.host,
                    project: e.project,
                })
                .collect(),
        })
    }

    async fn approvals(&self, args: &str) -> Result<String, String> {
        let parsed = Slash::try_parse_from(words(args)).map_err(|e| {
            // clap's own text, without its "Usage" footer's colours.
            e.render().to_string().trim_end().to_string()
        })?;
        let approvals = Approvals::open(&self.broker)
            .await
            .map_err(|e| e.to_string())?;
        super::approvals::perform(&approvals, parsed.all, parsed.action.as_ref()).await
    }
}

/// `args` as clap's words: split at white space, except that everything
/// after `--feedback` is the one feedback text (quotes around it dropped).
fn words(args: &str) -> Vec<String> {
    let (head, feedback) = match args.split_once("--feedback") {
        Some((head, rest)) => (head, Some(rest.trim())),
        None => (args, None),
    };
    let mut words = vec!["/approvals".to_string()];
    words.extend(head.split_whitespace().map(str::to_string));
    if let Some(text) = feedback {
        words.push("--feedback".into());
        let unquoted = text
            .strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .unwrap_or(text);
        words.push(unquoted.to_string());
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feedback_keeps_its_spaces() {
        let parsed =
            Slash::try_parse_from(words("reject ab12 --feedback \"too risky, split it\"")).unwrap();
        match parsed.action {
            Some(ApprovalsAction::Reject { id, feedback }) => {
                assert_eq!(id, "ab12");
                assert_eq!(feedback.as_deref(), Some("too risky, split it"));
            }
            other => panic!("{other:?}"),
        }
        let parsed =
            Slash::try_parse_from(words("approve ab12 --mode acceptEdits --skip-steps 2,3"))
                .unwrap();
        assert!(matches!(
            parsed.action,
            Some(ApprovalsAction::Approve { ref mode, ref skip_steps, .. })
                if mode.as_deref() == Some("acceptEdits") && skip_steps == &[2, 3]
        ));
        assert!(Slash::try_parse_from(words("")).unwrap().action.is_none());
        assert!(Slash::try_parse_from(words("frobnicate")).is_err());
    }
}
