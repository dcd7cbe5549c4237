//! The walk for `.env*` files outside the project.

use super::*;

fn touch(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, "KEY=canary").unwrap();
}

#[test]
fn finds_env_files_beside_and_below_but_not_in_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let project = root.join("work/project");
    touch(&project.join(".env"));
    touch(&root.join("work/other/.env"));
    touch(&root.join("work/deep/a/b/.env.production"));
    touch(&root.join(".envrc"));
    touch(&root.join("work/other/node_modules/pkg/.env"));
    touch(&root.join("work/other/README"));
    let scan = scan(
        std::slice::from_ref(&root),
        std::slice::from_ref(&project),
        &[],
        ENTRY_BUDGET,
    );
    let mut found = scan.found.clone();
    found.sort();
    assert_eq!(
        found,
        [
            root.join(".envrc"),
            root.join("work/deep/a/b/.env.production"),
            root.join("work/other/.env"),
        ]
    );
    assert!(scan.unreached.is_empty());
}

#[test]
fn what_the_budget_does_not_reach_is_hidden_but_never_a_project() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let project = root.join("a/project");
    let keep = root.join("tmp/scratch");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&keep).unwrap();
    for n in 0..20 {
        touch(&root.join(format!("b/d{n}/x/.env")));
    }
    let scan = scan(
        std::slice::from_ref(&root),
        std::slice::from_ref(&project),
        std::slice::from_ref(&keep),
        5,
    );
    // Whatever was neither found nor reached is hidden whole.
    for n in 0..20 {
        let env = root.join(format!("b/d{n}/x/.env"));
        assert!(
            scan.found.contains(&env) || scan.unreached.iter().any(|u| env.starts_with(u)),
            "{} escaped: {scan:?}",
            env.display()
        );
    }
    for hidden in &scan.unreached {
        assert!(!project.starts_with(hidden), "{scan:?}");
        assert!(!keep.starts_with(hidden), "{scan:?}");
    }
}

#[test]
fn roots_are_home_the_projects_top_and_service_dirs() {
    let r = roots(
        Some(Path::new("/home/u")),
        &[PathBuf::from("/home/u/code/p"), PathBuf::from("/work/x")],
    );
    assert!(r.contains(&PathBuf::from("/home/u")));
    assert!(r.contains(&PathBuf::from("/home")));
    assert!(r.contains(&PathBuf::from("/work")));
    assert!(r.contains(&PathBuf::from("/srv")));
    assert!(!r.contains(&PathBuf::from("/")));
}
