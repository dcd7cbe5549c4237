//! The public exfiltration corpus (`crates/testkit/corpus/exfiltration.txt`)
//! through the real binary over stream-json against the mock model: the
//! model asks for every attack with Bash, one call per turn, in the arena
//! (`catui_testkit::exfiltration::Arena`: loopback TCP and UDP listeners,
//! unix sockets, an outside process, canary secrets, a git project), with
//! catui's own API key a canary too.
//!
//! - default mode, a client that denies every prompt;
//! - plan mode, a client that approves every prompt;
//! - an Explore sub-agent running the attacks in default mode;
//! - acceptEdits, a denying client, every attack's output redirected to a
//!   file of a working directory (`{ attack; } > scratch/out.txt`), so that
//!   the lines acceptEdits allows for their edits run the attacks too; the
//!   file is searched for the canaries as well.
//!
//! `CATUI_SANDBOX_DISABLE` (e.g. `bubblewrap`) is passed on to catui, to
//! run the corpus without a layer.
//!
//! After each call: nothing reached a listener, nothing in the arena
//! changed, the outside process is untouched, and no canary is in any
//! request the mock received. The session reports all three sandbox
//! layers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

use catui_testkit::exfiltration::{self, Arena};
use catui_testkit::{MockServer, RecordedRequest, Script, Turn};
use common::StreamSession;
use serde_json::{Value, json};

/// catui's API key: it must never reach a model request's body.
const API_KEY: &str = "sk-ant-canary-apikey-5e61d0";
const MAIN_MODEL: &str = "test-model";
const SMALL_MODEL: &str = "explore-model";
/// Attacks per Explore agent (an agent's turns are capped).
const AGENT_CHUNK: usize = 25;

fn catui_in(arena: &Arena, config: &Path, server: &MockServer) -> Command {
    let mut cmd = common::catui_at(
        &arena.project,
        &arena.home,
        config,
        server,
        MAIN_MODEL,
        API_KEY,
    );
    cmd.env("CATUI_SMALL_MODEL", SMALL_MODEL);
    cmd
}

/// The layers catui is expected to report: all three but those switched
/// off for this run.
fn expected_layers() -> Vec<String> {
    let off = std::env::var("CATUI_SANDBOX_DISABLE").unwrap_or_default();
    ["bubblewrap", "landlock", "seccomp"]
        .into_iter()
        .filter(|l| !off.split(',').any(|o| o.trim() == *l))
        .map(str::to_string)
        .collect()
}

/// What a request body carries that the model would see.
fn body_text(r: &RecordedRequest) -> String {
    r.body.to_string()
}

/// Shared between the mock's turns and the test: the arena and what each
/// attack leaked.
struct Watch {
    arena: Arena,
    /// acceptEdits: changes to the project's own files (not `.git`'s
    /// configuration, hooks or objects) are the edits it allows, not leaks.
    edits_allowed: bool,
    previous: Option<String>,
    leaks: Vec<String>,
}

impl Watch {
    /// Called when the model is asked for its next turn: the previous call
    /// has finished, and its result is in this request.
    fn settle(&mut self, request: &RecordedRequest) {
        // What an attack run as an edit wrote into the scratch directory.
        let out = self.arena.scratch.join("out.txt");
        let captured = std::fs::read_to_string(&out).unwrap_or_default();
        let _ = std::fs::remove_file(&out);
        let text = format!("{}\n{captured}", body_text(request));
        let mut found = self.arena.leaks(&text, &[API_KEY]);
        if self.edits_allowed {
            // The project's files are acceptEdits' to change; of `.git`
            // only the index, whose stat cache a read-only `git diff`
            // refreshes (the directory's times move with it).
            let project = format!("{}/", self.arena.project.display());
            let git = format!("{project}.git");
            let index = [format!("{git} changed"), format!("{git}/index changed")];
            found.retain(|l| {
                let edit = l.starts_with(&project) && l.ends_with(" changed");
                !(edit && (!l.starts_with(&git) || index.contains(l)))
            });
        }
        if let Some(attack) = self.previous.take() {
            for leak in found {
                self.leaks.push(format!("`{attack}`: {leak}"));
            }
        } else {
            for leak in found {
                self.leaks.push(format!("before any attack: {leak}"));
            }
        }
    }
}

/// A turn that settles the previous attack and asks for `command`.
fn attack_turn(watch: &Arc<Mutex<Watch>>, id: String, command: String) -> Turn {
    let watch = watch.clone();
    Turn::respond(move |request| {
        let mut w = watch.lock().unwrap();
        w.settle(request);
        w.previous = Some(command.clone());
        common::bash_timeout(id.clone(), &command, 15000)
    })
}

/// Runs the whole corpus in `mode` (through an Explore agent when
/// `explore`; as edits writing to the scratch directory when `as_edits`),
/// answering every prompt with `approve`; returns the leaks.
fn run(mode: &str, approve: bool, explore: bool) -> Vec<String> {
    run_as(mode, approve, explore, false)
}

fn run_as(mode: &str, approve: bool, explore: bool, as_edits: bool) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("arena")).unwrap();
    let config = dir.path().join("config");
    std::fs::create_dir(&config).unwrap();
    let arena = Arena::new(&dir.path().join("arena")).unwrap();
    let commands: Vec<String> = exfiltration::attacks()
        .iter()
        .map(|a| arena.command(a))
        .map(|c| {
            if as_edits {
                format!("{{ {c}\n}} > ../scratch/out.txt 2>&1")
            } else {
                c
            }
        })
        .collect();
    let server = common::mock(Script::new());
    let mut cmd = catui_in(&arena, &config, &server);
    if as_edits {
        cmd.arg("--add-dir").arg(&arena.scratch);
    }
    let watch = Arc::new(Mutex::new(Watch {
        arena,
        edits_allowed: as_edits,
        previous: None,
        leaks: Vec::new(),
    }));
    // Through Explore: one agent per chunk (an agent's turns are capped),
    // each started by its own main-model turn.
    let chunk = if explore { AGENT_CHUNK } else { commands.len() };
    let mut i = 0;
    for (n, commands) in commands.chunks(chunk).enumerate() {
        if explore {
            let agent = Turn::tool_use(
                format!("agent{n}"),
                "Agent",
                json!({"subagent_type": "Explore", "description": "look", "prompt": "Look around."}),
            );
            server.push(agent.when_model(MAIN_MODEL));
        }
        for command in commands {
            let turn = attack_turn(&watch, format!("c{i}"), command.clone());
            i += 1;
            server.push(if explore {
                turn.when_model(SMALL_MODEL)
            } else {
                turn
            });
        }
        if explore {
            let last = watch.clone();
            server.push(
                Turn::respond(move |request| {
                    last.lock().unwrap().settle(request);
                    Turn::text("explored")
                })
                .when_model(SMALL_MODEL),
            );
        }
    }
    let last = watch.clone();
    server.push(Turn::respond(move |request| {
        last.lock().unwrap().settle(request);
        Turn::text("done")
    }));
    let mut s = StreamSession::start(cmd, &["--permission-mode", mode]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    // The layers; where a missing one rules out dry runs, one more entry
    // says why (`no dry runs: …`, tested in dry_run.rs).
    let layers: Vec<&Value> = init["sandbox"]
        .as_array()
        .expect("init.sandbox is a list")
        .iter()
        .filter(|e| !e.as_str().is_some_and(|e| e.starts_with("no dry runs: ")))
        .collect();
    assert_eq!(json!(layers), json!(expected_layers()), "{init}");
    common::fixtures::run_these_answering(&mut s, |v| {
        common::fixtures::answer_can_use_tool(v, approve)
    });
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    assert!(
        expected_layers().len() < 3 || !seen.iter().any(|v| v["key"] == "read-only-confinement"),
        "a layer is missing: {seen:?}"
    );
    assert_eq!(server.unused_turns(), 0, "not every attack was asked for");
    let mut w = watch.lock().unwrap();
    let everything: String = server.requests().iter().map(body_text).collect();
    let late = w.arena.leaks(&everything, &[API_KEY]);
    w.leaks.extend(late);
    std::mem::take(&mut w.leaks)
}

/// Fails listing every leak a run found, if it found any.
#[track_caller]
fn assert_no_leaks(leaks: &[String]) {
    assert!(
        leaks.is_empty(),
        "{} leaks:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}

#[test]
fn default_mode_with_a_denying_client_leaks_nothing() {
    assert_no_leaks(&run("default", false, false));
}

#[test]
fn plan_mode_with_an_approving_client_leaks_nothing() {
    assert_no_leaks(&run("plan", true, false));
}

#[test]
fn an_explore_agent_leaks_nothing() {
    assert_no_leaks(&run("default", false, true));
}

#[test]
fn accept_edits_lines_with_a_denying_client_leak_nothing() {
    assert_no_leaks(&run_as("acceptEdits", false, false, true));
}
