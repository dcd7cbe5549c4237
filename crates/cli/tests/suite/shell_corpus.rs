//! The public shell corpus (`crates/testkit/corpus/shell.txt`) through the
//! real binary (issue 15): the mock model asks for every line with Bash, one
//! call per turn, in the corpus's throwaway git repository, and the world is
//! compared before and after each call.
//!
//! - default mode, a client that denies every prompt: nothing changes, and
//!   every line that is not read-only was asked about;
//! - plan mode, a client that approves every prompt: nothing changes;
//! - acceptEdits, a denying client: only the `edit` lines change anything,
//!   and only files of the project;
//! - in every mode the read-only lines run without a prompt.
//!
//! `CATUI_SHELL_CORPUS=path/to/corpus.txt` runs another corpus in the same
//! format (and the same world) instead of the public one;
//! `CATUI_SANDBOX_DISABLE` (e.g. `bubblewrap`) is passed on to catui, to
//! run it without a layer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use catui_testkit::shell_corpus::{self, Class, Entry, World};
use catui_testkit::{MockServer, Script, Turn};
use common::StreamSession;
use serde_json::json;

/// The corpus under test: the public one, or `CATUI_SHELL_CORPUS`'s.
fn corpus() -> Vec<Entry> {
    match std::env::var_os("CATUI_SHELL_CORPUS") {
        Some(path) => {
            let text = std::fs::read_to_string(&path).unwrap();
            shell_corpus::parse(&text).unwrap()
        }
        None => shell_corpus::entries(),
    }
}

/// Lines per session: keeps each conversation far from compaction.
const CHUNK: usize = 80;

/// What one mode's run saw.
#[derive(Default)]
struct Seen {
    /// Tool call ids the client was asked about.
    asked: BTreeSet<String>,
    /// Per corpus line (by index), the paths its call changed.
    changes: BTreeMap<usize, Vec<PathBuf>>,
    /// Whether the sandbox is complete (the init event's `sandbox` lists
    /// every layer), so read-only lines run unasked.
    confines: bool,
}

/// The snapshot taken after the previous call, and that call's index.
struct Watch {
    world: World,
    last: BTreeMap<PathBuf, String>,
    previous: Option<usize>,
    changes: BTreeMap<usize, Vec<PathBuf>>,
}

impl Watch {
    /// Called when the model is asked for its next turn: the previous
    /// call has finished, so whatever changed since is its doing.
    fn settle(&mut self) {
        let now = self.world.snapshot();
        if let Some(i) = self.previous.take() {
            let changed = shell_corpus::changed(&self.last, &now);
            if !changed.is_empty() {
                self.changes.insert(i, changed);
            }
        }
        self.last = now;
    }
}

fn catui_in(world: &World, config: &Path, server: &MockServer) -> Command {
    common::catui_at(
        &world.project,
        &world.home,
        config,
        server,
        "test-model",
        "test-key-not-secret",
    )
}

/// Runs every corpus line through the binary in `mode`, answering every
/// prompt with `approve`.
fn run(mode: &str, approve: bool, entries: &[Entry]) -> Seen {
    let dir = tempfile::tempdir().unwrap();
    let world = World::build(&dir.path().join("w")).unwrap();
    let world = World::at(&world.root.canonicalize().unwrap());
    let config = dir.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let watch = Arc::new(Mutex::new(Watch {
        last: world.snapshot(),
        world: world.clone(),
        previous: None,
        changes: BTreeMap::new(),
    }));
    let mut seen = Seen::default();
    for (c, chunk) in entries.chunks(CHUNK).enumerate() {
        let server = common::mock(Script::new());
        for (k, e) in chunk.iter().enumerate() {
            let i = c * CHUNK + k;
            let command = e.command.clone();
            let watch = watch.clone();
            server.push(Turn::respond(move |_| {
                let mut w = watch.lock().unwrap();
                w.settle();
                w.previous = Some(i);
                common::bash_timeout(format!("c{i}"), &command, 10000)
            }));
        }
        let last = watch.clone();
        server.push(Turn::respond(move |_| {
            last.lock().unwrap().settle();
            Turn::text("done")
        }));
        let mut s = StreamSession::start(
            catui_in(&world, &config, &server),
            &["--permission-mode", mode],
        );
        let init = s.wait_for("init", |v| v["subtype"] == "init");
        // Landlock (with its scopes, as on the project's machines) and
        // seccomp enforce every guarantee, with or without bubblewrap.
        let layers = init["sandbox"].as_array().cloned().unwrap_or_default();
        seen.confines = layers.contains(&json!("landlock")) && layers.contains(&json!("seccomp"));
        common::fixtures::run_these_answering(&mut s, |v| {
            let id = v["request"]["tool_use_id"].as_str().unwrap_or_default();
            seen.asked.insert(id.to_string());
            common::fixtures::answer_can_use_tool(v, approve)
        });
        let (code, _) = s.finish();
        assert_eq!(code, 0);
    }
    seen.changes = std::mem::take(&mut watch.lock().unwrap().changes);
    seen
}

/// Whether a line runs without a prompt in every mode: a read-only line,
/// where the sandbox is complete (elsewhere every read-only line asks).
fn unprompted(class: Class, confines: bool) -> bool {
    matches!(class, Class::Read | Class::ReadConfined) && confines
}

fn describe(entries: &[Entry], i: usize) -> String {
    format!(
        "line {} ({:?}) `{}`",
        entries[i].line, entries[i].class, entries[i].command
    )
}

fn report(what: &str, wrong: &[String]) {
    assert!(
        wrong.is_empty(),
        "{what}: {} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn default_mode_with_a_denying_client_changes_nothing() {
    let entries = corpus();
    let seen = run("default", false, &entries);
    let mut wrong = Vec::new();
    for (i, paths) in &seen.changes {
        wrong.push(format!("{} changed {paths:?}", describe(&entries, *i)));
    }
    for (i, e) in entries.iter().enumerate() {
        let asked = seen.asked.contains(&format!("c{i}"));
        if asked == unprompted(e.class, seen.confines) {
            wrong.push(format!(
                "{} {}",
                describe(&entries, i),
                if asked { "was asked" } else { "ran unasked" }
            ));
        }
    }
    report("default mode", &wrong);
}

#[test]
fn plan_mode_with_an_approving_client_changes_nothing() {
    let entries = corpus();
    let seen = run("plan", true, &entries);
    let mut wrong = Vec::new();
    for (i, paths) in &seen.changes {
        wrong.push(format!("{} changed {paths:?}", describe(&entries, *i)));
    }
    for (i, e) in entries.iter().enumerate() {
        if unprompted(e.class, seen.confines) && seen.asked.contains(&format!("c{i}")) {
            wrong.push(format!("{} was asked", describe(&entries, i)));
        }
    }
    report("plan mode", &wrong);
}

#[test]
fn accept_edits_with_a_denying_client_changes_only_project_files() {
    let entries = corpus();
    let seen = run("acceptEdits", false, &entries);
    let mut wrong = Vec::new();
    let mut edited = 0;
    for (i, paths) in &seen.changes {
        let outside: Vec<&PathBuf> = paths
            .iter()
            .filter(|p| !p.starts_with("project") || p.starts_with("project/.git"))
            .collect();
        if entries[*i].class != Class::Edit || !outside.is_empty() {
            wrong.push(format!("{} changed {paths:?}", describe(&entries, *i)));
        } else {
            edited += 1;
        }
    }
    for (i, e) in entries.iter().enumerate() {
        let asked = seen.asked.contains(&format!("c{i}"));
        let free = unprompted(e.class, seen.confines) || e.class == Class::Edit;
        if asked == free {
            wrong.push(format!(
                "{} {}",
                describe(&entries, i),
                if asked { "was asked" } else { "ran unasked" }
            ));
        }
    }
    report("acceptEdits", &wrong);
    assert!(edited > 20, "only {edited} edits ran");
}
