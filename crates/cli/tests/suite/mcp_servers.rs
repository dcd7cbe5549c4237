//! The MCP client against real MCP servers: the reference servers
//! `@modelcontextprotocol/server-everything` (stdio and streamable HTTP)
//! and `@modelcontextprotocol/server-filesystem`, installed from npm by
//! `.ci/mcp-setup` (pinned in `tests/mcp/package-lock.json`), driven by the
//! real binary against the testkit mock model.
//!
//! The tests are `#[ignore]`d so a plain `cargo test` does not need Node;
//! `.ci/mcp-setup` runs them with `--run-ignored only`, and they fail (not
//! skip) when the servers are not installed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use catui_testkit::{MockServer, Script, Turn};
use common::{Sandbox, StreamSession, json_lines, result_of};
use serde_json::{Value, json};

/// Where `npm ci` put the servers.
fn servers_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/node_modules/@modelcontextprotocol")
}

fn server_js(package: &str) -> String {
    let path = servers_dir().join(package).join("dist/index.js");
    assert!(
        path.exists(),
        "{} is missing: run `bash .ci/mcp-setup` (npm ci in crates/cli/tests/mcp)",
        path.display()
    );
    path.display().to_string()
}

/// The `everything` server over stdio, as an `mcpServers` entry.
fn everything_stdio() -> Value {
    json!({"command": "node", "args": [server_js("server-everything"), "stdio"]})
}

/// The filesystem server, allowed to touch `root` only.
fn filesystem(root: &std::path::Path) -> Value {
    json!({"command": "node", "args": [server_js("server-filesystem"), root.display().to_string()]})
}

fn config(servers: Value) -> String {
    json!({ "mcpServers": servers }).to_string()
}

/// Waits until the session reports that `server` connected (also when it
/// did before this call).
fn wait_connected(s: &mut StreamSession, server: &str) {
    let needle = format!("MCP server `{server}` connected");
    let is_it = |v: &Value| {
        v["subtype"] == "notification" && v["text"].as_str().is_some_and(|t| t.contains(&needle))
    };
    if s.seen.iter().any(is_it) {
        return;
    }
    s.wait_for("the MCP connected notice", is_it);
}

/// Waits until `server` connects after line `mark` of what was seen (a
/// reconnect, asked for after that line).
fn wait_reconnected(s: &mut StreamSession, server: &str, mark: usize) {
    let needle = format!("MCP server `{server}` connected");
    let is_it = |v: &Value| {
        v["subtype"] == "notification" && v["text"].as_str().is_some_and(|t| t.contains(&needle))
    };
    if s.seen[mark..].iter().any(is_it) {
        return;
    }
    s.wait_for("the MCP connected notice", is_it);
}

/// Runs one prompt in a stream-json session once `server` is connected;
/// returns every line printed.
fn run_prompt(
    sb: &Sandbox,
    mock: &MockServer,
    args: &[&str],
    server: &str,
    prompt: &str,
) -> Vec<Value> {
    let mut s = sb.stream(mock, args);
    wait_connected(&mut s, server);
    s.send_user(prompt);
    s.wait_type("result");
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen:#?}");
    seen
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn stdio_server_tools_are_listed_called_and_reach_the_model() {
    let sb = Sandbox::new();
    let mock = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "t1",
                "mcp__ev__echo",
                json!({"message": "hello from the model"}),
            ))
            .turn(Turn::text("done")),
    );
    let cfg = config(json!({ "ev": everything_stdio() }));
    let seen = run_prompt(
        &sb,
        &mock,
        &["--mcp-config", &cfg, "--allowed-tools", "mcp__ev"],
        "ev",
        "echo it",
    );

    let reqs = mock.requests();
    let names = reqs[0].tool_names();
    assert!(names.iter().any(|n| n == "mcp__ev__echo"), "{names:?}");
    assert!(names.iter().any(|n| n == "mcp__ev__get-sum"), "{names:?}");
    // The server's own schema is what the model sees.
    let echo = common::offered_tool(&reqs[0], "mcp__ev__echo");
    assert!(
        echo["input_schema"]["properties"]["message"].is_object(),
        "{echo}"
    );
    let (text, is_error) = result_of(&reqs[1], "t1");
    assert!(!is_error, "{text}");
    common::assert_contains(&text, "Echo: hello from the model");
    let result = seen.iter().find(|v| v["type"] == "result").unwrap();
    assert_eq!(result["is_error"], false, "{result}");
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn init_reports_servers_and_a_dead_one_does_not_stop_the_session() {
    let sb = Sandbox::new();
    let mock = common::mock(Script::new().turn(Turn::text("still here")));
    let cfg = config(json!({
        "ev": everything_stdio(),
        "dead": {"command": "node", "args": ["-e", "process.exit(3)"]},
    }));
    let mut s = sb.stream(&mock, &["--mcp-config", &cfg]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let servers = init["mcp_servers"].as_array().unwrap();
    let names: Vec<&str> = servers.iter().filter_map(|s| s["name"].as_str()).collect();
    assert!(names.contains(&"ev") && names.contains(&"dead"), "{init}");
    // The failure is shown, and the session goes on.
    s.wait_for("the failure notice", |v| {
        v["subtype"] == "notification" && v["text"].as_str().is_some_and(|t| t.contains("`dead`"))
    });
    wait_connected(&mut s, "ev");
    s.send(json!({"type": "control_request", "request_id": "st", "request": {"subtype": "mcp_status"}}));
    let status = s.wait_for("mcp_status", |v| v["type"] == "control_response");
    let list = status["response"]["response"]["mcpServers"]
        .as_array()
        .unwrap();
    let of = |n: &str| list.iter().find(|s| s["name"] == n).unwrap().clone();
    assert_eq!(of("ev")["status"], "connected", "{status}");
    // Tools as the SDKs list them, with the server's read-only hint.
    let tools = of("ev")["tools"].as_array().unwrap().clone();
    let echo = tools.iter().find(|t| t["name"] == "echo").unwrap();
    assert_eq!(echo["annotations"]["readOnly"], true, "{echo}");
    let toggle = tools
        .iter()
        .find(|t| t["name"] == "toggle-simulated-logging")
        .unwrap();
    assert_eq!(toggle["annotations"]["readOnly"], false, "{toggle}");
    assert_eq!(of("dead")["status"], "failed", "{status}");
    assert!(
        of("dead")["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{status}"
    );
    s.send_user("hi");
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(mock.requests().len(), 1);
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn plan_mode_runs_read_only_tools_and_refuses_writing_ones() {
    let sb = Sandbox::new();
    let root = sb.dir.path().join("shared");
    std::fs::create_dir_all(&root).unwrap();
    let root = std::fs::canonicalize(&root).unwrap();
    std::fs::write(root.join("notes.txt"), "remember the milk").unwrap();
    let notes = root.join("notes.txt").display().to_string();
    let target = root.join("new.txt");
    let mock = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "r1",
                "mcp__fs__read_text_file",
                json!({"path": notes}),
            ))
            .turn(Turn::tool_use(
                "w1",
                "mcp__fs__write_file",
                json!({"path": target.display().to_string(), "content": "x"}),
            ))
            .turn(Turn::tool_use(
                "e1",
                "mcp__ev__toggle-simulated-logging",
                json!({}),
            ))
            .turn(Turn::text("planned")),
    );
    let cfg = config(json!({ "fs": filesystem(&root), "ev": everything_stdio() }));
    let mut s = sb.stream(
        &mock,
        &[
            "--mcp-config",
            &cfg,
            "--permission-mode",
            "plan",
            "--allowed-tools",
            "mcp__fs,mcp__ev",
        ],
    );
    wait_connected(&mut s, "fs");
    wait_connected(&mut s, "ev");
    s.send_user("look around");
    s.wait_type("result");
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen:#?}");

    let reqs = mock.requests();
    let (read, read_err) = result_of(&reqs[1], "r1");
    assert!(!read_err && read.contains("remember the milk"), "{read}");
    // Even an allow rule does not open a write in plan mode.
    let (write, write_err) = result_of(&reqs[2], "w1");
    assert!(write_err, "{write}");
    common::assert_contains(&write, "Plan mode is active");
    assert!(!target.exists(), "the write happened in plan mode");
    let (toggle, toggle_err) = result_of(&reqs[3], "e1");
    assert!(
        toggle_err && toggle.contains("Plan mode is active"),
        "{toggle}"
    );
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn a_read_only_override_in_the_config_wins_over_the_server() {
    let sb = Sandbox::new();
    let mock = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "e1",
                "mcp__ev__echo",
                json!({"message": "m"}),
            ))
            .turn(Turn::text("ok")),
    );
    // The user says echo is not read-only: plan mode must refuse it.
    let mut server = everything_stdio();
    server["readOnly"] = json!({"echo": false});
    let cfg = config(json!({ "ev": server }));
    run_prompt(
        &sb,
        &mock,
        &[
            "--mcp-config",
            &cfg,
            "--permission-mode",
            "plan",
            "--allowed-tools",
            "mcp__ev",
        ],
        "ev",
        "go",
    );
    let (text, is_error) = result_of(&mock.requests()[1], "e1");
    assert!(is_error && text.contains("Plan mode is active"), "{text}");
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn a_deny_rule_on_one_mcp_tool_wins_over_allowing_the_server() {
    let sb = Sandbox::new();
    let mock = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "s1",
                "mcp__ev__get-sum",
                json!({"a": 2, "b": 3}),
            ))
            .turn(Turn::tool_use(
                "e1",
                "mcp__ev__echo",
                json!({"message": "still allowed"}),
            ))
            .turn(Turn::text("ok")),
    );
    let cfg = config(json!({ "ev": everything_stdio() }));
    run_prompt(
        &sb,
        &mock,
        &[
            "--mcp-config",
            &cfg,
            "--allowed-tools",
            "mcp__ev",
            "--disallowed-tools",
            "mcp__ev__get-sum",
        ],
        "ev",
        "go",
    );
    let reqs = mock.requests();
    let (sum, sum_err) = result_of(&reqs[1], "s1");
    assert!(sum_err, "{sum}");
    assert!(!sum.contains('5'), "the denied tool ran: {sum}");
    let (echo, echo_err) = result_of(&reqs[2], "e1");
    assert!(!echo_err && echo.contains("Echo: still allowed"), "{echo}");
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn without_a_rule_an_mcp_tool_asks_first() {
    let sb = Sandbox::new();
    let mock = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "e1",
                "mcp__ev__echo",
                json!({"message": "m"}),
            ))
            .turn(Turn::tool_use(
                "e2",
                "mcp__ev__echo",
                json!({"message": "second"}),
            ))
            .turn(Turn::text("ok")),
    );
    let cfg = config(json!({ "ev": everything_stdio() }));
    let mut s = sb.stream(&mock, &["--mcp-config", &cfg]);
    wait_connected(&mut s, "ev");
    s.send_user("go");
    let ask = s.wait_for("the permission request", |v| {
        v["request"]["subtype"] == "can_use_tool"
    });
    assert_eq!(ask["request"]["tool_name"], "mcp__ev__echo", "{ask}");
    let id = ask["request_id"].as_str().unwrap().to_string();
    s.send(
        json!({"type":"control_response","response":{"subtype":"success","request_id":id,
        "response":{"behavior":"deny","message":"not that one"}}}),
    );
    let ask = s.wait_for("the second request", |v| {
        v["request"]["subtype"] == "can_use_tool"
    });
    let id = ask["request_id"].as_str().unwrap().to_string();
    s.send(
        json!({"type":"control_response","response":{"subtype":"success","request_id":id,
        "response":{"behavior":"allow","updatedInput":{"message": "second"}}}}),
    );
    s.wait_type("result");
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen:#?}");
    let reqs = mock.requests();
    let (denied, denied_err) = result_of(&reqs[1], "e1");
    assert!(denied_err && !denied.contains("Echo: m"), "{denied}");
    let (allowed, allowed_err) = result_of(&reqs[2], "e2");
    assert!(
        !allowed_err && allowed.contains("Echo: second"),
        "{allowed}"
    );
}

/// The `everything` server in streamable HTTP mode on a free port.
struct HttpServer {
    child: Child,
    port: u16,
}

impl HttpServer {
    fn start() -> HttpServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("node")
            .args([server_js("server-everything"), "streamableHttp".into()])
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "the HTTP MCP server did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        HttpServer { child, port }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn streamable_http_server_with_a_header_from_the_environment() {
    let http = HttpServer::start();
    let sb = Sandbox::new();
    let mock = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "t1",
                "mcp__web__get-sum",
                json!({"a": 20, "b": 22}),
            ))
            .turn(Turn::text("done")),
    );
    let cfg = config(json!({ "web": {
        "type": "http",
        "url": format!("http://127.0.0.1:{}/mcp", http.port),
        "headers": {"Authorization": "Bearer ${MCP_TEST_TOKEN}"},
    }}));
    let mut cmd = sb.catui(&mock);
    cmd.env("MCP_TEST_TOKEN", "token-from-env-7781");
    let mut s = StreamSession::start(cmd, &["--mcp-config", &cfg, "--allowed-tools", "mcp__web"]);
    wait_connected(&mut s, "web");
    s.send_user("add");
    s.wait_type("result");
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen:#?}");
    let (text, is_error) = result_of(&mock.requests()[1], "t1");
    assert!(!is_error && text.contains("42"), "{text}");
    // The token is used, never written down.
    for t in sb.transcripts() {
        let body = std::fs::read_to_string(t).unwrap();
        assert!(!body.contains("token-from-env-7781"));
    }
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn a_projects_mcp_json_needs_approval_then_starts() {
    let sb = Sandbox::new();
    sb.write(".mcp.json", &config(json!({ "ev": everything_stdio() })));

    // Not approved yet: the server does not start, and the user is told how.
    let mock = common::mock(Script::new().turn(Turn::text("no tools")));
    let mut s = sb.stream(&mock, &[]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let ev = init["mcp_servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "ev")
        .unwrap()
        .clone();
    // The SDKs' status names, with catui's own state beside them.
    assert_eq!(ev["status"], "pending", "{init}");
    assert_eq!(ev["state"], "needs-approval", "{init}");
    assert!(
        ev["error"]
            .as_str()
            .unwrap()
            .contains("catui mcp approve ev"),
        "{init}"
    );
    s.send_user("hi");
    s.wait_type("result");
    let (_, seen) = s.finish();
    let told = seen.iter().any(|v| {
        v["subtype"] == "notification"
            && v["text"]
                .as_str()
                .is_some_and(|t| t.contains("catui mcp approve"))
    });
    assert!(told, "{seen:#?}");
    assert!(
        !mock.requests()[0]
            .tool_names()
            .iter()
            .any(|n| n.starts_with("mcp__"))
    );

    let list = sb.bare().args(["mcp", "list"]).output().unwrap();
    let listed = common::stdout(&list);
    common::assert_contains(&listed, "ev\tproject\tneeds approval");
    let approve = sb.bare().args(["mcp", "approve", "ev"]).output().unwrap();
    assert!(approve.status.success(), "{approve:?}");

    // Approved: remembered for this project.
    let mock = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "t1",
                "mcp__ev__echo",
                json!({"message": "approved"}),
            ))
            .turn(Turn::text("ok")),
    );
    run_prompt(&sb, &mock, &["--allowed-tools", "mcp__ev"], "ev", "go");
    let (text, _) = result_of(&mock.requests()[1], "t1");
    common::assert_contains(&text, "Echo: approved");

    // `--strict-mcp-config` ignores the project's file.
    let mock = common::mock(Script::new().turn(Turn::text("strict")));
    let out = sb.run(
        &mock,
        [
            "-p",
            "hi",
            "--output-format",
            "stream-json",
            "--strict-mcp-config",
            "--verbose",
        ],
    );
    let lines = json_lines(&out.stdout);
    let init = lines.iter().find(|v| v["subtype"] == "init").unwrap();
    assert_eq!(init["mcp_servers"], json!([]), "{init}");
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn resources_are_read_through_a_read_only_tool_even_in_plan_mode() {
    let sb = Sandbox::new();
    let mock = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "l1",
                "ListMcpResourcesTool",
                json!({"server": "ev"}),
            ))
            .turn(Turn::respond(|r| {
                // Read the first resource the list showed.
                let (list, _) = r
                    .tool_result("l1")
                    .map(|t| (t.content, t.is_error))
                    .unwrap();
                let uri = list
                    .split(|c: char| c.is_whitespace() || c == '"' || c == ',')
                    .find(|w| w.contains("://"))
                    .unwrap_or("missing://uri")
                    .to_string();
                Turn::tool_use(
                    "r1",
                    "ReadMcpResourceTool",
                    json!({"server": "ev", "uri": uri}),
                )
            }))
            .turn(Turn::text("read")),
    );
    let cfg = config(json!({ "ev": everything_stdio() }));
    run_prompt(
        &sb,
        &mock,
        &["--mcp-config", &cfg, "--permission-mode", "plan"],
        "ev",
        "resources?",
    );
    let reqs = mock.requests();
    let (list, list_err) = result_of(&reqs[1], "l1");
    assert!(!list_err && list.contains("://"), "{list}");
    let (read, read_err) = result_of(&reqs[2], "r1");
    assert!(!read_err, "{read}");
    assert!(!read.trim().is_empty());
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn mcp_view_and_prompts_as_slash_commands() {
    let sb = Sandbox::new();
    let mock = common::mock(Script::new().turn(Turn::text("prompted")));
    let cfg = config(json!({ "ev": everything_stdio() }));
    let mut s = sb.stream(&mock, &["--mcp-config", &cfg]);
    wait_connected(&mut s, "ev");
    s.send_user("/mcp");
    let view = s.wait_type("result");
    let text = view["result"].as_str().unwrap();
    common::assert_contains(text, "ev (flag) — connected, 13 tools");
    common::assert_contains(text, "prompts");
    s.send_user("/mcp disable ev");
    let off = s.wait_type("result");
    assert!(
        off["result"].as_str().unwrap().contains("disabled"),
        "{off}"
    );
    s.send_user("/mcp");
    let view = s.wait_type("result");
    assert!(
        view["result"]
            .as_str()
            .unwrap()
            .contains("ev (flag) — disabled"),
        "{view}"
    );
    let mark = s.seen.len();
    s.send_user("/mcp enable ev");
    s.wait_type("result");
    wait_reconnected(&mut s, "ev", mark);
    s.send_user("/mcp__ev__args-prompt Paris");
    s.wait_type("result");
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen:#?}");
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 1, "only the prompt reaches the model");
    let asked = reqs[0].last_user_text().unwrap_or_default();
    assert!(
        asked.contains("What's weather in Paris"),
        "the prompt's text did not reach the model: {asked}"
    );
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn a_server_that_dies_mid_session_is_reported_and_reconnects() {
    let sb = Sandbox::new();
    let pid_file = sb.dir.path().join("server.pid");
    let mock = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "e1",
                "mcp__ev__echo",
                json!({"message": "while gone"}),
            ))
            .turn(Turn::text("first"))
            .turn(Turn::tool_use(
                "e2",
                "mcp__ev__echo",
                json!({"message": "back again"}),
            ))
            .turn(Turn::text("second")),
    );
    // The real server, started through a shell that notes its pid.
    let cfg = config(json!({ "ev": {
        "command": "bash",
        "args": ["-c", format!("echo $$ > {}; exec node {} stdio", pid_file.display(), server_js("server-everything"))],
    }}));
    let mut s = sb.stream(&mock, &["--mcp-config", &cfg, "--allowed-tools", "mcp__ev"]);
    wait_connected(&mut s, "ev");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(
        Command::new("kill")
            .args(["-9", pid.trim()])
            .status()
            .unwrap()
            .success()
    );
    s.wait_for("the stopped notice", |v| {
        v["subtype"] == "notification"
            && v["text"]
                .as_str()
                .is_some_and(|t| t.contains("`ev`: the server stopped"))
    });
    // A call to the dead server fails cleanly; the session goes on.
    s.send_user("echo");
    s.wait_type("result");
    let mark = s.seen.len();
    s.send(json!({"type": "control_request", "request_id": "rc",
        "request": {"subtype": "mcp_reconnect", "serverName": "ev"}}));
    let answer = s.wait_for("the reconnect answer", |v| v["type"] == "control_response");
    assert_eq!(answer["response"]["subtype"], "success", "{answer}");
    wait_reconnected(&mut s, "ev", mark);
    s.send_user("again");
    s.wait_type("result");
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen:#?}");
    let reqs = mock.requests();
    let (gone, gone_err) = result_of(&reqs[1], "e1");
    assert!(gone_err, "{gone}");
    let (back, back_err) = result_of(&reqs[3], "e2");
    assert!(!back_err && back.contains("Echo: back again"), "{back}");
}

/// The server whose tools change while it runs (tests/mcp/changing-server.mjs,
/// on the official SDK that server-everything brings).
fn changing_server() -> Value {
    // server_js checks that the npm servers are installed.
    server_js("server-everything");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/changing-server.mjs");
    json!({"command": "node", "args": [script.display().to_string()]})
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn a_one_shot_run_offers_the_servers_tools_in_its_first_request() {
    let sb = Sandbox::new();
    let mock = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "t1",
                "mcp__ev__echo",
                json!({"message": "first thing"}),
            ))
            .turn(Turn::text("echoed")),
    );
    let cfg = config(json!({ "ev": everything_stdio() }));
    // No waiting for a "connected" notice: `-p` sends its first request
    // once the server is ready.
    let mut cmd = sb.catui(&mock);
    cmd.args([
        "-p",
        "echo it",
        "--mcp-config",
        &cfg,
        "--allowed-tools",
        "mcp__ev",
    ]);
    let out = common::output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(common::stdout(&out).trim(), "echoed");
    let reqs = mock.requests();
    let names = reqs[0].tool_names();
    assert!(names.iter().any(|n| n == "mcp__ev__echo"), "{names:?}");
    let (text, is_error) = result_of(&reqs[1], "t1");
    assert!(!is_error && text.contains("Echo: first thing"), "{text}");
}

#[test]
#[ignore = "needs the npm MCP servers: bash .ci/mcp-setup"]
fn tools_a_server_adds_while_running_reach_the_next_request() {
    let sb = Sandbox::new();
    let mock = common::mock(
        Script::new()
            .turn(Turn::tool_use("a1", "mcp__chg__add_tool", json!({})))
            .turn(Turn::text("added"))
            .turn(Turn::tool_use("l1", "mcp__chg__late_tool", json!({})))
            .turn(Turn::text("used it")),
    );
    let cfg = config(json!({ "chg": changing_server() }));
    let mut s = sb.stream(
        &mock,
        &["--mcp-config", &cfg, "--allowed-tools", "mcp__chg"],
    );
    s.send_user("add a tool");
    s.wait_type("result");
    let changed = |v: &Value| {
        v["subtype"] == "notification"
            && v["text"]
                .as_str()
                .is_some_and(|t| t.contains("`chg`: its tools changed"))
    };
    if !s.seen.iter().any(changed) {
        s.wait_for("the tools-changed notice", changed);
    }
    s.send_user("use it");
    s.wait_type("result");
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen:#?}");
    let reqs = mock.requests();
    assert!(
        !reqs[0]
            .tool_names()
            .contains(&"mcp__chg__late_tool".to_string())
    );
    assert!(
        reqs[2]
            .tool_names()
            .contains(&"mcp__chg__late_tool".to_string()),
        "{:?}",
        reqs[2].tool_names()
    );
    let (text, is_error) = result_of(&reqs[3], "l1");
    assert!(!is_error && text.contains("late tool ran"), "{text}");
}

/// Needs no npm server: a stdio server that never answers the handshake
/// delays the first request by its startup timeout at most, is reported,
/// and does not outlive catui.
#[test]
fn a_server_stuck_in_its_handshake_delays_the_first_request_by_its_timeout_at_most() {
    let sb = Sandbox::new();
    let pid_file = sb.dir.path().join("stuck.pid");
    let cfg = config(json!({ "stuck": {
        "command": "bash",
        "args": ["-c", format!("echo $$ > {}; exec sleep 600", pid_file.display())],
        "startupTimeoutMs": 1500,
    }}));
    let mock = common::mock(Script::new().turn(Turn::text("answered anyway")));
    let mut cmd = sb.catui(&mock);
    cmd.args([
        "-p",
        "hi",
        "--output-format",
        "stream-json",
        "--verbose",
        "--mcp-config",
        &cfg,
    ]);
    let started = Instant::now();
    let out = common::output_within(cmd, b"", 60);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = json_lines(&out.stdout);
    let failed = lines
        .iter()
        .position(|v| {
            v["subtype"] == "notification"
                && v["text"].as_str().is_some_and(|t| {
                    t.contains("`stuck`") && t.contains("did not finish starting within 1.5 s")
                })
        })
        .unwrap_or_else(|| panic!("no failure notice in {lines:#?}"));
    let answered = lines.iter().position(|v| v["type"] == "assistant").unwrap();
    // It waited for the server (the failure came before the answer), but
    // not for the 30 s default.
    assert!(failed < answered, "{lines:#?}");
    assert!(took < Duration::from_secs(25), "took {took:?}");
    let result = lines.iter().find(|v| v["type"] == "result").unwrap();
    assert_eq!(result["result"], "answered anyway");
    assert_gone(&pid_file);
}

/// `MCP_TIMEOUT` sets the startup timeout of servers that name none, and a
/// plain `-p` run says on stderr which server failed.
#[test]
fn mcp_timeout_bounds_the_wait_and_text_output_names_the_server() {
    let sb = Sandbox::new();
    let pid_file = sb.dir.path().join("stuck.pid");
    let cfg = config(json!({ "stuck": {
        "command": "bash",
        "args": ["-c", format!("echo $$ > {}; exec sleep 600", pid_file.display())],
    }}));
    let mock = common::mock(Script::new().turn(Turn::text("answered anyway")));
    let mut cmd = sb.catui(&mock);
    cmd.env("MCP_TIMEOUT", "800")
        .args(["-p", "hi", "--mcp-config", &cfg]);
    let out = common::output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(common::stdout(&out).trim(), "answered anyway");
    let stderr = common::stderr(&out);
    assert!(
        stderr.contains("MCP server `stuck` failed to connect") && stderr.contains("800 ms"),
        "{stderr}"
    );
    assert_gone(&pid_file);
}

/// The process whose pid is in `pid_file` ended (with catui at the latest).
fn assert_gone(pid_file: &std::path::Path) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !pid_file.exists() {
        assert!(Instant::now() < deadline, "the server never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = std::fs::read_to_string(pid_file).unwrap();
    let pid = pid.trim();
    // Gone with catui (a zombie reaped by init at most a moment later).
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let alive = Command::new("kill")
            .args(["-0", pid])
            .status()
            .unwrap()
            .success();
        if !alive {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the MCP server {pid} outlived catui"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
