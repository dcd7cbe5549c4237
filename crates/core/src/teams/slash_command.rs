//! `/team`: listing the teammates with what they are doing, and stopping
//! one.

use super::manager::{TeamHandle, TeamManager};
use super::teammate::{TeammateState, TeammateStatus};
use crate::engine::slash_commands::CommandOutput;

/// The most of a teammate's activity `/team` shows: a long shell command
/// would push the model column off the screen.
const ACTIVITY_WIDTH: usize = 40;

impl TeamManager {
    /// `/team`: the teammates and what they are doing (here, beside the
    /// command, so that the manager does not import its own command).
    pub fn describe(&self) -> String {
        describe(self)
    }
}

/// The text of `/team` (and of [`TeamManager::describe`]).
fn describe(manager: &TeamManager) -> String {
    let members = manager.members();
    if members.is_empty() {
        return "No teammates. The lead starts them with the TeamCreate tool.".into();
    }
    let mut out = String::new();
    for team in manager.teams() {
        out.push_str(&format!(
            "Team {team} ({})\n",
            manager.mailbox_location(&team)
        ));
        let rows: Vec<Row> = members
            .iter()
            .filter(|m| m.team() == team)
            .map(|m| Row::of(m))
            .collect();
        out.push_str(&member_lines(&rows));
    }
    out.trim_end().to_string()
}

/// One teammate's line of `/team`.
struct Row {
    name: String,
    status: TeammateStatus,
    activity: Option<String>,
    model: String,
    plan_mode_required: bool,
}

impl Row {
    fn of(m: &TeammateState) -> Self {
        Row {
            name: m.name().to_string(),
            status: m.status(),
            // A stopped teammate's last call is history, not activity.
            activity: m
                .activity()
                .filter(|_| m.status() != TeammateStatus::Stopped),
            model: m.model.clone(),
            plan_mode_required: m.spec.plan_mode_required,
        }
    }
}

/// The members of one team, one line each. The activity column is only
/// there when someone has an activity, and is as wide as the longest one,
/// so the model column stays aligned.
fn member_lines(rows: &[Row]) -> String {
    let activities: Vec<Option<String>> = rows
        .iter()
        .map(|r| r.activity.as_deref().map(shorten))
        .collect();
    let width = activities.iter().flatten().map(|a| a.chars().count()).max();
    let mut out = String::new();
    for (r, activity) in rows.iter().zip(activities) {
        let mut line = format!("  {:<16} {:<18} ", r.name, r.status.to_string());
        if let Some(width) = width {
            line.push_str(&format!("{:<width$} ", activity.unwrap_or_default()));
        }
        line.push_str(&r.model);
        if r.plan_mode_required {
            line.push_str(", plan approval required");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// One line of at most [`ACTIVITY_WIDTH`] characters.
fn shorten(activity: &str) -> String {
    let flat = activity.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= ACTIVITY_WIDTH {
        return flat;
    }
    let mut cut: String = flat.chars().take(ACTIVITY_WIDTH - 1).collect();
    cut.push('…');
    cut
}

/// `/team show NAME`: one teammate's status and recent history.
fn show(m: &TeammateState) -> String {
    let mut out = format!(
        "{} · {} · {} · {} tool calls",
        m.agent_id(),
        m.status(),
        m.model,
        m.tool_uses()
    );
    let recent = m.recent();
    if recent.is_empty() {
        out.push_str("\n  (nothing yet)");
    }
    for line in recent {
        for (i, row) in line.lines().enumerate() {
            out.push_str(if i == 0 { "\n  " } else { "\n    " });
            out.push_str(row);
        }
    }
    out
}

/// The teammate `name` (of `team`, else of any team), the running one
/// before a stopped one of the same name.
fn find_member(
    manager: &TeamManager,
    name: &str,
    team: Option<&str>,
) -> Option<std::sync::Arc<TeammateState>> {
    let members = manager.members();
    let named =
        |m: &&std::sync::Arc<TeammateState>| m.name() == name && team.is_none_or(|t| m.team() == t);
    members
        .iter()
        .rev()
        .filter(named)
        .find(|m| m.status() != TeammateStatus::Stopped)
        .or_else(|| members.iter().rev().find(named))
        .cloned()
}

/// `/team [list | show NAME [TEAM] | stop NAME [TEAM]]`.
pub fn team_command(handle: Option<&TeamHandle>, args: &str) -> CommandOutput {
    let Some(handle) = handle else {
        return CommandOutput::Local {
            text: "Teams are not available in this session.".into(),
            is_error: true,
        };
    };
    let manager = &handle.manager;
    let words: Vec<&str> = args.split_whitespace().collect();
    match words.as_slice() {
        [] | ["list"] => CommandOutput::Local {
            text: manager.describe(),
            is_error: false,
        },
        ["show", name, rest @ ..] => match find_member(manager, name, rest.first().copied()) {
            Some(m) => CommandOutput::Local {
                text: show(&m),
                is_error: false,
            },
            None => CommandOutput::Local {
                text: format!("No teammate named {name}."),
                is_error: true,
            },
        },
        ["stop", name, rest @ ..] => {
            let team = find_member(manager, name, rest.first().copied())
                .filter(|m| m.status() != TeammateStatus::Stopped)
                .map(|m| m.team().to_string());
            match team.map(|t| manager.stop(&t, name)) {
                Some(Ok(())) => CommandOutput::Local {
                    text: format!("Stopped teammate {name}."),
                    is_error: false,
                },
                Some(Err(e)) => CommandOutput::Local {
                    text: e.to_string(),
                    is_error: true,
                },
                None => CommandOutput::Local {
                    text: format!("No running teammate named {name}."),
                    is_error: true,
                },
            }
        }
        _ => CommandOutput::Local {
            text: "Usage: /team [list] | /team show NAME [TEAM] | /team stop NAME [TEAM]".into(),
            is_error: true,
        },
    }
}

/// `/team` as an engine extension of the lead's conversation (`None`: a
/// session without teams, which says so).
pub struct TeamCommand(pub Option<TeamHandle>);

impl crate::engine::EngineExtension for TeamCommand {
    fn command(
        &self,
        command: &crate::engine::slash_commands::SlashCommand,
        _session: &dyn crate::tools::SessionHooks,
    ) -> Option<CommandOutput> {
        (command.name == "team").then(|| team_command(self.0.as_ref(), &command.args))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, status: TeammateStatus, activity: Option<&str>) -> Row {
        Row {
            name: name.into(),
            status,
            activity: activity.map(str::to_string),
            model: "m1".into(),
            plan_mode_required: false,
        }
    }

    #[test]
    fn activity_sits_between_status_and_model() {
        let text = member_lines(&[
            row("amy", TeammateStatus::Working, Some("Edit(src/lib.rs)")),
            row("bob", TeammateStatus::Idle, None),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0].split_whitespace().collect::<Vec<_>>(),
            ["amy", "working", "Edit(src/lib.rs)", "m1"]
        );
        assert_eq!(
            lines[1].split_whitespace().collect::<Vec<_>>(),
            ["bob", "idle", "m1"]
        );
        // The model column lines up whether or not there is an activity.
        assert_eq!(lines[0].find("m1"), lines[1].find("m1"));
    }

    #[test]
    fn no_activity_column_when_nobody_is_busy() {
        let text = member_lines(&[row("bob", TeammateStatus::Idle, None)]);
        assert_eq!(text, format!("  {:<16} {:<18} m1\n", "bob", "idle"));
    }

    #[test]
    fn long_activities_are_cut_to_one_line() {
        let long = format!("Bash(cargo test\n  {})", "x".repeat(80));
        let shown = shorten(&long);
        assert_eq!(shown.chars().count(), ACTIVITY_WIDTH);
        assert!(shown.starts_with("Bash(cargo test x"), "{shown}");
        assert!(shown.ends_with('…'));
    }
}
