//! Tests of rule parsing and matching.

use super::*;

fn cmd(text: &str) -> SimpleCommand {
    SimpleCommand::unanalysed(
        text.split_whitespace().map(String::from).collect(),
        text.to_string(),
    )
}

fn rule(text: &str) -> Rule {
    Rule::parse(text).unwrap()
}

#[test]
fn parses_tool_and_specifier() {
    assert_eq!(rule("Bash"), Rule::tool("Bash"));
    assert_eq!(
        rule(" Bash(npm test) "),
        Rule::with_specifier("Bash", "npm test")
    );
    assert_eq!(rule("Bash()"), Rule::tool("Bash"));
    assert_eq!(rule("Bash(*)"), Rule::tool("Bash"));
    assert_eq!(
        rule("Bash(echo (a))"),
        Rule::with_specifier("Bash", "echo (a)")
    );
    assert_eq!(
        rule("Agent(Explore)"),
        Rule::with_specifier("Agent", "Explore")
    );
    assert_eq!(
        rule("mcp__github__create_issue"),
        Rule::tool("mcp__github__create_issue")
    );
    assert_eq!(rule("Edit(/src/**)").to_string(), "Edit(/src/**)");
}

#[test]
fn malformed_rules_are_errors() {
    assert_eq!(Rule::parse("  "), Err(RuleParseError::Empty));
    assert!(matches!(
        Rule::parse("(npm test)"),
        Err(RuleParseError::EmptyToolName(_))
    ));
    for bad in [
        "Bash(npm test",
        "Bash npm test)",
        "Bash(a))",
        "Bash((a)",
        "Bash(a) x",
    ] {
        assert!(
            matches!(Rule::parse(bad), Err(RuleParseError::Unbalanced(_))),
            "{bad} should be unbalanced"
        );
    }
    assert!(matches!(
        Rule::parse("Ba sh"),
        Err(RuleParseError::BadToolName(_))
    ));
    assert!(matches!(
        Rule::parse("Edit(src/[)"),
        Err(RuleParseError::BadPattern { .. })
    ));
    let msg = Rule::parse("Bash(x").unwrap_err().to_string();
    assert!(
        msg.contains("Bash(x") && msg.contains("unbalanced"),
        "{msg}"
    );
}

#[test]
fn bash_exact_prefix_and_all() {
    let exact = rule("Bash(npm test)");
    assert!(exact.matches_command(&cmd("npm test"), false));
    assert!(!exact.matches_command(&cmd("npm test --watch"), false));
    assert!(!exact.matches_command(&cmd("npm"), false));

    let prefix = rule("Bash(git diff:*)");
    assert!(prefix.matches_command(&cmd("git diff"), false));
    assert!(prefix.matches_command(&cmd("git diff HEAD~1"), false));
    assert!(!prefix.matches_command(&cmd("git difftool"), false));
    assert!(!prefix.matches_command(&cmd("git"), false));
    assert!(!prefix.matches_command(&cmd("git status"), false));

    for all in ["Bash", "Bash(*)", "Bash(:*)"] {
        assert!(rule(all).matches_command(&cmd("rm -rf x"), false), "{all}");
    }
}

#[test]
fn quoted_specifier_words() {
    let r = rule("Bash(git commit -m 'a b':*)");
    let c = SimpleCommand::unanalysed(
        vec![
            "git".into(),
            "commit".into(),
            "-m".into(),
            "a b".into(),
            "-q".into(),
        ],
        "git commit -m 'a b' -q".into(),
    );
    assert!(r.matches_command(&c, false));
}

#[test]
fn specifier_words_are_split_like_the_commands_they_match() {
    // Each rule's words are the analysis's words for the same text, so a
    // rule written as the command it allows matches that command.
    for text in [
        "git diff $(git rev-parse HEAD)",
        "echo \"$HOME\"",
        "diff <(sort a) <(sort b)",
        "echo \"a\\b\"",
        "ls;",
    ] {
        let analysed = crate::permissions::shell::analyze(text);
        let r = rule(&format!("Bash({text})"));
        assert!(r.matches_command(&analysed.commands[0], false), "{text}");
    }
    // Not one plain command: no command's words are the rule's.
    for text in ["a && b", "FOO=1 make", "ls > out", "echo \"x"] {
        let r = rule(&format!("Bash({text})"));
        for c in crate::permissions::shell::analyze(text).commands {
            assert!(!r.matches_command(&c, false), "{text}");
        }
        assert!(!r.matches_command(&cmd(text), false), "{text}");
    }
}

#[test]
fn lenient_matching_sees_through_wrappers() {
    let deny = rule("Bash(rm:*)");
    for text in [
        "sudo rm -rf /",
        "sudo -u root rm x",
        "env FOO=1 rm x",
        "FOO=1 rm x",
        "timeout -s KILL 5 rm x",
        "nice -n 5 rm x",
        // The wrappers' own option tables (programs/wrappers.rs): a
        // long option's value is skipped too.
        "nice --adjustment 5 rm x",
        "timeout --kill-after 2 5 rm x",
        "/bin/rm x",
        "nohup time rm x",
    ] {
        assert!(deny.matches_command(&cmd(text), true), "{text}");
        assert!(!deny.matches_command(&cmd(text), false), "{text} strict");
    }
    assert!(!deny.matches_command(&cmd("echo rm"), true));
}

#[test]
fn file_rules_cover_tool_families() {
    let write = Access::Write {
        path: "/p/a.rs".into(),
    };
    let read = Access::Read {
        paths: vec!["/p".into()],
    };
    for name in ["Edit", "Write"] {
        let r = rule(&format!("{name}(/src/**)"));
        for tool in ["Write", "Edit", "NotebookEdit"] {
            assert!(r.covers_tool(tool, &write), "{name} covers {tool}");
        }
        assert!(!r.covers_tool("Read", &read));
    }
    let r = rule("Read");
    for tool in ["Read", "Glob", "Grep"] {
        assert!(r.covers_tool(tool, &read));
    }
    assert!(!r.covers_tool("Edit", &write));
    assert!(rule("WebFetch").covers_tool("WebFetch", &Access::Session));
    assert!(!rule("WebFetch").covers_tool("Agent", &Access::Session));
}

#[test]
fn mcp_rules_match_tool_or_server() {
    let s = Access::Session;
    assert!(rule("mcp__gh__issue").covers_tool("mcp__gh__issue", &s));
    assert!(!rule("mcp__gh__issue").covers_tool("mcp__gh__pr", &s));
    assert!(rule("mcp__gh").covers_tool("mcp__gh__pr", &s));
    assert!(rule("mcp__gh__*").covers_tool("mcp__gh__pr", &s));
    assert!(!rule("mcp__gh").covers_tool("mcp__ghx__pr", &s));
}

#[test]
fn path_patterns_follow_gitignore_style_anchoring() {
    let root = Path::new("/proj");
    let anchored = rule("Edit(/src/**)");
    assert!(anchored.matches_path(Path::new("/proj/src/a.rs"), root));
    assert!(anchored.matches_path(Path::new("/proj/src/deep/b.rs"), root));
    assert!(!anchored.matches_path(Path::new("/proj/lib/src/a.rs"), root));
    assert!(!anchored.matches_path(Path::new("/other/src/a.rs"), root));

    let single = rule("Edit(/src/*.rs)");
    assert!(single.matches_path(Path::new("/proj/src/a.rs"), root));
    assert!(!single.matches_path(Path::new("/proj/src/deep/a.rs"), root));

    let absolute = rule("Read(//etc/passwd)");
    assert!(absolute.matches_path(Path::new("/etc/passwd"), root));
    assert!(!absolute.matches_path(Path::new("/proj/etc/passwd"), root));

    let anywhere = rule("Read(.env)");
    assert!(anywhere.matches_path(Path::new("/proj/.env"), root));
    assert!(anywhere.matches_path(Path::new("/proj/a/b/.env"), root));
    assert!(!anywhere.matches_path(Path::new("/proj/.envrc"), root));

    // A pattern naming a directory covers everything inside it.
    let dir = rule("Read(secrets)");
    assert!(dir.matches_path(Path::new("/proj/x/secrets/key.pem"), root));
    let dir_slash = rule("Edit(/build/)");
    assert!(dir_slash.matches_path(Path::new("/proj/build/out.o"), root));

    if let Some(home) = dirs::home_dir() {
        let home_rule = rule("Read(~/.ssh/**)");
        let home = paths::canonicalize(&home, &home).unwrap();
        assert!(home_rule.matches_path(&home.join(".ssh/id_rsa"), root));
        assert!(!home_rule.matches_path(Path::new("/proj/.ssh/id_rsa"), root));
    }

    assert!(rule("Edit").matches_path(Path::new("/anything"), root));
}

#[test]
fn root_with_glob_characters_is_literal() {
    let root = Path::new("/weird[1]");
    let r = rule("Edit(/a.txt)");
    assert!(r.matches_path(Path::new("/weird[1]/a.txt"), root));
    assert!(!r.matches_path(Path::new("/weird1/a.txt"), root));
}

#[test]
fn cli_lists_split_outside_parentheses() {
    let rules: Vec<Rule> = parse_rule_list("Bash(git diff:*), Read  Edit(/a b/**),Bash(echo a,b)")
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        rules,
        vec![
            Rule::with_specifier("Bash", "git diff:*"),
            Rule::tool("Read"),
            Rule::with_specifier("Edit", "/a b/**"),
            Rule::with_specifier("Bash", "echo a,b"),
        ]
    );
    let mixed = parse_rule_list("Read, Bash(npm test");
    assert_eq!(mixed.len(), 2);
    assert!(mixed[0].is_ok());
    assert!(matches!(mixed[1], Err(RuleParseError::Unbalanced(_))));
}

#[test]
fn rule_set_dedups_by_rule_and_root() {
    let mut set = RuleSet::default();
    let errors = set.add_cli_list(RuleBehavior::Allow, "Read, Read, Bash(ls)", Path::new("/p"));
    assert!(errors.is_empty());
    assert_eq!(set.allow.len(), 2);
    set.push(
        RuleBehavior::Allow,
        SourcedRule {
            rule: Rule::tool("Read"),
            origin: RuleOrigin::cli("/other".into()),
        },
    );
    assert_eq!(set.allow.len(), 3);
    assert_eq!(set.list(RuleBehavior::Deny).len(), 0);
}
