//! Tests of [`decide`]: modes × tools × rules, compound commands, path
//! tricks around the plan file, and non-interactive denials.
//!
//! Shell read-only-ness comes from a small fake analyser so these tests do
//! not depend on the real tree-sitter analysis.

use std::path::{Path, PathBuf};

use super::*;

/// Programs the fake analyser treats as read-only.
const FAKE_READ_ONLY: &[&str] = &["ls", "cat", "grep", "head", "wc", "echo", "pwd", "cd"];

fn fake_analyze(command: &str) -> ShellAnalysis {
    let mut commands = Vec::new();
    for part in command.split(['|', ';', '&', '\n']) {
        let text = part.trim();
        if text.is_empty() {
            continue;
        }
        let (text, target) = match text.split_once('>') {
            Some((t, target)) => (t.trim(), Some(target.trim())),
            None => (text, None),
        };
        let argv: Vec<String> = text.split_whitespace().map(String::from).collect();
        let mut c = SimpleCommand::unanalysed(argv.clone(), text.to_string());
        if argv
            .first()
            .is_some_and(|p| FAKE_READ_ONLY.contains(&p.as_str()))
        {
            c.words_problem = None;
        }
        if let Some(target) = target {
            c.redirects.push(shell::Redirect {
                fd: None,
                op: ">".into(),
                target: target.to_string(),
                dynamic: false,
                writes: true,
            });
        }
        commands.push(c);
    }
    let read_only = !commands.is_empty() && commands.iter().all(SimpleCommand::is_read_only);
    ShellAnalysis {
        commands,
        line_problems: Vec::new(),
        read_only,
        needs_confinement: None,
        reason: (!read_only).then(|| "fake: not read-only".to_string()),
    }
}

struct Fixture {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    root: PathBuf,
    plan: PathBuf,
    ctx: PermissionContext,
}

fn fixture(mode: PermissionMode) -> Fixture {
    let project = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    let plans = std::fs::canonicalize(config.path()).unwrap().join("plans");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::create_dir_all(&plans).unwrap();
    let plan = plans.join("brave-quiet-otter.md");
    let mut ctx = PermissionContext::new(root.clone());
    ctx.plan_file = Some(plan.clone());
    ctx.auto_mode.enabled = mode == PermissionMode::Auto;
    transition_permission_mode(&mut ctx, mode).unwrap();
    Fixture {
        _dirs: (project, config),
        root,
        plan,
        ctx,
    }
}

fn call(f: &Fixture, tool: &str, access: Access) -> CallInfo {
    let read_only = match &access {
        Access::Shell { command, .. } => fake_analyze(command).read_only,
        Access::Read { .. } => true,
        _ => false,
    };
    CallInfo {
        tool_name: tool.to_string(),
        access,
        read_only,
        cwd: f.root.clone(),
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
        command: command.to_string(),
        unconfined: false,
    }
}

/// The built-in agent types that only read (the agents module's
/// definitions say so; permissions cannot look them up from here).
const READ_ONLY_TYPES: [&str; 2] = ["Explore", "Plan"];

fn agent(kind: &str) -> Access {
    Access::Agent {
        subagent_type: kind.to_string(),
        read_only: READ_ONLY_TYPES.contains(&kind),
        read_only_types: READ_ONLY_TYPES.map(String::from).to_vec(),
        mode: None,
    }
}

fn run(f: &Fixture, tool: &str, access: Access) -> Decision {
    decide_with(&f.ctx, &call(f, tool, access), &fake_analyze)
}

fn add(ctx: &mut PermissionContext, behavior: RuleBehavior, list: &str, root: &Path) {
    assert!(ctx.rules.add_cli_list(behavior, list, root).is_empty());
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    Allow,
    Ask,
    Deny,
    /// Auto mode hands it to the classifier.
    Classify,
}

fn kind(d: &Decision) -> Want {
    match d {
        Decision::Allow(_) => Want::Allow,
        Decision::Ask { .. } => Want::Ask,
        Decision::Deny { .. } => Want::Deny,
        Decision::Classify { .. } => Want::Classify,
    }
}

/// What plan mode allows and refuses, tool by tool, plus neighbours.
#[test]
fn plan_mode_table() {
    let f = fixture(PermissionMode::Plan);
    let main = f.root.join("src/main.rs");
    let rows: Vec<(&str, Access, Want)> = vec![
        ("Read", read(&main), Want::Allow),
        ("Read", read(Path::new("/etc/hostname")), Want::Allow),
        ("Grep", read(&f.root), Want::Allow),
        ("Glob", read(&f.root), Want::Allow),
        ("Write", write(&f.plan), Want::Allow),
        ("Write", write(&main), Want::Deny),
        ("Write", write(&f.root.join("new.rs")), Want::Deny),
        ("Edit", write(&f.plan), Want::Allow),
        ("Edit", write(&main), Want::Deny),
        ("NotebookEdit", write(&f.plan), Want::Deny),
        ("NotebookEdit", write(&f.root.join("a.ipynb")), Want::Deny),
        ("Bash", bash("ls"), Want::Allow),
        ("Bash", bash("ls -la | grep x"), Want::Allow),
        ("Bash", bash("rm file"), Want::Deny),
        ("Bash", bash("echo hi > out.txt"), Want::Deny),
        ("Agent", agent("Explore"), Want::Allow),
        ("Agent", agent("Plan"), Want::Allow),
        ("Agent", agent("general-purpose"), Want::Deny),
        ("ExitPlanMode", Access::Interaction, Want::Ask),
        ("AskUserQuestion", Access::Interaction, Want::Ask),
        ("TodoWrite", Access::Session, Want::Allow),
    ];
    for (tool, access, want) in rows {
        let d = run(&f, tool, access.clone());
        assert_eq!(kind(&d), want, "{tool} {access:?}: {d:?}");
    }
}

#[test]
fn plan_mode_denials_explain_what_to_do() {
    let f = fixture(PermissionMode::Plan);
    let Decision::Deny { message } = run(&f, "Edit", write(&f.root.join("src/main.rs"))) else {
        panic!("edit outside the plan must be denied");
    };
    assert!(message.contains("Plan mode is active"), "{message}");
    assert!(message.contains(&f.plan.display().to_string()), "{message}");
    assert!(message.contains("ExitPlanMode"), "{message}");
    let Decision::Deny { message } = run(&f, "Bash", bash("rm -rf src")) else {
        panic!("mutating bash must be denied");
    };
    assert!(
        message.contains("read-only") && message.contains("rm -rf src"),
        "{message}"
    );
}

#[test]
fn plan_mode_beats_allow_rules_but_deny_rules_still_deny() {
    let mut f = fixture(PermissionMode::Plan);
    let root = f.root.clone();
    add(
        &mut f.ctx,
        RuleBehavior::Allow,
        "Bash, Edit, Write, Edit(/src/**), Agent",
        &root,
    );
    assert_eq!(kind(&run(&f, "Bash", bash("rm file"))), Want::Deny);
    assert_eq!(
        kind(&run(&f, "Edit", write(&root.join("src/main.rs")))),
        Want::Deny
    );
    assert_eq!(
        kind(&run(&f, "Agent", agent("general-purpose"))),
        Want::Deny
    );
    add(
        &mut f.ctx,
        RuleBehavior::Deny,
        "Bash(ls:*), Read(/src/**)",
        &root,
    );
    assert_eq!(kind(&run(&f, "Bash", bash("ls"))), Want::Deny);
    assert_eq!(
        kind(&run(&f, "Read", read(&root.join("src/main.rs")))),
        Want::Deny
    );
}

#[test]
fn plan_file_path_tricks() {
    let f = fixture(PermissionMode::Plan);
    let plans = f.plan.parent().unwrap().to_path_buf();
    let file_name = f.plan.file_name().unwrap().to_str().unwrap().to_string();
    // Harmless other spellings of the same file are the plan file.
    let dotted = plans.join("x/../").join(&file_name);
    std::fs::create_dir(plans.join("x")).unwrap();
    assert_eq!(kind(&run(&f, "Write", write(&dotted))), Want::Allow);
    assert_eq!(
        kind(&run(&f, "Write", write(&plans.join(".").join(&file_name)))),
        Want::Allow
    );
    // A relative path resolved against the cwd.
    let rel = pathdiff(&f.plan, &f.root);
    assert_eq!(kind(&run(&f, "Write", write(&rel))), Want::Allow);
    // Case variants name another file on a case-sensitive filesystem.
    if !paths::CASE_INSENSITIVE_FS {
        let upper = plans.join(file_name.to_uppercase());
        assert_eq!(kind(&run(&f, "Write", write(&upper))), Want::Deny);
    }
    // Trailing slashes never name the file.
    let slashed = PathBuf::from(format!("{}/", f.plan.display()));
    assert_eq!(kind(&run(&f, "Write", write(&slashed))), Want::Deny);
    // `..` out of the plans directory to a same-named file elsewhere.
    let elsewhere = f.root.join(&file_name);
    assert_eq!(kind(&run(&f, "Write", write(&elsewhere))), Want::Deny);
    let sneaky = plans.join("../../").join(&file_name);
    assert_eq!(kind(&run(&f, "Write", write(&sneaky))), Want::Deny);
}

#[cfg(unix)]
#[test]
fn plan_file_symlink_tricks() {
    use std::os::unix::fs::symlink;

    // A symlink in the project named like the plan file, pointing at code.
    let f = fixture(PermissionMode::Plan);
    let main = f.root.join("src/main.rs");
    let name = f.plan.file_name().unwrap();
    symlink(&main, f.root.join(name)).unwrap();
    assert_eq!(
        kind(&run(&f, "Write", write(&f.root.join(name)))),
        Want::Deny
    );

    // A symlink to the plan file writes the plan file: allowed.
    symlink(&f.plan, f.root.join("plan-link.md")).unwrap();
    assert_eq!(
        kind(&run(&f, "Write", write(&f.root.join("plan-link.md")))),
        Want::Allow
    );

    // The plan file itself replaced by a symlink to code: the exception
    // must not follow it.
    let g = fixture(PermissionMode::Plan);
    let code = g.root.join("src/main.rs");
    symlink(&code, &g.plan).unwrap();
    assert_eq!(kind(&run(&g, "Write", write(&g.plan))), Want::Deny);
    assert_eq!(kind(&run(&g, "Write", write(&code))), Want::Deny);

    // A dangling symlink under the plan name (would create a file elsewhere).
    let h = fixture(PermissionMode::Plan);
    symlink(h.root.join("src/new.rs"), &h.plan).unwrap();
    assert_eq!(kind(&run(&h, "Write", write(&h.plan))), Want::Deny);

    // The plans directory reached through a symlinked directory is fine.
    let k = fixture(PermissionMode::Plan);
    symlink(k.plan.parent().unwrap(), k.root.join("plans-link")).unwrap();
    let via = k.root.join("plans-link").join(k.plan.file_name().unwrap());
    assert_eq!(kind(&run(&k, "Write", write(&via))), Want::Allow);

    // A plan file hard-linked to a project file is refused.
    let m = fixture(PermissionMode::Plan);
    std::fs::hard_link(m.root.join("src/main.rs"), &m.plan).unwrap();
    assert_eq!(kind(&run(&m, "Write", write(&m.plan))), Want::Deny);
}

#[test]
fn ask_rules_cannot_open_plan_mode() {
    let mut f = fixture(PermissionMode::Plan);
    let root = f.root.clone();
    add(&mut f.ctx, RuleBehavior::Ask, "Bash, Edit, Agent", &root);
    assert_eq!(kind(&run(&f, "Bash", bash("rm file"))), Want::Deny);
    assert_eq!(
        kind(&run(&f, "Edit", write(&root.join("src/main.rs")))),
        Want::Deny
    );
    assert_eq!(
        kind(&run(&f, "Agent", agent("general-purpose"))),
        Want::Deny
    );
    // What plan mode permits still follows the ask rules.
    assert_eq!(kind(&run(&f, "Bash", bash("ls"))), Want::Ask);
    let plan = f.plan.clone();
    assert_eq!(kind(&run(&f, "Edit", write(&plan))), Want::Ask);
}

#[test]
fn accept_edits_fs_commands_not_after_cd() {
    let f = fixture(PermissionMode::AcceptEdits);
    assert_eq!(kind(&run(&f, "Bash", bash("mkdir x"))), Want::Allow);
    assert_eq!(
        kind(&run(&f, "Bash", bash("cd /tmp && mkdir x"))),
        Want::Ask
    );
    assert_eq!(kind(&run(&f, "Bash", bash("cd src && ls"))), Want::Allow);
}

#[test]
fn plan_mode_without_plan_file_denies_writes() {
    let mut f = fixture(PermissionMode::Plan);
    f.ctx.plan_file = None;
    let Decision::Deny { message } = run(&f, "Write", write(&f.plan)) else {
        panic!("no plan file: writes denied");
    };
    assert!(message.contains("none is set up"), "{message}");
}

#[test]
fn sub_agents_cannot_enter_plan_mode() {
    let mut f = fixture(PermissionMode::Default);
    assert_eq!(
        kind(&run(&f, "EnterPlanMode", Access::Session)),
        Want::Allow
    );
    f.ctx.is_agent = true;
    assert_eq!(kind(&run(&f, "EnterPlanMode", Access::Session)), Want::Deny);
}

/// Modes × tools without rules.
#[test]
fn mode_defaults_table() {
    use PermissionMode::*;
    let outside = tempfile::tempdir().unwrap();
    let outside_file = std::fs::canonicalize(outside.path()).unwrap().join("x.txt");
    for mode in [Default, AcceptEdits, BypassPermissions, Auto] {
        let f = fixture(mode);
        let inside = f.root.join("src/lib.rs");
        let accept = mode == AcceptEdits;
        let bypass = mode == BypassPermissions;
        let writes_inside = if accept || bypass {
            Want::Allow
        } else {
            Want::Ask
        };
        // Auto mode: what would ask by default goes to the classifier;
        // interaction tools still ask the user.
        let default_ask = if mode == Auto {
            Want::Classify
        } else {
            Want::Ask
        };
        let writes_inside = if writes_inside == Want::Ask {
            default_ask
        } else {
            writes_inside
        };
        let bypass_or_ask = if bypass { Want::Allow } else { default_ask };
        let rows: Vec<(&str, Access, Want)> = vec![
            ("Read", read(&outside_file), Want::Allow),
            ("Grep", read(&f.root), Want::Allow),
            ("Bash", bash("ls -la"), Want::Allow),
            ("Write", write(&inside), writes_inside),
            ("Edit", write(&inside), writes_inside),
            (
                "NotebookEdit",
                write(&f.root.join("a.ipynb")),
                writes_inside,
            ),
            ("Write", write(&outside_file), bypass_or_ask),
            (
                "Write",
                write(&f.root.join(".catui/settings.json")),
                bypass_or_ask,
            ),
            ("Write", write(&f.root.join(".git/config")), bypass_or_ask),
            ("Bash", bash("npm test"), bypass_or_ask),
            ("Bash", bash("mkdir -p build/out"), writes_inside),
            ("Bash", bash("touch a.txt && cp a.txt b.txt"), writes_inside),
            ("Bash", bash("mv a.txt /tmp/a.txt"), bypass_or_ask),
            ("Bash", bash("cp -t /tmp a.txt"), bypass_or_ask),
            ("Bash", bash("mkdir $HOME/x"), bypass_or_ask),
            ("Bash", bash("rm a.txt"), bypass_or_ask),
            ("Agent", agent("general-purpose"), Want::Allow),
            ("AskUserQuestion", Access::Interaction, Want::Ask),
            ("ExitPlanMode", Access::Interaction, Want::Ask),
            ("TodoWrite", Access::Session, Want::Allow),
        ];
        for (tool, access, want) in rows {
            let d = run(&f, tool, access.clone());
            assert_eq!(kind(&d), want, "{mode} {tool} {access:?}: {d:?}");
        }
    }
}

#[test]
fn accept_edits_follows_symlinks_out_of_the_project() {
    let f = fixture(PermissionMode::AcceptEdits);
    let outside = tempfile::tempdir().unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), f.root.join("out")).unwrap();
    #[cfg(unix)]
    assert_eq!(
        kind(&run(&f, "Write", write(&f.root.join("out/x.txt")))),
        Want::Ask
    );
    assert_eq!(
        kind(&run(&f, "Write", write(&f.root.join("src/../../x.txt")))),
        Want::Ask
    );
}

#[test]
fn additional_working_dirs_count_for_accept_edits() {
    let mut f = fixture(PermissionMode::AcceptEdits);
    let extra = tempfile::tempdir().unwrap();
    let target = extra.path().join("notes.md");
    assert_eq!(kind(&run(&f, "Write", write(&target))), Want::Ask);
    f.ctx.working_dirs.push(extra.path().to_path_buf());
    assert_eq!(kind(&run(&f, "Write", write(&target))), Want::Allow);
}

#[test]
fn rule_order_deny_then_ask_then_allow() {
    let mut f = fixture(PermissionMode::Default);
    let root = f.root.clone();
    add(
        &mut f.ctx,
        RuleBehavior::Allow,
        "Bash(npm test), Edit(/src/**)",
        &root,
    );
    assert_eq!(kind(&run(&f, "Bash", bash("npm test"))), Want::Allow);
    assert_eq!(
        kind(&run(&f, "Edit", write(&root.join("src/a.rs")))),
        Want::Allow
    );
    assert_eq!(
        kind(&run(&f, "Write", write(&root.join("src/a.rs")))),
        Want::Allow
    );
    assert_eq!(
        kind(&run(&f, "Edit", write(&root.join("docs/a.md")))),
        Want::Ask
    );
    add(&mut f.ctx, RuleBehavior::Ask, "Edit(/src/secret/**)", &root);
    assert_eq!(
        kind(&run(&f, "Edit", write(&root.join("src/secret/k")))),
        Want::Ask
    );
    add(
        &mut f.ctx,
        RuleBehavior::Deny,
        "Bash(npm:*), Edit(/src/secret/**)",
        &root,
    );
    assert_eq!(kind(&run(&f, "Bash", bash("npm test"))), Want::Deny);
    assert_eq!(
        kind(&run(&f, "Edit", write(&root.join("src/secret/k")))),
        Want::Deny
    );
    let Decision::Deny { message } = run(&f, "Bash", bash("npm test")) else {
        panic!("denied");
    };
    assert!(
        message.contains("`Bash(npm:*)`") && message.contains("command line"),
        "{message}"
    );
}

#[test]
fn deny_rules_apply_in_bypass_mode_and_reads() {
    let mut f = fixture(PermissionMode::BypassPermissions);
    let root = f.root.clone();
    add(
        &mut f.ctx,
        RuleBehavior::Deny,
        "Read(.env), WebFetch, Agent(general-purpose)",
        &root,
    );
    assert_eq!(
        kind(&run(&f, "Read", read(&root.join("a/.env")))),
        Want::Deny
    );
    assert_eq!(kind(&run(&f, "Grep", read(&root.join(".env")))), Want::Deny);
    assert_eq!(kind(&run(&f, "WebFetch", Access::Session)), Want::Deny);
    assert_eq!(
        kind(&run(&f, "Agent", agent("general-purpose"))),
        Want::Deny
    );
    assert_eq!(kind(&run(&f, "Agent", agent("Explore"))), Want::Allow);
    assert_eq!(kind(&run(&f, "Bash", bash("rm -rf /"))), Want::Allow);
}

#[cfg(unix)]
#[test]
fn deny_rules_see_both_the_written_name_and_the_target() {
    let mut f = fixture(PermissionMode::BypassPermissions);
    let root = f.root.clone();
    add(&mut f.ctx, RuleBehavior::Deny, "Edit(/src/main.rs)", &root);
    std::os::unix::fs::symlink(root.join("src/main.rs"), root.join("innocent.rs")).unwrap();
    assert_eq!(
        kind(&run(&f, "Edit", write(&root.join("innocent.rs")))),
        Want::Deny
    );
    assert_eq!(
        kind(&run(&f, "Edit", write(&root.join("src/./main.rs")))),
        Want::Deny
    );
}

#[test]
fn compound_commands_against_rules() {
    let mut f = fixture(PermissionMode::Default);
    let root = f.root.clone();
    add(
        &mut f.ctx,
        RuleBehavior::Allow,
        "Bash(npm test), Bash(git diff:*)",
        &root,
    );
    let rows = [
        ("npm test && git diff HEAD", Want::Allow),
        ("ls && npm test", Want::Allow),
        ("npm test | grep ok", Want::Allow),
        ("npm test && rm -rf /", Want::Ask),
        ("git difftool", Want::Ask),
        ("npm test; curl x | sh", Want::Ask),
    ];
    for (command, want) in rows {
        assert_eq!(kind(&run(&f, "Bash", bash(command))), want, "{command}");
    }
    add(&mut f.ctx, RuleBehavior::Deny, "Bash(rm:*)", &root);
    assert_eq!(kind(&run(&f, "Bash", bash("ls && rm x"))), Want::Deny);
    assert_eq!(kind(&run(&f, "Bash", bash("ls | sudo rm x"))), Want::Deny);
}

#[test]
fn ask_suggestions_name_a_rule() {
    let f = fixture(PermissionMode::Default);
    let Decision::Ask { suggestion, .. } = run(&f, "Bash", bash("npm test")) else {
        panic!("ask");
    };
    assert_eq!(suggestion, Some(Rule::with_specifier("Bash", "npm test")));
    let Decision::Ask { suggestion, reason } = run(&f, "Edit", write(&f.root.join("src/main.rs")))
    else {
        panic!("ask");
    };
    assert_eq!(suggestion, Some(Rule::with_specifier("Edit", "/src/**")));
    assert!(reason.contains("main.rs"), "{reason}");
    let Decision::Ask { suggestion, .. } = run(&f, "Write", write(Path::new("/var/tmp/x/y.txt")))
    else {
        panic!("ask");
    };
    assert_eq!(suggestion.unwrap().to_string(), "Edit(//var/tmp/x/**)");
}

#[test]
fn a_command_with_no_name_of_its_own_never_suggests_all_of_bash() {
    // Allowing all of Bash is never what "don't ask again" means for a
    // command whose name is only known when it runs: at most the exact
    // line is suggested (what stream-json sends as permission_suggestions).
    let f = fixture(PermissionMode::Default);
    for command in ["$(echo ls)", "$CMD --flag", "`echo ls` x"] {
        let Decision::Ask { suggestion, .. } = run(&f, "Bash", bash(command)) else {
            panic!("{command} should ask");
        };
        if let Some(rule) = suggestion {
            assert!(rule.specifier.is_some(), "{command}: {rule}");
            assert!(!rule.to_string().contains(":*"), "{command}: {rule}");
        }
    }
}

#[test]
fn suggested_rules_allow_the_call_they_were_suggested_for() {
    let mut f = fixture(PermissionMode::Default);
    let root = f.root.clone();
    for (tool, access) in [
        ("Bash", bash("npm run build")),
        ("Edit", write(&root.join("src/deep/x.rs"))),
    ] {
        let Decision::Ask {
            suggestion: Some(rule),
            ..
        } = run(&f, tool, access.clone())
        else {
            panic!("{tool} should ask with a suggestion");
        };
        add(&mut f.ctx, RuleBehavior::Allow, &rule.to_string(), &root);
        assert_eq!(kind(&run(&f, tool, access)), Want::Allow, "{rule}");
    }
}

#[test]
fn non_interactive_asks_become_denials_naming_the_fix() {
    let mut f = fixture(PermissionMode::Default);
    f.ctx.interactive = false;
    let Decision::Deny { message } = run(&f, "Bash", bash("npm test")) else {
        panic!("deny");
    };
    assert!(message.contains("non-interactive"), "{message}");
    assert!(message.contains("`Bash(npm test)`"), "{message}");
    assert!(message.contains("--allowed-tools"), "{message}");

    let Decision::Deny { message } = run(&f, "Edit", write(&f.root.join("src/main.rs"))) else {
        panic!("deny");
    };
    assert!(message.contains("`Edit(/src/**)`"), "{message}");
    assert!(
        message.contains("--permission-mode acceptEdits"),
        "{message}"
    );

    let Decision::Deny { message } = run(&f, "AskUserQuestion", Access::Interaction) else {
        panic!("deny");
    };
    assert!(message.contains("nobody can answer"), "{message}");

    let root = f.root.clone();
    add(&mut f.ctx, RuleBehavior::Ask, "Read(/src/**)", &root);
    let Decision::Deny { message } = run(&f, "Read", read(&root.join("src/main.rs"))) else {
        panic!("deny");
    };
    assert!(
        message.contains("remove the ask rule `Read(/src/**)`"),
        "{message}"
    );
    // Allowed calls stay allowed.
    assert_eq!(kind(&run(&f, "Bash", bash("ls"))), Want::Allow);
}

#[test]
fn real_analyzer_entry_point_runs() {
    // `decide` uses the real shell analysis; whatever it concludes about
    // `ls`, a deny rule must still win.
    let mut f = fixture(PermissionMode::Default);
    let root = f.root.clone();
    add(&mut f.ctx, RuleBehavior::Deny, "Bash(ls:*)", &root);
    let info = call(&f, "Bash", bash("ls -la"));
    assert_eq!(kind(&decide(&f.ctx, &info)), Want::Deny);
}

/// `target` relative to `base` with `..` steps (both canonical).
fn pathdiff(target: &Path, base: &Path) -> PathBuf {
    let t: Vec<_> = target.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c.as_os_str());
    }
    out
}
