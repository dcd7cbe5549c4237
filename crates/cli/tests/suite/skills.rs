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
        common::assert_lacks(&first, "Run scripts/fill.py");
        let (text, is_error) = result_of(&requests[1], "s1");
        assert!(!is_error, "{mode}: {text}");
        common::assert_contains(&text, "Run scripts/fill.py with the form");
        let script = sb.project().join(".catui/skills/pdf/scripts/fill.py");
        common::assert_contains(&text, &script.display().to_string());
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
        common::assert_lacks(&body, "private-canary-31");
        common::assert_lacks(&body, "secret-body-canary-77");
    }
    let (text, _) = result_of(&requests[1], "s1");
    common::assert_lacks(&text, "pdf/notes.md\n");
    common::assert_contains(&text, "left out");
    let (text, is_error) = result_of(&requests[2], "s2");
    assert!(is_error, "{text}");
    common::assert_contains(&text, "no skill named `notes`");
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
    common::assert_contains(text, "pdf-forms (project) — Fill in PDF forms");
    common::assert_contains(text, "tidy (user) — Tidy imports");
    assert!(server.requests().is_empty());
}

#[test]
fn an_sdk_agent_definitions_skills_are_in_the_sub_agents_prompt() {
    let sb = Sandbox::new();
    project_skill(&sb);
    let server = common::mock(
        Script::new()
            .turn(common::agent("a1", "fill", "Fill the form", "filler"))
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
    common::assert_contains(&system, "# Skill `pdf-forms`");
    common::assert_contains(&system, "Run scripts/fill.py with the form");
    common::assert_contains(&system, "no skill of that name");
    // The main conversation's prompt does not carry the body.
    assert!(!requests[0].system_text().contains("Run scripts/fill.py"));
}
