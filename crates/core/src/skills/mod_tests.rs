use super::*;
use crate::permissions::secrets::SecretStores;

fn gate(root: &Path) -> FileGate {
    FileGate::new(
        [root.to_path_buf()],
        SecretStores::for_user(&[], &[root.to_path_buf()]),
    )
}

fn skill(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir.join(name)).unwrap();
    std::fs::write(dir.join(name).join("SKILL.md"), text).unwrap();
}

#[test]
fn finds_skills_first_wins_and_reports_bad_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let project = root.join(".catui/skills");
    let user = root.join("cfg/skills");
    skill(
        &project,
        "pdf",
        "---\nname: pdf\ndescription: Fill PDF forms\n---\nUse fill.py\n",
    );
    std::fs::write(project.join("pdf/fill.py"), "print(1)").unwrap();
    skill(&project, "nodesc", "---\nname: nodesc\n---\nbody");
    skill(
        &user,
        "pdf",
        "---\nname: pdf\ndescription: user pdf\n---\nother",
    );
    skill(&user, "Bad Name", "---\ndescription: x\n---\nbody");
    let set = SkillSet::discover(
        &[
            (project.clone(), SkillSource::Project),
            (user, SkillSource::User),
        ],
        &gate(&root),
    );
    assert_eq!(set.names(), vec!["pdf"]);
    assert_eq!(set.skills[0].source, SkillSource::Project);
    assert!(set.listing().contains("- pdf: Fill PDF forms"));
    let text = set.warnings.join("\n");
    assert!(text.contains("no `description`"), "{text}");
    assert!(text.contains("same name"), "{text}");
    assert!(text.contains("lowercase"), "{text}");
    let loaded = set.load(&set.skills[0]).unwrap();
    assert_eq!(loaded.body, "Use fill.py");
    assert_eq!(loaded.files, vec![project.join("pdf/fill.py")]);
}

#[test]
fn a_skill_linking_out_of_its_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let project = root.join("p/.catui/skills");
    std::fs::create_dir_all(project.join("leak")).unwrap();
    std::fs::write(
        root.join("p/notes.md"),
        "---\nname: leak\ndescription: d\n---\nx",
    )
    .unwrap();
    std::os::unix::fs::symlink(root.join("p/notes.md"), project.join("leak/SKILL.md")).unwrap();
    skill(
        &project,
        "ok",
        "---\nname: ok\ndescription: fine\n---\nbody",
    );
    std::os::unix::fs::symlink(root.join("p/notes.md"), project.join("ok/notes.md")).unwrap();
    let set = SkillSet::discover(&[(project, SkillSource::Project)], &gate(&root.join("p")));
    assert_eq!(set.names(), vec!["ok"]);
    assert!(set.warnings[0].contains("leak"), "{:?}", set.warnings);
    assert!(set.warnings[0].contains("outside"), "{:?}", set.warnings);
    let loaded = set.load(&set.skills[0]).unwrap();
    assert!(loaded.files.is_empty(), "{loaded:?}");
    assert!(loaded.left_out[0].contains("outside"), "{loaded:?}");
}

#[test]
fn the_listing_is_bounded_and_says_what_it_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let dir = root.join("skills");
    let long = "d".repeat(MAX_DESCRIPTION_CHARS + 10);
    for i in 0..20 {
        skill(
            &dir,
            &format!("s{i:02}"),
            &format!("---\ndescription: {long}\n---\nbody"),
        );
    }
    let set = SkillSet::discover(&[(dir, SkillSource::User)], &gate(&root));
    assert_eq!(set.skills.len(), 20);
    assert!(set.listing().len() <= LISTING_BUDGET_CHARS);
    let unlisted = set.skills.iter().filter(|s| !s.listed).count();
    assert!(unlisted > 0);
    let text = set.warnings.join("\n");
    assert!(text.contains("is not listed to the model"), "{text}");
    assert!(text.contains("longer than 1024"), "{text}");
}

#[test]
fn load_errors_say_whether_the_session_the_file_or_its_front_matter_is_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let dir = root.join(".catui/skills");
    skill(
        &dir,
        "pdf",
        "---\nname: pdf\ndescription: Fill\n---\nbody\n",
    );
    let set = SkillSet::discover(&[(dir.clone(), SkillSource::Project)], &gate(&root));
    let pdf = set.skills[0].clone();

    let bare = SkillSet::default();
    let err = bare.load(&pdf).unwrap_err();
    assert!(matches!(err, LoadSkillError::Unavailable), "{err}");
    assert_eq!(err.to_string(), "skills are not available in this session");

    std::fs::write(dir.join("pdf/SKILL.md"), "---\nname: pdf\nbody").unwrap();
    let err = set.load(&pdf).unwrap_err();
    assert!(
        matches!(&err, LoadSkillError::FrontMatter { skill, error: FrontMatterError::Unclosed } if skill == "pdf"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        format!("SKILL.md of `pdf`: {}", FrontMatterError::Unclosed)
    );

    std::fs::remove_file(dir.join("pdf/SKILL.md")).unwrap();
    let err = set.load(&pdf).unwrap_err();
    assert!(matches!(err, LoadSkillError::Read(_)), "{err}");
}
