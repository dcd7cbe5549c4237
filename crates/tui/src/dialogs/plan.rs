//! The plan approval dialog for `ExitPlanMode` ("Exit plan mode?"): the
//! plan rendered as Markdown in a scrollable pane with its path, the diff
//! against the last rejected revision (toggled with `d`), and the choices
//! of the approval dialog: approve with auto-accepted edits, approve with
//! manual edits, keep planning with feedback, approve into a fresh
//! conversation, approve and hand the plan to a background agent in a git
//! worktree (the conversation goes on), or park the plan for later. Ctrl+G edits the plan in the
//! external editor; an edited plan is what a later "Yes" approves. `s`
//! picks the steps to carry out and `m` the model that implements
//! ([`super::plan_steps`]); `c` comments on lines ([`super::plan_comments`]);
//! `b` opens the plan's review page in a browser (the dialog shows its
//! address and closes when the page decides). Every answer is a
//! [`ApprovalDecision`](catui_core::plan::approval::decision::ApprovalDecision).
//!
//! The same dialog reviews a teammate's plan for the lead: approve
//! (the teammate leaves plan mode), reject with feedback (it keeps
//! planning), or hand the plan to the lead model to judge.

use catui_core::engine::{PermissionAnswer, PermissionRequest};
use catui_core::teams::manager::PlanReviewRequest;
use catui_core::teams::{PlanDecision as LeadDecision, format_agent_id};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Widget};
use serde_json::{Value, json};

use super::choice::{ChoiceDialog, Picked};
use super::plan_comments::Review;
use super::plan_steps::Steps;
use super::{DialogOutcome, draw_rows, field_cursor, frame_block, wrapped_height};
use crate::diff::diff_lines;
use crate::keymap::{self, Binding, Choice, ctrl, key};
use crate::markdown::markdown_lines;
use catui_core::plan::approval::decision::ApprovalDecision;
use catui_protocol::{PermissionMode, tool_names};

pub const TITLE: &str = "Exit plan mode?";
const FEEDBACK_LABEL: &str = "  What should change? ";
const OPTIONS: [&str; 6] = [
    "Yes, and auto-accept edits",
    "Yes, and manually approve edits",
    "No, keep planning",
    "Yes, clear the conversation and auto-accept edits",
    "Yes, implement in the background (git worktree, branch catui/<plan>)",
    "Not now: park the plan (nothing is approved)",
];

/// Where an approved plan is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Approve {
    /// In this conversation.
    Here,
    /// In a fresh conversation holding the plan.
    ClearContext,
    /// By a background agent in a git worktree.
    Background,
}

/// The plan dialog's own keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Own {
    EditPlan,
    Comment,
    Steps,
    Model,
    Browser,
    /// `d` while the plan shows: its changes (and back, [`Own::ShowPlan`]).
    ShowChanges,
    ShowPlan,
    PageDown,
    PageUp,
    LineDown,
    LineUp,
    Top,
    Bottom,
}

/// The keys of the plan dialog: the options' keys, then its own.
pub const KEYS: &[Binding<Choice<Own>>] = &{
    let [enter, number, up, down, stop] = keymap::choice_rows!(Own);
    [
        enter,
        number,
        up,
        down,
        Binding {
            keys: &[ctrl('g')],
            label: "Ctrl+G",
            help: "edit the plan in $EDITOR (a later Yes approves the edited text)",
            hint: "edit plan",
            command: Choice::Own(Own::EditPlan),
        },
        Binding {
            keys: &[keymap::ch('c')],
            label: "c",
            help: "comment on a line of the plan",
            hint: "comment",
            command: Choice::Own(Own::Comment),
        },
        Binding {
            keys: &[keymap::ch('s')],
            label: "s",
            help: "choose the steps to carry out",
            hint: "steps",
            command: Choice::Own(Own::Steps),
        },
        Binding {
            keys: &[keymap::ch('m')],
            label: "m",
            help: "choose the model that carries the plan out",
            hint: "model",
            command: Choice::Own(Own::Model),
        },
        Binding {
            keys: &[keymap::ch('b')],
            label: "b",
            help: "read and decide on the plan's review page in a browser",
            hint: "browser",
            command: Choice::Own(Own::Browser),
        },
        Binding {
            keys: &[keymap::ch('d')],
            label: "d",
            help: "show the changes since the last revision (and back)",
            hint: "show changes",
            command: Choice::Own(Own::ShowChanges),
        },
        Binding {
            keys: &[keymap::ch('d')],
            label: "d",
            help: "",
            hint: "show plan",
            command: Choice::Own(Own::ShowPlan),
        },
        Binding {
            keys: &[key(KeyCode::PageDown)],
            label: "PgUp/PgDn",
            help: "scroll the plan",
            hint: "scroll",
            command: Choice::Own(Own::PageDown),
        },
        Binding {
            keys: &[key(KeyCode::PageUp)],
            label: "PgUp",
            help: "",
            hint: "",
            command: Choice::Own(Own::PageUp),
        },
        Binding {
            keys: &[keymap::ch('j')],
            label: "j/k",
            help: "scroll the plan a row",
            hint: "",
            command: Choice::Own(Own::LineDown),
        },
        Binding {
            keys: &[keymap::ch('k')],
            label: "k",
            help: "",
            hint: "",
            command: Choice::Own(Own::LineUp),
        },
        Binding {
            keys: &[key(KeyCode::Home)],
            label: "Home/End",
            help: "top and end of the plan",
            hint: "",
            command: Choice::Own(Own::Top),
        },
        Binding {
            keys: &[key(KeyCode::End)],
            label: "End",
            help: "",
            hint: "",
            command: Choice::Own(Own::Bottom),
        },
        stop,
    ]
};

/// State of one plan approval.
#[derive(Debug, Clone)]
pub struct PlanDialog {
    pub request: PermissionRequest,
    pub plan: String,
    pub path: String,
    pub diff: Option<String>,
    pub show_diff: bool,
    /// Set once the user edited the plan in the external editor.
    pub edited: bool,
    /// First visible row of the plan pane.
    pub scroll: usize,
    /// The furthest the plan pane could scroll at the last frame (End
    /// goes there; scrolling up starts from it).
    max_scroll: std::cell::Cell<Option<usize>>,
    /// The choices and the "what should change" field.
    pub choice: ChoiceDialog,
    /// A problem to show (e.g. the editor failed).
    pub error: Option<String>,
    /// Set when reviewing a teammate's plan: its `name@team`.
    pub teammate: Option<String>,
    /// Comments on lines of the plan (`c`).
    pub review: Box<Review>,
    /// The plan changed while the user was reviewing it (catui presents
    /// it again, opened on its changes).
    pub changed: bool,
    /// The same text the user sent back before (`planUnchanged`).
    pub unchanged: bool,
    /// The steps to carry out and the implementing model (`s`, `m`).
    pub steps: Box<Steps>,
    /// This plan's review page, once `b` started it: what happened (a
    /// browser opened, or why not) and the address. Shown above the
    /// dialog, outside its frame, while the page runs (see
    /// `render::review_address`); gone with the dialog, as the page is.
    pub review_url: Option<(String, String)>,
}

impl PlanDialog {
    pub fn new(request: PermissionRequest) -> Self {
        let field = |k: &str| {
            request
                .input
                .get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let plan = field("plan").unwrap_or_default();
        let path = field("planFilePath").unwrap_or_default();
        let diff = field("planDiff").filter(|d| !d.trim().is_empty());
        let changed = request.input.get("planChanged") == Some(&Value::Bool(true));
        let unchanged = request.input.get("planUnchanged") == Some(&Value::Bool(true));
        let steps = Box::new(Steps::new(&plan, field("model")));
        Self {
            request,
            steps,
            unchanged,
            plan,
            path,
            show_diff: changed && diff.is_some(),
            diff,
            changed,
            edited: false,
            scroll: 0,
            max_scroll: std::cell::Cell::new(None),
            choice: ChoiceDialog::new(
                OPTIONS.iter().map(|s| s.to_string()).collect(),
                Some(2),
                FEEDBACK_LABEL,
            ),
            error: None,
            teammate: None,
            review: Box::default(),
            review_url: None,
        }
    }

    /// The lead's review of a teammate's plan; answers carry the request id.
    pub fn for_teammate(review: &PlanReviewRequest) -> Self {
        let agent = format_agent_id(&review.from, &review.team);
        let mut dialog = Self::new(PermissionRequest {
            tool_use_id: review.request_id.clone(),
            tool_name: tool_names::EXIT_PLAN_MODE.into(),
            input: json!({
                "plan": review.plan,
                "planFilePath": review.plan_file_path,
                "conflicts": review.conflicts,
            }),
            reason: format!("{agent} asks the team lead to approve its plan"),
            agent_id: Some(agent.clone()),
            suggestion: None,
            dry_run: false,
        });
        dialog.teammate = Some(agent);
        dialog.choice.options = dialog.options();
        dialog.choice.note_option = Some(dialog.feedback_choice());
        dialog
    }

    /// The teammate's name without its team.
    fn teammate_name(&self) -> Option<&str> {
        let agent = self.teammate.as_deref()?;
        Some(agent.split_once('@').map_or(agent, |(name, _)| name))
    }

    fn title(&self) -> String {
        match &self.teammate {
            Some(agent) => format!("Plan approval · {agent}"),
            None => TITLE.to_string(),
        }
    }

    fn options(&self) -> Vec<String> {
        match self.teammate_name() {
            Some(name) => vec![
                format!("Approve: {name} leaves plan mode and carries it out"),
                format!("Reject, and tell {name} what to change"),
                "Let the lead agent review it".to_string(),
            ],
            None => OPTIONS.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// The option that opens the feedback field.
    fn feedback_choice(&self) -> usize {
        if self.teammate.is_some() { 1 } else { 2 }
    }

    /// Takes the text the user saved in the external editor.
    pub fn set_edited_plan(&mut self, text: String) {
        if text.trim().is_empty() {
            self.error = Some("The edited plan is empty; the previous text is kept.".into());
            return;
        }
        if text != self.plan {
            self.steps.replan(&text);
            self.plan = text;
            self.edited = true;
            self.show_diff = false;
            self.scroll = 0;
        }
        self.error = None;
    }

    /// Approves, continuing in `mode` (`None`: the mode that was active
    /// before plan mode), with the steps and model the user picked.
    fn approve(&self, mode: Option<PermissionMode>, how: Approve) -> DialogOutcome {
        let decision = ApprovalDecision {
            clear_context: how == Approve::ClearContext,
            dispatch: how == Approve::Background,
            skip_steps: self.steps.skip_steps(),
            model: self.steps.chosen_model(),
            edited_plan: self.edited.then(|| self.plan.clone()),
            ..ApprovalDecision::approve(mode)
        };
        DialogOutcome::Answer(decision.into_answer(&self.request.input))
    }

    fn reject(&self) -> DialogOutcome {
        let message = self.choice.note();
        let decision = ApprovalDecision {
            comments: self.review.comments.clone(),
            edited_plan: self.edited.then(|| self.plan.clone()),
            ..ApprovalDecision::keep_planning(message)
        };
        let answer = decision.into_answer(&self.request.input);
        if self.teammate.is_some() {
            let PermissionAnswer::Deny { message } = answer else {
                return DialogOutcome::Pending;
            };
            return DialogOutcome::Review(Some(LeadDecision {
                approved: false,
                feedback: (!message.is_empty()).then_some(message),
            }));
        }
        DialogOutcome::Answer(answer)
    }

    fn choose(&mut self, choice: usize) -> DialogOutcome {
        if self.teammate.is_some() {
            return match choice {
                0 => DialogOutcome::Review(Some(LeadDecision {
                    approved: true,
                    feedback: None,
                })),
                _ => DialogOutcome::Review(None),
            };
        }
        match choice {
            0 => self.approve(Some(PermissionMode::AcceptEdits), Approve::Here),
            1 => self.approve(None, Approve::Here),
            // Implementation starts in a fresh conversation holding the
            // approved plan.
            3 => self.approve(Some(PermissionMode::AcceptEdits), Approve::ClearContext),
            // A background agent carries it out in a git worktree, its
            // edits accepted (nobody is there to approve them).
            4 => self.approve(Some(PermissionMode::AcceptEdits), Approve::Background),
            5 => DialogOutcome::Answer(ApprovalDecision::park("").into_answer(&self.request.input)),
            _ => DialogOutcome::Pending,
        }
    }

    /// Esc: nothing is decided and nothing is sent to the agent; the turn
    /// stops with the plan still presented (the agent asks again when the
    /// user says how to go on). A teammate's plan is sent back unapproved.
    fn stop(&self) -> DialogOutcome {
        if self.teammate.is_some() {
            return DialogOutcome::Review(Some(LeadDecision {
                approved: false,
                feedback: None,
            }));
        }
        DialogOutcome::Stop(PermissionAnswer::Deny {
            message: String::new(),
        })
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        if self.review.active() {
            self.review.handle_key(key, self.plan.lines().count());
            return DialogOutcome::Pending;
        }
        if self.steps.active() {
            self.steps.handle_key(key);
            return DialogOutcome::Pending;
        }
        // Scrolling starts from what is shown.
        if let Some(max) = self.max_scroll.get() {
            self.scroll = self.scroll.min(max);
        }
        match self.choice.handle_key(KEYS, key) {
            Picked::Pending => DialogOutcome::Pending,
            Picked::Option(i) => self.choose(i),
            Picked::Note => self.reject(),
            Picked::Stop => self.stop(),
            Picked::Own(o) if self.own_key(o) => self.own(o),
            Picked::Own(_) => DialogOutcome::Pending,
        }
    }

    /// Whether the dialog's own key `o` works now (the hint shows it).
    fn own_key(&self, o: Own) -> bool {
        let mine = self.teammate.is_none();
        match o {
            // A teammate's plan is its own to edit.
            Own::EditPlan | Own::Comment | Own::Steps | Own::Model | Own::Browser => mine,
            Own::ShowChanges => self.diff.is_some() && !self.show_diff,
            Own::ShowPlan => self.diff.is_some() && self.show_diff,
            Own::Top | Own::Bottom | Own::LineDown | Own::LineUp => self.choice.feedback.is_none(),
            Own::PageDown | Own::PageUp => true,
        }
    }

    fn own(&mut self, o: Own) -> DialogOutcome {
        match o {
            Own::EditPlan => return DialogOutcome::EditPlan,
            Own::Browser => return DialogOutcome::Browse,
            Own::Comment => {
                self.show_diff = false;
                self.review.start();
            }
            Own::Steps => {
                self.show_diff = false;
                self.steps.start();
            }
            Own::Model => self.steps.edit_model(),
            Own::ShowChanges | Own::ShowPlan => self.show_diff = !self.show_diff,
            Own::PageDown => self.scroll += 10,
            Own::PageUp => self.scroll = self.scroll.saturating_sub(10),
            Own::LineDown => self.scroll += 1,
            Own::LineUp => self.scroll = self.scroll.saturating_sub(1),
            Own::Top => self.scroll = 0,
            Own::Bottom => self.scroll = self.max_scroll.get().unwrap_or(usize::MAX / 2),
        }
        DialogOutcome::Pending
    }

    fn pane_rows(&self, width: usize) -> Vec<Line<'static>> {
        if self.review.active() {
            return self.review.pane_rows(&self.plan, width).0;
        }
        if self.steps.cursor.is_some() {
            return self.steps.pane_rows(width);
        }
        match (&self.diff, self.show_diff) {
            (Some(diff), true) => diff_lines(diff, width, usize::MAX),
            _ => markdown_lines(&self.plan, width),
        }
    }

    fn bottom_rows(&self, width: usize) -> (Vec<Line<'static>>, Option<usize>) {
        let question = if self.teammate.is_some() {
            "Approve this plan?"
        } else {
            "Would you like to proceed?"
        };
        let mut rows = Vec::new();
        if self.changed {
            rows.push(Line::styled(
                "The plan file changed while you were reviewing it: this is the new text.",
                Style::default().fg(Color::Yellow),
            ));
        }
        if self.unchanged {
            rows.push(Line::styled(
                "This is the same plan you sent back: it has not changed since.",
                Style::default().fg(Color::Yellow),
            ));
        }
        if self.teammate.is_none() {
            rows.extend(self.steps.rows());
            rows.extend(self.verification_rows());
            rows.extend(super::plan_evidence::rows(&self.request.input));
        }
        // A teammate's plan: the files other teammates' plans change too.
        rows.extend(super::plan_evidence::conflict_rows(&self.request.input));
        rows.push(Line::raw(question));
        let (options, at) = self.choice.rows();
        let field_at = at.map(|at| at + rows.len());
        rows.extend(options);
        if let Some(e) = &self.error {
            rows.push(Line::styled(e.clone(), Style::default().fg(Color::Red)));
        }
        if let Some(review) = self.review.hint() {
            rows.push(Line::styled(review, Style::default().fg(Color::Yellow)));
        }
        if let Some(steps) = self.steps.hint() {
            rows.push(Line::styled(steps, Style::default().fg(Color::Yellow)));
        }
        rows.extend(self.choice.hint_rows(KEYS, |o| self.own_key(o), width));
        (rows, field_at)
    }

    /// The exact commands of the plan's verification section: approving
    /// the plan lets catui run them when the work is done.
    fn verification_rows(&self) -> Vec<Line<'static>> {
        let commands: Vec<String> = self
            .request
            .input
            .get("verification")
            .and_then(serde_json::Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|c| c.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if commands.is_empty() {
            return Vec::new();
        }
        let mut rows = vec![Line::raw(
            "Approving also lets catui run these verification commands when the work is done:",
        )];
        for command in commands {
            rows.push(Line::styled(
                format!("  $ {command}"),
                Style::default().fg(Color::Cyan),
            ));
        }
        rows
    }

    /// Rows that show the whole plan and the choices at `width`.
    pub fn desired_height(&self, width: u16) -> u16 {
        let inner_w = width.saturating_sub(4);
        let pane = self.pane_rows(inner_w.saturating_sub(1) as usize).len() as u16;
        let bottom = wrapped_height(&self.bottom_rows(inner_w as usize).0, inner_w);
        // Frame (2), header (1), the pane's rules (2).
        pane.saturating_add(bottom).saturating_add(5)
    }

    /// Splits the inner area into header row, plan pane and bottom rows.
    fn areas(&self, area: Rect) -> (Rect, Rect, Rect, Rect) {
        let inner = frame_block(&self.title(), Color::Cyan).inner(area);
        let bottom_h = wrapped_height(&self.bottom_rows(inner.width as usize).0, inner.width)
            .min(inner.height);
        let header = Rect {
            height: 1.min(inner.height),
            ..inner
        };
        let pane_h = inner.height.saturating_sub(bottom_h + header.height);
        let pane = Rect {
            y: inner.y + header.height,
            height: pane_h,
            ..inner
        };
        let bottom = Rect {
            y: pane.y + pane_h,
            height: bottom_h,
            ..inner
        };
        (inner, header, pane, bottom)
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let block = frame_block(&self.title(), Color::Cyan);
        let (_, header, pane, bottom) = self.areas(area);
        block.render(area, buf);
        let dim = Style::default().fg(Color::DarkGray);
        let label = match (&self.teammate, self.show_diff, self.edited) {
            (Some(agent), _, _) => format!("{agent} wants to carry out this plan: "),
            (None, true, _) => "Changes since the last revision: ".into(),
            (None, false, true) => "Here is the plan (edited): ".into(),
            (None, false, false) => "Here is the plan: ".into(),
        };
        Paragraph::new(Line::from(vec![
            ratatui::text::Span::raw(label),
            ratatui::text::Span::styled(self.path.clone(), dim),
        ]))
        .render(header, buf);

        let pane_block = Block::default()
            .borders(Borders::TOP | Borders::BOTTOM)
            .border_style(dim);
        let text_area = pane_block.inner(pane);
        pane_block.render(pane, buf);
        let rows = self.pane_rows(text_area.width.saturating_sub(1) as usize);
        let visible = text_area.height as usize;
        let max_scroll = rows.len().saturating_sub(visible);
        self.max_scroll.set(Some(max_scroll));
        let mut scroll = self.scroll.min(max_scroll);
        if self.review.active() {
            // Keep the line under review in view.
            let width = text_area.width.saturating_sub(1) as usize;
            let at = self.review.pane_rows(&self.plan, width).1;
            if at < scroll {
                scroll = at;
            } else if at + 2 > scroll + visible {
                scroll = (at + 2).saturating_sub(visible).min(max_scroll);
            }
        }
        let shown: Vec<Line<'static>> = rows.into_iter().skip(scroll).take(visible).collect();
        Paragraph::new(shown).render(text_area, buf);
        if max_scroll > 0 {
            let note = format!(
                " {}/{} ",
                (scroll + visible).min(max_scroll + visible),
                max_scroll + visible
            );
            let x = pane.x + pane.width.saturating_sub(note.len() as u16 + 1);
            buf.set_string(x, pane.y + pane.height.saturating_sub(1), note, dim);
        }
        draw_rows(&self.bottom_rows(bottom.width as usize).0, bottom, buf);
    }

    pub fn cursor(&self, area: Rect) -> Option<(u16, u16)> {
        let (_, _, _, bottom) = self.areas(area);
        let (rows, at) = self.bottom_rows(bottom.width as usize);
        let at = at?;
        let y = wrapped_height(&rows[..at], bottom.width);
        field_cursor(bottom, y, FEEDBACK_LABEL, self.choice.feedback.as_ref()?)
    }
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
