//! The `/plan` command: enter plan mode, or show / open the plan.
//!
//! | input                   | not in plan mode                 | in plan mode                         |
//! |-------------------------|----------------------------------|--------------------------------------|
//! | `/plan`                 | enter                            | show the plan (or "no plan yet")     |
//! | `/plan open`            | enter only                       | open the plan in the external editor |
//! | `/plan export [--to D]` | export the approved plan         | export the approved plan             |
//! | `/plan review`          | said where the review page is    | said where the review page is        |
//! | `/plan use SLUG`        | take up that plan (see `pick_up`)| take up that plan                    |
//! | `/plan <description>`   | enter, then query the model      | query the model (planning goes on)   |

use std::path::Path;
use std::process::{Command, Stdio};

use catui_protocol::PermissionMode;

use super::contract::{
    ALREADY_IN_PLAN_MODE_NO_PLAN, ALREADY_PLANNING_SENT, CURRENT_PLAN_TITLE, ENABLED_PLAN_MODE,
    failed_to_open_plan_in_editor, opened_plan_in_editor,
};
use super::state::plan_session::PlanSession;
use crate::engine::slash_commands::CommandOutput;
use crate::tools::SessionHooks;

/// Runs `/plan ARGS`.
pub fn plan_command(session: &dyn SessionHooks, plan: &PlanSession, args: &str) -> CommandOutput {
    let args = args.trim();
    if let Some(to) = export_args(args) {
        // After approval, in any mode: the approved revision goes into the
        // project (`docs/plans/` or `--to DIR`).
        return match plan.export(to.map(Path::new)) {
            Ok(path) => CommandOutput::Local {
                text: format!(
                    "Exported the approved plan {} to {}",
                    plan.files.slug(),
                    path.display()
                ),
                is_error: false,
            },
            Err(e) => CommandOutput::Local {
                text: e.to_string(),
                is_error: true,
            },
        };
    }
    if let Some(slug) = args.strip_prefix("use ").map(str::trim)
        && !slug.is_empty()
        && !slug.contains(char::is_whitespace)
    {
        let picked = super::pick_up::use_plan(session, plan, slug);
        return match picked.prompt {
            Some(prompt) => CommandOutput::Query {
                notice: Some(picked.text),
                prompt,
            },
            None => CommandOutput::Local {
                text: picked.text,
                is_error: picked.is_error,
            },
        };
    }
    if args == "review" {
        // The review page is served by the front end (the terminal UI) or
        // by `catui plans review`; a front end without one gets here.
        return CommandOutput::Local {
            text: format!(
                "The plan review page opens from the terminal interface (/plan review, or b in the approval dialog), or with `catui plans review {}` once this session has ended.",
                plan.files.slug()
            ),
            is_error: true,
        };
    }
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
    let first = args.split_whitespace().next();
    if !args.is_empty() && first != Some("open") {
        // Already planning: the description is the next request, not
        // something to drop.
        return CommandOutput::Query {
            notice: Some(ALREADY_PLANNING_SENT.to_string()),
            prompt: args.to_string(),
        };
    }
    let path = plan.files.path(None);
    let Some(content) = plan.files.read(None) else {
        return CommandOutput::Local {
            text: ALREADY_IN_PLAN_MODE_NO_PLAN.to_string(),
            is_error: false,
        };
    };
    if first == Some("open") {
        let opened = open_in_editor(plan.editor.as_deref(), &path);
        // Whatever the editor did to the file is kept (with snapshots on).
        plan.snapshot(session);
        return match opened {
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
    let hint = plan.editor.as_ref().map(|editor| {
        let name = editor.split_whitespace().next().unwrap_or(editor);
        let name = Path::new(name)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(name);
        format!("\"/plan open\" to edit this plan in {name}")
    });
    if let Some(hint) = &hint {
        text.push_str(&format!("\n\n{hint}"));
    }
    CommandOutput::Shown {
        text,
        view: crate::engine::CommandView::Document {
            title: CURRENT_PLAN_TITLE.to_string(),
            path: path.display().to_string(),
            content: content.trim_end().to_string(),
            hint,
        },
    }
}

/// `export` or `export --to DIR` (anything else after `/plan` is a task to
/// plan): `Some(None)` for the default directory, `Some(Some(DIR))`.
fn export_args(args: &str) -> Option<Option<&str>> {
    let rest = args.strip_prefix("export")?;
    if rest.is_empty() {
        return Some(None);
    }
    let dir = rest.strip_prefix(" --to ")?.trim();
    (!dir.is_empty() && !dir.contains(char::is_whitespace)).then_some(Some(dir))
}

/// Why the editor did not edit the plan. Both name the plan file, so the
/// user can edit it another way.
#[derive(Debug, thiserror::Error)]
pub enum EditorError {
    #[error("could not start {program}: {source}. Edit the plan yourself at {}", path.display())]
    Start {
        program: String,
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{program} needs a terminal and this session has none ({how}). Set $VISUAL or $EDITOR to an editor that runs without one, or edit the plan yourself at {}",
        path.display()
    )]
    NoTerminal {
        program: String,
        how: &'static str,
        path: std::path::PathBuf,
    },
    #[error("{program} exited with {status}. The plan is at {}", path.display())]
    Failed {
        program: String,
        path: std::path::PathBuf,
        status: std::process::ExitStatus,
    },
}

/// Editors that draw on a terminal and wait for keys: without one they
/// would never return.
const TERMINAL_EDITORS: &[&str] = &[
    "vi",
    "vim",
    "nvim",
    "view",
    "vim.basic",
    "vim.tiny",
    "nvi",
    "elvis",
    "nano",
    "pico",
    "emacs",
    "emacs-nox",
    "mg",
    "jed",
    "joe",
    "jmacs",
    "micro",
    "hx",
    "helix",
    "kak",
    "ne",
    "mcedit",
    "ed",
];

/// Runs the editor (`$VISUAL`, then `$EDITOR`, then `vi`) on `path` and
/// waits for it. The editor value may carry arguments (`code --wait`).
///
/// The editor never touches this process's stdio, which may be a protocol
/// (stream-json): it gets the controlling terminal when there is one, and
/// otherwise no input, with its output sent to stderr. A terminal editor
/// with no terminal to draw on would wait forever: it is refused at once.
/// The editor ends with catui (it is not left behind by a killed session).
pub fn open_in_editor(editor: Option<&str>, path: &Path) -> Result<(), EditorError> {
    let chosen = editor.filter(|e| !e.trim().is_empty());
    let editor = chosen.unwrap_or("vi");
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi");
    let mut command = Command::new(program);
    command.args(words).arg(path);
    match controlling_terminal() {
        Some((input, output, errors)) => {
            command.stdin(input).stdout(output).stderr(errors);
        }
        None => {
            let name = Path::new(program)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(program);
            if TERMINAL_EDITORS.contains(&name) {
                return Err(EditorError::NoTerminal {
                    program: program.to_string(),
                    how: if chosen.is_some() {
                        "it is the editor $VISUAL or $EDITOR names"
                    } else {
                        "neither $VISUAL nor $EDITOR is set, so it is the default"
                    },
                    path: path.to_path_buf(),
                });
            }
            command
                .stdin(Stdio::null())
                .stdout(Stdio::from(std::io::stderr()))
                .stderr(Stdio::inherit());
        }
    }
    end_with_this_process(&mut command);
    let status = command.status().map_err(|source| EditorError::Start {
        program: program.to_string(),
        path: path.to_path_buf(),
        source,
    })?;
    if status.success() {
        Ok(())
    } else {
        Err(EditorError::Failed {
            program: program.to_string(),
            path: path.to_path_buf(),
            status,
        })
    }
}

/// The editor is killed when catui ends, however it ends (Linux).
#[allow(unsafe_code)]
fn end_with_this_process(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs in the forked child before exec and makes
        // one async-signal-safe system call (prctl) with constant arguments;
        // it allocates nothing and takes no locks.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// The controlling terminal as three handles, if this process has one.
fn controlling_terminal() -> Option<(Stdio, Stdio, Stdio)> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let output = tty.try_clone().ok()?;
    let errors = tty.try_clone().ok()?;
    Some((tty.into(), output.into(), errors.into()))
}

#[cfg(test)]
mod tests {
    use super::export_args;

    #[test]
    fn export_is_recognised_only_in_its_own_forms() {
        assert_eq!(export_args("export"), Some(None));
        assert_eq!(
            export_args("export --to docs/design"),
            Some(Some("docs/design"))
        );
        // Anything else is a task to plan.
        assert_eq!(export_args("export the data as CSV"), None);
        assert_eq!(export_args("exporter"), None);
        assert_eq!(export_args("export --to"), None);
        assert_eq!(export_args("export --to two words"), None);
    }
}
