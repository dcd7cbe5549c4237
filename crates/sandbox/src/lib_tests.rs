//! Unit tests of the confinement type's path lists.

use super::*;

#[test]
fn writable_dirs_are_canonical_existing_and_include_the_temp_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().canonicalize().unwrap();
    std::fs::create_dir(real.join("a")).unwrap();
    std::fs::create_dir(real.join("t")).unwrap();
    std::os::unix::fs::symlink(real.join("a"), real.join("link")).unwrap();
    let mut c = Confinement::read_only(real.join("t"), vec![]);
    c.writable = vec![real.join("link"), real.join("a"), real.join("missing")];
    assert_eq!(c.writable_dirs(), vec![real.join("a"), real.join("t")]);
}

#[test]
fn hidden_paths_are_existing_and_followed_through_symlinks() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().canonicalize().unwrap();
    std::fs::create_dir(real.join("store")).unwrap();
    std::fs::write(real.join("key"), "k").unwrap();
    std::os::unix::fs::symlink(real.join("store"), real.join(".ssh")).unwrap();
    let c = Confinement::read_only(
        real.join("t"),
        vec![real.join(".ssh"), real.join("key"), real.join("gone")],
    );
    assert_eq!(c.hidden_paths(), vec![real.join("store"), real.join("key")]);
}

#[test]
fn read_only_and_workspace_grant_what_they_say() {
    let ro = Confinement::read_only("/t".into(), vec!["/h".into()]);
    assert!(!ro.metadata && !ro.unix_sockets && ro.clean_environment);
    assert_eq!(ro.network, Network::Off);
    assert_eq!(ro.proxy_socket(), None);
    let ws = Confinement::workspace(
        vec!["/p".into()],
        Network::Proxy {
            socket: "/s".into(),
        },
    );
    assert!(ws.metadata && ws.unix_sockets && !ws.clean_environment);
    assert!(ws.hidden.is_empty());
    assert_eq!(ws.proxy_socket(), Some(Path::new("/s")));
}
