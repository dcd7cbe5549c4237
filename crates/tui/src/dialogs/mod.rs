//! Modal dialogs that answer the engine's permission prompts: the tool
//! permission dialog, the plan approval dialog (`ExitPlanMode`) and the
//! question dialog (`AskUserQuestion`). Each owns its state, turns keys
//! into an outcome, and renders itself from that state alone.

pub mod choice;
pub mod command_view;
pub mod enter_plan;
pub mod permission;
pub mod plan;
pub mod plan_comments;
pub mod plan_evidence;
pub mod plan_steps;
pub mod question;

use catui_core::engine::{PermissionAnswer, PermissionRequest};
use catui_protocol::tool_names;
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Padding, Paragraph, Widget};

use crate::input::InputBox;
use crate::wrap::wrap_line;

pub use enter_plan::EnterPlanDialog;
pub use permission::PermissionDialog;
pub use plan::PlanDialog;
pub use question::QuestionDialog;

/// What a key press in a dialog asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum DialogOutcome {
    /// Keep the dialog open.
    Pending,
    /// Close it and send this answer.
    Answer(PermissionAnswer),
    /// Close it, send this answer (a decline) and stop the turn: Esc
    /// means "stop and wait for me", a typed reason means "carry on".
    Stop(PermissionAnswer),
    /// Open the plan in the external editor, then approve the edited text.
    EditPlan,
    /// Open the plan's review page in a browser.
    Browse,
    /// The lead's answer to a teammate's plan; `None` hands it to the lead
    /// model.
    Review(Option<catui_core::teams::PlanDecision>),
}

/// The dialog for one pending request.
#[derive(Debug, Clone)]
pub enum Dialog {
    Permission(PermissionDialog),
    EnterPlan(EnterPlanDialog),
    Plan(PlanDialog),
    Question(QuestionDialog),
}

impl Dialog {
    /// Picks the dialog for the request's tool.
    pub fn for_request(request: PermissionRequest) -> Self {
        match request.tool_name.as_str() {
            tool_names::EXIT_PLAN_MODE => Dialog::Plan(PlanDialog::new(request)),
            tool_names::ENTER_PLAN_MODE => Dialog::EnterPlan(EnterPlanDialog::new(request)),
            tool_names::ASK_USER_QUESTION => match QuestionDialog::new(request) {
                Ok(d) => Dialog::Question(d),
                Err(request) => Dialog::Permission(PermissionDialog::new(*request)),
            },
            _ => Dialog::Permission(PermissionDialog::new(request)),
        }
    }

    /// The review of a teammate's plan.
    pub fn for_review(review: &catui_core::teams::manager::PlanReviewRequest) -> Self {
        Dialog::Plan(PlanDialog::for_teammate(review))
    }

    /// Whether this dialog answers a teammate's plan (not a tool call).
    pub fn is_review(&self) -> bool {
        matches!(self, Dialog::Plan(d) if d.teammate.is_some())
    }

    /// The tool call or plan approval request this dialog answers.
    pub fn id(&self) -> &str {
        &self.request().tool_use_id
    }

    pub fn request(&self) -> &PermissionRequest {
        match self {
            Dialog::Permission(d) => &d.request,
            Dialog::EnterPlan(d) => &d.request,
            Dialog::Plan(d) => &d.request,
            Dialog::Question(d) => &d.request,
        }
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> DialogOutcome {
        match self {
            Dialog::Permission(d) => d.handle_key(key),
            Dialog::EnterPlan(d) => d.handle_key(key),
            Dialog::Plan(d) => d.handle_key(key),
            Dialog::Question(d) => d.handle_key(key),
        }
    }

    /// Pasted text goes to the dialog's text field, when one has focus.
    pub fn paste(&mut self, text: &str) {
        let field = match self {
            Dialog::Permission(d) => d.choice.feedback.as_mut(),
            Dialog::EnterPlan(d) => d.choice.feedback.as_mut(),
            Dialog::Plan(d) => d.choice.feedback.as_mut(),
            Dialog::Question(d) => d.focused_text_field(),
        };
        if let Some(f) = field {
            f.insert_str(text);
        }
    }

    /// Rows the dialog would like at `width`.
    pub fn desired_height(&self, width: u16, screen_height: u16) -> u16 {
        match self {
            Dialog::Permission(d) => d.desired_height(width),
            Dialog::EnterPlan(d) => d.desired_height(width),
            // As tall as the plan needs, up to the screen.
            Dialog::Plan(d) => d.desired_height(width).min(screen_height),
            Dialog::Question(d) => d.desired_height(width),
        }
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        match self {
            Dialog::Permission(d) => d.render(area, buf),
            Dialog::EnterPlan(d) => d.render(area, buf),
            Dialog::Plan(d) => d.render(area, buf),
            Dialog::Question(d) => d.render(area, buf),
        }
    }

    /// Where the terminal cursor goes (a focused text field), if anywhere.
    pub fn cursor(&self, area: Rect) -> Option<(u16, u16)> {
        match self {
            Dialog::Permission(d) => d.cursor(area),
            Dialog::EnterPlan(d) => d.cursor(area),
            Dialog::Plan(d) => d.cursor(area),
            Dialog::Question(d) => d.cursor(area),
        }
    }
}

/// The border every dialog uses, coloured by what it is about.
pub fn frame_block(title: &str, color: Color) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .padding(Padding::horizontal(1))
        .border_style(Style::default().fg(color))
        .title(Span::styled(
            format!(" {title} "),
            Style::default().fg(color).add_modifier(Modifier::BOLD),
        ))
}

/// A numbered option list with the selected row marked `❯`.
pub fn option_rows(options: &[String], selected: usize) -> Vec<Line<'static>> {
    options
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let chosen = i == selected;
            let style = if chosen {
                Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            let marker = if chosen { "❯ " } else { "  " };
            Line::from(Span::styled(format!("{marker}{}. {label}", i + 1), style))
        })
        .collect()
}

/// Wraps rows to `width` and draws them from the top of `area`.
pub fn draw_rows(rows: &[Line<'static>], area: Rect, buf: &mut Buffer) {
    let wrapped: Vec<Line<'static>> = rows
        .iter()
        .flat_map(|r| wrap_line(r, area.width as usize, 2))
        .take(area.height as usize)
        .collect();
    Paragraph::new(wrapped).render(area, buf);
}

/// Rows of `rows` after wrapping at `width`.
pub fn wrapped_height(rows: &[Line<'static>], width: u16) -> u16 {
    rows.iter()
        .map(|r| wrap_line(r, width as usize, 2).len())
        .sum::<usize>()
        .min(u16::MAX as usize) as u16
}

/// A one-line text field: `label` then the text.
pub fn field_row(label: &str, field: &InputBox) -> Line<'static> {
    Line::from(vec![
        Span::styled(label.to_string(), Style::default().fg(Color::DarkGray)),
        Span::raw(field.text().replace('\n', " ")),
    ])
}

/// Edits a text field with a key; returns false for keys it does not use.
pub fn edit_field(field: &mut InputBox, key: KeyEvent) -> bool {
    use crossterm::event::{KeyCode, KeyModifiers};
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Char('w') if ctrl => field.delete_word_back(),
        KeyCode::Char('u') if ctrl => field.kill_to_line_start(),
        KeyCode::Char(c) if !ctrl => field.insert_char(c),
        KeyCode::Backspace => field.backspace(),
        KeyCode::Delete => field.delete(),
        KeyCode::Left => field.left(),
        KeyCode::Right => field.right(),
        KeyCode::Home => field.home(),
        KeyCode::End => field.end(),
        _ => return false,
    }
    true
}

/// Cursor cell for a field drawn with [`field_row`] on row `y` of `area`.
pub fn field_cursor(area: Rect, y: u16, label: &str, field: &InputBox) -> Option<(u16, u16)> {
    let (row, col) = field.cursor();
    let before: String = field
        .lines()
        .get(row)
        .map(|l| l.chars().take(col).collect())
        .unwrap_or_default();
    let x = crate::wrap::str_width(label) + crate::wrap::str_width(&before);
    if y >= area.height || x as u16 >= area.width {
        return None;
    }
    Some((area.x + x as u16, area.y + y))
}
