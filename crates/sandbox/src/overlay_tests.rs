use super::*;

#[test]
fn layout_covers_nested_dirs_once_and_names_layers_stably() {
    let scratch = Path::new("/s");
    let dirs = vec![
        PathBuf::from("/home/u"),
        PathBuf::from("/home/u/proj"),
        PathBuf::from("/work/other"),
    ];
    let layers = layout(scratch, &dirs);
    assert_eq!(layers.len(), 2);
    assert_eq!(layers[0].target, PathBuf::from("/home/u"));
    assert_eq!(layers[1].target, PathBuf::from("/work/other"));
    assert!(layers[0].upper.starts_with("/s"));
    assert_ne!(layers[0].upper, layers[1].upper);
    assert_eq!(layout(scratch, &dirs), layers);
}

#[test]
fn unusable_refuses_nested_scratch_and_option_characters() {
    assert!(unusable(Path::new("/home/u"), Path::new("/home/u/.scratch")).is_some());
    assert!(unusable(Path::new("/a,b"), Path::new("/s")).is_some());
    assert!(unusable(Path::new("/a"), Path::new("/s")).is_none());
}

#[test]
fn changes_name_added_modified_and_deleted_paths() {
    use std::os::unix::fs::symlink;
    let real = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    std::fs::write(real.path().join("kept"), "a").unwrap();
    std::fs::write(real.path().join("gone"), "a").unwrap();
    let layers = layout(scratch.path(), &[real.path().to_path_buf()]);
    let upper = &layers[0].upper;
    std::fs::create_dir_all(upper).unwrap();
    let before = Snapshot::take(&layers);
    std::fs::write(upper.join("kept"), "changed").unwrap();
    std::fs::write(upper.join("new"), "n").unwrap();
    symlink("kept", upper.join("link")).unwrap();
    // A whiteout is a 0/0 character device; an ordinary user cannot make
    // one outside overlayfs, so stand in with a deletion of an upper file.
    std::fs::write(upper.join("gone"), "x").unwrap();
    let middle = Snapshot::take(&layers);
    let changes = Changes::between(&before, &middle);
    let root = real.path();
    assert_eq!(changes.added, vec![root.join("link"), root.join("new")]);
    assert_eq!(changes.modified, vec![root.join("gone"), root.join("kept")]);
    assert!(changes.deleted.is_empty());
    std::fs::remove_file(upper.join("new")).unwrap();
    let after = Snapshot::take(&layers);
    assert_eq!(
        Changes::between(&middle, &after).deleted,
        vec![root.join("new")]
    );
}

#[test]
fn remove_opens_up_unreadable_directories() {
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().unwrap();
    let scratch = base.path().join("scratch");
    let locked = scratch.join("a/locked");
    std::fs::create_dir_all(&locked).unwrap();
    std::fs::write(locked.join("f"), "x").unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    remove(&scratch).unwrap();
    assert!(!scratch.exists());
}
