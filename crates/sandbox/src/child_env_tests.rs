//! The allow-list against credentials of every name.

use super::*;

fn parent() -> Vec<(OsString, OsString)> {
    [
        ("PATH", "/usr/bin"),
        ("HOME", "/home/u"),
        ("LANG", "C.UTF-8"),
        ("LC_ALL", "C"),
        ("TERM", "xterm"),
        ("CARGO_HOME", "/home/u/.cargo"),
        ("SSH_AUTH_SOCK", "/run/ssh.sock"),
        ("HTTPS_PROXY", "http://proxy:3128"),
        ("ANTHROPIC_API_KEY", "sk-ant"),
        ("OPENAI_API_KEY", "sk-oai"),
        ("ANTHROPIC_AUTH_TOKEN", "tok"),
        ("GITHUB_TOKEN", "ghp"),
        ("DATABASE_URL", "postgres://u:pw@db/x"),
        ("MYSQL_PWD", "pw"),
        ("DB_PASS", "pw"),
        ("SENTRY_DSN", "https://k@sentry.io/1"),
        ("SLACK_WEBHOOK_URL", "https://hooks.slack.com/x"),
        ("DOCKER_AUTH_CONFIG", "{}"),
        ("KAGGLE_KEY", "k"),
        ("AWS_SECRET_ACCESS_KEY", "a"),
        ("AWS_REGION", "eu-west-1"),
        ("STRIPE_SK", "sk_live"),
        ("ANY_NAME_AT_ALL", "x"),
    ]
    .into_iter()
    .map(|(n, v)| (n.into(), v.into()))
    .collect()
}

fn names(vars: &[(OsString, OsString)]) -> Vec<String> {
    vars.iter()
        .map(|(n, _)| n.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_confined_child_gets_only_the_list() {
    let got = names(&EnvPolicy::default().build_from(Tier::Confined, parent()));
    assert_eq!(
        got,
        ["CARGO_HOME", "HOME", "LANG", "LC_ALL", "PATH", "TERM"]
    );
}

#[test]
fn an_approved_child_also_gets_the_agent_and_the_proxy_but_no_credential() {
    let got = names(&EnvPolicy::default().build_from(Tier::Approved, parent()));
    assert!(got.contains(&"SSH_AUTH_SOCK".to_string()), "{got:?}");
    assert!(got.contains(&"HTTPS_PROXY".to_string()), "{got:?}");
    for secret in [
        "ANTHROPIC_API_KEY",
        "GITHUB_TOKEN",
        "DATABASE_URL",
        "MYSQL_PWD",
        "DB_PASS",
        "SENTRY_DSN",
        "SLACK_WEBHOOK_URL",
        "DOCKER_AUTH_CONFIG",
        "KAGGLE_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "STRIPE_SK",
        "ANY_NAME_AT_ALL",
    ] {
        assert!(!got.contains(&secret.to_string()), "{secret} in {got:?}");
    }
}

#[test]
fn settings_add_to_the_list_but_never_a_provider_key() {
    let policy = EnvPolicy {
        set: vec![
            ("MY_FLAG".into(), "1".into()),
            ("OPENAI_API_KEY".into(), "from-settings".into()),
            ("PATH".into(), "/custom".into()),
        ],
        pass: vec![
            "GITHUB_TOKEN".into(),
            "AWS_*".into(),
            "ANTHROPIC_API_KEY".into(),
            "*".into(),
        ],
    };
    let approved = policy.build_from(Tier::Approved, parent());
    let got = names(&approved);
    assert!(got.contains(&"GITHUB_TOKEN".to_string()));
    assert!(got.contains(&"AWS_SECRET_ACCESS_KEY".to_string()));
    assert!(got.contains(&"AWS_REGION".to_string()));
    assert!(got.contains(&"MY_FLAG".to_string()));
    assert!(!got.contains(&"ANTHROPIC_API_KEY".to_string()));
    assert!(!got.contains(&"OPENAI_API_KEY".to_string()));
    // A bare `*` passes nothing (it would pass every credential).
    assert!(!got.contains(&"DATABASE_URL".to_string()));
    let path = approved.iter().find(|(n, _)| n == "PATH").unwrap();
    assert_eq!(path.1, "/custom");
    // `passEnv` is for children someone allowed; `env` is for all.
    let confined = names(&policy.build_from(Tier::Confined, parent()));
    assert!(!confined.contains(&"GITHUB_TOKEN".to_string()));
    assert!(confined.contains(&"MY_FLAG".to_string()));
}
