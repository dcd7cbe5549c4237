//! The contract's own rules, without an engine: the goal kept in the
//! transcript, and the drift setting's defaults.

use super::*;
use catui_protocol::transcript::TranscriptEntry;

#[test]
fn the_goal_comes_back_from_the_transcript_and_clear_drops_it() {
    let entry = |text: Option<&str>| TranscriptEntry {
        uuid: "u".into(),
        parent_uuid: None,
        timestamp: "t".into(),
        session_id: "s".into(),
        cwd: "/".into(),
        slug: None,
        agent_id: None,
        git_branch: None,
        body: EntryBody::Goal {
            text: text.map(str::to_string),
        },
    };
    assert_eq!(
        goal::restored(&[entry(Some("all tests pass")), entry(Some("docs too"))]),
        Some("docs too".to_string())
    );
    assert_eq!(goal::restored(&[entry(Some("x")), entry(None)]), None);
    assert_eq!(goal::restored(&[]), None);
}

#[test]
fn drift_asks_where_someone_can_answer() {
    assert_eq!(PlanDrift::default_for(false), PlanDrift::Ask);
    assert_eq!(PlanDrift::default_for(true), PlanDrift::Note);
}
