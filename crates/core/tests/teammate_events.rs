//! What the lead's front end sees of a teammate, against the testkit mock
//! over real HTTP: the teammate's messages arrive as
//! `EngineEvent::Teammate`, its running tool call is its activity (in
//! `/team` too), and what it tells the lead is shown to the user once,
//! whether or not the lead model takes it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use catui_core::engine::{
    Approver, EngineEvent, Limits, Models, NobodyToAsk, PermissionAnswer, PermissionRequest,
    SessionServices,
};
use catui_core::permissions::Access;
use catui_core::plan::PlanModeConfig;
use catui_core::teams::{
    SendMessageTool, TEAM_LEAD, TeamManager, TeamSetup, TeammateSpec, TeammateStatus,
};
use catui_core::tools::{Adapter, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool};
use catui_protocol::{ContentBlock, PermissionMode, Role};
use catui_providers::{ProviderConfig, ProviderKind};
use catui_testkit::{MockServer, RecordedRequest, Script, Turn};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::sync::{Notify, oneshot};

/// A tool that holds its call open until the test releases it, so the
/// teammate's activity can be looked at while the call runs.
struct Gate {
    entered: Mutex<Option<oneshot::Sender<()>>>,
    release: Notify,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GateInput {
    name: String,
}

#[async_trait]
impl TypedTool for Gate {
    type Input = GateInput;
    fn name(&self) -> &'static str {
        "Gate"
    }
    fn description(&self) -> String {
        "waits at a gate".into()
    }
    fn is_read_only(&self, _: &GateInput) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _: &GateInput) -> bool {
        true
    }
    fn access(&self, _: &GateInput, _: &ToolContext) -> Access {
        Access::Read { paths: vec![] }
    }
    fn summary(&self, input: &GateInput) -> String {
        format!("Gate({})", input.name)
    }
    async fn call(&self, input: GateInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        if let Some(tx) = self.entered.lock().unwrap().take() {
            let _ = tx.send(());
        }
        self.release.notified().await;
        Ok(ToolOutput::text(format!("passed {}", input.name)))
    }
}

struct Refuse;
#[async_trait]
impl Approver for Refuse {
    async fn ask(&self, r: PermissionRequest) -> PermissionAnswer {
        NobodyToAsk.ask(r).await
    }
}

fn last_user(r: &RecordedRequest) -> String {
    r.last_user_text().unwrap_or_default()
}

/// The next lead event that matches, keeping every event seen.
async fn next_event(
    rx: &mut UnboundedReceiver<EngineEvent>,
    seen: &mut Vec<EngineEvent>,
    what: &str,
    pred: impl Fn(&EngineEvent) -> bool,
) -> EngineEvent {
    loop {
        match tokio::time::timeout(Duration::from_secs(30), rx.recv()).await {
            Ok(Some(e)) => {
                seen.push(e.clone());
                if pred(&e) {
                    return e;
                }
            }
            _ => panic!("no {what}; seen: {seen:#?}"),
        }
    }
}

/// Receives lead events until everything seen so far satisfies `done`
/// (for events of independent tasks, whose order is not fixed).
async fn until_seen(
    rx: &mut UnboundedReceiver<EngineEvent>,
    seen: &mut Vec<EngineEvent>,
    what: &str,
    done: impl Fn(&[EngineEvent]) -> bool,
) {
    while !done(seen) {
        next_event(rx, seen, what, |_| true).await;
    }
}

fn from_amy(e: &EngineEvent, role: Role) -> bool {
    matches!(e, EngineEvent::Teammate { agent_id, message } if agent_id == "amy@core" && message.role == role)
}

/// The teammates' messages to the lead, as `name@team: text`.
fn teammate_messages(seen: &[EngineEvent]) -> Vec<String> {
    seen.iter()
        .filter_map(|e| match e {
            EngineEvent::TeammateMessage { from, text } => Some(format!("{from}: {text}")),
            _ => None,
        })
        .collect()
}

fn notices<'a>(seen: &'a [EngineEvent], key: &str) -> Vec<&'a str> {
    seen.iter()
        .filter_map(|e| match e {
            EngineEvent::Notification { key: k, text } if k == key => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lead_sees_a_teammates_messages_activity_and_reports() {
    let project = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    let config = tempfile::tempdir().unwrap();
    let script = Script::new()
        .turn(
            Turn::tool_use("g1", "Gate", json!({"name": "checkpoint"}))
                .when(|r| !r.has_tool_result("g1")),
        )
        .turn(
            Turn::tool_use(
                "s1",
                "SendMessage",
                json!({"to": TEAM_LEAD, "message": "gate passed"}),
            )
            .when(|r| r.has_tool_result("g1") && !r.has_tool_result("s1")),
        )
        .turn(
            Turn::text("Reported.")
                .when(|r| r.has_tool_result("s1") && !last_user(r).contains("say bye")),
        )
        .turn(
            Turn::tool_use(
                "s2",
                "SendMessage",
                json!({"to": TEAM_LEAD, "message": "bye"}),
            )
            .when(|r| last_user(r).contains("say bye") && !r.has_tool_result("s2")),
        )
        .turn(Turn::text("Bye.").when(|r| r.has_tool_result("s2")));
    let server = MockServer::start(script).await.unwrap();
    let mut pc = ProviderConfig::new(ProviderKind::Anthropic, server.url(), "k");
    pc.retry_base_delay = Duration::from_millis(1);
    let client = catui_providers::client_for(pc).unwrap();

    let (entered_tx, entered_rx) = oneshot::channel();
    let gate = Arc::new(Gate {
        entered: Mutex::new(Some(entered_tx)),
        release: Notify::new(),
    });
    let mut tools = ToolRegistry::builtin();
    tools.add(Adapter(gate.clone()));
    tools.add(Adapter(Arc::new(SendMessageTool)));
    let (events_tx, mut events) = unbounded_channel::<EngineEvent>();
    let mut services = SessionServices::new(
        "sess",
        client,
        tools,
        Models {
            main: "mate-model".into(),
            small: "small".into(),
            plan: None,
        },
        events_tx,
    );
    services.approver = Arc::new(Refuse);
    services.limits = Limits {
        max_tokens: 1000,
        max_turns: Some(10),
        ..Limits::default()
    };
    let manager = TeamManager::new(TeamSetup {
        services: Arc::new(services),
        system_prompt: "sys".into(),
        config_dir: config.path().to_path_buf(),
        plans_dir: config.path().join("plans"),
        plan_config: PlanModeConfig::default(),
        teammate_attachments: None,
        backend: Default::default(),
        plan_approver: Default::default(),
    });
    let (lead_tx, mut lead_rx) = unbounded_channel::<Vec<ContentBlock>>();
    manager.set_lead_input(lead_tx.downgrade());

    let amy = manager
        .spawn(
            TeammateSpec {
                name: "amy".into(),
                team: "core".into(),
                prompt: "Pass the gate, then report.".into(),
                model: None,
                permission_mode: PermissionMode::Default,
                plan_mode_required: false,
                host: None,
            },
            &ToolContext::new(root.clone()),
        )
        .unwrap();
    let mut seen = Vec::new();

    // 1. Amy's tool call reaches the lead as her message.
    let call = next_event(&mut events, &mut seen, "amy's Gate call", |e| {
        from_amy(e, Role::Assistant)
    })
    .await;
    let EngineEvent::Teammate { message, .. } = call else {
        unreachable!()
    };
    let uses: Vec<_> = message.tool_uses().collect();
    assert_eq!(uses.len(), 1, "{message:?}");
    assert!(
        message.content.iter().any(
            |b| matches!(b, ContentBlock::ToolUse { id, name, .. } if id == "g1" && name == "Gate")
        ),
        "{message:?}"
    );

    // 2. While the call runs it is her activity, in `/team` as well.
    entered_rx.await.unwrap();
    for _ in 0..400 {
        if amy.activity().is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(amy.activity().as_deref(), Some("Gate(checkpoint)"));
    assert_eq!(amy.tool_uses(), 1);
    let team = manager.describe();
    // `/team show amy` gives her recent history, the running call included.
    let shown = match catui_core::teams::team_command(Some(&manager.lead_handle()), "show amy") {
        catui_core::engine::slash_commands::CommandOutput::Local { text, is_error } => {
            assert!(!is_error, "{text}");
            text
        }
        other => panic!("unexpected output: {other:?}"),
    };
    assert!(
        shown.starts_with("amy@core · working · mate-model"),
        "{shown}"
    );
    assert!(shown.contains("⏺ Gate(checkpoint)"), "{shown}");
    let line = team.lines().find(|l| l.contains("amy")).unwrap();
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>(),
        ["amy", "working", "Gate(checkpoint)", "mate-model"],
        "{team}"
    );

    // 3. Released: her tool results follow, and the call is no longer her
    //    activity (its end comes before the results on her stream).
    gate.release.notify_one();
    let results = next_event(&mut events, &mut seen, "amy's Gate result", |e| {
        from_amy(e, Role::User)
    })
    .await;
    let EngineEvent::Teammate { message, .. } = results else {
        unreachable!()
    };
    assert!(
        message.content.iter().any(|b| matches!(
            b,
            ContentBlock::ToolResult { tool_use_id, is_error: false, .. } if tool_use_id == "g1"
        )),
        "{message:?}"
    );
    // Her next call may already be running; this one is not.
    assert_ne!(amy.activity().as_deref(), Some("Gate(checkpoint)"));

    // 4. Her message to the lead: shown to the user and queued for the
    //    lead model.
    next_event(&mut events, &mut seen, "the gate report notice", |e| {
        matches!(e, EngineEvent::TeammateMessage { from, text }
            if from == "amy@core" && text == "gate passed")
    })
    .await;
    let queued = tokio::time::timeout(Duration::from_secs(30), lead_rx.recv())
        .await
        .unwrap()
        .unwrap();
    let queued: String = queued
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        queued.contains("from=\"amy\"") && queued.contains("gate passed"),
        "{queued}"
    );

    // 5. With nothing taking the lead's input, the user still sees her
    //    message, exactly once.
    drop(lead_tx);
    drop(lead_rx);
    manager.send("core", TEAM_LEAD, "amy", "say bye").unwrap();
    // Amy's last answer and the lead's inbox watcher race; either may
    // come first.
    until_seen(
        &mut events,
        &mut seen,
        "the bye notice and amy's last answer",
        |seen| {
            teammate_messages(seen).iter().any(|m| m == "amy@core: bye")
                && seen.iter().any(|e| {
                    matches!(e, EngineEvent::Teammate { message, .. } if message.text() == "Bye.")
                })
        },
    )
    .await;
    // Shutdown joins the inbox watcher: whatever it reported is queued now.
    manager.shutdown().await;
    assert_eq!(amy.status(), TeammateStatus::Stopped);
    while let Ok(e) = events.try_recv() {
        seen.push(e);
    }
    assert_eq!(
        teammate_messages(&seen),
        ["amy@core: gate passed", "amy@core: bye"]
    );
    assert!(
        notices(&seen, "team-message").is_empty(),
        "notified twice: {seen:#?}"
    );
    assert_eq!(amy.tool_uses(), 3);
    assert_eq!(amy.activity(), None);
}
