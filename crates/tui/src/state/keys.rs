//! Key presses and pasted text: what each key does to the input box, the
//! palette, the queue, the transcript view or the open dialog, and the
//! [`Action`]s it asks the runtime for. Keys are bound through the table
//! in [`crate::keymap`], which also writes the `?` sheet and the hints.

use std::path::Path;
use std::time::Instant;

use catui_core::engine::PermissionAnswer;
use catui_core::teams::PlanDecision;
use catui_protocol::PermissionMode;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Action, AppState, CTRL_C_WINDOW, Pager};
use crate::dialogs::{Dialog, DialogOutcome};
use crate::keymap::{self, MAIN, Main, PAGER, PagerKey};
use crate::transcript::EntryKind;

/// What a Ctrl+C does, in the order the presses go: a dialog is declined,
/// a running turn stopped, the input cleared, and only then catui quits.
/// The same function answers for the key and for the status line's "what
/// the next Ctrl+C does", so the two cannot disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CtrlC {
    CloseDialog,
    Interrupt,
    ClearInput,
    Quit,
    /// A first press with nothing to stop or clear: arms the quit.
    Arm,
}

impl AppState {
    /// Text the user sends. While a turn runs it waits in the queue and is
    /// sent when the turn ends; otherwise it is shown and sent at once.
    fn submit(&mut self, text: String) -> Vec<Action> {
        let trimmed = text.trim();
        if matches!(trimmed, "/exit" | "/quit") {
            return vec![Action::Quit];
        }
        if trimmed == "/rewind" && !self.busy() {
            return vec![Action::OpenRewind];
        }
        // Background commands can be looked at while a turn runs.
        if trimmed == "/bashes" {
            return vec![Action::OpenBashes];
        }
        // The plan library can be looked at while a turn runs.
        if trimmed == "/plans" {
            return vec![Action::OpenPlans];
        }
        // The broker's views, also while a turn runs (they change nothing
        // here).
        if let Some(command) = crate::broker_view::BrokerCommand::parse(trimmed) {
            self.transcript.push(EntryKind::User(trimmed.to_string()));
            return vec![Action::Broker(command)];
        }
        if matches!(trimmed, "/help" | "/?") {
            // Echoed like every other command, then answered.
            self.transcript.push(EntryKind::User(trimmed.to_string()));
            self.transcript.push(EntryKind::Help);
            return Vec::new();
        }
        if let Some(rest) = trimmed.strip_prefix("/resume")
            && (rest.is_empty() || rest.starts_with(char::is_whitespace))
        {
            let id = rest.trim();
            return vec![Action::Resume((!id.is_empty()).then(|| id.to_string()))];
        }
        if self.busy() {
            self.queued_inputs.push(text);
            return Vec::new();
        }
        self.send_now(text)
    }

    fn send_now(&mut self, text: String) -> Vec<Action> {
        self.transcript.push(EntryKind::User(text.clone()));
        if text.trim() == "/plan open"
            && let Some(path) = self.plan_file.clone()
        {
            return vec![Action::OpenPlanFile(path)];
        }
        if text.trim() == "/plan review" {
            // The page runs in the interface (the engine has no browser).
            return match self.plan_file.clone() {
                Some(path) if std::path::Path::new(&path).is_file() => {
                    vec![Action::ReviewPlanFile(path)]
                }
                _ => {
                    self.system("No plan written yet: nothing to review.", false);
                    Vec::new()
                }
            };
        }
        self.pending_inputs.push_back(text.clone());
        self.awaiting_reply = true;
        self.withdrawn = false;
        self.turn_started = Some(self.clock);
        self.streamed_chars = 0;
        vec![Action::Submit(text)]
    }

    /// Sends the first prompt given on the command line.
    pub fn submit_text(&mut self, text: String) -> Vec<Action> {
        self.submit(text)
    }

    /// The next queued input, once no turn runs.
    pub fn take_due_input(&mut self) -> Vec<Action> {
        if self.busy() || self.queued_inputs.is_empty() {
            return Vec::new();
        }
        let text = self.queued_inputs.remove(0);
        self.send_now(text)
    }

    fn dialog_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(dialog) = self.dialog.as_mut() else {
            return Vec::new();
        };
        let id = dialog.id().to_string();
        match dialog.handle_key(key) {
            DialogOutcome::Pending => Vec::new(),
            DialogOutcome::EditPlan => vec![Action::EditPlan],
            DialogOutcome::Browse => vec![Action::ReviewInBrowser],
            DialogOutcome::Review(decision) => {
                self.close_dialog();
                vec![Action::Review {
                    request_id: id,
                    decision,
                }]
            }
            DialogOutcome::Answer(answer) => {
                self.close_dialog();
                vec![Action::Answer {
                    tool_use_id: id,
                    answer,
                }]
            }
            DialogOutcome::Stop(answer) => {
                self.close_dialog();
                let mut actions = vec![Action::Answer {
                    tool_use_id: id,
                    answer,
                }];
                if self.busy() {
                    actions.push(Action::Interrupt);
                }
                actions
            }
        }
    }

    /// What a Ctrl+C would do now; `armed`: one was pressed just before.
    pub fn ctrl_c_step(&self, armed: bool) -> CtrlC {
        if self.dialog.is_some() {
            CtrlC::CloseDialog
        } else if self.busy() && !armed {
            CtrlC::Interrupt
        } else if !self.input.is_empty() {
            // Never over a draft: no typed text is lost by quitting.
            CtrlC::ClearInput
        } else if armed {
            CtrlC::Quit
        } else {
            CtrlC::Arm
        }
    }

    /// What the status line says after a Ctrl+C: what the next one does.
    pub fn ctrl_c_note(&self) -> Option<String> {
        self.ctrl_c_at?;
        let next = match self.ctrl_c_step(true) {
            CtrlC::CloseDialog => "Ctrl+C again declines the prompt",
            CtrlC::Interrupt => "Ctrl+C again stops the agent",
            CtrlC::ClearInput => "Ctrl+C again clears the input",
            CtrlC::Quit | CtrlC::Arm => "Ctrl+C again to exit",
        };
        Some(if self.ctrl_c_cleared && self.undo_draft.is_some() {
            format!("Input cleared (Ctrl+Y brings it back) · {next}")
        } else {
            next.to_string()
        })
    }

    /// Ctrl+C, one step of [`CtrlC`].
    fn ctrl_c(&mut self, now: Instant) -> Vec<Action> {
        let armed = self
            .ctrl_c_at
            .is_some_and(|at| now.duration_since(at) <= CTRL_C_WINDOW);
        self.ctrl_c_at = Some(now);
        self.ctrl_c_cleared = false;
        match self.ctrl_c_step(armed) {
            CtrlC::CloseDialog => {
                let Some(d) = self.dialog.as_ref() else {
                    return Vec::new();
                };
                let mut actions = vec![dismissal(d)];
                self.close_dialog();
                if self.busy() {
                    actions.push(Action::Interrupt);
                }
                actions
            }
            CtrlC::Interrupt => self.escape_turn(),
            CtrlC::ClearInput => {
                // Kept for Ctrl+Y; the status line says so.
                self.undo_draft = Some(self.input.text());
                self.input.clear();
                self.ctrl_c_cleared = true;
                Vec::new()
            }
            CtrlC::Quit => vec![Action::Quit],
            CtrlC::Arm => Vec::new(),
        }
    }

    /// Handles one key press.
    pub fn handle_key(&mut self, key: KeyEvent, now: Instant) -> Vec<Action> {
        let command = keymap::command(MAIN, key);
        if command == Some(Main::CtrlC) {
            self.pager = None;
            self.help_open = false;
            return self.ctrl_c(now);
        }
        // Any other key ends the window for a quitting second Ctrl+C.
        self.ctrl_c_at = None;
        self.ctrl_c_cleared = false;
        if self.pager.is_some() {
            self.pager_key(key);
            return Vec::new();
        }
        if self.help_open {
            // The scrolling keys move the sheet; any other key closes it
            // (only Esc and `?` are used up).
            let page = self.page_rows();
            // The sheet as drawn: wrapped at the screen's width (a long
            // description takes two rows at 80 columns).
            let sheet_rows = crate::help::rows(self.viewport.0 as usize).len();
            match key.code {
                KeyCode::Up => self.help_scroll = self.help_scroll.saturating_sub(1),
                KeyCode::Down => self.help_scroll += 1,
                KeyCode::PageUp => self.help_scroll = self.help_scroll.saturating_sub(page),
                KeyCode::PageDown => self.help_scroll += page,
                KeyCode::Home => self.help_scroll = 0,
                KeyCode::End => self.help_scroll = sheet_rows,
                _ => {
                    self.help_open = false;
                    if matches!(key.code, KeyCode::Esc | KeyCode::Char('?')) {
                        return Vec::new();
                    }
                }
            }
            if self.help_open {
                self.help_scroll = self.help_scroll.min(sheet_rows);
                return Vec::new();
            }
        }
        if command == Some(Main::Transcript) {
            self.pager = Some(Pager::default());
            return Vec::new();
        }
        if command == Some(Main::Todos) {
            if self.todos.iter().all(|t| t.status == "completed") {
                self.set_hint("No open todos");
            } else {
                self.todos_hidden = !self.todos_hidden;
            }
            return Vec::new();
        }
        // Whatever is open (a dialog, a panel): a running command may be
        // sent to the background; without one nothing happens but a note.
        if command == Some(Main::Background) {
            return vec![Action::SendToBackground];
        }
        if self.dialog.is_some() {
            return self.dialog_key(key);
        }
        if let Some(picker) = self.rewind.as_mut() {
            use crate::rewind::RewindOutcome;
            return match picker.handle_key(key) {
                RewindOutcome::Pending => Vec::new(),
                RewindOutcome::Close => {
                    self.rewind = None;
                    Vec::new()
                }
                RewindOutcome::Preview(request) => vec![Action::PreviewRewind(request)],
                RewindOutcome::Check(request) => vec![Action::CheckRewind(request)],
                RewindOutcome::Rewind(request) => vec![Action::Rewind(request)],
            };
        }
        if let Some(panel) = self.plans.as_mut() {
            use crate::plans_panel::PlansOutcome;
            return match panel.handle_key(key) {
                PlansOutcome::Pending => Vec::new(),
                PlansOutcome::Close => {
                    self.plans = None;
                    Vec::new()
                }
                PlansOutcome::Use(slug) => {
                    self.plans = None;
                    self.submit(format!("/plan use {slug}"))
                }
                PlansOutcome::Review(path) => {
                    self.plans = None;
                    vec![Action::ReviewPlanFile(path)]
                }
                PlansOutcome::Export(slug) => {
                    vec![Action::PlansCommand(vec!["export".into(), slug])]
                }
                PlansOutcome::Abandon(slug) => {
                    vec![Action::PlansCommand(vec!["abandon".into(), slug])]
                }
            };
        }
        if let Some(panel) = self.bashes.as_mut() {
            use crate::bashes::BashesOutcome;
            return match panel.handle_key(key) {
                BashesOutcome::Pending => Vec::new(),
                BashesOutcome::Close => {
                    self.bashes = None;
                    Vec::new()
                }
                BashesOutcome::Kill(id) => vec![Action::KillBackground(id)],
            };
        }
        if command == Some(Main::PageUp) {
            let page = self.page_rows();
            self.pager = Some(Pager { scroll: page });
            return Vec::new();
        }
        self.input_key(key)
    }

    fn page_rows(&self) -> usize {
        (self.viewport.1 as usize).saturating_sub(2).max(1)
    }

    /// Keys of the transcript view: scrolling, and leaving it.
    fn pager_key(&mut self, key: KeyEvent) {
        let page = self.page_rows();
        let Some(pager) = self.pager.as_mut() else {
            return;
        };
        match keymap::command(PAGER, key) {
            Some(PagerKey::Back) => self.pager = None,
            Some(PagerKey::PageUp) => pager.scroll += page,
            Some(PagerKey::PageDown) => pager.scroll = pager.scroll.saturating_sub(page),
            Some(PagerKey::Up) => pager.scroll += 1,
            Some(PagerKey::Down) => pager.scroll = pager.scroll.saturating_sub(1),
            Some(PagerKey::Top) => pager.scroll = usize::MAX / 2,
            Some(PagerKey::Bottom) => pager.scroll = 0,
            None => {}
        }
    }

    /// Mouse wheel in the transcript view.
    pub fn scroll_pager(&mut self, up: bool, rows: usize) {
        if let Some(p) = self.pager.as_mut() {
            p.scroll = if up {
                p.scroll.saturating_add(rows)
            } else {
                p.scroll.saturating_sub(rows)
            };
        }
    }

    /// Esc while a turn runs: stops it. Before any reply, the prompt (and
    /// whatever was queued) goes back into the input box to be edited.
    fn escape_turn(&mut self) -> Vec<Action> {
        let mut restored: Vec<String> = Vec::new();
        if self.awaiting_reply
            && self.flushed < self.transcript.entries().len()
            && let Some(EntryKind::User(text)) = self.transcript.entries().last().map(|e| &e.kind)
        {
            restored.push(text.clone());
            self.transcript.pop();
            self.withdrawn = true;
            self.awaiting_reply = false;
        }
        restored.append(&mut self.queued_inputs);
        if !restored.is_empty() {
            if !self.input.is_empty() {
                restored.push(self.input.text());
            }
            self.input.set_text(&restored.join("\n"));
        }
        vec![Action::Interrupt]
    }

    fn input_key(&mut self, key: KeyEvent) -> Vec<Action> {
        // The `@` picker's keys come first while it shows; every other
        // key may change the `@` word it follows.
        if self.files.key(key, &mut self.input) {
            return Vec::new();
        }
        let actions = self.edit_key(key);
        self.files.update(&self.input);
        actions
    }

    fn edit_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let palette = self.palette();
        let palette_open = !palette.is_empty();
        // The palette's own keys come first while it shows.
        if palette_open {
            let i = self.palette_selected.min(palette.len() - 1);
            match key.code {
                KeyCode::Esc => {
                    self.palette_dismissed = true;
                    return Vec::new();
                }
                KeyCode::Tab => {
                    self.input.set_text(&format!("/{}", palette[i].0));
                    return Vec::new();
                }
                KeyCode::Up => {
                    self.palette_selected = self.palette_selected.saturating_sub(1);
                    return Vec::new();
                }
                KeyCode::Down => {
                    self.palette_selected = (self.palette_selected + 1).min(palette.len() - 1);
                    return Vec::new();
                }
                KeyCode::Enter if key.modifiers.is_empty() => {
                    self.input.set_text(&format!("/{}", palette[i].0));
                }
                _ => {}
            }
        }
        match keymap::command(MAIN, key) {
            Some(Main::Escape) => return self.escape(),
            Some(Main::Help) if self.input.is_empty() => {
                self.help_open = true;
                self.help_scroll = 0;
                return Vec::new();
            }
            Some(Main::CycleMode) => {
                return vec![Action::SetMode(
                    self.mode.next_in_cycle(self.info.auto_mode_enabled),
                )];
            }
            Some(Main::NewLine) => {
                self.input.newline();
                return Vec::new();
            }
            Some(Main::Send) => {
                self.palette_selected = 0;
                self.palette_dismissed = false;
                if let Some(text) = self.input.submit() {
                    return self.submit(text);
                }
                return Vec::new();
            }
            // The last queued input comes back to be edited or dropped.
            Some(Main::TakeBack) if self.input.is_empty() && !self.queued_inputs.is_empty() => {
                if let Some(text) = self.queued_inputs.pop() {
                    self.input.set_text(&text);
                }
                return Vec::new();
            }
            Some(Main::Restore) => {
                if let Some(draft) = self.undo_draft.take() {
                    self.input.insert_str(&draft);
                }
                return Vec::new();
            }
            Some(Main::Editor) => return vec![self.ctrl_g()],
            _ => {}
        }
        // Everything else edits the input box.
        match key.code {
            KeyCode::Char('a') if ctrl => self.input.home(),
            KeyCode::Char('e') if ctrl => self.input.end(),
            KeyCode::Char('u') if ctrl => self.input.kill_to_line_start(),
            KeyCode::Char('k') if ctrl => self.input.kill_to_line_end(),
            KeyCode::Char('w') if ctrl => self.input.delete_word_back(),
            KeyCode::Char(c) if !ctrl => {
                self.input.insert_char(c);
                self.after_edit();
            }
            KeyCode::Backspace => {
                self.input.backspace();
                self.after_edit();
            }
            KeyCode::Delete => self.input.delete(),
            KeyCode::Left => self.input.left(),
            KeyCode::Right => self.input.right(),
            KeyCode::Home => self.input.home(),
            KeyCode::End => self.input.end(),
            KeyCode::Up => self.input.up(),
            KeyCode::Down => self.input.down(),
            _ => {}
        }
        Vec::new()
    }

    /// Esc on the main screen: go on without servers still starting, stop
    /// a running turn, or (twice on an empty prompt) open the rewind
    /// picker.
    fn escape(&mut self) -> Vec<Action> {
        // The first Esc goes on without servers still starting; the
        // request can then be interrupted as usual.
        if !self.awaiting_tools.is_empty() {
            self.awaiting_tools.clear();
            return vec![Action::StopWaitingForTools];
        }
        if self.busy() {
            return self.escape_turn();
        }
        if !self.input.is_empty() {
            return Vec::new();
        }
        let now = self.clock;
        if self
            .esc_at
            .is_some_and(|at| now.duration_since(at) <= super::ESC_ESC_WINDOW)
        {
            self.esc_at = None;
            // The hint is answered: the dialog it announced is open.
            self.hint = None;
            return vec![Action::OpenRewind];
        }
        self.esc_at = Some(now);
        self.set_hint(keymap::rewind_hint());
        Vec::new()
    }

    /// Ctrl+G outside a dialog: the plan while planning (once the session
    /// has a plan file), otherwise the input box.
    fn ctrl_g(&self) -> Action {
        match &self.plan_file {
            Some(path) if self.mode == PermissionMode::Plan => Action::EditPlanFile(path.clone()),
            _ => Action::EditInput,
        }
    }

    fn after_edit(&mut self) {
        self.palette_selected = 0;
        if self.input.is_empty() {
            self.palette_dismissed = false;
        }
    }

    /// Pasted text goes to the focused field.
    /// The path of an image file (pasted, or dropped on the terminal)
    /// attaches the image, shown as `[image: name.png]`.
    pub fn paste(&mut self, text: &str) {
        if let Some(d) = self.dialog.as_mut() {
            d.paste(text);
            return;
        }
        let Some(path) = crate::attach::pasted_image_path(text, Path::new(&self.info.cwd)) else {
            self.input.paste(text);
            return;
        };
        match self.attachments.add(&path) {
            Ok(label) => self.input.insert_str(&label),
            Err(why) => {
                // The path stays as typed text; the reason is shown.
                self.input.paste(text);
                self.system(format!("Image not attached: {why}"), true);
            }
        }
    }
}

/// Ctrl+C on a dialog: the tool call is denied, the teammate's plan
/// rejected (it keeps planning).
fn dismissal(dialog: &Dialog) -> Action {
    let id = dialog.id().to_string();
    if dialog.is_review() {
        return Action::Review {
            request_id: id,
            decision: Some(PlanDecision {
                approved: false,
                feedback: None,
            }),
        };
    }
    Action::Answer {
        tool_use_id: id,
        answer: PermissionAnswer::Deny {
            message: String::new(),
        },
    }
}
