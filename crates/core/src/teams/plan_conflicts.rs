//! Cross-plan conflicts: when a teammate presents a plan, the files it
//! names are compared with the files named by the other teammates' plans
//! that are still pending or already approved. Each overlap is reported
//! (`{"file", "plan", "teammate"}`) in the approval request, the lead's
//! mailbox message and the dialog, before any code is written. This file
//! holds the rules on plain values; which teammates' plans count is
//! `plan_approval`'s (it knows the team).

use std::path::Path;

use serde::{Deserialize, Serialize};

/// A file named by the presented plan and by another teammate's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanConflict {
    pub file: String,
    /// The other plan's slug (its file name without `.md`).
    pub plan: String,
    /// The other plan's teammate.
    pub teammate: String,
}

/// A teammate's latest plan while it counts for conflicts: submitted and
/// not rejected (pending, or approved and being carried out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanClaim {
    pub slug: String,
    pub files: Vec<String>,
    pub approved: bool,
}

/// The project files a plan's text names: relative path-like words
/// (`src/cli.rs`, `README.md`), in order of first mention, without `./`.
/// Whether they exist does not matter: a plan may name files to create.
pub fn files_named(plan: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in plan.split(|c: char| {
        c.is_whitespace() || matches!(c, '`' | '(' | ')' | ',' | ':' | ';' | '"' | '\'' | '*')
    }) {
        let word = word.trim_end_matches('.').trim_start_matches("./");
        let ext_ok = word.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && !ext.is_empty()
                && ext.len() <= 5
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        });
        // Paths inside the project only: no absolute paths, no `..`, no
        // addresses.
        if word.is_empty()
            || !ext_ok
            || word.starts_with('/')
            || word.contains("..")
            || word.contains("://")
            || out.iter().any(|s| s == word)
        {
            continue;
        }
        out.push(word.to_string());
    }
    out
}

/// The slug of a plan file (`/…/plans/2026-12-06-add-json.md` →
/// `2026-12-06-add-json`).
pub fn slug_of(plan_file: &Path) -> String {
    plan_file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The overlaps between `files` and the plans other teammates claim, each
/// with its teammate's name (which teammates count is the caller's:
/// `plan_approval` leaves out other teams and stopped teammates).
pub fn conflicts_with(files: &[String], claims: &[(String, PlanClaim)]) -> Vec<PlanConflict> {
    let mut out = Vec::new();
    for (teammate, claim) in claims {
        for file in files.iter().filter(|f| claim.files.contains(f)) {
            out.push(PlanConflict {
                file: file.clone(),
                plan: claim.slug.clone(),
                teammate: teammate.clone(),
            });
        }
    }
    out
}

/// One line per conflict, for people and the lead model.
pub fn describe(conflicts: &[PlanConflict]) -> String {
    conflicts
        .iter()
        .map(|c| format!("- {} is also in {}'s plan {}", c.file, c.teammate, c.plan))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_name_project_files_not_commands_or_addresses() {
        let plan = "# Add --json\n1. Parse it in `src/cli.rs` (./src/cli.rs again).\n2. Update README.md and docs/USAGE.md.\n3. Run `cargo test`; see https://x.io/a.html, /etc/passwd, ../up.txt, v1.2";
        assert_eq!(
            files_named(plan),
            vec!["src/cli.rs", "README.md", "docs/USAGE.md"]
        );
        assert_eq!(
            slug_of(Path::new("/c/plans/2026-12-06-add-json.md")),
            "2026-12-06-add-json"
        );
    }

    #[test]
    fn each_file_two_plans_name_is_one_conflict() {
        let claim = |slug: &str, files: &[&str]| PlanClaim {
            slug: slug.to_string(),
            files: files.iter().map(|f| f.to_string()).collect(),
            approved: false,
        };
        let claims = vec![
            (
                "amy".to_string(),
                claim("a-plan", &["src/cli.rs", "README.md"]),
            ),
            ("bob".to_string(), claim("b-plan", &["docs/USAGE.md"])),
        ];
        let mine = vec!["README.md".to_string(), "src/main.rs".to_string()];
        assert_eq!(
            conflicts_with(&mine, &claims),
            vec![PlanConflict {
                file: "README.md".into(),
                plan: "a-plan".into(),
                teammate: "amy".into(),
            }]
        );
        assert!(conflicts_with(&["src/main.rs".to_string()], &claims).is_empty());
    }
}
