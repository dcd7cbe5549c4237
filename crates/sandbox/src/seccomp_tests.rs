//! Unit tests of the seccomp filter's construction (its effect on real
//! processes is tested in `tests/layers.rs`).

use super::*;

#[test]
fn both_profiles_compile_after_the_prologue() {
    let ro = program(&Confinement::read_only("/t".into(), vec![])).unwrap();
    let ws = program(&Confinement::workspace(vec![], Network::Off)).unwrap();
    let proxied = program(&Confinement::workspace(
        vec![],
        Network::Proxy {
            socket: "/s".into(),
        },
    ))
    .unwrap();
    let head = prologue();
    for p in [&ro, &ws, &proxied] {
        assert_eq!(p[..head.len()], head[..]);
        assert!(p.len() > head.len() + 50, "{}", p.len());
        assert!(p.len() < usize::from(u16::MAX));
    }
    // Refusing metadata changes takes more rules than allowing them.
    assert!(ro.len() > ws.len());
    assert_ne!(ws, proxied);
}

#[test]
fn the_prologue_checks_the_architecture_first() {
    let head = prologue();
    assert_eq!((head[0].code, head[0].k), (0x20, 4));
    assert_eq!(head[2].k, 0x8000_0000, "another ABI ends the process");
    assert!(supported());
}
