//! The Bash tool against a real /bin/bash: output, exit codes, working
//! directory, truncation, timeouts, interruption.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
use std::path::Path;
use std::time::{Duration, Instant};

use catui_core::permissions::Access;
use catui_core::tools::bash::{BashInput, BashTool};
use catui_core::tools::{ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool};

fn input(command: &str) -> BashInput {
    BashInput {
        command: command.to_string(),
        timeout: None,
        description: None,
        unconfined: None,
        run_in_background: None,
        keep_running: None,
    }
}

async fn run(ctx: &ToolContext, command: &str) -> ToolOutput {
    match BashTool::default().call(input(command), ctx).await {
        Ok(out) => out,
        Err(e) => panic!("{command:?} failed: {e}"),
    }
}

fn project() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let ctx = ToolContext::new(root);
    (dir, ctx)
}

/// Processes whose command line contains `token`.
fn processes_with(token: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if text.contains(token) {
                found.push(format!("{}: {text}", entry.file_name().to_string_lossy()));
            }
        }
    }
    found
}

#[tokio::test]
async fn output_and_exit_codes_are_reported() {
    let (_dir, ctx) = project();
    let ok = run(&ctx, "echo hello").await;
    assert_eq!(ok.content, "hello");
    assert!(!ok.is_error);

    let failed = run(&ctx, "echo partial; exit 3").await;
    assert_eq!(failed.content, "partial\nExit code: 3");
    assert!(!failed.is_error);

    let silent = run(&ctx, "true").await;
    assert_eq!(silent.content, "(no output)");

    let killed = run(&ctx, "kill -TERM $$").await;
    assert!(
        killed.content.contains("Killed by signal 15"),
        "{}",
        killed.content
    );
}

#[tokio::test]
async fn stdout_and_stderr_are_interleaved_in_order() {
    let (_dir, ctx) = project();
    let out = run(&ctx, "echo one; echo two >&2; echo three").await;
    assert_eq!(out.content, "one\ntwo\nthree");
}

#[tokio::test]
async fn stdin_is_empty() {
    let (_dir, ctx) = project();
    let out = run(&ctx, "cat; echo after").await;
    assert_eq!(out.content, "after");
}

#[tokio::test]
async fn cd_persists_between_calls() {
    let (_dir, ctx) = project();
    let root = ctx.project_root.clone();
    std::fs::create_dir_all(root.join("sub/deeper")).unwrap();

    run(&ctx, "cd sub").await;
    assert_eq!(ctx.cwd(), root.join("sub"));
    let out = run(&ctx, "pwd").await;
    assert_eq!(out.content, root.join("sub").display().to_string());

    // A failing command after `cd` still moves the session.
    let out = run(&ctx, "cd deeper && exit 4").await;
    assert!(out.content.contains("Exit code: 4"));
    assert_eq!(ctx.cwd(), root.join("sub/deeper"));

    // A subshell's `cd` does not.
    run(&ctx, "(cd /)").await;
    assert_eq!(ctx.cwd(), root.join("sub/deeper"));
}

#[tokio::test]
async fn a_vanished_working_directory_falls_back_to_the_project() {
    let (_dir, ctx) = project();
    let root = ctx.project_root.clone();
    std::fs::create_dir(root.join("gone")).unwrap();
    run(&ctx, "cd gone").await;
    std::fs::remove_dir(root.join("gone")).unwrap();
    let out = run(&ctx, "pwd").await;
    assert!(out.content.contains("no longer exists"), "{}", out.content);
    assert!(out.content.ends_with(&root.display().to_string()));
    assert_eq!(ctx.cwd(), root);
}

#[tokio::test]
async fn long_output_keeps_head_and_tail() {
    let (_dir, ctx) = project();
    let out = run(&ctx, "seq 1 100000").await;
    assert!(
        out.content.starts_with("1\n2\n3\n"),
        "{}",
        &out.content[..20]
    );
    assert!(out.content.ends_with("99999\n100000"));
    // Every number with its newline; the marker counts the raw output.
    let full_len: usize = (1..=100_000).map(|n: u32| n.to_string().len() + 1).sum();
    let cut = full_len - catui_core::tools::bash::MAX_OUTPUT_CHARS;
    assert!(
        out.content
            .contains(&format!("... [{cut} characters cut] ...")),
        "marker missing"
    );
    assert!(out.content.chars().count() < catui_core::tools::bash::MAX_OUTPUT_CHARS + 100);
}

#[tokio::test]
async fn long_output_is_saved_whole_when_the_session_has_an_output_dir() {
    let (dir, mut ctx) = project();
    let spills = dir.path().join("tool-output");
    ctx.values
        .insert(catui_core::tools::bash::ToolOutputDir(spills.clone()));
    ctx.tool_use_id = Some("toolu_long".into());
    let out = run(&ctx, "seq 1 100000").await;
    let saved = spills.join("toolu_long.txt");
    assert!(
        out.content.contains(&saved.display().to_string()),
        "the answer names the file: {}",
        &out.content[out.content.len() - 300..]
    );
    let whole = std::fs::read_to_string(&saved).unwrap();
    let expected: String = (1..=100_000).map(|n| format!("{n}\n")).collect();
    assert_eq!(whole, expected);

    // Short output leaves no file behind.
    ctx.tool_use_id = Some("toolu_short".into());
    let out = run(&ctx, "echo hi").await;
    assert_eq!(out.content.trim(), "hi");
    assert!(!spills.join("toolu_short.txt").exists());
}

#[tokio::test]
async fn timeout_kills_the_whole_process_tree() {
    let (_dir, ctx) = project();
    let marker = ctx.project_root.join("marker");
    let token = "31.4159";
    let command = format!(
        "(sleep {token}; echo x > {}) & sleep {token}",
        marker.display()
    );
    let started = Instant::now();
    let out = BashTool::default()
        .call(
            BashInput {
                command,
                timeout: Some(500),
                description: None,
                unconfined: None,
                run_in_background: None,
                keep_running: None,
            },
            &ctx,
        )
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert!(out.is_error);
    assert!(
        out.content.contains("Command timed out after 500 ms"),
        "{}",
        out.content
    );
    // SIGKILL delivery is immediate, but give the kernel a moment to reap.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(processes_with(token), Vec::<String>::new());
    assert!(!marker.exists());
}

#[tokio::test]
async fn cancellation_kills_the_command_and_reports_cancelled() {
    let (_dir, ctx) = project();
    let token = "27.1828";
    let cancel = ctx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    let result = BashTool::default()
        .call(input(&format!("sleep {token} | cat")), &ctx)
        .await;
    assert_eq!(result, Err(ToolError::Cancelled));
    assert!(started.elapsed() < Duration::from_secs(10));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(processes_with(token), Vec::<String>::new());
}

#[tokio::test]
async fn background_jobs_do_not_hold_the_call_open() {
    let (_dir, ctx) = project();
    let token = "9.8765";
    let started = Instant::now();
    let out = run(&ctx, &format!("sleep {token} & echo started")).await;
    assert_eq!(out.content, "started");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    for line in processes_with(token) {
        if let Some(pid) = line.split(':').next() {
            let _ = std::process::Command::new("kill").arg(pid).status();
        }
    }
}

#[tokio::test]
async fn settings_env_is_passed_but_keys_are_not() {
    let (_dir, _) = project();
    let mut ctx = ToolContext::new(std::env::temp_dir());
    ctx.env = std::sync::Arc::new(catui_sandbox::child_env::EnvPolicy {
        set: vec![
            ("CATUI_TEST_VISIBLE".to_string(), "yes".to_string()),
            (
                "OPENAI_API_KEY".to_string(),
                "sk-should-not-leak".to_string(),
            ),
        ],
        pass: Vec::new(),
    });
    let out = run(&ctx, "env").await;
    assert!(out.content.contains("CATUI_TEST_VISIBLE=yes"));
    assert!(!out.content.contains("sk-should-not-leak"));
}

#[tokio::test]
async fn validation_rejects_bad_input() {
    let (_dir, ctx) = project();
    let mut bad = input("ls");
    bad.timeout = Some(600_001);
    assert!(matches!(
        BashTool::default().validate_input(&bad, &ctx).await,
        Err(ToolError::InvalidInput(_))
    ));
    assert!(matches!(
        BashTool::default().validate_input(&input("  "), &ctx).await,
        Err(ToolError::InvalidInput(_))
    ));
    let mut ok = input("ls");
    ok.timeout = Some(600_000);
    assert!(BashTool::default().validate_input(&ok, &ctx).await.is_ok());
}

#[test]
fn read_only_and_access_follow_the_analysis() {
    let ctx = ToolContext::new(Path::new("/").to_path_buf());
    assert!(BashTool::default().is_read_only(&input("git status && ls")));
    assert!(BashTool::default().is_concurrency_safe(&input("git status && ls")));
    assert!(!BashTool::default().is_read_only(&input("rm -rf target")));
    assert!(!BashTool::default().is_concurrency_safe(&input("rm -rf target")));
    assert_eq!(
        BashTool::default().access(&input("ls"), &ctx),
        Access::Shell {
            command: "ls".into(),
            unconfined: false,
        }
    );
}

#[test]
fn registered_with_a_strict_schema() {
    let registry = ToolRegistry::builtin();
    let tool = registry.get("Bash").expect("Bash is registered");
    let schema = tool.input_schema();
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], serde_json::json!(["command"]));
    assert!(
        tool.parse(&serde_json::json!({"command": "ls", "bogus": 1}))
            .is_err()
    );
    let call = tool
        .parse(&serde_json::json!({"command": "ls -la"}))
        .unwrap();
    assert!(call.is_read_only());
    assert_eq!(call.summary(), "Bash(ls -la)");
}
