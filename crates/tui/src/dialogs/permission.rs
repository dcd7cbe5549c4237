//! The tool permission dialog: shows what will run (a Bash command, the
//! diff a Write/Edit would make, or the raw input) and offers Yes / Yes and
//! don't ask again this session / No with feedback — and, for a Bash
//! command where the session can run one, "Run as a dry run" (the last
//! option, or `d`): it runs in a throwaway copy of the project and the agent sees
//! what it would have changed.
//!
//! The options are always on screen: when what the dialog shows does not
//! fit above them, it shows what fits, says how much is hidden, and `v`
//! scrolls through the rest (`command_view.rs` keeps a padded command
//! short and its control characters visible).

use catui_core::engine::{PermissionAnswer, PermissionRequest};
use catui_protocol::tool_names;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use serde_json::{Value, json};

use super::choice::{ChoiceDialog, Picked, hint_lines};
use super::command_view::{command_rows, inline};
use super::{DialogOutcome, field_cursor, frame_block, wrapped_height};
use crate::diff::{diff_lines, unified};
use crate::keymap::{self, Binding, Choice};
use crate::theme;
use crate::tool_view::relative_paths;
use crate::wrap::wrap_line;

const FEEDBACK_LABEL: &str = "  Tell the agent what to do instead: ";
/// Diff lines shown before folding; the dialog must leave room for options.
const MAX_DIFF_LINES: usize = 24;

/// The permission dialog's own keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Own {
    /// Scroll through a body that does not fit.
    View,
    /// Run the command as a dry run (offered for Bash where the session
    /// can run one).
    DryRun,
}

/// The keys of the permission dialog: the options' keys, then its own.
pub const KEYS: &[Binding<Choice<Own>>] = &{
    let [enter, number, up, down, stop] = keymap::choice_rows!(Own);
    [
        enter,
        number,
        up,
        down,
        stop,
        Binding {
            keys: &[keymap::ch('v')],
            label: "v",
            help: "view all of what it asks about, when it does not fit",
            // The row saying what is hidden names this key.
            hint: "",
            command: Choice::Own(Own::View),
        },
        Binding {
            keys: &[keymap::ch('d')],
            label: "d",
            help: "run the command as a dry run: in a throwaway copy of the project, which it \
                   cannot change (offered for shell commands)",
            hint: "dry run",
            command: Choice::Own(Own::DryRun),
        },
    ]
};

/// The option that runs the command as a dry run, when offered.
const DRY_RUN_LABEL: &str = "Run as a dry run (in a throwaway copy; the project stays unchanged)";

/// What one option of the dialog does. The options shown are a list of
/// these, and a number key answers with the option at its place, so the
/// keys always match what is displayed (an option left out moves the
/// ones after it up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    Yes,
    /// Yes, and add the session rules named in the label.
    Always,
    No,
    DryRun,
}

/// State of one permission prompt.
#[derive(Debug, Clone)]
pub struct PermissionDialog {
    pub request: PermissionRequest,
    title: String,
    body: Vec<Line<'static>>,
    /// The rules "don't ask again" adds, as (toolName, ruleContents): no
    /// contents for the whole tool, else one per content. `None` when no
    /// rule can be named (a Bash command with no command word of its own,
    /// such as `$(echo ls)`): allowing all of Bash instead would be far
    /// wider than what the user was shown, so the option is not offered.
    rule: Option<(String, Vec<String>)>,
    /// The options shown, in order.
    offered: Vec<Opt>,
    /// The options and the "No" note field.
    pub choice: ChoiceDialog,
    /// Scrolling through a body that does not fit: the first row shown.
    scroll: Option<usize>,
    /// The last drawing's furthest scroll and page (it knows the room).
    room: std::cell::Cell<(usize, usize)>,
}

fn str_field<'a>(input: &'a Value, key: &str) -> &'a str {
    input.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The prefix rule for one command's words: the program plus its
/// subcommand when it has one (`git diff:*`, `npm test:*`, `ls:*`).
fn prefix_rule(argv: &[String]) -> Option<String> {
    let mut words = argv.iter().map(String::as_str);
    let program = words.next()?;
    let is_word = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    if !is_word(program) {
        return None;
    }
    match words.next() {
        Some(sub) if !sub.starts_with('-') && is_word(sub) => Some(format!("{program} {sub}:*")),
        _ => Some(format!("{program}:*")),
    }
}

/// The prefix rules "don't ask again" adds for a command line: one for
/// each command that really runs and needs asking (`tee` in `for i in …;
/// do echo $i | tee -a f; done`, not `for i`), as the shell analysis
/// finds them. Empty when one of them has no rule a prefix can name
/// (`./build.sh`).
fn bash_rules(command: &str) -> Vec<String> {
    let analysis = catui_core::permissions::shell::analyze(command);
    let asking: Vec<_> = analysis
        .commands
        .iter()
        .filter(|c| !c.is_read_only())
        .collect();
    let commands: Vec<_> = if asking.is_empty() {
        analysis.commands.iter().collect()
    } else {
        asking
    };
    // Several commands: each by its program alone (`touch:*` for a line of
    // touches), so the offer stays short.
    let several = commands.len() > 1;
    let mut rules: Vec<String> = Vec::new();
    for c in commands {
        let argv = if several {
            &c.argv[..c.argv.len().min(1)]
        } else {
            &c.argv[..]
        };
        match prefix_rule(argv) {
            Some(rule) if !rules.contains(&rule) => rules.push(rule),
            Some(_) => {}
            None => return Vec::new(),
        }
    }
    rules
}

/// The path as the user knows it: relative to the working directory, or
/// with `~` for the home directory.
fn shown_path(path: &str) -> String {
    if let Ok(cwd) = std::env::current_dir() {
        let cwd = cwd.to_string_lossy();
        if path.starts_with(&format!("{}/", cwd.trim_end_matches('/'))) {
            return relative_paths(path, &cwd);
        }
    }
    match std::env::var("HOME") {
        Ok(home) if home.len() > 1 => match path.strip_prefix(home.trim_end_matches('/')) {
            Some(rest) if rest.starts_with('/') => format!("~{rest}"),
            _ => path.to_string(),
        },
        _ => path.to_string(),
    }
}

/// The reason as the dialog shows it: what the header and body already
/// say (the command, the file) is not said again.
fn tidy_reason(reason: &str, name: &str, input: &Value) -> String {
    let mut reason = reason.to_string();
    if name == tool_names::BASH {
        let command = str_field(input, "command");
        if !command.is_empty() {
            reason = reason.replace(&format!("`{command}`"), "this command");
        }
    }
    let path = str_field(input, "file_path");
    if !path.is_empty() {
        reason = reason.replace(path, "this file");
        reason = reason.replace(&shown_path(path), "this file");
    }
    match std::env::current_dir() {
        Ok(cwd) => relative_paths(&reason, &cwd.to_string_lossy()),
        Err(_) => reason,
    }
}

fn diff_body(old: &str, new: &str) -> Vec<Line<'static>> {
    // Wide enough never to wrap here: the dialog wraps its rows itself.
    diff_lines(&unified(old, new), usize::MAX / 4, MAX_DIFF_LINES)
}

/// An edit as a change to the whole file, so that line numbers are the
/// file's; the fragments alone when the file cannot be read or the text
/// is not found in it.
fn edit_body(path: &str, old: &str, new: &str, all: bool) -> Vec<Line<'static>> {
    if let Ok(content) = std::fs::read_to_string(path)
        && !old.is_empty()
        && content.contains(old)
    {
        let updated = if all {
            content.replace(old, new)
        } else {
            content.replacen(old, new, 1)
        };
        return diff_body(&content, &updated);
    }
    diff_body(old, new)
}

impl PermissionDialog {
    pub fn new(request: PermissionRequest) -> Self {
        let input = &request.input;
        let name = request.tool_name.as_str();
        let (title, body, rule) = match name {
            tool_names::BASH => {
                let command = str_field(input, "command");
                let mut body = command_rows(command);
                let description = str_field(input, "description");
                if !description.is_empty() {
                    body.push(Line::styled(
                        format!("  {}", inline(description)),
                        Style::default().fg(theme::current().dim),
                    ));
                }
                let rules = bash_rules(command);
                let rule = (!rules.is_empty()).then(|| (name.to_string(), rules));
                ("Bash command".to_string(), body, rule)
            }
            tool_names::EDIT => {
                let path = str_field(input, "file_path");
                let body = edit_body(
                    path,
                    str_field(input, "old_string"),
                    str_field(input, "new_string"),
                    input.get("replace_all").and_then(Value::as_bool) == Some(true),
                );
                (
                    format!("Edit {}", shown_path(path)),
                    body,
                    Some((name.to_string(), Vec::new())),
                )
            }
            tool_names::WRITE => {
                let path = str_field(input, "file_path");
                // Show the change against what is on disk now, if anything.
                let existing = std::fs::read_to_string(path).ok();
                let verb = if existing.is_some() {
                    "Overwrite"
                } else {
                    "Create"
                };
                let body = diff_body(
                    existing.as_deref().unwrap_or(""),
                    str_field(input, "content"),
                );
                (
                    format!("{verb} {}", shown_path(path)),
                    body,
                    Some((name.to_string(), Vec::new())),
                )
            }
            _ => {
                let raw = serde_json::to_string_pretty(input).unwrap_or_default();
                let mut body: Vec<Line<'static>> = vec![Line::styled(
                    name.to_string(),
                    Style::default().add_modifier(Modifier::BOLD),
                )];
                body.extend(raw.lines().map(|l| Line::raw(format!("  {}", inline(l)))));
                (
                    format!("Tool use: {name}"),
                    body,
                    Some((name.to_string(), Vec::new())),
                )
            }
        };
        let title = match &request.agent_id {
            Some(agent) => format!("{title} (agent {agent})"),
            None => title,
        };
        let mut dialog = Self {
            request,
            title: inline(&title),
            body,
            rule,
            offered: Vec::new(),
            choice: ChoiceDialog::new(Vec::new(), None, FEEDBACK_LABEL),
            scroll: None,
            room: std::cell::Cell::new((0, 1)),
        };
        dialog.offered = dialog.offered_options();
        dialog.choice.options = dialog.offered.iter().map(|o| dialog.label(*o)).collect();
        dialog.choice.note_option = dialog.place(Opt::No);
        dialog
    }

    fn offered_options(&self) -> Vec<Opt> {
        let mut offered = vec![Opt::Yes];
        if self.rule.is_some() {
            offered.push(Opt::Always);
        }
        offered.push(Opt::No);
        if self.request.dry_run {
            offered.push(Opt::DryRun);
        }
        offered
    }

    /// Where `opt` is among the options shown, if it is.
    fn place(&self, opt: Opt) -> Option<usize> {
        self.offered.iter().position(|o| *o == opt)
    }

    fn label(&self, opt: Opt) -> String {
        match opt {
            Opt::Yes => "Yes".to_string(),
            Opt::Always => self.rule_label(),
            Opt::No => "No, and tell the agent what to do differently".to_string(),
            Opt::DryRun => DRY_RUN_LABEL.to_string(),
        }
    }

    fn rule_label(&self) -> String {
        let Some((tool, contents)) = &self.rule else {
            return String::new();
        };
        if contents.is_empty() {
            return format!("Yes, and don't ask again for {tool} this session");
        }
        let rules: Vec<String> = contents.iter().map(|c| format!("{tool}({c})")).collect();
        format!(
            "Yes, and don't ask again for {} this session",
            rules.join(" and ")
        )
    }

    /// The answer of the option at place `choice` (past the end: "No").
    fn answer(&self, choice: usize) -> DialogOutcome {
        self.answer_with(self.offered.get(choice).copied().unwrap_or(Opt::No))
    }

    fn answer_with(&self, opt: Opt) -> DialogOutcome {
        match (opt, &self.rule) {
            (Opt::Yes, _) => DialogOutcome::Answer(PermissionAnswer::Allow {
                updated_input: None,
                updated_permissions: None,
            }),
            (Opt::Always, Some((tool, contents))) => {
                let rules: Vec<Value> = if contents.is_empty() {
                    vec![json!({ "toolName": tool })]
                } else {
                    contents
                        .iter()
                        .map(|c| json!({ "toolName": tool, "ruleContent": c }))
                        .collect()
                };
                DialogOutcome::Answer(PermissionAnswer::Allow {
                    updated_input: None,
                    updated_permissions: Some(json!([{
                        "type": "addRules",
                        "behavior": "allow",
                        "destination": "session",
                        "rules": rules,
                    }])),
                })
            }
            (Opt::DryRun, _) if self.request.dry_run => {
                DialogOutcome::Answer(PermissionAnswer::DryRun {
                    updated_input: None,
                })
            }
            _ => DialogOutcome::Answer(PermissionAnswer::Deny {
                message: self.choice.note(),
            }),
        }
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        if self.scroll.is_some() {
            return self.scroll_key(key);
        }
        match self.choice.handle_key(KEYS, key) {
            Picked::Pending => DialogOutcome::Pending,
            Picked::Option(i) => self.answer(i),
            // A reason typed after "No" lets the turn carry on.
            Picked::Note => self.answer_with(Opt::No),
            // Esc stops the turn.
            Picked::Stop => DialogOutcome::Stop(PermissionAnswer::Deny {
                message: String::new(),
            }),
            Picked::Own(Own::View) => {
                self.scroll = Some(0);
                DialogOutcome::Pending
            }
            Picked::Own(Own::DryRun) if self.choice.feedback.is_none() => self.dry_run_key(),
            Picked::Own(Own::DryRun) => DialogOutcome::Pending,
        }
    }

    /// `d`: the dry run, where it is offered.
    fn dry_run_key(&self) -> DialogOutcome {
        if self.request.dry_run {
            self.answer_with(Opt::DryRun)
        } else {
            DialogOutcome::Pending
        }
    }

    /// Keys while scrolling through the body: the options still answer.
    fn scroll_key(&mut self, key: KeyEvent) -> DialogOutcome {
        let (max, page) = self.room.get();
        let at = self.scroll.unwrap_or(0).min(max);
        let to = match key.code {
            KeyCode::Char('d') => return self.dry_run_key(),
            KeyCode::Char(c @ '1'..='9') => {
                let at = c as usize - '1' as usize;
                return match self.offered.get(at) {
                    Some(Opt::No) => {
                        self.scroll = None;
                        self.choice.open_note();
                        DialogOutcome::Pending
                    }
                    Some(_) => self.answer(at),
                    None => DialogOutcome::Pending,
                };
            }
            KeyCode::Up | KeyCode::Char('k') => at.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => at + 1,
            KeyCode::PageUp => at.saturating_sub(page),
            KeyCode::PageDown | KeyCode::Char(' ') => at + page,
            KeyCode::Home | KeyCode::Char('g') => 0,
            KeyCode::End | KeyCode::Char('G') => max,
            // Back to the question (Esc here does not decline).
            KeyCode::Char('v' | 'q') | KeyCode::Esc | KeyCode::Enter => {
                self.scroll = None;
                return DialogOutcome::Pending;
            }
            _ => at,
        };
        self.scroll = Some(to.min(max));
        DialogOutcome::Pending
    }

    /// The rows under the body: the reason, the question, the options,
    /// the field or the key hint; where the field is among them.
    fn footer(&self, width: usize) -> (Vec<Line<'static>>, Option<usize>) {
        let dim = Style::default().fg(theme::current().dim);
        let mut rows = vec![Line::default()];
        if !self.request.reason.is_empty() {
            rows.push(Line::styled(
                inline(&tidy_reason(
                    &self.request.reason,
                    &self.request.tool_name,
                    &self.request.input,
                )),
                dim,
            ));
        }
        rows.push(Line::from(Span::raw("Do you want to proceed?")));
        let (options, at) = self.choice.rows();
        let field_at = at.map(|at| at + rows.len());
        rows.extend(options);
        if self.scroll.is_some() {
            rows.extend(hint_lines(
                if self.request.dry_run {
                    "↑↓ PgUp PgDn scroll · 1-4 choose · d dry run · v or Esc back to the question"
                } else {
                    "↑↓ PgUp PgDn scroll · 1-3 choose · v or Esc back to the question"
                },
                width,
            ));
        } else {
            let offered = self.request.dry_run;
            rows.extend(
                self.choice
                    .hint_rows(KEYS, |o| o != Own::DryRun || offered, width),
            );
        }
        (rows, field_at)
    }

    pub fn desired_height(&self, width: u16) -> u16 {
        let width = width.saturating_sub(2);
        wrapped_height(&self.body, width)
            + wrapped_height(&self.footer(width as usize).0, width)
            + 2
    }

    /// What is drawn in `inner`: the body, or as much of it as fits with
    /// a row saying what is hidden, then the footer, which always shows;
    /// and the row of the feedback field, if open.
    fn layout(&self, inner: Rect) -> (Vec<Line<'static>>, Option<u16>) {
        let width = inner.width as usize;
        let wrap = |rows: &[Line<'static>]| -> Vec<Line<'static>> {
            rows.iter().flat_map(|r| wrap_line(r, width, 2)).collect()
        };
        let body = wrap(&self.body);
        let (footer_rows, field_at) = self.footer(width);
        let field_y = field_at.map(|at| wrapped_height(&footer_rows[..at], inner.width));
        let footer = wrap(&footer_rows);
        let height = inner.height as usize;
        let mut rows;
        if self.scroll.is_none() && body.len() + footer.len() <= height {
            self.room.set((0, 1));
            rows = body;
        } else {
            // One row says what is hidden; the rest of the room above the
            // footer shows the body.
            let room = height.saturating_sub(footer.len() + 1);
            let max = body.len().saturating_sub(room);
            self.room.set((max, room.max(1)));
            let first = self.scroll.unwrap_or(0).min(max);
            let shown = room.min(body.len());
            rows = body[first..first + shown].to_vec();
            let notice = if self.scroll.is_some() {
                format!(
                    "  ⚠ rows {}–{} of {} (what it asks about)",
                    first + 1,
                    first + shown,
                    body.len()
                )
            } else {
                format!(
                    "  ⚠ Not all of it fits: {} of {} rows shown · v to view it whole",
                    shown,
                    body.len()
                )
            };
            rows.push(Line::styled(
                notice,
                Style::default()
                    .fg(theme::current().warn)
                    .add_modifier(Modifier::BOLD),
            ));
        }
        let footer_top = rows.len();
        rows.extend(footer);
        // When even the footer does not fit, its end (the options) shows.
        let skip = rows.len().saturating_sub(height);
        rows.drain(..skip);
        let y = field_y.and_then(|y| (footer_top + y as usize).checked_sub(skip));
        (rows, y.map(|y| y as u16))
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let block = frame_block(&self.title, theme::current().warn);
        let inner = block.inner(area);
        block.render(area, buf);
        let (rows, _) = self.layout(inner);
        Paragraph::new(rows).render(inner, buf);
    }

    pub fn cursor(&self, area: Rect) -> Option<(u16, u16)> {
        let inner = frame_block("", theme::current().warn).inner(area);
        let (_, y) = self.layout(inner);
        field_cursor(inner, y?, FEEDBACK_LABEL, self.choice.feedback.as_ref()?)
    }
}

#[cfg(test)]
#[path = "permission_tests.rs"]
mod tests;
