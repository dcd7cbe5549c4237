use std::io::Write;

use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::*;

fn started(dir: &Path) -> DispatchStarted {
    DispatchStarted {
        slug: "tiny".into(),
        branch: "catui/tiny".into(),
        worktree: dir.join("wt").display().to_string(),
        log: dir.join("wt.log").display().to_string(),
        events: dir.join("wt.events.jsonl").display().to_string(),
        message: "Plan tiny handed to a background agent.".into(),
    }
}

fn append(path: &str, text: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

fn line(event: &DispatchEvent) -> String {
    format!("{}\n", serde_json::to_string(event).unwrap())
}

async fn next(events: &mut UnboundedReceiver<EngineEvent>) -> EngineEvent {
    tokio::time::timeout(Duration::from_secs(10), events.recv())
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test]
async fn the_events_file_becomes_task_lines_and_its_end_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let (tx, mut events) = unbounded_channel();
    // The list holds its sender weakly.
    let list = Arc::new(BackgroundAgents::new(dir.path().to_path_buf(), tx.clone()));
    let s = started(dir.path());
    std::fs::File::create(&s.events).unwrap();
    let task = list.follow_dispatch(s.clone(), Some("toolu_x".into()));
    match next(&mut events).await {
        EngineEvent::TaskStarted(start) => {
            assert_eq!(start.task_id, task.id);
            assert_eq!(start.subagent_type.as_deref(), Some(DISPATCHED_PLAN));
            assert_eq!(start.tool_use_id.as_deref(), Some("toolu_x"));
            assert!(start.description.contains("plan tiny"), "{start:?}");
        }
        other => panic!("{other:?}"),
    }
    // Our own pid: a process that runs.
    append(
        &s.events,
        &line(&DispatchEvent::Started {
            pid: std::process::id(),
        }),
    );
    let progress = line(&DispatchEvent::Progress {
        usage: TaskUsage {
            total_tokens: 40,
            tool_uses: 1,
            duration_ms: 5,
        },
        last_tool_name: Some("Write".into()),
        todos_done: 1,
        todos_total: 2,
    });
    // Half a line is not read until the rest comes.
    let (head, tail) = progress.split_at(10);
    append(&s.events, head);
    tokio::time::sleep(POLL * 3).await;
    assert!(events.try_recv().is_err(), "nothing from half a line");
    append(&s.events, tail);
    match next(&mut events).await {
        EngineEvent::TaskProgress(p) => {
            assert_eq!(p.task_id, task.id);
            assert_eq!(p.last_tool_name.as_deref(), Some("Write"));
            assert_eq!(p.usage.total_tokens, 40);
            assert!(p.description.ends_with("(1/2 steps done)"), "{p:?}");
        }
        other => panic!("{other:?}"),
    }
    append(
        &s.events,
        &line(&DispatchEvent::Ended {
            status: TaskStatus::Completed,
            headline: "Plan tiny: goal met. Review: git diff main...catui/tiny".into(),
            summary: "Plan tiny: goal met.\nReview: git diff main...catui/tiny\n".into(),
            usage: TaskUsage::default(),
        }),
    );
    match next(&mut events).await {
        EngineEvent::TaskEnded(end) => {
            assert_eq!(end.status, TaskStatus::Completed);
            assert_eq!(
                end.summary,
                "Plan tiny: goal met. Review: git diff main...catui/tiny"
            );
            let report = std::fs::read_to_string(&end.output_file).unwrap();
            assert!(report.contains("Review: git diff main...catui/tiny"));
            // Written for the user: the end carries it, for the front end
            // to show as it happens.
            assert_eq!(
                end.report.as_deref(),
                Some("Plan tiny: goal met.\nReview: git diff main...catui/tiny\n")
            );
        }
        other => panic!("{other:?}"),
    }
    let wake = list.take_wake_up().unwrap();
    assert!(
        wake.contains("Review: git diff main...catui/tiny"),
        "{wake}"
    );
}

#[tokio::test]
async fn an_agent_gone_without_an_end_fails_the_task() {
    let dir = tempfile::tempdir().unwrap();
    let (tx, mut events) = unbounded_channel();
    // The list holds its sender weakly.
    let list = Arc::new(BackgroundAgents::new(dir.path().to_path_buf(), tx.clone()));
    let s = started(dir.path());
    // A process that has already exited (and been reaped).
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    append(&s.events, &line(&DispatchEvent::Started { pid }));
    list.follow_dispatch(s, None);
    loop {
        if let EngineEvent::TaskEnded(end) = next(&mut events).await {
            assert_eq!(end.status, TaskStatus::Failed);
            break;
        }
    }
    let wake = list.take_wake_up().unwrap();
    assert!(wake.contains("ended without a summary"), "{wake}");
}
