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
use catui_protocol::task::{DispatchEvent, DispatchStarted, TaskStatus, TaskUsage};
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
    /// Say what was started as one JSON object (`DispatchStarted`).
    pub json: bool,
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
        json,
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
        return launch(project, &name, (&worktree, &branch), mode, json, out);
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

/// Starts the background half and returns: in words, or (`json`) as one
/// [`DispatchStarted`] object for the session that dispatched the plan.
fn launch(
    project: &Project,
    name: &str,
    (worktree, branch): (&Path, &str),
    mode: &str,
    json: bool,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let log = worktree.with_extension("log");
    let events = events_path(worktree);
    // A file left by an earlier dispatch of the same plan would be read
    // as this one's.
    std::fs::File::create(&events)?;
    let file = std::fs::File::create(&log)?;
    let exe = std::env::current_exe()?;
    // Its own process group: a terminal's Ctrl+C does not reach it, and
    // stopping the task ends the agent with it.
    std::os::unix::process::CommandExt::process_group(
        Command::new(exe)
            .args(["plans", "dispatch", name, "--wait", "--in-worktree"])
            .arg(worktree)
            .args(["--permission-mode", mode])
            .current_dir(&project.cwd)
            .stdin(Stdio::null())
            .stdout(file.try_clone()?)
            .stderr(file),
        0,
    )
    .spawn()?;
    mark(project, name, branch, worktree, "running");
    let message = format!(
        "Plan {name} handed to a background agent: worktree {}, branch {branch}.\nFollow it with `catui plans list`; its summary goes to {}.",
        worktree.display(),
        log.display()
    );
    if json {
        let started = DispatchStarted {
            slug: name.to_string(),
            branch: branch.to_string(),
            worktree: worktree.display().to_string(),
            log: log.display().to_string(),
            events: events.display().to_string(),
            message,
        };
        writeln!(
            out,
            "{}",
            serde_json::to_string(&started).map_err(std::io::Error::other)?
        )?;
    } else {
        writeln!(out, "{message}")?;
    }
    Ok(())
}

/// Where the background half writes its [`DispatchEvent`] lines.
fn events_path(worktree: &Path) -> PathBuf {
    worktree.with_extension("events.jsonl")
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

/// Runs the agent in the worktree, commits its work and prints the summary
/// (also written, as [`DispatchEvent`] lines, for the session that
/// dispatched the plan).
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
    let mut events = Events::open(worktree);
    events.write(&DispatchEvent::Started {
        pid: std::process::id(),
    });
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
            events.follow(&v);
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
    let outcome = summary(name, report, ok);
    let mut text = format!("{outcome}\n");
    if let Err(e) = committed {
        text.push_str(&format!("The work was not committed: {e}\n"));
    }
    let stat = git(top, &["diff", "--stat", &format!("{base}...{branch}")]).unwrap_or_default();
    text.push_str(&format!(
        "Branch {branch} (worktree {}):\n{}\n",
        worktree.display(),
        if stat.is_empty() {
            "  no changes".to_string()
        } else {
            stat
        }
    ));
    let review = format!("git diff {base}...{branch}");
    text.push_str(&format!(
        "Review: {review}\nMerge:  git merge {branch}\nThen:   git worktree remove {}\n",
        worktree.display()
    ));
    write!(out, "{text}")?;
    events.write(&DispatchEvent::Ended {
        status: if ok {
            TaskStatus::Completed
        } else {
            TaskStatus::Failed
        },
        headline: format!("{outcome} Review: {review}"),
        summary: text,
        usage: events.usage,
    });
    if ok {
        Ok(())
    } else {
        Err(CommandError::Usage(format!(
            "the background agent for plan {name} did not finish its work (see above)"
        )))
    }
}

/// The events file of a dispatch and what the agent has used so far.
struct Events {
    file: Option<std::fs::File>,
    usage: TaskUsage,
    started: std::time::Instant,
    todos: (usize, usize),
}

impl Events {
    /// Appends to the file `launch` made (a dispatch run with `--wait` from
    /// the shell makes its own).
    fn open(worktree: &Path) -> Self {
        let path = events_path(worktree);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| tracing::warn!("could not open {}: {e}", path.display()))
            .ok();
        Self {
            file,
            usage: TaskUsage::default(),
            started: std::time::Instant::now(),
            todos: (0, 0),
        }
    }

    fn write(&mut self, event: &DispatchEvent) {
        let Some(file) = &mut self.file else { return };
        if let Ok(line) = serde_json::to_string(event) {
            // One write per line, so a reader never sees half of one.
            let _ = file.write_all(format!("{line}\n").as_bytes());
        }
    }

    fn progress(&mut self, tool: Option<String>) {
        let event = DispatchEvent::Progress {
            usage: self.usage,
            last_tool_name: tool,
            todos_done: self.todos.0,
            todos_total: self.todos.1,
        };
        self.write(&event);
    }

    /// One stream-json line of the agent: its tool calls and todo lists
    /// are progress.
    fn follow(&mut self, v: &Value) {
        self.usage.duration_ms = self.started.elapsed().as_millis() as u64;
        let mut tools = Vec::new();
        if v["type"] == "assistant" {
            let usage = &v["message"]["usage"];
            self.usage.total_tokens += usage["input_tokens"].as_u64().unwrap_or(0)
                + usage["output_tokens"].as_u64().unwrap_or(0);
            for block in v["message"]["content"].as_array().into_iter().flatten() {
                if block["type"] == "tool_use" {
                    tools.push(block);
                }
            }
        }
        let todos_changed = v["type"] == "system" && v["subtype"] == "todos";
        if todos_changed {
            self.todos = done_of(&v["todos"]);
        }
        for block in tools {
            let name = block["name"].as_str().unwrap_or_default();
            // The agent's own todo list is its progress through the steps.
            if name == catui_protocol::tool_names::TODO_WRITE {
                self.todos = done_of(&block["input"]["todos"]);
            }
            self.usage.tool_uses += 1;
            self.progress(Some(name.to_string()));
        }
        if todos_changed {
            self.progress(None);
        }
    }
}

/// How many of a todo list are done, of how many.
fn done_of(todos: &Value) -> (usize, usize) {
    let todos = todos.as_array().map(Vec::as_slice).unwrap_or_default();
    let done = todos.iter().filter(|t| t["status"] == "completed").count();
    (done, todos.len())
}

/// A `todos` line of the agent in words: how far it is.
fn todos_line(v: &Value) -> String {
    let (done, total) = done_of(&v["todos"]);
    format!("progress: {done}/{total} todos done")
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
