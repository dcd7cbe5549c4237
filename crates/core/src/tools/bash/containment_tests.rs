//! Containment: the public shell corpus (`crates/testkit/corpus/shell.txt`)
//! in its fixture (a real git repository), through the permission decision
//! and the real Bash tool:
//!
//! - the decision alone, in every mode: nothing that writes is allowed
//!   unasked, read-only lines are allowed as read-only (so they run
//!   confined), acceptEdits allows exactly the project edits;
//! - the sandbox alone (Landlock and seccomp, as core runs commands without
//!   an inner stage): every mutating line of the corpus, run confined with
//!   no analysis at all, changes no file's content, mode or times;
//! - a deliberately wrong analysis that calls everything read-only, passed
//!   through the real decision: the grant makes Bash confine each command,
//!   nothing is written, and the model is told why.

use std::path::PathBuf;

use catui_protocol::PermissionMode;
use catui_testkit::shell_corpus::{self, Class, World};

use super::{BashInput, BashTool};
use crate::permissions::sandbox::{SandboxPolicy, SessionSandbox};
use crate::permissions::shell::{ShellAnalysis, analyze};
use crate::permissions::{
    Access, CallInfo, Decision, Grant, PermissionContext, decide, decide_with,
    transition_permission_mode,
};
use crate::tools::TypedTool;
use crate::tools::{ToolContext, ToolOutput};

fn world() -> (tempfile::TempDir, World) {
    let dir = tempfile::tempdir().unwrap();
    let world = World::build(&dir.path().join("w")).unwrap();
    (dir, world)
}

fn context(world: &World, mode: PermissionMode) -> PermissionContext {
    let mut perms = PermissionContext::new(world.project.canonicalize().unwrap());
    perms.plan_file = Some(world.root.join("plan.md"));
    perms.auto_mode.enabled = true;
    transition_permission_mode(&mut perms, mode).unwrap();
    perms
}

fn shell_call(world: &World, command: &str) -> CallInfo {
    CallInfo {
        tool_name: "Bash".into(),
        access: Access::Shell {
            command: command.to_string(),
            unconfined: false,
        },
        read_only: analyze(command).read_only,
        cwd: world.project.canonicalize().unwrap(),
    }
}

/// This machine's sandbox enforces every guarantee (the project's
/// machines and CI have Landlock with its scopes and seccomp).
fn require_sandbox(world: &World) {
    let sandbox = SessionSandbox::for_project(&world.project);
    assert!(
        sandbox.complete(),
        "this machine cannot confine commands: {:?}",
        sandbox.layers().notice(false)
    );
}

async fn run_bash(ctx: &ToolContext, command: &str) -> String {
    let input = BashInput {
        command: command.to_string(),
        timeout: Some(10_000),
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

#[derive(Debug, PartialEq)]
enum Want {
    ReadOnly,
    Explicit,
    /// Confined to the working directories (acceptEdits' edits).
    Edits,
    /// Plan mode's dry run in a throwaway copy.
    DryRun,
    Ask,
    Deny,
    Classify,
}

fn got(d: &Decision) -> Want {
    match d {
        Decision::Allow(Grant::ReadOnly) => Want::ReadOnly,
        Decision::Allow(Grant::Explicit) => Want::Explicit,
        Decision::Allow(Grant::Edits) => Want::Edits,
        Decision::Allow(Grant::DryRun) => Want::DryRun,
        Decision::Ask { .. } => Want::Ask,
        Decision::Deny { .. } => Want::Deny,
        Decision::Classify { .. } => Want::Classify,
    }
}

/// Corpus edits that copy or move a tree: where nothing can confine a
/// line's writes, acceptEdits asks for them.
const TREE_EDITS: &[&str] = &["cp -r sub subcopy"];

/// What each class expects in each mode (the client is interactive).
/// Where the sandbox is incomplete (`can_confine` false), lines that look
/// read-only ask instead of running unasked, in plan mode too, and
/// acceptEdits' edits run as they are (those moving trees ask).
fn expected(class: Class, command: &str, mode: PermissionMode, can_confine: bool) -> Want {
    use PermissionMode::*;
    let looks_read = matches!(class, Class::Read | Class::ReadConfined);
    match (mode, class) {
        (BypassPermissions, _) => Want::Explicit,
        _ if looks_read && can_confine => Want::ReadOnly,
        (Plan, _) if looks_read => Want::Ask,
        (Plan, _) => Want::Deny,
        (AcceptEdits, Class::Edit) if can_confine => Want::Edits,
        (AcceptEdits, Class::Edit) if TREE_EDITS.contains(&command) => Want::Ask,
        (AcceptEdits, Class::Edit) => Want::Explicit,
        (Auto, _) => Want::Classify,
        _ => Want::Ask,
    }
}

#[test]
fn every_mode_decides_the_corpus_as_expected() {
    let (_dir, world) = world();
    let corpus = shell_corpus::entries();
    let mut wrong = Vec::new();
    for mode in [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Plan,
        PermissionMode::Auto,
        PermissionMode::BypassPermissions,
    ] {
        for can_confine in [true, false] {
            let mut perms = context(&world, mode);
            perms.can_confine = can_confine;
            perms.can_confine_writes = can_confine;
            for e in &corpus {
                let d = decide(&perms, &shell_call(&world, &e.command));
                let want = expected(e.class, &e.command, mode, can_confine);
                if got(&d) != want {
                    wrong.push(format!(
                        "{mode:?} (confine {can_confine}) line {} {:?} {:?}: want {want:?}, got {d:?}",
                        e.line, e.class, e.command
                    ));
                }
            }
            // Beyond the corpus: never allowed unasked outside bypass.
            for cmd in crate::permissions::shell::tests::NOT_READ_ONLY {
                let d = decide(&perms, &shell_call(&world, cmd));
                if mode != PermissionMode::BypassPermissions
                    && matches!(d, Decision::Allow(Grant::ReadOnly))
                {
                    wrong.push(format!("{mode:?}: {cmd:?} allowed as read-only"));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Asking to run unconfined never rides on the read-only verdict.
#[test]
fn unconfined_requests_always_ask() {
    let (_dir, world) = world();
    let mut call = shell_call(&world, "git status");
    call.access = Access::Shell {
        command: "git status".into(),
        unconfined: true,
    };
    let default = decide(&context(&world, PermissionMode::Default), &call);
    assert!(
        matches!(default, Decision::Ask { ref reason, .. } if reason.contains("sandbox")),
        "{default:?}"
    );
    let plan = decide(&context(&world, PermissionMode::Plan), &call);
    assert!(matches!(plan, Decision::Deny { .. }), "{plan:?}");
}

#[tokio::test]
async fn the_sandbox_alone_keeps_every_mutating_command_out() {
    let (dir, world) = world();
    require_sandbox(&world);
    let before = world.snapshot();
    let ctx = ToolContext::new(world.project.clone());
    ctx.set_sandbox_policy(SandboxPolicy::ReadOnlyExceptTemp {
        temp_dir: dir.path().join("tmp"),
    });
    let mut count = 0;
    for e in shell_corpus::entries().iter().filter(|e| e.class.mutates()) {
        // No analysis at all: every command really runs, confined.
        ctx.set_cwd(world.project.clone());
        run_bash(&ctx, &e.command).await;
        count += 1;
        let now = world.snapshot();
        assert_eq!(
            shell_corpus::changed(&before, &now),
            Vec::<PathBuf>::new(),
            "line {}: `{}` changed the world",
            e.line,
            e.command
        );
    }
    assert!(count > 150, "only {count} commands ran");
}

/// An analysis that judges every command line read-only, as a broken
/// analysis would.
pub(super) fn everything_read_only(command: &str) -> ShellAnalysis {
    let mut a = analyze(command);
    for c in &mut a.commands {
        c.words_problem = None;
        c.needs_confinement = None;
        c.other_problems.clear();
        // Nor does it know where git runs (so no repository is foreign).
        c.git_dirs.clear();
        for r in &mut c.redirects {
            r.writes = false;
        }
    }
    a.line_problems.clear();
    a.read_only = true;
    a.needs_confinement = None;
    a.reason = None;
    a
}

#[tokio::test]
async fn a_misjudged_command_runs_confined_and_cannot_write() {
    let (dir, world) = world();
    require_sandbox(&world);
    let before = world.snapshot();
    let perms = context(&world, PermissionMode::Default);
    let mut ctx = ToolContext::new(world.project.clone());
    ctx.read_only_sandbox = SandboxPolicy::ReadOnlyExceptTemp {
        temp_dir: dir.path().join("tmp"),
    };
    let mut told = 0;
    for e in shell_corpus::entries().iter().filter(|e| e.class.mutates()) {
        let decision = decide_with(
            &perms,
            &shell_call(&world, &e.command),
            &everything_read_only,
        );
        assert_eq!(decision, Decision::Allow(Grant::ReadOnly), "{}", e.command);
        ctx.grant = Grant::ReadOnly;
        ctx.set_cwd(world.project.clone());
        let out = run_bash(&ctx, &e.command).await;
        if out.contains("judged read-only") && out.contains("unconfined: true") {
            told += 1;
        }
        let now = world.snapshot();
        assert_eq!(
            shell_corpus::changed(&before, &now),
            Vec::<PathBuf>::new(),
            "line {}: `{}` wrote although confined",
            e.line,
            e.command
        );
    }
    assert!(told > 50, "only {told} failures explained the sandbox");
    // The same wrong verdict in plan mode is confined the same way.
    let plan = context(&world, PermissionMode::Plan);
    let d = decide_with(
        &plan,
        &shell_call(&world, "echo x > f"),
        &everything_read_only,
    );
    assert_eq!(d, Decision::Allow(Grant::ReadOnly));
}
