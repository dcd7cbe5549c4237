//! Custom slash commands through the real binary: `-p "/name args"` sends
//! the file's prompt with `$ARGUMENTS` and `$1` filled in, with the front
//! matter's model; a sub-folder gives `/folder:name`; a project command's
//! `allowed-tools` apply only once the project is trusted, and only for
//! its turn; a built-in name wins with a notice; `init.slash_commands` and
//! `/help` list them.
//!
//! Slash commands in the terminal UI (tmux): a project's command is in
//! the `/` palette with its description, Tab completes its name, and
//! sending it with arguments sends its prompt with them filled in; `/help`
//! lists `/mcp`, `/model` and `/resume`, and `/model` switches the model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::tmux::*;
use common::{Sandbox, json_lines, output_within, result_of};
use serde_json::json;

#[test]
fn a_folder_command_sends_its_prompt_with_arguments_and_model() {
    let sb = Sandbox::new();
    sb.write(
        ".catui/commands/git/commit.md",
        "---\ndescription: Commit the work\nargument-hint: TICKET MESSAGE\nmodel: command-model\n---\nCommit for ticket $1: $ARGUMENTS\n",
    );
    let server = common::mock(Script::new().turn(Turn::text("committed")));
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "/git:commit T-12 fix the parser"]);
    let out = output_within(cmd, b"", 60);
    common::assert_ok(&out);
    assert_eq!(common::stdout(&out).trim(), "committed");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].last_user_typed().unwrap().trim(),
        "Commit for ticket T-12: T-12 fix the parser"
    );
    assert_eq!(requests[0].model(), "command-model");
}

/// `-p` with a project command whose allowed-tools allow Write; the model
/// writes a file. Returns whether the write ran.
fn command_write(sb: &Sandbox, trust: bool) -> (bool, String) {
    sb.write(
        ".catui/commands/note.md",
        "---\nallowed-tools: Write\n---\nWrite the note $ARGUMENTS\n",
    );
    let target = sb.project().join("note.txt");
    let server = common::mock(
        Script::new()
            .turn(common::write("w1", &target, "hello"))
            .turn(Turn::text("done")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "/note now"]);
    if trust {
        cmd.arg("--trust-project");
    }
    let out = output_within(cmd, b"", 60);
    let stderr = common::stderr(&out);
    let (text, _) = result_of(&server.requests()[1], "w1");
    let wrote = target.exists();
    let _ = std::fs::remove_file(&target);
    (wrote, format!("{stderr}\n{text}"))
}

#[test]
fn a_project_commands_allowed_tools_wait_for_trust() {
    let sb = Sandbox::new();
    let (wrote, log) = command_write(&sb, false);
    assert!(
        !wrote,
        "an untrusted project's allowed-tools applied: {log}"
    );
    assert!(log.contains("allowed-tools"), "the user is not told: {log}");
    let (wrote, log) = command_write(&sb, true);
    assert!(
        wrote,
        "trusted, the command's allowed-tools did not apply: {log}"
    );
}

#[test]
fn allowed_tools_hold_for_the_commands_turn_only() {
    let sb = Sandbox::new();
    sb.write(
        ".catui/commands/note.md",
        "---\nallowed-tools: Write\n---\nWrite it\n",
    );
    let a = sb.project().join("a.txt");
    let b = sb.project().join("b.txt");
    let server = common::mock(
        Script::new()
            .turn(common::write("w1", &a, "1"))
            .turn(Turn::text("done"))
            .turn(common::write("w2", &b, "2"))
            .turn(Turn::text("done again")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args([
        "-p",
        "--trust-project",
        "--permission-mode",
        "dontAsk",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
    ]);
    let user = |text: &str| {
        json!({"type": "user", "message": {"role": "user", "content": text}}).to_string() + "\n"
    };
    let stdin = user("/note") + &user("write b too");
    let out = output_within(cmd, stdin.as_bytes(), 60);
    let lines = json_lines(&out.stdout);
    let results: Vec<_> = lines.iter().filter(|l| l["type"] == "result").collect();
    assert_eq!(results.len(), 2, "{lines:?}");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "1");
    assert!(!b.exists(), "the command's rule outlived its turn");
}

#[test]
fn built_in_names_win_and_init_and_help_list_the_commands() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.config().join("commands")).unwrap();
    std::fs::write(sb.config().join("commands/help.md"), "not help").unwrap();
    std::fs::write(
        sb.config().join("commands/standup.md"),
        "---\ndescription: Write my standup notes\n---\nSummarise yesterday",
    )
    .unwrap();
    let server = common::mock(Script::new());
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "/help", "--output-format", "stream-json", "--verbose"]);
    let out = output_within(cmd, b"", 60);
    let stderr = common::stderr(&out);
    common::assert_contains(&stderr, "/help is a built-in command");
    let lines = json_lines(&out.stdout);
    let init = lines.iter().find(|l| l["subtype"] == "init").unwrap();
    let names = init["slash_commands"].as_array().unwrap();
    assert!(names.contains(&json!("standup")), "{names:?}");
    assert_eq!(names.iter().filter(|n| **n == json!("help")).count(), 1);
    let result = lines.iter().find(|l| l["type"] == "result").unwrap();
    let text = result["result"].as_str().unwrap();
    common::assert_contains(text, "/standup");
    common::assert_contains(text, "Write my standup notes");
    assert!(server.requests().is_empty());
}

#[test]
fn a_project_command_is_in_the_palette_and_runs_with_its_arguments() {
    require_tmux();
    let s = setup(
        |sb, _, _| {
            sb.write(
                ".catui/commands/git/review.md",
                "---\ndescription: Review the branch against main\nargument-hint: BRANCH\n---\nReview branch $1 carefully ($ARGUMENTS)\n",
            );
            Script::new().turn(Turn::text("Reviewed."))
        },
        None,
    );
    launch(&s);
    s.tmux.type_text("/git:");
    let screen = s.tmux.wait_text("/git:review");
    common::assert_contains(&screen, "Review the branch against main BRANCH");
    s.tmux.keys(&["Tab"]);
    s.tmux.wait_text("> /git:review");
    s.tmux.submit(" feature-x now");
    s.tmux.wait_text("Reviewed.");
    let request = wait_for("the request", &s.tmux, || {
        s.server.requests().into_iter().next()
    });
    assert_eq!(
        request.last_user_typed().unwrap().trim(),
        "Review branch feature-x carefully (feature-x now)"
    );
    quit_and_check_terminal(&s);
}

#[test]
fn help_lists_mcp_model_and_resume_and_model_switches() {
    let s = tmux_session(
        Script::new()
            .turn(Turn::text("First answer."))
            .turn(Turn::text("Answered by the other model.")),
    );
    launch(&s);
    s.tmux.submit("/help");
    let all = s.tmux.wait_history("/compact");
    assert!(all.contains("> /help"), "/help is echoed:\n{all}");
    for command in ["/mcp ", "/model ", "/resume "] {
        assert!(all.contains(command), "{command} missing:\n{all}");
    }
    s.tmux.type_text("/mo");
    let palette = s.tmux.wait_text("/model");
    common::assert_contains(&palette, "/mode");
    s.tmux.keys(&["C-u"]);
    s.tmux.submit("/model other-model");
    s.tmux.wait_text("Model set to other-model");
    s.tmux.wait_screen("the status line naming it", |sc| {
        status_line(sc).contains("other-model")
    });
    s.tmux.submit("hello");
    s.tmux.wait_history("First answer.");
    let reqs = s.server.requests();
    assert_eq!(reqs.last().unwrap().body["model"], "other-model");
    quit_and_check_terminal(&s);
}
