//! `catui --resume ID --rewind-to UUID`: a rewind for scripts. The session
//! is opened as for a resume (no MCP server is started), taken back to the
//! moment before the message (its files, its conversation, or both, as
//! `--rewind-scope` says), and catui exits; `catui --resume ID` continues
//! from there. Files changed outside catui since that moment are listed
//! and the rewind refused (exit 1) unless `--force`.

use catui_core::builder::{FrontEnd, SessionBuilder};
use catui_core::checkpoints::{RewindRequest, RewindTarget};

use crate::args::{Args, OutputFormat};

/// Runs the rewind and returns the exit code.
pub fn run(args: &Args, target: &str) -> u8 {
    if args.resume.is_none() && !args.continue_session {
        eprintln!(
            "catui: --rewind-to needs the session to rewind: add --resume ID (or --continue)"
        );
        return 2;
    }
    if args.fork_session {
        eprintln!(
            "catui: --rewind-to rewinds the session itself; it cannot be combined with --fork-session"
        );
        return 2;
    }
    let built = crate::session_config::process_dirs().and_then(|(cwd, config_dir)| {
        let mut config = crate::session_config::config_from_args(args, cwd, config_dir)?;
        config.mcp_servers.clear();
        config.strict_mcp_config = true;
        config.checkpoints = Some(true);
        SessionBuilder::new(config)
            .front_end(
                FrontEnd::unattended().with_warnings(crate::session_config::stderr_warnings()),
            )
            .build()
            .map_err(|e| e.to_string())
    });
    let session = match built {
        Ok(s) => s,
        Err(e) => {
            eprintln!("catui: {e}");
            return 2;
        }
    };
    let Some(checkpoints) = &session.checkpoints else {
        eprintln!("catui: checkpoints are not available in this session");
        return 1;
    };
    let (code, conversation) = match args.rewind_scope.as_deref() {
        Some("code") => (true, false),
        Some("conversation") => (false, true),
        _ => (true, true),
    };
    let request = RewindRequest {
        target: RewindTarget::parse(target),
        code,
        conversation: conversation
            && matches!(RewindTarget::parse(target), RewindTarget::Message(_)),
        force: args.force,
        dry_run: false,
    };
    let result = checkpoints.rewind(&request);
    let session_id = session.info.session_id.clone();
    drop(session);
    match result {
        Ok(report) => {
            if args.output_format == OutputFormat::Text {
                println!("{}", report.summary());
                if let Some(prompt) = report.prompt.filter(|_| report.conversation) {
                    println!("\nThe message was:\n{prompt}");
                }
                println!("\nContinue with: catui --resume {session_id}");
            } else {
                let value = serde_json::json!({
                    "type": "rewind",
                    "session_id": session_id,
                    "target": request.target.id(),
                    "restored": report.restored,
                    "deleted": report.deleted,
                    "kept": report.kept,
                    "changed_outside": report.outside,
                    "conversation": report.conversation,
                    "prompt": report.prompt,
                    "plan_file": report.plan_file.map(|p| p.display().to_string()),
                });
                println!("{value}");
            }
            0
        }
        Err(e) => {
            eprintln!("catui: not rewound: {e}");
            1
        }
    }
}
