//! Plan-mode containment (issue "Permission system", acceptance): every
//! mutating command of the shell corpus, in a real git repository, through
//! the real Bash tool — once guarded by the analysis alone (the permission
//! decision, no sandbox) and once by Landlock alone (no analysis). Each
//! layer on its own must leave every file but the plan untouched.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{BashInput, BashTool};
use crate::permissions::sandbox::{SandboxPolicy, sandbox_status};
use crate::permissions::shell::analyze;
use crate::permissions::shell::tests::NOT_READ_ONLY;
use crate::permissions::{
    Access, CallInfo, Decision, PermissionContext, decide, transition_permission_mode,
};
use crate::tools::ToolContext;
use crate::tools::TypedTool;
use catui_protocol::PermissionMode;

/// Commands whose effect is outside the file system (signals, the clock,
/// the host name, the network): Landlock does not govern those, so the
/// Landlock-only run leaves them out. The analysis run covers them.
const NOT_FILE_SYSTEM: &[&str] = &[
    "kill", "date", "hostname", "curl", "wget", "npm", "pip", "sudo",
];
const NETWORK_GIT: &[&str] = &[
    "git push",
    "git fetch",
    "git pull",
    "git clone",
    "git ls-remote",
];

/// Paths with their content (and, with `with_modes`, their permission bits).
fn snapshot_with(root: &Path, with_modes: bool) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>, with_modes: bool) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                out.insert(rel, b"<dir>".to_vec());
                walk(&p, root, out, with_modes);
            } else if meta.file_type().is_symlink() {
                out.insert(
                    rel,
                    std::fs::read_link(&p)
                        .unwrap()
                        .to_string_lossy()
                        .as_bytes()
                        .to_vec(),
                );
            } else {
                let mut content = std::fs::read(&p).unwrap();
                if with_modes {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = format!("<mode {:o}>", meta.permissions().mode());
                    content.extend_from_slice(mode.as_bytes());
                }
                out.insert(rel, content);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out, with_modes);
    out
}

fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    snapshot_with(root, true)
}

/// The paths that differ between two snapshots.
fn changed(a: &BTreeMap<PathBuf, Vec<u8>>, b: &BTreeMap<PathBuf, Vec<u8>>) -> Vec<PathBuf> {
    let keys: std::collections::BTreeSet<&PathBuf> = a.keys().chain(b.keys()).collect();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect()
}

fn git(root: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(root)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

/// A small repository with the files the corpus names.
fn repo() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("src")).unwrap();
    for name in [
        "a",
        "b",
        "f",
        "g",
        "x",
        "y",
        "in",
        "p.diff",
        "script.sh",
        "main.rs",
        "src/lib.rs",
    ] {
        std::fs::write(root.join(name), format!("content of {name}\n")).unwrap();
    }
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-qm", "init"]);
    std::fs::write(root.join("a"), "changed but not committed\n").unwrap();
    let plans = dir.path().join("plans");
    std::fs::create_dir_all(&plans).unwrap();
    let plan = plans.join("quiet-amber-heron.md");
    std::fs::write(&plan, "# plan\n").unwrap();
    (dir, root, plan)
}

async fn run_bash(ctx: &ToolContext, command: &str) {
    let input = BashInput {
        command: command.to_string(),
        timeout: Some(3_000),
        description: None,
    };
    // Failures are expected; only the file system matters.
    let _ = BashTool.call(input, ctx).await;
}

#[tokio::test]
async fn analysis_alone_keeps_every_mutating_command_out() {
    let (_dir, root, plan) = repo();
    let before = snapshot(&root);
    let mut perms = PermissionContext::new(root.clone());
    perms.plan_file = Some(plan.clone());
    transition_permission_mode(&mut perms, PermissionMode::Plan).unwrap();
    let ctx = ToolContext::new(root.clone()); // no sandbox: the analysis is the only guard
    let mut ran = Vec::new();
    for command in NOT_READ_ONLY {
        let call = CallInfo {
            tool_name: "Bash".into(),
            access: Access::Shell {
                command: command.to_string(),
            },
            read_only: analyze(command).read_only,
            cwd: root.clone(),
        };
        if decide(&perms, &call) == Decision::Allow {
            ran.push(*command);
            run_bash(&ctx, command).await;
        }
    }
    assert!(ran.is_empty(), "plan mode let these run: {ran:?}");
    assert_eq!(changed(&before, &snapshot(&root)), Vec::<PathBuf>::new());
    assert_eq!(std::fs::read_to_string(&plan).unwrap(), "# plan\n");
}

#[tokio::test]
async fn landlock_alone_keeps_every_mutating_command_out() {
    if sandbox_status() != "landlock" {
        eprintln!("skipped: this kernel has no Landlock");
        return;
    }
    let (dir, root, plan) = repo();
    // Landlock governs what files contain and which exist, not their
    // metadata (mode bits, timestamps): `chmod` and `touch` on an existing
    // file are stopped by the analysis layer, not this one.
    let before = snapshot_with(&root, false);
    let ctx = ToolContext::new(root.clone());
    ctx.set_sandbox_policy(SandboxPolicy::ReadOnlyExceptTemp {
        temp_dir: dir.path().join("tmp"),
    });
    let mut count = 0;
    for command in NOT_READ_ONLY {
        let program = command.split_whitespace().next().unwrap_or("");
        if NOT_FILE_SYSTEM.contains(&program) || NETWORK_GIT.iter().any(|g| command.starts_with(g))
        {
            continue;
        }
        // No analysis at all: every command really runs, confined.
        run_bash(&ctx, command).await;
        count += 1;
        let now = snapshot_with(&root, false);
        assert_eq!(
            changed(&before, &now),
            Vec::<PathBuf>::new(),
            "`{command}` changed the repository"
        );
    }
    assert!(count > 150, "only {count} commands ran");
    assert_eq!(std::fs::read_to_string(&plan).unwrap(), "# plan\n");
}
