//! The `/plan` command: enter plan mode, or show / open the plan.
//!
//! | input                   | not in plan mode                 | in plan mode                         |
//! |-------------------------|----------------------------------|--------------------------------------|
//! | `/plan`                 | enter                            | show the plan (or "no plan yet")     |
//! | `/plan open`            | enter only                       | open the plan in the external editor |
//! | `/plan <description>`   | enter, then query the model      | show the plan                        |

use std::path::Path;
use std::process::Command;

use catui_protocol::PermissionMode;

use super::contract::{
    ALREADY_IN_PLAN_MODE_NO_PLAN, CURRENT_PLAN_TITLE, ENABLED_PLAN_MODE,
    failed_to_open_plan_in_editor, opened_plan_in_editor,
};
use super::session::PlanSession;
use crate::engine::commands::CommandOutput;
use crate::tools::SessionHooks;

/// Runs `/plan ARGS`.
pub fn plan_command(session: &dyn SessionHooks, plan: &PlanSession, args: &str) -> CommandOutput {
    let args = args.trim();
    if session.permission_mode() != PermissionMode::Plan {
        if let Err(e) = session.set_permission_mode(PermissionMode::Plan) {
            return CommandOutput::Local {
                text: e.to_string(),
                is_error: true,
            };
        }
        if !args.is_empty() && args != "open" {
            // `/plan <description>` starts planning right away.
            return CommandOutput::Query {
                notice: Some(ENABLED_PLAN_MODE.to_string()),
                prompt: args.to_string(),
            };
        }
        return CommandOutput::Local {
            text: ENABLED_PLAN_MODE.to_string(),
            is_error: false,
        };
    }
    let path = plan.files.path(None);
    let Some(content) = plan.files.read(None) else {
        return CommandOutput::Local {
            text: ALREADY_IN_PLAN_MODE_NO_PLAN.to_string(),
            is_error: false,
        };
    };
    if args.split_whitespace().next() == Some("open") {
        return match open_in_editor(plan.editor.as_deref(), &path) {
            Ok(()) => CommandOutput::Local {
                text: opened_plan_in_editor(&path.display().to_string()),
                is_error: false,
            },
            Err(e) => CommandOutput::Local {
                text: failed_to_open_plan_in_editor(&e.to_string()),
                is_error: true,
            },
        };
    }
    let mut text = format!(
        "{CURRENT_PLAN_TITLE}\n{}\n\n{}",
        path.display(),
        content.trim_end()
    );
    if let Some(editor) = &plan.editor {
        let name = editor.split_whitespace().next().unwrap_or(editor);
        let name = Path::new(name)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(name);
        text.push_str(&format!("\n\n\"/plan open\" to edit this plan in {name}"));
    }
    CommandOutput::Local {
        text,
        is_error: false,
    }
}

/// Why the editor did not edit the plan.
#[derive(Debug, thiserror::Error)]
pub enum EditorError {
    #[error("could not start {program}: {source}")]
    Start {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{program} exited with {status}")]
    Failed {
        program: String,
        status: std::process::ExitStatus,
    },
}

/// Runs the editor (`$VISUAL`, then `$EDITOR`, then `vi`) on `path` and
/// waits for it. The editor value may carry arguments (`code --wait`).
pub fn open_in_editor(editor: Option<&str>, path: &Path) -> Result<(), EditorError> {
    let editor = editor.filter(|e| !e.trim().is_empty()).unwrap_or("vi");
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi");
    let status = Command::new(program)
        .args(words)
        .arg(path)
        .status()
        .map_err(|source| EditorError::Start {
            program: program.to_string(),
            source,
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(EditorError::Failed {
            program: program.to_string(),
            status,
        })
    }
}
