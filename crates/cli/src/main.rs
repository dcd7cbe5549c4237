//! The `catui` binary: parses the command line, builds a session and hands
//! it to a front end: the terminal UI, or headless (`-p`).

// First: its `println!` and `eprintln!` (sanitised) replace the standard
// ones in every module below.
#[macro_use]
mod output;

mod acp;
mod args;
#[cfg(feature = "broker")]
mod broker;
#[cfg(not(feature = "broker"))]
#[path = "broker_off.rs"]
mod broker;
#[cfg(feature = "demo")]
mod demo;
mod headless;
mod rewind;
mod sdk_flags;
mod session_config;
mod setup;
mod signals;
mod subcommands;
mod telemetry;

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use clap::Parser;

use args::{Args, InputFormat};

fn main() -> ExitCode {
    // The sandbox's inner stage, inside bubblewrap: before any other work,
    // so that it costs one exec and nothing more.
    let mut argv = std::env::args_os();
    if argv.nth(1).as_deref() == Some(std::ffi::OsStr::new(catui_sandbox::stage::STAGE_ARG)) {
        catui_sandbox::stage::main(argv);
    }
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    init_tracing(args.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("catui: could not start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let code = runtime.block_on(run(args));
    // Do not wait for a blocked stdin reader.
    runtime.shutdown_background();
    // Nothing a Bash command started outlives the session.
    catui_core::tools::bash::groups::kill_all();
    ExitCode::from(code)
}

fn init_tracing(verbose: bool) {
    // Diagnostics are for --verbose; without it only errors reach stderr
    // (retries and warnings the user must see are printed by the front end).
    let default = if verbose {
        "catui=debug,catui_core=debug,catui_providers=debug,warn"
    } else {
        "error"
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("CATUI_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}

async fn run(mut args: Args) -> u8 {
    if let Some(args::Command::Demo { print, dir }) = &args.command {
        #[cfg(feature = "demo")]
        return demo::run(*print, dir.clone()).await;
        #[cfg(not(feature = "demo"))]
        {
            let _ = (print, dir);
            eprintln!(
                "catui: this build has no demo (it was built without the `demo` feature); \
                 rebuild with the default features to get `catui demo`"
            );
            return 2;
        }
    }
    if let Some(args::Command::Acp) = &args.command {
        return acp::run(&args).await;
    }
    if let Some(command) = &args.command {
        if let Some(code) = broker::run_command(command).await {
            return code;
        }
        return subcommands::run(command, &args).await;
    }
    if let Some(target) = args.rewind_to.clone() {
        return rewind::run(&args, &target);
    }
    let headless =
        args.print || !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal();
    if headless && !args.print {
        eprintln!("catui: not attached to a terminal; running headless as with -p");
    }
    if !headless {
        // `--resume` without an id: let the user choose (headless keeps
        // meaning "the most recent").
        if args.resume.as_deref() == Some("") && !args.continue_session {
            match pick_resumed_session() {
                Ok(Some(id)) => args.resume = Some(id),
                Ok(None) => {
                    eprintln!("catui: resume cancelled; nothing was started");
                    return 0;
                }
                Err(e) => {
                    eprintln!("catui: {e}");
                    return 1;
                }
            }
        }
        match session_config::ask_about_trust(&args) {
            Ok(true) => {}
            Ok(false) => {
                eprintln!("catui: quit at the trust dialog; nothing was started");
                return 0;
            }
            Err(e) => {
                eprintln!("catui: {e}");
                return 1;
            }
        }
        return match setup::build(&args, true).await {
            Ok(session) => setup::run_tui(&mut args, session).await,
            Err(e) => {
                eprintln!("catui: {e}");
                2
            }
        };
    }

    let first_input = match args.input_format {
        InputFormat::StreamJson => None,
        InputFormat::Text => match prompt_text(&args) {
            Ok(text) => Some(text),
            Err(e) => {
                eprintln!("catui: {e}");
                return 2;
            }
        },
    };

    let session = match setup::build(&args, false).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("catui: {e}");
            return 2;
        }
    };
    setup::run_headless(&args, session, first_input).await
}

/// Shows the session picker for this project. With no sessions at all it
/// picks nothing and leaves the answer to `--resume`'s usual error.
fn pick_resumed_session() -> Result<Option<String>, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let project_dir = catui_core::session::project_dir_in_config_dir(&cwd);
    let sessions = catui_core::session::list_sessions(&project_dir);
    if sessions.is_empty() {
        return Ok(Some(String::new()));
    }
    let items = sessions
        .into_iter()
        .map(catui_tui::PickerItem::from)
        .collect();
    catui_tui::pick_session(items).map_err(|e| {
        format!("the session picker failed: {e}; pass a session id with --resume ID instead")
    })
}

/// The prompt from the argument, else all of stdin.
fn prompt_text(args: &Args) -> Result<String, String> {
    if let Some(p) = &args.prompt
        && !p.trim().is_empty()
    {
        return Ok(p.clone());
    }
    if std::io::stdin().is_terminal() {
        return Err(
            "no prompt: pass one as an argument (catui -p \"question\") or pipe it on stdin".into(),
        );
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("could not read the prompt from stdin: {e}"))?;
    if text.trim().is_empty() {
        return Err(
            "no prompt: pass one as an argument (catui -p \"question\") or pipe it on stdin".into(),
        );
    }
    Ok(text)
}
