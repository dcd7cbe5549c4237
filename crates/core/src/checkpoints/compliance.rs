//! Did the implementation follow the plan? The files changed since the
//! approval's checkpoint are compared with the files the approved plan
//! names, and the plan's numbered steps with the progress catui keeps in
//! the plan file (docs/PLAN_MODE.md, "Did the implementation follow the
//! plan?"). Pure functions; the checkpoint store feeds them.

use std::collections::BTreeSet;
use std::path::Path;

use catui_protocol::checkpoint::PlanCompliance;

use crate::plan::approval::progress::{PROGRESS_HEADING, active_steps};

/// What the report is made from.
pub struct ComplianceInput<'a> {
    pub slug: &'a str,
    /// The approved plan's text.
    pub plan: &'a str,
    /// The plan file now (its progress section says which steps are done).
    pub plan_file_now: Option<&'a str>,
    /// Files changed since the approval, relative to the project.
    pub changed: &'a [String],
    /// The project's root (absolute paths in the plan are read relative to
    /// it; a bare path names a file when it exists there).
    pub project: &'a Path,
}

/// The compliance report.
pub fn report(input: &ComplianceInput<'_>) -> PlanCompliance {
    let named = named_files(input.plan, input.project);
    let unplanned_files: Vec<String> = input
        .changed
        .iter()
        .filter(|path| !names(input.plan, &named, path))
        .cloned()
        .collect();
    let untouched_files: Vec<String> = named
        .iter()
        .filter(|f| {
            !input
                .changed
                .iter()
                .any(|c| c == *f || c.ends_with(&format!("/{f}")))
        })
        .cloned()
        .collect();
    // Steps the user skipped at approval are not the work.
    let steps = active_steps(input.plan);
    let done = input.plan_file_now.map(done_steps).unwrap_or_default();
    let undone_steps: Vec<String> = steps
        .iter()
        .enumerate()
        .filter(|(i, _)| !done.contains(&(i + 1)))
        .map(|(_, s)| s.clone())
        .collect();
    PlanCompliance {
        slug: input.slug.to_string(),
        unplanned_files,
        untouched_files,
        steps_done: steps.len() - undone_steps.len(),
        steps_total: steps.len(),
        undone_steps,
    }
}

/// Whether the model is told before it ends a turn: files changed that
/// the plan never names, or steps left undone by a model that keeps the
/// plan's todo list (it marked some done). A model that never marks steps
/// is not told about them at every turn; the report still shows them.
pub fn worth_a_note(report: &PlanCompliance) -> bool {
    !report.unplanned_files.is_empty()
        || (report.steps_done > 0 && report.steps_done < report.steps_total)
}

/// The note the model reads before it ends a turn that drifted from the
/// plan.
pub fn drift_note(report: &PlanCompliance) -> String {
    let mut out = format!(
        "Before you finish: the work since the user approved plan {} differs from it.",
        report.slug
    );
    if !report.unplanned_files.is_empty() {
        out.push_str(&format!(
            "\n- Files changed that the plan does not mention: {}.",
            report.unplanned_files.join(", ")
        ));
    }
    if !report.undone_steps.is_empty() {
        out.push_str(&format!(
            "\n- Steps not marked done ({} of {}): {}.",
            report.undone_steps.len(),
            report.steps_total,
            report
                .undone_steps
                .iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out.push_str(
        "\nFinish the remaining steps (marking each done in your todo list), or tell the user \
         plainly why a file outside the plan changed or a step was left out. This note comes once; \
         do not repeat work only because of it.",
    );
    out
}

/// The step numbers checked in the plan file's progress section.
fn done_steps(plan_file: &str) -> BTreeSet<usize> {
    let Some(start) = plan_file.find(PROGRESS_HEADING) else {
        return BTreeSet::new();
    };
    plan_file[start..]
        .lines()
        .filter_map(|l| l.strip_prefix("- [x] "))
        .filter_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

/// Whether `plan` names `path` (relative to `project`): the file is in the
/// plan (see [`named_files`]).
pub fn plan_names(plan: &str, project: &Path, path: &str) -> bool {
    names(plan, &named_files(plan, project), path)
}

/// Whether the plan names the changed file `path`: its path, or its file
/// name standing alone as a word of the plan.
fn names(plan: &str, named: &[String], path: &str) -> bool {
    if named
        .iter()
        .any(|n| n == path || path.ends_with(&format!("/{n}")))
    {
        return true;
    }
    let base = path.rsplit('/').next().unwrap_or(path);
    tokens(plan).any(|t| t == path || t == base || t.ends_with(&format!("/{path}")))
}

/// The files the plan names: path-like words that are files of the project
/// (relative to its root, or absolute inside it), or that have a folder
/// and an extension (files the plan means to create).
pub fn named_files(plan: &str, project: &Path) -> Vec<String> {
    let root = project.to_string_lossy();
    let mut out: Vec<String> = Vec::new();
    for token in tokens(plan) {
        let rel = match token.strip_prefix(root.as_ref()) {
            Some(rest) => rest.trim_start_matches('/'),
            None if token.starts_with('/') => continue,
            None => token.trim_start_matches("./"),
        };
        if rel.is_empty() || rel.ends_with('/') || rel.split('/').any(|c| c == "..") {
            continue;
        }
        let exists = project.join(rel).is_file();
        let looks_like_new_file = rel.contains('/') && has_extension(rel);
        if (exists || looks_like_new_file) && !out.iter().any(|o| o == rel) {
            out.push(rel.to_string());
        }
    }
    out
}

fn has_extension(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    match base.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && (1..=8).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        }
        None => false,
    }
}

/// The path-like words of a text (letters, digits and `._-/~`), with
/// trailing punctuation dropped.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || "._-/~+@".contains(c)))
        .map(|t| t.trim_end_matches(['.', ',', ':', ';']))
        .filter(|t| t.len() > 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = "# Add --json\n\n1. Parse --json in `cli.py`\n2. Serialise items with json.dumps in src/report.py\n3. Add tests in tests/test_report.py\n\n## Verification\n- python -m pytest\n";

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("cli.py"), "").unwrap();
        std::fs::write(dir.path().join("src/report.py"), "").unwrap();
        std::fs::write(dir.path().join("setup.py"), "").unwrap();
        dir
    }

    #[test]
    fn files_the_plan_names_exist_or_look_like_new_files() {
        let dir = project();
        let named = named_files(PLAN, dir.path());
        assert_eq!(named, ["cli.py", "src/report.py", "tests/test_report.py"]);
        let absolute = format!("Edit {}/src/report.py.", dir.path().display());
        assert_eq!(named_files(&absolute, dir.path()), ["src/report.py"]);
    }

    #[test]
    fn unplanned_untouched_and_steps() {
        let dir = project();
        let changed = vec!["cli.py".to_string(), "setup.py".to_string()];
        let plan_file = format!(
            "{PLAN}\n{PROGRESS_HEADING}\n\n1/3 steps done.\n\n- [x] 1. Parse --json in `cli.py` — done now\n- [ ] 2. Serialise\n- [ ] 3. Add tests\n"
        );
        let r = report(&ComplianceInput {
            slug: "a-b-c",
            plan: PLAN,
            plan_file_now: Some(&plan_file),
            changed: &changed,
            project: dir.path(),
        });
        assert_eq!(r.unplanned_files, ["setup.py"]);
        assert_eq!(r.untouched_files, ["src/report.py", "tests/test_report.py"]);
        assert_eq!((r.steps_done, r.steps_total), (1, 3));
        assert_eq!(r.undone_steps.len(), 2);
        assert!(r.drifted() && worth_a_note(&r));
        let note = drift_note(&r);
        assert!(note.contains("setup.py") && note.contains("Add tests in tests/test_report.py"));
    }

    #[test]
    fn a_file_named_by_its_base_name_is_planned() {
        let dir = project();
        let changed = vec!["src/report.py".to_string()];
        let plan = "1. Change report.py to print JSON";
        let r = report(&ComplianceInput {
            slug: "s",
            plan,
            plan_file_now: None,
            changed: &changed,
            project: dir.path(),
        });
        assert!(r.unplanned_files.is_empty(), "{r:?}");
        assert_eq!((r.steps_done, r.steps_total), (0, 1));
        // No step marked at all: reported, but no note for it.
        assert!(r.drifted() && !worth_a_note(&r));
    }
}
