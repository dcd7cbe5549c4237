//! Plan-mode prompt texts and the options that shape them.
//!
//! - [`PlanModeConfig`]: agent counts, `planVariant` and the interview phase,
//!   resolved from env values and settings passed in.
//! - [`PromptOptions`]: one rendering's inputs (plan file, config, sub-agent).
//! - [`full_reminder`], [`sparse_reminder`], [`reentry_reminder`],
//!   [`exit_reminder`], ...: the model-facing texts. The caller wraps them in
//!   `<system-reminder>`.
//! - The EnterPlanMode / ExitPlanMode tool descriptions and EnterPlanMode's
//!   tool result.
//!
//! The long texts are catui's own words; the short contract strings live in
//! [`super::contract`].

mod reminders;
mod workflow;

#[cfg(test)]
mod prompt_tests;

use std::fmt;
use std::str::FromStr;

use super::contract::ENTERED_PLAN_MODE;

pub use workflow::{NO_TEXT_APPROVAL_RULE, hard_constraint};

/// First words of every main-conversation full reminder and of the
/// sub-agent reminder. The attachment scanner relies on these markers:
/// changing one breaks the reminder cadence for existing transcripts.
pub const MARKER_PLAN_MODE_ACTIVE: &str = "Plan mode is active.";
/// First words of the sparse reminder.
pub const MARKER_PLAN_MODE_STILL_ACTIVE: &str = "Plan mode is still active";
/// First line of the re-entry reminder.
pub const MARKER_PLAN_MODE_REENTRY: &str = "## Re-entering Plan Mode";
/// First line of the exit reminder.
pub const MARKER_PLAN_MODE_EXIT: &str = "## Exited Plan Mode";
/// First line of the plan-file reference.
pub const MARKER_PLAN_FILE_REFERENCE: &str = "## Plan File Reference";
/// First line of the auto-mode exit notice.
pub const MARKER_AUTO_MODE_EXIT: &str = "## Exited Auto Mode";

/// Default number of parallel Explore agents.
pub const DEFAULT_EXPLORE_AGENTS: u8 = 3;
/// Default number of parallel Plan agents (no subscription tiers).
pub const DEFAULT_PLAN_AGENTS: u8 = 1;
/// Largest accepted agent count.
pub const MAX_AGENTS: u8 = 10;

/// Env var overriding the Explore agent count (1..=10).
pub const ENV_EXPLORE_AGENT_COUNT: &str = "CATUI_PLAN_EXPLORE_AGENT_COUNT";
/// Env var overriding the Plan agent count (1..=10); wins over `planAgents`.
pub const ENV_PLAN_AGENT_COUNT: &str = "CATUI_PLAN_AGENT_COUNT";
/// Env var turning the interview phase on (truthy) or off (falsy).
pub const ENV_INTERVIEW_PHASE: &str = "CATUI_PLAN_INTERVIEW_PHASE";

/// The `planVariant` setting: how much the final plan may say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlanVariant {
    /// Context, approach, files, reuse, verification (the control).
    #[default]
    Full,
    /// Lighter: one-line context, terse steps.
    Trim,
    /// No background section; changes and verification only.
    Cut,
    /// Hard limit of 40 lines, bullets only.
    Cap,
}

impl PlanVariant {
    pub const ALL: [PlanVariant; 4] = [
        PlanVariant::Full,
        PlanVariant::Trim,
        PlanVariant::Cut,
        PlanVariant::Cap,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PlanVariant::Full => "full",
            PlanVariant::Trim => "trim",
            PlanVariant::Cut => "cut",
            PlanVariant::Cap => "cap",
        }
    }
}

impl fmt::Display for PlanVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown `planVariant` value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown planVariant '{0}': expected one of full, trim, cut, cap")]
pub struct UnknownPlanVariant(pub String);

impl FromStr for PlanVariant {
    type Err = UnknownPlanVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PlanVariant::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownPlanVariant(s.to_string()))
    }
}

/// Plan-mode settings that shape the prompts, resolved once per session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanModeConfig {
    pub explore_agents: u8,
    pub plan_agents: u8,
    pub variant: PlanVariant,
    pub interview_phase: bool,
    /// Nobody can answer questions (a headless planning run): the model is
    /// told to settle open points itself and list them as assumptions,
    /// not to use AskUserQuestion (and the interview workflow, which is
    /// made of questions, gives way to the five phases).
    pub nobody_to_ask: bool,
}

impl Default for PlanModeConfig {
    fn default() -> Self {
        Self {
            explore_agents: DEFAULT_EXPLORE_AGENTS,
            plan_agents: DEFAULT_PLAN_AGENTS,
            variant: PlanVariant::Full,
            interview_phase: false,
            nobody_to_ask: false,
        }
    }
}

impl PlanModeConfig {
    /// Resolves from explicit inputs: `env` looks up an environment
    /// variable, `plan_agents_setting` / `plan_variant_setting` are the
    /// `planAgents` / `planVariant` settings. Invalid values are logged and
    /// replaced by the defaults; nothing here fails.
    pub fn resolve(
        env: impl Fn(&str) -> Option<String>,
        plan_agents_setting: Option<u64>,
        plan_variant_setting: Option<&str>,
    ) -> Self {
        let explore_agents =
            env_count(&env, ENV_EXPLORE_AGENT_COUNT).unwrap_or(DEFAULT_EXPLORE_AGENTS);
        let plan_agents = env_count(&env, ENV_PLAN_AGENT_COUNT)
            .or_else(|| {
                let n = plan_agents_setting?;
                match u8::try_from(n) {
                    Ok(n) if (1..=MAX_AGENTS).contains(&n) => Some(n),
                    _ => {
                        tracing::warn!("planAgents must be between 1 and {MAX_AGENTS}, got {n}; using {DEFAULT_PLAN_AGENTS}");
                        None
                    }
                }
            })
            .unwrap_or(DEFAULT_PLAN_AGENTS);
        let variant = match plan_variant_setting.map(str::parse::<PlanVariant>) {
            None => PlanVariant::Full,
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                tracing::warn!("{e}; using full");
                PlanVariant::Full
            }
        };
        let interview_phase = env(ENV_INTERVIEW_PHASE)
            .and_then(|v| parse_bool(&v))
            .unwrap_or(false);
        Self {
            explore_agents,
            plan_agents,
            variant,
            interview_phase,
            nobody_to_ask: false,
        }
    }

    /// Nobody can answer questions in this session (see
    /// [`Self::nobody_to_ask`]).
    pub fn with_nobody_to_ask(mut self, yes: bool) -> Self {
        self.nobody_to_ask = yes;
        self
    }

    /// [`Self::resolve`] with the process environment.
    pub fn from_process_env(
        plan_agents_setting: Option<u64>,
        plan_variant_setting: Option<&str>,
    ) -> Self {
        Self::resolve(
            |k| std::env::var(k).ok(),
            plan_agents_setting,
            plan_variant_setting,
        )
    }
}

/// An agent count from the environment: 1..=10, anything else ignored.
fn env_count(env: &impl Fn(&str) -> Option<String>, name: &str) -> Option<u8> {
    let raw = env(name)?;
    match raw.trim().parse::<u8>() {
        Ok(n) if (1..=MAX_AGENTS).contains(&n) => Some(n),
        _ => {
            tracing::warn!("{name}={raw:?} is not a number from 1 to {MAX_AGENTS}; ignoring it");
            None
        }
    }
}

/// Truthy (`1`, `true`, `yes`, `on`) or falsy (`0`, `false`, `no`, `off`),
/// case-insensitive; anything else is undecided.
pub fn parse_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" | "" => Some(false),
        _ => None,
    }
}

/// The inputs of one prompt rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptOptions {
    pub plan_file_path: String,
    pub plan_exists: bool,
    pub explore_agents: u8,
    pub plan_agents: u8,
    pub variant: PlanVariant,
    pub interview_phase: bool,
    pub is_sub_agent: bool,
    /// A sub-agent that has Write or Edit and so can keep its own plan
    /// file (Explore and Plan cannot: they report in their answer).
    pub sub_agent_writes: bool,
    /// See [`PlanModeConfig::nobody_to_ask`].
    pub nobody_to_ask: bool,
}

impl PromptOptions {
    pub fn new(
        plan_file_path: impl Into<String>,
        plan_exists: bool,
        is_sub_agent: bool,
        config: &PlanModeConfig,
    ) -> Self {
        Self {
            plan_file_path: plan_file_path.into(),
            plan_exists,
            explore_agents: config.explore_agents,
            plan_agents: config.plan_agents,
            variant: config.variant,
            interview_phase: config.interview_phase,
            is_sub_agent,
            sub_agent_writes: true,
            nobody_to_ask: config.nobody_to_ask,
        }
    }

    pub fn config(&self) -> PlanModeConfig {
        PlanModeConfig {
            explore_agents: self.explore_agents,
            plan_agents: self.plan_agents,
            variant: self.variant,
            interview_phase: self.interview_phase,
            nobody_to_ask: self.nobody_to_ask,
        }
    }
}

/// The full plan-mode instructions: the five-phase workflow, or the
/// interview workflow when enabled, or the sub-agent reminder.
pub fn full_reminder(o: &PromptOptions) -> String {
    if o.is_sub_agent {
        reminders::sub_agent(o)
    } else if o.interview_phase && !o.nobody_to_ask {
        workflow::interview(o)
    } else {
        workflow::five_phase(o)
    }
}

/// The short reminder injected between full ones (a sub-agent always gets
/// its own short reminder).
pub fn sparse_reminder(o: &PromptOptions) -> String {
    if o.is_sub_agent {
        reminders::sub_agent(o)
    } else {
        reminders::sparse(o)
    }
}

/// Sent before the plan-mode reminder when plan mode is entered again with
/// a plan left from earlier in the session.
pub fn reentry_reminder(plan_file_path: &str) -> String {
    reminders::reentry(plan_file_path)
}

/// Sent once after plan mode ends.
pub fn exit_reminder(plan_file_path: &str, plan_exists: bool) -> String {
    reminders::exit(plan_file_path, plan_exists)
}

/// Sent once after the user parked the plan (plan mode ended, nothing
/// approved).
pub fn parked_exit_reminder(plan_file_path: &str) -> String {
    reminders::parked_exit(plan_file_path)
}

/// The plan re-attached after compaction or on resume: the file's
/// content, or (`approved`) the revision the user approved, with a warning
/// when the file no longer holds it (`file_changed`).
pub fn plan_file_reference(
    plan_file_path: &str,
    plan_content: &str,
    approved: bool,
    file_changed: bool,
) -> String {
    reminders::plan_file_reference(plan_file_path, plan_content, approved, file_changed)
}

/// With each full reminder where plan mode runs commands dry: which
/// commands do, what they are for, and that nothing of them survives.
pub fn dry_run_reminder() -> &'static str {
    "Checking the plan: a Bash command that is not read-only is not refused while planning but \
runs as a dry run, in a throwaway copy of the project (and of your home directory) with no \
network and the secret stores hidden. Use dry runs to check the plan: build, run the tests \
to see the failure you plan to fix, try a migration. The copy lasts for this planning \
session, so a build and then the tests see each other's output, and later commands (read-only \
ones too) see the copy; Read, Grep and Glob still show the real project. Cite what the dry \
runs showed in the plan (the command and its result). Nothing from a dry run survives: the \
copy is thrown away when planning ends, and the real change still waits for approval."
}

/// Sent once after auto mode was switched off.
pub fn auto_mode_exit_reminder() -> String {
    reminders::auto_mode_exit()
}

/// The EnterPlanMode tool description (when to plan).
pub fn enter_plan_mode_description() -> &'static str {
    include_str!("enter_plan_mode.md")
}

/// The ExitPlanMode tool description.
pub fn exit_plan_mode_description() -> &'static str {
    include_str!("exit_plan_mode.md")
}

/// EnterPlanMode's tool result. Deliberately short: the workflow
/// itself arrives through the plan-mode attachment, so `/plan` and
/// EnterPlanMode share one set of instructions.
pub fn enter_plan_mode_result(interview_phase: bool) -> String {
    if interview_phase {
        format!(
            "{ENTERED_PLAN_MODE}\n\nDO NOT write or edit any files except the plan file. Detailed workflow instructions will follow."
        )
    } else {
        format!(
            "{ENTERED_PLAN_MODE}

While in plan mode:
1. Explore the codebase to learn how it is organised and which patterns it follows.
2. Look for similar features and the way they are built.
3. Weigh the possible approaches and their trade-offs.
4. Use AskUserQuestion when you need the user to choose or clarify.
5. Settle on a concrete implementation strategy and write it into the plan file.
6. When the plan is ready, call ExitPlanMode to ask the user to approve it.

Remember: do not write or edit any file except the plan file until the plan is approved."
        )
    }
}
