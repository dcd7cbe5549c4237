//! The interface's state and how it changes: engine events are folded in
//! by [`AppState::apply`], key presses by [`AppState::handle_key`], which
//! returns [`Action`]s for the runtime to carry out (send input, interrupt,
//! change mode, open the editor, answer a prompt). Nothing here does IO, so
//! every screen can be built in a test.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use catui_core::engine::{PermissionAnswer, PermissionRequest};
use catui_core::teams::manager::PlanReviewRequest;
use catui_core::teams::{PlanDecision, TeammateStatus};
use catui_protocol::{PermissionMode, Usage};
use serde_json::Value;

use ratatui::style::Style;
use ratatui::text::Line;

use crate::dialogs::Dialog;
use crate::input::InputBox;
use crate::palette;

mod events;
mod history;
mod keys;
use crate::transcript::{EntryKind, EntryRows, ToolStatus, Transcript};

/// How long a first Ctrl+C waits for the second.
pub const CTRL_C_WINDOW: Duration = Duration::from_millis(1500);
/// How long a passing hint stays in the status line.
pub const HINT_TIME: Duration = Duration::from_secs(4);

/// Something the runtime must do after a key press.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send this input to the engine.
    Submit(String),
    Interrupt,
    /// Send the request that waits for MCP servers without them.
    StopWaitingForTools,
    SetMode(PermissionMode),
    Quit,
    /// Edit the input box text in the external editor.
    EditInput,
    /// Ctrl+G while planning: open this plan file in the external editor
    /// when it exists, else edit the input box (as [`Action::EditInput`]).
    EditPlanFile(String),
    /// Edit the plan of the open plan dialog in the external editor.
    EditPlan,
    /// Open this plan file in the external editor (`/plan open`).
    OpenPlanFile(String),
    /// Leave this session for another of the project (`/resume [ID]`;
    /// without an id the picker chooses).
    Resume(Option<String>),
    /// Open the review page of the open plan dialog's plan (`b`).
    ReviewInBrowser,
    /// Open the review page of this plan file (`/plan review`): nothing
    /// asks for approval, so the page can only send comments back.
    ReviewPlanFile(String),
    /// Answer the pending prompt of this tool call.
    Answer {
        tool_use_id: String,
        answer: PermissionAnswer,
    },
    /// Answer a teammate's plan approval request (`None`: the lead model
    /// reviews it).
    Review {
        request_id: String,
        decision: Option<PlanDecision>,
    },
    /// Open the rewind picker (Esc Esc on an empty prompt, `/rewind`).
    OpenRewind,
    /// Say in the picker what restoring this point's code would change
    /// (a dry run of the request).
    PreviewRewind(catui_core::checkpoints::RewindRequest),
    /// Check this rewind (files changed outside catui ask first), then
    /// carry it out.
    CheckRewind(catui_core::checkpoints::RewindRequest),
    /// Carry this rewind out (confirmed).
    Rewind(catui_core::checkpoints::RewindRequest),
    /// Ctrl+B: send the running foreground command to the background.
    SendToBackground,
    /// Open the `/bashes` panel.
    OpenBashes,
    /// Stop this background command (from `/bashes`).
    KillBackground(String),
    /// Open the `/plans` picker.
    OpenPlans,
    /// Run `catui plans ARGS` (export, abandon) for the `/plans` picker.
    PlansCommand(Vec<String>),
    /// `/agents` or `/approvals`: ask the broker.
    Broker(crate::broker_view::BrokerCommand),
}

/// A model request waiting to be retried, shown as one updating line.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryNote {
    pub attempt: u32,
    pub reason: String,
    /// When the next attempt starts.
    pub at: Instant,
}

/// The full transcript view (Ctrl+O): every entry with its output
/// unfolded, scrolled like a pager.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pager {
    /// Rows scrolled up from the bottom.
    pub scroll: usize,
}

/// One running teammate, as the team panel shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct TeammateRow {
    /// `name@team`.
    pub agent_id: String,
    pub status: TeammateStatus,
    /// What it is doing right now (its running tool call).
    pub activity: Option<String>,
}

/// One item of the todo list (TodoWrite input).
#[derive(Debug, Clone, PartialEq)]
pub struct Todo {
    pub content: String,
    pub status: String,
    pub active_form: String,
}

/// Fixed facts shown in the interface.
#[derive(Debug, Clone, Default)]
pub struct SessionInfo {
    pub model: String,
    pub cwd: String,
    pub session_id: String,
    pub auto_mode_enabled: bool,
    /// The session's custom commands, `(name, description)`, offered in
    /// the palette after the built-in ones.
    pub commands: Vec<(String, String)>,
}

/// Everything the screen shows.
#[derive(Debug)]
pub struct AppState {
    pub info: SessionInfo,
    pub mode: PermissionMode,
    pub usage: Usage,
    /// What the session has cost so far (US dollars, by the price table).
    pub cost_usd: f64,
    pub plan_file: Option<String>,
    pub transcript: Transcript,
    /// Leading transcript entries already printed into the terminal's
    /// scrollback (they are final and never drawn again).
    pub flushed: usize,
    /// Entries of a long resumed conversation left out of the scrollback
    /// (one line stands for them; the transcript view has them).
    pub elided: Option<std::ops::Range<usize>>,
    /// The main agent's answer while it streams.
    pub live_text: String,
    pub thinking: bool,
    /// The tool whose input is streaming (shown by the spinner).
    pub streaming_tool: Option<String>,
    pub input: InputBox,
    pub palette_selected: usize,
    pub palette_dismissed: bool,
    /// The status line command's last line (setting `statusLine`), shown
    /// instead of the built-in facts.
    pub custom_status: Option<String>,
    /// The `@` file picker over the project's files.
    pub files: crate::file_picker::FilePicker,
    /// The prompt being answered, and those waiting behind it.
    pub dialog: Option<Dialog>,
    pub queued: VecDeque<Dialog>,
    /// The lead session's running teammates.
    pub teammates: Vec<TeammateRow>,
    pub todos: Vec<Todo>,
    /// Ctrl+T hid the todo panel (it shows otherwise while a todo is open).
    pub todos_hidden: bool,
    /// Inputs sent and not yet answered by a result.
    pub pending_inputs: VecDeque<String>,
    /// Inputs typed while a turn runs: sent one by one after it, editable
    /// until then (Up takes the last one back into the input box).
    pub queued_inputs: Vec<String>,
    /// Images attached by pasting their path (`[image: name.png]`).
    pub attachments: crate::attach::Attachments,
    /// Set from a submit until the turn shows any reply: Esc then puts
    /// the prompt back into the input box.
    pub awaiting_reply: bool,
    /// The prompt Esc took back; the turn's "interrupted" result is then
    /// not reported.
    pub withdrawn: bool,
    /// The draft the last Ctrl+C cleared (Ctrl+Y brings it back).
    pub undo_draft: Option<String>,
    /// A passing note for the status line, and when it was set.
    pub hint: Option<(String, Instant)>,
    /// The key and command sheet (`?`).
    pub help_open: bool,
    /// Rows the key sheet is scrolled down.
    pub help_scroll: usize,
    /// The full transcript view (Ctrl+O, PgUp), when open.
    pub pager: Option<Pager>,
    pub ctrl_c_at: Option<Instant>,
    /// The last Ctrl+C cleared the input (the status line offers Ctrl+Y).
    pub ctrl_c_cleared: bool,
    /// Frame counter for the spinner.
    pub tick: usize,
    /// The time as of the last event or frame (set by the runtime), so
    /// that rendering stays a pure function of the state.
    pub clock: Instant,
    /// When the running turn started.
    pub turn_started: Option<Instant>,
    /// Characters of answer streamed in the running turn (a token
    /// estimate until the result reports usage).
    pub streamed_chars: usize,
    pub retry: Option<RetryNote>,
    /// What the next request waits for (MCP servers still starting).
    pub awaiting_tools: Vec<String>,
    /// Screen size of the last frame (for paging).
    pub viewport: (u16, u16),
    /// The rewind picker, when open.
    pub rewind: Option<crate::rewind::RewindPicker>,
    /// When Esc was last pressed on an empty prompt (a second press opens
    /// the rewind picker).
    pub esc_at: Option<Instant>,
    /// The `/bashes` panel, when open.
    pub bashes: Option<crate::bashes::BashesPanel>,
    /// The `/plans` picker, when open.
    pub plans: Option<crate::plans_panel::PlansPanel>,
    /// What runs in the background now (the status line's count; hidden
    /// when zero). The runtime sets it.
    pub background_running: usize,
    /// The step of an approved plan the work is on (the status line's
    /// `step 2/5`).
    pub work_step: Option<catui_protocol::contract::WorkStep>,
}

/// How soon a second Esc on an empty prompt opens the rewind picker.
pub const ESC_ESC_WINDOW: Duration = Duration::from_millis(800);

impl AppState {
    pub fn new(info: SessionInfo, mode: PermissionMode) -> Self {
        let files = crate::file_picker::FilePicker::new(&info.cwd);
        let mut transcript = Transcript::default();
        transcript.push(EntryKind::System {
            text: format!(
                "✻ catui · {}\n{}\n? for keys and commands · Shift+Tab cycles permission modes",
                info.model, info.cwd
            ),
            is_error: false,
        });
        Self {
            info,
            mode,
            usage: Usage::default(),
            cost_usd: 0.0,
            plan_file: None,
            transcript,
            flushed: 0,
            elided: None,
            live_text: String::new(),
            thinking: false,
            streaming_tool: None,
            input: InputBox::new(),
            palette_selected: 0,
            palette_dismissed: false,
            files,
            custom_status: None,
            dialog: None,
            queued: VecDeque::new(),
            teammates: Vec::new(),
            todos: Vec::new(),
            todos_hidden: false,
            pending_inputs: VecDeque::new(),
            queued_inputs: Vec::new(),
            attachments: Default::default(),
            awaiting_reply: false,
            withdrawn: false,
            undo_draft: None,
            hint: None,
            help_open: false,
            help_scroll: 0,
            pager: None,
            ctrl_c_at: None,
            ctrl_c_cleared: false,
            tick: 0,
            clock: Instant::now(),
            turn_started: None,
            streamed_chars: 0,
            retry: None,
            awaiting_tools: Vec::new(),
            viewport: (80, 24),
            rewind: None,
            esc_at: None,
            bashes: None,
            plans: None,
            background_running: 0,
            work_step: None,
        }
    }

    pub fn busy(&self) -> bool {
        !self.pending_inputs.is_empty()
    }

    /// Sets a passing note for the status line.
    pub fn set_hint(&mut self, text: impl Into<String>) {
        self.hint = Some((text.into(), self.clock));
    }

    /// How many leading entries are final: everything before the first
    /// tool call still waiting or running, and before a prompt that has
    /// no reply yet (Esc may still take it back).
    pub fn settled(&self) -> usize {
        let entries = self.transcript.entries();
        // Entries already printed stay final.
        let start = self.flushed.min(entries.len());
        let mut n = start;
        for (i, e) in entries.iter().enumerate().skip(start) {
            let open = match &e.kind {
                EntryKind::Tool(t) => matches!(t.status, ToolStatus::Pending | ToolStatus::Running),
                EntryKind::User(_) => self.awaiting_reply && i + 1 == entries.len(),
                _ => false,
            };
            if open {
                break;
            }
            n = i + 1;
        }
        n
    }

    /// Rows of the entries that became final since the last call, for the
    /// terminal's scrollback; marks them printed.
    pub fn take_settled_rows(&mut self, width: usize) -> Vec<Line<'static>> {
        let settled = self.settled();
        let mut rows = Vec::new();
        self.visit_rows(self.flushed, settled, width, |_, r| {
            rows.extend(r.iter().cloned())
        });
        self.flushed = settled;
        rows
    }

    /// [`AppState::take_settled_rows`], entry by entry.
    pub fn take_settled_entries(&mut self, width: usize) -> Vec<EntryRows> {
        let settled = self.settled();
        let rows = self.entry_rows(self.flushed, settled, width);
        self.flushed = settled;
        rows
    }

    /// Rows of entries `from..to` for the scrollback, entry by entry.
    pub fn entry_rows(&self, from: usize, to: usize, width: usize) -> Vec<EntryRows> {
        let mut out = Vec::new();
        self.visit_rows(from, to, width, |i, r| out.push((i, r.to_vec())));
        out
    }

    /// Calls `f` with the rows of each entry `from..to` for the scrollback
    /// (an elided stretch of a resumed conversation is one line).
    fn visit_rows(
        &self,
        from: usize,
        to: usize,
        width: usize,
        mut f: impl FnMut(usize, &[Line<'static>]),
    ) {
        let entries = self.transcript.entries();
        let to = to.min(entries.len());
        for (i, entry) in entries.iter().enumerate().take(to).skip(from) {
            match &self.elided {
                Some(elided) if elided.start == i => f(
                    i,
                    &[Line::styled(
                        format!(
                            "  … {} earlier entries of this session (Ctrl+O shows them)",
                            elided.len()
                        ),
                        Style::default().fg(crate::theme::current().dim),
                    )],
                ),
                Some(elided) if elided.contains(&i) => {}
                _ => f(i, &entry.rows_once(width)),
            }
        }
    }

    /// Everything not yet in the scrollback, as final rows (the way out:
    /// the streamed partial answer and open entries are printed as they
    /// stand).
    pub fn take_remaining_entries(&mut self, width: usize) -> Vec<EntryRows> {
        let partial = std::mem::take(&mut self.live_text);
        if !partial.trim().is_empty() {
            self.transcript.push(EntryKind::Assistant(partial));
        }
        let rows = self.entry_rows(self.flushed, self.transcript.entries().len(), width);
        self.flushed = self.transcript.entries().len();
        rows
    }

    /// Commands matching the input, when the palette is showing.
    pub fn palette(&self) -> Vec<(String, String)> {
        if self.palette_dismissed || self.dialog.is_some() {
            return Vec::new();
        }
        palette::matches(&self.input.text(), &self.info.commands)
    }

    pub fn system(&mut self, text: impl Into<String>, is_error: bool) {
        self.transcript.push(EntryKind::System {
            text: text.into(),
            is_error,
        });
    }

    /// Queues a permission prompt; the first one opens at once.
    pub fn push_request(&mut self, request: PermissionRequest) {
        self.push_dialog(Dialog::for_request(request));
    }

    /// Queues the review of a teammate's plan, like a permission prompt.
    pub fn push_review(&mut self, review: &PlanReviewRequest) {
        self.push_dialog(Dialog::for_review(review));
    }

    fn push_dialog(&mut self, dialog: Dialog) {
        if self.dialog.is_none() {
            self.dialog = Some(dialog);
        } else {
            self.queued.push_back(dialog);
        }
    }

    fn close_dialog(&mut self) {
        self.dialog = self.queued.pop_front();
    }

    /// Shows the review page's address, and `note` saying whether a
    /// browser opened it, with the plan dialog answering `tool_use_id`
    /// (open or queued).
    pub fn set_review_url(&mut self, tool_use_id: &str, note: &str, url: &str) {
        for dialog in self.dialog.iter_mut().chain(self.queued.iter_mut()) {
            if let Dialog::Plan(d) = dialog
                && d.request.tool_use_id == tool_use_id
            {
                d.review_url = Some((note.to_string(), url.to_string()));
            }
        }
    }

    /// The review page decided the prompt `tool_use_id`: its dialog closes
    /// and the transcript says what was decided there.
    pub fn decided_in_browser(&mut self, tool_use_id: &str, summary: &str) {
        self.drop_request(tool_use_id);
        self.system(format!("Decided in the browser: {summary}"), false);
    }

    /// Forgets a prompt the engine stopped waiting for (e.g. interrupted).
    pub fn drop_request(&mut self, tool_use_id: &str) {
        self.queued.retain(|d| d.id() != tool_use_id);
        if self.dialog.as_ref().is_some_and(|d| d.id() == tool_use_id) {
            self.close_dialog();
        }
    }

    /// A teammate's message for the lead model: it takes its place in the
    /// input queue like a typed message, so the turn's result is matched
    /// to it.
    pub fn push_team_turn(&mut self) {
        self.pending_inputs.push_back(String::new());
    }

    /// The team panel's rows; returns whether anything changed.
    pub fn set_teammates(&mut self, rows: Vec<TeammateRow>) -> bool {
        if rows == self.teammates {
            return false;
        }
        self.teammates = rows;
        true
    }

    /// Shows what the user decided about a teammate's plan.
    pub fn note_review(&mut self, agent_id: &str, decision: Option<&PlanDecision>) {
        let text = match decision {
            None => format!("Handed {agent_id}'s plan to the lead agent for review."),
            Some(d) if d.approved => {
                format!("Approved {agent_id}'s plan: it leaves plan mode and starts.")
            }
            Some(d) => match d.feedback.as_deref() {
                Some(f) => format!("Rejected {agent_id}'s plan: {f}"),
                None => format!("Rejected {agent_id}'s plan; it keeps planning."),
            },
        };
        self.system(text, false);
    }

    /// Clears the Ctrl+C and passing hints once their time has passed.
    pub fn expire_hints(&mut self, now: Instant) -> bool {
        let mut changed = false;
        if self
            .ctrl_c_at
            .is_some_and(|at| now.duration_since(at) > CTRL_C_WINDOW)
        {
            self.ctrl_c_at = None;
            self.ctrl_c_cleared = false;
            changed = true;
        }
        if self
            .hint
            .as_ref()
            .is_some_and(|(_, at)| now.duration_since(*at) > HINT_TIME)
        {
            self.hint = None;
            changed = true;
        }
        changed
    }

    /// Whether the spinner line changes with time (elapsed seconds, a
    /// retry countdown).
    pub fn animating(&self) -> bool {
        self.busy() || self.retry.is_some()
    }
}

fn parse_todos(input: &Value) -> Vec<Todo> {
    let field = |t: &Value, k: &str| t.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    input
        .get("todos")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|t| Todo {
                    content: field(t, "content"),
                    status: field(t, "status"),
                    active_form: field(t, "activeForm"),
                })
                .collect()
        })
        .unwrap_or_default()
}
