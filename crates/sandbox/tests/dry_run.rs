//! Dry runs through the real layers: the project and home seen through
//! overlays whose changes land in a scratch area, every attack on every
//! guarantee still failing, and the real tree byte-identical (content,
//! modes, owners, times) whatever the command did to its copy.
//!
//! The inner stage is this crate's `catui-sandbox-stage` binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use catui_sandbox::overlay::{Changes, Snapshot};
use catui_sandbox::{Confinement, Guarantee, Layers};
use common::{World, attacks_on, run};

/// A dry run over the world's project and home, with its scratch area
/// outside both.
fn dry_run(world: &World, scratch: &std::path::Path) -> Confinement {
    Confinement::dry_run(
        vec![world.project.clone(), world.home.clone()],
        scratch.to_path_buf(),
        world.temp.clone(),
        vec![world.home.join(".ssh"), world.home.join(".netrc")],
    )
}

#[tokio::test]
async fn a_dry_run_changes_only_its_copy_and_later_runs_see_it() {
    let world = World::new();
    let scratch_dir = tempfile::tempdir().unwrap();
    let scratch = scratch_dir.path().join("s");
    let sandbox = common::sandbox(Layers::detect());
    let c = dry_run(&world, &scratch);
    let layers = c.overlays();
    assert_eq!(layers.len(), 2);
    let real_before = world.snapshot();
    let before = Snapshot::take(&layers);
    let (code, out) = run(
        &sandbox,
        &world,
        &c,
        "touch x && echo hi > y && chmod 600 f && rm -rf sub && mkdir -p build && \
         echo cache > \"$HOME/.cache-file\" && ls && cat y",
    )
    .await;
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, "build\nf\nx\ny\nhi\n");
    let after = Snapshot::take(&layers);
    let changes = Changes::between(&before, &after);
    let p = |n: &str| world.project.join(n);
    assert!(changes.added.contains(&p("x")), "{changes:?}");
    assert!(changes.added.contains(&p("y")), "{changes:?}");
    assert!(
        changes.added.contains(&world.home.join(".cache-file")),
        "{changes:?}"
    );
    assert_eq!(changes.modified, vec![p("f")]);
    assert_eq!(changes.deleted, vec![p("sub")]);
    // The real tree did not move.
    assert_eq!(world.snapshot(), real_before);
    // A later run of the same scratch area builds on the first.
    let (code, out) = run(&sandbox, &world, &c, "cat y; test -e sub || echo no-sub").await;
    assert_eq!((code, out.as_str()), (0, "hi\nno-sub\n"));
    catui_sandbox::overlay::remove(&scratch).unwrap();
    assert!(!scratch.exists());
    world.end();
}

#[tokio::test]
async fn every_attack_still_fails_in_a_dry_run() {
    let world = World::new();
    let scratch_dir = tempfile::tempdir().unwrap();
    let sandbox = common::sandbox(Layers::detect());
    let c = dry_run(&world, &scratch_dir.path().join("s"));
    let mut leaks = Vec::new();
    for g in Guarantee::ALL {
        for attack in attacks_on(g, &world) {
            let (_, out) = run(&sandbox, &world, &c, &attack.command).await;
            if let Some(leak) = attack.leaked(&world, &out) {
                leaks.push(format!("{g:?}: `{}` {leak}", attack.command));
            }
        }
    }
    world.end();
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}

#[tokio::test]
async fn without_bubblewrap_a_dry_run_is_refused_not_run() {
    let world = World::new();
    let scratch_dir = tempfile::tempdir().unwrap();
    let layers = Layers {
        bubblewrap: false,
        ..Layers::detect()
    };
    let sandbox = common::sandbox(layers);
    let c = dry_run(&world, &scratch_dir.path().join("s"));
    let err = sandbox
        .launch(std::path::Path::new("/bin/true"), &[], &world.project, &c)
        .unwrap_err();
    assert!(err.to_string().contains("dry run is not possible"), "{err}");
    world.end();
}

#[tokio::test]
async fn a_dry_run_runs_under_its_process_limit() {
    let world = World::new();
    let scratch_dir = tempfile::tempdir().unwrap();
    let sandbox = common::sandbox(Layers::detect());
    let c = Confinement {
        max_processes: Some(16),
        ..dry_run(&world, &scratch_dir.path().join("s"))
    };
    // The stage set RLIMIT_NPROC (soft and hard) in the sandbox's own
    // user namespace: the kernel refuses forks past it for any user but
    // root (whose dry runs catui's watch stops at the limit instead; the
    // CLI's dry_run tests start more processes than the limit).
    let (code, out) = run(&sandbox, &world, &c, "ulimit -Su; ulimit -Hu").await;
    assert_eq!((code, out.as_str()), (0, "16\n16\n"));
    // Without it, the machine's own limit.
    let (_, out) = run(
        &sandbox,
        &world,
        &dry_run(&world, &scratch_dir.path().join("t")),
        "ulimit -Su",
    )
    .await;
    assert_ne!(out, "16\n");
    world.end();
}
