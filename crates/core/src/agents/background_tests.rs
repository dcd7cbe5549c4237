use std::sync::Arc;

use async_trait::async_trait;
use catui_protocol::{PermissionMode, Usage};
use tokio::sync::Notify;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::*;
use crate::agents::AgentRunner;

/// A runner whose agent waits for `open` (or its cancellation), then
/// reports or fails.
struct Gated {
    open: Arc<Notify>,
    fail: bool,
}

#[async_trait]
impl AgentRunner for Gated {
    async fn run(
        &self,
        request: AgentRequest,
        ctx: &ToolContext,
    ) -> Result<AgentReport, ToolError> {
        tokio::select! {
            _ = self.open.notified() => {}
            _ = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
        }
        if self.fail {
            return Err(ToolError::failed("the model could not be reached"));
        }
        Ok(AgentReport {
            agent_id: "a1b2c3d4".into(),
            text: format!("report for {}", request.prompt),
            usage: Usage {
                input_tokens: 10,
                output_tokens: 5,
                ..Default::default()
            },
            turns: 2,
            tool_uses: 3,
            duration_ms: 1,
        })
    }
}

struct Setup {
    list: Arc<BackgroundAgents>,
    events: UnboundedReceiver<EngineEvent>,
    open: Arc<Notify>,
    runner: AgentsHandle,
    _events_tx: tokio::sync::mpsc::UnboundedSender<EngineEvent>,
    _dir: tempfile::TempDir,
}

fn setup(fail: bool) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let (tx, events) = unbounded_channel();
    let open = Arc::new(Notify::new());
    Setup {
        list: Arc::new(BackgroundAgents::new(dir.path().to_path_buf(), tx.clone())),
        _events_tx: tx,
        events,
        runner: AgentsHandle(Arc::new(Gated {
            open: open.clone(),
            fail,
        })),
        open,
        _dir: dir,
    }
}

fn request(prompt: &str) -> AgentRequest {
    AgentRequest {
        subagent_type: "Explore".into(),
        description: "look around".into(),
        prompt: prompt.into(),
        model: None,
        parent_tool_use_id: "toolu_9".into(),
    }
}

async fn ended(list: &BackgroundAgents) {
    let mut ends = list.watch_ends();
    while list.running() > 0 {
        ends.changed().await.unwrap();
    }
}

/// What the main conversation's next request would be reminded of.
fn reminders(list: &Arc<BackgroundAgents>) -> Vec<String> {
    let provider = BackgroundAgentsExtension(list.clone())
        .attachment_provider()
        .unwrap();
    let ctx = AttachmentContext {
        mode: PermissionMode::Default,
        messages: &[],
        is_human_turn: true,
        agent_id: None,
        tools: &[],
        dry_run: false,
    };
    provider
        .attachments(&ctx)
        .into_iter()
        .map(|a| match a {
            Attachment::Reminder { text } => text,
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn a_finished_agent_wakes_the_idle_conversation_once_with_its_report() {
    let mut s = setup(false);
    let ctx = ToolContext::new(std::env::temp_dir());
    let task = s
        .list
        .start(s.runner.clone(), request("find the parser"), &ctx);
    assert_eq!(task.id, "agent_1");
    match s.events.recv().await.unwrap() {
        EngineEvent::TaskStarted(start) => {
            assert_eq!(start.task_id, "agent_1");
            assert_eq!(start.task_type, "local_agent");
            assert_eq!(start.tool_use_id.as_deref(), Some("toolu_9"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.list.running(), 1);
    assert_eq!(s.list.take_wake_up(), None, "nothing ended yet");
    assert!(reminders(&s.list).is_empty());

    s.open.notify_one();
    ended(&s.list).await;
    match s.events.recv().await.unwrap() {
        EngineEvent::TaskEnded(end) => {
            assert_eq!(end.status, TaskStatus::Completed);
            assert_eq!(end.usage.total_tokens, 15);
            assert_eq!(end.usage.tool_uses, 3);
            assert_eq!(
                std::fs::read_to_string(&end.output_file).unwrap(),
                "report for find the parser"
            );
            // A sub-agent's report is for the model, not shown to the user.
            assert_eq!(end.report, None);
        }
        other => panic!("{other:?}"),
    }
    let wake = s.list.take_wake_up().unwrap();
    assert!(
        wake.contains("agent_1") && wake.contains("report for find the parser"),
        "{wake}"
    );
    assert_eq!(s.list.take_wake_up(), None, "told once");
    assert!(reminders(&s.list).is_empty(), "told once");
}

#[tokio::test]
async fn an_end_the_idle_conversation_did_not_take_goes_with_the_next_request() {
    let s = setup(false);
    let ctx = ToolContext::new(std::env::temp_dir());
    s.list
        .start(s.runner.clone(), request("find the lexer"), &ctx);
    s.open.notify_one();
    ended(&s.list).await;
    let told = reminders(&s.list);
    assert_eq!(told.len(), 1);
    assert!(told[0].contains("report for find the lexer"), "{}", told[0]);
    assert_eq!(s.list.take_wake_up(), None);
}

#[tokio::test]
async fn stop_ends_a_running_agent_and_errors_name_what_there_is() {
    let s = setup(false);
    let ctx = ToolContext::new(std::env::temp_dir());
    assert_eq!(
        s.list.stop("agent_1").unwrap_err().to_string(),
        "there is no background task agent_1 (none has been started)"
    );
    s.list.start(s.runner.clone(), request("wait"), &ctx);
    s.list.stop(" agent_1 ").unwrap();
    ended(&s.list).await;
    assert_eq!(
        s.list.get("agent_1").unwrap().status(),
        Some(TaskStatus::Stopped)
    );
    assert_eq!(
        s.list.stop("agent_1").unwrap_err(),
        StopError::Ended {
            id: "agent_1".into(),
            status: "stopped"
        }
    );
    assert_eq!(
        s.list.stop("agent_7").unwrap_err().to_string(),
        "there is no background task agent_7 (the session's tasks: agent_1)"
    );
    // The user stopped it: no turn of its own, but the model hears of it.
    assert_eq!(s.list.take_wake_up(), None);
    let told = reminders(&s.list);
    assert!(told[0].contains("the user stopped it"), "{}", told[0]);
}

#[tokio::test]
async fn interrupting_the_turn_that_started_it_does_not_stop_it() {
    let s = setup(false);
    let ctx = ToolContext::new(std::env::temp_dir());
    s.list.start(s.runner.clone(), request("keep going"), &ctx);
    ctx.cancel.cancel();
    tokio::task::yield_now().await;
    assert_eq!(s.list.running(), 1);
    s.open.notify_one();
    ended(&s.list).await;
    assert_eq!(
        s.list.get("agent_1").unwrap().status(),
        Some(TaskStatus::Completed)
    );
}

#[tokio::test]
async fn a_failed_agent_says_why_and_stop_all_ends_the_rest() {
    let s = setup(true);
    let ctx = ToolContext::new(std::env::temp_dir());
    s.list.start(s.runner.clone(), request("one"), &ctx);
    s.open.notify_one();
    ended(&s.list).await;
    let wake = s.list.take_wake_up().unwrap();
    assert!(
        wake.contains("failed: the model could not be reached"),
        "{wake}"
    );
    s.list.start(s.runner.clone(), request("two"), &ctx);
    s.list.stop_all(std::time::Duration::from_secs(10)).await;
    assert_eq!(s.list.running(), 0);
    assert_eq!(
        s.list.get("agent_2").unwrap().status(),
        Some(TaskStatus::Stopped)
    );
}
