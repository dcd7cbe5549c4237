//! What the sandbox costs per command, through the real Bash tool: the
//! same command run unconfined, confined by Landlock and seccomp (no inner
//! stage), confined by all three layers (bubblewrap with catui's inner
//! stage), and as a dry run (the same layers plus overlays over the
//! directory and the home, a fresh scratch area each time, its changes
//! counted and the area removed — issue 50), N times each; min / median /
//! max wall time in milliseconds. "added" is over the unconfined run; the
//! dry run's line also says what it adds over the confined one.
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

/// How a command runs.
#[derive(Clone, Copy, PartialEq)]
enum How {
    Unconfined,
    Confined,
    /// A one-off dry run (what "run as a dry run" at a prompt does; plan
    /// mode's later dry runs reuse their area, so this is the dearer case).
    DryRun,
}

fn context(dir: &std::path::Path, stage: Option<&PathBuf>, how: How) -> ToolContext {
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
    ctx.grant = match how {
        How::Unconfined => Grant::Explicit,
        How::Confined => Grant::ReadOnly,
        How::DryRun => Grant::DryRun,
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
        let mut confined_median = None;
        let ways: [(&str, Option<&PathBuf>, How); 4] = [
            ("unconfined", None, How::Unconfined),
            ("confined, no stage", None, How::Confined),
            ("confined, inner stage", o.stage.as_ref(), How::Confined),
            ("dry run, inner stage", o.stage.as_ref(), How::DryRun),
        ];
        for (label, stage, how) in ways {
            if label.ends_with("inner stage") && stage.is_none() {
                continue;
            }
            let ctx = context(&o.dir, stage, how);
            let layers = match how {
                How::Unconfined => "-".to_string(),
                How::Confined => ctx.confiner.layers().names().join(" + "),
                How::DryRun => format!("{} + overlays", ctx.confiner.layers().names().join(" + ")),
            };
            let times = match time(&ctx, command, o.runs).await {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("sandbox_cost: {command}: {e}");
                    std::process::exit(1);
                }
            };
            let (min, median, max) = stats(&times);
            let mut added = base.map_or("".to_string(), |b: f64| format!("{:.1}", median - b));
            base.get_or_insert(median);
            match how {
                How::Confined if stage.is_some() => confined_median = Some(median),
                How::DryRun => {
                    if let Some(c) = confined_median {
                        added.push_str(&format!(" ({:+.1} over confined)", median - c));
                    }
                }
                _ => {}
            }
            println!(
                "| `{command}` | {label} | {layers} | {min:.1} | {median:.1} | {max:.1} | {added} | {} |",
                o.runs
            );
        }
    }
}
