//! The lead's side of teams: creating teams and starting teammates, the
//! members' status, messages between members, the watcher of the lead's
//! inbox (plan approval requests go to a [`PlanReviewer`] when the front end
//! has one, everything else to the lead model as a user turn and to the
//! user as a notice), stopping a teammate and stopping them all when the
//! lead session ends. Mailboxes stay on disk for inspection.

use crate::sync::lock;
use catui_protocol::tool_names;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use catui_protocol::{ContentBlock, PermissionMode};
use tokio::sync::Notify;
use tokio::sync::mpsc::{WeakUnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::error::TeamError;
use super::forward::forward;
use super::mailbox::is_valid_name;
pub use super::plan_review::{PlanDecision, PlanReviewRequest, PlanReviewer};
use super::remote::{RemoteStatus, TeammateHosts};
use super::teammate::{INBOX_POLL, TeammateSpec, TeammateState, TeammateStatus, run_teammate};
use super::{MailMessage, MailboxBackend, Mailboxes, TEAM_LEAD, TeamProtocol};
use crate::agents::AgentsHandle;
use crate::engine::{AttachmentFactory, Conversation, EngineEvent, SessionServices};
use crate::plan::{PlanFiles, PlanModeConfig, PlanRoute, PlanSession};
use crate::tools::ToolContext;

/// Where user turns for the lead model go (the front end's input queue).
/// Weak, so that the team never keeps a finished session's input open.
pub type LeadInput = WeakUnboundedSender<Vec<ContentBlock>>;

/// What teammates are built from: the lead session's services (client,
/// tools minus the team-management ones, approver, event stream for
/// notices, transcripts, classifier, models and limits) and what only
/// teams need.
pub struct TeamSetup {
    pub services: Arc<SessionServices>,
    /// The teammates' system prompt (the member's role is added to it).
    pub system_prompt: String,
    pub config_dir: PathBuf,
    pub plans_dir: PathBuf,
    pub plan_config: PlanModeConfig,
    /// Context each teammate's conversation gets from the session (e.g.
    /// the git snapshot): called once per teammate, so that each one keeps
    /// its own state (what it was already sent).
    pub teammate_attachments: Option<AttachmentFactory>,
    /// Where mailboxes live and which workers can host teammates (default:
    /// files, no workers).
    pub backend: TeamBackend,
    /// Who decides on plan-required teammates' plans
    /// (`teammatePlanApprover`): with `User` the reviewer is the person and
    /// the lead model is told the outcome.
    pub plan_approver: crate::plan::engine_hooks::TeammatePlanApprover,
}

/// The transport of a team: its mailboxes, and the workers on other
/// machines that may host its teammates.
#[derive(Clone, Default)]
pub struct TeamBackend {
    /// `None`: the JSON files under the catui home.
    pub mailboxes: Option<Arc<dyn MailboxBackend>>,
    pub hosts: Option<Arc<dyn TeammateHosts>>,
    /// This session only hosts teammates whose lead runs elsewhere (`catui
    /// worker`): it never reads a lead's inbox, which the real lead's
    /// consumer owns (two readers would split its messages).
    pub remote_lead: bool,
}

struct Member {
    state: Arc<TeammateState>,
    task: Option<JoinHandle<()>>,
}

/// The teams of one lead session.
pub struct TeamManager {
    setup: TeamSetup,
    mailboxes: Arc<dyn MailboxBackend>,
    teams: Mutex<Vec<String>>,
    members: Mutex<Vec<Member>>,
    reviewer: Mutex<Option<Arc<dyn PlanReviewer>>>,
    lead_input: Mutex<Option<LeadInput>>,
    /// Poked when something is written to the lead's inbox in-process.
    lead_wake: Notify,
    watcher: Mutex<Option<JoinHandle<()>>>,
    /// Cancelled when the lead session ends.
    cancel: CancellationToken,
    me: Weak<TeamManager>,
}

/// A tool's view of its team: the manager, and which member is calling
/// (`None` = the lead).
#[derive(Clone)]
pub struct TeamHandle {
    pub manager: Arc<TeamManager>,
    pub member: Option<Arc<TeammateState>>,
}

impl TeamHandle {
    /// The team handle of the conversation running this tool call.
    pub fn of(ctx: &ToolContext) -> Option<&TeamHandle> {
        ctx.values.get::<TeamHandle>()
    }
}

impl std::fmt::Debug for TeamHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.member {
            Some(m) => write!(f, "TeamHandle({})", m.agent_id()),
            None => f.write_str("TeamHandle(lead)"),
        }
    }
}

impl TeamManager {
    pub fn new(setup: TeamSetup) -> Arc<Self> {
        let mailboxes = setup
            .backend
            .mailboxes
            .clone()
            .unwrap_or_else(|| Arc::new(Mailboxes::new(&setup.config_dir)));
        Arc::new_cyclic(|me| Self {
            setup,
            mailboxes,
            teams: Mutex::default(),
            members: Mutex::default(),
            reviewer: Mutex::default(),
            lead_input: Mutex::default(),
            lead_wake: Notify::new(),
            watcher: Mutex::default(),
            cancel: CancellationToken::new(),
            me: me.clone(),
        })
    }

    /// The lead's handle (for the lead's tool context values).
    pub fn lead_handle(self: &Arc<Self>) -> TeamHandle {
        TeamHandle {
            manager: self.clone(),
            member: None,
        }
    }

    /// Where `team`'s mailboxes are, for people.
    pub fn mailbox_location(&self, team: &str) -> String {
        self.mailboxes.location(team)
    }

    /// Plan approval requests go to `reviewer` from now on.
    pub fn set_reviewer(&self, reviewer: Arc<dyn PlanReviewer>) {
        *lock(&self.reviewer) = Some(reviewer);
    }

    /// Messages for the lead model are queued as user turns on `input`.
    pub fn set_lead_input(&self, input: LeadInput) {
        *lock(&self.lead_input) = Some(input);
    }

    /// The teams created in this session.
    pub fn teams(&self) -> Vec<String> {
        lock(&self.teams).clone()
    }

    /// Every teammate started in this session (stopped ones included).
    pub fn members(&self) -> Vec<Arc<TeammateState>> {
        lock(&self.members)
            .iter()
            .map(|m| m.state.clone())
            .collect()
    }

    /// The running member `name` of `team`.
    pub fn member(&self, team: &str, name: &str) -> Option<Arc<TeammateState>> {
        lock(&self.members)
            .iter()
            .rev()
            .map(|m| &m.state)
            .find(|s| s.team() == team && s.name() == name && s.status() != TeammateStatus::Stopped)
            .cloned()
    }

    /// Creates `team` (its inbox directory) if it does not exist yet.
    pub fn create_team(&self, team: &str) -> Result<(), TeamError> {
        if !is_valid_name(team) {
            return Err(TeamError::InvalidTeamName(team.to_string()));
        }
        if let Err(e) = self.mailboxes.create_team(team) {
            return Err(match e {
                super::MailboxError::Io { path, source } => {
                    TeamError::CreateDir { dir: path, source }
                }
                other => TeamError::Mailbox(other),
            });
        }
        let mut teams = lock(&self.teams);
        if !teams.iter().any(|t| t == team) {
            teams.push(team.to_string());
        }
        drop(teams);
        if !self.setup.backend.remote_lead {
            self.start_watcher();
        }
        Ok(())
    }

    /// Starts a teammate in a tokio task. `lead` is the lead's tool context
    /// (working directory, environment, permission rules, plan files).
    pub fn spawn(
        &self,
        spec: TeammateSpec,
        lead: &ToolContext,
    ) -> Result<Arc<TeammateState>, TeamError> {
        if !is_valid_name(&spec.name) || spec.name == TEAM_LEAD {
            return Err(TeamError::InvalidTeammateName(spec.name));
        }
        self.create_team(&spec.team)?;
        if self.member(&spec.team, &spec.name).is_some() {
            return Err(TeamError::AlreadyRunning {
                name: spec.name,
                team: spec.team,
            });
        }
        let me = self.me.upgrade().ok_or(TeamError::LeadEnding)?;
        let model = spec
            .model
            .clone()
            .unwrap_or_else(|| self.setup.services.models.main.clone());
        let state = Arc::new(TeammateState::new(
            spec.clone(),
            model.clone(),
            self.cancel.child_token(),
        ));
        let agent_id = state.agent_id();

        // The lead's rules and directories, with the teammate's own mode
        // entered through the one transition function (so an approved plan
        // restores the mode the lead asked for).
        let mut permissions = match &lead.session {
            Some(s) => s.0.permission_context(),
            None => crate::permissions::PermissionContext::new(lead.project_root.clone()),
        };
        let mut modes = vec![PermissionMode::Default, spec.permission_mode];
        if spec.plan_mode_required {
            modes.push(PermissionMode::Plan);
        }
        for mode in modes {
            crate::permissions::transition_permission_mode(&mut permissions, mode).map_err(
                |source| TeamError::Mode {
                    name: spec.name.clone(),
                    mode,
                    source,
                },
            )?;
        }

        let files = PlanFiles::new(
            self.setup.plans_dir.clone(),
            self.setup.services.session_id.clone(),
        );
        if let Some(slug) = PlanSession::of(lead).map(|p| p.files.slug()) {
            let _ = files.adopt_slug(&slug);
        }
        let plan = Arc::new(PlanSession::new(files, self.setup.plan_config, None));

        let mut ctx = ToolContext::new(lead.project_root.clone());
        ctx.set_cwd(lead.cwd());
        ctx.env = lead.env.clone();
        if let Some(agents) = lead.values.get::<AgentsHandle>() {
            ctx.values.insert(agents.clone());
        }
        ctx.agent_id = Some(agent_id.clone());
        ctx.cancel = state.cancel.clone();
        // The lead's sandbox (layers, secrets, approved commands' policy).
        ctx.confiner = lead.confiner.clone();
        ctx.set_sandbox_policy(lead.confiner.approved_policy());
        let handle = TeamHandle {
            manager: me,
            member: Some(state.clone()),
        };
        // A teammate's plan goes to the lead, not to a local user.
        ctx.values.insert(PlanRoute(Arc::new(handle.clone())));
        ctx.values.insert(handle);

        let mut tools = self.setup.services.tools.clone();
        tools.retain(|n| {
            !matches!(
                n,
                tool_names::TEAM_CREATE | tool_names::TEAM_STOP | tool_names::ENTER_PLAN_MODE
            )
        });

        let (events_tx, events_rx) = unbounded_channel();
        tokio::spawn(forward(
            events_rx,
            state.clone(),
            self.setup.services.events.clone(),
        ));
        // The end of each turn goes down the same stream as the turn's
        // events, so the relay sees it after the turn's last tool call.
        let turn_events = events_tx.clone();
        let turn_ended = move |outcome| {
            let _ = turn_events.send(EngineEvent::Result(outcome));
        };

        let mut engine = self.setup.services.conversation(Conversation {
            agent_id: Some(agent_id.clone()),
            model: Some(model),
            system_prompt: teammate_prompt(&self.setup.system_prompt, &spec),
            max_turns: self.setup.services.limits.max_turns,
            tools: Some(tools),
            events: Some(events_tx),
            extensions: vec![plan.extension()],
            ..Conversation::new(String::new(), permissions, ctx)
        });
        if let Some(make) = &self.setup.teammate_attachments {
            engine.add_attachment_provider(make());
        }
        state.set_control(&engine.control());
        let lead_events = self.setup.services.events.clone();
        let on_error = move |text: String| {
            let _ = lead_events.send(EngineEvent::Notification {
                key: "teammate-error".into(),
                text,
            });
        };
        let task = tokio::spawn(run_teammate(
            engine,
            plan,
            state.clone(),
            self.mailboxes.clone(),
            on_error,
            turn_ended,
        ));
        lock(&self.members).push(Member {
            state: state.clone(),
            task: Some(task),
        });
        self.notify(
            "teammate-started",
            format!(
                "started teammate {agent_id}{}",
                if spec.plan_mode_required {
                    " (plan approval required)"
                } else {
                    ""
                }
            ),
        );
        Ok(state)
    }

    /// Asks the worker named by `spec.host` to start the teammate; the lead
    /// follows it as its own (its status from the worker, its messages
    /// through the shared mailboxes).
    pub async fn spawn_remote(&self, spec: TeammateSpec) -> Result<Arc<TeammateState>, TeamError> {
        let host = spec.host.clone().unwrap_or_default();
        let Some(hosts) = self.setup.backend.hosts.clone() else {
            return Err(TeamError::NoHosts { host });
        };
        if !is_valid_name(&spec.name) || spec.name == TEAM_LEAD {
            return Err(TeamError::InvalidTeammateName(spec.name));
        }
        self.create_team(&spec.team)?;
        if self.member(&spec.team, &spec.name).is_some() {
            return Err(TeamError::AlreadyRunning {
                name: spec.name,
                team: spec.team,
            });
        }
        hosts
            .start(&host, &spec, &self.setup.services.session_id)
            .await?;
        let model = spec
            .model
            .clone()
            .unwrap_or_else(|| self.setup.services.models.main.clone());
        let state = Arc::new(TeammateState::new(
            spec.clone(),
            model,
            self.cancel.child_token(),
        ));
        state.set_status(TeammateStatus::Working);
        let task = tokio::spawn(follow_remote(self.me.clone(), hosts, state.clone()));
        lock(&self.members).push(Member {
            state: state.clone(),
            task: Some(task),
        });
        self.notify(
            "teammate-started",
            format!("asked worker {host} to start teammate {}", state.agent_id()),
        );
        Ok(state)
    }

    /// Writes `text` from `from` to `to`'s inbox in `team` and wakes `to`.
    pub fn send(&self, team: &str, from: &str, to: &str, text: &str) -> Result<(), TeamError> {
        if to != TEAM_LEAD && self.member(team, to).is_none() {
            let mut members = vec![TEAM_LEAD.to_string()];
            members.extend(
                self.members()
                    .iter()
                    .filter(|m| m.team() == team && m.status() != TeammateStatus::Stopped)
                    .map(|m| m.name().to_string()),
            );
            return Err(TeamError::NoRecipient {
                name: to.to_string(),
                team: team.to_string(),
                members,
            });
        }
        self.mailboxes
            .append(team, to, MailMessage::new(from, text))?;
        self.wake(team, to);
        Ok(())
    }

    /// The lead's answer to a plan approval request, delivered to the
    /// teammate's inbox.
    pub fn respond_to_plan(
        &self,
        team: &str,
        teammate: &str,
        request_id: &str,
        decision: &PlanDecision,
        decided_by: super::PlanDecider,
    ) -> Result<(), TeamError> {
        let message = TeamProtocol::PlanApprovalResponse {
            request_id: request_id.to_string(),
            approved: decision.approved,
            feedback: decision.feedback.clone(),
            decided_by,
        };
        self.send(team, TEAM_LEAD, teammate, &message.to_text())
    }

    fn wake(&self, team: &str, to: &str) {
        if to == TEAM_LEAD {
            self.lead_wake.notify_one();
        } else if let Some(m) = self.member(team, to) {
            m.wake.notify_one();
        }
    }

    /// Stops the teammate `name` of `team` (its inbox stays).
    pub fn stop(&self, team: &str, name: &str) -> Result<(), TeamError> {
        match self.member(team, name) {
            Some(m) => {
                m.cancel.cancel();
                m.set_status(TeammateStatus::Stopped);
                if let (Some(host), Some(hosts)) = (&m.spec.host, &self.setup.backend.hosts) {
                    let (hosts, host) = (hosts.clone(), host.clone());
                    let (team, name) = (team.to_string(), name.to_string());
                    tokio::spawn(async move { hosts.stop(&host, &team, &name).await });
                }
                self.notify(
                    "teammate-stopped",
                    format!("stopped teammate {}", m.agent_id()),
                );
                Ok(())
            }
            None => Err(TeamError::NotRunning {
                name: name.to_string(),
                team: team.to_string(),
            }),
        }
    }

    /// Stops every teammate and the inbox watcher, and waits (briefly) for
    /// them to finish their current step. Mailboxes stay on disk.
    pub async fn shutdown(&self) {
        self.cancel.cancel();
        // Hosted teammates end with their lead too.
        if let Some(hosts) = &self.setup.backend.hosts {
            let hosted: Vec<Arc<TeammateState>> = self
                .members()
                .into_iter()
                .filter(|m| m.spec.host.is_some() && m.status() != TeammateStatus::Stopped)
                .collect();
            for m in hosted {
                let host = m.spec.host.clone().unwrap_or_default();
                let _ = tokio::time::timeout(
                    Duration::from_secs(2),
                    hosts.stop(&host, m.team(), m.name()),
                )
                .await;
            }
        }
        let tasks: Vec<JoinHandle<()>> = lock(&self.members)
            .iter_mut()
            .filter_map(|m| m.task.take())
            .chain(lock(&self.watcher).take())
            .collect();
        for task in tasks {
            let abort = task.abort_handle();
            if tokio::time::timeout(Duration::from_secs(5), task)
                .await
                .is_err()
            {
                abort.abort();
            }
        }
        for m in lock(&self.members).iter() {
            m.state.set_status(TeammateStatus::Stopped);
        }
    }

    /// A hosted teammate's worker is gone: the user and the lead model
    /// are told.
    fn remote_failed(&self, state: &TeammateState, why: &str) {
        state.set_status(TeammateStatus::Failed);
        let text = format!(
            "teammate {} failed: {why} (worker {})",
            state.agent_id(),
            state.spec.host.as_deref().unwrap_or("?")
        );
        self.notify("teammate-failed", text.clone());
        self.queue_for_lead(text);
    }

    fn notify(&self, key: &str, text: String) {
        let _ = self.setup.services.events.send(EngineEvent::Notification {
            key: key.into(),
            text,
        });
    }

    fn start_watcher(&self) {
        let mut watcher = lock(&self.watcher);
        if watcher.is_some() {
            return;
        }
        let me = self.me.clone();
        let cancel = self.cancel.clone();
        *watcher = Some(tokio::spawn(async move {
            loop {
                let Some(manager) = me.upgrade() else { return };
                manager.check_lead_inbox();
                let wait = async {
                    tokio::select! {
                        _ = manager.lead_wake.notified() => {}
                        _ = tokio::time::sleep(INBOX_POLL) => {}
                    }
                };
                tokio::select! {
                    _ = wait => {}
                    _ = cancel.cancelled() => return,
                }
            }
        }));
    }

    /// Reads the lead's inboxes and routes what arrived.
    fn check_lead_inbox(&self) {
        for team in self.teams() {
            let messages = match self.mailboxes.take_unread(&team, TEAM_LEAD) {
                Ok(m) => m,
                Err(e) => {
                    self.notify("team-inbox-error", e.to_string());
                    continue;
                }
            };
            for m in messages {
                match TeamProtocol::parse(&m.text) {
                    Some(TeamProtocol::PlanApprovalRequest {
                        from,
                        plan_file_path,
                        plan_content,
                        request_id,
                        conflicts,
                        ..
                    }) => self.route_plan_request(PlanReviewRequest {
                        team: team.clone(),
                        from,
                        request_id,
                        plan_file_path,
                        plan: plan_content,
                        conflicts,
                    }),
                    _ => {
                        // The user reads what teammates tell the lead, not
                        // only the lead model. This notice also stands in
                        // for the fallback of `to_lead_model` when nothing
                        // takes the lead's input, so that is not repeated.
                        let _ = self
                            .setup
                            .services
                            .events
                            .send(EngineEvent::TeammateMessage {
                                from: format!("{}@{team}", m.from),
                                text: m.text.clone(),
                            });
                        self.queue_for_lead(format!(
                            "<teammate-message team=\"{team}\" from=\"{}\" timestamp=\"{}\">\n{}\n</teammate-message>",
                            m.from, m.timestamp, m.text
                        ));
                    }
                }
            }
        }
    }

    fn route_plan_request(&self, request: PlanReviewRequest) {
        let conflicts = if request.conflicts.is_empty() {
            String::new()
        } else {
            format!(
                "; it touches files of other plans:\n{}",
                super::plan_conflicts::describe(&request.conflicts)
            )
        };
        self.notify(
            "plan-approval-request",
            format!(
                "teammate {}@{} submitted a plan for approval ({}){conflicts}",
                request.from, request.team, request.plan_file_path
            ),
        );
        let reviewer = lock(&self.reviewer).clone();
        let by_user =
            self.setup.plan_approver == crate::plan::engine_hooks::TeammatePlanApprover::User;
        let me = self.me.clone();
        tokio::spawn(async move {
            let decision = match reviewer {
                Some(r) => r.review(request.clone()).await,
                None => None,
            };
            let Some(manager) = me.upgrade() else { return };
            match decision {
                Some(d) => {
                    if let Err(e) = manager.respond_to_plan(
                        &request.team,
                        &request.from,
                        &request.request_id,
                        &d,
                        if by_user {
                            super::PlanDecider::User
                        } else {
                            super::PlanDecider::Lead
                        },
                    ) {
                        manager.notify("plan-approval-error", e.to_string());
                    } else if by_user {
                        // The lead model did not decide; it learns what the
                        // person did, so it knows what its teammate does.
                        manager.to_lead_model(super::user_review::outcome_for_lead(&request, &d));
                    }
                }
                None => manager.to_lead_model(lead_review_prompt(&request)),
            }
        });
    }

    /// Queues `text` as a user turn for the lead model; shows it to the
    /// user instead when nothing takes the lead's input.
    fn to_lead_model(&self, text: String) {
        if !self.queue_for_lead(text.clone()) {
            self.notify("team-message", text);
        }
    }

    /// Queues `text` as a user turn for the lead model; false when nothing
    /// takes the lead's input (a one-shot run, or a session that ended).
    fn queue_for_lead(&self, text: String) -> bool {
        let sender = lock(&self.lead_input).as_ref().and_then(|w| w.upgrade());
        sender.is_some_and(|tx| tx.send(vec![ContentBlock::text(text)]).is_ok())
    }
}

/// What the lead model is told when it must review a plan itself.
fn lead_review_prompt(r: &PlanReviewRequest) -> String {
    let conflicts = if r.conflicts.is_empty() {
        String::new()
    } else {
        format!(
            "\n\nConflicts: this plan names files that other teammates' pending or approved plans name too:\n{}",
            super::plan_conflicts::describe(&r.conflicts)
        )
    };
    format!(
        "Teammate {from} (team {team}) submitted a plan for your approval (request {id}, plan file {path}).\n\n{plan}{conflicts}\n\nReview it and answer with the SendMessage tool: to \"{from}\", team \"{team}\", with plan_approval_response {{\"request_id\": \"{id}\", \"approved\": true or false}} and your feedback as the message.",
        from = r.from,
        team = r.team,
        id = r.request_id,
        path = r.plan_file_path,
        plan = r.plan,
    )
}

fn teammate_prompt(base: &str, spec: &TeammateSpec) -> String {
    let plan_rule = if spec.plan_mode_required {
        "\nYou start in plan mode and must have your plan approved by the team lead: write it to your plan file and call ExitPlanMode, then wait for the lead's answer in your inbox before changing anything."
    } else {
        ""
    };
    format!(
        "{base}\n\n# Team\nYou are '{name}', a teammate in team '{team}'. The lead is '{TEAM_LEAD}'. Messages from the lead and other teammates arrive as user turns; use the SendMessage tool to report back or ask. When you finish a task, send the lead a short summary.{plan_rule}",
        name = spec.name,
        team = spec.team,
    )
}

/// Follows a hosted teammate's status until it ends, is stopped or its
/// worker is found gone (reported once).
async fn follow_remote(
    manager: Weak<TeamManager>,
    hosts: Arc<dyn TeammateHosts>,
    state: Arc<TeammateState>,
) {
    let host = state.spec.host.clone().unwrap_or_default();
    loop {
        tokio::select! {
            _ = tokio::time::sleep(hosts.heartbeat()) => {}
            _ = state.cancel.cancelled() => return,
        }
        let status = hosts.status(&host, state.team(), state.name()).await;
        let Some(manager) = manager.upgrade() else {
            return;
        };
        match status {
            RemoteStatus::Working => state.set_status(TeammateStatus::Working),
            RemoteStatus::Idle => state.set_status(TeammateStatus::Idle),
            RemoteStatus::AwaitingApproval => state.set_status(TeammateStatus::AwaitingApproval),
            RemoteStatus::Unknown => {}
            RemoteStatus::Stopped => {
                state.set_status(TeammateStatus::Stopped);
                return;
            }
            RemoteStatus::Failed(why) => {
                manager.remote_failed(&state, &why);
                return;
            }
        }
    }
}
