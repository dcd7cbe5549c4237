//! What the sandbox costs per command, through the real Bash tool: the
//! same command run unconfined, confined by Landlock and seccomp (no inner
//! stage), and confined by all three layers (bubblewrap with catui's inner
//! stage), N times each; min / median / max wall time in milliseconds.
//!
//!     cargo build --release -p catui
//!     cargo run --release -p catui-core --example sandbox_cost -- \
//!         --stage target/release/catui --dir . --runs 30 'git status' 'rg x'
//!
//! `bench/sandbox.sh` runs it and prints the table for docs/BENCHMARKS.md.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use catui_core::permissions::Grant;
use catui_core::permissions::sandbox::{SandboxPolicy, SessionSandbox, Stage};
use catui_core::permissions::secrets::SecretStores;
use catui_core::tools::bash::{BashInput, BashTool};
use catui_core::tools::{ToolContext, TypedTool};

struct Options {
    stage: Option<PathBuf>,
    dir: PathBuf,
    runs: usize,
    commands: Vec<String>,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        stage: None,
        dir: PathBuf::from("."),
        runs: 20,
        commands: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--stage" => o.stage = Some(PathBuf::from(value()?)),
            "--dir" => o.dir = PathBuf::from(value()?),
            "--runs" => o.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            _ => o.commands.push(a),
        }
    }
    if o.commands.is_empty() {
        o.commands = vec!["git status".into(), "rg x".into()];
    }
    o.dir = o.dir.canonicalize().map_err(|e| format!("--dir: {e}"))?;
    Ok(o)
}

fn context(dir: &std::path::Path, stage: Option<&PathBuf>, confined: bool) -> ToolContext {
    let mut ctx = ToolContext::new(dir.to_path_buf());
    let home = dirs_home();
    ctx.confiner = Arc::new(SessionSandbox::new(
        stage.cloned().map(Stage::catui),
        SecretStores::new(home.as_deref(), &[], &[dir.to_path_buf()]),
        home,
        SandboxPolicy::None,
    ));
    ctx.read_only_sandbox = SandboxPolicy::ReadOnlyExceptTemp {
        temp_dir: std::env::temp_dir().join(format!("catui-sandbox-cost-{}", std::process::id())),
    };
    ctx.grant = if confined {
        Grant::ReadOnly
    } else {
        Grant::Explicit
    };
    ctx
}

fn dirs_home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

async fn time(ctx: &ToolContext, command: &str, runs: usize) -> Result<Vec<f64>, String> {
    let mut out = Vec::with_capacity(runs);
    // One warm-up run.
    for i in 0..=runs {
        ctx.set_cwd(ctx.project_root.clone());
        let started = Instant::now();
        BashTool::default()
            .call(
                BashInput {
                    command: format!("{command} >/dev/null 2>&1"),
                    timeout: Some(60_000),
                    description: None,
                    unconfined: None,
                    run_in_background: None,
                    keep_running: None,
                },
                ctx,
            )
            .await
            .map_err(|e| e.to_string())?;
        if i > 0 {
            out.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    out.sort_by(f64::total_cmp);
    Ok(out)
}

fn stats(v: &[f64]) -> (f64, f64, f64) {
    (v[0], v[v.len() / 2], v[v.len() - 1])
}

#[tokio::main]
async fn main() {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("sandbox_cost: {e}");
            std::process::exit(2);
        }
    };
    println!(
        "| command | how | layers | min (ms) | median (ms) | max (ms) | added (median, ms) | runs |"
    );
    println!("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |");
    for command in &o.commands {
        let mut base = None;
        let ways: [(&str, Option<&PathBuf>, bool); 3] = [
            ("unconfined", None, false),
            ("confined, no stage", None, true),
            ("confined, inner stage", o.stage.as_ref(), true),
        ];
        for (how, stage, confined) in ways {
            if how.ends_with("inner stage") && stage.is_none() {
                continue;
            }
            let ctx = context(&o.dir, stage, confined);
            let layers = if confined {
                ctx.confiner.layers().names().join(" + ")
            } else {
                "-".to_string()
            };
            let times = match time(&ctx, command, o.runs).await {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("sandbox_cost: {command}: {e}");
                    std::process::exit(1);
                }
            };
            let (min, median, max) = stats(&times);
            let added = base.map_or("".to_string(), |b: f64| format!("{:.1}", median - b));
            base.get_or_insert(median);
            println!(
                "| `{command}` | {how} | {layers} | {min:.1} | {median:.1} | {max:.1} | {added} | {} |",
                o.runs
            );
        }
    }
}
