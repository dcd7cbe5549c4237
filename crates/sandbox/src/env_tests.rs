//! Unit tests of the confined environment and git's neutralisation.

use super::*;

fn value(vars: &[(OsString, Option<OsString>)], name: &str) -> Option<Option<String>> {
    vars.iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_ref().map(|v| v.to_string_lossy().into_owned()))
}

#[test]
fn a_clean_environment_sets_git_config_through_the_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let vars = confined(tmp.path(), true);
    assert_eq!(value(&vars, "GIT_OPTIONAL_LOCKS"), Some(Some("0".into())));
    assert_eq!(value(&vars, "GIT_TERMINAL_PROMPT"), Some(Some("0".into())));
    assert_eq!(value(&vars, "GIT_SSH_COMMAND"), Some(None));
    let count: usize = value(&vars, "GIT_CONFIG_COUNT")
        .flatten()
        .unwrap()
        .parse()
        .unwrap();
    let pairs: Vec<(String, String)> = (0..count)
        .map(|i| {
            (
                value(&vars, &format!("GIT_CONFIG_KEY_{i}"))
                    .flatten()
                    .unwrap(),
                value(&vars, &format!("GIT_CONFIG_VALUE_{i}"))
                    .flatten()
                    .unwrap(),
            )
        })
        .collect();
    for (k, v) in [
        ("safe.bareRepository", "explicit"),
        ("core.fsmonitor", "false"),
        ("protocol.allow", "never"),
        ("protocol.ext.allow", "never"),
        ("credential.helper", ""),
        ("core.hooksPath", "/dev/null"),
    ] {
        assert!(
            pairs.contains(&(k.into(), v.into())),
            "{k}={v} in {pairs:?}"
        );
    }
    let plain = confined(tmp.path(), false);
    assert_eq!(plain.len(), 1, "only GIT_OPTIONAL_LOCKS: {plain:?}");
}

#[test]
fn drivers_are_found_in_the_repository_and_what_it_includes() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let sub = repo.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::write(
        repo.join(".git/config"),
        "[core]\n\tbare = false\n[diff \"img\"]\n\ttextconv = exiftool\n[filter \"lfs\"]\n\
         clean = git-lfs clean -- %f\n\tprocess = git-lfs filter-process\n[diff]\n\texternal = meld\n\
         [include]\n\tpath = extra.inc\n[diff.Old]\n\tcommand = old-diff\n",
    )
    .unwrap();
    std::fs::write(
        repo.join(".git/extra.inc"),
        "[merge \"ours\"]\n\tdriver = true\n[filter \"x\"] smudge = evil\n",
    )
    .unwrap();
    let keys = configured_drivers(&sub);
    for k in [
        "diff.img.textconv",
        "filter.lfs.clean",
        "filter.lfs.process",
        "diff.external",
        "merge.ours.driver",
        "diff.old.command",
        "filter.x.smudge",
    ] {
        assert!(keys.contains(k), "{k} in {keys:?}");
    }
    let config = git_config(&sub);
    assert!(config.contains(&("diff.img.textconv".into(), "cat".into())));
    assert!(config.contains(&("filter.lfs.process".into(), String::new())));
    assert!(config.contains(&("merge.ours.driver".into(), "false".into())));
}

#[test]
fn a_gitdir_file_leads_to_the_real_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real.git");
    let work = tmp.path().join("work");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join(".git"), format!("gitdir: {}\n", real.display())).unwrap();
    std::fs::write(real.join("config"), "[diff \"x\"]\n\ttextconv = t\n").unwrap();
    assert!(configured_drivers(&work).contains("diff.x.textconv"));
}
