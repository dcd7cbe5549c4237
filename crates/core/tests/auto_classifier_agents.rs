//! Each agent's classifier counts its own denials: the one a sub-agent or
//! teammate gets from the session's (`for_another_agent`) asks the same
//! model with the same settings, but a run of denials in one conversation
//! does not hand another conversation's next call to the user.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use catui_core::permissions::auto::{AutoClassifier, AutoReview, ClassifierConfig, ProposedAction};
use catui_protocol::Message;
use catui_providers::{ProviderConfig, ProviderKind};
use catui_testkit::{MockServer, Script, Turn};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn deny(reason: &str) -> Turn {
    Turn::tool_use("d", "decide", json!({"decision": "deny", "reason": reason})).when_model("small")
}

async fn review(classifier: &AutoClassifier, label: &str) -> AutoReview {
    let input = json!({"command": format!("rm {label}")});
    let action = ProposedAction {
        tool_use_id: label,
        tool_name: "Bash",
        input: &input,
        reason: "Bash wants to run a command",
        cwd: Path::new("/tmp"),
    };
    classifier
        .review(
            &[Message::user_text("tidy up")],
            &action,
            &CancellationToken::new(),
        )
        .await
}

#[tokio::test]
async fn another_agents_classifier_counts_its_own_denials() {
    let server = MockServer::start(
        Script::new()
            .turn(deny("lead one"))
            .turn(deny("lead two"))
            .turn(deny("agent one"))
            .turn(deny("lead three")),
    )
    .await
    .unwrap();
    let mut pc = ProviderConfig::new(ProviderKind::Anthropic, server.url(), "k");
    pc.retry_base_delay = Duration::from_millis(1);
    let client = catui_providers::client_for(pc).unwrap();
    let mut config = ClassifierConfig::new("small");
    config.timeout = Duration::from_secs(30);
    let lead = Arc::new(AutoClassifier::new(client, config));

    assert!(matches!(review(&lead, "a").await, AutoReview::Deny { .. }));
    assert!(matches!(review(&lead, "b").await, AutoReview::Deny { .. }));

    let agent = lead.for_another_agent();
    assert_eq!(agent.config(), lead.config());
    assert_eq!(agent.consecutive_denials(), 0);
    // A third denial in a row, but the first in the agent's conversation.
    assert_eq!(
        review(&agent, "c").await,
        AutoReview::Deny {
            reason: "agent one".into()
        }
    );
    assert_eq!(agent.consecutive_denials(), 1);
    assert_eq!(lead.consecutive_denials(), 2);

    // The lead's own third denial still goes to the user.
    let AutoReview::AskUser { why } = review(&lead, "d").await else {
        panic!("the lead's third denial in a row should ask the user");
    };
    assert!(why.contains("denied 3 actions in a row"), "{why}");
    assert_eq!(server.requests().len(), 4);
}
