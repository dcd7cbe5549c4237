//! `catui demo`: an offline walk-through of plan mode. It copies the bundled
//! sample project to a fresh directory, starts the testkit mock model on
//! loopback and runs a scripted session through the real provider client
//! (HTTP + SSE), engine, tools and permission layer. At a terminal the
//! session runs in the real full-screen interface — the user answers the
//! real approval dialogs, can press Shift+Tab and Ctrl+G, and the scripted
//! model follows whichever choice they make; with `--print` (or without a
//! terminal) the demo script answers and each step is narrated instead.
//! Nothing reads the user's keys or writes to the user's catui home.

mod approver;
mod narrate;
mod script;

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use approver::{Answers, DemoApprover};
use catui_core::builder::{FrontEnd, SessionBuilder, SessionConfig};
use catui_protocol::{ContentBlock, PermissionMode};
use catui_testkit::{MockServer, Script};
use narrate::{Narrator, Notes};

/// The sample project, embedded so the binary needs no data files.
const SAMPLE: [(&str, &str); 4] = [
    ("todo.py", include_str!("../../demo/sample/todo.py")),
    ("README.md", include_str!("../../demo/sample/README.md")),
    (
        "tests/test_todo.py",
        include_str!("../../demo/sample/tests/test_todo.py"),
    ),
    (
        "tests/__init__.py",
        include_str!("../../demo/sample/tests/__init__.py"),
    ),
];

/// Runs the demo; returns the exit code.
pub async fn run(print: bool, dir: Option<PathBuf>) -> u8 {
    match run_inner(print, dir).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("catui demo: {e}");
            1
        }
    }
}

async fn run_inner(print: bool, dir: Option<PathBuf>) -> Result<u8, String> {
    let base = match dir {
        Some(d) => d,
        None => fresh_temp_dir()?,
    };
    let (project, config) = lay_out(&base)?;

    let server = MockServer::start(Script::new())
        .await
        .map_err(|e| format!("could not start the mock model server on 127.0.0.1: {e}"))?;
    let in_terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let answers = if print || !in_terminal {
        Answers::Scripted
    } else {
        Answers::InTheInterface
    };
    // Only these variables: the user's keys and model settings stay out.
    let vars = HashMap::from([
        (
            "ANTHROPIC_API_KEY".to_string(),
            "demo-key-not-secret".to_string(),
        ),
        ("ANTHROPIC_BASE_URL".to_string(), server.url()),
    ]);
    let session_config = SessionConfig {
        vars: Some(vars),
        permission_mode: Some(PermissionMode::Plan),
        model: Some(script::MAIN_MODEL.into()),
        small_model: Some(script::SMALL_MODEL.into()),
        sandbox_stage: std::env::current_exe().ok(),
        ..SessionConfig::new(project.clone(), config.clone())
    };
    if answers == Answers::InTheInterface {
        let (approver, approvals) = catui_tui::approver();
        let session = SessionBuilder::new(session_config)
            .front_end(
                FrontEnd::interactive(Arc::new(approver))
                    .with_warnings(crate::session_config::stderr_warnings()),
            )
            .build()
            .map_err(|e| e.to_string())?;
        let plan_file = push_script(&server, &project, &session)?;
        print_intro(&server, &project, &config, answers);
        let exit = crate::setup::tui_front_end(
            session.engine,
            session.events,
            &session.info,
            approvals,
            crate::setup::TuiParts {
                team: session.team,
                checkpoints: session.checkpoints,
                background: Some(session.background),
                broker: None,
            },
            Some(script::REQUEST.to_string()),
        )
        .await;
        print_outro(&project, &config, &plan_file);
        // The demo's session is its only one: `/resume` just ends it.
        return Ok(match exit {
            crate::setup::TuiExit::Code(code) => code,
            crate::setup::TuiExit::Resume(_) => 0,
        });
    }

    let (notes, notes_rx) = Notes::channel();
    let session = SessionBuilder::new(session_config)
        .front_end(
            FrontEnd::interactive(Arc::new(DemoApprover::new(notes.clone())))
                .with_warnings(crate::session_config::stderr_warnings()),
        )
        .build()
        .map_err(|e| e.to_string())?;
    let plan_file = push_script(&server, &project, &session)?;

    print_intro(&server, &project, &config, answers);
    let catui_core::builder::Session {
        mut engine, events, ..
    } = session;
    let narrator = tokio::spawn(Narrator::new(project.clone()).run(events, notes_rx));
    println!("\n❯ {}", script::REQUEST);
    let outcome = engine
        .handle_input(vec![ContentBlock::text(script::REQUEST)])
        .await;
    drop(engine);
    notes.end();
    let _ = narrator.await;

    print_outro(&project, &config, &plan_file);
    Ok(if outcome.is_error { 1 } else { 0 })
}

/// Gives the mock model the demo's script for this session's plan file;
/// returns the plan file's path.
fn push_script(
    server: &MockServer,
    project: &Path,
    session: &catui_core::builder::Session,
) -> Result<String, String> {
    let plan_file = session
        .engine
        .plan_file()
        .ok_or("internal error: the demo session is not in plan mode")?;
    for turn in script::build(project, Path::new(&plan_file)) {
        server.push(turn);
    }
    Ok(plan_file)
}

/// A new directory under the system temp dir, kept after the demo so the
/// user can look at what changed.
fn fresh_temp_dir() -> Result<PathBuf, String> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("catui-demo-{}-{stamp}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("cannot create {}: {e}; pass --dir DIR", dir.display()))?;
    Ok(dir)
}

/// Writes the sample to `base/project` and makes `base/config`.
/// The demo's user settings: the scripted story has no turn for the goal
/// loop's continuations.
const DEMO_SETTINGS: &str = r#"{"planGoal": false, "planDrift": "note"}"#;

fn lay_out(base: &Path) -> Result<(PathBuf, PathBuf), String> {
    let project = base.join("project");
    let config = base.join("config");
    if project.exists() {
        return Err(format!(
            "{} already exists; pass a new or empty directory with --dir",
            project.display()
        ));
    }
    for (rel, text) in SAMPLE {
        let path = project.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    std::fs::create_dir_all(&config)
        .map_err(|e| format!("cannot create {}: {e}", config.display()))?;
    // The scripted model tells one story and stops: the goal loop would
    // keep asking it to continue past the script's last turn.
    let settings = config.join("settings.json");
    std::fs::write(&settings, DEMO_SETTINGS)
        .map_err(|e| format!("cannot write {}: {e}", settings.display()))?;
    let project = std::fs::canonicalize(&project)
        .map_err(|e| format!("cannot resolve {}: {e}", project.display()))?;
    let config = std::fs::canonicalize(&config)
        .map_err(|e| format!("cannot resolve {}: {e}", config.display()))?;
    Ok((project, config))
}

fn print_intro(server: &MockServer, project: &Path, config: &Path, answers: Answers) {
    println!("catui demo: an offline plan-mode session");
    println!(
        "A scripted mock model answers on {} (no network, no API key); the client, tools and",
        server.url()
    );
    println!("permission checks are catui's real ones.");
    println!("Project: {}", project.display());
    println!("Config:  {}", config.display());
    match answers {
        Answers::Scripted => println!("Approvals are answered by the demo script."),
        Answers::InTheInterface => println!(
            "You answer the approval dialogs in the interface (the model's side is scripted: any choice works).\nCtrl+C twice leaves the interface."
        ),
    }
    println!(
        "\n[permission mode: plan] the model may read and explore, and write only its plan file"
    );
}

fn print_outro(project: &Path, config: &Path, plan_file: &str) {
    println!("\n━━ What changed ━━");
    for (rel, original) in SAMPLE {
        let now = std::fs::read_to_string(project.join(rel)).unwrap_or_default();
        if now != original {
            println!("  modified  {rel}");
        }
    }
    if project.join("tests/test_list_json.py").exists() {
        println!("  created   tests/test_list_json.py");
    }
    println!("  plan      {plan_file}");
    println!("\nThe demo's files stay in {} (project)", project.display());
    println!("and {} (transcripts, plan).", config.display());
    println!(
        "\nTry catui for real:\n  export ANTHROPIC_API_KEY=...          (or OPENAI_API_KEY / OPENAI_BASE_URL for OpenAI-compatible servers)\n  catui                                 full-screen session in the current directory\n  catui --permission-mode plan          start in plan mode (or type /plan <task>)\n  catui -p \"question\"                   headless: answer and exit\nKeys: Shift+Tab cycles the permission mode (default → acceptEdits → plan),\n      Ctrl+G opens the plan in $EDITOR, Esc interrupts the model."
    );
}
