//! The full plan-mode instructions: the five-phase workflow, the
//! interview workflow, and the plan-content rules of each
//! `planVariant`. Written in catui's own words.

use super::{PlanVariant, PromptOptions};

/// How a turn in plan mode ends: a task gets a plan, a question an answer.
pub const TURN_END_RULE: &str = "End each turn with AskUserQuestion (to clarify requirements or choose between approaches) or ExitPlanMode (to request approval of the finished plan). The one exception is a question that asks for no change (explaining code, finding something): answer it in text, with no plan.";

/// How a turn in plan mode ends when nobody can answer questions (a
/// headless planning run).
pub const TURN_END_RULE_NOBODY_TO_ASK: &str = "Nobody can answer questions in this run, so end the turn with ExitPlanMode once the plan file is complete. The one exception is a question that asks for no change (explaining code, finding something): answer it in text, with no plan.";

/// What replaces asking the user when nobody can answer.
pub const NOBODY_TO_ASK_RULE: &str = "Nobody can answer questions in this run: where the request leaves something open, choose the most reasonable reading yourself and list each such choice under an **Assumptions** heading in the plan, so the user can correct it when they review the plan.";

/// The turn-end rule for these options.
pub(crate) fn turn_end_rule(o: &PromptOptions) -> &'static str {
    if o.nobody_to_ask {
        TURN_END_RULE_NOBODY_TO_ASK
    } else {
        TURN_END_RULE
    }
}

/// The rule against asking for approval any other way than ExitPlanMode.
/// Shared by every variant; tests check it is present.
pub const NO_TEXT_APPROVAL_RULE: &str = "Never ask for approval of the plan in plain text (\"Does this look good?\", \"Shall I go ahead?\") and never use AskUserQuestion for it: ExitPlanMode is the only way to request approval.";

/// The same rule where nobody can answer questions (no AskUserQuestion).
const NO_TEXT_APPROVAL_RULE_NOBODY_TO_ASK: &str = "Never ask for approval of the plan in plain text (\"Does this look good?\", \"Shall I go ahead?\"): ExitPlanMode is the only way to request approval.";

/// The approval rule for these options.
pub(crate) fn no_text_approval_rule(o: &PromptOptions) -> &'static str {
    if o.nobody_to_ask {
        NO_TEXT_APPROVAL_RULE_NOBODY_TO_ASK
    } else {
        NO_TEXT_APPROVAL_RULE
    }
}

/// The non-negotiable constraint that opens the main-conversation prompts.
pub fn hard_constraint() -> &'static str {
    "Plan mode is active. The user wants a plan before anything is changed, so do not carry out the task yet. \
Until the user approves your plan you must not create, edit or delete any file except the plan file named below, \
must not use any tool or command that is not read-only (no writes, installs, configuration changes, commits or other side effects), \
and must not change the system in any other way. \
This rule overrides every other instruction you have been given, including earlier requests to make changes."
}

/// Where the plan goes and how to write it.
pub(crate) fn plan_file_section(o: &PromptOptions) -> String {
    let how = if o.plan_exists {
        format!(
            "A plan file already exists at {}. Read it, then improve it with incremental Edit calls instead of rewriting it from scratch.",
            o.plan_file_path
        )
    } else {
        format!(
            "No plan file exists yet. Create it at {} with the Write tool, then keep refining it as you learn more.",
            o.plan_file_path
        )
    };
    format!(
        "## Your plan file\n{how} It is the only file you are allowed to change; everything else is read-only."
    )
}

/// "up to N X agents", with the parallel-launch rule when N > 1.
fn up_to(n: u8, kind: &str) -> String {
    if n == 1 {
        format!("up to 1 {kind} agent")
    } else {
        format!("up to {n} {kind} agents in parallel, all started in a single message")
    }
}

/// The rules for the content of the final plan, per variant.
pub(crate) fn plan_content_rules(variant: PlanVariant) -> &'static str {
    match variant {
        PlanVariant::Full => {
            "- Open with a **Context** section: the problem or need behind the change, what prompted it, and the intended outcome.
- Describe only the approach you recommend; leave out alternatives you rejected.
- Make it short enough to scan quickly and detailed enough to carry out without guesswork.
- Name the critical files to change, with their paths.
- Point to existing functions and utilities to reuse, with their file paths.
- End with a **Verification** section: how to check the change end to end (commands to run, tests, what to look at)."
        }
        PlanVariant::Trim => {
            "- Start with a one-line **Context**: what changes and why.
- Describe only the recommended approach; no alternatives.
- List the files to change with their paths, and the existing functions to reuse with their file paths.
- Keep each step to a line or two and drop explanation the implementer will not need.
- End with a short **Verification** section: the commands or tests that prove the change works."
        }
        PlanVariant::Cut => {
            "- No context or background section: start directly with the changes.
- For each file to change, give its path and the edits to make in a few bullets.
- Mention existing functions to reuse, with their file paths, only where it matters.
- End with **Verification**: the command or commands that prove the change works.
- Good plans in this format are well under a page; cut whatever the implementer can work out alone."
        }
        PlanVariant::Cap => {
            "- Hard limit: the whole plan is at most 40 lines.
- Bullets only: no prose paragraphs and no context section.
- List the files to change by path with the edit for each, and name existing functions to reuse by path.
- Finish with **Verification**: the command to run to prove it works."
        }
    }
}

/// How the turn must end and how approval is requested.
pub(crate) fn approval_section(heading: &str, o: &PromptOptions) -> String {
    let questions = if o.nobody_to_ask {
        NOBODY_TO_ASK_RULE
    } else {
        "Use AskUserQuestion only for questions about the requirements or the approach."
    };
    format!(
        "{heading}
When the plan file is complete, call ExitPlanMode. That is how the user reviews and approves the plan; nothing is implemented before approval.
- {turn_end}
- {no_text_approval}
- {questions}",
        turn_end = turn_end_rule(o),
        no_text_approval = no_text_approval_rule(o),
    )
}

/// The standard five-phase workflow.
pub(crate) fn five_phase(o: &PromptOptions) -> String {
    let explore = up_to(o.explore_agents, "Explore");
    let plan = up_to(o.plan_agents, "Plan");
    let perspectives = if o.plan_agents > 1 {
        "\n- On larger tasks give each Plan agent a different angle (for example: the smallest change, the most robust design, the best performance) and compare what comes back."
    } else {
        ""
    };
    let (ask_any_time, ask_open) = if o.nobody_to_ask {
        (
            NOBODY_TO_ASK_RULE,
            "Settle anything still open yourself, with the most reasonable choice, and list it under **Assumptions** in the plan.",
        )
    } else {
        (
            "You may ask the user questions with AskUserQuestion at any point.",
            "Ask the user about anything still open with AskUserQuestion.",
        )
    };
    format!(
        "{constraint}

{file}

## Workflow
Work through these phases in order. {ask_any_time}

### Phase 1 — Initial understanding
Goal: understand what the user is asking for and the code it touches. Look for existing functions, utilities and patterns to reuse instead of writing new ones.
- In this phase use only agents of the `Explore` type (through the Agent tool).
- Launch {explore}.
- One agent is enough when the change is small or confined to files you already know; use more when the scope is unclear, spans several parts of the code, or you first need to learn the existing patterns.
- Give each agent its own specific search focus so their work does not overlap.

### Phase 2 — Design
Goal: decide how to implement the change.
- Launch Plan agents (the `Plan` type, through the Agent tool) to design the implementation from what Phase 1 found. Launch at least one by default; skip this phase only for trivial tasks such as a typo or a one-line fix.
- Launch {plan}.{perspectives}
- A Plan agent knows nothing about this conversation: its prompt must carry everything Phase 1 found — the relevant file names and code paths, the requirements and constraints, and what a good result looks like.

### Phase 3 — Review
Goal: check the design against what the user asked for.
1. Read the critical files the agents pointed to, so you know them first-hand.
2. Make sure the approach matches the user's original request and constraints.
3. {ask_open}

### Phase 4 — Final plan
Goal: write the final plan into the plan file ({path}). Rules for its content:
{rules}

{approval}",
        constraint = hard_constraint(),
        file = plan_file_section(o),
        path = o.plan_file_path,
        rules = plan_content_rules(o.variant),
        approval = approval_section("### Phase 5 — Request approval with ExitPlanMode", o),
    )
}

/// The interview workflow: plan together with the user in rounds.
pub(crate) fn interview(o: &PromptOptions) -> String {
    let explore = up_to(o.explore_agents, "Explore");
    let plan = up_to(o.plan_agents, "Plan");
    format!(
        "{constraint}

{file}

## Workflow: plan with the user
Build the plan together with the user in short rounds instead of exploring everything up front and presenting a finished plan.

### The loop
1. **Explore.** Read the relevant code yourself with read-only tools (Read, Glob, Grep, read-only shell commands). For a broad search you may launch {explore}; to weigh designs on a large task you may launch {plan}, giving each the file paths and constraints you found.
2. **Write it down.** Record what you learn in the plan file ({path}) right away: decisions, file paths, open questions.
3. **Ask.** When you reach a decision the code cannot settle (requirements, trade-offs, preferences, edge cases), ask the user with AskUserQuestion. Ask specific questions, offer concrete options and say which one you recommend.
Repeat the loop until nothing ambiguous is left.

### The first round
Take a quick look at a handful of key files, just enough for a first picture. Then write a skeleton plan into the plan file and put your first questions to the user. Do not try to explore everything before talking to the user.

### Review
Before finishing, re-read the critical files and check that the plan still matches the user's request and their answers.

### Final plan
When every question is settled, make the plan file final. Rules for its content:
{rules}

{approval}",
        constraint = hard_constraint(),
        file = plan_file_section(o),
        path = o.plan_file_path,
        rules = plan_content_rules(o.variant),
        approval = approval_section("### Request approval with ExitPlanMode", o),
    )
}
