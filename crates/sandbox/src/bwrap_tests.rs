//! Unit tests of bubblewrap's arguments.

use super::*;

#[test]
fn arguments_bind_writable_dirs_and_cover_secrets_after_the_base() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    let file = tmp.path().join("key");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(&file, "k").unwrap();
    let args = args(
        std::slice::from_ref(&tmp.path().to_path_buf()),
        &[dir.clone(), file.clone()],
    );
    let text: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let at = |s: &str| text.iter().position(|a| a == s).unwrap();
    assert_eq!(text[..2], ["--unshare-all", "--die-with-parent"]);
    assert!(text.windows(2).any(|w| w == ["--cap-drop", "ALL"]));
    assert!(
        at("--bind") > at("--proc"),
        "binds come after the base mounts"
    );
    assert!(at("--tmpfs") > at("--bind"), "secrets are covered last");
    let d = dir.display().to_string();
    let f = file.display().to_string();
    assert!(text.windows(2).any(|w| w == ["--remount-ro", d.as_str()]));
    assert!(
        text.windows(3)
            .any(|w| w == ["--ro-bind", "/dev/null", f.as_str()])
    );
    assert_eq!(text.last().map(String::as_str), Some("--"));
}

#[test]
fn a_success_is_remembered_only_under_the_same_key() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("config").join("sandbox-probe");
    assert!(!remembered(&file, "k1"), "nothing remembered yet");
    keep(&file, "k1");
    assert!(remembered(&file, "k1"));
    assert!(!remembered(&file, "k2"), "another boot, program or options");
    std::fs::write(&file, "k").unwrap();
    assert!(!remembered(&file, "k1"), "a torn file is not a success");
    let leftovers: Vec<_> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, ["sandbox-probe"], "no temporary file is left");
}

#[test]
fn the_key_names_the_boot_the_program_and_the_options() {
    let Some(bwrap) = program() else {
        panic!("bubblewrap is required by the sandbox tests (.ci/run installs it)");
    };
    let key = probe_key(bwrap).unwrap();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    assert!(key.contains(boot.trim()));
    assert!(key.contains(&bwrap.display().to_string()));
    assert!(key.contains("--unshare-all"));
}

#[test]
fn works_keeps_a_success_for_the_next_start() {
    let Some(bwrap) = program() else {
        panic!("bubblewrap is required by the sandbox tests (.ci/run installs it)");
    };
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("sandbox-probe");
    let probed = probe(bwrap);
    assert_eq!(works(Some(&file)), probed);
    assert_eq!(file.exists(), probed, "only a success is kept");
    if probed {
        assert!(remembered(&file, &probe_key(bwrap).unwrap()));
    }
}

#[test]
fn a_hidden_path_gone_since_the_list_was_made_is_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let kept = dir.path().join(".env");
    std::fs::write(&kept, "A=1").unwrap();
    let gone = dir.path().join("removed-project/.env");
    let args = args(&[], &[kept.clone(), gone.clone()]);
    assert!(args.iter().any(|a| a == kept.as_os_str()), "{args:?}");
    assert!(!args.iter().any(|a| a == gone.as_os_str()), "{args:?}");
}
