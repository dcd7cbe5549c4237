//! The terminal UI end to end: the real `catui` binary in a tmux pane,
//! driven by keystrokes and read back with `capture-pane`, against the
//! testkit mock model over HTTP, with real files in a temp project.
//!
//! The flow is the one a user follows: type a request, Shift+Tab into plan
//! mode, send; the model writes its plan and calls ExitPlanMode; the
//! approval dialog opens; "Yes, and auto-accept edits"; the model edits a
//! project file; Ctrl+C twice quits and the terminal is left in cooked mode.
//!
//! Every wait polls the screen with a generous timeout (the machine running
//! the tests may be loaded); nothing sleeps for a fixed time beyond a poll.
//! The tests skip, with a notice, only when tmux is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use catui_testkit::{MockServer, RecordedRequest, Script, Turn};
use common::Sandbox;
use serde_json::json;

/// How long one step may take before the test fails.
const STEP: Duration = Duration::from_secs(20);
const POLL: Duration = Duration::from_millis(100);
const SHELL_PROMPT: &str = "e2e-shell$ ";

fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A private tmux server (its own socket) with one pane running `sh`.
struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    /// Starts `sh` in `cwd` with exactly `env` (nothing inherited from the
    /// test process, so no real API key can leak in).
    fn start(dir: &Path, cwd: &Path, env: &[(&str, String)]) -> Tmux {
        let tmux = Tmux {
            socket: dir.join("tmux.sock"),
        };
        let mut args: Vec<String> = ["new-session", "-d", "-s", "e2e", "-x", "110", "-y", "40"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.push("-c".into());
        args.push(cwd.display().to_string());
        args.push("env".into());
        args.push("-i".into());
        for (k, v) in env {
            args.push(format!("{k}={v}"));
        }
        args.push("/bin/sh".into());
        let out = tmux.run(&args);
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        tmux
    }

    fn run<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("-f")
            .arg("/dev/null")
            .args(args)
            .output()
            .unwrap()
    }

    /// Sends key names (`Enter`, `BTab`, `C-c`, ...).
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success(), "send-keys {keys:?}");
    }

    /// Types `text` literally.
    fn type_text(&self, text: &str) {
        assert!(
            self.run(&["send-keys", "-t", "e2e", "-l", text])
                .status
                .success(),
            "send-keys -l {text}"
        );
    }

    /// The visible screen of the pane.
    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    /// A pane property, e.g. `#{alternate_on}`.
    fn display(&self, format: &str) -> String {
        String::from_utf8_lossy(
            &self
                .run(&["display-message", "-p", "-t", "e2e", format])
                .stdout,
        )
        .trim()
        .to_string()
    }

    /// Polls the screen until `pred` holds; fails with the screen shown.
    fn wait_screen(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if pred(&screen) {
                return screen;
            }
            if start.elapsed() > STEP {
                panic!("timed out after {STEP:?} waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(POLL);
        }
    }

    fn wait_text(&self, text: &str) -> String {
        self.wait_screen(&format!("{text:?} on screen"), |s| s.contains(text))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// Polls `f` until it returns `Some`, failing after one step's timeout.
fn wait_for<T>(what: &str, tmux: &Tmux, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        if start.elapsed() > STEP {
            panic!(
                "timed out after {STEP:?} waiting for {what}; screen:\n{}",
                tmux.screen()
            );
        }
        std::thread::sleep(POLL);
    }
}

/// The status line: the bottom row that carries the token count.
fn status_line(screen: &str) -> String {
    screen
        .lines()
        .rev()
        .find(|l| l.contains(" tokens"))
        .unwrap_or("")
        .to_string()
}

fn mode_on_screen(screen: &str) -> &'static str {
    let status = status_line(screen);
    if status.contains("plan mode on") {
        "plan"
    } else if status.contains("accept edits on") {
        "acceptEdits"
    } else if status.contains("default mode") {
        "default"
    } else {
        "unknown"
    }
}

/// The plan file path the model sees in its plan-mode reminder.
fn plan_path_in(r: &RecordedRequest, plans_dir: &str) -> String {
    let text = r.body["messages"].to_string();
    let start = text
        .find(plans_dir)
        .unwrap_or_else(|| panic!("no plan path under {plans_dir} in {text}"));
    let end = start + text[start..].find(".md").unwrap() + 3;
    text[start..end].to_string()
}

/// The session: a project with one file, a mock model, tmux running `sh`
/// in the project with catui's environment.
struct Setup {
    sb: Sandbox,
    server: MockServer,
    tmux: Tmux,
    main_rs: PathBuf,
    plans_dir: String,
}

fn setup(script: impl FnOnce(&Sandbox, &str, &Path) -> Script, editor: Option<&str>) -> Setup {
    let sb = Sandbox::new();
    let main_rs = sb.write("src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n");
    let plans_dir = format!("{}/plans/", sb.config().display());
    let server = MockServer::start_blocking(script(&sb, &plans_dir, &main_rs)).unwrap();
    let mut env = vec![
        (
            "PATH",
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
        ),
        ("HOME", sb.dir.path().display().to_string()),
        ("TERM", "xterm-256color".to_string()),
        ("LANG", "C.UTF-8".to_string()),
        ("PS1", SHELL_PROMPT.to_string()),
        ("CATUI_CONFIG_DIR", sb.config().display().to_string()),
        ("CATUI_MODEL", "test-model".to_string()),
        ("CATUI_RETRY_BASE_MS", "1".to_string()),
        ("ANTHROPIC_API_KEY", "test-key-not-secret".to_string()),
        ("ANTHROPIC_BASE_URL", server.url()),
    ];
    if let Some(editor) = editor {
        env.push(("VISUAL", editor.to_string()));
    }
    let tmux = Tmux::start(sb.dir.path(), &sb.project(), &env);
    tmux.wait_text(SHELL_PROMPT.trim_end());
    Setup {
        sb,
        server,
        tmux,
        main_rs,
        plans_dir,
    }
}

/// Starts catui from the shell and waits for its first frame.
fn launch(s: &Setup) {
    let bin = assert_cmd::cargo::cargo_bin("catui");
    s.tmux
        .type_text(&format!("'{}'; echo \"catui-exit=$?\"", bin.display()));
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Shift+Tab cycles permission modes");
    wait_for("the alternate screen", &s.tmux, || {
        (s.tmux.display("#{alternate_on}") == "1").then_some(())
    });
}

/// Presses Shift+Tab until the status line shows `target`, one press at a
/// time, each waiting for the status line to change.
fn cycle_mode_to(tmux: &Tmux, target: &str) {
    for _ in 0..5 {
        let before = mode_on_screen(&tmux.screen());
        if before == target {
            return;
        }
        tmux.keys(&["BTab"]);
        tmux.wait_screen("the mode to change after Shift+Tab", |s| {
            let now = mode_on_screen(s);
            now != before && now != "unknown"
        });
    }
    panic!(
        "Shift+Tab never reached {target}; screen:\n{}",
        tmux.screen()
    );
}

/// Ctrl+C twice quits; the shell gets the terminal back in cooked mode.
fn quit_and_check_terminal(s: &Setup) {
    s.tmux.keys(&["C-c", "C-c"]);
    s.tmux.wait_text("catui-exit=0");
    assert_eq!(
        s.tmux.display("#{alternate_on}"),
        "0",
        "the alternate screen was left on"
    );
    let stty = s.sb.dir.path().join("stty.txt");
    s.tmux.type_text(&format!("stty -a > '{}'", stty.display()));
    s.tmux.keys(&["Enter"]);
    let settings = wait_for("stty -a output", &s.tmux, || {
        std::fs::read_to_string(&stty)
            .ok()
            .filter(|t| t.contains("icanon"))
    });
    let flags: Vec<&str> = settings.split_whitespace().collect();
    for flag in ["icanon", "echo", "isig", "icrnl", "opost"] {
        assert!(
            flags.contains(&flag) && !flags.contains(&format!("-{flag}").as_str()),
            "terminal not restored: `{flag}` is off after catui exited:\n{settings}"
        );
    }
}

/// The scripted model: writes the plan (to the path in its reminder), asks
/// for approval, then reads and edits `src/main.rs` and finishes.
fn plan_then_edit_script(plans_dir: &str, main_rs: &Path) -> Script {
    let dir = plans_dir.to_string();
    let main = main_rs.display().to_string();
    Script::new()
        .turn(Turn::respond(move |r| {
            Turn::tool_use(
                "p1",
                "Write",
                json!({"file_path": plan_path_in(r, &dir),
                       "content": "# Greeting plan\n\n1. Change the greeting in src/main.rs\n2. Run the binary\n"}),
            )
        }))
        .turn(Turn::tool_use("x1", "ExitPlanMode", json!({})))
        .turn(Turn::tool_use("r1", "Read", json!({"file_path": main})))
        .turn(Turn::tool_use(
            "e1",
            "Edit",
            json!({"file_path": main, "old_string": "hello", "new_string": "hello, plan mode"}),
        ))
        .turn(Turn::text("Greeting changed as planned."))
}

fn tool_result(r: &RecordedRequest, id: &str) -> String {
    r.tool_results()
        .into_iter()
        .find(|t| t.tool_use_id == id)
        .unwrap_or_else(|| panic!("no result for {id}"))
        .content
}

#[test]
fn plan_mode_approval_and_edit_in_the_terminal_ui() {
    if !tmux_available() {
        eprintln!("SKIPPED tui_e2e: tmux is not installed (apt-get install tmux)");
        return;
    }
    let s = setup(|_, dir, main| plan_then_edit_script(dir, main), None);
    launch(&s);
    assert_eq!(mode_on_screen(&s.tmux.screen()), "default");

    s.tmux.type_text("Change the greeting");
    s.tmux.wait_text("Change the greeting");
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.keys(&["Enter"]);

    // The plan arrives for approval, rendered with its path.
    let dialog = s.tmux.wait_text("Exit plan mode?");
    s.tmux.wait_text("Yes, and auto-accept edits");
    assert!(
        s.tmux.screen().contains("Greeting plan") || dialog.contains("Greeting plan"),
        "{dialog}"
    );
    assert_eq!(
        std::fs::read_to_string(&s.main_rs).unwrap(),
        "fn main() {\n    println!(\"hello\");\n}\n",
        "nothing changes before approval"
    );
    s.tmux.keys(&["1"]);

    // After approval with auto-accepted edits the edit runs unasked.
    wait_for("src/main.rs to change", &s.tmux, || {
        std::fs::read_to_string(&s.main_rs)
            .ok()
            .filter(|t| t.contains("hello, plan mode"))
    });
    let screen = s.tmux.wait_text("Greeting changed as planned.");
    assert_eq!(mode_on_screen(&screen), "acceptEdits", "{screen}");

    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 5, "every scripted turn was used");
    let first = &reqs[0];
    assert!(
        first.body["messages"][0]["content"]
            .to_string()
            .contains("Change the greeting")
    );
    let approved = tool_result(&reqs[2], "x1");
    assert!(
        approved.contains("User has approved your plan"),
        "{approved}"
    );
    assert!(approved.contains("## Approved Plan:"), "{approved}");
    assert!(!tool_result(&reqs[4], "e1").is_empty());
    let plan_path = plan_path_in(first, &s.plans_dir);
    assert!(
        std::fs::read_to_string(&plan_path)
            .unwrap()
            .starts_with("# Greeting plan"),
    );

    quit_and_check_terminal(&s);
}

/// Ctrl+G in the approval dialog opens the plan in `$VISUAL`; the edited
/// plan is what gets approved.
#[test]
fn ctrl_g_edits_the_plan_in_the_approval_dialog() {
    if !tmux_available() {
        eprintln!("SKIPPED tui_e2e: tmux is not installed (apt-get install tmux)");
        return;
    }
    let editor_dir = tempfile::tempdir().unwrap();
    let editor = test_editor(editor_dir.path());
    let s = setup(
        |_, dir, main| plan_then_edit_script(dir, main),
        Some(&editor.display().to_string()),
    );
    launch(&s);
    s.tmux.type_text("Change the greeting");
    s.tmux.wait_text("Change the greeting");
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Exit plan mode?");
    s.tmux.wait_text("Yes, and auto-accept edits");
    s.tmux.keys(&["C-g"]);
    s.tmux.wait_text("Step added in the editor");
    s.tmux.keys(&["1"]);
    s.tmux.wait_text("Greeting changed as planned.");

    let reqs = s.server.requests();
    let approved = tool_result(&reqs[2], "x1");
    assert!(
        approved.contains("## Approved Plan (edited by user):"),
        "{approved}"
    );
    assert!(
        approved.contains("3. Step added in the editor"),
        "{approved}"
    );
    let plan_path = plan_path_in(&reqs[0], &s.plans_dir);
    assert!(
        std::fs::read_to_string(&plan_path)
            .unwrap()
            .contains("3. Step added in the editor"),
        "the edited plan is written back to the plan file"
    );
    quit_and_check_terminal(&s);
}

/// Ctrl+G in the input box while planning opens the plan file itself once
/// it exists; before that it edits the input.
#[test]
fn ctrl_g_in_plan_mode_edits_the_input_then_the_plan_file() {
    if !tmux_available() {
        eprintln!("SKIPPED tui_e2e: tmux is not installed (apt-get install tmux)");
        return;
    }
    let editor_dir = tempfile::tempdir().unwrap();
    let editor = test_editor(editor_dir.path());
    let s = setup(
        |_, dir, _| {
            let dir = dir.to_string();
            Script::new()
                .turn(Turn::respond(move |r| {
                    Turn::tool_use(
                        "p1",
                        "Write",
                        json!({"file_path": plan_path_in(r, &dir), "content": "# Plan\n\n1. First\n"}),
                    )
                }))
                .turn(Turn::tool_use("x1", "ExitPlanMode", json!({})))
                .turn(Turn::text("Still planning."))
        },
        Some(&editor.display().to_string()),
    );
    launch(&s);
    s.tmux.type_text("Plan it");
    s.tmux.wait_text("Plan it");
    cycle_mode_to(&s.tmux, "plan");

    // No plan written yet: Ctrl+G edits the input.
    s.tmux.keys(&["C-g"]);
    s.tmux.wait_text("Step added in the editor");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Exit plan mode?");
    s.tmux.wait_text("Yes, and auto-accept edits");
    let first = s.server.requests()[0].clone();
    assert!(
        first
            .last_user_text()
            .is_some_and(|t| t.starts_with("Plan it") && t.contains("Step added in the editor")),
        "the edited input was sent: {}",
        first.body["messages"]
    );
    let plan_path = plan_path_in(&first, &s.plans_dir);

    // Esc keeps planning; the model answers and the session stays in plan mode.
    s.tmux.keys(&["Escape"]);
    let screen = s.tmux.wait_text("Still planning.");
    assert_eq!(mode_on_screen(&screen), "plan", "{screen}");

    // Now the plan file exists: Ctrl+G opens it.
    s.tmux.keys(&["C-g"]);
    s.tmux.wait_text("Opened plan in editor");
    assert_eq!(
        std::fs::read_to_string(&plan_path).unwrap(),
        "# Plan\n\n1. First\n3. Step added in the editor\n"
    );
    quit_and_check_terminal(&s);
}

/// The question dialog answers AskUserQuestion in the form the tool reads:
/// `answers` = {question: answer}, several choices comma-joined.
#[test]
fn ask_user_question_answers_reach_the_model() {
    if !tmux_available() {
        eprintln!("SKIPPED tui_e2e: tmux is not installed (apt-get install tmux)");
        return;
    }
    let questions = json!({"questions": [
        {"question": "Where should the cache live?", "header": "Storage",
         "options": [{"label": "Memory", "description": "fast, lost on restart"},
                     {"label": "Disk", "description": "kept across restarts"}],
         "multiSelect": false},
        {"question": "Which platforms matter?", "header": "Platforms",
         "options": [{"label": "Linux", "description": ""},
                     {"label": "macOS", "description": ""},
                     {"label": "Windows", "description": ""}],
         "multiSelect": true}
    ]});
    let s = setup(
        move |_, _, _| {
            Script::new()
                .turn(Turn::tool_use("q1", "AskUserQuestion", questions))
                .turn(Turn::text("Noted your choices."))
        },
        None,
    );
    launch(&s);
    s.tmux.type_text("Add a cache");
    s.tmux.wait_text("Add a cache");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Where should the cache live?");
    // Disk for the first question (single choice moves on), Linux and
    // Windows for the second, then Tab to Submit and Enter.
    s.tmux.keys(&["2"]);
    s.tmux.wait_text("Which platforms matter?");
    s.tmux.keys(&["1", "3", "Tab"]);
    s.tmux.wait_text("Review your answers");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Noted your choices.");

    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 2);
    let result = reqs[1]
        .tool_results()
        .into_iter()
        .find(|t| t.tool_use_id == "q1")
        .unwrap();
    assert!(!result.is_error, "{}", result.content);
    assert!(
        result.content.contains(
            r#""Where should the cache live?" = "Disk", "Which platforms matter?" = "Linux, Windows""#
        ),
        "{}",
        result.content
    );
    quit_and_check_terminal(&s);
}

/// A stand-in for `$VISUAL`: appends a line to the file it is given.
fn test_editor(dir: &Path) -> PathBuf {
    let editor = dir.join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf '3. Step added in the editor\\n' >> \"$1\"\n",
    )
    .unwrap();
    make_executable(&editor);
    editor
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut perms = std::fs::metadata(path).unwrap().permissions();
    perms.set_mode(0o755);
    std::fs::set_permissions(path, perms).unwrap();
}
