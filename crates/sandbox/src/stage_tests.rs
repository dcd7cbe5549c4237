//! Unit tests of the inner stage's arguments.

use super::*;

#[test]
fn what_is_encoded_decodes_to_the_same_confinement() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("w")).unwrap();
    std::fs::write(root.join("secret"), "s").unwrap();
    let mut c = Confinement::workspace(
        vec![root.join("w")],
        Network::Proxy {
            socket: root.join("p.sock"),
        },
    );
    c.hidden = vec![root.join("secret")];
    let layers = Layers {
        bubblewrap: false,
        landlock: 6,
        seccomp: true,
    };
    let mut args = encode(&c, &layers);
    args.extend(["/bin/echo".into(), "hi".into()]);
    let r = decode(args).unwrap();
    assert!(r.landlock && r.seccomp);
    assert_eq!(r.command, ["/bin/echo", "hi"]);
    assert_eq!(r.confinement.writable, [root.join("w")]);
    assert_eq!(r.confinement.hidden, [root.join("secret")]);
    assert!(r.confinement.metadata && r.confinement.unix_sockets);
    assert_eq!(r.confinement.network, c.network);
}

#[test]
fn bad_arguments_are_refused() {
    let args = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
    assert!(decode(args(&["--landlock"])).is_err());
    assert!(decode(args(&["--bogus", "--", "ls"])).is_err());
    assert!(decode(args(&["--write"])).is_err());
    assert!(decode(args(&["--"])).is_err());
    assert!(decode(args(&["--", "ls"])).is_ok());
}
