use super::*;

fn facts_of(dir: &Path, cache: Option<PathBuf>) -> Facts {
    MachineFacts::new(dir, cache, false)
        .wait(Duration::from_secs(10))
        .unwrap()
}

#[test]
fn the_os_comes_from_os_release_and_the_listing_is_shallow() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("src/deep")).unwrap();
    std::fs::write(tmp.path().join("README.md"), "x").unwrap();
    let facts = facts_of(tmp.path(), None);
    let release = std::fs::read_to_string("/etc/os-release").unwrap();
    let pretty = release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .unwrap()
        .trim_matches('"');
    assert_eq!(facts.os.as_deref(), Some(pretty));
    assert_eq!(facts.listing, vec!["README.md".to_string(), "src/".into()]);
    assert!(facts.versions.is_empty(), "nothing asks for a toolchain");
    let text = render_machine(&facts);
    assert!(text.starts_with("# Machine\nOS: "), "{text}");
    assert!(
        text.contains("Project top level: README.md, src/"),
        "{text}"
    );
    assert!(!text.contains("deep"), "{text}");
}

#[test]
fn versions_are_probed_for_the_project_s_files_and_remembered() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("main.py"), "print(1)\n").unwrap();
    let cache = tmp.path().join("cache");
    let facts = facts_of(&project, Some(cache.clone()));
    let python = facts.versions.iter().find(|(p, _)| p == "python3").unwrap();
    assert!(python.1.starts_with("Python 3"), "{python:?}");
    let remembered = std::fs::read_to_string(cache.join(CACHE_FILE)).unwrap();
    assert!(remembered.contains(&python.1), "{remembered}");
    // A remembered version is used as it is (the entry is changed here to
    // show that no probe ran).
    let edited = remembered.replace(&python.1, "Python 3.remembered");
    std::fs::write(cache.join(CACHE_FILE), edited).unwrap();
    let again = facts_of(&project, Some(cache));
    assert!(
        again
            .versions
            .contains(&("python3".into(), "Python 3.remembered".into())),
        "{again:?}"
    );
}

#[test]
fn the_rendering_stays_within_its_budget() {
    let facts = Facts {
        os: Some("Debian".into()),
        listing: (0..40)
            .map(|i| format!("a-rather-long-file-name-{i}.txt"))
            .collect(),
        more: 100,
        ..Facts::default()
    };
    let text = render_machine(&facts);
    assert!(text.chars().count() <= MAX_CHARS, "{}", text.len());
    assert!(text.ends_with('…'));
}
