//! `teammatePlanApprover: "user"` in an editor (issue 51 item 5): a
//! teammate's plan reaches the ACP client's `session/request_permission`
//! marked with the teammate's name, with a teammate's two choices. A
//! rejection with feedback sends the teammate back to revise, the revised
//! plan is asked again and approved, the teammate carries it out, and the
//! lead model is told each outcome in a turn the editor sees stream.

use serde_json::json;

use super::scenario;
use crate::common;
use crate::common::team_plan::{FEEDBACK, PLAN, REVISED, lead_told, rejected, team_script};
use crate::common::{Sandbox, is_teammate, last_user};

#[test]
#[ignore = "needs the ACP SDK (npm); .ci/acp-setup runs it"]
fn a_teammates_plan_is_put_to_the_editors_user_with_its_name_and_decided_there() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"teammatePlanApprover": "user", "planGoal": false, "planDrift": "note"}"#);
    let plans_dir = common::plans_dir(&sb);
    let feature = sb.project().join("feature.txt");
    let server = common::mock(team_script(&plans_dir, feature.to_str().unwrap()));
    let facts = scenario(&sb, &server, "teammate_plan");

    let asked = facts["requests"].as_array().unwrap();
    assert_eq!(asked.len(), 2, "{facts:#}");
    for (request, plan) in asked.iter().zip([PLAN, REVISED]) {
        assert_eq!(request["title"], "Plan approval · amy@core", "{request:#}");
        assert_eq!(
            request["options"],
            json!([
                "teammate_approve:allow_once:Approve: amy leaves plan mode and carries it out",
                "plan_keep_planning:reject_once:Reject, and tell amy what to change"
            ]),
            "{request:#}"
        );
        assert_eq!(request["content"][0], plan, "{request:#}");
        assert_eq!(request["rawInput"]["teammate"], "amy", "{request:#}");
        assert_eq!(request["rawInput"]["team"], "core", "{request:#}");
        assert_eq!(request["featureBefore"], false, "nothing before approval");
    }
    // The rejection's feedback reached the teammate.
    let rejection = server
        .requests()
        .iter()
        .find(|r| is_teammate(r, "amy") && rejected(r))
        .map(last_user)
        .expect("the teammate never heard of the rejection");
    common::assert_contains(&rejection, FEEDBACK);
    // Approved: carried out.
    assert_eq!(std::fs::read_to_string(&feature).unwrap(), "feature\n");
    // The lead was told both outcomes, and its answers streamed.
    let told: Vec<String> = server
        .requests()
        .iter()
        .filter(|r| lead_told(r))
        .map(last_user)
        .collect();
    assert_eq!(told.len(), 2, "{told:?}");
    assert!(
        told[0].contains("amy@core") && told[0].contains("rejected it"),
        "{told:?}"
    );
    assert!(told[1].contains("approved it"), "{told:?}");
    let said = facts["said"].as_str().unwrap();
    common::assert_contains(said, "Noted: first outcome.");
}
