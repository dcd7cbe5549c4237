//! Skills: folders holding a `SKILL.md` (a `name` and a `description` in
//! its front matter, instructions below, and any scripts or references
//! beside it), the convention several agents share.
//!
//! Where they are found, first wins for a name: the project's
//! `.catui/skills/*/SKILL.md` and `.claude/skills/*/SKILL.md`, then the
//! user's `$CATUI_CONFIG_DIR/skills/` and `~/.claude/skills/`. A skill is
//! text, so a project's skills load before the project is trusted (they
//! widen nothing: the scripts a skill names run through Bash under the
//! normal rules).
//!
//! Every file of a skill is read through the [file gate](crate::file_gate)
//! with the skill's own folder as the only root: a `SKILL.md` or a file
//! beside it that links out of the folder (or into a secret store) is
//! refused and said so. The model sees each skill's name and description
//! in the [`Skill`](tool::SkillTool) tool's description (bounded by
//! [`LISTING_BUDGET_CHARS`]; what does not fit is reported, never cut
//! silently) and loads a body with that tool.

pub mod command;
pub mod tool;

use std::path::{Path, PathBuf};

use crate::file_gate::{FileGate, GateRefusal, GatedFile, Limit};
use crate::front_matter::{FrontMatter, FrontMatterError};

/// The largest `SKILL.md` read.
pub const MAX_SKILL_BYTES: u64 = 256 * 1024;
/// The longest description listed whole (longer ones are cut, with a
/// notice to the user).
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// What the listing of every skill's name and description may take in the
/// tool description; skills beyond it are not listed (with a notice).
pub const LISTING_BUDGET_CHARS: usize = 12 * 1024;
/// How many files of a skill's folder the `Skill` tool lists.
pub const MAX_LISTED_FILES: usize = 100;

/// Where a skill was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillSource {
    Project,
    User,
}

impl SkillSource {
    pub fn label(self) -> &'static str {
        match self {
            SkillSource::Project => "project",
            SkillSource::User => "user",
        }
    }
}

/// One skill as the session knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    /// As listed to the model (cut at [`MAX_DESCRIPTION_CHARS`]).
    pub description: String,
    /// The skill's folder, every link resolved.
    pub dir: PathBuf,
    pub source: SkillSource,
    /// Whether it is in the listing the model sees (the budget allowing).
    pub listed: bool,
}

/// The session's skills and what went wrong finding them.
#[derive(Debug, Clone, Default)]
pub struct SkillSet {
    pub skills: Vec<Skill>,
    /// One line per skill refused, cut or left out of the listing, for
    /// the user (start-up warnings).
    pub warnings: Vec<String>,
    gate: Option<FileGate>,
}

/// Why a skill's instructions could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadSkillError {
    /// The session was built without skills (no gate to read them through).
    #[error("skills are not available in this session")]
    Unavailable,
    /// The file gate refused `SKILL.md`, or it could not be read (changed
    /// or removed since the skill was found).
    #[error(transparent)]
    Read(#[from] GateRefusal),
    /// `SKILL.md` was read but its front matter is broken.
    #[error("SKILL.md of `{skill}`: {error}")]
    FrontMatter {
        skill: String,
        error: FrontMatterError,
    },
}

/// A skill's loaded text and files (what the `Skill` tool returns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedSkill {
    pub body: String,
    /// Absolute paths of the files in the skill's folder (the `SKILL.md`
    /// aside), at most [`MAX_LISTED_FILES`].
    pub files: Vec<PathBuf>,
    /// Files left out: links out of the folder, secret stores; or that
    /// the list was cut.
    pub left_out: Vec<String>,
}

/// The folders skills are looked for in, in order (see the module docs).
pub fn skill_dirs(
    cwd: &Path,
    config_dir: &Path,
    home: Option<&Path>,
) -> Vec<(PathBuf, SkillSource)> {
    let mut dirs = vec![
        (cwd.join(".catui").join("skills"), SkillSource::Project),
        (cwd.join(".claude").join("skills"), SkillSource::Project),
        (config_dir.join("skills"), SkillSource::User),
    ];
    if let Some(home) = home {
        dirs.push((home.join(".claude").join("skills"), SkillSource::User));
    }
    dirs
}

impl SkillSet {
    /// Finds the skills in `dirs`, reading through `gate` (the session's).
    pub fn discover(dirs: &[(PathBuf, SkillSource)], gate: &FileGate) -> SkillSet {
        let mut set = SkillSet {
            gate: Some(gate.clone()),
            ..SkillSet::default()
        };
        let mut seen_dirs: Vec<PathBuf> = Vec::new();
        for (root, source) in dirs {
            let Ok(entries) = std::fs::read_dir(root) else {
                continue;
            };
            let mut folders: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    !p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                })
                .collect();
            folders.sort();
            // A folder of skills outside the session's roots (the user's
            // `~/.claude/skills`) is its own root.
            let root_gate = if gate.roots().iter().any(|r| root.starts_with(r)) {
                gate.clone()
            } else {
                gate.within(root)
            };
            for folder in folders {
                let file = folder.join("SKILL.md");
                if std::fs::symlink_metadata(&file).is_err() {
                    continue;
                }
                set.add(&folder, &file, *source, &root_gate, &mut seen_dirs);
            }
        }
        set.fit_listing();
        set
    }

    fn add(
        &mut self,
        folder: &Path,
        file: &Path,
        source: SkillSource,
        root_gate: &FileGate,
        seen_dirs: &mut Vec<PathBuf>,
    ) {
        let shown = folder.display();
        let dir = match root_gate.admits(folder) {
            Ok(dir) => dir,
            Err(e) => {
                self.warnings
                    .push(format!("skill {shown} is not loaded: {e}"));
                return;
            }
        };
        if seen_dirs.contains(&dir) {
            return;
        }
        seen_dirs.push(dir.clone());
        let text = match read_skill_file(root_gate, &dir, file) {
            Ok(file) => file.text(),
            Err(e) => {
                self.warnings
                    .push(format!("skill {shown} is not loaded: {e}"));
                return;
            }
        };
        let front = match FrontMatter::parse(&text) {
            Ok(front) => front,
            Err(e) => {
                self.warnings
                    .push(format!("skill {shown} is not loaded: its SKILL.md: {e}"));
                return;
            }
        };
        let folder_name = folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = front.get("name").unwrap_or(&folder_name).trim().to_string();
        if !valid_name(&name) {
            self.warnings.push(format!(
                "skill {shown} is not loaded: its name `{name}` must be 1-64 lowercase letters, digits or hyphens"
            ));
            return;
        }
        let Some(description) = front.get("description").map(str::trim) else {
            self.warnings.push(format!(
                "skill {shown} is not loaded: its SKILL.md has no `description` (the model decides from it when to use the skill)"
            ));
            return;
        };
        if let Some(first) = self.skills.iter().find(|s| s.name == name) {
            self.warnings.push(format!(
                "skill {shown} is not loaded: the {} skill `{name}` in {} has the same name",
                first.source.label(),
                first.dir.display()
            ));
            return;
        }
        let description = if description.chars().count() > MAX_DESCRIPTION_CHARS {
            self.warnings.push(format!(
                "skill `{name}`: its description is longer than {MAX_DESCRIPTION_CHARS} characters; the model sees the first {MAX_DESCRIPTION_CHARS}"
            ));
            let cut: String = description.chars().take(MAX_DESCRIPTION_CHARS).collect();
            format!("{cut}…")
        } else {
            description.to_string()
        };
        self.skills.push(Skill {
            name,
            description,
            dir,
            source,
            listed: true,
        });
    }

    /// Marks the skills that fit in the listing budget; the others are
    /// still loadable by name, and the user is told.
    fn fit_listing(&mut self) {
        let mut used = 0usize;
        for skill in &mut self.skills {
            let cost = listing_line(skill).len();
            if used + cost > LISTING_BUDGET_CHARS {
                skill.listed = false;
                self.warnings.push(format!(
                    "skill `{}` is not listed to the model: the skill listing is limited to {LISTING_BUDGET_CHARS} characters (shorten descriptions or remove skills)",
                    skill.name
                ));
            } else {
                used += cost;
            }
        }
    }

    /// The skills' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.skills.iter().map(|s| s.name.clone()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// The `- name: description` lines of the listed skills.
    pub fn listing(&self) -> String {
        self.skills
            .iter()
            .filter(|s| s.listed)
            .map(listing_line)
            .collect()
    }

    /// Reads a skill's body and lists its files, through the gate with
    /// the skill's folder as the only root.
    pub fn load(&self, skill: &Skill) -> Result<LoadedSkill, LoadSkillError> {
        let gate = self.gate.as_ref().ok_or(LoadSkillError::Unavailable)?;
        let file = read_skill_file(gate, &skill.dir, &skill.dir.join("SKILL.md"))?;
        let body = FrontMatter::parse(&file.text())
            .map_err(|error| LoadSkillError::FrontMatter {
                skill: skill.name.clone(),
                error,
            })?
            .body;
        let inside = gate.within(&skill.dir);
        let mut files = Vec::new();
        let mut left_out = Vec::new();
        let mut candidates = Vec::new();
        list_files(&skill.dir, 0, &mut candidates);
        candidates.sort();
        for path in candidates {
            if path == skill.dir.join("SKILL.md") {
                continue;
            }
            if files.len() >= MAX_LISTED_FILES {
                left_out.push(format!(
                    "more files than {MAX_LISTED_FILES}; the list stops here"
                ));
                break;
            }
            match inside.admits(&path) {
                Ok(_) => files.push(path),
                Err(e) => left_out.push(e.to_string()),
            }
        }
        Ok(LoadedSkill {
            body: body.trim().to_string(),
            files,
            left_out,
        })
    }
}

/// The instructions of `names` for a sub-agent's prompt (an agent
/// definition's `skills`), each under its own heading; a name the session
/// has no skill of is said so in the text (empty when `names` is).
pub fn preloaded(set: &SkillSet, names: &[String]) -> String {
    let mut out = String::new();
    for name in names {
        let text = match set.get(name).map(|s| (s, set.load(s))) {
            Some((skill, Ok(loaded))) => format!(
                "\n# Skill `{name}` (folder {})\n{}\n",
                skill.dir.display(),
                loaded.body
            ),
            Some((_, Err(e))) => format!("\n# Skill `{name}`\n(not loaded: {e})\n"),
            None => format!("\n# Skill `{name}`\n(this session has no skill of that name)\n"),
        };
        out.push_str(&text);
    }
    out
}

/// `SKILL.md` read with the skill's folder as the only root (so a link out
/// of it is refused), under the gate the folder was found through.
fn read_skill_file(
    gate: &FileGate,
    dir: &Path,
    file: &Path,
) -> Result<GatedFile, crate::file_gate::GateRefusal> {
    gate.within(dir).read(file, Limit::Whole(MAX_SKILL_BYTES))
}

fn listing_line(skill: &Skill) -> String {
    format!("- {}: {}\n", skill.name, skill.description)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// The files beneath `dir` (hidden ones and `.git` aside), a few levels
/// deep, without following links to directories.
fn list_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > 4 || out.len() > MAX_LISTED_FILES * 2 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        match entry.file_type() {
            Ok(t) if t.is_dir() => list_files(&path, depth + 1, out),
            Ok(_) => out.push(path),
            Err(_) => {}
        }
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
