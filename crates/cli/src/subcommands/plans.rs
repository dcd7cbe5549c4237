//! `catui plans [list|show SLUG|path]`: the plan files. `list` (the
//! default) shows this project's plans first, each with the session that
//! owns it (found through the sessions' recorded slugs), then the other
//! plan files in the plans directory; `show` prints one plan (and which
//! revision was approved); `path` prints the plans directory; `export`
//! copies an approved plan into the repository with its history; `review`
//! is [`super::plan_review`].

use std::io::Write;
use std::path::Path;
use std::time::SystemTime;

use catui_core::plan::approval::progress::progress_of;
use catui_core::plan::get_plan;
use catui_core::session::{list_sessions, plan_library};

use super::format::{one_line, pad, when};
use super::{CommandError, Project, plan_name};
use crate::args::PlansAction;
use catui_core::plan::export::ExportError;
use catui_core::session::plan_history;

/// How much of a plan's first line a row shows.
const TITLE_CHARS: usize = 60;

pub fn run(
    project: &Project,
    action: Option<&PlansAction>,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let dir = project.plans_dir();
    match action {
        None => list(project, &dir, false, out),
        Some(PlansAction::List { json }) => list(project, &dir, *json, out),
        Some(PlansAction::Abandon { slug }) => abandon(project, &dir, slug, out),
        Some(PlansAction::Dispatch {
            slug,
            wait,
            in_worktree,
            permission_mode,
            json,
        }) => super::plans_dispatch::dispatch(
            project,
            slug,
            super::plans_dispatch::Launch {
                wait: *wait,
                in_worktree: in_worktree.as_deref(),
                mode: permission_mode,
                json: *json,
            },
            out,
        ),
        Some(PlansAction::Move { to_project, to }) => {
            super::plans_move::move_to_project(project, *to_project, to.as_deref(), out)
        }
        Some(PlansAction::Show { slug }) => show(project, &dir, slug, out),
        Some(PlansAction::Export { slug, to }) => {
            export(project, slug.as_deref(), to.as_deref(), out)
        }
        Some(PlansAction::Path) => {
            writeln!(out, "{}", dir.display())?;
            Ok(())
        }
        Some(PlansAction::Review { slug: None }) => super::plan_review::list(project, out),
        // Served by `plan_review::review` (it needs the async runtime).
        Some(PlansAction::Review { slug: Some(_) }) => Err(CommandError::Usage(
            "`catui plans review SLUG` is not handled here".to_string(),
        )),
    }
}

fn list(
    project: &Project,
    dir: &Path,
    json: bool,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let entries = plan_library::library(&project.sessions_dir(), dir);
    if json {
        let rows: Vec<serde_json::Value> = entries.iter().map(entry_json).collect();
        writeln!(out, "{}", serde_json::Value::Array(rows))?;
        return Ok(());
    }
    let (ours, others): (Vec<_>, Vec<_>) = entries.into_iter().partition(|e| e.session.is_some());
    if ours.is_empty() && others.is_empty() {
        writeln!(
            out,
            "No plan files yet in {}. Plans are written in plan mode (`/plan`, or `catui --permission-mode plan`).",
            dir.display()
        )?;
        return Ok(());
    }
    if ours.is_empty() {
        writeln!(out, "No plans from sessions of {}.", project.cwd.display())?;
    } else {
        writeln!(out, "Plans of this project ({}):", project.cwd.display())?;
        write_rows(&ours, true, out)?;
    }
    if !others.is_empty() {
        writeln!(out, "\nOther plans in {}:", dir.display())?;
        write_rows(&others, false, out)?;
    }
    writeln!(
        out,
        "\nShow one with `catui plans show SLUG`; continue one with `catui --plan SLUG`."
    )?;
    Ok(())
}

/// A plan as `catui plans list --json` gives it.
fn entry_json(e: &plan_library::LibraryEntry) -> serde_json::Value {
    let age = SystemTime::now()
        .duration_since(e.modified)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let modified = plan_library::rfc3339(e.modified);
    serde_json::json!({
        "slug": e.slug,
        "state": e.state.as_str(),
        "title": e.title,
        "path": e.path.display().to_string(),
        "session": e.session,
        "modified": modified,
        "age_seconds": age,
        "steps": e.steps.map(|(done, total)| serde_json::json!({"done": done, "total": total})),
        "approved_hash": e.approved.as_ref().map(|(hash, _)| hash.clone()),
        "changed_since_approval": e.changed_since_approval,
        "dispatch": e.dispatch,
    })
}

fn write_rows(
    rows: &[plan_library::LibraryEntry],
    with_owner: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let name_width = rows
        .iter()
        .map(|r| r.slug.chars().count())
        .max()
        .unwrap_or(4);
    let owner_width = rows
        .iter()
        .filter_map(|r| r.session.as_ref().map(|o| o.chars().count()))
        .max()
        .unwrap_or(7);
    for row in rows {
        let mut title = one_line(&row.title, TITLE_CHARS);
        if let Some((done, total)) = row.steps {
            title.push_str(&format!("  [{done}/{total} steps]"));
        }
        if row.changed_since_approval {
            title.push_str("  (changed since approval)");
        }
        if let Some(d) = &row.dispatch {
            title.push_str(&format!("  (background: {}, {})", d.branch, d.status));
        }
        let owner = if with_owner {
            format!(
                "{}  ",
                pad(
                    &format!("session {}", row.session.as_deref().unwrap_or("-")),
                    owner_width + 8
                )
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            "  {}  {owner}{}  {}  {title}",
            pad(&row.slug, name_width),
            pad(&when(row.modified, None), 8),
            pad(&format!("[{}]", row.state.as_str()), 13),
        )?;
    }
    Ok(())
}

/// `catui plans abandon SLUG`.
fn abandon(
    project: &Project,
    dir: &Path,
    slug: &str,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let name = plan_name(slug)?;
    if !dir.join(format!("{name}.md")).is_file() {
        return Err(CommandError::Usage(format!(
            "no plan '{name}' in {}; run `catui plans list` to see the plans",
            dir.display()
        )));
    }
    plan_library::add_mark(
        &project.sessions_dir(),
        name,
        plan_library::MarkKind::Abandoned,
    )?;
    writeln!(
        out,
        "Marked {name} abandoned. The file stays in {}; approving it again revives it.",
        dir.display()
    )?;
    Ok(())
}

fn show(
    project: &Project,
    dir: &Path,
    slug: &str,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let name = plan_name(slug)?;
    let path = dir.join(format!("{name}.md"));
    let Some(content) = get_plan(&path) else {
        return Err(CommandError::Usage(format!(
            "no plan '{name}' in {}; run `catui plans list` to see the plans",
            dir.display()
        )));
    };
    out.write_all(content.as_bytes())?;
    if !content.ends_with('\n') {
        writeln!(out)?;
    }
    let revisions = plan_history::revisions(&project.sessions_dir(), name);
    if let Some(note) = plan_history::parked_note(&revisions) {
        writeln!(out, "\n{note}")?;
    } else if let Some(note) = plan_history::approval_note(&revisions, &content) {
        writeln!(out, "\n{note}")?;
    }
    if let Some((done, total)) = progress_of(&content) {
        writeln!(out, "Progress: {done}/{total} steps")?;
    }
    if let Some((at, report)) = plan_history::last_compliance(&project.sessions_dir(), name) {
        writeln!(out, "{}", plan_history::compliance_text(&at, &report))?;
    }
    let (verification, report) = plan_history::last_contract(&project.sessions_dir(), name);
    if let Some(run) = verification {
        writeln!(out, "{}", plan_history::verification_text(&run))?;
    }
    if let Some(report) = report {
        writeln!(out, "End report: {}", report.summary())?;
    }
    Ok(())
}

/// `catui plans export [SLUG] [--to DIR]`.
fn export(
    project: &Project,
    slug: Option<&str>,
    to: Option<&Path>,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let name = match slug {
        Some(slug) => {
            let name = plan_name(slug)?.to_string();
            // A name that is no plan at all is not "never approved".
            let file = project.plans_dir().join(format!("{name}.md"));
            if !file.exists() && plan_history::revisions(&project.sessions_dir(), &name).is_empty()
            {
                return Err(CommandError::Usage(format!(
                    "there is no plan '{name}' in {} or in this project's sessions; run `catui plans list` to see the plans",
                    project.plans_dir().display()
                )));
            }
            name
        }
        None => list_sessions(&project.sessions_dir())
            .into_iter()
            .find_map(|s| s.plan_slug)
            .ok_or_else(|| {
                CommandError::Usage(
                    "no session of this project has a plan yet; name one: `catui plans export SLUG`"
                        .to_string(),
                )
            })?,
    };
    let target = plan_history::export(&project.sessions_dir(), &project.cwd, &name, to).map_err(
        |e| match e {
            ExportError::NeverApproved(_) => CommandError::Usage(e.to_string()),
            ExportError::Write { ref source, .. } => {
                CommandError::Io(std::io::Error::new(source.kind(), e.to_string()))
            }
        },
    )?;
    writeln!(
        out,
        "Exported the approved plan {name} to {}",
        target.display()
    )?;
    Ok(())
}
