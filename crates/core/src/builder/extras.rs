//! What a session picks up from other agents' conventions: skills and
//! custom slash commands, found in the project and the user's folders and
//! read through the session's file gate. The project's commands'
//! `allowed-tools` apply as far as the user's trust covers them (each is a
//! piece of configuration bound by content, like an allow rule in the
//! project's settings).

use std::path::Path;
use std::sync::Arc;

use crate::custom_commands::{CommandSet, command_dirs};
use crate::engine::slash_commands::COMMANDS;
use crate::file_gate::FileGate;
use crate::settings::{Held, ProjectScope, project};
use crate::skills::{SkillSet, skill_dirs};

/// Names a custom command cannot take: the engine's commands and those the
/// front ends answer themselves.
pub const FRONT_END_COMMANDS: &[&str] = &[
    "help",
    "exit",
    "quit",
    "resume",
    "bashes",
    "agents",
    "approvals",
    "compact",
];

/// The session's skills and custom commands, and the project commands'
/// rules that wait for trust.
pub(super) struct Extras {
    pub skills: Arc<SkillSet>,
    pub commands: Arc<CommandSet>,
    pub held: Vec<Held>,
}

pub(super) fn load(
    cwd: &Path,
    config_dir: &Path,
    home: Option<&Path>,
    scope: &ProjectScope,
    gate: &FileGate,
) -> Extras {
    let dirs: Vec<_> = skill_dirs(cwd, config_dir, home)
        .into_iter()
        .filter(|(dir, source)| {
            wanted(
                scope,
                *source == crate::skills::SkillSource::Project,
                dir,
                config_dir,
            )
        })
        .collect();
    let skills = SkillSet::discover(&dirs, gate);
    let mut builtin: Vec<&str> = COMMANDS.iter().map(|(n, _)| *n).collect();
    builtin.extend_from_slice(FRONT_END_COMMANDS);
    let held = std::cell::RefCell::new(Vec::new());
    let accept = |path: &Path, name: &str, tools: &[String]| {
        let item = project::command_item(cwd, path, name, tools);
        let verdict = scope.trust.verdict(&item);
        let ok = verdict == crate::trust::Verdict::Accepted;
        if !ok {
            held.borrow_mut().push(Held { item, verdict });
        }
        ok
    };
    let dirs: Vec<_> = command_dirs(cwd, config_dir, home)
        .into_iter()
        .filter(|(dir, source)| {
            wanted(
                scope,
                *source == crate::custom_commands::CommandSource::Project,
                dir,
                config_dir,
            )
        })
        .collect();
    let commands = CommandSet::discover(&dirs, gate, &builtin, &accept);
    Extras {
        skills: Arc::new(skills),
        commands: Arc::new(commands),
        held: held.into_inner(),
    }
}

/// Whether a folder is read: the project's when the session reads the
/// project's files, the user's when it reads the user's (and a project
/// folder that is the user's own, in the home directory, once).
fn wanted(scope: &ProjectScope, project_source: bool, dir: &Path, config_dir: &Path) -> bool {
    if project_source {
        scope.sources.project && !project::same_dir(dir.parent().unwrap_or(dir), config_dir)
    } else {
        scope.sources.user
    }
}
