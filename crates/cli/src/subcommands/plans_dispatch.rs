//! `catui plans dispatch SLUG [--wait]`: an approved plan, unchanged since
//! its approval, goes to a background agent in a new git worktree on the
//! branch `catui/SLUG`, under `$CATUI_CONFIG_DIR/worktrees/` (never inside
//! the project's tree). The agent is catui itself, run headless in the
//! worktree with `--plan SLUG` (so the plan is taken up without a new
//! approval: todos from the undone steps, the plan's goal and its
//! verification, progress written back into the plan file), in
//! `acceptEdits` (or `--permission-mode`: the mode chosen at approval when
//! the approval's fifth choice dispatches it), its sandbox as usual. When it ends its work is committed
//! on the branch and a summary says what was done and how to review and
//! merge it.
//!
//! Without `--wait` the worktree is made here (so a refusal reaches you),
//! then a detached `catui plans dispatch SLUG --wait --in-worktree DIR`
//! does the rest and this returns at once; the library marks the plan's
//! dispatch (`catui plans list`), and the summary goes to `DIR.log`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use catui_core::session::plan_library::{self, Dispatch, MarkKind};
use serde_json::Value;

use super::plan_name;
use super::{CommandError, Project};

/// The request the background agent starts with.
const TASK: &str = "Carry out the approved plan you are continuing, step by step, marking each step completed in your todo list as you finish it.";

/// How `plans dispatch` runs: in the foreground (`--wait`), in a worktree
/// already made (the background half), and the agent's permission mode.
pub struct Launch<'a> {
    pub wait: bool,
    pub in_worktree: Option<&'a Path>,
    pub mode: &'a str,
}

pub fn dispatch(
    project: &Project,
    slug: &str,
    how: Launch<'_>,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let Launch {
        wait,
        in_worktree,
        mode,
    } = how;
    // A plan is carried out, not planned again: plan mode is no mode for
    // the agent.
    match mode.parse::<catui_protocol::PermissionMode>() {
        Ok(catui_protocol::PermissionMode::Plan) | Err(_) => {
            return Err(CommandError::Usage(format!(
                "--permission-mode {mode}: the background agent needs default, acceptEdits, auto, dontAsk or bypassPermissions"
            )));
        }
        Ok(_) => {}
    }
    let name = plan_name(slug)?.to_string();
    let entry = plan_library::entry(&project.sessions_dir(), &project.plans_dir(), &name)
        .ok_or_else(|| {
            CommandError::Usage(format!(
                "no plan '{name}' in {}; run `catui plans list` to see the plans",
                project.plans_dir().display()
            ))
        })?;
    let approved = entry.approved.is_some()
        && !entry.changed_since_approval
        && matches!(
            entry.state,
            plan_library::PlanState::Approved | plan_library::PlanState::InProgress
        );
    if !approved {
        return Err(CommandError::Usage(format!(
            "plan {name} is {}{}: only an approved plan, unchanged since its approval, can be handed to a background agent (take it up with `catui --plan {name}` to approve it again)",
            entry.state.as_str(),
            if entry.changed_since_approval {
                ", changed since its approval"
            } else {
                ""
            }
        )));
    }
    let top = git_toplevel(&project.cwd)?;
    let base =
        git(&top, &["rev-parse", "--abbrev-ref", "HEAD"]).unwrap_or_else(|_| "HEAD".to_string());
    let branch = format!("catui/{name}");
    let worktree = match in_worktree {
        Some(dir) => dir.to_path_buf(),
        None => make_worktree(project, &top, &name, &branch)?,
    };
    if !wait {
        return launch(project, &name, &worktree, &branch, mode, out);
    }
    run(project, &name, (&top, &base), &worktree, &branch, mode, out)
}

/// The repository's top folder, or why there is none.
fn git_toplevel(cwd: &Path) -> Result<PathBuf, CommandError> {
    git(cwd, &["rev-parse", "--show-toplevel"])
        .map(PathBuf::from)
        .map_err(|e| {
            CommandError::Usage(format!(
                "a plan is dispatched to a git worktree, and {} is not inside a git repository ({e})",
                cwd.display()
            ))
        })
}

/// `git ARGS` in `dir`: its trimmed stdout, or its stderr as the error.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not run git: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_string())
    }
}

/// `$CATUI_CONFIG_DIR/worktrees/{project}-{slug}` on a new branch.
fn make_worktree(
    project: &Project,
    top: &Path,
    name: &str,
    branch: &str,
) -> Result<PathBuf, CommandError> {
    let folder = top
        .file_name()
        .map(|n| catui_core::session::sanitize_cwd(Path::new(n)))
        .unwrap_or_else(|| "project".to_string());
    let dir = project
        .config_dir
        .join("worktrees")
        .join(format!("{folder}-{name}"));
    let refuse = |why: String| {
        CommandError::Usage(format!(
            "could not create the worktree {} on branch {branch}: {why}",
            dir.display()
        ))
    };
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(|e| refuse(e.to_string()))?;
    }
    let path = dir.display().to_string();
    git(top, &["worktree", "add", "-b", branch, &path, "HEAD"]).map_err(refuse)?;
    Ok(dir)
}

/// Starts the background half and returns.
fn launch(
    project: &Project,
    name: &str,
    worktree: &Path,
    branch: &str,
    mode: &str,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let log = worktree.with_extension("log");
    let file = std::fs::File::create(&log)?;
    let exe = std::env::current_exe()?;
    Command::new(exe)
        .args(["plans", "dispatch", name, "--wait", "--in-worktree"])
        .arg(worktree)
        .args(["--permission-mode", mode])
        .current_dir(&project.cwd)
        .stdin(Stdio::null())
        .stdout(file.try_clone()?)
        .stderr(file)
        .spawn()?;
    mark(project, name, branch, worktree, "running");
    writeln!(
        out,
        "Plan {name} handed to a background agent: worktree {}, branch {branch}.\nFollow it with `catui plans list`; its summary goes to {}.",
        worktree.display(),
        log.display()
    )?;
    Ok(())
}

fn mark(project: &Project, name: &str, branch: &str, worktree: &Path, status: &str) {
    let dispatch = Dispatch {
        branch: branch.to_string(),
        worktree: worktree.display().to_string(),
        status: status.to_string(),
    };
    if let Err(e) = plan_library::add_mark(
        &project.sessions_dir(),
        name,
        MarkKind::Dispatched(dispatch),
    ) {
        tracing::warn!("could not record the dispatch of {name}: {e}");
    }
}

/// Runs the agent in the worktree, commits its work and prints the summary.
fn run(
    project: &Project,
    name: &str,
    (top, base): (&Path, &str),
    worktree: &Path,
    branch: &str,
    mode: &str,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    mark(project, name, branch, worktree, "running");
    let exe = std::env::current_exe()?;
    let mut child = Command::new(exe)
        .args(["-p", TASK, "--plan", name, "--permission-mode", mode])
        .args(["--output-format", "stream-json", "--verbose"])
        .current_dir(worktree)
        .env(catui_core::plan::pick_up::PLAN_ORIGIN_VAR, &project.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut result: Option<Value> = None;
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if v["type"] == "system" && v["subtype"] == "todos" {
                writeln!(out, "  {}", todos_line(&v))?;
            }
            if v["type"] == "result" {
                result = Some(v);
            }
        }
    }
    let status = child.wait()?;
    let committed = commit(worktree, name);
    let ok = status.success() && result.as_ref().is_some_and(|r| r["is_error"] != true);
    mark(
        project,
        name,
        branch,
        worktree,
        if ok { "done" } else { "failed" },
    );
    let report = result.as_ref().map(|r| &r["plan_report"]);
    writeln!(out, "{}", summary(name, report, ok))?;
    if let Err(e) = committed {
        writeln!(out, "The work was not committed: {e}")?;
    }
    let stat = git(top, &["diff", "--stat", &format!("{base}...{branch}")]).unwrap_or_default();
    writeln!(out, "Branch {branch} (worktree {}):", worktree.display())?;
    writeln!(
        out,
        "{}",
        if stat.is_empty() {
            "  no changes".to_string()
        } else {
            stat
        }
    )?;
    writeln!(
        out,
        "Review: git diff {base}...{branch}\nMerge:  git merge {branch}\nThen:   git worktree remove {}",
        worktree.display()
    )?;
    if ok {
        Ok(())
    } else {
        Err(CommandError::Usage(format!(
            "the background agent for plan {name} did not finish its work (see above)"
        )))
    }
}

/// A `todos` line of the agent in words: how far it is.
fn todos_line(v: &Value) -> String {
    let todos = v["todos"].as_array().map(Vec::as_slice).unwrap_or_default();
    let done = todos.iter().filter(|t| t["status"] == "completed").count();
    format!("progress: {done}/{} todos done", todos.len())
}

/// The end in words, from the agent's end report.
fn summary(name: &str, report: Option<&Value>, ok: bool) -> String {
    let Some(r) = report.filter(|r| r.is_object()) else {
        return format!(
            "Plan {name}, carried out in the background: {} (no end report).",
            if ok { "finished" } else { "failed" }
        );
    };
    let done = r["steps_done"].as_array().map_or(0, Vec::len);
    let total = r["steps_total"].as_u64().unwrap_or(0);
    let verification = match r["verification"]["passed"].as_bool() {
        Some(true) => "verification passed",
        Some(false) => "verification failed",
        None => "verification not run",
    };
    format!(
        "Plan {name}, carried out in the background: {} — {done}/{total} steps done, {verification}.",
        if r["goal_met"] == true {
            "goal met"
        } else {
            "goal not met"
        }
    )
}

/// Commits whatever the agent changed in the worktree on its branch.
fn commit(worktree: &Path, name: &str) -> Result<(), String> {
    git(worktree, &["add", "-A"])?;
    if git(worktree, &["diff", "--cached", "--quiet"]).is_ok() {
        return Ok(());
    }
    let message = format!("catui: carry out plan {name}");
    // Your identity when git has one, else a stand-in (the commit is
    // yours to amend before merging).
    let mut args: Vec<&str> = Vec::new();
    if git(worktree, &["config", "user.email"]).is_err() {
        args.extend(["-c", "user.name=catui", "-c", "user.email=catui@localhost"]);
    }
    args.extend(["commit", "-q", "-m", &message]);
    git(worktree, &args).map(|_| ())
}
