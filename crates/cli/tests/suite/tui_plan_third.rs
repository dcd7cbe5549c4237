//! Plan mode's third pass in the terminal UI (issue 35, items 11–13): the
//! real `catui` binary in a tmux pane against the testkit mock model —
//! parking a plan from the approval dialog, approving part of a plan, and
//! the model that plans and the one that implements.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::result_of;
use common::tmux::*;
use serde_json::json;

/// A model that writes `plan` to its plan file and presents it.
fn presents(dir: &str, plan: &'static str) -> Script {
    let dir = dir.to_string();
    Script::new()
        .turn(Turn::respond(move |r| {
            common::write("p1", common::plan_path_in(r, &dir), &plan)
        }))
        .turn(common::exit_plan("x1"))
}

/// "Not now" in the dialog: plan mode ends in the mode from before it,
/// nothing is approved, the plan stays, the model is told not to
/// implement, and the input ends there.
#[test]
fn parking_a_plan_in_the_terminal_ui() {
    require_tmux();
    let s = setup(
        |_, dir, _| presents(dir, "# Parser plan\n\n1. Rewrite the parser\n"),
        None,
    );
    launch(&s);
    cycle_mode_to(&s.tmux, "acceptEdits");
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("plan the parser rewrite");
    s.tmux
        .wait_text("Not now: park the plan (nothing is approved)");
    s.tmux.keys(&["6"]);
    let screen = s.tmux.wait_text("Plan parked, not approved");
    assert_eq!(mode_on_screen(&screen), "acceptEdits", "{screen}");
    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 2, "the input ended at the park");
    quit_and_check_terminal(&s);

    let plan_file = std::fs::read_dir(&s.plans_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .expect("the plan file is kept");
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# Parser plan\n\n1. Rewrite the parser\n"
    );
    let transcript = std::fs::read_to_string(&s.sb.transcripts()[0]).unwrap();
    let tool_result = transcript
        .lines()
        .find(|l| l.contains("\"tool_use_id\":\"x1\""))
        .expect("the result of ExitPlanMode is recorded");
    assert!(
        tool_result.contains("Nothing was approved"),
        "{tool_result}"
    );
    assert!(transcript.contains("\"plan_parked\""), "{transcript}");
    assert!(!transcript.contains("\"plan_approved\""), "{transcript}");
}

/// `s` leaves steps out and `m` picks the model that implements: the
/// planning model (`planModel`) planned, the picked one implements, the
/// skipped step is marked and left out of the todo panel.
#[test]
fn skipping_a_step_and_picking_the_model_in_the_terminal_ui() {
    require_tmux();
    let s = setup(
        |sb, dir, _| {
            std::fs::write(
                sb.config().join("settings.json"),
                r#"{"planModel": "planner-model", "planGoal": false, "planDrift": "note"}"#,
            )
            .unwrap();
            presents(
                dir,
                "# Plan\n\n1. Parse the flag\n2. Print JSON\n3. Add tests\n",
            )
            // Slow enough to see the todo list while the turn runs (it
            // goes with the turn).
            .turn(
                Turn::text("Implementing without step 2.").delay(std::time::Duration::from_secs(2)),
            )
        },
        None,
    );
    launch(&s);
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("plan the --json flag");
    s.tmux.wait_text("Implements: test-model");
    s.tmux.keys(&["s"]);
    s.tmux.wait_text("Steps to carry out");
    s.tmux.keys(&["Down", "Space"]);
    s.tmux.wait_text("Skipping step 2 when approved");
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_screen("the step list closed", |sc| {
        !sc.contains("Steps to carry out")
    });
    s.tmux.keys(&["m"]);
    s.tmux.wait_text("Implementation model:");
    s.tmux.keys(&["C-u"]);
    s.tmux.type_text("builder-model");
    s.tmux.wait_text("builder-model");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Implements: builder-model");
    s.tmux.keys(&["1"]);
    let screen = s.tmux.wait_text("☐ Add tests");
    assert!(screen.contains("☐ Parse the flag"), "{screen}");
    assert!(!screen.contains("☐ Print JSON"), "{screen}");
    let screen = s.tmux.wait_text("Implementing without step 2.");
    assert_eq!(mode_on_screen(&screen), "acceptEdits", "{screen}");

    let reqs = s.server.requests();
    let models: Vec<&str> = reqs.iter().map(|r| r.model()).collect();
    assert_eq!(models, ["planner-model", "planner-model", "builder-model"]);
    let (approved, is_error) = result_of(&reqs[2], "x1");
    assert!(!is_error, "{approved}");
    assert!(
        approved.contains("2. ~~Print JSON~~ (skipped by the user)"),
        "{approved}"
    );
    quit_and_check_terminal(&s);
}
