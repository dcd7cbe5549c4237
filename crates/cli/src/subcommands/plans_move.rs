//! `catui plans move --to-project [--to DIR]`: this project's plans (the
//! ones its sessions wrote, with their sub-agents' plans) move from your
//! plans directory (`$CATUI_CONFIG_DIR/plans`) into the project. Their
//! history stays where it is — in the transcripts, which name a plan by
//! its file name — so `catui plans show` and the library still know it.

use std::io::Write;
use std::path::{Path, PathBuf};

use catui_core::session::plan_library;

use super::{CommandError, Project};

pub fn move_to_project(
    project: &Project,
    to_project: bool,
    to: Option<&Path>,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    if !to_project {
        return Err(CommandError::Usage(
            "say where the plans go: `catui plans move --to-project [--to DIR]`".to_string(),
        ));
    }
    let from = project.config_dir.join("plans");
    let target = target_dir(project, to)?;
    if same_dir(&from, &target) {
        writeln!(out, "The plans are already in {}.", target.display())?;
        return Ok(());
    }
    let ours: Vec<_> = plan_library::library(&project.sessions_dir(), &from)
        .into_iter()
        .filter(|e| e.session.is_some())
        .collect();
    if ours.is_empty() {
        writeln!(
            out,
            "No plan of {} in {}: nothing to move.",
            project.cwd.display(),
            from.display()
        )?;
        return Ok(());
    }
    std::fs::create_dir_all(&target).map_err(|e| {
        CommandError::Io(std::io::Error::new(
            e.kind(),
            format!("could not create {}: {e}", target.display()),
        ))
    })?;
    let mut moved = 0;
    for entry in &ours {
        let dest = target.join(format!("{}.md", entry.slug));
        if dest.exists() {
            writeln!(
                out,
                "  {} left where it is: {} already exists",
                entry.slug,
                dest.display()
            )?;
            continue;
        }
        match move_file(&entry.path, &dest) {
            Ok(()) => {
                moved += 1;
                writeln!(out, "  {} -> {}", entry.slug, dest.display())?;
            }
            Err(e) => writeln!(out, "  {} not moved: {e}", entry.slug)?,
        }
    }
    writeln!(out, "Moved {moved} plan(s) into {}.", target.display())?;
    let relative = target
        .strip_prefix(&project.cwd)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| target.display().to_string());
    if project.settings.plans_directory.is_none() {
        writeln!(
            out,
            "New plans still go to {}: set \"plansDirectory\": \"{relative}\" in .catui/settings.json to write them here too.",
            from.display()
        )?;
    }
    writeln!(
        out,
        "To keep plans out of git, add `{relative}/` to .gitignore; to share them, commit them."
    )?;
    Ok(())
}

/// `--to` (inside the project), else `plansDirectory`, else `.catui/plans`.
fn target_dir(project: &Project, to: Option<&Path>) -> Result<PathBuf, CommandError> {
    let setting = match to {
        Some(dir) => dir.display().to_string(),
        None => match &project.settings.plans_directory {
            Some(dir) => dir.clone(),
            None => ".catui/plans".to_string(),
        },
    };
    catui_core::plan::files::resolve_plans_directory(&project.cwd, &setting)
        .map_err(|e| CommandError::Usage(e.to_string()))
}

fn same_dir(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// A rename, or a copy and a removal across file systems.
fn move_file(from: &Path, to: &Path) -> std::io::Result<()> {
    if std::fs::rename(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to)?;
    std::fs::remove_file(from)
}
