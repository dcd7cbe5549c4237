#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;

fn item(group: &str, name: &str, slot: bool, value: Value) -> ConfigItem {
    ConfigItem::new(".catui/settings.json", group, name, slot, &value)
}

#[test]
fn answers_are_kept_per_project_and_fail_closed() {
    let home = tempfile::tempdir().unwrap();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    assert_eq!(load(home.path(), a.path()), ProjectTrust::default());
    update(home.path(), a.path(), |t| {
        t.answer_server("fs", true, "fs-content");
        t.answer_server("web", false, "web-content");
        // Approved by an older catui: a name alone.
        t.mcp_servers.insert("old".into(), true);
    })
    .unwrap();
    let trust = load(home.path(), a.path());
    assert_eq!(trust.server("fs", "fs-content"), Some(true));
    // The approval covers what it was given for, not the name.
    assert_eq!(trust.server("fs", "another-command"), None);
    assert_eq!(trust.server("web", "anything"), Some(false));
    assert_eq!(trust.server("old", "anything"), None);
    assert_eq!(trust.server("other", "x"), None);
    assert_eq!(load(home.path(), b.path()).server("fs", "fs-content"), None);
    // A damaged file trusts nothing.
    std::fs::write(home.path().join(FILE), "{not json").unwrap();
    assert!(!load(home.path(), a.path()).trusted);
    assert_eq!(load(home.path(), a.path()).server("fs", "fs-content"), None);
}

#[test]
fn digests_ignore_key_order_and_formatting_but_not_values_or_places() {
    let a = item(
        "mcpServers",
        "fs",
        true,
        json!({"command": "x", "args": ["1"]}),
    );
    let b = item(
        "mcpServers",
        "fs",
        true,
        json!({"args": ["1"], "command": "x"}),
    );
    assert_eq!(a.digest, b.digest);
    let other_value = item(
        "mcpServers",
        "fs",
        true,
        json!({"command": "y", "args": ["1"]}),
    );
    assert_ne!(a.digest, other_value.digest);
    let other_name = item(
        "mcpServers",
        "fs2",
        true,
        json!({"command": "x", "args": ["1"]}),
    );
    assert_ne!(a.digest, other_name.digest);
    let other_file = ConfigItem::new(
        ".mcp.json",
        "mcpServers",
        "fs",
        true,
        &json!({"command": "x", "args": ["1"]}),
    );
    assert_ne!(a.digest, other_file.digest);
    assert_eq!(a.digest.len(), 64);
}

#[test]
fn shown_values_are_one_short_line() {
    let long = "x".repeat(500);
    let i = item("env", "A", true, json!(format!("one\ntwo {long}")));
    assert!(!i.shown.contains('\n'));
    assert!(i.shown.chars().count() <= MAX_SHOWN_CHARS + 1);
    assert!(i.shown.ends_with('…'));
    assert_eq!(item("env", "A", true, json!("plain")).shown, "plain");
}

#[test]
fn trust_covers_what_was_trusted_and_nothing_added_later() {
    let allow = item("permissions.allow", "Read", false, json!("Read"));
    let url = item("env", "BASE", true, json!("http://a"));
    let mut trust = ProjectTrust::default();
    assert_eq!(trust.verdict(&allow), Verdict::NotTrusted);
    trust.accept_all([&allow, &url]);
    assert_eq!(trust.verdict(&allow), Verdict::Accepted);
    assert_eq!(trust.verdict(&url), Verdict::Accepted);

    let new_rule = item("permissions.allow", "Bash", false, json!("Bash"));
    let changed_url = item("env", "BASE", true, json!("http://attacker"));
    assert_eq!(trust.verdict(&new_rule), Verdict::ChangedSinceTrust);
    assert_eq!(trust.verdict(&changed_url), Verdict::ChangedSinceTrust);

    let now = [allow.clone(), new_rule.clone(), changed_url.clone()];
    let diff = trust.diff(&now);
    assert_eq!(diff.added, [&new_rule]);
    assert_eq!(diff.changed, [&changed_url]);
    assert!(
        diff.removed.is_empty(),
        "a changed slot is not also removed"
    );

    let diff = trust.diff(&now[..1]);
    assert_eq!(diff.removed, [url.label()]);
    assert!(diff.added.is_empty() && diff.changed.is_empty());
}

#[test]
fn trust_from_before_digests_covers_everything_until_recorded() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join(FILE),
        json!({ key(project.path()): {"trusted": true} }).to_string(),
    )
    .unwrap();
    let trust = load(home.path(), project.path());
    assert!(trust.is_unbound());
    let anything = item("hooks", "Stop", false, json!({"hooks": []}));
    assert_eq!(trust.verdict(&anything), Verdict::Accepted);
    assert!(trust.diff(std::slice::from_ref(&anything)).is_empty());
}

#[test]
fn declining_is_remembered_and_revoking_keeps_rejections_only() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let hook = item("hooks", "Stop", false, json!({"hooks": []}));
    let later = item("hooks", "Stop", false, json!({"hooks": [1]}));
    let t = update(home.path(), project.path(), |t| t.decline([&hook])).unwrap();
    assert!(t.declined(&hook) && !t.declined(&later));
    assert_eq!(
        t.verdict(&hook),
        Verdict::NotTrusted,
        "declined is not trusted"
    );

    let t = update(home.path(), project.path(), |t| {
        t.accept_all([&hook]);
        t.answer_server("fs", true, "c");
        t.answer_server("web", false, "c");
    })
    .unwrap();
    assert!(t.trusted && t.declined.is_none());
    let t = update(home.path(), project.path(), ProjectTrust::revoke).unwrap();
    assert_eq!(t.verdict(&hook), Verdict::NotTrusted);
    assert_eq!(t.server("fs", "c"), None);
    assert_eq!(t.server("web", "c"), Some(false), "a rejection stays");
    assert_eq!(load(home.path(), project.path()), t);
}

#[test]
fn a_run_trusted_on_the_command_line_accepts_everything() {
    let i = item("env", "BASH_ENV", true, json!("x.sh"));
    assert!(TrustView::ForThisRun.accepts(&i));
    assert!(TrustView::ForThisRun.is_trusted());
    let untrusted = TrustView::Remembered(ProjectTrust::default());
    assert!(!untrusted.accepts(&i) && !untrusted.is_trusted());
}
