//! `catui-mock`: the testkit mock model server as a separate process, for
//! benchmarks (bench/run.sh). It answers every request, forever, on
//! loopback only, and prints its base URL on the first line of stdout.
//!
//! ```text
//! catui-mock [--port N] [--latency-ms MS] [--agents N] [--small-model NAME]
//!            [--tool-turns N [--tool-file PATH]] [--teammates N]
//! ```
//! Without `--agents` or `--tool-turns`: every request gets a short text
//! answer. With `--agents N`: the main model's first request gets N
//! parallel Explore Agent calls, each agent (on the small model) answers
//! with text, and the main model then ends the turn. With `--tool-turns N`:
//! a long session in one prompt: the model reads `--tool-file` (default
//! `bench.txt`, relative to the working directory) N times, one Read call
//! per answer, then ends; it reports a small prompt size so that automatic
//! compaction never starts and the whole conversation stays in memory (a
//! summary request, which carries no tools, still gets a summary).
//! With `--teammates N`: the lead's first request gets a TeamCreate of N
//! members (`m1`..`mN`); each teammate sends the lead one message and
//! ends; the lead answers everything else with text.
//! `--latency-ms` delays every answer. Requests are not kept (the mock
//! runs for many sessions).

use catui_protocol::tool_names;
use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use catui_testkit::{Block, MockServer, Script, Turn};
use serde_json::json;

struct Options {
    port: u16,
    latency: Duration,
    agents: usize,
    small_model: String,
    tool_turns: usize,
    tool_file: String,
    teammates: usize,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        port: 0,
        latency: Duration::ZERO,
        agents: 0,
        small_model: "bench-small".into(),
        tool_turns: 0,
        tool_file: "bench.txt".into(),
        teammates: 0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--port" => o.port = value()?.parse().map_err(|e| format!("--port: {e}"))?,
            "--latency-ms" => {
                let ms: u64 = value()?.parse().map_err(|e| format!("--latency-ms: {e}"))?;
                o.latency = Duration::from_millis(ms);
            }
            "--agents" => o.agents = value()?.parse().map_err(|e| format!("--agents: {e}"))?,
            "--small-model" => o.small_model = value()?,
            "--tool-turns" => {
                o.tool_turns = value()?.parse().map_err(|e| format!("--tool-turns: {e}"))?
            }
            "--tool-file" => o.tool_file = value()?,
            "--teammates" => {
                o.teammates = value()?.parse().map_err(|e| format!("--teammates: {e}"))?
            }
            "-h" | "--help" => {
                return Err(
                    "usage: catui-mock [--port N] [--latency-ms MS] [--agents N] \
                     [--small-model NAME] [--tool-turns N [--tool-file PATH]] [--teammates N]"
                        .into(),
                );
            }
            other => return Err(format!("unknown option {other}; see --help")),
        }
    }
    Ok(o)
}

fn script(o: &Options) -> Script {
    if o.tool_turns > 0 {
        return tool_loop(o);
    }
    if o.teammates > 0 {
        return team(o);
    }
    if o.agents == 0 {
        return Script::new().turn(
            Turn::text("Hello from the mock.")
                .delay(o.latency)
                .forever(),
        );
    }
    let agents = (1..=o.agents)
        .map(|i| Block::ToolUse {
            id: format!("agent{i}"),
            name: tool_names::AGENT.into(),
            input: json!({"description": format!("look {i}"), "prompt": format!("Look at area {i}"), "subagent_type": "Explore"}),
        })
        .collect();
    let small = o.small_model.clone();
    let small2 = o.small_model.clone();
    let small3 = o.small_model.clone();
    Script::new()
        .turn(
            Turn::blocks(agents)
                .delay(o.latency)
                .when(move |r| r.model() != small && r.tool_results().is_empty())
                .forever(),
        )
        .turn(
            Turn::text("Found it in src/lib.rs.")
                .delay(o.latency)
                .when(move |r| r.model() == small2)
                .forever(),
        )
        .turn(
            Turn::text("All areas explored.")
                .delay(o.latency)
                .when(move |r| r.model() != small3)
                .forever(),
        )
}

/// `--tool-turns`: Read calls until the N-th result comes back. The count
/// comes from the id of the last result (`loop-K`), so every session run
/// against the same mock starts again at one.
fn tool_loop(o: &Options) -> Script {
    let turns = o.tool_turns;
    let file = o.tool_file.clone();
    let latency = o.latency;
    Script::new()
        .turn(
            Turn::text("Summary: the assistant has been reading the bench file in a loop.")
                .delay(latency)
                .when(|r| r.tool_names().is_empty())
                .forever(),
        )
        .turn(
            Turn::respond(move |r| {
                // Only the last message: scanning the whole conversation on
                // every request would make the mock quadratic.
                let done = r
                    .messages()
                    .last()
                    .and_then(|m| m.get("content")?.as_array().cloned())
                    .and_then(|blocks| {
                        blocks.iter().rev().find_map(|b| {
                            let id = b.get("tool_use_id")?.as_str()?;
                            id.strip_prefix("loop-")?.parse::<usize>().ok()
                        })
                    })
                    .unwrap_or(0);
                let turn = if done >= turns {
                    Turn::text(format!("Done after {done} tool calls."))
                } else {
                    Turn::tool_use(
                        format!("loop-{}", done + 1),
                        tool_names::READ,
                        json!({ "file_path": file }),
                    )
                };
                turn.usage(1_000, 20).delay(latency)
            })
            .forever(),
        )
}

/// `--teammates`: one TeamCreate, then each member reports once.
fn team(o: &Options) -> Script {
    let members: Vec<_> = (1..=o.teammates)
        .map(
            |i| json!({"name": format!("m{i}"), "prompt": format!("Look at area {i} and report.")}),
        )
        .collect();
    let latency = o.latency;
    let is_teammate = |r: &catui_testkit::RecordedRequest| r.system_text().contains("You are 'm");
    Script::new()
        .turn(
            Turn::text("Reported.")
                .delay(latency)
                .when(move |r| is_teammate(r) && r.has_tool_result("report"))
                .forever(),
        )
        .turn(
            Turn::tool_use(
                "report",
                tool_names::SEND_MESSAGE,
                json!({"to": "team-lead", "message": "area checked: nothing to change"}),
            )
            .delay(latency)
            .when(is_teammate)
            .forever(),
        )
        .turn(
            Turn::tool_use(
                "tc",
                tool_names::TEAM_CREATE,
                json!({"team_name": "bench", "members": members}),
            )
            .delay(latency)
            .when(|r| {
                r.tool_results().is_empty()
                    && r.last_user_text()
                        .is_some_and(|t| t.contains("start the team"))
            })
            .forever(),
        )
        .turn(Turn::text("Noted.").delay(latency).forever())
}

fn main() -> ExitCode {
    let o = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("catui-mock: {e}");
            return ExitCode::from(2);
        }
    };
    // Loopback only: nothing outside this machine can reach the mock.
    let addr = SocketAddr::from(([127, 0, 0, 1], o.port));
    let server = match MockServer::start_blocking_on(addr, script(&o)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("catui-mock: cannot listen on {addr}: {e}");
            return ExitCode::from(1);
        }
    };
    server.keep_requests(false);
    println!("{}", server.url());
    let _ = std::io::stdout().flush();
    // Serve until the process is killed.
    loop {
        std::thread::park();
    }
}
