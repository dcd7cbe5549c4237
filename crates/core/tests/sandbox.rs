//! Confinement of Bash commands (Landlock and seccomp, as core applies them
//! without an inner stage): with a read-only policy, writes to the project
//! fail and leave it unchanged; the private temp dir and /dev/null stay
//! writable; reading works everywhere; the working-dirs policy allows
//! writes beneath its directories only.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use catui_core::permissions::sandbox::{SandboxNetwork, SandboxPolicy, SessionSandbox};
use catui_core::tools::bash::{BashInput, BashTool};
use catui_core::tools::{ToolContext, ToolOutput, TypedTool};

/// Every path under `root` with its contents (directories as `None`).
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if entry.file_type().unwrap().is_dir() {
                out.insert(rel, None);
                stack.push(path);
            } else {
                out.insert(rel, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

struct Setup {
    _project: tempfile::TempDir,
    _temp: tempfile::TempDir,
    root: PathBuf,
    temp: PathBuf,
    ctx: ToolContext,
}

fn setup(policy: impl FnOnce(&Path, &Path) -> SandboxPolicy) -> Setup {
    let project = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    // The session's temp dir is private (0700), as catui makes its own.
    let private = <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o700);
    std::fs::set_permissions(temp.path(), private).unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    let temp_path = std::fs::canonicalize(temp.path()).unwrap();
    std::fs::write(root.join("existing"), "original contents\n").unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "fn main() {}\n").unwrap();
    let ctx = ToolContext::new(root.clone());
    ctx.set_sandbox_policy(policy(&root, &temp_path));
    Setup {
        _project: project,
        _temp: temp,
        root,
        temp: temp_path,
        ctx,
    }
}

async fn run(ctx: &ToolContext, command: &str) -> ToolOutput {
    BashTool::default()
        .call(
            BashInput {
                command: command.to_string(),
                timeout: Some(20_000),
                description: None,
                unconfined: None,
                run_in_background: None,
                keep_running: None,
            },
            ctx,
        )
        .await
        .unwrap()
}

/// The project's machines and CI can confine commands; a machine that
/// cannot fails here rather than passing untested.
fn require_sandbox(root: &Path) {
    let sandbox = SessionSandbox::for_project(root);
    assert!(sandbox.complete(), "{:?}", sandbox.layers().notice(false));
}

#[tokio::test]
async fn read_only_policy_blocks_writes_to_the_project() {
    let s = setup(|_, temp| SandboxPolicy::ReadOnlyExceptTemp {
        temp_dir: temp.to_path_buf(),
    });
    require_sandbox(&s.root);
    let before = snapshot(&s.root);
    let p = s.root.display().to_string();
    let attempts = [
        format!("touch {p}/x"),
        format!("echo hi > {p}/f"),
        format!("echo more >> {p}/existing"),
        format!(": > {p}/existing"),
        format!("rm {p}/existing"),
        format!("mkdir {p}/d"),
        format!("mv {p}/existing {p}/moved"),
        format!("ln -s {p}/existing {p}/link"),
        format!("cp {p}/existing {p}/src/copy"),
        format!("bash -c 'touch {p}/src/nested'"),
        format!("cd {p} && sed -i s/original/changed/ existing"),
    ];
    for cmd in &attempts {
        let out = run(&s.ctx, cmd).await;
        assert!(
            out.content.contains("Exit code:"),
            "{cmd:?} succeeded: {}",
            out.content
        );
    }
    assert_eq!(snapshot(&s.root), before, "the project changed");
}

#[tokio::test]
async fn read_only_policy_allows_reads_temp_and_dev_null() {
    let s = setup(|_, temp| SandboxPolicy::ReadOnlyExceptTemp {
        temp_dir: temp.to_path_buf(),
    });
    require_sandbox(&s.root);
    let out = run(
        &s.ctx,
        "cat existing && ls src && git --version >/dev/null && echo ok",
    )
    .await;
    assert_eq!(out.content, "original contents\nlib.rs\nok");

    let t = s.temp.display();
    let out = run(
        &s.ctx,
        &format!("echo scratch > {t}/note && mkdir {t}/d && cat {t}/note"),
    )
    .await;
    assert_eq!(out.content, "scratch");
    assert!(s.temp.join("d").is_dir());

    let out = run(&s.ctx, "echo \"$TMPDIR\"; mktemp >/dev/null && echo made").await;
    assert_eq!(out.content, format!("{t}\nmade"));

    // Changing directory still carries over under confinement.
    run(&s.ctx, "cd src").await;
    assert_eq!(s.ctx.cwd(), s.root.join("src"));
}

#[tokio::test]
async fn working_dirs_policy_allows_only_listed_dirs() {
    let s = setup(|root, _| SandboxPolicy::WorkingDirs {
        writable: vec![root.join("src")],
        network: SandboxNetwork::Off,
    });
    require_sandbox(&s.root);
    let out = run(&s.ctx, "touch src/new && echo ok").await;
    assert_eq!(out.content, "ok");
    assert!(s.root.join("src/new").exists());
    let out = run(&s.ctx, "touch top-level").await;
    assert!(out.content.contains("Exit code:"), "{}", out.content);
    assert!(
        out.content.contains("writing is only allowed under"),
        "{}",
        out.content
    );
    assert!(!s.root.join("top-level").exists());
    let out = run(&s.ctx, &format!("touch {}/x", s.temp.display())).await;
    assert!(out.content.contains("Exit code:"));
}

#[tokio::test]
async fn no_policy_leaves_commands_unconfined() {
    let s = setup(|_, _| SandboxPolicy::None);
    let out = run(
        &s.ctx,
        "touch x && echo hi > f && rm existing && mkdir d && echo ok",
    )
    .await;
    assert_eq!(out.content, "ok");
    assert!(s.root.join("x").exists() && s.root.join("d").is_dir());
    assert!(!s.root.join("existing").exists());
}

#[test]
fn the_layers_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let names = SessionSandbox::for_project(tmp.path()).layers().names();
    // Without an inner stage, core confines with Landlock and seccomp.
    assert_eq!(names, ["landlock", "seccomp"]);
}
