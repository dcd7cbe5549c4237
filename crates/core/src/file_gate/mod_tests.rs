//! The gate against links out of the project, into secret stores and
//! onto kernel file systems, and its limits.

use std::os::unix::fs::symlink;

use super::*;

struct Setup {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    config: PathBuf,
    gate: FileGate,
}

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().canonicalize().unwrap();
    let project = home.join("work/proj");
    let config = home.join(".catui");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(config.join("plans")).unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
    std::fs::write(home.join("notes.txt"), "private notes").unwrap();
    std::fs::write(config.join("settings.json"), r#"{"env":{"TOKEN":"t"}}"#).unwrap();
    std::fs::write(config.join("plans/p.md"), "the plan").unwrap();
    let secrets = SecretStores::new(Some(&home), &[], std::slice::from_ref(&project))
        .with_catui_dir(&config, &[]);
    let gate = FileGate::for_session(std::slice::from_ref(&project), &config, secrets);
    Setup {
        _tmp: tmp,
        home,
        project,
        config,
        gate,
    }
}

#[test]
fn a_file_of_the_project_and_of_catuis_readable_parts_pass() {
    let s = setup();
    std::fs::write(s.project.join("AGENTS.md"), "rules").unwrap();
    std::fs::create_dir(s.project.join("docs")).unwrap();
    symlink("../AGENTS.md", s.project.join("docs/CLAUDE.md")).unwrap();
    assert_eq!(
        s.gate.read_text(&s.project.join("AGENTS.md"), 100).unwrap(),
        "rules"
    );
    let linked = s
        .gate
        .read(&s.project.join("docs/CLAUDE.md"), Limit::Whole(100))
        .unwrap();
    assert_eq!(linked.resolved, s.project.join("AGENTS.md"));
    assert_eq!(
        s.gate.read_text(&s.config.join("plans/p.md"), 100).unwrap(),
        "the plan"
    );
}

#[test]
fn links_out_of_the_roots_are_refused() {
    let s = setup();
    symlink("../../notes.txt", s.project.join("CLAUDE.md")).unwrap();
    let err = s
        .gate
        .read_text(&s.project.join("CLAUDE.md"), 100)
        .unwrap_err();
    assert!(matches!(err, GateRefusal::Outside { .. }), "{err}");
    assert!(err.to_string().contains("notes.txt"), "{err}");
}

#[test]
fn links_into_secret_stores_are_refused_even_inside_a_root() {
    let s = setup();
    symlink("../../.ssh/id_rsa", s.project.join("AGENTS.md")).unwrap();
    let err = s
        .gate
        .read_text(&s.project.join("AGENTS.md"), 100)
        .unwrap_err();
    assert!(matches!(err, GateRefusal::Secret { .. }), "{err}");
    // catui's settings are inside a root (its directory) but a store.
    symlink(s.config.join("settings.json"), s.project.join("CLAUDE.md")).unwrap();
    let err = s
        .gate
        .read_text(&s.project.join("CLAUDE.md"), 100)
        .unwrap_err();
    assert!(matches!(err, GateRefusal::Secret { .. }), "{err}");
    // Even when the home directory itself is the root.
    let wide = s.gate.within(&s.home);
    let err = wide
        .read_text(&s.project.join("AGENTS.md"), 100)
        .unwrap_err();
    assert!(matches!(err, GateRefusal::Secret { .. }), "{err}");
}

#[test]
fn kernel_file_systems_are_refused_whatever_the_roots() {
    let s = setup();
    let everything = s.gate.within(Path::new("/"));
    for target in [
        "/proc/self/environ",
        "/proc/self/status",
        "/proc/cpuinfo",
        "/sys/kernel/hostname",
    ] {
        let link = s.project.join("CLAUDE.md");
        let _ = std::fs::remove_file(&link);
        symlink(target, &link).unwrap();
        let err = everything.read_text(&link, 1 << 20).unwrap_err();
        assert!(
            matches!(err, GateRefusal::Kernel { .. } | GateRefusal::Secret { .. }),
            "{target}: {err}"
        );
    }
}

#[test]
fn within_narrows_to_one_folder() {
    let s = setup();
    let skill = s.project.join("skills/one");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(s.project.join("outside.md"), "x").unwrap();
    symlink("../../outside.md", skill.join("SKILL.md")).unwrap();
    let narrow = s.gate.within(&skill);
    assert!(matches!(
        narrow.read_text(&skill.join("SKILL.md"), 10).unwrap_err(),
        GateRefusal::Outside { .. }
    ));
    // The session's gate would have let it through.
    assert!(s.gate.read_text(&skill.join("SKILL.md"), 10).is_ok());
}

#[test]
fn limits_cut_or_refuse() {
    let s = setup();
    std::fs::write(s.project.join("big.md"), "0123456789").unwrap();
    let path = s.project.join("big.md");
    let cut = s.gate.read(&path, Limit::Prefix(4)).unwrap();
    assert_eq!(cut.bytes, b"0123");
    assert!(cut.truncated);
    assert_eq!(cut.size, 10);
    let whole = s.gate.read(&path, Limit::Prefix(10)).unwrap();
    assert!(!whole.truncated);
    assert!(matches!(
        s.gate.read(&path, Limit::Whole(9)).unwrap_err(),
        GateRefusal::Read(SafeReadError::TooLarge { .. })
    ));
    assert!(
        s.gate
            .read_text(&s.project.join("missing.md"), 10)
            .unwrap_err()
            .is_not_found()
    );
}

#[test]
fn fifos_are_refused_without_blocking() {
    let s = setup();
    crate::safe_fs::mkfifo(&s.project.join("AGENTS.md"));
    let err = s
        .gate
        .read_text(&s.project.join("AGENTS.md"), 10)
        .unwrap_err();
    assert!(err.to_string().contains("FIFO"), "{err}");
}
