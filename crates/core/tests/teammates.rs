//! Teammates against the testkit mock over real HTTP: a plan-required
//! teammate cannot exit without a plan, submits its plan to the lead's
//! mailbox and waits in plan mode, is
//! rejected with feedback, revises, is approved, leaves plan mode and edits
//! a file; stopping the team leaves the mailboxes on disk.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use catui_core::engine::{
    Approver, EngineEvent, Limits, Models, NobodyToAsk, PermissionAnswer, PermissionRequest,
    SessionServices,
};
use catui_core::plan::{ExitPlanModeTool, PlanFiles, PlanModeConfig, PlanSession};
use catui_core::teams::manager::PlanReviewRequest;
use catui_core::teams::{
    Mailboxes, PlanDecision, PlanReviewer, SendMessageTool, TEAM_LEAD, TeamManager, TeamProtocol,
    TeamSetup, TeammateSpec, TeammateStatus,
};
use catui_core::tools::{Adapter, ToolContext, ToolRegistry};
use catui_protocol::PermissionMode;
use catui_providers::{ProviderConfig, ProviderKind};
use catui_testkit::{MockServer, Script, Turn};
use serde_json::json;

/// Rejects the first plan with feedback, approves the second.
struct Lead {
    seen: Mutex<Vec<PlanReviewRequest>>,
}

#[async_trait]
impl PlanReviewer for Lead {
    async fn review(&self, request: PlanReviewRequest) -> Option<PlanDecision> {
        let mut seen = self.seen.lock().unwrap();
        seen.push(request);
        Some(if seen.len() == 1 {
            PlanDecision {
                approved: false,
                feedback: Some("Also add a test step.".into()),
            }
        } else {
            PlanDecision {
                approved: true,
                feedback: None,
            }
        })
    }
}

struct Refuse;
#[async_trait]
impl Approver for Refuse {
    async fn ask(&self, r: PermissionRequest) -> PermissionAnswer {
        NobodyToAsk.ask(r).await
    }
}

/// A lead's team over `client`, with the lead's approver for teammates'
/// permission prompts.
fn team(
    client: Arc<dyn catui_providers::ModelClient>,
    tools: ToolRegistry,
    approver: Arc<dyn Approver>,
    config: &std::path::Path,
    plans: &std::path::Path,
    events: tokio::sync::mpsc::UnboundedSender<EngineEvent>,
) -> Arc<TeamManager> {
    let mut services = SessionServices::new(
        "sess",
        client,
        tools,
        Models {
            main: "mate-model".into(),
            small: "small".into(),
            plan: None,
        },
        events,
    );
    services.approver = approver;
    services.limits = Limits {
        max_tokens: 1000,
        max_turns: Some(10),
        ..Limits::default()
    };
    TeamManager::new(TeamSetup {
        services: Arc::new(services),
        system_prompt: "sys".into(),
        config_dir: config.to_path_buf(),
        plans_dir: plans.to_path_buf(),
        plan_config: PlanModeConfig::default(),
        teammate_attachments: None,
        backend: Default::default(),
        plan_approver: Default::default(),
    })
}

/// A project (canonical root) and a config home, kept alive by the caller.
fn dirs() -> (tempfile::TempDir, std::path::PathBuf, tempfile::TempDir) {
    let project = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    (project, root, tempfile::tempdir().unwrap())
}

/// The lead's plan session (teammates' plan files sit beside its own).
fn lead_plan(plans: &std::path::Path) -> Arc<PlanSession> {
    Arc::new(PlanSession::new(
        PlanFiles::new(plans.to_path_buf(), "sess"),
        PlanModeConfig::default(),
        None,
    ))
}

/// The mock model playing `script`, and a client for it.
async fn mock(script: Script) -> (MockServer, Arc<dyn catui_providers::ModelClient>) {
    let server = MockServer::start(script).await.unwrap();
    let mut pc = ProviderConfig::new(ProviderKind::Anthropic, server.url(), "k");
    pc.retry_base_delay = Duration::from_millis(1);
    let client = catui_providers::client_for(pc).unwrap();
    (server, client)
}

async fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    for _ in 0..400 {
        if f() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_required_teammate_is_rejected_then_approved_then_edits() {
    let (_project, root, config) = dirs();
    let plans = config.path().join("plans");
    let lead_plan = lead_plan(&plans);
    let plan_file = lead_plan.files.path(Some("amy@core"));
    let plan_path = plan_file.display().to_string();
    let target = root.join("feature.txt");

    let script = Script::new()
        // No plan yet: the teammate is told to write one.
        .turn(Turn::tool_use("t1", "ExitPlanMode", json!({})))
        .turn(Turn::tool_use(
            "t2",
            "Write",
            json!({"file_path": plan_path, "content": "# Plan v1\n1. add feature.txt\n"}),
        ))
        .turn(Turn::tool_use("t3", "ExitPlanMode", json!({})))
        .turn(Turn::text("Waiting for the lead."))
        .turn(
            Turn::tool_use(
                "t4",
                "Write",
                json!({"file_path": plan_path, "content": "# Plan v2\n1. add feature.txt\n2. test it\n"}),
            )
            .when_contains("Also add a test step."),
        )
        .turn(Turn::tool_use("t5", "ExitPlanMode", json!({})))
        .turn(Turn::text("Waiting again."))
        .turn(
            Turn::tool_use(
                "t6",
                "Write",
                json!({"file_path": target.display().to_string(), "content": "done\n"}),
            )
            .when_contains("approved your plan"),
        )
        .turn(Turn::text("Implemented."));
    let (server, client) = mock(script).await;

    let mut tools = ToolRegistry::builtin();
    tools.add(Adapter(Arc::new(ExitPlanModeTool)));
    tools.add(Adapter(Arc::new(SendMessageTool)));
    let (events_tx, mut events_rx) = tokio::sync::mpsc::unbounded_channel::<EngineEvent>();
    let notes = Arc::new(Mutex::new(Vec::new()));
    let n2 = notes.clone();
    tokio::spawn(async move {
        while let Some(e) = events_rx.recv().await {
            if let EngineEvent::Notification { text, .. } = e {
                n2.lock().unwrap().push(text);
            }
        }
    });
    let manager = team(
        client,
        tools,
        Arc::new(Refuse),
        config.path(),
        &plans,
        events_tx,
    );
    let lead = Arc::new(Lead {
        seen: Mutex::new(vec![]),
    });
    manager.set_reviewer(lead.clone());
    let mut lead_ctx = ToolContext::new(root.clone());
    lead_ctx.values.insert(lead_plan.clone());

    let amy = manager
        .spawn(
            TeammateSpec {
                name: "amy".into(),
                team: "core".into(),
                prompt: "Add feature.txt".into(),
                model: None,
                permission_mode: PermissionMode::AcceptEdits,
                plan_mode_required: true,
                host: None,
            },
            &lead_ctx,
        )
        .unwrap();

    wait_for("the implementation", || target.exists()).await;
    wait_for("the last turn", || server.requests().len() >= 9).await;
    let requests = server.requests();

    // 1. The first ExitPlanMode without a plan file fails and says to write a plan.
    let r = requests[1].tool_results();
    let first = r.iter().find(|t| t.tool_use_id == "t1").unwrap();
    assert!(first.is_error);
    assert!(
        first.content.contains(&format!(
            "No plan file found at {plan_path}. Please write your plan to this file before calling ExitPlanMode."
        )),
        "{}",
        first.content
    );

    // 2. With a plan: the text that says to wait for the lead, with the request id.
    let r = requests[3].tool_results();
    let submitted = r.iter().find(|t| t.tool_use_id == "t3").unwrap();
    assert!(!submitted.is_error, "{}", submitted.content);
    assert!(
        submitted
            .content
            .starts_with("Your plan has been submitted to the team lead for approval.")
    );
    assert!(
        submitted
            .content
            .contains(&format!("Plan file: {plan_path}"))
    );
    assert!(
        submitted
            .content
            .contains("Important: Do NOT proceed until you receive approval.")
    );

    // 3. The lead got both revisions, in its mailbox, with the wire fields.
    let seen = lead.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].from, "amy");
    assert!(seen[0].plan.contains("Plan v1"));
    assert!(seen[1].plan.contains("Plan v2"));
    assert!(seen[0].request_id.ends_with("amy@core"));
    assert!(
        submitted
            .content
            .ends_with(&format!("Request ID: {}", seen[0].request_id))
    );
    let lead_box = Mailboxes::new(config.path())
        .read_all("core", TEAM_LEAD)
        .unwrap();
    assert_eq!(lead_box.len(), 2);
    assert!(lead_box.iter().all(|m| m.read && m.from == "amy"));
    let Some(TeamProtocol::PlanApprovalRequest {
        plan_file_path,
        plan_content,
        ..
    }) = TeamProtocol::parse(&lead_box[0].text)
    else {
        panic!("not a plan_approval_request: {}", lead_box[0].text);
    };
    assert_eq!(plan_file_path, plan_path);
    assert!(plan_content.contains("Plan v1"));

    // 4. The rejection's feedback reached the model, still in plan mode;
    //    the approval came as plan_approval_response messages.
    let amy_box = Mailboxes::new(config.path())
        .read_all("core", "amy")
        .unwrap();
    let answers: Vec<TeamProtocol> = amy_box
        .iter()
        .filter_map(|m| TeamProtocol::parse(&m.text))
        .collect();
    assert!(matches!(
        &answers[0],
        TeamProtocol::PlanApprovalResponse { approved: false, feedback: Some(f), .. } if f.contains("test step")
    ));
    assert!(matches!(
        &answers[1],
        TeamProtocol::PlanApprovalResponse { approved: true, .. }
    ));
    let revise = requests
        .iter()
        .find(|r| r.contains_text("Also add a test step."))
        .unwrap();
    assert!(revise.contains_text("still in plan mode"));

    // 5. Approved: out of plan mode (acceptEdits restored), the edit ran.
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "done\n");
    let approved = requests
        .iter()
        .find(|r| r.contains_text("approved your plan"))
        .unwrap();
    assert!(approved.contains_text("permission mode: acceptEdits"));
    assert!(
        std::fs::read_to_string(&plan_file)
            .unwrap()
            .contains("Plan v2")
    );
    wait_for("idle", || amy.status() == TeammateStatus::Idle).await;
    assert!(manager.describe().contains("amy"));

    // 6. Shutdown stops the teammate; the mailboxes stay.
    manager.shutdown().await;
    assert_eq!(amy.status(), TeammateStatus::Stopped);
    assert!(
        Mailboxes::new(config.path())
            .inbox_path("core", "amy")
            .unwrap()
            .exists()
    );
    assert!(
        notes
            .lock()
            .unwrap()
            .iter()
            .any(|n| n.contains("submitted a plan"))
    );
}

/// Allows everything and remembers which tools asked.
#[derive(Default)]
struct AllowAll {
    asked: Mutex<Vec<String>>,
}

#[async_trait]
impl Approver for AllowAll {
    async fn ask(&self, r: PermissionRequest) -> PermissionAnswer {
        self.asked.lock().unwrap().push(r.tool_name);
        PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: None,
        }
    }
}

/// A teammate that is in plan mode without `planModeRequired`
/// leaves it on its own: no request to the lead, no prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_voluntary_plan_mode_teammate_exits_without_asking() {
    let (_project, root, config) = dirs();
    let plans = config.path().join("plans");
    let lead_plan = lead_plan(&plans);
    let plan_path = lead_plan.files.path(Some("bob@core")).display().to_string();
    let target = root.join("notes.txt");
    let script = Script::new()
        .turn(Turn::tool_use(
            "p",
            "Write",
            json!({"file_path": plan_path, "content": "# Plan\n1. write notes.txt\n"}),
        ))
        .turn(Turn::tool_use("x", "ExitPlanMode", json!({})))
        .turn(Turn::tool_use(
            "w",
            "Write",
            json!({"file_path": target.display().to_string(), "content": "notes\n"}),
        ))
        .turn(Turn::text("Done."));
    let (server, client) = mock(script).await;
    let mut tools = ToolRegistry::builtin();
    tools.add(Adapter(Arc::new(ExitPlanModeTool)));
    let (events_tx, _events_rx) = tokio::sync::mpsc::unbounded_channel::<EngineEvent>();
    let approver = Arc::new(AllowAll::default());
    let manager = team(
        client,
        tools,
        approver.clone(),
        config.path(),
        &plans,
        events_tx,
    );
    let lead = Arc::new(Lead {
        seen: Mutex::new(vec![]),
    });
    manager.set_reviewer(lead.clone());
    let mut lead_ctx = ToolContext::new(root.clone());
    lead_ctx.values.insert(lead_plan);
    let bob = manager
        .spawn(
            TeammateSpec {
                name: "bob".into(),
                team: "core".into(),
                prompt: "Write notes".into(),
                model: None,
                permission_mode: PermissionMode::Plan,
                plan_mode_required: false,
                host: None,
            },
            &lead_ctx,
        )
        .unwrap();

    wait_for("bob's file", || target.exists()).await;
    let requests = server.requests();
    let exit = requests[2]
        .tool_results()
        .into_iter()
        .find(|t| t.tool_use_id == "x")
        .unwrap();
    assert!(!exit.is_error, "{}", exit.content);
    assert!(
        !exit.content.contains("submitted to the team lead"),
        "{}",
        exit.content
    );
    assert!(lead.seen.lock().unwrap().is_empty(), "the lead was asked");
    assert!(
        Mailboxes::new(config.path())
            .read_all("core", TEAM_LEAD)
            .unwrap()
            .is_empty()
    );
    let asked = approver.asked.lock().unwrap().clone();
    assert!(
        !asked.iter().any(|t| t == "ExitPlanMode"),
        "ExitPlanMode prompted: {asked:?}"
    );

    // `/team stop bob` stops him; a second stop finds nobody running, and
    // `/team show` still describes him.
    let command =
        |args: &str| match catui_core::teams::team_command(Some(&manager.lead_handle()), args) {
            catui_core::engine::slash_commands::CommandOutput::Local { text, is_error } => {
                (text, is_error)
            }
            other => panic!("unexpected output: {other:?}"),
        };
    assert_eq!(command("stop bob"), ("Stopped teammate bob.".into(), false));
    assert_eq!(bob.status(), TeammateStatus::Stopped);
    assert_eq!(
        command("stop bob"),
        ("No running teammate named bob.".into(), true)
    );
    let (shown, is_error) = command("show bob");
    assert!(
        !is_error && shown.starts_with("bob@core · stopped"),
        "{shown}"
    );
    assert!(shown.contains("⏺ Write("), "{shown}");
    manager.shutdown().await;
}
