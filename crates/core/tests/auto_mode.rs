//! Auto mode end to end: a real engine against the testkit mock over HTTP,
//! with the classifier's answers scripted on the small model. Allow runs
//! the call, deny reaches the model as a tool_result, repeated denials,
//! errors and timeouts fall back to the approver, and a Bash `rm` that a
//! `Bash(*)` rule allows in default mode goes to the classifier in auto.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
mod common;

use catui_core::engine::{
    Approver, Engine, EngineEvent, MemoryRecorder, PermissionAnswer, PermissionRequest, Record,
};
use catui_core::permissions::rules::{RuleBehavior, RuleOrigin, SourcedRule};
use catui_core::permissions::{
    Access, AutoModeConfig, CallInfo, Decision, PermissionContext, Rule, decide,
};
use catui_core::tools::bash::BashTool;
use catui_core::tools::{Adapter, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool};
use catui_protocol::stream_json::ResultSubtype;
use catui_protocol::{ContentBlock, PermissionMode};
use catui_testkit::{MockServer, RecordedRequest, Script, Turn};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// A test tool: `Chore` counts as a shell command (asks by default),
/// `Peek` as a read (never asks).
struct Job {
    runs: Arc<Mutex<Vec<String>>>,
    read: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct JobInput {
    label: String,
}

#[async_trait]
impl TypedTool for Job {
    type Input = JobInput;
    fn name(&self) -> &'static str {
        if self.read { "Peek" } else { "Chore" }
    }
    fn description(&self) -> String {
        "test job".into()
    }
    fn is_read_only(&self, _: &JobInput) -> bool {
        self.read
    }
    fn is_concurrency_safe(&self, _: &JobInput) -> bool {
        self.read
    }
    fn access(&self, _: &JobInput, _: &ToolContext) -> Access {
        if self.read {
            Access::Read { paths: vec![] }
        } else {
            Access::Shell {
                command: "chore --now".into(),
                unconfined: false,
            }
        }
    }
    async fn call(&self, input: JobInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.runs.lock().unwrap().push(input.label.clone());
        Ok(ToolOutput::text(format!("did {}", input.label)))
    }
}

struct ScriptedApprover {
    answers: Mutex<Vec<PermissionAnswer>>,
    asked: Mutex<Vec<PermissionRequest>>,
}

#[async_trait]
impl Approver for ScriptedApprover {
    async fn ask(&self, request: PermissionRequest) -> PermissionAnswer {
        self.asked.lock().unwrap().push(request);
        let mut answers = self.answers.lock().unwrap();
        if answers.is_empty() {
            PermissionAnswer::Deny {
                message: "no scripted answer".into(),
            }
        } else {
            answers.remove(0)
        }
    }
}

fn allow_answer() -> PermissionAnswer {
    PermissionAnswer::Allow {
        updated_input: None,
        updated_permissions: None,
    }
}

struct Setup {
    answers: Vec<PermissionAnswer>,
    timeout: Duration,
    classifier: bool,
    interactive: bool,
    allow_rules: Vec<&'static str>,
    /// Settings `autoMode.enabled`; without it the engine starts in default.
    auto_enabled: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            answers: vec![],
            timeout: Duration::from_secs(15),
            classifier: true,
            interactive: true,
            allow_rules: vec![],
            auto_enabled: true,
        }
    }
}

struct Harness {
    engine: Engine,
    runs: Arc<Mutex<Vec<String>>>,
    recorder: Arc<MemoryRecorder>,
    events: tokio::sync::mpsc::UnboundedReceiver<EngineEvent>,
    approver: Arc<ScriptedApprover>,
    _dir: tempfile::TempDir,
    _home: tempfile::TempDir,
    root: PathBuf,
}

fn auto_context(root: &Path, interactive: bool, allow_rules: &[&str]) -> PermissionContext {
    let mut perms = PermissionContext::new(root.to_path_buf());
    perms.interactive = interactive;
    perms.auto_mode = AutoModeConfig {
        enabled: true,
        use_during_plan: false,
    };
    for text in allow_rules {
        perms.rules.push(
            RuleBehavior::Allow,
            SourcedRule {
                rule: Rule::parse(text).unwrap(),
                origin: RuleOrigin::cli(root.to_path_buf()),
            },
        );
    }
    perms
}

fn harness(server: &MockServer, setup: Setup) -> Harness {
    let runs = Arc::new(Mutex::new(vec![]));
    let mut tools = ToolRegistry::new();
    for read in [true, false] {
        tools.add(Adapter(Arc::new(Job {
            runs: runs.clone(),
            read,
        })));
    }
    tools.add(Adapter(Arc::new(BashTool::default())));
    let approver = Arc::new(ScriptedApprover {
        answers: Mutex::new(setup.answers),
        asked: Mutex::new(vec![]),
    });
    let mut session = common::TestSession::new(server)
        .model("main")
        .tools(tools)
        .max_turns(10);
    for rule in &setup.allow_rules {
        session = session.allow(rule);
    }
    if setup.interactive {
        session = session.approver(approver.clone());
    }
    if setup.auto_enabled {
        session = session
            .settings(&format!(
                r#"{{"autoMode": {{"enabled": true, "classifierTimeoutMs": {}}}}}"#,
                setup.timeout.as_millis()
            ))
            .mode(PermissionMode::Auto);
    }
    if !setup.classifier {
        session = session.without_auto_classifier();
    }
    let started = session.start();
    Harness {
        engine: started.engine,
        runs,
        recorder: started.recorder,
        events: started.events,
        approver,
        root: started.root,
        _dir: started.project,
        _home: started.home,
    }
}

fn main_turn(id: &str, tool: &str, input: Value) -> Turn {
    Turn::tool_use(id, tool, input).when_model("main")
}

fn chore(id: &str, label: &str) -> Turn {
    main_turn(id, "Chore", json!({ "label": label }))
}

fn verdict(decision: &str, reason: &str) -> Turn {
    Turn::tool_use(
        "d",
        "decide",
        json!({ "decision": decision, "reason": reason }),
    )
    .when_model("small")
}

fn done() -> Turn {
    Turn::text("done").when_model("main")
}

fn classifier_requests(server: &MockServer) -> Vec<RecordedRequest> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.model() == "small")
        .collect()
}

fn result_text(engine: &Engine, id: &str) -> (String, bool) {
    for m in engine.messages() {
        for b in &m.content {
            if let ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } = b
                && tool_use_id == id
            {
                return (content.as_text(), *is_error);
            }
        }
    }
    panic!("no result for {id}");
}

fn notifications(events: &mut tokio::sync::mpsc::UnboundedReceiver<EngineEvent>) -> Vec<String> {
    let mut out = Vec::new();
    while let Ok(e) = events.try_recv() {
        if let EngineEvent::Notification { key, text } = e {
            assert_eq!(key, "auto-mode-decision");
            out.push(text);
        }
    }
    out
}

fn system_records(recorder: &MemoryRecorder) -> Vec<(String, String)> {
    recorder
        .records()
        .into_iter()
        .filter_map(|r| match r {
            Record::System { subtype, text } => Some((subtype, text)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn allow_runs_the_call_without_asking_and_is_recorded() {
    let server = MockServer::start(
        Script::new()
            .turn(chore("c1", "sweep"))
            .turn(verdict("allow", "sweeping is what the user asked for"))
            .turn(done()),
    )
    .await
    .unwrap();
    let mut h = harness(&server, Setup::default());
    let outcome = h
        .engine
        .handle_input(vec![ContentBlock::text("please sweep the floor")])
        .await;
    assert_eq!(outcome.subtype, ResultSubtype::Success, "{outcome:?}");
    assert_eq!(*h.runs.lock().unwrap(), ["sweep"]);
    assert!(h.approver.asked.lock().unwrap().is_empty());
    assert_eq!(result_text(&h.engine, "c1"), ("did sweep".into(), false));

    // One classifier request: the small model, forced `decide`, the user's
    // request and the proposed action.
    let seen = classifier_requests(&server);
    assert_eq!(seen.len(), 1);
    let req = &seen[0];
    assert_eq!(
        req.body["tool_choice"],
        json!({"type": "tool", "name": "decide"})
    );
    assert_eq!(req.tool_names(), ["decide"]);
    assert!(req.contains_text("please sweep the floor"));
    assert!(req.contains_text("Tool: Chore"));
    assert!(req.contains_text("\"label\": \"sweep\""));

    assert_eq!(
        notifications(&mut h.events),
        ["auto mode allowed Chore: sweeping is what the user asked for"]
    );
    assert_eq!(
        system_records(&h.recorder),
        [(
            "auto_mode_decision".to_string(),
            "auto mode allowed Chore: sweeping is what the user asked for".to_string()
        )]
    );
}

#[tokio::test]
async fn deny_reaches_the_model_as_a_tool_result() {
    let server = MockServer::start(
        Script::new()
            .turn(chore("c1", "burn"))
            .turn(verdict("deny", "Burning things was not requested."))
            .turn(done()),
    )
    .await
    .unwrap();
    let mut h = harness(&server, Setup::default());
    let outcome = h
        .engine
        .handle_input(vec![ContentBlock::text("tidy up")])
        .await;
    assert_eq!(outcome.subtype, ResultSubtype::Success);
    assert!(
        h.runs.lock().unwrap().is_empty(),
        "a denied call must not run"
    );
    assert!(h.approver.asked.lock().unwrap().is_empty());
    let (text, is_error) = result_text(&h.engine, "c1");
    assert!(is_error);
    assert!(
        text.starts_with("Auto mode denied this action: Burning things was not requested."),
        "{text}"
    );
    // The main model's next request carries that result.
    let last_main = server
        .requests()
        .into_iter()
        .rfind(|r| r.model() == "main")
        .unwrap();
    let results = last_main.tool_results();
    assert_eq!(results.len(), 1);
    assert!(results[0].is_error);
    assert!(results[0].content.contains("Auto mode denied this action"));
    assert_eq!(
        notifications(&mut h.events),
        ["auto mode denied Chore: Burning things was not requested."]
    );
}

#[tokio::test]
async fn the_third_denial_in_a_row_asks_the_user() {
    let server = MockServer::start(
        Script::new()
            .turn(chore("c1", "one"))
            .turn(verdict("deny", "no one"))
            .turn(chore("c2", "two"))
            .turn(verdict("deny", "no two"))
            .turn(chore("c3", "three"))
            .turn(verdict("deny", "no three"))
            .turn(done()),
    )
    .await
    .unwrap();
    let mut h = harness(
        &server,
        Setup {
            answers: vec![allow_answer()],
            ..Setup::default()
        },
    );
    h.engine
        .handle_input(vec![ContentBlock::text("do the chores")])
        .await;
    assert!(result_text(&h.engine, "c1").1);
    assert!(result_text(&h.engine, "c2").1);
    // The third went to the user, who allowed it.
    let asked = h.approver.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].tool_use_id, "c3");
    assert!(
        asked[0].reason.contains("denied 3 actions in a row"),
        "{}",
        asked[0].reason
    );
    assert_eq!(*h.runs.lock().unwrap(), ["three"]);
    assert_eq!(result_text(&h.engine, "c3"), ("did three".into(), false));
    let notes = notifications(&mut h.events);
    assert_eq!(notes.len(), 3);
    assert!(notes[2].contains("falling back to asking"), "{notes:?}");
}

#[tokio::test]
async fn an_allow_resets_the_denial_count() {
    let server = MockServer::start(
        Script::new()
            .turn(chore("c1", "one"))
            .turn(verdict("deny", "no"))
            .turn(chore("c2", "two"))
            .turn(verdict("deny", "no"))
            .turn(chore("c3", "three"))
            .turn(verdict("allow", "fine"))
            .turn(chore("c4", "four"))
            .turn(verdict("deny", "no"))
            .turn(done()),
    )
    .await
    .unwrap();
    let mut h = harness(&server, Setup::default());
    h.engine
        .handle_input(vec![ContentBlock::text("chores")])
        .await;
    assert!(h.approver.asked.lock().unwrap().is_empty());
    assert_eq!(*h.runs.lock().unwrap(), ["three"]);
    assert!(
        result_text(&h.engine, "c4")
            .0
            .starts_with("Auto mode denied")
    );
}

#[tokio::test]
async fn a_classifier_timeout_falls_back_to_asking() {
    let server = MockServer::start(
        Script::new()
            .turn(chore("c1", "slow"))
            .turn(verdict("allow", "late").delay(Duration::from_secs(3)))
            .turn(done()),
    )
    .await
    .unwrap();
    let mut h = harness(
        &server,
        Setup {
            answers: vec![PermissionAnswer::Deny {
                message: "not now".into(),
            }],
            timeout: Duration::from_millis(200),
            ..Setup::default()
        },
    );
    h.engine.handle_input(vec![ContentBlock::text("go")]).await;
    let asked = h.approver.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0].reason.contains("did not answer within 0.2 s"),
        "{}",
        asked[0].reason
    );
    assert!(
        h.runs.lock().unwrap().is_empty(),
        "the late allow is ignored"
    );
    let (text, is_error) = result_text(&h.engine, "c1");
    assert!(is_error && text.contains("not now"), "{text}");
}

#[tokio::test]
async fn unusable_answers_fall_back_to_asking() {
    let server = MockServer::start(
        Script::new()
            .turn(chore("c1", "a"))
            .turn(Turn::text("I think it is fine").when_model("small"))
            .turn(chore("c2", "b"))
            .turn(Turn::error_status(400, "bad request").when_model("small"))
            .turn(chore("c3", "c"))
            .turn(verdict("perhaps", "unsure"))
            .turn(done()),
    )
    .await
    .unwrap();
    let mut h = harness(
        &server,
        Setup {
            answers: vec![allow_answer(), allow_answer(), allow_answer()],
            ..Setup::default()
        },
    );
    h.engine.handle_input(vec![ContentBlock::text("go")]).await;
    let reasons: Vec<String> = h
        .approver
        .asked
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.reason.clone())
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(reasons[0].contains("did not call `decide`"), "{reasons:?}");
    assert!(reasons[1].contains("request failed"), "{reasons:?}");
    assert!(reasons[2].contains("invalid decision"), "{reasons:?}");
    assert_eq!(*h.runs.lock().unwrap(), ["a", "b", "c"]);
}

#[tokio::test]
async fn without_anyone_to_ask_the_fallback_is_a_denial() {
    let server = MockServer::start(
        Script::new()
            .turn(chore("c1", "a"))
            .turn(Turn::error_status(400, "bad request").when_model("small"))
            .turn(done()),
    )
    .await
    .unwrap();
    let mut h = harness(
        &server,
        Setup {
            interactive: false,
            ..Setup::default()
        },
    );
    h.engine.handle_input(vec![ContentBlock::text("go")]).await;
    assert!(h.approver.asked.lock().unwrap().is_empty());
    assert!(h.runs.lock().unwrap().is_empty());
    let (text, is_error) = result_text(&h.engine, "c1");
    assert!(is_error);
    assert!(
        text.starts_with("Auto mode could not approve this call"),
        "{text}"
    );
    assert!(
        text.contains("nobody can answer permission prompts"),
        "{text}"
    );
}

#[tokio::test]
async fn read_only_calls_never_reach_the_classifier() {
    let server = MockServer::start(
        Script::new()
            .turn(main_turn("p1", "Peek", json!({"label": "look"})))
            .turn(main_turn("b1", "Bash", json!({"command": "ls"})))
            .turn(done()),
    )
    .await
    .unwrap();
    let mut h = harness(&server, Setup::default());
    h.engine
        .handle_input(vec![ContentBlock::text("look around")])
        .await;
    assert_eq!(*h.runs.lock().unwrap(), ["look"]);
    assert!(!result_text(&h.engine, "b1").1);
    assert!(classifier_requests(&server).is_empty());
    assert!(notifications(&mut h.events).is_empty());
}

#[tokio::test]
async fn without_a_classifier_auto_mode_asks() {
    let server = MockServer::start(Script::new().turn(chore("c1", "a")).turn(done()))
        .await
        .unwrap();
    let h = harness(
        &server,
        Setup {
            classifier: false,
            answers: vec![allow_answer()],
            ..Setup::default()
        },
    );
    let mut engine = h.engine;
    engine.handle_input(vec![ContentBlock::text("go")]).await;
    assert_eq!(h.approver.asked.lock().unwrap().len(), 1);
    assert_eq!(*h.runs.lock().unwrap(), ["a"]);
}

#[tokio::test]
async fn a_bash_rm_allowed_by_a_wildcard_rule_goes_to_the_classifier_in_auto() {
    let server = MockServer::start(
        Script::new()
            .turn(main_turn("b1", "Bash", json!({"command": "rm victim.txt"})))
            .turn(verdict("deny", "Deleting files was not requested."))
            .turn(done()),
    )
    .await
    .unwrap();
    let mut h = harness(
        &server,
        Setup {
            allow_rules: vec!["Bash(*)"],
            ..Setup::default()
        },
    );
    let victim = h.root.join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();

    // In default mode the rule lets it run without asking.
    let call = CallInfo {
        tool_name: "Bash".into(),
        access: Access::Shell {
            command: "rm victim.txt".into(),
            unconfined: false,
        },
        read_only: false,
        cwd: h.root.clone(),
    };
    let default_ctx = auto_context(&h.root, true, &["Bash(*)"]);
    assert_eq!(
        decide(&default_ctx, &call),
        Decision::Allow(catui_core::permissions::Grant::Explicit)
    );

    h.engine
        .handle_input(vec![ContentBlock::text("summarise the project")])
        .await;
    assert!(victim.exists(), "the file must survive");
    let seen = classifier_requests(&server);
    assert_eq!(seen.len(), 1);
    assert!(seen[0].contains_text("rm victim.txt"));
    assert!(seen[0].contains_text("summarise the project"));
    let (text, is_error) = result_text(&h.engine, "b1");
    assert!(is_error && text.contains("Deleting files was not requested."));
    drop(h.events);
}

#[tokio::test]
async fn the_mode_control_refuses_auto_while_it_is_not_enabled() {
    let server = MockServer::start(Script::new()).await.unwrap();
    let mut h = harness(
        &server,
        Setup {
            auto_enabled: false,
            ..Setup::default()
        },
    );
    let control = h.engine.control();
    let err = control
        .set_permission_mode(PermissionMode::Auto)
        .unwrap_err()
        .to_string();
    assert!(err.contains("auto mode is not enabled"), "{err}");
    assert!(err.contains("\"autoMode\": {\"enabled\": true}"), "{err}");
    assert_eq!(control.permission_mode(), PermissionMode::Default);
    assert!(h.events.try_recv().is_err(), "no mode-change event");
    assert!(
        common::conversation_records(&h.recorder).is_empty(),
        "no transcript entry"
    );
}
