use catui_core::engine::{ResponseInfo, SessionCost};
use catui_protocol::ContentBlock;
use catui_protocol::stream_json::ResultSubtype;
use serde_json::json;

use super::*;

fn assistant(parent: Option<&str>, blocks: Vec<ContentBlock>, input_tokens: u64) -> EngineEvent {
    EngineEvent::Assistant {
        message: Message {
            role: Role::Assistant,
            content: blocks,
        },
        uuid: "u".into(),
        parent_tool_use_id: parent.map(String::from),
        response: ResponseInfo {
            model: "m".into(),
            stop_reason: None,
            usage: Usage {
                input_tokens,
                ..Usage::default()
            },
        },
    }
}

fn tool_end(
    id: &str,
    name: &str,
    display: &str,
    failed: bool,
    parent: Option<&str>,
) -> EngineEvent {
    EngineEvent::ToolEnd {
        id: id.into(),
        name: name.into(),
        display: display.into(),
        is_error: failed,
        failed,
        parent_tool_use_id: parent.map(String::from),
    }
}

fn tool_start(id: &str, name: &str, parent: Option<&str>) -> EngineEvent {
    EngineEvent::ToolStart {
        id: id.into(),
        name: name.into(),
        summary: "s".into(),
        parent_tool_use_id: parent.map(String::from),
    }
}

fn result() -> EngineEvent {
    EngineEvent::Result(TurnOutcome {
        subtype: ResultSubtype::Success,
        is_error: false,
        result: "the answer text".into(),
        num_turns: 2,
        duration_ms: 1,
        usage: Usage::default(),
        cost: SessionCost {
            total_cost_usd: 0.5,
            ..SessionCost::default()
        },
        permission_mode: PermissionMode::Plan,
        plan_file: Some("/home/u/.catui/plans/brave-otter.md".into()),
        view: None,
        structured_output: None,
        left_running: vec![],
        goal: None,
        plan_report: None,
    })
}

fn attr<'a>(span: &'a Span, key: &str) -> Option<&'a Value> {
    span.attrs.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
}

fn str_attr(span: &Span, key: &str) -> String {
    match attr(span, key) {
        Some(Value::Str(s)) => s.clone(),
        other => panic!("{key}: {other:?}"),
    }
}

#[test]
fn a_turn_with_a_sub_agent_nests_its_work_under_the_agent_call() {
    let mut t = Tracker::new("sess", "m", PermissionMode::Default, None, false, 10);
    let events = [
        EngineEvent::UserMessage {
            uuid: "x".into(),
            content: vec![ContentBlock::text("do it PROMPT")],
        },
        assistant(
            None,
            vec![ContentBlock::ToolUse {
                id: "a1".into(),
                name: tool_names::AGENT.into(),
                input: json!({}),
            }],
            100,
        ),
        tool_start("a1", tool_names::AGENT, None),
        assistant(
            Some("a1"),
            vec![ContentBlock::ToolUse {
                id: "w1".into(),
                name: tool_names::WRITE.into(),
                input: json!({"file_path": "/p/new.txt", "content": "a\nb\nc\n"}),
            }],
            7,
        ),
        tool_start("w1", tool_names::WRITE, Some("a1")),
        tool_end(
            "w1",
            tool_names::WRITE,
            "Created /p/new.txt (3 lines)\na",
            false,
            Some("a1"),
        ),
        tool_end("b1", tool_names::BASH, "refused", true, Some("a1")),
        tool_end("a1", tool_names::AGENT, "done", false, None),
        assistant(None, vec![ContentBlock::text("done")], 5),
        result(),
    ];
    for (i, e) in events.iter().enumerate() {
        t.observe(e, 100 + i as u64);
    }
    t.end_session(1000);
    let by_name = |n: &str| t.done.iter().filter(|s| s.name == n).collect::<Vec<_>>();
    let session = by_name("catui.session")[0];
    let turn = by_name("catui.turn")[0];
    assert_eq!(turn.parent, Some(session.span_id));
    assert_eq!(str_attr(turn, "catui.plan.slug"), "brave-otter");
    assert_eq!(str_attr(turn, "catui.permission_mode"), "plan");
    assert_eq!(attr(turn, "catui.cost_usd"), Some(&Value::Double(0.5)));
    let tools = by_name("catui.tool");
    let agent = tools
        .iter()
        .find(|s| str_attr(s, "catui.tool.name") == "Agent")
        .unwrap();
    let write = tools
        .iter()
        .find(|s| str_attr(s, "catui.tool.name") == "Write")
        .unwrap();
    let bash = tools
        .iter()
        .find(|s| str_attr(s, "catui.tool.name") == "Bash")
        .unwrap();
    assert_eq!(agent.parent, Some(turn.span_id));
    assert_eq!(write.parent, Some(agent.span_id));
    assert_eq!(bash.parent, Some(agent.span_id));
    assert_eq!(str_attr(write, "catui.agent.id"), "a1");
    assert_eq!(str_attr(write, "catui.agent.parent_id"), "sess");
    assert_eq!(str_attr(write, "catui.tool.decision"), "allow");
    assert_eq!(attr(write, "catui.lines.added"), Some(&Value::Int(3)));
    assert_eq!(str_attr(bash, "catui.tool.decision"), "deny");
    assert_eq!(bash.error, None, "a refusal is no error");
    let requests = by_name("catui.model_request");
    assert_eq!(requests.len(), 3);
    let sub = requests
        .iter()
        .find(|r| attr(r, "gen_ai.usage.input_tokens") == Some(&Value::Int(7)))
        .unwrap();
    assert_eq!(sub.parent, Some(agent.span_id));
    // It started when the Agent call did (event 2), not before.
    assert_eq!((sub.start_ns, sub.end_ns), (102, 103));
    // No text of the prompt or the answer.
    let all = format!("{:?}", t.done);
    assert!(!all.contains("PROMPT") && !all.contains("the answer text"));
}

#[test]
fn prompts_only_when_asked() {
    let mut t = Tracker::new("sess", "m", PermissionMode::Default, None, true, 1);
    t.observe(
        &EngineEvent::UserMessage {
            uuid: "x".into(),
            content: vec![ContentBlock::text("the PROMPT")],
        },
        2,
    );
    t.observe(&result(), 3);
    let turn = t.done.iter().find(|s| s.name == "catui.turn").unwrap();
    assert_eq!(str_attr(turn, "catui.user_prompt"), "the PROMPT");
}

#[test]
fn diffs_count_from_the_first_hunk() {
    let diff = "--- a\n+++ a\n@@ -1,2 +1,2 @@\n keep\n--- a removed line that began with --\n+new\n+more\n";
    assert_eq!(diff_lines(diff), Some((2, 1)));
    assert_eq!(diff_lines("Created x (3 lines)\n+a"), None);
}
