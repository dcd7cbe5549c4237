//! A plan's history as the session transcripts recorded it: each revision
//! shown for approval (`plan_revision` snapshots), the revision the user
//! approved (`plan_approved`, bound to its SHA-256), the plans the user
//! parked (`plan_parked`), and how the work after an approval compared
//! with the plan (`plan_compliance`). `catui plans show` marks the approved
//! revision and a parked plan and gives the last comparison; `catui plans
//! list` marks parked plans; `catui plans export` and `/plan export` copy
//! the approved plan into the repository with the history and the
//! comparison as Markdown appendices.

use std::collections::{BTreeMap, HashSet};

use std::path::{Path, PathBuf};

use super::{EntryBody, list_sessions};
use crate::plan::approval::progress::without_progress;
use crate::plan::contract::{PLAN_APPROVED_KEY, PLAN_PARKED_KEY, PLAN_REVISION_KEY};
use crate::plan::export::ExportError;
use crate::plan::plan_hash;

/// One recorded revision of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revision {
    /// RFC 3339 time of the transcript entry.
    pub timestamp: String,
    pub session_id: String,
    pub content: String,
    pub hash: String,
    /// True for the approved revision, false for one shown for approval.
    pub approved: bool,
    /// True when the user parked this text (nothing approved).
    pub parked: bool,
}

/// The revisions of the plan file `{slug}.md`, oldest first, from every
/// transcript in `sessions_dir` (the project's). Unreadable transcripts are
/// skipped.
pub fn revisions(sessions_dir: &Path, slug: &str) -> Vec<Revision> {
    let file_name = format!("{slug}.md");
    let mut out = Vec::new();
    for session in list_sessions(sessions_dir) {
        let Ok(loaded) = crate::session::transcript::load(&session.path) else {
            continue;
        };
        for entry in loaded.entries {
            let EntryBody::FileSnapshot { key, path, content } = entry.body else {
                continue;
            };
            let approved = key == PLAN_APPROVED_KEY;
            let parked = key == PLAN_PARKED_KEY;
            if !(approved || parked || key == PLAN_REVISION_KEY)
                || Path::new(&path).file_name().and_then(|n| n.to_str()) != Some(&file_name)
            {
                continue;
            }
            out.push(Revision {
                timestamp: entry.timestamp,
                session_id: entry.session_id,
                hash: plan_hash(&content),
                content,
                approved,
                parked,
            });
        }
    }
    out.sort_by(|a, b| a.timestamp.cmp(&b.timestamp));
    out
}

/// The parking of the plan, when that is the last thing that happened to
/// it (not presented or approved since).
pub fn parked(revisions: &[Revision]) -> Option<&Revision> {
    revisions.last().filter(|r| r.parked)
}

/// The line `catui plans show` adds under a parked plan.
pub fn parked_note(revisions: &[Revision]) -> Option<String> {
    let parked = parked(revisions)?;
    Some(format!(
        "Parked at {} (session {}): not approved. Pick it up with /plan in that session (catui --resume {}).",
        parked.timestamp, parked.session_id, parked.session_id
    ))
}

/// The slugs of this project's plans that are parked now (see [`parked`]),
/// reading each transcript once.
pub fn parked_slugs(sessions_dir: &Path) -> HashSet<String> {
    // slug -> (timestamp, parked) of its latest plan event
    let mut last: BTreeMap<String, (String, bool)> = BTreeMap::new();
    for session in list_sessions(sessions_dir) {
        let Ok(loaded) = crate::session::transcript::load(&session.path) else {
            continue;
        };
        for entry in loaded.entries {
            let EntryBody::FileSnapshot { key, path, .. } = entry.body else {
                continue;
            };
            if ![PLAN_APPROVED_KEY, PLAN_PARKED_KEY, PLAN_REVISION_KEY].contains(&key.as_str()) {
                continue;
            }
            let Some(slug) = Path::new(&path).file_stem().and_then(|n| n.to_str()) else {
                continue;
            };
            let newer = last.get(slug).is_none_or(|(at, _)| *at <= entry.timestamp);
            if newer {
                last.insert(slug.to_string(), (entry.timestamp, key == PLAN_PARKED_KEY));
            }
        }
    }
    last.into_iter()
        .filter(|(_, (_, parked))| *parked)
        .map(|(slug, _)| slug)
        .collect()
}

/// The last compliance report recorded for plan `slug` in the
/// transcripts of `sessions_dir`: its time and the report.
pub fn last_compliance(
    sessions_dir: &Path,
    slug: &str,
) -> Option<(String, catui_protocol::checkpoint::PlanCompliance)> {
    let mut last: Option<(String, catui_protocol::checkpoint::PlanCompliance)> = None;
    for session in list_sessions(sessions_dir) {
        let Ok(loaded) = crate::session::transcript::load(&session.path) else {
            continue;
        };
        for entry in loaded.entries {
            if let EntryBody::PlanCompliance { report } = entry.body
                && report.slug == slug
                && last.as_ref().is_none_or(|(at, _)| *at < entry.timestamp)
            {
                last = Some((entry.timestamp, report));
            }
        }
    }
    last
}

/// The last verification run and the last end report recorded for plan
/// `slug` in the transcripts of `sessions_dir` (`catui plans show`, the
/// export, and later `catui plans list`'s state).
pub fn last_contract(
    sessions_dir: &Path,
    slug: &str,
) -> (
    Option<catui_protocol::contract::PlanVerification>,
    Option<catui_protocol::contract::PlanReport>,
) {
    let mut verification: Option<(String, catui_protocol::contract::PlanVerification)> = None;
    let mut report: Option<(String, catui_protocol::contract::PlanReport)> = None;
    for session in list_sessions(sessions_dir) {
        let Ok(loaded) = crate::session::transcript::load(&session.path) else {
            continue;
        };
        for entry in loaded.entries {
            match entry.body {
                EntryBody::PlanVerification { run }
                    if run.slug == slug
                        && verification
                            .as_ref()
                            .is_none_or(|(at, _)| *at < entry.timestamp) =>
                {
                    verification = Some((entry.timestamp, run));
                }
                EntryBody::PlanReport { report: r }
                    if r.slug == slug
                        && report.as_ref().is_none_or(|(at, _)| *at < entry.timestamp) =>
                {
                    report = Some((entry.timestamp, r));
                }
                _ => {}
            }
        }
    }
    (verification.map(|v| v.1), report.map(|r| r.1))
}

/// A verification run in words (`catui plans show`, the export).
pub fn verification_text(run: &catui_protocol::contract::PlanVerification) -> String {
    let mut out = format!(
        "Verification (run by catui): {}",
        if run.passed { "passed" } else { "failed" }
    );
    for c in &run.commands {
        out.push_str(&format!(
            "
  $ {} — exit {}",
            c.command, c.exit_code
        ));
    }
    out
}

/// A compliance report in words (`catui plans show`, the export).
pub fn compliance_text(at: &str, report: &catui_protocol::checkpoint::PlanCompliance) -> String {
    let list = |items: &[String]| {
        if items.is_empty() {
            "none".to_string()
        } else {
            items.join(", ")
        }
    };
    format!(
        "Implementation compared with the plan (last report, {at}): {}/{} steps done.\n\
         Changed, not in the plan: {}\nIn the plan, unchanged: {}\nSteps not done: {}",
        report.steps_done,
        report.steps_total,
        list(&report.unplanned_files),
        list(&report.untouched_files),
        list(&report.undone_steps),
    )
}

/// The last approved revision, if any.
pub fn approved(revisions: &[Revision]) -> Option<&Revision> {
    revisions.iter().rev().find(|r| r.approved)
}

/// The line `catui plans show` adds under a plan that was approved.
pub fn approval_note(revisions: &[Revision], current: &str) -> Option<String> {
    let approved = approved(revisions)?;
    let short = &approved.hash[..12.min(approved.hash.len())];
    // The progress section catui writes back after approval is not part of
    // what was approved.
    let unchanged = plan_hash(current) == approved.hash
        || plan_hash(&without_progress(current)) == approved.hash;
    let state = if unchanged {
        "this is the approved revision"
    } else {
        "the file has changed since it was approved"
    };
    Some(format!(
        "Approved revision: sha256 {short} at {} (session {}); {state}.",
        approved.timestamp, approved.session_id
    ))
}

/// The exported document: the approved plan, then its history.
pub fn export_text(slug: &str, plan: &str, revisions: &[Revision]) -> String {
    let mut out = plan.trim_end().to_string();
    out.push_str("\n\n---\n\n## Appendix: revision history\n\n");
    out.push_str(&format!(
        "Plan `{slug}`, exported by `catui plans export`. Each revision below was shown for approval; the approved one is marked.\n"
    ));
    let mut previous: Option<&str> = None;
    let mut number = 0;
    for r in revisions.iter().filter(|r| !r.parked) {
        if previous == Some(r.content.as_str()) {
            // The approval of the revision just shown: mark, don't repeat.
            if r.approved {
                out.push_str(&format!(
                    "\n**Approved** at {} (sha256 `{}`).\n",
                    r.timestamp,
                    &r.hash[..12.min(r.hash.len())]
                ));
            }
            continue;
        }
        number += 1;
        out.push_str(&format!(
            "\n### Revision {number}{} — {} (sha256 `{}`)\n\n",
            if r.approved { ", approved" } else { "" },
            r.timestamp,
            &r.hash[..12.min(r.hash.len())]
        ));
        match previous {
            None => {
                out.push_str("```markdown\n");
                out.push_str(r.content.trim_end());
                out.push_str("\n```\n");
            }
            Some(before) => {
                out.push_str("Changes from the previous revision:\n\n```diff\n");
                out.push_str(crate::plan::plan_diff(before, &r.content).trim_end());
                out.push_str("\n```\n");
            }
        }
        previous = Some(r.content.as_str());
    }
    if number == 0 {
        out.push_str("\nNo revision was recorded in this project's transcripts.\n");
    }
    out
}

/// Where an export goes by default: `docs/plans/` of the project.
pub fn default_export_dir(cwd: &Path) -> PathBuf {
    cwd.join("docs").join("plans")
}

/// Writes the approved revision of plan `slug`, with its history, to
/// `{dir}/{slug}.md`, where `dir` is `to` (relative to `cwd`) or
/// [`default_export_dir`]. Returns the file written.
pub fn export(
    sessions_dir: &Path,
    cwd: &Path,
    slug: &str,
    to: Option<&Path>,
) -> Result<PathBuf, ExportError> {
    let revisions = revisions(sessions_dir, slug);
    let Some(approved) = approved(&revisions) else {
        return Err(ExportError::NeverApproved(slug.to_string()));
    };
    let dir = match to {
        Some(d) => cwd.join(d),
        None => default_export_dir(cwd),
    };
    let target = dir.join(format!("{slug}.md"));
    let mut text = export_text(slug, &approved.content, &revisions);
    if let Some((at, report)) = last_compliance(sessions_dir, slug) {
        text.push_str("\n## Appendix: the implementation\n\n");
        text.push_str(&compliance_text(&at, &report));
        text.push('\n');
    }
    let (verification, report) = last_contract(sessions_dir, slug);
    if verification.is_some() || report.is_some() {
        text.push_str("\n## Appendix: verification and end report\n\n");
        if let Some(run) = verification {
            text.push_str(&verification_text(&run));
            text.push('\n');
        }
        if let Some(report) = report {
            text.push_str(&report.summary());
            text.push('\n');
        }
    }
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&target, text))
        .map_err(|source| ExportError::Write {
            path: target.clone(),
            source,
        })?;
    Ok(target)
}
