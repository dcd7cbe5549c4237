//! Tests of the plan-mode prompts: insta snapshots of every text (stored in
//! `plan/snapshots/`), checks that every element a workflow prompt needs is present
//! in every variant, and the resolution of the prompt options.

use std::collections::HashMap;

use crate::plan::contract::ENTERED_PLAN_MODE;
use crate::plan::prompts::*;

const PATH: &str = "/home/user/.catui/plans/brisk-cedar-otter.md";

fn options(variant: PlanVariant, interview_phase: bool, plan_exists: bool) -> PromptOptions {
    let config = PlanModeConfig {
        variant,
        interview_phase,
        ..PlanModeConfig::default()
    };
    PromptOptions::new(PATH, plan_exists, false, &config)
}

/// What every main-conversation workflow prompt must contain.
fn assert_workflow_elements(text: &str, o: &PromptOptions) {
    let missing = |what: &str| format!("{what} missing for {o:?}");
    // 1. Hard constraint: nothing but the plan file may change.
    assert!(
        text.starts_with(hard_constraint()),
        "{}",
        missing("hard constraint")
    );
    assert!(
        text.contains("except the plan file"),
        "{}",
        missing("plan-file exception")
    );
    assert!(
        text.contains("not read-only"),
        "{}",
        missing("read-only tools rule")
    );
    assert!(
        text.contains("overrides every other instruction"),
        "{}",
        missing("precedence")
    );
    // 2. The plan file path, and how to write it.
    assert!(text.contains(&o.plan_file_path), "{}", missing("plan path"));
    let how = if o.plan_exists {
        "incremental Edit"
    } else {
        "with the Write tool"
    };
    assert!(text.contains(how), "{}", missing("plan file instructions"));
    // 3. Explore agents, in parallel, with the configured count.
    assert!(
        text.contains(&format!("up to {} Explore agent", o.explore_agents)),
        "{}",
        missing("Explore")
    );
    if o.explore_agents > 1 {
        assert!(
            text.contains("in parallel, all started in a single message"),
            "{}",
            missing("parallel launch")
        );
    }
    // 4. Plan agents with the configured count.
    assert!(
        text.contains(&format!("up to {} Plan agent", o.plan_agents)),
        "{}",
        missing("Plan agents")
    );
    // 5. Review and AskUserQuestion for open questions.
    assert!(text.contains("Review"), "{}", missing("Review"));
    assert!(
        text.contains("AskUserQuestion"),
        "{}",
        missing("AskUserQuestion")
    );
    // 6. The final plan goes into the plan file, with a verification part.
    assert!(
        text.contains(&format!("plan file ({})", o.plan_file_path)),
        "{}",
        missing("write plan")
    );
    assert!(
        text.contains("**Verification**"),
        "{}",
        missing("verification")
    );
    // 7. ExitPlanMode ends planning.
    assert!(
        text.contains("call ExitPlanMode"),
        "{}",
        missing("ExitPlanMode")
    );
    // 8. Approval never in text or through AskUserQuestion.
    assert!(
        text.contains(NO_TEXT_APPROVAL_RULE),
        "{}",
        missing("no text approval")
    );
}

#[test]
fn every_variant_contains_every_required_element() {
    for variant in PlanVariant::ALL {
        for interview in [false, true] {
            for exists in [false, true] {
                let o = options(variant, interview, exists);
                let text = full_reminder(&o);
                assert_workflow_elements(&text, &o);
                if !interview {
                    for phase in 1..=5 {
                        assert!(
                            text.contains(&format!("### Phase {phase} ")),
                            "phase {phase}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn agent_counts_reach_the_prompt() {
    let config = PlanModeConfig {
        explore_agents: 7,
        plan_agents: 3,
        ..PlanModeConfig::default()
    };
    for interview_phase in [false, true] {
        let o = PromptOptions::new(
            PATH,
            false,
            false,
            &PlanModeConfig {
                interview_phase,
                ..config
            },
        );
        assert_workflow_elements(&full_reminder(&o), &o);
    }
    let single = PromptOptions::new(
        PATH,
        false,
        false,
        &PlanModeConfig {
            explore_agents: 1,
            ..config
        },
    );
    let text = full_reminder(&single);
    assert!(text.contains("Launch up to 1 Explore agent."));
    assert!(text.contains("up to 3 Plan agents in parallel, all started in a single message"));
}

#[test]
fn variants_change_the_plan_content_rules() {
    let text = |v| full_reminder(&options(v, false, false));
    assert!(text(PlanVariant::Full).contains("Open with a **Context** section"));
    assert!(text(PlanVariant::Trim).contains("one-line **Context**"));
    assert!(text(PlanVariant::Cut).contains("No context or background section"));
    assert!(text(PlanVariant::Cap).contains("at most 40 lines"));
    for v in [PlanVariant::Full, PlanVariant::Trim, PlanVariant::Cut] {
        assert!(!text(v).contains("40 lines"), "{v}");
    }
    assert!(sparse_reminder(&options(PlanVariant::Cap, false, false)).contains("at most 40 lines"));
}

#[test]
fn sparse_reminder_keeps_the_essentials() {
    for interview in [false, true] {
        let o = options(PlanVariant::Full, interview, true);
        let text = sparse_reminder(&o);
        assert!(text.starts_with(MARKER_PLAN_MODE_STILL_ACTIVE));
        assert!(text.contains(PATH));
        assert!(text.contains("read-only"));
        assert!(text.contains("ExitPlanMode"));
        assert!(text.contains("AskUserQuestion"));
        assert!(text.contains(NO_TEXT_APPROVAL_RULE));
        assert!(
            text.len() * 4 < full_reminder(&o).len(),
            "sparse must stay short"
        );
    }
}

#[test]
fn sub_agent_reminder_names_its_own_file() {
    let agent_path = "/home/user/.catui/plans/brisk-cedar-otter-agent-a7.md";
    for exists in [false, true] {
        let o = PromptOptions::new(agent_path, exists, true, &PlanModeConfig::default());
        for text in [full_reminder(&o), sparse_reminder(&o)] {
            assert!(text.starts_with(MARKER_PLAN_MODE_ACTIVE));
            assert!(text.contains(agent_path));
            assert!(text.contains("except your own plan file"));
            assert!(!text.contains("Phase 1"), "sub-agents get the short form");
        }
    }
}

#[test]
fn enter_plan_mode_result_is_short_and_has_no_workflow() {
    // The workflow comes from the attachment, not from here (one copy).
    for interview in [false, true] {
        let text = enter_plan_mode_result(interview);
        assert!(text.starts_with(ENTERED_PLAN_MODE));
        assert!(text.contains("except the plan file"));
        assert!(!text.contains("Phase"));
        assert!(!text.contains(hard_constraint()));
        assert!(text.len() < 800);
    }
    assert!(enter_plan_mode_result(true).ends_with("Detailed workflow instructions will follow."));
}

#[test]
fn tool_descriptions_cover_when_and_how() {
    let enter = enter_plan_mode_description();
    assert!(enter.contains("When to use it") && enter.contains("When not to use it"));
    assert!(enter.contains("ExitPlanMode"));
    let exit = exit_plan_mode_description();
    assert!(exit.contains("plan file"));
    assert!(exit.contains("AskUserQuestion"));
    assert!(exit.contains("asks for no change"));
}

#[test]
fn config_from_env_and_settings() {
    let env = |pairs: &[(&str, &str)]| {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| map.get(k).cloned()
    };
    assert_eq!(
        PlanModeConfig::resolve(env(&[]), None, None),
        PlanModeConfig::default()
    );
    let c = PlanModeConfig::resolve(
        env(&[
            (ENV_EXPLORE_AGENT_COUNT, "5"),
            (ENV_PLAN_AGENT_COUNT, "2"),
            (ENV_INTERVIEW_PHASE, "true"),
        ]),
        Some(4),
        Some("cap"),
    );
    assert_eq!(
        c,
        PlanModeConfig {
            explore_agents: 5,
            plan_agents: 2,
            variant: PlanVariant::Cap,
            interview_phase: true,
            nobody_to_ask: false,
        }
    );
    // The setting is used when the env var is absent or invalid.
    let c = PlanModeConfig::resolve(env(&[(ENV_PLAN_AGENT_COUNT, "11")]), Some(4), Some("TRIM"));
    assert_eq!((c.plan_agents, c.variant), (4, PlanVariant::Trim));
    // Out-of-range or unparsable values fall back to the defaults.
    let c = PlanModeConfig::resolve(
        env(&[
            (ENV_EXPLORE_AGENT_COUNT, "0"),
            (ENV_INTERVIEW_PHASE, "maybe"),
        ]),
        Some(99),
        Some("tiny"),
    );
    assert_eq!(c, PlanModeConfig::default());
    let c = PlanModeConfig::resolve(env(&[(ENV_EXPLORE_AGENT_COUNT, "abc")]), None, None);
    assert_eq!(c.explore_agents, DEFAULT_EXPLORE_AGENTS);
    let c = PlanModeConfig::resolve(env(&[(ENV_INTERVIEW_PHASE, "0")]), None, None);
    assert!(!c.interview_phase);
    assert_eq!(parse_bool("ON"), Some(true));
    assert_eq!(parse_bool("off"), Some(false));
}

#[test]
fn snapshot_full_reminders_per_variant() {
    for variant in PlanVariant::ALL {
        insta::assert_snapshot!(
            format!("full_{variant}"),
            full_reminder(&options(variant, false, false))
        );
    }
    insta::assert_snapshot!(
        "full_full_plan_exists_3_plan_agents",
        full_reminder(&PromptOptions::new(
            PATH,
            true,
            false,
            &PlanModeConfig {
                plan_agents: 3,
                ..PlanModeConfig::default()
            }
        ))
    );
}

#[test]
fn snapshot_interview_per_variant() {
    for variant in PlanVariant::ALL {
        insta::assert_snapshot!(
            format!("interview_{variant}"),
            full_reminder(&options(variant, true, false))
        );
    }
}

#[test]
fn snapshot_short_texts() {
    insta::assert_snapshot!(
        "sparse",
        sparse_reminder(&options(PlanVariant::Full, false, true))
    );
    insta::assert_snapshot!(
        "sparse_interview_cap",
        sparse_reminder(&options(PlanVariant::Cap, true, true))
    );
    let agent = |exists| {
        PromptOptions::new(
            "/home/user/.catui/plans/brisk-cedar-otter-agent-a7.md",
            exists,
            true,
            &PlanModeConfig::default(),
        )
    };
    insta::assert_snapshot!("sub_agent_new_plan", full_reminder(&agent(false)));
    insta::assert_snapshot!("sub_agent_existing_plan", full_reminder(&agent(true)));
    insta::assert_snapshot!("reentry", reentry_reminder(PATH));
    insta::assert_snapshot!("exit_with_plan", exit_reminder(PATH, true));
    insta::assert_snapshot!("exit_without_plan", exit_reminder(PATH, false));
    insta::assert_snapshot!(
        "plan_file_reference",
        plan_file_reference(PATH, "# Plan\n1. step", false, false)
    );
    insta::assert_snapshot!(
        "approved_plan_reference_file_changed",
        plan_file_reference(PATH, "# Plan\n1. step", true, true)
    );
    insta::assert_snapshot!("exit_parked", parked_exit_reminder(PATH));
    insta::assert_snapshot!("auto_mode_exit", auto_mode_exit_reminder());
    insta::assert_snapshot!("enter_result", enter_plan_mode_result(false));
    insta::assert_snapshot!("enter_result_interview", enter_plan_mode_result(true));
}

#[test]
fn nobody_to_ask_drops_questions_and_the_interview() {
    let mut o = options(PlanVariant::Full, true, false);
    o.nobody_to_ask = true;
    for text in [full_reminder(&o), sparse_reminder(&o)] {
        assert!(!text.contains("AskUserQuestion"), "{text}");
        assert!(text.contains("ExitPlanMode"), "{text}");
    }
    let full = full_reminder(&o);
    assert!(
        full.contains("### Phase 1"),
        "the five phases, not the interview"
    );
    assert!(full.contains("**Assumptions**"), "{full}");
}
