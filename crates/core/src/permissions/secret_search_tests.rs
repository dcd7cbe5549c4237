//! Tests of what a Grep or Glob walk leaves out of secret stores.

use super::*;
use crate::permissions::rules::{Rule, RuleBehavior, RuleOrigin};

fn context(home: &Path, project: &Path) -> PermissionContext {
    let mut ctx = PermissionContext::new(project.to_path_buf());
    ctx.secrets = SecretStores::new(Some(home), &[], &[project.to_path_buf()]);
    ctx
}

#[test]
fn a_search_of_home_skips_the_stores_and_says_so() {
    let ctx = context(Path::new("/home/u"), Path::new("/home/u/proj"));
    let walk = SecretWalk::for_search(&ctx, "Grep", Path::new("/home/u")).unwrap();
    assert!(walk.keeps(Path::new("/home/u/notes.txt")));
    assert!(walk.keeps(Path::new("/home/u/proj/.env")));
    assert!(!walk.keeps(Path::new("/home/u/.ssh")));
    assert!(!walk.keeps(Path::new("/home/u/.aws/credentials")));
    assert!(!walk.keeps(Path::new("/home/u/other/.env")));
    let note = walk.note().unwrap();
    assert!(note.contains("~/.ssh") && note.contains("~/.aws"), "{note}");
    assert!(note.contains("~/other/.env"), "{note}");
}

#[test]
fn nothing_is_skipped_in_the_project_in_a_store_or_in_bypass() {
    let mut ctx = context(Path::new("/home/u"), Path::new("/home/u/proj"));
    assert!(SecretWalk::for_search(&ctx, "Grep", Path::new("/home/u/proj/src")).is_none());
    assert!(SecretWalk::for_search(&ctx, "Grep", Path::new("/home/u/.ssh")).is_none());
    ctx.mode = PermissionMode::BypassPermissions;
    assert!(SecretWalk::for_search(&ctx, "Grep", Path::new("/home/u")).is_none());
}

#[test]
fn an_allow_rule_opens_a_store_to_the_walk() {
    let home = dirs::home_dir().unwrap();
    let mut ctx = context(&home, &home.join("proj"));
    ctx.rules.push(
        RuleBehavior::Allow,
        SourcedRule {
            rule: Rule::parse("Read(~/.aws/**)").unwrap(),
            origin: RuleOrigin::cli(home.join("proj")),
        },
    );
    let walk = SecretWalk::for_search(&ctx, "Glob", &home).unwrap();
    assert!(walk.keeps(&home.join(".aws")));
    assert!(walk.keeps(&home.join(".aws/credentials")));
    assert!(!walk.keeps(&home.join(".ssh")));
}
