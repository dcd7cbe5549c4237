#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn changes_are_counted_and_named_relative_to_the_project() {
    let root = Path::new("/p");
    let changes = Changes {
        added: vec![root.join("x"), root.join("y")],
        modified: vec![PathBuf::from("/home/u/.cache/c")],
        deleted: vec![root.join("src")],
    };
    assert_eq!(
        describe_changes(&changes, root),
        "Changes in the copy: 2 added, 1 modified, 1 deleted:\n+ x\n+ y\n~ /home/u/.cache/c\n- src"
    );
    assert_eq!(
        describe_changes(&Changes::default(), root),
        "Changes in the copy: none."
    );
}

#[test]
fn only_the_first_twenty_are_named() {
    let root = Path::new("/p");
    let changes = Changes {
        added: (0..25).map(|i| root.join(format!("f{i}"))).collect(),
        ..Changes::default()
    };
    let text = describe_changes(&changes, root);
    assert_eq!(text.lines().filter(|l| l.starts_with("+ ")).count(), 20);
    assert!(text.ends_with("… and 5 more"), "{text}");
}

#[test]
fn discard_removes_the_area_and_forgets_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let area = DryRunArea::new(dir.path().to_path_buf(), "sess-1");
    let scratch = area.open();
    assert!(area.exists());
    std::fs::create_dir_all(scratch.join("layer/upper")).unwrap();
    area.record(DryRunRecord {
        command: "cargo test".into(),
        exit_code: Some(101),
        note: Some("2 failures".into()),
    });
    assert_eq!(area.records().len(), 1);
    area.discard();
    assert!(!area.exists());
    assert!(!scratch.exists());
    assert!(area.records().is_empty());
}

#[test]
fn sweep_removes_only_areas_of_dead_catuis() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join(format!("{}-live", std::process::id()));
    // A pid far above any pid_max in use.
    let dead = dir.path().join("2147483646-dead");
    let other = dir.path().join("not-an-area");
    for d in [&mine, &dead, &other] {
        std::fs::create_dir_all(d.join("x")).unwrap();
    }
    sweep(dir.path());
    assert!(mine.exists());
    assert!(!dead.exists());
    assert!(other.exists());
}

#[test]
fn a_path_the_copy_changed_gets_a_note_until_the_area_is_discarded() {
    let project = tempfile::tempdir().unwrap();
    let project = project.path().canonicalize().unwrap();
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(project.join("src/lib.rs"), "x").unwrap();
    std::fs::write(project.join("README"), "r").unwrap();
    let root = tempfile::tempdir().unwrap();
    let area = DryRunArea::new(root.path().to_path_buf(), "s");
    // Nothing ran dry yet: no note anywhere.
    assert_eq!(area.note_for(&project.join("src/lib.rs")), None);
    let scratch = area.open();
    let layers = catui_sandbox::overlay::layout(&scratch, std::slice::from_ref(&project));
    let upper = &layers[0].upper;
    std::fs::create_dir_all(upper.join("src")).unwrap();
    std::fs::write(upper.join("src/lib.rs"), "changed").unwrap();
    std::fs::write(upper.join("new.txt"), "n").unwrap();
    area.note_copy(&Snapshot::take(&layers));

    let note = area.note_for(&project.join("src/lib.rs")).unwrap();
    assert!(
        note.starts_with("Note: a dry run changed this path"),
        "{note}"
    );
    // A path only the copy has (not canonicalisable) is found too.
    assert!(area.note_for(&project.join("new.txt")).is_some());
    let dir = area.note_for(&project.join("src")).unwrap();
    assert!(dir.contains("1 path beneath this one"), "{dir}");
    let all = area.note_for(&project).unwrap();
    assert!(all.contains("2 paths beneath this one"), "{all}");
    assert_eq!(area.note_for(&project.join("README")), None);
    area.discard();
    assert_eq!(area.note_for(&project.join("src/lib.rs")), None);
}
