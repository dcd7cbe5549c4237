//! Tests of [`decide`] for what leaves or widens without the user: secret
//! stores, protected paths in acceptEdits, modes wider than the session's,
//! and git pointed at someone else's repository. The real shell analysis
//! is used.

use std::path::{Path, PathBuf};

use super::*;

struct World {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

/// A home with secret stores and a project inside it (with a bare
/// repository committed into `vendor/`).
fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(tmp.path()).unwrap();
    let project = home.join("code/project");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "KEY").unwrap();
    std::fs::create_dir_all(home.join(".aws")).unwrap();
    std::fs::write(home.join(".aws/credentials"), "KEY").unwrap();
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::create_dir_all(project.join(".git/objects")).unwrap();
    std::fs::write(project.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(project.join(".env"), "A=1").unwrap();
    let bare = project.join("vendor/x.git");
    std::fs::create_dir_all(bare.join("objects")).unwrap();
    std::fs::create_dir_all(bare.join("refs")).unwrap();
    std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    World {
        _tmp: tmp,
        home,
        project,
    }
}

fn context(w: &World, mode: PermissionMode) -> PermissionContext {
    let mut ctx = PermissionContext::new(w.project.clone());
    ctx.secrets = SecretStores::new(
        Some(&w.home),
        &["~/vault".into()],
        std::slice::from_ref(&w.project),
    );
    ctx.auto_mode.enabled = true;
    ctx.can_confine = true;
    ctx.can_confine_writes = true;
    transition_permission_mode(&mut ctx, mode).unwrap();
    ctx
}

fn call(w: &World, tool: &str, access: Access) -> CallInfo {
    let read_only = matches!(access, Access::Read { .. });
    CallInfo {
        tool_name: tool.into(),
        access,
        read_only,
        cwd: w.project.clone(),
    }
}

fn read(path: &Path) -> Access {
    Access::Read {
        paths: vec![path.to_path_buf()],
    }
}

fn write(path: &Path) -> Access {
    Access::Write {
        path: path.to_path_buf(),
    }
}

fn bash(command: &str) -> Access {
    Access::Shell {
        command: command.into(),
        unconfined: false,
    }
}

fn allow(ctx: &mut PermissionContext, rule: &str, root: &Path) {
    ctx.rules.push(
        RuleBehavior::Allow,
        SourcedRule {
            rule: Rule::parse(rule).unwrap(),
            origin: RuleOrigin::cli(root.to_path_buf()),
        },
    );
}

fn asks(d: &Decision) -> bool {
    matches!(d, Decision::Ask { .. })
}

fn denied(d: &Decision) -> Option<&str> {
    match d {
        Decision::Deny { message } => Some(message),
        _ => None,
    }
}

#[test]
fn a_secret_read_asks_in_every_mode_but_bypass_and_plan_refuses_it() {
    let w = world();
    let key = w.home.join(".ssh/id_rsa");
    for mode in [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Auto,
    ] {
        for tool in ["Read", "Grep", "Glob"] {
            let d = decide(&context(&w, mode), &call(&w, tool, read(&key)));
            // Asked of the user, never judged by the auto-mode classifier.
            assert!(asks(&d), "{mode} {tool}: {d:?}");
        }
    }
    let d = decide(
        &context(&w, PermissionMode::BypassPermissions),
        &call(&w, "Read", read(&key)),
    );
    assert_eq!(d, Decision::Allow(Grant::Explicit));
    let d = decide(
        &context(&w, PermissionMode::Plan),
        &call(&w, "Read", read(&key)),
    );
    let message = denied(&d).unwrap();
    assert!(message.contains("~/.ssh/id_rsa") && message.contains("secret stores"));
}

#[test]
fn an_allow_rule_the_user_wrote_opens_a_store_also_in_plan_mode() {
    let w = world();
    let creds = w.home.join(".aws/credentials");
    for mode in [PermissionMode::Default, PermissionMode::Plan] {
        let mut ctx = context(&w, mode);
        let rule = format!("Read(//{}/**)", w.home.join(".aws").display());
        allow(&mut ctx, &rule.replace("///", "//"), &w.project);
        let d = decide(&ctx, &call(&w, "Read", read(&creds)));
        assert_eq!(d, Decision::Allow(Grant::Explicit), "{mode}");
        // Only that store.
        let d = decide(&ctx, &call(&w, "Read", read(&w.home.join(".ssh/id_rsa"))));
        assert!(!matches!(d, Decision::Allow(_)), "{mode}: {d:?}");
    }
}

#[test]
fn secrets_reached_sideways_are_secrets() {
    let w = world();
    let ctx = context(&w, PermissionMode::Default);
    std::os::unix::fs::symlink(w.home.join(".ssh/id_rsa"), w.project.join("notes.txt")).unwrap();
    for path in [
        w.project.join("notes.txt"),
        w.project.join("../../.ssh/id_rsa"),
        PathBuf::from("/proc/self/environ"),
        w.home.join("vault/token"),
        w.home.join("code/.env.production"),
    ] {
        let d = decide(&ctx, &call(&w, "Read", read(&path)));
        assert!(asks(&d), "{}: {d:?}", path.display());
    }
    // The project's own `.env` is the project's.
    let d = decide(&ctx, &call(&w, "Read", read(&w.project.join(".env"))));
    assert_eq!(d, Decision::Allow(Grant::Explicit));
}

#[test]
fn unattended_a_secret_read_is_refused_naming_the_rule_that_would_allow_it() {
    let w = world();
    let mut ctx = context(&w, PermissionMode::Default);
    ctx.interactive = false;
    let d = decide(&ctx, &call(&w, "Read", read(&w.home.join(".ssh/id_rsa"))));
    let message = denied(&d).unwrap();
    assert!(message.contains("Read(~/.ssh/id_rsa)"), "{message}");
    assert!(message.contains("nobody can answer"), "{message}");
}

#[test]
fn accept_edits_asks_before_writing_a_secret_even_inside_a_working_directory() {
    let w = world();
    let mut ctx = context(&w, PermissionMode::AcceptEdits);
    ctx.working_dirs.push(w.home.clone());
    for tool in ["Write", "Edit", "NotebookEdit"] {
        let d = decide(
            &ctx,
            &call(&w, tool, write(&w.home.join(".ssh/authorized_keys"))),
        );
        assert!(asks(&d), "{tool}: {d:?}");
    }
    let d = decide(&ctx, &call(&w, "Write", write(&w.home.join("notes.txt"))));
    assert_eq!(d, Decision::Allow(Grant::Explicit));
}

#[test]
fn accept_edits_asks_before_writing_what_runs_code_later() {
    let w = world();
    let ctx = context(&w, PermissionMode::AcceptEdits);
    for rel in [
        ".mcp.json",
        ".catui/settings.local.json",
        ".git/hooks/pre-commit",
        ".husky/pre-commit",
        ".githooks/pre-push",
        ".pre-commit-config.yaml",
        ".envrc",
        ".vscode/tasks.json",
        "web/.vscode/settings.json",
        ".idea/workspace.xml",
        ".devcontainer/devcontainer.json",
        ".bashrc",
    ] {
        for tool in ["Write", "Edit", "NotebookEdit"] {
            let d = decide(&ctx, &call(&w, tool, write(&w.project.join(rel))));
            assert!(asks(&d), "{tool} {rel}: {d:?}");
        }
    }
    for command in [
        "echo '{}' > .mcp.json",
        "echo 'touch x' >> .husky/pre-commit",
        "cp src/main.rs .githooks/post-merge",
        "touch .envrc",
        "mkdir -p .vscode",
    ] {
        let d = decide(&ctx, &call(&w, "Bash", bash(command)));
        assert!(asks(&d), "{command}: {d:?}");
    }
    let d = decide(
        &ctx,
        &call(&w, "Write", write(&w.project.join("src/lib.rs"))),
    );
    assert_eq!(d, Decision::Allow(Grant::Explicit));
    // A shell edit runs confined to the working directories.
    let d = decide(&ctx, &call(&w, "Bash", bash("echo x > src/out.txt")));
    assert_eq!(d, Decision::Allow(Grant::Edits));
    // Plan mode refuses them as every other write.
    let plan = context(&w, PermissionMode::Plan);
    let d = decide(
        &plan,
        &call(&w, "Write", write(&w.project.join(".mcp.json"))),
    );
    assert!(denied(&d).is_some(), "{d:?}");
}

fn teammate(mode: Option<PermissionMode>) -> Access {
    Access::Agent {
        subagent_type: "teammate".into(),
        read_only: false,
        mode,
        read_only_types: Vec::new(),
    }
}

#[test]
fn a_mode_wider_than_the_sessions_is_the_users_to_grant() {
    let w = world();
    use PermissionMode::*;
    // (session, requested, asks)
    for (session, wanted, asked) in [
        (Default, BypassPermissions, true),
        (Default, AcceptEdits, true),
        (Default, Auto, true),
        (AcceptEdits, BypassPermissions, true),
        (Auto, BypassPermissions, true),
        (Default, Default, false),
        (AcceptEdits, AcceptEdits, false),
        (AcceptEdits, Default, false),
        (BypassPermissions, BypassPermissions, false),
    ] {
        let mut ctx = context(&w, session);
        // Even a rule allowing the tool does not grant the mode.
        allow(&mut ctx, "TeamCreate", &w.project);
        let d = decide(&ctx, &call(&w, "TeamCreate", teammate(Some(wanted))));
        assert_eq!(asks(&d), asked, "{session} -> {wanted}: {d:?}");
        if !asked {
            assert_eq!(d, Decision::Allow(Grant::Explicit));
        }
    }
    let mut ctx = context(&w, Default);
    ctx.interactive = false;
    let d = decide(
        &ctx,
        &call(&w, "TeamCreate", teammate(Some(BypassPermissions))),
    );
    assert!(
        denied(&d).unwrap().contains("wider permission mode"),
        "{d:?}"
    );
}

#[test]
fn plan_mode_starts_nothing_in_a_wider_mode() {
    let w = world();
    let ctx = context(&w, PermissionMode::Plan);
    let explore = Access::Agent {
        subagent_type: "Explore".into(),
        read_only: true,
        mode: Some(PermissionMode::Default),
        read_only_types: Vec::new(),
    };
    assert!(denied(&decide(&ctx, &call(&w, "Agent", explore))).is_some());
    let inherits = Access::Agent {
        subagent_type: "Explore".into(),
        read_only: true,
        mode: None,
        read_only_types: Vec::new(),
    };
    assert_eq!(
        decide(&ctx, &call(&w, "Agent", inherits)),
        Decision::Allow(Grant::Explicit)
    );
}

#[test]
fn git_pointed_at_a_repository_inside_the_project_asks() {
    let w = world();
    let ctx = context(&w, PermissionMode::Default);
    for command in [
        "git -C vendor/x.git log",
        "cd vendor/x.git && git log",
        "cd vendor && git -C x.git log",
        "env -C vendor/x.git git log",
        "git -C .. log",
        "git -C /tmp log",
        "git -C ~/other log",
        "env -C ~ git log",
        "cd && git log",
        "cd $D && git log",
        "git --git-dir=vendor/x.git log",
        "find vendor -execdir git log \\;",
    ] {
        let d = decide(&ctx, &call(&w, "Bash", bash(command)));
        assert!(asks(&d), "{command}: {d:?}");
    }
    let absolute = format!("git -C {} log", w.project.join("src").display());
    for command in [
        "git log",
        "git -C src log",
        "cd src && git log",
        "cd vendor && ls",
        absolute.as_str(),
    ] {
        let d = decide(&ctx, &call(&w, "Bash", bash(command)));
        assert_eq!(d, Decision::Allow(Grant::ReadOnly), "{command}");
    }
    // The session's own directory counts too.
    let mut inside = call(&w, "Bash", bash("git log"));
    inside.cwd = w.project.join("vendor/x.git");
    assert!(asks(&decide(&ctx, &inside)));
    // acceptEdits does not let it write its way around the check.
    let edits = context(&w, PermissionMode::AcceptEdits);
    let d = decide(
        &edits,
        &call(&w, "Bash", bash("git -C vendor/x.git log > log.txt")),
    );
    assert!(asks(&d), "{d:?}");
}
