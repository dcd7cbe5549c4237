//! Scenarios both official Agent SDK suites run (sdk_python.rs, sdk_ts.rs):
//! the mock's script and the checks of what the model was sent live here
//! once; each suite passes its own runner, which starts the SDK's scenario
//! of the same name and returns the JSON facts it printed.

use std::time::Duration;

use catui_testkit::{MockServer, Script, Turn};
use serde_json::{Value, json};

use super::{Sandbox, result_of};

/// Runs the SDK scenario `name` against `server`; returns its facts.
pub type Runner = fn(&Sandbox, &MockServer, &str) -> Value;

/// `query()` one-shot: one request, the answer is the result.
pub fn one_shot(run: Runner) {
    let sb = Sandbox::new();
    let server = super::mock(Script::new().turn(Turn::text("Hello there.")));
    let facts = run(&sb, &server, "one_shot");
    assert_eq!(facts["result"], "Hello there.");
    assert_eq!(server.requests().len(), 1);
}

/// `can_use_tool` denies one write, edits the input of another, and adds a
/// rule that lets the third run without asking.
pub fn can_use_tool(run: Runner) {
    let sb = Sandbox::new();
    let dir = sb.project();
    let path = |n: &str| dir.join(n).to_string_lossy().to_string();
    let server = super::mock(
        Script::new()
            .turn(super::write("w1", path("denied.txt"), "x"))
            .turn(super::write("w2", path("edited.txt"), "from the model"))
            .turn(super::write("w3", path("free.txt"), "no prompt"))
            .turn(Turn::text("done")),
    );
    let facts = run(&sb, &server, "can_use_tool");
    assert_eq!(facts["asked"], 2);
    assert!(!dir.join("denied.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("edited.txt")).unwrap(),
        "edited by the client"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("free.txt")).unwrap(),
        "no prompt"
    );
    let (text, is_error) = result_of(&server.requests()[1], "w1");
    assert!(is_error && text.contains("not that file"), "{text}");
}

/// Plan mode approved through the SDK scenario `name`: the session ends in
/// acceptEdits, the edit after approval lands, the one before is refused.
pub fn plan_approval(run: Runner, name: &str) {
    let sb = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let (script, target) = super::sdk_plan_script(&sb);
    let server = super::mock(script);
    let facts = run(&sb, &server, name);
    assert_eq!(
        facts["modes"].as_array().unwrap().last().unwrap(),
        "acceptEdits"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "built");
    let (early, is_error) = result_of(&server.requests()[1], "early");
    assert!(
        is_error,
        "the edit before approval must be refused: {early}"
    );
}

/// An interrupt stops a slow turn and the next query is answered.
pub fn interrupt(run: Runner) {
    let sb = Sandbox::new();
    let server = super::mock(
        Script::new()
            .turn(Turn::text("slow").delay(Duration::from_secs(30)))
            .turn(Turn::text("back")),
    );
    let facts = run(&sb, &server, "interrupt");
    assert_eq!(facts["second"], "back");
}

/// A `can_use_tool` deny with `interrupt: true`: nothing is written and the
/// model is not asked again. Returns the facts for the SDK's own checks of
/// how it reports the stopped turn.
pub fn deny_interrupts(run: Runner) -> Value {
    let sb = Sandbox::new();
    let target = sb.project().join("out.txt");
    let server = super::mock(
        Script::new()
            .turn(super::write("w", target.to_str().unwrap(), "x"))
            .turn(Turn::text("must not be asked for")),
    );
    let facts = run(&sb, &server, "deny_interrupts");
    assert!(!target.exists());
    // The turn stopped: the model was not asked again.
    assert_eq!(server.requests().len(), 1);
    facts
}

/// An in-process MCP server of the SDK application (`calc`, tools `add`,
/// read-only, and `save`) in plan mode: both tools reach the model; `add`
/// runs in the application, `save` is refused before it gets there.
pub fn sdk_mcp_server(run: Runner) {
    let sb = Sandbox::new();
    let server = super::mock(
        Script::new()
            .turn(Turn::tool_use(
                "a1",
                "mcp__calc__add",
                json!({"a": 2, "b": 3}),
            ))
            .turn(Turn::tool_use(
                "s1",
                "mcp__calc__save",
                json!({"note": "x"}),
            ))
            .turn(Turn::text("added, not saved")),
    );
    let facts = run(&sb, &server, "sdk_mcp");
    // get_mcp_status lists the tools with their read-only annotation.
    assert_eq!(
        facts["tools"],
        json!({"add": true, "save": false}),
        "{facts}"
    );
    assert_eq!(facts["result"], "added, not saved");
    let reqs = server.requests();
    let names = reqs[0].tool_names();
    assert!(
        names.iter().any(|n| n == "mcp__calc__add") && names.iter().any(|n| n == "mcp__calc__save"),
        "{names:?}"
    );
    let (sum, is_error) = result_of(&reqs[1], "a1");
    assert!(!is_error && sum.contains("sum=5"), "{sum}");
    let (save, is_error) = result_of(&reqs[2], "s1");
    assert!(is_error && save.contains("Plan mode is active"), "{save}");
}

/// Runs an SDK client's scenario `name`: `cmd` is the client with its
/// script, arguments and folder; it gets catui's test environment pointed
/// at `server`, then `extra`. Fails the test when the client fails or
/// hangs; returns the JSON facts of its last `{` line.
pub fn run_client(
    mut cmd: std::process::Command,
    sb: &Sandbox,
    server: &MockServer,
    name: &str,
    extra: &[(&str, String)],
) -> Value {
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", sb.dir.path())
        .env("CATUI_BIN", assert_cmd::cargo::cargo_bin("catui"))
        .env("PROJECT", sb.project())
        .env("CATUI_CONFIG_DIR", sb.config())
        .env("CATUI_RETRY_BASE_MS", "1")
        .env("MCP_EVERYTHING", everything_js())
        .env("CATUI_MODEL", "test-model")
        .env("ANTHROPIC_API_KEY", "test-key-not-secret")
        .env("ANTHROPIC_BASE_URL", server.url());
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let out = super::output_within(cmd, b"", 120);
    let stdout = super::stdout(&out);
    let stderr = super::stderr(&out);
    assert!(
        out.status.success(),
        "scenario {name} failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let last = stdout.lines().rev().find(|l| l.starts_with('{'));
    serde_json::from_str(last.unwrap_or("{}")).unwrap()
}

/// The `everything` reference MCP server's entry point (installed by
/// `.ci/mcp-setup`); empty when it is missing (the MCP scenario then fails
/// saying so).
pub fn everything_js() -> String {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if path.exists() {
        path.display().to_string()
    } else {
        String::new()
    }
}

/// A one-shot query with a real stdio MCP server: the first request lists
/// its tools and the model's call to one works.
pub fn mcp_one_shot(run: Runner) {
    assert!(
        !everything_js().is_empty(),
        "the npm MCP servers are missing: run `bash .ci/mcp-setup`"
    );
    let sb = Sandbox::new();
    let server = super::mock(
        Script::new()
            .turn(Turn::tool_use(
                "e1",
                "mcp__ev__echo",
                json!({"message": "from the SDK"}),
            ))
            .turn(Turn::text("echoed")),
    );
    let facts = run(&sb, &server, "mcp_one_shot");
    assert_eq!(facts["result"], "echoed");
    let reqs = server.requests();
    let names = reqs[0].tool_names();
    assert!(names.iter().any(|n| n == "mcp__ev__echo"), "{names:?}");
    let (text, is_error) = result_of(&reqs[1], "e1");
    assert!(!is_error && text.contains("Echo: from the SDK"), "{text}");
}

/// An application's agent type (`reviewer`, read-only tools) is offered
/// by the Agent tool, runs with its own prompt and tools, and runs in plan
/// mode without asking.
pub fn agents(run: Runner) {
    let sb = Sandbox::new();
    let server = super::mock(
        Script::new()
            .turn(super::agent("a1", "review", "Review the code", "reviewer"))
            .turn(Turn::text("no bugs found").when_contains("You review code carefully."))
            .turn(Turn::text("reviewed")),
    );
    let facts = run(&sb, &server, "agents");
    assert_eq!(facts["result"], "reviewed");
    let reqs = server.requests();
    let agent = super::offered_tool(&reqs[0], "Agent").clone();
    assert!(
        agent["description"]
            .as_str()
            .unwrap()
            .contains("reviewer: Reviews code for bugs"),
        "{agent}"
    );
    assert!(
        reqs[1]
            .system_text()
            .starts_with("You review code carefully.")
    );
    let mut names = reqs[1].tool_names();
    names.sort();
    assert_eq!(names, ["Glob", "Grep", "Read"]);
    let (text, is_error) = result_of(&reqs[2], "a1");
    assert!(!is_error && text.contains("no bugs found"), "{text}");
}

/// `output_format`: the schema is the StructuredOutput tool's input schema;
/// a wrong answer is sent back with the error, a right one is the result's
/// `structured_output`.
pub fn structured_output(run: Runner) {
    let sb = Sandbox::new();
    let server = super::mock(
        Script::new()
            .turn(Turn::tool_use(
                "s1",
                "StructuredOutput",
                json!({"answer": "42"}),
            ))
            .turn(Turn::tool_use(
                "s2",
                "StructuredOutput",
                json!({"answer": 42}),
            )),
    );
    let facts = run(&sb, &server, "structured_output");
    assert_eq!(facts["structured"], json!({"answer": 42}));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let tool = super::offered_tool(&reqs[0], "StructuredOutput").clone();
    assert_eq!(
        tool["input_schema"]["properties"]["answer"]["type"],
        "integer"
    );
    let (text, is_error) = result_of(&reqs[1], "s1");
    assert!(is_error && text.contains("/answer"), "{text}");
}

/// `system_prompt` as a string replaces catui's base prompt; the house
/// rules and the environment stay.
pub fn system_prompt_string(run: Runner) {
    let sb = Sandbox::new();
    let server = super::mock(Script::new().turn(Turn::text("ok")));
    let facts = run(&sb, &server, "system_prompt_string");
    assert_eq!(facts["result"], "ok");
    let system = server.requests()[0].system_text();
    assert!(
        system.starts_with("You are a terse SQL reviewer."),
        "{system}"
    );
    super::assert_lacks(&system, "You are catui");
    super::assert_contains(&system, "<system-reminder>");
    super::assert_contains(&system, &sb.project().display().to_string());
}
