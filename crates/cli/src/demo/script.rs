//! What the demo's mock model says: the scripted plan-mode session over the
//! bundled sample project. Each main-agent step answers only the request
//! that carries the result of the step before it, so the script follows
//! whichever approval branch the user (or the scripted approver) takes.

use catui_protocol::tool_names;
use std::path::Path;
use std::time::Duration;

use catui_testkit::{Block, RecordedRequest, Script, Turn};
use serde_json::{Value, json};

/// The user's request; it also marks the main agent's requests.
pub const REQUEST: &str = "Add a --json flag to `todo list` that prints the tasks as JSON.";
/// The main model and the fast model of the demo session.
pub const MAIN_MODEL: &str = "mock-large";
pub const SMALL_MODEL: &str = "mock-small";
/// What the scripted approver answers at the first plan presentation.
pub const FEEDBACK: &str = "Also cover the new flag with a unit test.";
/// Latency of each Explore agent request, so the parallel run is visible.
pub const EXPLORE_LATENCY: Duration = Duration::from_millis(400);

const EXPLORE: [(&str, &str, &str); 3] = [
    (
        "ex1",
        "Find how the list command prints tasks",
        "`cmd_list` in todo.py prints each task through `format_task` as `[x] #1 title`; it takes no options.",
    ),
    (
        "ex2",
        "Find where tasks are stored and which fields they have",
        "Tasks live in todo.json (TODO_FILE overrides it) as a list of objects with `id`, `title` and `done`; `load_tasks` reads them.",
    ),
    (
        "ex3",
        "Find the existing tests and how they are run",
        "tests/test_todo.py uses unittest, points `todo.STORE` at a temp dir and captures stdout of `todo.main([...])`; run with `python3 -m unittest`.",
    ),
];

const PLAN_PROMPT: &str = "Design the change: a --json option for the list subcommand";

const PLAN_V1: &str = "# Plan: `todo list --json`\n\n\
1. In `main()` of todo.py, give the `list` subparser a `--json` flag (`store_true`).\n\
2. In `cmd_list`, when the flag is set print `json.dumps(tasks, indent=2)`; \
otherwise keep the current lines.\n\
3. Document the flag in README.md.\n";

const PLAN_V2: &str = "# Plan: `todo list --json`\n\n\
1. In `main()` of todo.py, give the `list` subparser a `--json` flag (`store_true`).\n\
2. In `cmd_list`, when the flag is set print `json.dumps(tasks, indent=2)`; \
otherwise keep the current lines.\n\
3. Document the flag in README.md.\n\
4. Add `tests/test_list_json.py`: add two tasks, run `list --json`, parse the \
output and compare it with the stored tasks.\n\n\
## Verification\n- python3 -m unittest\n";

const LIST_OLD: &str = "    list_p = sub.add_parser(\"list\", help=\"show all tasks\")\n";
const LIST_NEW: &str = "    list_p = sub.add_parser(\"list\", help=\"show all tasks\")\n    list_p.add_argument(\"--json\", action=\"store_true\", help=\"print the tasks as JSON\")\n";
const CMD_OLD: &str = "def cmd_list(args):\n    for task in load_tasks():\n";
const CMD_NEW: &str = "def cmd_list(args):\n    if args.json:\n        print(json.dumps(load_tasks(), indent=2))\n        return\n    for task in load_tasks():\n";
const README_OLD: &str = "    python3 todo.py list\n";
const README_NEW: &str =
    "    python3 todo.py list\n    python3 todo.py list --json   # machine-readable output\n";

const TEST_FILE: &str = r#""""`todo list --json` prints the stored tasks as JSON."""

import contextlib
import io
import json
import os
import tempfile
import unittest

import todo


class ListJsonTest(unittest.TestCase):
    def test_list_json_matches_the_store(self):
        with tempfile.TemporaryDirectory() as d:
            todo.STORE = os.path.join(d, "todo.json")
            with contextlib.redirect_stdout(io.StringIO()):
                todo.main(["add", "one"])
                todo.main(["add", "two"])
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                todo.main(["list", "--json"])
            self.assertEqual(json.loads(out.getvalue()), todo.load_tasks())


if __name__ == "__main__":
    unittest.main()
"#;

/// The first user message's text: tells the main agent from sub-agents.
fn first_user_text(r: &RecordedRequest) -> String {
    let Some(first) = r.messages().iter().find(|m| m["role"] == "user") else {
        return String::new();
    };
    match &first["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Whether the request's last message answers tool call `id` (`error`: with
/// an error result; `None`: either way).
fn answers(r: &RecordedRequest, id: &str, error: Option<bool>) -> bool {
    let Some(last) = r.messages().last() else {
        return false;
    };
    last["content"].as_array().is_some_and(|blocks| {
        blocks.iter().any(|b| {
            b["type"] == "tool_result"
                && b["tool_use_id"] == id
                && error.is_none_or(|e| b["is_error"].as_bool().unwrap_or(false) == e)
        })
    })
}

fn is_main(r: &RecordedRequest) -> bool {
    first_user_text(r).contains(REQUEST)
}

/// A main-agent step that follows the result of tool call `after`.
fn main_after(turn: Turn, after: &'static str, error: Option<bool>) -> Turn {
    turn.when(move |r| is_main(r) && answers(r, after, error))
}

fn path_str(p: &Path) -> String {
    p.display().to_string()
}

/// The whole session. `project` is the sample's directory and `plan_file`
/// the session's plan file.
pub fn build(project: &Path, plan_file: &Path) -> Script {
    let todo = path_str(&project.join("todo.py"));
    let readme = path_str(&project.join("README.md"));
    let test = path_str(&project.join("tests").join("test_list_json.py"));
    let plan = path_str(plan_file);
    let root = path_str(project);
    let mut script = Script::new();

    // 1. Three Explore agents in one message: they run in parallel.
    let agents = EXPLORE.iter().map(|(id, prompt, _)| Block::ToolUse {
        id: (*id).into(),
        name: tool_names::AGENT.into(),
        input: json!({"description": prompt, "prompt": prompt, "subagent_type": "Explore"}),
    });
    let mut first = vec![Block::text(
        "I'm in plan mode, so I'll look around before changing anything. Three explorers will read the project in parallel.",
    )];
    first.extend(agents);
    script = script.turn(
        Turn::blocks(first)
            .when(|r| is_main(r) && r.tool_results().is_empty())
            .when_model(MAIN_MODEL),
    );
    // Each Explore agent: one search, then its finding (fast model).
    for (i, (id, prompt, finding)) in EXPLORE.iter().enumerate() {
        let (tool, input) = match i {
            0 => (
                tool_names::GREP,
                json!({"pattern": "def cmd_list", "path": root}),
            ),
            1 => (tool_names::READ, json!({"file_path": todo, "limit": 25})),
            _ => (
                tool_names::GLOB,
                json!({"pattern": "tests/*.py", "path": root}),
            ),
        };
        let call_id = format!("{id}-look");
        script = script
            .turn(
                Turn::tool_use(call_id, tool, input)
                    .delay(EXPLORE_LATENCY)
                    .when_model(SMALL_MODEL)
                    .when_contains(*prompt),
            )
            .turn(
                Turn::text(*finding)
                    .delay(EXPLORE_LATENCY)
                    .when_model(SMALL_MODEL)
                    .when_contains(*prompt),
            );
    }

    // 2. A Plan agent designs the change (main model).
    script = script.turn(main_after(
        Turn::tool_use(
            "pl1",
            tool_names::AGENT,
            json!({"description": "design the --json flag", "prompt": PLAN_PROMPT, "subagent_type": "Plan"}),
        ),
        "ex3",
        None,
    ));
    script = script.turn(
        Turn::text(
            "Add `--json` to the list subparser, branch in `cmd_list` on `args.json` and dump the loaded tasks with `json.dumps`; `json` is already imported. Keep the text output unchanged; mention the flag in the README.",
        )
        .when(|r| first_user_text(r).contains(PLAN_PROMPT)),
    );

    // 3. Read the file, then try to edit it before the plan is approved:
    //    the permission layer refuses (plan mode).
    script = script
        .turn(main_after(
            Turn::blocks(vec![
                Block::tool_use("rd1", tool_names::READ, json!({"file_path": todo})),
                Block::tool_use("rd2", tool_names::READ, json!({"file_path": readme})),
            ]),
            "pl1",
            None,
        ))
        .turn(main_after(
            Turn::blocks(vec![
                Block::text("The change is small; let me just make it."),
                Block::tool_use(
                    "ed0",
                    tool_names::EDIT,
                    json!({"file_path": todo, "old_string": LIST_OLD, "new_string": LIST_NEW}),
                ),
            ]),
            "rd1",
            None,
        ));

    // 4. Write the plan into the plan file and ask for approval.
    script = script
        .turn(main_after(
            Turn::blocks(vec![
                Block::text("Right, plan mode: I'll write the plan instead."),
                Block::tool_use(
                    "pw1",
                    tool_names::WRITE,
                    json!({"file_path": plan, "content": PLAN_V1}),
                ),
            ]),
            "ed0",
            None,
        ))
        .turn(main_after(
            Turn::tool_use("x1", tool_names::EXIT_PLAN_MODE, json!({})),
            "pw1",
            None,
        ));

    // 5a. Rejected with feedback: revise the plan and ask again.
    script = script
        .turn(main_after(
            Turn::blocks(vec![
                Block::text("I'll add a test to the plan."),
                Block::tool_use(
                    "pw2",
                    tool_names::WRITE,
                    json!({"file_path": plan, "content": PLAN_V2}),
                ),
            ]),
            "x1",
            Some(true),
        ))
        .turn(main_after(
            Turn::tool_use("x2", tool_names::EXIT_PLAN_MODE, json!({})),
            "pw2",
            None,
        ))
        .turn(main_after(
            Turn::text("Understood: I'll keep the plan as it is until you tell me what to change."),
            "x2",
            Some(true),
        ));

    // 5b. Approved (after either presentation): implement.
    let approved = |r: &RecordedRequest| {
        is_main(r) && (answers(r, "x1", Some(false)) || answers(r, "x2", Some(false)))
    };
    script = script
        .turn(
            Turn::blocks(vec![
                Block::text("Approved. Implementing the plan."),
                Block::tool_use(
                    "e1",
                    tool_names::EDIT,
                    json!({"file_path": todo, "old_string": LIST_OLD, "new_string": LIST_NEW}),
                ),
            ])
            .when(approved),
        )
        .turn(main_after(
            Turn::tool_use(
                "e2",
                tool_names::EDIT,
                json!({"file_path": todo, "old_string": CMD_OLD, "new_string": CMD_NEW}),
            ),
            "e1",
            None,
        ))
        .turn(main_after(
            Turn::tool_use(
                "e3",
                tool_names::EDIT,
                json!({"file_path": readme, "old_string": README_OLD, "new_string": README_NEW}),
            ),
            "e2",
            None,
        ))
        .turn(main_after(
            Turn::tool_use(
                "w1",
                tool_names::WRITE,
                json!({"file_path": test, "content": TEST_FILE}),
            ),
            "e3",
            None,
        ))
        .turn(main_after(
            Turn::text(
                "Done. `todo list --json` now prints the stored tasks as JSON:\n\
                 - todo.py: `--json` on the list subcommand, handled in `cmd_list`\n\
                 - README.md: the flag documented\n\
                 - tests/test_list_json.py: a unit test (run `python3 -m unittest`)",
            ),
            "w1",
            None,
        ));
    script
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_to_the_bundled_sample() {
        let todo = include_str!("../../demo/sample/todo.py");
        let readme = include_str!("../../demo/sample/README.md");
        for (text, old) in [(todo, LIST_OLD), (todo, CMD_OLD), (readme, README_OLD)] {
            assert_eq!(text.matches(old).count(), 1, "{old:?}");
        }
        assert!(todo.contains("import json\n"));
    }
}
