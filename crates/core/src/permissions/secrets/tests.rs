//! Tests of the secret store list and its resolution.

use super::*;

fn stores() -> SecretStores {
    SecretStores::new(
        Some(Path::new("/home/u")),
        &["~/.vault".into(), "/opt/keys/".into(), "relative".into()],
        &[PathBuf::from("/home/u/proj")],
    )
}

#[test]
fn defaults_and_additions_are_secret_with_everything_beneath() {
    let s = stores();
    assert!(s.is_secret(Path::new("/home/u/.ssh/id_rsa")));
    assert!(s.is_secret(Path::new("/home/u/.ssh")));
    assert!(s.is_secret(Path::new("/home/u/.aws/credentials")));
    assert!(s.is_secret(Path::new("/etc/shadow")));
    assert!(s.is_secret(Path::new("/home/u/.vault/x")));
    assert!(s.is_secret(Path::new("/opt/keys/a.pem")));
    assert!(!s.is_secret(Path::new("/home/u/.sshx")));
    assert!(!s.is_secret(Path::new("/home/u/proj/src/main.rs")));
    assert!(!s.is_secret(Path::new("/home/u/relative")));
    assert_eq!(
        s.store_of(Path::new("/home/u/.aws/credentials")),
        Some(Path::new("/home/u/.aws"))
    );
}

#[test]
fn other_processes_environment_and_memory_are_secret() {
    let s = stores();
    assert!(s.is_secret(Path::new("/proc/self/environ")));
    assert!(s.is_secret(Path::new("/proc/1234/environ")));
    assert!(s.is_secret(Path::new("/proc/1234/task/1235/mem")));
    assert!(!s.is_secret(Path::new("/proc/cpuinfo")));
    assert!(!s.is_secret(Path::new("/proc/self/status")));
    assert!(!s.is_secret(Path::new("/home/u/proj/environ")));
}

#[test]
fn rebuilt_keeps_the_home_directory() {
    let s = stores().rebuilt(&["~/.other".into()], &[]);
    assert_eq!(s.home(), Some(Path::new("/home/u")));
    assert!(s.is_secret(Path::new("/home/u/.other/k")));
    assert!(!s.is_secret(Path::new("/home/u/.vault/x")));
    // No project any more: its `.env` is outside every project.
    assert!(s.is_secret(Path::new("/home/u/proj/.env")));
}

#[test]
fn env_files_are_secret_only_outside_the_project() {
    let s = stores();
    assert!(s.is_secret(Path::new("/home/u/.env")));
    assert!(s.is_secret(Path::new("/home/u/other/.env.production")));
    assert!(!s.is_secret(Path::new("/home/u/proj/.env")));
    assert!(!s.is_secret(Path::new("/home/u/proj/sub/.env.local")));
}

#[test]
fn a_search_of_home_would_walk_into_secrets_but_not_a_search_of_the_project() {
    let s = stores();
    assert!(s.has_secret_within(Path::new("/home/u")));
    assert!(s.has_secret_within(Path::new("/")));
    assert!(!s.has_secret_within(Path::new("/home/u/proj")));
    assert!(!s.has_secret_within(Path::new("/home/u/.ssh")));
}

#[test]
fn existing_lists_stores_and_env_files_around_the_project() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let proj = home.join("code/proj");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::write(home.join(".env"), "A=1").unwrap();
    std::fs::write(home.join("code/.env.shared"), "B=1").unwrap();
    std::fs::write(proj.join(".env"), "C=1").unwrap();
    let s = SecretStores::new(Some(&home), &[], std::slice::from_ref(&proj));
    let found = s.existing(Some(&home), &[]);
    assert!(found.contains(&home.join(".ssh")));
    assert!(found.contains(&home.join(".env")));
    assert!(found.contains(&home.join("code/.env.shared")));
    assert!(!found.contains(&proj.join(".env")));
    assert!(!found.iter().any(|p| p.ends_with(".aws")));
}

#[test]
fn other_agents_logins_registries_and_histories_are_secret() {
    let s = stores();
    for path in [
        "/home/u/.claude/.credentials.json",
        "/home/u/.claude.json",
        "/home/u/.codex/auth.json",
        "/home/u/.config/github-copilot/apps.json",
        "/home/u/.config/github-copilot/hosts.json",
        "/home/u/.vault-token",
        "/home/u/.pgpass",
        "/home/u/.terraform.d/credentials.tfrc.json",
        "/home/u/.config/rclone/rclone.conf",
        "/home/u/.gem/credentials",
        "/home/u/.docker/config.json",
        "/home/u/.config/containers/auth.json",
        "/home/u/.bash_history",
        "/home/u/.zsh_history",
        "/home/u/.local/share/fish/fish_history",
        "/run/secrets/db_password",
    ] {
        assert!(s.is_secret(Path::new(path)), "{path}");
    }
    // Other agents' skills and commands are not logins.
    assert!(!s.is_secret(Path::new("/home/u/.claude/skills/x/SKILL.md")));
}

#[test]
fn the_environment_moves_and_names_stores() {
    let env = |name: &str| match name {
        "XDG_CONFIG_HOME" => Some("/cfg".to_string()),
        "KUBECONFIG" => Some("/k/a.yaml:/k/b.yaml".to_string()),
        "GOOGLE_APPLICATION_CREDENTIALS" => Some("/home/u/proj/sa.json".to_string()),
        "CARGO_HOME" => Some("/opt/cargo".to_string()),
        "DOCKER_CONFIG" => Some("relative/not/used".to_string()),
        _ => None,
    };
    let s = stores().with_environment(&env);
    assert!(s.is_secret(Path::new("/cfg/gh/hosts.yml")));
    assert!(s.is_secret(Path::new("/home/u/.config/gh/hosts.yml")));
    assert!(s.is_secret(Path::new("/k/b.yaml")));
    // Inside the project too: it is a key wherever it is.
    assert!(s.is_secret(Path::new("/home/u/proj/sa.json")));
    assert!(s.is_secret(Path::new("/opt/cargo/credentials.toml")));
    assert!(!s.is_secret(Path::new("/opt/cargo/bin/cargo")));
    // The user's additions survive, and a rebuild keeps the environment's.
    assert!(s.is_secret(Path::new("/home/u/.vault/x")));
    let r = s.rebuilt(&[], &[]);
    assert!(r.is_secret(Path::new("/k/a.yaml")));
    assert!(!r.is_secret(Path::new("/home/u/.vault/x")));
}

#[test]
fn catuis_own_directory_is_a_store_but_for_what_the_model_reads() {
    let s = stores().with_catui_dir(
        Path::new("/home/u/.catui"),
        &[PathBuf::from("/home/u/.catui/tool-output/s1")],
    );
    for secret in [
        "/home/u/.catui/settings.json",
        "/home/u/.catui/projects/-home-u-proj/s0.jsonl",
        "/home/u/.catui/projects.json",
        "/home/u/.catui/tool-output/s0/toolu_1.txt",
        "/home/u/.catui/anything-added-later",
    ] {
        assert!(s.is_secret(Path::new(secret)), "{secret}");
    }
    for readable in [
        "/home/u/.catui/plans/a-b-c.md",
        "/home/u/.catui/agents/x.md",
        "/home/u/.catui/AGENTS.md",
        "/home/u/.catui/tool-output/s1/toolu_2.txt",
    ] {
        assert!(!s.is_secret(Path::new(readable)), "{readable}");
    }
    // A rebuild (settings reloaded) keeps it.
    assert!(
        s.rebuilt(&[], &[])
            .is_secret(Path::new("/home/u/.catui/settings.json"))
    );
}
