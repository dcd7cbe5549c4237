//! Tests of settings layering, merging and malformed files, on real files.

use std::path::{Path, PathBuf};

use super::*;
use crate::permissions::{Access, CallInfo, Decision, SourcedRule, decide};

struct Dirs {
    _config: tempfile::TempDir,
    _project: tempfile::TempDir,
    config: PathBuf,
    root: PathBuf,
}

fn dirs() -> Dirs {
    let config = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    std::fs::create_dir_all(root.join(".catui")).unwrap();
    Dirs {
        config: config.path().to_path_buf(),
        _config: config,
        _project: project,
        root,
    }
}

impl Dirs {
    fn user(&self, text: &str) -> PathBuf {
        write(&self.config.join("settings.json"), text)
    }
    fn project(&self, text: &str) -> PathBuf {
        write(&self.root.join(".catui/settings.json"), text)
    }
    fn local(&self, text: &str) -> PathBuf {
        write(&self.root.join(".catui/settings.local.json"), text)
    }
    /// Every layer, the project trusted (what an untrusted project's
    /// files do is tested in `project_tests.rs`).
    fn load(&self, extra: Option<&Path>) -> (Settings, Vec<SettingsWarning>) {
        Settings::load_with(&self.config, &self.root, extra, &ProjectScope::trusting())
    }
}

fn write(path: &Path, text: &str) -> PathBuf {
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

fn rule_texts(rules: &[SourcedRule]) -> Vec<String> {
    rules.iter().map(|r| r.rule.to_string()).collect()
}

#[test]
fn no_files_no_warnings() {
    let d = dirs();
    let (settings, warnings) = d.load(None);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(settings, Settings::default());
}

#[test]
fn later_layers_win_for_scalars() {
    let d = dirs();
    d.user(r#"{"model": "user-model", "provider": "openai", "planAgents": 2, "autoMode": {"enabled": true}}"#);
    d.project(r#"{"model": "project-model", "planVariant": "trim", "sandbox": false}"#);
    d.local(r#"{"smallModel": "small", "autoMode": {"useDuringPlan": true}}"#);
    let flag = write(
        &d.root.join("extra.json"),
        r#"{"model": "flag-model", "planVariant": "cap"}"#,
    );
    let (s, warnings) = d.load(Some(&flag));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(s.model.as_deref(), Some("flag-model"));
    assert_eq!(s.provider.as_deref(), Some("openai"));
    assert_eq!(s.small_model.as_deref(), Some("small"));
    assert_eq!(s.plan_variant, PlanVariant::Cap);
    assert_eq!(s.plan_agents, Some(2));
    assert_eq!(s.sandbox.map(|s| s.enabled), Some(false));
    assert_eq!(
        s.auto_mode,
        AutoModeConfig {
            enabled: true,
            use_during_plan: true
        }
    );
    let layers: Vec<SettingsLayer> = s.files.iter().map(|(l, _)| *l).collect();
    assert_eq!(
        layers,
        [
            SettingsLayer::User,
            SettingsLayer::Project,
            SettingsLayer::Local,
            SettingsLayer::Flag
        ]
    );
}

#[test]
fn the_classifier_timeout_is_read_and_a_bad_one_rejects_its_file() {
    let d = dirs();
    d.user(r#"{"autoMode": {"enabled": true, "classifierTimeoutMs": 4000}}"#);
    let (s, warnings) = d.load(None);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        s.auto_mode_classifier_timeout,
        Some(std::time::Duration::from_millis(4000))
    );

    let local = d.local("{\n  \"model\": \"m\",\n  \"autoMode\": {\"classifierTimeoutMs\": 0}\n}");
    let (s, warnings) = d.load(None);
    // Like any bad value: the whole file is ignored, the earlier layers
    // still apply.
    assert_eq!(s.model, None);
    assert_eq!(
        s.auto_mode_classifier_timeout,
        Some(std::time::Duration::from_millis(4000))
    );
    let [
        SettingsWarning::Invalid {
            path,
            line,
            message,
            ..
        },
    ] = warnings.as_slice()
    else {
        panic!("one invalid-file warning: {warnings:?}");
    };
    assert_eq!(path, &local);
    assert_eq!(*line, 3);
    assert!(
        message.contains("`autoMode.classifierTimeoutMs`")
            && message.contains("positive whole number of milliseconds, got 0"),
        "{message}"
    );
}

#[test]
fn model_overrides_merge_by_layer_and_a_bad_one_rejects_its_file() {
    let d = dirs();
    d.user(
        r#"{"models": {"claude-sonnet-4-5": {"pricing": {"input": 2, "output": 10}},
                      "qwen*": {"contextWindow": 32768, "provider": "openai-responses"}}}"#,
    );
    d.project(r#"{"models": {"claude-sonnet-4-5": {"contextWindow": 1000000, "effort": "low"}}}"#);
    let (s, warnings) = d.load(None);
    assert!(warnings.is_empty(), "{warnings:?}");
    let catalog = s.model_catalog();
    let sonnet = catalog.lookup("claude-sonnet-4-5-20250929");
    assert_eq!(
        sonnet.context_window,
        Some(200_000),
        "a dated id is another name"
    );
    let sonnet = catalog.lookup("claude-sonnet-4-5");
    assert_eq!(sonnet.context_window, Some(1_000_000));
    let pricing = sonnet.pricing.unwrap();
    assert_eq!((pricing.input, pricing.output), (2.0, 10.0));
    assert_eq!(sonnet.reasoning.effort, Some(catui_protocol::Effort::Low));
    let qwen = catalog.lookup("qwen2.5-coder");
    assert_eq!(qwen.context_window, Some(32_768));
    assert_eq!(
        qwen.openai_wire,
        Some(catui_providers::ProviderKind::OpenAiResponses)
    );

    let local =
        d.local("{\n  \"model\": \"m\",\n  \"models\": {\"x\": {\"pricing\": {\"input\": -3}}}\n}");
    let (s, warnings) = d.load(None);
    assert_eq!(s.model, None, "the whole file is ignored");
    let [SettingsWarning::Invalid { path, message, .. }] = warnings.as_slice() else {
        panic!("one invalid-file warning: {warnings:?}");
    };
    assert_eq!(path, &local);
    assert!(message.contains("models.x: pricing.input"), "{message}");
    d.local(r#"{"models": {"x": {"contextWindw": 5}}}"#);
    let (_, warnings) = d.load(None);
    assert!(
        warnings[0].to_string().contains("contextWindw"),
        "a misspelt field is named: {warnings:?}"
    );
}

#[test]
fn rule_lists_merge_dedup_and_remember_their_file() {
    let d = dirs();
    let user =
        d.user(r#"{"permissions": {"allow": ["Read", "Bash(npm test)"], "deny": ["Read(.env)"]}}"#);
    let project = d.project(
        r#"{"permissions": {"allow": ["Bash(npm test)", "Edit(/src/**)"], "ask": ["Bash(git push:*)"]}}"#,
    );
    let (s, warnings) = d.load(None);
    assert!(warnings.is_empty(), "{warnings:?}");
    let rules = &s.permissions.rules;
    assert_eq!(
        rule_texts(&rules.allow),
        ["Read", "Bash(npm test)", "Edit(/src/**)"]
    );
    assert_eq!(rule_texts(&rules.ask), ["Bash(git push:*)"]);
    assert_eq!(rule_texts(&rules.deny), ["Read(.env)"]);
    assert_eq!(rules.allow[1].origin.kind, RuleSourceKind::UserSettings);
    assert_eq!(rules.allow[1].origin.file.as_deref(), Some(user.as_path()));
    assert_eq!(rules.allow[2].origin.kind, RuleSourceKind::ProjectSettings);
    assert_eq!(
        rules.allow[2].origin.file.as_deref(),
        Some(project.as_path())
    );
    assert_eq!(rules.allow[2].origin.root, d.root);
}

#[test]
fn env_merges_key_by_key() {
    let d = dirs();
    d.user(r#"{"env": {"A": "user", "B": "user"}}"#);
    d.local(r#"{"env": {"B": "local", "C": "local"}}"#);
    let (s, _) = d.load(None);
    let env: Vec<(&str, &str)> = s
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(env, [("A", "user"), ("B", "local"), ("C", "local")]);
}

#[test]
fn malformed_json_ignores_the_whole_file_with_path_and_line() {
    let d = dirs();
    d.user(r#"{"model": "user-model"}"#);
    let project = d.project(
        "{\n  \"model\": \"project-model\",\n  \"permissions\": {\"allow\": [\"Bash\"]\n}\n",
    );
    d.local(r#"{"provider": "anthropic"}"#);
    let (s, warnings) = d.load(None);
    assert_eq!(
        s.model.as_deref(),
        Some("user-model"),
        "nothing of the bad file applies"
    );
    assert!(s.permissions.rules.allow.is_empty());
    assert_eq!(
        s.provider.as_deref(),
        Some("anthropic"),
        "later layers still apply"
    );
    assert_eq!(warnings.len(), 1);
    let text = warnings[0].to_string();
    assert!(text.contains(&project.display().to_string()), "{text}");
    assert!(text.contains("line 5"), "{text}");
    assert!(!text.contains('\n'), "one line: {text}");
    assert_eq!(warnings[0].path(), project.as_path());
}

#[test]
fn wrong_type_for_a_known_key_ignores_the_whole_file() {
    let d = dirs();
    let local = d.local("{\n  \"model\": \"local-model\",\n  \"permissions\": {\"allow\": [\"Read\"]},\n  \"sandbox\": \"yes\"\n}");
    let (s, warnings) = d.load(None);
    assert_eq!(s.model, None);
    assert!(s.permissions.rules.allow.is_empty());
    assert_eq!(s.sandbox, None);
    let [
        SettingsWarning::Invalid {
            path,
            line,
            message,
            ..
        },
    ] = warnings.as_slice()
    else {
        panic!("one invalid-file warning: {warnings:?}");
    };
    assert_eq!(path, &local);
    assert_eq!(*line, 4);
    assert!(
        message.contains("`sandbox`") && message.contains("boolean"),
        "{message}"
    );
}

#[test]
fn unknown_keys_are_fine() {
    let d = dirs();
    d.project(r#"{"theme": "dark", "spinnerTips": {"x": [1, 2]}, "model": "m"}"#);
    let (s, warnings) = d.load(None);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(s.model.as_deref(), Some("m"));
}

#[test]
fn hooks_of_every_layer_are_read_and_malformed_ones_reported() {
    let d = dirs();
    d.project(r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "done.sh"}]}]}}"#);
    let (s, warnings) = d.load(None);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(s.hooks.len(), 1);
    d.project(r#"{"hooks": {"x": [1, 2]}, "model": "m"}"#);
    let (s, warnings) = d.load(None);
    assert!(
        matches!(&warnings[..], [SettingsWarning::MalformedHooks { message, .. }] if message.contains("`x`")),
        "{warnings:?}"
    );
    assert!(s.hooks.is_empty());
    assert_eq!(
        s.model.as_deref(),
        Some("m"),
        "the rest of the file applies"
    );
}

#[test]
fn malformed_rule_is_reported_and_skipped_alone() {
    let d = dirs();
    let project = d.project("{\n  \"permissions\": {\n    \"allow\": [\n      \"Read\",\n      \"Bash(npm test\"\n    ]\n  },\n  \"model\": \"m\"\n}");
    let (s, warnings) = d.load(None);
    assert_eq!(rule_texts(&s.permissions.rules.allow), ["Read"]);
    assert_eq!(s.model.as_deref(), Some("m"));
    let [
        SettingsWarning::MalformedRule {
            path, line, error, ..
        },
    ] = warnings.as_slice()
    else {
        panic!("one malformed-rule warning: {warnings:?}");
    };
    assert_eq!(path, &project);
    assert_eq!(*line, Some(5));
    assert!(matches!(
        error,
        crate::permissions::RuleParseError::Unbalanced(_)
    ));
    assert!(warnings[0].to_string().contains("line 5"));
}

#[test]
fn missing_flag_file_is_a_warning_but_missing_layers_are_not() {
    let d = dirs();
    let missing = d.root.join("nope.json");
    let (_, warnings) = d.load(Some(&missing));
    assert_eq!(
        warnings,
        [SettingsWarning::MissingFlagFile { path: missing }]
    );
    assert!(warnings[0].to_string().contains("--settings"));
    // A relative --settings path is taken from the project root.
    write(&d.root.join("rel.json"), r#"{"model": "rel"}"#);
    let (s, warnings) = d.load(Some(Path::new("rel.json")));
    assert!(warnings.is_empty());
    assert_eq!(s.model.as_deref(), Some("rel"));
}

#[test]
fn unreadable_file_is_a_warning() {
    let d = dirs();
    std::fs::create_dir_all(d.root.join(".catui/settings.json")).unwrap();
    let (_, warnings) = d.load(None);
    assert!(
        matches!(warnings.as_slice(), [SettingsWarning::Unreadable { .. }]),
        "{warnings:?}"
    );
}

#[test]
fn empty_file_is_empty_settings() {
    let d = dirs();
    d.project("  \n");
    let (_, warnings) = d.load(None);
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn additional_directories_resolve_and_dedup() {
    let d = dirs();
    d.user(r#"{"permissions": {"additionalDirectories": ["../shared", "/opt/data"]}}"#);
    d.project(r#"{"permissions": {"additionalDirectories": ["/opt/data", "docs/./x"], "defaultMode": "plan"}}"#);
    let (s, warnings) = d.load(None);
    assert!(warnings.is_empty(), "{warnings:?}");
    let parent = d.root.parent().unwrap();
    assert_eq!(
        s.permissions.additional_directories,
        [
            parent.join("shared"),
            PathBuf::from("/opt/data"),
            d.root.join("docs/x")
        ]
    );
    assert_eq!(s.permissions.default_mode, Some(PermissionMode::Plan));
}

#[test]
fn project_rules_are_relative_to_the_project_root() {
    let d = dirs();
    d.project(r#"{"permissions": {"allow": ["Edit(/src/**)"], "deny": ["Edit(/src/gen/**)"]}}"#);
    let (s, _) = d.load(None);
    let mut ctx = PermissionContext::new(d.root.clone());
    s.apply_to(&mut ctx);
    let edit = |path: PathBuf| CallInfo {
        tool_name: "Edit".into(),
        access: Access::Write { path },
        read_only: false,
        cwd: d.root.clone(),
    };
    assert_eq!(
        decide(&ctx, &edit(d.root.join("src/a.rs"))),
        Decision::Allow(crate::permissions::Grant::Explicit)
    );
    assert!(matches!(
        decide(&ctx, &edit(d.root.join("src/gen/a.rs"))),
        Decision::Deny { .. }
    ));
    assert!(matches!(
        decide(&ctx, &edit(d.root.join("lib/a.rs"))),
        Decision::Ask { .. }
    ));
}

/// A call of `tool` reading `path` (relative to the project).
fn read_call(d: &Dirs, path: &str) -> CallInfo {
    CallInfo {
        tool_name: "Read".into(),
        access: Access::Read {
            paths: vec![d.root.join(path)],
        },
        read_only: true,
        cwd: d.root.clone(),
    }
}

fn context(d: &Dirs, s: &Settings) -> PermissionContext {
    let mut ctx = PermissionContext::new(d.root.clone());
    s.apply_to(&mut ctx);
    ctx
}

#[test]
fn a_rejected_file_that_is_json_keeps_its_deny_and_ask_rules() {
    let d = dirs();
    let project = d.project(
        r#"{"model": 5, "permissions": {"allow": ["Bash"], "deny": ["Read(./.env)"], "ask": ["Edit"]}}"#,
    );
    let (s, warnings) = d.load(None);
    // The rest of the file is ignored as before...
    assert_eq!(s.model, None);
    assert!(s.permissions.rules.allow.is_empty());
    // ...but what it forbids still applies.
    assert_eq!(rule_texts(&s.permissions.rules.deny), ["Read(./.env)"]);
    assert_eq!(rule_texts(&s.permissions.rules.ask), ["Edit"]);
    let [SettingsWarning::Invalid { path, fallback, .. }] = warnings.as_slice() else {
        panic!("one invalid-file warning: {warnings:?}");
    };
    assert_eq!(path, &project);
    assert_eq!(fallback, &Fallback::RulesKept(2));
    let text = warnings[0].to_string();
    assert!(
        text.contains("`model`") && text.contains("2 deny/ask rules still apply"),
        "{text}"
    );
    let ctx = context(&d, &s);
    assert!(matches!(
        decide(&ctx, &read_call(&d, ".env")),
        Decision::Deny { .. }
    ));
    assert!(matches!(
        decide(&ctx, &read_call(&d, "README.md")),
        Decision::Allow(_)
    ));
}

#[test]
fn a_file_whose_rules_cannot_be_told_makes_every_call_ask() {
    let bash = |d: &Dirs| CallInfo {
        tool_name: "Bash".into(),
        access: Access::Shell {
            command: "ls".into(),
            unconfined: false,
        },
        read_only: true,
        cwd: d.root.clone(),
    };
    let todo = |d: &Dirs| CallInfo {
        tool_name: "TodoWrite".into(),
        access: Access::Session,
        read_only: true,
        cwd: d.root.clone(),
    };
    // Not JSON; `deny` not a list; a directory where the file should be;
    // a FIFO (refused, not opened: no hang); a symlink to /dev/zero.
    type Make = fn(&Dirs) -> PathBuf;
    let cases: [(&str, Make); 5] = [
        ("broken JSON", |d| {
            d.project("{\"permissions\": {\"deny\": [\"Read(./.env)\"]")
        }),
        ("deny not a list", |d| {
            d.project(r#"{"permissions": {"deny": "Read(./.env)"}}"#)
        }),
        ("a directory", |d| {
            let p = d.root.join(".catui/settings.json");
            std::fs::create_dir_all(&p).unwrap();
            p
        }),
        ("a FIFO", |d| {
            let p = d.root.join(".catui/settings.json");
            crate::safe_fs::mkfifo(&p);
            p
        }),
        ("/dev/zero", |d| {
            let p = d.root.join(".catui/settings.json");
            std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
            p
        }),
    ];
    for (what, make) in cases {
        let d = dirs();
        let path = make(&d);
        let (s, warnings) = d.load(None);
        assert_eq!(warnings.len(), 1, "{what}: {warnings:?}");
        assert_eq!(warnings[0].path(), path.as_path(), "{what}");
        let text = warnings[0].to_string();
        assert!(
            text.contains("every tool call asks first"),
            "{what}: {text}"
        );
        let mut ctx = context(&d, &s);
        for mode in [PermissionMode::Default, PermissionMode::BypassPermissions] {
            ctx.mode = mode;
            let Decision::Ask { reason, .. } = decide(&ctx, &read_call(&d, "README.md")) else {
                panic!("{what}: a read runs unasked in {mode}");
            };
            assert!(reason.contains(&path.display().to_string()), "{reason}");
            assert!(
                matches!(decide(&ctx, &bash(&d)), Decision::Ask { .. }),
                "{what}"
            );
            // The session's own bookkeeping is not held up.
            assert!(
                matches!(decide(&ctx, &todo(&d)), Decision::Allow(_)),
                "{what}"
            );
        }
        // Unattended, the ask is a denial that says what to fix.
        ctx.interactive = false;
        let Decision::Deny { message } = decide(&ctx, &read_call(&d, "README.md")) else {
            panic!("{what}: not denied unattended");
        };
        assert!(
            message.contains("could not be applied")
                && message.contains(&path.display().to_string()),
            "{message}"
        );
    }
}

#[test]
fn a_malformed_deny_or_ask_rule_covers_its_whole_tool() {
    let d = dirs();
    d.project(
        r#"{"permissions": {"deny": ["Read(./.env", "Bash(git push)"], "ask": ["Bash(rm -rf"], "allow": ["Edit(src/**"]}}"#,
    );
    let (s, warnings) = d.load(None);
    assert_eq!(
        rule_texts(&s.permissions.rules.deny),
        ["Read", "Bash(git push)"]
    );
    assert_eq!(rule_texts(&s.permissions.rules.ask), ["Bash"]);
    assert!(s.permissions.rules.allow.is_empty());
    let fallbacks: Vec<_> = warnings
        .iter()
        .map(|w| match w {
            SettingsWarning::MalformedRule { fallback, .. } => fallback.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        fallbacks,
        [
            Fallback::Nothing,
            Fallback::WholeTool {
                behavior: RuleBehavior::Ask,
                tool: "Bash".into()
            },
            Fallback::WholeTool {
                behavior: RuleBehavior::Deny,
                tool: "Read".into()
            },
        ]
    );
    assert!(
        warnings[2]
            .to_string()
            .contains("all of `Read` is denied instead")
    );
    let ctx = context(&d, &s);
    assert!(matches!(
        decide(&ctx, &read_call(&d, "README.md")),
        Decision::Deny { .. }
    ));

    // Not even the tool can be told: every call asks.
    let d = dirs();
    d.local(r#"{"permissions": {"deny": ["(./.env)"]}}"#);
    let (s, warnings) = d.load(None);
    assert!(
        matches!(
            warnings.as_slice(),
            [SettingsWarning::MalformedRule {
                fallback: Fallback::AskEverything,
                ..
            }]
        ),
        "{warnings:?}"
    );
    let ctx = context(&d, &s);
    assert!(matches!(
        decide(&ctx, &read_call(&d, "README.md")),
        Decision::Ask { .. }
    ));
}

#[test]
fn the_status_line_command_is_read_and_a_malformed_one_reported() {
    let d = dirs();
    d.user(r#"{"statusLine": {"type": "command", "command": "echo mine", "padding": 0}}"#);
    let (s, warnings) = d.load(None);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(s.status_line.as_deref(), Some("echo mine"));
    let d = dirs();
    d.user(r#"{"statusLine": {"type": "text", "command": "echo"}}"#);
    let (s, warnings) = d.load(None);
    assert_eq!(s.status_line, None);
    assert!(
        warnings
            .iter()
            .any(|w| w.to_string().contains("statusLine")),
        "{warnings:?}"
    );
}
