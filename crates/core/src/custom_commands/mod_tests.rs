use super::*;
use crate::permissions::secrets::SecretStores;

fn gate(root: &Path) -> FileGate {
    FileGate::new(
        [root.to_path_buf()],
        SecretStores::for_user(&[], &[root.to_path_buf()]),
    )
}

#[test]
fn expands_arguments_and_positions() {
    assert_eq!(expand("Fix $ARGUMENTS now", "issue 12"), "Fix issue 12 now");
    assert_eq!(
        expand("a=$1 b=$2 c=$3 cost $5 $x $0", "one \"two words\""),
        "a=one b=two words c= cost  $x $0"
    );
}

#[test]
fn finds_commands_with_folders_front_matter_and_precedence() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let project = root.join(".catui/commands");
    let user = root.join("cfg/commands");
    std::fs::create_dir_all(project.join("git")).unwrap();
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        project.join("git/commit.md"),
        "---\ndescription: Commit the work\nargument-hint: MESSAGE\nallowed-tools: Bash(git commit:*), Read\nmodel: small-one\n---\nCommit with $ARGUMENTS\n",
    )
    .unwrap();
    std::fs::write(project.join("review.md"), "# Review the diff\nLook at it").unwrap();
    std::fs::write(user.join("review.md"), "user review").unwrap();
    std::fs::write(user.join("help.md"), "mine").unwrap();
    let refuse = |_: &Path, _: &str, _: &[String]| false;
    let set = CommandSet::discover(
        &[
            (project, CommandSource::Project),
            (user, CommandSource::User),
        ],
        &gate(&root),
        &["help"],
        &refuse,
    );
    let names: Vec<_> = set.commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["git:commit", "review"]);
    let commit = set.get("git:commit").unwrap();
    assert_eq!(commit.description, "Commit the work");
    assert_eq!(commit.argument_hint.as_deref(), Some("MESSAGE"));
    assert_eq!(commit.model.as_deref(), Some("small-one"));
    // Not trusted: the project's rules wait.
    assert!(commit.allowed_tools.is_empty());
    assert_eq!(commit.held_tools, vec!["Bash(git commit:*)", "Read"]);
    assert_eq!(set.get("review").unwrap().description, "Review the diff");
    let text = set.warnings.join("\n");
    assert!(text.contains("/help is a built-in command"), "{text}");
    assert!(text.contains("same name"), "{text}");
}
