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
