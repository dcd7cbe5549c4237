//! Unit tests of Landlock's read allow-list.

use super::*;

fn rules_for(hidden: &[PathBuf]) -> Vec<(PathBuf, BitFlags<AccessFs>)> {
    read_rules(hidden)
}

fn access_of(rules: &[(PathBuf, BitFlags<AccessFs>)], path: &Path) -> Option<BitFlags<AccessFs>> {
    rules.iter().find(|(p, _)| p == path).map(|(_, a)| *a)
}

#[test]
fn secrets_are_left_out_and_their_ancestors_only_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().canonicalize().unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(home.join("code/src")).unwrap();
    std::fs::write(home.join(".netrc"), "machine x").unwrap();
    std::fs::write(home.join("notes"), "n").unwrap();
    let rules = rules_for(&[home.join(".ssh"), home.join(".netrc")]);
    let read = AccessFs::from_read(FS_ABI);
    let list: BitFlags<AccessFs> = AccessFs::ReadDir.into();
    assert_eq!(access_of(&rules, Path::new("/")), Some(list));
    assert_eq!(access_of(&rules, &home), Some(list));
    assert_eq!(access_of(&rules, &home.join("code")), Some(read));
    assert_eq!(access_of(&rules, &home.join("notes")), Some(read));
    assert_eq!(access_of(&rules, &home.join(".ssh")), None);
    assert_eq!(access_of(&rules, &home.join(".netrc")), None);
    // Nothing beneath a secret or a readable directory gets a rule of its own.
    assert!(!rules.iter().any(|(p, _)| p.starts_with(home.join(".ssh"))));
    assert!(
        !rules
            .iter()
            .any(|(p, _)| p.starts_with(home.join("code/src")))
    );
}

#[test]
fn of_dev_only_harmless_devices_are_readable() {
    let rules = rules_for(&[]);
    let read = AccessFs::from_read(FS_ABI);
    assert_eq!(access_of(&rules, Path::new("/dev/null")), Some(read));
    assert_eq!(access_of(&rules, Path::new("/dev/urandom")), Some(read));
    assert_eq!(
        access_of(&rules, Path::new("/dev")),
        Some(AccessFs::ReadDir.into())
    );
    assert!(access_of(&rules, Path::new("/usr")).is_some());
    for dev in ["/dev/shm", "/dev/pts", "/dev/mem", "/dev/sda", "/dev/tty"] {
        assert_eq!(access_of(&rules, Path::new(dev)), None, "{dev}");
    }
}

#[test]
fn symlinks_on_the_way_get_no_rule_of_their_own() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().canonicalize().unwrap();
    std::fs::create_dir_all(home.join(".aws")).unwrap();
    std::os::unix::fs::symlink(home.join(".aws"), home.join("aws-link")).unwrap();
    let rules = rules_for(&[home.join(".aws")]);
    assert_eq!(access_of(&rules, &home.join("aws-link")), None);
}

#[test]
fn the_kernel_reports_its_abi() {
    // This project's machines run a kernel with Landlock and its scopes.
    assert!(
        abi_version() >= crate::layers::LANDLOCK_SCOPES_ABI,
        "{}",
        abi_version()
    );
}
