//! The public exfiltration corpus (`crates/testkit/corpus/exfiltration.txt`)
//! misjudged: an analysis that calls every line read-only, through the
//! real permission decision and the real Bash tool (as core runs it:
//! Landlock and seccomp in the child). No line may reach a listener,
//! change a file (content, mode, owner, times), touch the outside process
//! or bring out a canary (secret stores, other environments, catui's
//! keys). Also: the model is told when the network was refused, and how
//! to ask for it — except where it cannot ask.

use std::path::PathBuf;
use std::sync::Arc;

use catui_protocol::PermissionMode;
use catui_testkit::exfiltration::{self, Arena};

use super::containment_tests::everything_read_only;
use super::{BashInput, BashTool};
use crate::permissions::sandbox::{SandboxPolicy, SessionSandbox};
use crate::permissions::secrets::SecretStores;
use crate::permissions::{
    Access, CallInfo, Decision, Grant, PermissionContext, decide_with, transition_permission_mode,
};
use crate::tools::{ReadOnlyAgent, ToolContext, ToolOutput, TypedTool};

/// A tool context for the arena: HOME is the arena's home, whose secret
/// stores the session hides, and read-only commands get a private temp
/// dir.
fn arena_context(arena: &Arena, temp: PathBuf) -> ToolContext {
    let mut ctx = ToolContext::new(arena.project.clone());
    ctx.env = Arc::new(catui_sandbox::child_env::EnvPolicy {
        set: vec![("HOME".to_string(), arena.home.display().to_string())],
        pass: Vec::new(),
    });
    let secrets = SecretStores::new(Some(&arena.home), &[], std::slice::from_ref(&arena.project));
    ctx.confiner = Arc::new(SessionSandbox::new(
        None,
        secrets,
        Some(arena.home.clone()),
        SandboxPolicy::None,
    ));
    assert!(ctx.confiner.complete(), "{:?}", ctx.confiner.layers());
    ctx.read_only_sandbox = SandboxPolicy::ReadOnlyExceptTemp { temp_dir: temp };
    ctx.grant = Grant::ReadOnly;
    ctx
}

async fn run_bash(ctx: &ToolContext, command: &str) -> String {
    let input = BashInput {
        command: command.to_string(),
        timeout: Some(15_000),
        description: None,
        unconfined: None,
        run_in_background: None,
        keep_running: None,
    };
    match BashTool::default().call(input, ctx).await {
        Ok(ToolOutput { content, .. }) => content,
        Err(e) => e.to_string(),
    }
}

fn shell_call(cwd: &std::path::Path, command: &str) -> CallInfo {
    CallInfo {
        tool_name: "Bash".into(),
        access: Access::Shell {
            command: command.to_string(),
            unconfined: false,
        },
        read_only: true,
        cwd: cwd.to_path_buf(),
    }
}

#[tokio::test]
async fn the_whole_corpus_misjudged_read_only_leaks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("arena")).unwrap();
    let mut arena = Arena::new(&dir.path().join("arena")).unwrap();
    let ctx = arena_context(&arena, dir.path().join("tmp"));
    let mut leaks = Vec::new();
    let attacks = exfiltration::attacks();
    for mode in [PermissionMode::Default, PermissionMode::Plan] {
        let mut perms = PermissionContext::new(arena.project.clone());
        perms.plan_file = Some(dir.path().join("plan.md"));
        transition_permission_mode(&mut perms, mode).unwrap();
        for attack in &attacks {
            let command = arena.command(attack);
            let call = shell_call(&arena.project, &command);
            let decision = decide_with(&perms, &call, &everything_read_only);
            assert_eq!(decision, Decision::Allow(Grant::ReadOnly), "{command}");
            ctx.set_cwd(arena.project.clone());
            let out = run_bash(&ctx, &command).await;
            for leak in arena.leaks(&out, &[]) {
                leaks.push(format!(
                    "{mode:?} line {}: `{command}`: {leak}",
                    attack.line
                ));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "{} leaks:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}

#[tokio::test]
async fn a_refused_network_is_explained_with_how_to_ask_only_where_one_can() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("arena")).unwrap();
    let mut arena = Arena::new(&dir.path().join("arena")).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let command = format!("curl -sS --max-time 5 http://127.0.0.1:{port}/");
    let mut ctx = arena_context(&arena, dir.path().join("tmp"));
    let out = run_bash(&ctx, &command).await;
    assert!(out.contains("without network access"), "{out}");
    assert!(out.contains("unconfined: true"), "{out}");
    // A read-only sub-agent (Explore, Plan) cannot ask for more.
    ctx.values.insert(ReadOnlyAgent);
    let out = run_bash(&ctx, &command).await;
    assert!(out.contains("without network access"), "{out}");
    assert!(!out.contains("unconfined"), "{out}");
    // A command that fails for another reason gets no such note.
    let out = run_bash(&ctx, "ls /nonexistent-dir").await;
    assert!(!out.contains("network"), "{out}");
    assert!(arena.leaks(&out, &[]).is_empty());
}

/// The corpus is real: run unconfined (as if someone had allowed every
/// line), at least nine in ten attacks get something out or change
/// something.
/// (Lines that would reach beyond this test's own arena unconfined — a
/// `pkill` by name, an immutable flag the temp dir's removal would trip
/// on — are left out here.)
#[tokio::test]
async fn without_the_sandbox_the_corpus_gets_out() {
    let attacks: Vec<_> = exfiltration::attacks()
        .into_iter()
        .filter(|a| !a.template.contains("pkill") && !a.template.contains("chattr"))
        .collect();
    // Each attack in an arena of its own (one may undo another), ten at a
    // time.
    let mut held = Vec::new();
    for chunk in attacks.chunks(10) {
        let runs = chunk.iter().map(|attack| async move {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir(dir.path().join("arena")).unwrap();
            let mut arena = Arena::new(&dir.path().join("arena")).unwrap();
            let mut ctx = arena_context(&arena, dir.path().join("tmp"));
            ctx.grant = Grant::Explicit;
            let command = arena.command(attack);
            let out = run_bash(&ctx, &command).await;
            arena
                .leaks(&out, &[])
                .is_empty()
                .then(|| format!("line {}: `{command}`", attack.line))
        });
        held.extend(futures::future::join_all(runs).await.into_iter().flatten());
    }
    // What may hold here: lines that read this test's own environment,
    // which holds no canary (through the binary, catui's API key is one).
    assert!(
        held.len() * 10 <= attacks.len(),
        "{} of {} held without the sandbox:\n{}",
        held.len(),
        attacks.len(),
        held.join("\n")
    );
}
