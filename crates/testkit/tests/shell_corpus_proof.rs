//! The public shell corpus cannot rot: every line it calls mutating is run
//! with plain bash (no catui, no confinement) in a fresh copy of its world
//! and must really change something; `edit` lines must change only files
//! of the project (never `.git/` internals, HOME or the directory next to
//! it); `read` lines must change nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use catui_testkit::shell_corpus::{self, Class, Entry, World};

/// A scratch directory removed at the end of the test.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("catui-corpus-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What running `entry` unconfined changes, in a fresh copy of `world`.
fn changes_of(world: &World, scratch: &Path, n: usize, entry: &Entry) -> Vec<PathBuf> {
    let copy = world.copy_to(&scratch.join(format!("run{n}"))).unwrap();
    let before = copy.snapshot();
    copy.run(&entry.command).unwrap();
    let after = copy.snapshot();
    let changed = shell_corpus::changed(&before, &after);
    let _ = std::fs::remove_dir_all(&copy.root);
    changed
}

fn in_project_files(path: &Path) -> bool {
    path.starts_with("project") && !path.starts_with("project/.git") && path != Path::new("project")
}

#[test]
fn mutating_lines_mutate_and_edits_stay_in_the_project() {
    let scratch = Scratch::new("proof");
    let world = World::build(&scratch.0.join("world")).unwrap();
    let mut wrong = Vec::new();
    let mut proven = 0;
    for (n, e) in shell_corpus::entries().iter().enumerate() {
        if !e.class.mutates() {
            continue;
        }
        let changed = changes_of(&world, &scratch.0, n, e);
        if changed.is_empty() {
            wrong.push(format!("line {} `{}` changed nothing", e.line, e.command));
            continue;
        }
        proven += 1;
        if e.class == Class::Edit
            && let Some(p) = changed.iter().find(|p| !in_project_files(p))
        {
            wrong.push(format!(
                "line {} `{}` is an edit but changed {}",
                e.line,
                e.command,
                p.display()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(proven >= 150, "only {proven} mutating lines");
}

#[test]
fn read_lines_change_nothing() {
    let scratch = Scratch::new("reads");
    // One world for all of them: each is compared with the state just
    // before it ran.
    let world = World::build(&scratch.0.join("world")).unwrap();
    let mut wrong = Vec::new();
    let mut reads = 0;
    for e in shell_corpus::entries() {
        // `read-confined` lines run project code (a Makefile): only their
        // confinement makes them read-only, so they are not run bare here.
        if !matches!(e.class, Class::Read | Class::FalseAsk) {
            continue;
        }
        reads += 1;
        let before = world.snapshot();
        world.run(&e.command).unwrap();
        let changed = shell_corpus::changed(&before, &world.snapshot());
        if !changed.is_empty() {
            wrong.push(format!(
                "line {} `{}` changed {:?}",
                e.line, e.command, changed
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(reads >= 200, "only {reads} read lines");
}
