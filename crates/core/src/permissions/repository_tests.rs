//! Tests of which directories git would use someone else's repository from.

use super::*;

fn world() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap().join("project");
    std::fs::create_dir_all(root.join(".git/objects")).unwrap();
    std::fs::create_dir_all(root.join("src/deep")).unwrap();
    let bare = root.join("vendor/x.git");
    std::fs::create_dir_all(bare.join("objects")).unwrap();
    std::fs::create_dir_all(bare.join("refs/heads")).unwrap();
    std::fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(bare.join("config"), "[core]\n\tfsmonitor = touch x\n").unwrap();
    std::fs::create_dir_all(root.join("lib/nested/.git")).unwrap();
    std::fs::create_dir_all(root.join("lib/nested/src")).unwrap();
    (tmp, root)
}

#[test]
fn the_project_and_its_plain_directories_use_the_projects_repository() {
    let (_tmp, root) = world();
    let dirs = [root.clone()];
    assert_eq!(foreign_repository(&root, &dirs), None);
    assert_eq!(foreign_repository(&root.join("src/deep"), &dirs), None);
    assert_eq!(foreign_repository(&root.join("missing"), &dirs), None);
}

#[test]
fn committed_nested_and_outside_repositories_are_foreign() {
    let (_tmp, root) = world();
    let dirs = [root.clone()];
    for dir in [
        root.join("vendor/x.git"),
        root.join("vendor/x.git/refs"),
        root.join("lib/nested"),
        root.join("lib/nested/src"),
        root.parent().unwrap().to_path_buf(),
    ] {
        assert!(
            foreign_repository(&dir, &dirs).is_some(),
            "{}",
            dir.display()
        );
    }
}
