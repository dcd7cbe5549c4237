//! Memory files: order, caps, imports, and the gate against links out.

use std::os::unix::fs::symlink;

use super::*;
use crate::permissions::secrets::SecretStores;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The session's gate for a project in `cwd`, with `home` as `~`.
fn gate(cwd: &Path, config: &Path, home: &Path) -> FileGate {
    let secrets =
        SecretStores::new(Some(home), &[], &[cwd.to_path_buf()]).with_catui_dir(config, &[]);
    FileGate::for_session(&[cwd.to_path_buf()], config, secrets)
}

fn load(cwd: &Path, config: &Path, home: &Path) -> MemoryLoad {
    load_memory_files(cwd, config, &gate(cwd, config, home))
}

/// The files under `root` (a real /AGENTS.md may come first).
fn ours<'a>(load: &'a MemoryLoad, root: &Path) -> Vec<(PathBuf, &'a str)> {
    load.files
        .iter()
        .filter(|f| f.path.starts_with(root))
        .map(|f| (f.path.clone(), f.content.as_str()))
        .collect()
}

#[test]
fn user_file_first_then_root_down_to_cwd() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let cfg = root.join("cfg");
    let repo = root.join("repo");
    let cwd = repo.join("crates/app");
    std::fs::create_dir_all(&cwd).unwrap();
    write(&cfg.join("AGENTS.md"), "user");
    write(&root.join("CLAUDE.md"), "outer claude");
    write(&repo.join("AGENTS.md"), "repo agents");
    write(&repo.join("CLAUDE.md"), "repo claude");
    write(&cwd.join("AGENTS.md"), "nearest");
    // Neither an empty file nor a directory with the name counts.
    write(&repo.join("crates/AGENTS.md"), "  \n");
    std::fs::create_dir_all(repo.join("crates/CLAUDE.md")).unwrap();

    let loaded = load(&cwd, &cfg, &root);
    assert_eq!(
        ours(&loaded, &root),
        vec![
            (cfg.join("AGENTS.md"), "user"),
            (root.join("CLAUDE.md"), "outer claude"),
            (repo.join("AGENTS.md"), "repo agents"),
            (repo.join("CLAUDE.md"), "repo claude"),
            (cwd.join("AGENTS.md"), "nearest"),
        ]
    );
    assert_eq!(loaded.files[0].path, cfg.join("AGENTS.md"));
    assert!(loaded.refused.is_empty(), "{:?}", loaded.refused);
}

#[test]
fn a_file_reached_twice_is_included_once() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().canonicalize().unwrap().join("repo");
    write(&repo.join("AGENTS.md"), "shared rules");
    symlink(repo.join("AGENTS.md"), repo.join("CLAUDE.md")).unwrap();
    // The config dir is the repo itself: its AGENTS.md is the same file.
    let loaded = load_memory_files(
        &repo,
        &repo,
        &FileGate::for_session(
            std::slice::from_ref(&repo),
            &repo,
            SecretStores::new(None, &[], std::slice::from_ref(&repo)),
        ),
    );
    let ours = ours(&loaded, &repo);
    assert_eq!(ours.len(), 1);
    assert_eq!(ours[0].1, "shared rules");
}

#[test]
fn large_files_are_cut_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().canonicalize().unwrap();
    // Multi-byte characters straddle the cap: the cut must not split one.
    let big = "é".repeat(MEMORY_FILE_CAP_BYTES);
    write(&cwd.join("AGENTS.md"), &big);
    let loaded = load(&cwd, &cwd.join("no-config"), &cwd);
    let file = loaded
        .files
        .iter()
        .find(|f| f.path.starts_with(&cwd))
        .unwrap();
    let (kept, note) = file.content.split_once("\n\n[catui:").unwrap();
    assert!(kept.len() <= MEMORY_FILE_CAP_BYTES && kept.len() > MEMORY_FILE_CAP_BYTES - 4);
    assert!(kept.chars().all(|c| c == 'é'));
    assert!(note.contains(&format!("{} bytes", big.len())));
}

#[test]
fn small_files_are_kept_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().canonicalize().unwrap();
    let exact = "a".repeat(MEMORY_FILE_CAP_BYTES);
    write(&cwd.join("CLAUDE.md"), &exact);
    let loaded = load(&cwd, &cwd.join("no-config"), &cwd);
    let file = loaded
        .files
        .iter()
        .find(|f| f.path.starts_with(&cwd))
        .unwrap();
    assert_eq!(file.content, exact);
}

/// A home with a key, notes and a cloned project inside.
struct Clone {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    config: PathBuf,
}

fn clone() -> Clone {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().canonicalize().unwrap();
    let project = home.join("src/proj");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    write(&home.join(".ssh/id_rsa"), "SSH-PRIVATE-KEY");
    write(&home.join("diary.txt"), "DIARY");
    let config = home.join(".catui");
    write(
        &config.join("settings.json"),
        r#"{"env":{"T":"SETTINGS-TOKEN"}}"#,
    );
    Clone {
        _tmp: tmp,
        home,
        project,
        config,
    }
}

fn prompt_text(load: &MemoryLoad) -> String {
    load.files
        .iter()
        .map(|f| f.content.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn links_out_of_the_project_into_secrets_or_procfs_are_refused_and_said() {
    let c = clone();
    // Relative links survive a clone at any depth.
    symlink("../../.ssh/id_rsa", c.project.join("AGENTS.md")).unwrap();
    symlink("/proc/self/environ", c.project.join("CLAUDE.md")).unwrap();
    let sub = c.project.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    symlink("../../../diary.txt", sub.join("AGENTS.md")).unwrap();
    symlink("../../../.catui/settings.json", sub.join("CLAUDE.md")).unwrap();
    let loaded = load(&sub, &c.config, &c.home);
    let text = prompt_text(&loaded);
    for leaked in ["SSH-PRIVATE-KEY", "DIARY", "SETTINGS-TOKEN", "PATH="] {
        assert!(!text.contains(leaked), "{leaked} in {text}");
    }
    assert_eq!(loaded.refused.len(), 4, "{:#?}", loaded.refused);
    assert!(loaded.refused.iter().any(|r| r.contains("secret store")));
    assert!(loaded.refused.iter().any(|r| r.contains("procfs")));
    assert!(loaded.refused.iter().any(|r| r.contains("outside")));
}

#[test]
fn a_sub_directory_may_link_to_its_repositorys_file() {
    let c = clone();
    write(&c.project.join("docs/RULES.md"), "repository rules");
    let sub = c.project.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    symlink("../docs/RULES.md", sub.join("CLAUDE.md")).unwrap();
    let loaded = load(&sub, &c.config, &c.home);
    assert!(prompt_text(&loaded).contains("repository rules"));
    assert!(loaded.refused.is_empty(), "{:?}", loaded.refused);
}

#[test]
fn imports_are_included_after_their_file_within_the_same_bounds() {
    let c = clone();
    write(
        &c.project.join("AGENTS.md"),
        "Rules. See @docs/style.md and @docs/missing.md, mail @someone.\n\
         `@docs/in-code.md` and\n```\n@docs/in-fence.md\n```\nAlso @./leak.md and @~/diary.txt.",
    );
    write(&c.project.join("docs/style.md"), "Style: @deeper.md");
    write(&c.project.join("docs/deeper.md"), "DEEPER");
    write(&c.project.join("docs/in-code.md"), "IN-CODE");
    write(&c.project.join("docs/in-fence.md"), "IN-FENCE");
    symlink("../../.ssh/id_rsa", c.project.join("leak.md")).unwrap();
    let loaded = load(&c.project, &c.config, &c.home);
    let names: Vec<String> = loaded
        .files
        .iter()
        .filter(|f| f.path.starts_with(&c.project))
        .map(|f| {
            f.path
                .strip_prefix(&c.project)
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    assert_eq!(names, ["AGENTS.md", "docs/style.md", "docs/deeper.md"]);
    let style = loaded
        .files
        .iter()
        .find(|f| f.path.ends_with("docs/style.md"))
        .unwrap();
    assert_eq!(
        style.imported_by.as_deref(),
        Some(c.project.join("AGENTS.md").as_path())
    );
    let text = prompt_text(&loaded);
    for absent in ["IN-CODE", "IN-FENCE", "SSH-PRIVATE-KEY", "DIARY"] {
        assert!(!text.contains(absent), "{absent}");
    }
    assert_eq!(loaded.refused.len(), 2, "{:#?}", loaded.refused);
    assert!(loaded.refused.iter().all(|r| r.contains("imports")));
}

#[test]
fn import_cycles_and_depth_are_bounded() {
    let c = clone();
    write(&c.project.join("AGENTS.md"), "A @b.md");
    write(&c.project.join("b.md"), "B @AGENTS.md @c1.md");
    for i in 1..10 {
        write(
            &c.project.join(format!("c{i}.md")),
            &format!("C{i} @c{}.md", i + 1),
        );
    }
    let loaded = load(&c.project, &c.config, &c.home);
    let text = prompt_text(&loaded);
    assert_eq!(text.matches("A @b.md").count(), 1);
    assert!(text.contains("C3"));
    assert!(!text.contains("C5"), "{text}");
}

#[test]
fn the_users_file_above_the_project_may_link_within_its_own_folder() {
    let c = clone();
    write(&c.home.join("dotfiles/AGENTS.md"), "MY RULES");
    symlink("dotfiles/AGENTS.md", c.home.join("AGENTS.md")).unwrap();
    symlink(".ssh/id_rsa", c.home.join("CLAUDE.md")).unwrap();
    let loaded = load(&c.project, &c.config, &c.home);
    let text = prompt_text(&loaded);
    assert!(text.contains("MY RULES"));
    assert!(!text.contains("SSH-PRIVATE-KEY"));
    assert_eq!(loaded.refused.len(), 1, "{:?}", loaded.refused);
}
