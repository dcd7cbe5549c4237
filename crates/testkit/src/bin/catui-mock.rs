//! `catui-mock`: the testkit mock model server as a separate process, for
//! benchmarks (bench/run.sh). It answers every request, forever, on
//! loopback only, and prints its base URL on the first line of stdout.
//!
//! ```text
//! catui-mock [--port N] [--latency-ms MS] [--agents N] [--small-model NAME]
//! ```
//! Without `--agents`: every request gets a short text answer. With
//! `--agents N`: the main model's first request gets N parallel Explore
//! Agent calls, each agent (on the small model) answers with text, and the
//! main model then ends the turn. `--latency-ms` delays every answer.

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
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        port: 0,
        latency: Duration::ZERO,
        agents: 0,
        small_model: "bench-small".into(),
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
            "-h" | "--help" => {
                return Err(
                    "usage: catui-mock [--port N] [--latency-ms MS] [--agents N] [--small-model NAME]"
                        .into(),
                );
            }
            other => return Err(format!("unknown option {other}; see --help")),
        }
    }
    Ok(o)
}

fn script(o: &Options) -> Script {
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
            name: "Agent".into(),
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
    println!("{}", server.url());
    let _ = std::io::stdout().flush();
    // Serve until the process is killed.
    loop {
        std::thread::park();
    }
}
