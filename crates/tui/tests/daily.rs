//! Snapshots of the screens daily use changed, each at 80 and 120 columns:
//! a failed command (red, last lines and exit code), a Markdown answer with
//! a table and highlighted code, queued input, the retry line, the
//! scrolled palette, the `?` sheet, the full transcript view, numbered
//! diffs, a plan dialog sized to its plan, and the spinner's facts.

mod common;

use std::time::Duration;

use catui_core::engine::EngineEvent;
use catui_protocol::{ContentBlock, ModelEvent, PermissionMode};
use common::*;
use crossterm::event::KeyCode;
use serde_json::json;

#[test]
fn failed_command_shows_its_end_in_red() {
    let mut s = state();
    s.submit_text("run the build".into());
    s.apply(assistant(vec![tool_use(
        "b1",
        "Bash",
        json!({"command": "make -C /home/dev/project all"}),
    )]));
    s.apply(tool_start(
        "b1",
        "Bash",
        "Bash(make -C /home/dev/project all)",
        None,
    ));
    let out: String = (1..=12).map(|i| format!("cc -c file{i}.c\n")).collect();
    s.apply(EngineEvent::ToolEnd {
        id: "b1".into(),
        name: "Bash".into(),
        display: format!(
            "{out}file12.c:3: error: expected ';'\nmake: *** [all] Error 1\nExit code: 2"
        ),
        is_error: false,
        failed: true,
        parent_tool_use_id: None,
    });
    s.apply(assistant(vec![ContentBlock::text("The build failed.")]));
    s.apply(result(
        "The build failed.",
        1,
        false,
        PermissionMode::Default,
    ));
    insta::assert_snapshot!(both(&s, 22));
}

#[test]
fn markdown_answer_with_a_table_and_code() {
    let mut s = state();
    s.submit_text("compare the options".into());
    s.apply(assistant(vec![ContentBlock::text(
        "## Options\n\n| Option | Speed | Notes |\n|:--|--:|:-:|\n| `serde_json` | fast | the usual choice for most programs |\n| `simd-json` | faster | needs mutable input |\n\n```rust\nfn main() {\n    let v: u32 = 1;\n}\n```",
    )]));
    s.apply(result("", 1, false, PermissionMode::Default));
    insta::assert_snapshot!(both(&s, 26));
}

#[test]
fn queued_input_and_the_spinner() {
    let mut s = state();
    s.submit_text("first".into());
    s.clock += Duration::from_secs(75);
    s.apply(text_delta("Working on it, reading the files first"));
    type_text(&mut s, "then write the docs");
    press(&mut s, key(KeyCode::Enter));
    type_text(&mut s, "and a changelog entry");
    press(&mut s, key(KeyCode::Enter));
    insta::assert_snapshot!(both(&s, 16));
}

#[test]
fn one_updating_retry_line() {
    let mut s = state();
    s.submit_text("hello".into());
    for attempt in 1..=3 {
        s.apply(EngineEvent::Delta {
            agent_id: None,
            event: ModelEvent::Retrying {
                attempt,
                delay_ms: 4200,
                reason: "HTTP 529: overloaded_error\nmore detail".into(),
            },
        });
    }
    insta::assert_snapshot!(both(&s, 12));
}

#[test]
fn palette_scrolled_to_the_end_and_the_key_sheet() {
    let mut s = state();
    type_text(&mut s, "/");
    for _ in 0..20 {
        press(&mut s, key(KeyCode::Down));
    }
    let palette = both(&s, 14);
    let mut s = state();
    press(&mut s, key(KeyCode::Char('?')));
    insta::assert_snapshot!(format!("{palette}{}", both(&s, 32)));
}

#[test]
fn full_transcript_view_expands_output() {
    let mut s = state();
    s.submit_text("list".into());
    s.apply(assistant(vec![tool_use(
        "b1",
        "Bash",
        json!({"command": "seq 12"}),
    )]));
    s.apply(tool_start("b1", "Bash", "Bash(seq 12)", None));
    let out: String = (1..=12).map(|i| format!("{i}\n")).collect();
    s.apply(tool_end("b1", "Bash", &out, false));
    s.apply(result("", 1, false, PermissionMode::Default));
    let folded = both(&s, 16);
    press(&mut s, ctrl('o'));
    insta::assert_snapshot!(format!("{folded}{}", both(&s, 24)));
}

#[test]
fn numbered_diff_of_an_edit() {
    let mut s = state();
    s.submit_text("bump it".into());
    s.apply(assistant(vec![tool_use(
        "e1",
        "Edit",
        json!({"file_path": "/home/dev/project/Cargo.toml", "old_string": "0.1.0", "new_string": "0.2.0"}),
    )]));
    s.apply(tool_start(
        "e1",
        "Edit",
        "Edit(/home/dev/project/Cargo.toml)",
        None,
    ));
    s.apply(tool_end(
        "e1",
        "Edit",
        "--- /home/dev/project/Cargo.toml\n+++ /home/dev/project/Cargo.toml\n@@ -1,4 +1,4 @@\n [package]\n name = \"demo\"\n-version = \"0.1.0\"\n+version = \"0.2.0\"\n edition = \"2024\"\n",
        false,
    ));
    s.apply(result("", 1, false, PermissionMode::Default));
    insta::assert_snapshot!(both(&s, 16));
}

#[test]
fn plan_dialog_sized_to_a_short_plan() {
    let mut s = state_in(PermissionMode::Plan);
    s.push_request(request(
        "ExitPlanMode",
        json!({"plan": "# Fix\n\n1. Change the greeting", "planFilePath": "/home/dev/.catui/plans/p.md"}),
    ));
    insta::assert_snapshot!(both(&s, 30));
}

/// Problems (a settings file not applied, transcript entries not saved)
/// are drawn in the error colour; other notifications are dim.
#[test]
fn problems_are_shown_as_errors_and_notes_are_dim() {
    let mut s = state_in(PermissionMode::Default);
    for key in catui_core::engine::PROBLEM_KEYS {
        s.apply(catui_core::engine::EngineEvent::Notification {
            key: key.to_string(),
            text: format!("PROBLEM-{key}"),
        });
    }
    s.apply(catui_core::engine::EngineEvent::Notification {
        key: "mcp".into(),
        text: "QUIET-NOTE".into(),
    });
    let term = screen(&s, 100, 30);
    let buf = term.backend().buffer();
    let colour_of = |needle: &str| {
        for y in 0..buf.area.height {
            let row: String = (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect();
            if let Some(at) = row.find(needle) {
                let x = row[..at].chars().count() as u16;
                return buf[(x, y)].fg;
            }
        }
        panic!("{needle} is not on screen:\n{}", term.backend());
    };
    let error = catui_tui::theme::current().error;
    for key in catui_core::engine::PROBLEM_KEYS {
        assert_eq!(colour_of(&format!("PROBLEM-{key}")), error, "{key}");
    }
    assert_ne!(colour_of("QUIET-NOTE"), error);
}

/// In the plan dialog PgDn/PgUp scroll the plan (not the transcript behind
/// it), and the footer says so.
#[test]
fn page_keys_scroll_the_plan_in_its_dialog() {
    let mut s = state_in(PermissionMode::Plan);
    let plan: String = std::iter::once("# Long plan\n".to_string())
        .chain((1..=60).map(|i| format!("{i}. Step number {i}\n")))
        .collect();
    s.push_request(request(
        "ExitPlanMode",
        json!({"plan": plan, "planFilePath": "/home/dev/.catui/plans/p.md"}),
    ));
    s.viewport = (80, 24);
    let first = format!("{}", screen(&s, 80, 24).backend());
    assert!(first.contains("Step number 1 "), "{first}");
    assert!(!first.contains("Step number 40"), "{first}");
    assert!(first.contains("PgUp/PgDn scroll"), "{first}");
    press(&mut s, key(KeyCode::PageDown));
    press(&mut s, key(KeyCode::PageDown));
    assert!(s.pager.is_none(), "PgDn opened the transcript view");
    let down = format!("{}", screen(&s, 80, 24).backend());
    assert!(!down.contains("Step number 1 "), "{down}");
    assert!(down.contains("Step number 20"), "{down}");
    press(&mut s, key(KeyCode::PageUp));
    press(&mut s, key(KeyCode::PageUp));
    assert!(s.pager.is_none(), "PgUp opened the transcript view");
    let back = format!("{}", screen(&s, 80, 24).backend());
    assert!(back.contains("Step number 1 "), "{back}");
}

/// The todo panel's rows (☐ ☒ ◼) on a rendered screen.
fn todo_panel_rows(s: &catui_tui::AppState) -> usize {
    let text = format!("{}", screen(s, 80, 24).backend());
    text.lines()
        .filter(|l| {
            let t = l.trim_start_matches(['"', ' ']);
            t.starts_with(['☐', '☒', '◼'])
        })
        .count()
}

#[test]
fn the_todo_panel_stays_between_turns_while_a_todo_is_open() {
    let mut s = state();
    s.submit_text("do the steps".into());
    let todos = |second: &str| {
        assistant(vec![tool_use(
            "t1",
            "TodoWrite",
            json!({"todos": [
                {"content": "Read the module", "status": "completed", "activeForm": "Reading"},
                {"content": "Run the tests", "status": second, "activeForm": "Running the tests"}
            ]}),
        )])
    };
    s.apply(todos("in_progress"));
    s.apply(result("", 1, false, PermissionMode::Default));
    assert!(!s.busy());
    assert_eq!(todo_panel_rows(&s), 2, "open todo: the panel stays");
    press(&mut s, ctrl('t'));
    assert_eq!(todo_panel_rows(&s), 0, "Ctrl+T hides it");
    press(&mut s, ctrl('t'));
    assert_eq!(todo_panel_rows(&s), 2, "Ctrl+T shows it again");
    s.submit_text("finish".into());
    s.apply(todos("completed"));
    s.apply(result("", 1, false, PermissionMode::Default));
    assert_eq!(todo_panel_rows(&s), 0, "all done: the panel goes");
}
