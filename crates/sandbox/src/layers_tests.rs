//! Unit tests of which layers cover which guarantees.

use super::*;

fn layers(bubblewrap: bool, landlock: u8, seccomp: bool) -> Layers {
    Layers {
        bubblewrap,
        landlock,
        seccomp,
    }
}

#[test]
fn all_three_cover_everything_and_need_no_notice() {
    let all = layers(true, 7, true);
    assert!(all.complete());
    assert_eq!(all.notice(true), None);
    assert_eq!(all.names(), ["bubblewrap", "landlock", "seccomp"]);
}

#[test]
fn landlock_with_scopes_and_seccomp_cover_everything_without_bubblewrap() {
    let l = layers(false, 6, true);
    assert!(l.complete(), "{:?}", l.uncovered());
    assert_eq!(l.notice(false), None, "nothing is lost");
    let notice = l.notice(true).unwrap();
    assert!(notice.contains("lacks bubblewrap"), "{notice}");
    assert!(notice.contains("still enforce every guarantee"), "{notice}");
    assert!(notice.contains("no network"), "{notice}");
}

#[test]
fn an_old_landlock_leaves_other_processes_uncovered_without_bubblewrap() {
    let l = layers(false, 5, true);
    assert_eq!(l.uncovered(), [Guarantee::Processes]);
    let notice = l.notice(false).unwrap();
    assert!(notice.contains("other processes"), "{notice}");
    assert!(notice.contains("ask before they run"), "{notice}");
}

#[test]
fn only_seccomp_refuses_unix_sockets() {
    assert_eq!(layers(true, 7, false).uncovered(), [Guarantee::UnixSockets]);
    assert_eq!(
        layers(false, 0, true).uncovered(),
        [Guarantee::Files, Guarantee::Processes, Guarantee::Secrets]
    );
    assert_eq!(Layers::none().uncovered(), Guarantee::ALL);
    assert!(Layers::none().names().is_empty());
}

#[test]
fn detection_is_stable_and_this_machine_has_every_layer() {
    let first = Layers::detect();
    assert_eq!(first, Layers::detect());
    // This project's machines (and CI, which installs bubblewrap) have all three.
    assert!(first.complete(), "{first:?}: {:?}", first.notice(false));
}
