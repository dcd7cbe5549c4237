//! Skills through the real binary: a project's skill (before any trust)
//! is listed in the first request and loaded by the `Skill` tool, also in
//! plan mode; a skill that links out of its folder is refused and the user
//! told; `init.skills` and `/skills` name them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::os::unix::fs::symlink;

use catui_testkit::{Script, Turn};
use common::{Sandbox, json_lines, output_within, result_of};
use serde_json::json;

const SKILL: &str = "---\nname: pdf-forms\ndescription: Fill in PDF forms with the fill script\n---\nRun scripts/fill.py with the form and the values.\n";

fn project_skill(sb: &Sandbox) {
    sb.write(".catui/skills/pdf/SKILL.md", SKILL);
    sb.write(".catui/skills/pdf/scripts/fill.py", "print('filled')\n");
}

#[test]
fn a_project_skill_is_listed_in_the_first_request_and_loaded_by_the_skill_tool() {
    for mode in ["default", "plan"] {
        let sb = Sandbox::new();
        project_skill(&sb);
        let server = common::mock(
            Script::new()
                .turn(Turn::tool_use("s1", "Skill", json!({"skill": "pdf-forms"})))
                .turn(Turn::text("done")),
        );
        let mut cmd = sb.catui(&server);
        cmd.args(["-p", "fill the form", "--permission-mode", mode]);
        let out = output_within(cmd, b"", 60);
        let stderr = common::stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let requests = server.requests();
        let first = requests[0].body.to_string();
        assert!(
            requests[0].tool_names().contains(&"Skill".to_string()),
            "{first}"
        );
        assert!(
            first.contains("- pdf-forms: Fill in PDF forms with the fill script"),
            "the listing is not in the first request ({mode}): {first}"
        );
        // The body is not in the first request: it loads on demand.
        assert!(!first.contains("Run scripts/fill.py"), "{first}");
        let (text, is_error) = result_of(&requests[1], "s1");
        assert!(!is_error, "{mode}: {text}");
        assert!(text.contains("Run scripts/fill.py with the form"), "{text}");
        let script = sb.project().join(".catui/skills/pdf/scripts/fill.py");
        assert!(text.contains(&script.display().to_string()), "{text}");
    }
}

#[test]
fn a_skill_that_links_out_of_its_folder_is_refused_and_reported() {
    let sb = Sandbox::new();
    let home = sb.dir.path();
    std::fs::write(
        home.join("notes.md"),
        "---\nname: notes\ndescription: private-canary-31\n---\nsecret-body-canary-77",
    )
    .unwrap();
    std::fs::create_dir_all(sb.project().join(".catui/skills/notes")).unwrap();
    symlink(
        "../../../../notes.md",
        sb.project().join(".catui/skills/notes/SKILL.md"),
    )
    .unwrap();
    project_skill(&sb);
    // A file beside a good skill that leads out is not offered either.
    symlink(
        "../../../../notes.md",
        sb.project().join(".catui/skills/pdf/notes.md"),
    )
    .unwrap();
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use("s1", "Skill", json!({"skill": "pdf-forms"})))
            .turn(Turn::tool_use("s2", "Skill", json!({"skill": "notes"})))
            .turn(Turn::text("done")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "go"]);
    let out = output_within(cmd, b"", 60);
    let stderr = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("skill") && stderr.contains("outside"),
        "{stderr}"
    );
    let requests = server.requests();
    for r in &requests {
        let body = r.body.to_string();
        assert!(!body.contains("private-canary-31"), "{body}");
        assert!(!body.contains("secret-body-canary-77"), "{body}");
    }
    let (text, _) = result_of(&requests[1], "s1");
    assert!(!text.contains("pdf/notes.md\n"), "{text}");
    assert!(text.contains("left out"), "{text}");
    let (text, is_error) = result_of(&requests[2], "s2");
    assert!(is_error, "{text}");
    assert!(text.contains("no skill named `notes`"), "{text}");
}

#[test]
fn init_and_the_skills_command_name_the_skills() {
    let sb = Sandbox::new();
    project_skill(&sb);
    std::fs::create_dir_all(sb.config().join("skills/tidy")).unwrap();
    std::fs::write(
        sb.config().join("skills/tidy/SKILL.md"),
        "---\ndescription: Tidy imports\n---\nSort them.",
    )
    .unwrap();
    let server = common::mock(Script::new());
    let mut cmd = sb.catui(&server);
    cmd.args([
        "-p",
        "/skills",
        "--output-format",
        "stream-json",
        "--verbose",
    ]);
    let out = output_within(cmd, b"", 60);
    common::assert_ok(&out);
    let lines = json_lines(&out.stdout);
    let init = lines.iter().find(|l| l["subtype"] == "init").unwrap();
    assert_eq!(init["skills"], json!(["pdf-forms", "tidy"]));
    assert!(
        init["slash_commands"]
            .as_array()
            .unwrap()
            .contains(&json!("skills"))
    );
    let result = lines.iter().find(|l| l["type"] == "result").unwrap();
    let text = result["result"].as_str().unwrap();
    assert!(
        text.contains("pdf-forms (project) — Fill in PDF forms"),
        "{text}"
    );
    assert!(text.contains("tidy (user) — Tidy imports"), "{text}");
    assert!(server.requests().is_empty());
}

#[test]
fn an_sdk_agent_definitions_skills_are_in_the_sub_agents_prompt() {
    let sb = Sandbox::new();
    project_skill(&sb);
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "a1",
                "Agent",
                json!({"description": "fill", "prompt": "Fill the form", "subagent_type": "filler"}),
            ))
            .turn(Turn::text("filled").when_contains("You fill forms."))
            .turn(Turn::text("done")),
    );
    let agents = json!({"filler": {"description": "Fills forms", "prompt": "You fill forms.",
                                   "skills": ["pdf-forms", "missing-one"]}});
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "fill it", "--agents", &agents.to_string()]);
    let out = output_within(cmd, b"", 60);
    common::assert_ok(&out);
    let requests = server.requests();
    let sub = requests
        .iter()
        .find(|r| r.system_text().contains("You fill forms."))
        .expect("no sub-agent request");
    let system = sub.system_text();
    assert!(system.contains("# Skill `pdf-forms`"), "{system}");
    assert!(
        system.contains("Run scripts/fill.py with the form"),
        "{system}"
    );
    assert!(system.contains("no skill of that name"), "{system}");
    // The main conversation's prompt does not carry the body.
    assert!(!requests[0].system_text().contains("Run scripts/fill.py"));
}
