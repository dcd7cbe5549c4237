//! Custom slash commands: Markdown prompts the user or the project keeps
//! in `.catui/commands/` (and `.claude/commands/`, for repositories set up
//! for other agents) or in `$CATUI_CONFIG_DIR/commands/` and
//! `~/.claude/commands/`. `NAME.md` is `/NAME`, `FOLDER/NAME.md` is
//! `/FOLDER:NAME`. The first found wins for a name (the project's before
//! the user's); a built-in command's name always wins, with a notice.
//!
//! Front matter (all optional): `description` (the palette and `/help`),
//! `argument-hint`, `model` (the model of that turn) and `allowed-tools`
//! (allow rules for that turn only; from a project's command they apply
//! only as far as the user trusts the project, like any allow rule, see
//! [`CommandSet::discover`]'s `accept`). The body is the prompt, with
//! `$ARGUMENTS` replaced by everything after the name and `$1`…`$9` by
//! the words ([`expand`]).
//!
//! Every file is read through the [file gate](crate::file_gate): inside
//! the folder it was found in, never a secret store.

mod extension;

pub use extension::CustomCommands;

use std::path::{Path, PathBuf};

use crate::file_gate::{FileGate, Limit};
use crate::front_matter::FrontMatter;

/// The largest command file read.
pub const MAX_COMMAND_BYTES: u64 = 64 * 1024;
/// How deep sub-folders are followed (`a:b:c`).
const MAX_DEPTH: usize = 3;

/// Where a command was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandSource {
    Project,
    User,
}

impl CommandSource {
    pub fn label(self) -> &'static str {
        match self {
            CommandSource::Project => "project",
            CommandSource::User => "user",
        }
    }
}

/// One custom command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCommand {
    /// Without the `/`: `review`, `git:commit`.
    pub name: String,
    pub description: String,
    pub argument_hint: Option<String>,
    pub model: Option<String>,
    /// The allow rules of the command's turn, as far as they apply
    /// (a project's wait for trust: see `held_tools`).
    pub allowed_tools: Vec<String>,
    /// The project's `allowed-tools` that do not apply until the user
    /// trusts the project (as it is now).
    pub held_tools: Vec<String>,
    /// The prompt, front matter removed.
    pub body: String,
    pub path: PathBuf,
    pub source: CommandSource,
}

/// The session's custom commands and what went wrong finding them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandSet {
    pub commands: Vec<CustomCommand>,
    /// One line per file refused or shadowed, for the user.
    pub warnings: Vec<String>,
}

/// The folders commands are looked for in, in order (see the module docs).
pub fn command_dirs(
    cwd: &Path,
    config_dir: &Path,
    home: Option<&Path>,
) -> Vec<(PathBuf, CommandSource)> {
    let mut dirs = vec![
        (cwd.join(".catui").join("commands"), CommandSource::Project),
        (cwd.join(".claude").join("commands"), CommandSource::Project),
        (config_dir.join("commands"), CommandSource::User),
    ];
    if let Some(home) = home {
        dirs.push((home.join(".claude").join("commands"), CommandSource::User));
    }
    dirs
}

/// Whether a project command's `allowed-tools` apply: `(file, name,
/// rules)` → trusted.
pub type AcceptTools<'a> = &'a dyn Fn(&Path, &str, &[String]) -> bool;

impl CommandSet {
    /// Finds the commands in `dirs` through `gate` (the session's).
    /// `builtin`: the names that win over a custom command; `accept`
    /// decides whether a project command's `allowed-tools` apply.
    pub fn discover(
        dirs: &[(PathBuf, CommandSource)],
        gate: &FileGate,
        builtin: &[&str],
        accept: AcceptTools<'_>,
    ) -> CommandSet {
        let mut set = CommandSet::default();
        let mut seen: Vec<PathBuf> = Vec::new();
        for (root, source) in dirs {
            if !root.is_dir() {
                continue;
            }
            let root_gate = if gate.roots().iter().any(|r| root.starts_with(r)) {
                gate.clone()
            } else {
                gate.within(root)
            };
            // The folder itself must lead where its gate allows; its files
            // then stay inside it.
            let files_gate = match root_gate.admits(root) {
                Ok(dir) => root_gate.within(&dir),
                Err(e) => {
                    set.warnings.push(format!(
                        "commands in {} are not loaded: {e}",
                        root.display()
                    ));
                    continue;
                }
            };
            let mut files = Vec::new();
            markdown_files(root, &[], 0, &mut files);
            files.sort();
            for (path, parts) in files {
                let name = parts.join(":");
                let text = match files_gate.read(&path, Limit::Whole(MAX_COMMAND_BYTES)) {
                    Ok(file) => file.text(),
                    Err(e) => {
                        set.warnings
                            .push(format!("command /{name} is not loaded: {e}"));
                        continue;
                    }
                };
                let Ok(resolved) = std::fs::canonicalize(&path) else {
                    continue;
                };
                if seen.contains(&resolved) {
                    continue;
                }
                seen.push(resolved);
                if builtin.contains(&name.as_str()) {
                    set.warnings.push(format!(
                        "command /{name} in {} is not used: /{name} is a built-in command",
                        path.display()
                    ));
                    continue;
                }
                if let Some(first) = set.commands.iter().find(|c| c.name == name) {
                    set.warnings.push(format!(
                        "command /{name} in {} is not used: the {} command in {} has the same name",
                        path.display(),
                        first.source.label(),
                        first.path.display()
                    ));
                    continue;
                }
                let front = match FrontMatter::parse(&text) {
                    Ok(front) => front,
                    Err(e) => {
                        set.warnings.push(format!(
                            "command /{name} is not loaded: {}: {e}",
                            path.display()
                        ));
                        continue;
                    }
                };
                let tools = front.list("allowed-tools");
                let applies = tools.is_empty()
                    || *source == CommandSource::User
                    || accept(&path, &name, &tools);
                let (allowed_tools, held_tools) = if applies {
                    (tools, Vec::new())
                } else {
                    (Vec::new(), tools)
                };
                let body = front.body.trim().to_string();
                let description = front
                    .get("description")
                    .map(str::to_string)
                    .unwrap_or_else(|| first_line(&body));
                set.commands.push(CustomCommand {
                    name,
                    description,
                    argument_hint: front.get("argument-hint").map(str::to_string),
                    model: front.get("model").map(str::to_string),
                    allowed_tools,
                    held_tools,
                    body,
                    path,
                    source: *source,
                });
            }
        }
        set
    }

    pub fn get(&self, name: &str) -> Option<&CustomCommand> {
        self.commands.iter().find(|c| c.name == name)
    }

    /// `(name, description)` of each command, for palettes and lists.
    pub fn entries(&self) -> Vec<(String, String)> {
        self.commands
            .iter()
            .map(|c| {
                let hint = c
                    .argument_hint
                    .as_deref()
                    .map(|h| format!(" {h}"))
                    .unwrap_or_default();
                (c.name.clone(), format!("{}{hint}", c.description))
            })
            .collect()
    }
}

fn first_line(body: &str) -> String {
    let line = body.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let line: String = line
        .trim()
        .trim_start_matches('#')
        .trim()
        .chars()
        .take(80)
        .collect();
    if line.is_empty() {
        "custom command".into()
    } else {
        line
    }
}

/// `*.md` files beneath `dir` with their name parts (`git/commit.md` →
/// `["git", "commit"]`); hidden entries skipped, links to folders not
/// followed.
fn markdown_files(
    dir: &Path,
    parts: &[String],
    depth: usize,
    out: &mut Vec<(PathBuf, Vec<String>)>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            if depth < MAX_DEPTH && valid_part(&file_name) {
                let mut inner = parts.to_vec();
                inner.push(file_name);
                markdown_files(&path, &inner, depth + 1, out);
            }
            continue;
        }
        if let Some(stem) = file_name.strip_suffix(".md")
            && valid_part(stem)
        {
            let mut name = parts.to_vec();
            name.push(stem.to_string());
            out.push((path, name));
        }
    }
}

fn valid_part(part: &str) -> bool {
    !part.is_empty()
        && part
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The command's prompt for `args`: `$ARGUMENTS` is all of them, `$1`…`$9`
/// the words (quotes group words: `"two words"`); a missing word is empty.
pub fn expand(body: &str, args: &str) -> String {
    let words = split_words(args);
    let mut out = String::with_capacity(body.len() + args.len());
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(args);
            rest = tail;
        } else if let Some(d) = after
            .chars()
            .next()
            .and_then(|c| c.to_digit(10))
            .filter(|d| *d >= 1)
        {
            if let Some(word) = words.get(d as usize - 1) {
                out.push_str(word);
            }
            rest = &after[1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Words of `args`, with `"…"` and `'…'` grouping.
fn split_words(args: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in args.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            None => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
