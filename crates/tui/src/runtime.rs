//! The UI loop: owns the terminal, the state and the answer channels of
//! pending prompts; runs the engine on its own task; and turns terminal
//! events, engine events and permission requests into state changes and
//! [`Action`]s. Before each frame, entries that became final are printed
//! into the scrollback; redraws are coalesced to about 30 per second. On
//! the way out the rest of the transcript is printed, with how to resume
//! the session.
//!
//! The interface ends when the user quits, when [`TuiOptions::stop`] is
//! cancelled (the binary does that on SIGTERM, SIGINT and SIGHUP) and when
//! the terminal hangs up (a closed window, a killed tmux session, a lost
//! SSH connection — noticed even without a SIGHUP). Either way the running
//! turn is interrupted and given a moment to record its end, and prompts
//! still open are declined, so the transcript is complete and the session
//! can be resumed; after a hang-up nothing more is drawn.
//!
//! With a team, the runtime is also the lead's front end: teammates' plans
//! open the plan dialog, teammates' messages for the lead model join the
//! input queue, and the team panel follows the members' status.
//!
//! The plan review page (`b` in the plan dialog, `/plan review`) runs here
//! too ([`crate::browser_review`]): its decision answers the pending
//! prompt like the dialog's own.

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use catui_core::checkpoints::{Checkpoints, RewindRequest};
use catui_core::engine::{Engine, EngineControl, EngineEvent, PermissionAnswer};
use catui_core::teams::{PlanDecision, TeamManager, TeammateStatus};
use catui_core::tools::bash::BackgroundShells;
use catui_protocol::ContentBlock;
use crossterm::event::{Event, KeyEventKind, MouseEventKind};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::approver::{ApprovalReceiver, ReviewReceiver, plan_reviewer};
use crate::broker_view::BrokerReply;
use crate::browser_review::{BrowserReview, PageDecision};
use crate::dialogs::Dialog;
use crate::inline::Inline;
use crate::state::{Action, AppState, SessionInfo, TeammateRow};
use crate::terminal::{InputReader, edit_text, open_in_editor};
use crate::transcript::EntryKind;

/// What the interface needs to know at start.
#[derive(Debug, Clone, Default)]
pub struct TuiOptions {
    pub model: String,
    pub cwd: String,
    pub session_id: String,
    /// Sent as the first input (`catui PROMPT`).
    pub first_prompt: Option<String>,
    /// The project's transcripts (the review page shows a plan's history).
    pub sessions_dir: Option<std::path::PathBuf>,
    /// Whether Shift+Tab includes `auto` in the mode cycle.
    pub auto_mode_enabled: bool,
    /// The session's custom commands, `(name, description)` (the palette).
    pub commands: Vec<(String, String)>,
    /// Cancelled to end the interface from outside (a signal).
    pub stop: CancellationToken,
    /// The session's background commands (Ctrl+B, `/bashes`, the status
    /// line's count).
    pub background: Option<Arc<BackgroundShells>>,
    /// The broker's views (`/agents`, `/approvals`), when one is connected.
    pub broker: Option<crate::broker_view::BrokerLink>,
    /// The status line command (setting `statusLine`).
    pub status_line: Option<catui_core::status_line::StatusLineCommand>,
}

/// How the interface ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The user quit.
    Quit,
    /// The terminal hung up: nothing more could be shown.
    HungUp,
    /// [`TuiOptions::stop`] was cancelled.
    Stopped,
    /// The user asked for another session of the project (`/resume`).
    Resume(String),
}

const FRAME: Duration = Duration::from_millis(33);
/// How long the way out waits for an interrupted turn to record its end.
const ENGINE_STOP_WAIT: Duration = Duration::from_millis(400);
/// Frames between two looks at the teammates' status.
const TEAM_POLL_FRAMES: usize = 10;
/// Frames between two looks at the background commands.
const BACKGROUND_POLL_FRAMES: usize = 6;

/// The lead's side of a team while the interface runs.
struct TeamLink {
    manager: Arc<TeamManager>,
    reviews: ReviewReceiver,
    /// Turns for the lead model from teammates (the manager holds a weak
    /// end, so this is the one that keeps it open).
    lead_rx: mpsc::UnboundedReceiver<Vec<ContentBlock>>,
    _lead_tx: UnboundedSender<Vec<ContentBlock>>,
}

impl TeamLink {
    fn attach(manager: Arc<TeamManager>) -> Self {
        let (reviewer, reviews) = plan_reviewer();
        manager.set_reviewer(Arc::new(reviewer));
        let (lead_tx, lead_rx) = mpsc::unbounded_channel();
        manager.set_lead_input(lead_tx.downgrade());
        Self {
            manager,
            reviews,
            lead_rx,
            _lead_tx: lead_tx,
        }
    }
}

/// The running teammates, for the panel.
fn teammate_rows(manager: &TeamManager) -> Vec<TeammateRow> {
    manager
        .members()
        .iter()
        .filter(|m| m.status() != TeammateStatus::Stopped)
        .map(|m| TeammateRow {
            agent_id: m.agent_id(),
            status: m.status(),
            activity: m.activity(),
        })
        .collect()
}

struct Runtime {
    term: Inline,
    reader: InputReader,
    state: AppState,
    control: EngineControl,
    inputs: UnboundedSender<EngineInput>,
    replies: HashMap<String, oneshot::Sender<PermissionAnswer>>,
    /// Teammates' plans being reviewed: the answer channel and who asked.
    reviews: HashMap<String, (oneshot::Sender<Option<PlanDecision>>, String)>,
    /// The session `/resume` chose, once the user asked to leave for it.
    resume: Option<String>,
    /// The plan review page, while one runs.
    browser: BrowserReview,
    /// The session's checkpoints (rewind), when they are on.
    checkpoints: Option<Arc<Checkpoints>>,
    /// The session's background commands.
    background: Option<Arc<BackgroundShells>>,
    /// Which of them were running, to say in the transcript when one ends.
    background_ends: crate::bashes::EndWatch,
    /// The broker's views, and where their answers come back.
    broker: Option<crate::broker_view::BrokerLink>,
    broker_replies: UnboundedSender<BrokerReply>,
    /// The status line command's runs, when one is set.
    status: Option<crate::status_command::StatusCommand>,
}

impl Runtime {
    fn draw(&mut self) -> io::Result<()> {
        if let Ok(size) = crossterm::terminal::size() {
            self.state.viewport = size;
            // A frame drawn at the old width before the resize event
            // arrives would be wrapped by the terminal and scroll live rows
            // (spinner, prompt echo) into the scrollback: the new size
            // counts from the moment it is known.
            if size != self.term.size() {
                self.term.resize(size.0, size.1);
            }
        }
        self.state.clock = Instant::now();
        // Nothing is printed while the transcript view covers the screen.
        if self.state.pager.is_none() {
            self.term.show_normal_screen()?;
            let width = self.state.viewport.0 as usize;
            // Finding the live area again asks the terminal where the
            // cursor is: the reader steps aside for the answer.
            let located = if self.term.resize_pending() {
                let term = &mut self.term;
                self.reader.while_paused(|| term.locate_after_resize())?
            } else {
                None
            };
            if let Some(from) = located {
                let rows = self.state.entry_rows(from, self.state.flushed, width);
                self.term.insert(&rows)?;
            }
            let rows = self.state.take_settled_entries(width);
            self.term.insert(&rows)?;
        }
        self.term.draw(&self.state)
    }

    /// Prints what is left of the transcript and how to come back.
    fn finish(&mut self) -> io::Result<()> {
        let width = self.state.viewport.0 as usize;
        let rows = self.state.take_remaining_entries(width);
        let talked = self
            .state
            .transcript
            .entries()
            .iter()
            .any(|e| matches!(e.kind, EntryKind::User(_)));
        let mut farewell = Vec::new();
        if talked && !self.state.info.session_id.is_empty() {
            let dim = Style::default().fg(crate::theme::current().dim);
            farewell.push(Line::from(vec![
                Span::styled("Resume this session with: ", dim),
                Span::styled(
                    format!("catui --resume {}", self.state.info.session_id),
                    Style::default().add_modifier(Modifier::BOLD),
                ),
            ]));
        }
        self.term.finish(&rows, &farewell)
    }

    /// Runs `f` with the terminal suspended and the reader paused.
    fn with_editor<T>(&mut self, f: impl FnOnce() -> T) -> io::Result<T> {
        self.reader.pause();
        let out = self.term.suspended(f);
        self.reader.resume();
        out
    }

    /// Edits the input box text in the external editor.
    fn edit_input(&mut self) -> io::Result<()> {
        let text = self.state.input.text();
        match self.with_editor(|| edit_text(&text))? {
            Ok(edited) => self.state.input.set_text(edited.trim_end_matches('\n')),
            Err(e) => self.state.system(format!("Editor: {e}"), true),
        }
        Ok(())
    }

    /// Opens the plan file itself in the external editor; the model sees
    /// the user's changes through the plan file.
    fn open_plan_file(&mut self, path: &str) -> io::Result<()> {
        let opened = self.with_editor(|| open_in_editor(Path::new(path)))?;
        // Whatever the editor did to the file is kept (plan snapshots).
        self.control.user_edited(Path::new(path));
        match opened {
            Ok(()) => self
                .state
                .system(format!("Opened plan in editor: {path}"), false),
            Err(e) => self
                .state
                .system(format!("Failed to open plan in editor: {e}"), true),
        }
        Ok(())
    }

    /// The session `/resume [ID]` leaves for: the id given, or the one
    /// chosen in the picker (the project's other sessions).
    fn resume_target(&mut self, id: Option<String>) -> io::Result<Option<String>> {
        if let Some(id) = id {
            return Ok(Some(id));
        }
        let dir = catui_core::session::project_dir_in_config_dir(Path::new(&self.state.info.cwd));
        let items: Vec<crate::PickerItem> = catui_core::session::list_sessions(&dir)
            .into_iter()
            .filter(|s| s.session_id != self.state.info.session_id)
            .map(crate::PickerItem::from)
            .collect();
        if items.is_empty() {
            self.state
                .system("No other session of this project to resume.", false);
            return Ok(None);
        }
        match self.with_editor(|| crate::picker::pick_session(items))? {
            Ok(Some(id)) => Ok(Some(id)),
            Ok(None) => {
                self.state.system("Resume cancelled.", false);
                Ok(None)
            }
            Err(e) => {
                self.state
                    .system(format!("The session picker failed: {e}"), true);
                Ok(None)
            }
        }
    }

    /// Carries out actions; returns false when the UI should quit.
    fn perform(&mut self, actions: Vec<Action>) -> io::Result<bool> {
        for action in actions {
            match action {
                Action::Quit => return Ok(false),
                Action::Submit(text) => {
                    let input = match text.strip_prefix('!') {
                        Some(command) => EngineInput::Shell(command.to_string()),
                        None => EngineInput::Message(self.state.attachments.content(text)),
                    };
                    if self.inputs.send(input).is_err() {
                        self.state.pending_inputs.clear();
                        self.state.system(
                            "The conversation engine has stopped; restart catui to continue.",
                            true,
                        );
                    }
                }
                // The turn's result reports the interruption.
                Action::Interrupt => self.control.interrupt(),
                Action::StopWaitingForTools => self.control.stop_waiting_for_tools(),
                Action::SetMode(mode) => {
                    if let Err(e) = self.control.set_permission_mode(mode) {
                        self.state.system(e.to_string(), true);
                    }
                    self.state.mode = self.control.permission_mode();
                }
                Action::EditInput => self.edit_input()?,
                // No plan written yet: Ctrl+G edits the input as usual.
                Action::EditPlanFile(path) if !Path::new(&path).is_file() => self.edit_input()?,
                Action::EditPlanFile(path) => self.open_plan_file(&path)?,
                Action::EditPlan => {
                    let plan = match &self.state.dialog {
                        Some(Dialog::Plan(d)) => d.plan.clone(),
                        _ => continue,
                    };
                    let result = self.with_editor(|| edit_text(&plan))?;
                    if let Some(Dialog::Plan(d)) = self.state.dialog.as_mut() {
                        match result {
                            Ok(edited) => d.set_edited_plan(edited),
                            Err(e) => d.error = Some(format!("Editor: {e}")),
                        }
                    }
                }
                Action::OpenPlanFile(path) => self.open_plan_file(&path)?,
                Action::Resume(id) => {
                    if let Some(id) = self.resume_target(id)? {
                        self.resume = Some(id);
                        return Ok(false);
                    }
                }
                Action::ReviewInBrowser => {
                    let request = match &self.state.dialog {
                        Some(Dialog::Plan(d)) => d.request.clone(),
                        _ => continue,
                    };
                    match self.browser.open_prompt(&request) {
                        Ok(links) => {
                            // Shown with the dialog, not in the transcript:
                            // the address works only while the dialog is
                            // open (the page stops when it is answered).
                            let (note, shown) = self.browser.announce_prompt(&links);
                            self.state
                                .set_review_url(&request.tool_use_id, &note, &shown);
                        }
                        Err(e) => {
                            if let Some(Dialog::Plan(d)) = self.state.dialog.as_mut() {
                                d.error = Some(e);
                            }
                        }
                    }
                }
                Action::ReviewPlanFile(path) => match self.browser.open_file(&path) {
                    Ok(links) => {
                        let (note, _) = self.browser.announce(&links);
                        self.state.system(note, false);
                    }
                    Err(e) => self.state.system(e, true),
                },
                Action::Answer {
                    tool_use_id,
                    answer,
                } => {
                    // Answered here: the review page of this prompt closes.
                    self.browser.prompt_answered(&tool_use_id);
                    if let Some(reply) = self.replies.remove(&tool_use_id) {
                        // The engine may have stopped waiting (interrupt):
                        // nothing to do then.
                        let _ = reply.send(answer);
                    }
                }
                Action::Review {
                    request_id,
                    decision,
                } => {
                    if let Some((reply, agent_id)) = self.reviews.remove(&request_id) {
                        self.state.note_review(&agent_id, decision.as_ref());
                        let _ = reply.send(decision);
                    }
                }
                Action::SendToBackground => self.send_to_background(),
                Action::OpenBashes => {
                    let mut panel = crate::bashes::BashesPanel::new();
                    if let Some(shells) = &self.background {
                        panel.refresh(shells);
                    }
                    self.state.rewind = None;
                    self.state.bashes = Some(panel);
                }
                Action::KillBackground(id) => self.kill_background(&id),
                Action::OpenPlans => self.open_plans(),
                Action::PlansCommand(args) => self.plans_command(&args),
                Action::Broker(command) => match &self.broker {
                    Some(link) => crate::broker_view::start(
                        link.0.clone(),
                        command,
                        self.state.info.session_id.clone(),
                        self.state.info.cwd.clone(),
                        self.broker_replies.clone(),
                    ),
                    None => self.state.system(crate::broker_view::NO_BROKER, true),
                },
                Action::OpenRewind => self.open_rewind(),
                Action::PreviewRewind(request) => self.preview_rewind(&request),
                Action::CheckRewind(request) => self.check_rewind(request),
                Action::Rewind(request) => self.rewind(request),
            }
        }
        Ok(true)
    }

    /// Ctrl+B: the running foreground commands go on in the background
    /// (their calls return with the id); with none, a note says so.
    fn send_to_background(&mut self) {
        let sent = self
            .background
            .as_ref()
            .map_or(0, |shells| shells.detach_foreground());
        if sent == 0 {
            self.state
                .set_hint("No running command to send to the background");
        } else {
            self.state
                .set_hint("Sent to the background · /bashes to see it");
        }
        self.refresh_background();
    }

    /// `k` in `/bashes`: stops that command and everything it started.
    /// Its conversation's model is told it ended, as for any end.
    fn kill_background(&mut self, id: &str) {
        let Some(shell) = self.background.as_ref().and_then(|s| s.get(id)) else {
            return;
        };
        if shell.kill() {
            self.state.set_hint(format!("Stopped {id}"));
        } else {
            self.state.set_hint(format!(
                "{id} already ended ({})",
                shell.status().describe()
            ));
        }
        self.refresh_background();
    }

    /// How many things run in the background now (the status line's
    /// count): the background commands.
    fn background_count(&self) -> usize {
        self.background.as_ref().map_or(0, |s| s.running())
    }

    /// Follows the background commands: the count, and the `/bashes`
    /// panel when open. True when something shown changed.
    fn refresh_background(&mut self) -> bool {
        let count = self.background_count();
        let mut changed = count != self.state.background_running;
        self.state.background_running = count;
        if let (Some(panel), Some(shells)) = (self.state.bashes.as_mut(), &self.background) {
            changed |= panel.refresh(shells);
        }
        if let Some(shells) = &self.background {
            for (id, how) in self.background_ends.ended(shells) {
                self.state
                    .system(format!("Background command {id} ended ({how})"), false);
                changed = true;
            }
        }
        changed
    }

    /// `/plans`: the picker over the project's plan library, as `catui
    /// plans list --json` gives it (this very binary, so the library is
    /// read one way everywhere).
    fn open_plans(&mut self) {
        match crate::plans_runner::list(&self.state.info.cwd) {
            Ok(rows) => {
                self.state.rewind = None;
                self.state.bashes = None;
                self.state.plans = Some(crate::plans_panel::PlansPanel::new(rows));
            }
            Err(e) => self.state.system(&e, true),
        }
    }

    /// `e` or `a` in `/plans`: `catui plans export|abandon SLUG`, its words
    /// in the transcript; the picker shows the library as it is now.
    fn plans_command(&mut self, args: &[String]) {
        match crate::plans_runner::run(&self.state.info.cwd, args) {
            Ok(text) => self.state.system(&text, false),
            Err(e) => self.state.system(&e, true),
        }
        if let (Some(panel), Ok(rows)) = (
            self.state.plans.as_mut(),
            crate::plans_runner::list(&self.state.info.cwd),
        ) {
            panel.set_rows(rows);
        }
    }

    /// Esc Esc or `/rewind`: the picker of the points to go back to.
    fn open_rewind(&mut self) {
        let Some(checkpoints) = self.checkpoints.as_ref().filter(|c| c.rewind_enabled()) else {
            self.state.system(
                "Rewind is not available: checkpoints are off in this session (setting fileCheckpointingEnabled).",
                true,
            );
            return;
        };
        if self.state.busy() {
            self.state
                .set_hint("Wait for the turn to end (or Esc to stop it) to rewind");
            return;
        }
        let points = checkpoints.points();
        if points.is_empty() {
            self.state.system("Nothing to rewind to yet.", false);
            return;
        }
        // A passing hint ("Esc again to rewind") is answered once the
        // picker is open: the status line under it must not still ask.
        self.state.hint = None;
        self.state.rewind = Some(crate::rewind::RewindPicker::new(points));
    }

    /// What restoring a point's code would change (a dry run against the
    /// files as they are now), shown in the picker above its choices.
    fn preview_rewind(&mut self, request: &RewindRequest) {
        let Some(checkpoints) = self.checkpoints.clone() else {
            return;
        };
        let answer = checkpoints
            .rewind(request)
            .map(|report| crate::rewind::Preview::of(&report))
            .map_err(|e| e.to_string());
        if let Some(picker) = self.state.rewind.as_mut() {
            picker.set_preview(answer);
        }
    }

    /// A rewind chosen in the picker: files changed outside catui since
    /// the point are listed for confirmation first.
    fn check_rewind(&mut self, request: RewindRequest) {
        let Some(checkpoints) = self.checkpoints.clone() else {
            return;
        };
        if request.code {
            let dry = RewindRequest {
                dry_run: true,
                ..request.clone()
            };
            match checkpoints.rewind(&dry) {
                Ok(report) if !report.outside.is_empty() => {
                    if let Some(picker) = self.state.rewind.as_mut() {
                        picker.confirm(request, report.outside);
                    }
                    return;
                }
                Ok(_) => {}
                Err(e) => {
                    self.state.rewind = None;
                    self.state.system(format!("Not rewound: {e}"), true);
                    return;
                }
            }
        }
        self.rewind(request);
    }

    fn rewind(&mut self, request: RewindRequest) {
        self.state.rewind = None;
        let Some(checkpoints) = self.checkpoints.clone() else {
            return;
        };
        match checkpoints.rewind(&request) {
            Ok(report) => {
                if let Some(prompt) = report.prompt.filter(|_| report.conversation) {
                    // The message comes back to be edited and sent again.
                    self.state.input.set_text(&prompt);
                }
                if report.plan_file.is_some() {
                    self.state.mode = self.control.permission_mode();
                }
            }
            Err(e) => self.state.system(format!("Not rewound: {e}"), true),
        }
    }

    fn on_terminal_event(&mut self, event: Event) -> io::Result<bool> {
        let actions = match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => {
                self.state.handle_key(key, Instant::now())
            }
            Event::Paste(text) => {
                self.state.paste(&text);
                Vec::new()
            }
            Event::Resize(w, h) => {
                self.term.resize(w, h);
                self.state.viewport = (w, h);
                Vec::new()
            }
            Event::Mouse(m) => {
                match m.kind {
                    MouseEventKind::ScrollUp => self.state.scroll_pager(true, 3),
                    MouseEventKind::ScrollDown => self.state.scroll_pager(false, 3),
                    _ => {}
                }
                Vec::new()
            }
            _ => Vec::new(),
        };
        self.perform(actions)
    }

    /// Sends the next queued input once the turn has ended.
    fn send_due_input(&mut self) -> io::Result<bool> {
        let actions = self.state.take_due_input();
        self.perform(actions)
    }

    /// Prompts whose engine side stopped waiting (an interrupt, a stopped
    /// teammate) close.
    fn drop_abandoned_prompts(&mut self) {
        let mut gone: Vec<String> = self
            .replies
            .iter()
            .filter(|(_, r)| r.is_closed())
            .map(|(id, _)| id.clone())
            .collect();
        gone.extend(
            self.reviews
                .iter()
                .filter(|(_, (r, _))| r.is_closed())
                .map(|(id, _)| id.clone()),
        );
        for id in gone {
            self.replies.remove(&id);
            self.reviews.remove(&id);
            self.browser.prompt_answered(&id);
            self.state.drop_request(&id);
        }
    }

    /// The review page decided: the pending prompt gets the decision as
    /// its answer (the dialog closes and says so), or, with no prompt, the
    /// comments go to the model as the next message.
    fn decided_in_browser(&mut self, decided: PageDecision) -> io::Result<bool> {
        let summary = decided.decision.summary();
        match decided.prompt {
            Some((tool_use_id, shown)) => {
                let answer = decided.decision.into_answer(&shown);
                if let Some(reply) = self.replies.remove(&tool_use_id) {
                    let _ = reply.send(answer);
                    self.state.decided_in_browser(&tool_use_id, &summary);
                }
                Ok(true)
            }
            None => {
                let PermissionAnswer::Deny { message } =
                    decided.decision.into_answer(&serde_json::Value::Null)
                else {
                    return Ok(true);
                };
                self.state
                    .system(format!("From the review page: {summary}"), false);
                if message.trim().is_empty() {
                    return Ok(true);
                }
                let actions = self.state.submit_text(message);
                self.perform(actions)
            }
        }
    }

    /// A teammate's message for the lead model joins the input queue.
    fn team_turn(&mut self, content: Vec<ContentBlock>) {
        self.state.push_team_turn();
        if self.inputs.send(EngineInput::Message(content)).is_err() {
            self.state.pending_inputs.clear();
        }
    }
}

/// What the interface hands the engine: a message (text and attached
/// images), or a line the user began with `!`, which runs as their own
/// shell command.
enum EngineInput {
    Message(Vec<ContentBlock>),
    Shell(String),
}

/// Runs the interactive interface until the user quits, the terminal hangs
/// up or `opts.stop` is cancelled. The engine moves to its own task;
/// `events` is its event stream and `approvals` the UI end of
/// [`crate::approver`]. With `team`, this interface is the team lead's
/// front end (plan reviews, teammates' messages, the team panel).
pub async fn run(
    engine: Engine,
    mut events: UnboundedReceiver<EngineEvent>,
    mut approvals: ApprovalReceiver,
    opts: TuiOptions,
    team: Option<Arc<TeamManager>>,
    checkpoints: Option<Arc<Checkpoints>>,
) -> io::Result<Ending> {
    let control = engine.control();
    let mode = engine.permission_mode();
    // Known from the start so that Ctrl+G can open the plan before the
    // first turn has ended.
    let plan_file = engine.plan_file();
    // A resumed session shows the conversation so far, and counts on.
    let resumed = engine.messages().to_vec();
    let past_usage = engine.total_usage();
    let (inputs, mut input_rx) = mpsc::unbounded_channel::<EngineInput>();
    let mut engine_task = tokio::spawn(async move {
        let mut engine = engine;
        while let Some(input) = input_rx.recv().await {
            match input {
                EngineInput::Message(content) => {
                    engine.handle_input(content).await;
                }
                EngineInput::Shell(command) => {
                    engine.run_user_shell(&command).await;
                }
            }
        }
    });
    let mut team = team.map(TeamLink::attach);

    crate::highlight::warm_up();
    let term = Inline::enter()?;
    let (term_tx, mut term_rx) = mpsc::unbounded_channel();
    let reader = InputReader::spawn(term_tx);
    let info = SessionInfo {
        model: opts.model,
        cwd: opts.cwd,
        session_id: opts.session_id,
        auto_mode_enabled: opts.auto_mode_enabled,
        commands: opts.commands,
    };
    let (browser, decided) = BrowserReview::new(opts.sessions_dir.clone());
    let (broker_replies, broker_rx) = mpsc::unbounded_channel();
    let mut rt = Runtime {
        term,
        reader,
        state: AppState::new(info, mode),
        control,
        inputs,
        replies: HashMap::new(),
        reviews: HashMap::new(),
        resume: None,
        browser,
        checkpoints,
        background: opts.background.clone(),
        background_ends: crate::bashes::EndWatch::default(),
        broker: opts.broker.clone(),
        broker_replies,
        status: opts
            .status_line
            .clone()
            .map(crate::status_command::StatusCommand::new),
    };
    rt.state.plan_file = plan_file;
    rt.state.usage = past_usage;
    let width = crossterm::terminal::size().map_or(80, |(w, _)| w);
    rt.state.replay(&resumed, width as usize);
    drop(resumed);
    if let Some(prompt) = opts.first_prompt.filter(|p| !p.trim().is_empty()) {
        let actions = rt.state.submit_text(prompt);
        rt.perform(actions)?;
    }

    let result = event_loop(
        &mut rt,
        &mut events,
        &mut approvals,
        team.as_mut(),
        &mut term_rx,
        &opts.stop,
        &mut Replies {
            decided,
            broker: broker_rx,
        },
    )
    .await;

    // Leave cleanly: stop the turn, decline the prompts still open, let the
    // engine record the turn's end (the closed input channel then ends its
    // task), print the rest of the transcript, restore the terminal.
    rt.control.interrupt();
    rt.replies.clear();
    rt.reviews.clear();
    rt.inputs = mpsc::unbounded_channel().0;
    if tokio::time::timeout(ENGINE_STOP_WAIT, &mut engine_task)
        .await
        .is_err()
    {
        engine_task.abort();
    }
    let finished = match &result {
        Ok(Ending::HungUp) => {
            rt.reader.abandon();
            Ok(())
        }
        _ => rt.finish(),
    };
    let resume = rt.resume.take();
    drop(rt);
    let ending = match (result?, resume) {
        (Ending::Quit, Some(id)) => Ending::Resume(id),
        (ending, _) => ending,
    };
    finished.map(|()| ending)
}

/// Answers that come back to the event loop from tasks of the interface.
struct Replies {
    /// The plan review page's decisions.
    decided: UnboundedReceiver<PageDecision>,
    /// The broker's views.
    broker: UnboundedReceiver<BrokerReply>,
}

async fn event_loop(
    rt: &mut Runtime,
    events: &mut UnboundedReceiver<EngineEvent>,
    approvals: &mut ApprovalReceiver,
    team: Option<&mut TeamLink>,
    term: &mut UnboundedReceiver<Event>,
    stop: &CancellationToken,
    replies: &mut Replies,
) -> io::Result<Ending> {
    let (manager, mut reviews, mut lead_rx) = match team {
        Some(t) => (
            Some(t.manager.clone()),
            Some(&mut t.reviews),
            Some(&mut t.lead_rx),
        ),
        None => (None, None, None),
    };
    let mut ticker = tokio::time::interval(FRAME);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut dirty = true;
    let mut last_draw = Instant::now()
        .checked_sub(FRAME)
        .unwrap_or_else(Instant::now);
    let mut frames = 0usize;
    loop {
        tokio::select! {
            () = stop.cancelled() => return Ok(Ending::Stopped),
            ev = term.recv() => {
                // The reader gives up only when the terminal does.
                let Some(ev) = ev else { return Ok(Ending::HungUp) };
                rt.state.clock = Instant::now();
                if !rt.on_terminal_event(ev)? {
                    return Ok(Ending::Quit);
                }
                // Drain what else arrived (a burst of keys) before drawing.
                while let Ok(ev) = term.try_recv() {
                    if !rt.on_terminal_event(ev)? {
                        return Ok(Ending::Quit);
                    }
                }
                dirty = true;
            }
            ev = events.recv(), if !events.is_closed() => {
                if let Some(ev) = ev {
                    rt.state.clock = Instant::now();
                    rt.state.apply(ev);
                    while let Ok(ev) = events.try_recv() {
                        rt.state.apply(ev);
                    }
                    if !rt.send_due_input()? {
                        return Ok(Ending::Quit);
                    }
                    dirty = true;
                }
            }
            pending = approvals.recv() => {
                if let Some(p) = pending {
                    rt.replies.insert(p.request.tool_use_id.clone(), p.reply);
                    rt.state.push_request(p.request);
                    dirty = true;
                }
            }
            review = async { reviews.as_mut()?.recv().await }, if reviews.is_some() => {
                if let Some(r) = review {
                    let agent = catui_core::teams::format_agent_id(&r.request.from, &r.request.team);
                    rt.state.push_review(&r.request);
                    rt.reviews.insert(r.request.request_id.clone(), (r.reply, agent));
                    dirty = true;
                }
            }
            reply = replies.broker.recv() => {
                match reply {
                    Some(BrokerReply::Resume(id)) => {
                        rt.resume = Some(id);
                        return Ok(Ending::Quit);
                    }
                    Some(BrokerReply::Text { text, is_error }) => {
                        rt.state.system(text, is_error);
                        dirty = true;
                    }
                    None => {}
                }
            }
            page = replies.decided.recv() => {
                if let Some(page) = page {
                    rt.state.clock = Instant::now();
                    if !rt.decided_in_browser(page)? {
                        return Ok(Ending::Quit);
                    }
                    dirty = true;
                }
            }
            turn = async { lead_rx.as_mut()?.recv().await }, if lead_rx.is_some() => {
                if let Some(content) = turn {
                    rt.team_turn(content);
                    dirty = true;
                }
            }
            _ = ticker.tick() => {
                if crate::terminal::hung_up() {
                    return Ok(Ending::HungUp);
                }
                frames += 1;
                if rt.state.expire_hints(Instant::now()) {
                    dirty = true;
                }
                if let Some(status) = rt.status.as_mut()
                    && status.poll(&mut rt.state, Instant::now())
                {
                    dirty = true;
                }
                // The walk behind the `@` picker adds paths as it goes.
                if rt.state.files.is_open() && rt.state.files.update(&rt.state.input) {
                    dirty = true;
                }
                rt.drop_abandoned_prompts();
                if let Some(m) = manager.as_deref()
                    && frames.is_multiple_of(TEAM_POLL_FRAMES)
                    && rt.state.set_teammates(teammate_rows(m))
                {
                    dirty = true;
                }
                if frames.is_multiple_of(BACKGROUND_POLL_FRAMES) && rt.refresh_background() {
                    dirty = true;
                }
                if rt.state.animating() && frames.is_multiple_of(3) {
                    rt.state.tick += 1;
                    dirty = true;
                }
            }
        }
        if dirty && last_draw.elapsed() >= FRAME {
            rt.draw()?;
            last_draw = Instant::now();
            dirty = false;
        }
    }
}
