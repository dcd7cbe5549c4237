//! The acceptEdits decision on shell lines that write: confined when the
//! sandbox can keep their writes inside, asked when a `cp`/`mv` carries a
//! link, and — where nothing confines writes — asked for trees, paths not
//! there yet and commands only a rule allows. The real shell analysis.

use std::path::PathBuf;

use catui_protocol::PermissionMode;

use crate::permissions::rules::{RuleOrigin, SourcedRule};
use crate::permissions::{
    Access, CallInfo, Decision, Grant, PermissionContext, Rule, decide, transition_permission_mode,
};

struct World {
    _tmp: tempfile::TempDir,
    project: PathBuf,
}

/// A project beside `outside/`, with `docs/out -> ../../outside` (a link
/// out), `deep/y/lnk -> ../../z` (inside at its depth, outside one level
/// up), a tree without links (`src/`) and a plain file.
fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let project = root.join("project");
    for dir in [
        "outside",
        "z",
        "project/docs",
        "project/deep/y",
        "project/z",
        "project/src/a",
    ] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    std::os::unix::fs::symlink("../../outside", project.join("docs/out")).unwrap();
    std::os::unix::fs::symlink("../../z", project.join("deep/y/lnk")).unwrap();
    std::fs::write(project.join("src/a/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(project.join("notes.txt"), "n\n").unwrap();
    World { _tmp: tmp, project }
}

fn context(w: &World, confines_writes: bool) -> PermissionContext {
    let mut ctx = PermissionContext::new(w.project.clone());
    ctx.can_confine = confines_writes;
    ctx.can_confine_writes = confines_writes;
    transition_permission_mode(&mut ctx, PermissionMode::AcceptEdits).unwrap();
    ctx
}

fn decide_line(ctx: &PermissionContext, w: &World, command: &str, unconfined: bool) -> Decision {
    decide(
        ctx,
        &CallInfo {
            tool_name: "Bash".into(),
            access: Access::Shell {
                command: command.into(),
                unconfined,
            },
            read_only: false,
            cwd: w.project.clone(),
        },
    )
}

fn allow_rule(ctx: &mut PermissionContext, rule: &str) {
    ctx.rules.allow.push(SourcedRule {
        rule: Rule::parse(rule).unwrap(),
        origin: RuleOrigin::cli(ctx.working_dirs[0].clone()),
    });
}

#[test]
fn lines_allowed_for_their_edits_run_confined_to_the_working_dirs() {
    let w = world();
    let ctx = context(&w, true);
    for line in [
        "echo x > f.txt",
        "cp -r src src2 && echo ok > src2/new.txt",
        "mkdir -p build && cp notes.txt build/ && ls > build/list.txt",
        "mv notes.txt moved.txt",
        // A source the line itself creates: confinement carries it.
        "mkdir fresh && mv fresh fresh2",
    ] {
        assert_eq!(
            decide_line(&ctx, &w, line, false),
            Decision::Allow(Grant::Edits),
            "{line}"
        );
    }
    // Nothing written: read-only as before; nothing of acceptEdits' needed.
    assert_eq!(
        decide_line(&ctx, &w, "ls src", false),
        Decision::Allow(Grant::ReadOnly)
    );
}

#[test]
fn a_copy_or_move_that_carries_a_link_asks() {
    let w = world();
    for confines in [true, false] {
        let ctx = context(&w, confines);
        for line in [
            "cp -a docs d3 && echo k >> d3/out/authorized_keys",
            "cp -r docs/. d4 && echo x > d4/out/x",
            "mv deep/y yy && echo x > yy/lnk/c.txt",
            "cp -R deep d5",
        ] {
            match decide_line(&ctx, &w, line, false) {
                Decision::Ask { reason, .. } => {
                    assert!(reason.contains("symbolic link"), "{line}: {reason}")
                }
                d => panic!("{line} (confines {confines}): {d:?}"),
            }
        }
        // A link named itself resolves where it points: outside, so asked.
        assert!(matches!(
            decide_line(&ctx, &w, "mv docs/out o && echo x > o/x", false),
            Decision::Ask { .. }
        ));
    }
}

#[test]
fn without_write_confinement_trees_new_paths_and_rule_commands_ask() {
    let w = world();
    let mut ctx = context(&w, false);
    allow_rule(&mut ctx, "Bash(ln:*)");
    for line in [
        "cp -r src src2",
        "mv src src3",
        "mkdir fresh && mv fresh fresh2",
        "ln -s ../outside l && echo x > l/pwned",
    ] {
        assert!(
            matches!(decide_line(&ctx, &w, line, false), Decision::Ask { .. }),
            "{line}"
        );
    }
    // Plain files are copied and moved as before.
    for line in [
        "cp notes.txt n2.txt",
        "mv notes.txt n3.txt",
        "echo x > f.txt",
    ] {
        assert_eq!(
            decide_line(&ctx, &w, line, false),
            Decision::Allow(Grant::Explicit),
            "{line}"
        );
    }
    // With the sandbox the rule's line runs confined.
    let mut ctx = context(&w, true);
    allow_rule(&mut ctx, "Bash(ln:*)");
    assert_eq!(
        decide_line(&ctx, &w, "ln -s ../outside l && echo x > l/pwned", false),
        Decision::Allow(Grant::Edits)
    );
}

#[test]
fn an_edit_line_that_asks_to_run_unconfined_asks() {
    let w = world();
    let ctx = context(&w, true);
    assert!(matches!(
        decide_line(&ctx, &w, "touch a.txt", true),
        Decision::Ask { .. }
    ));
}
