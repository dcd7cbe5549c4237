//! Plan files: where the plans directory is, what a session's plan
//! file is called, and reading it.
//!
//! The functions here take every input explicitly (project root, the
//! `plansDirectory` setting, the config directory) so they are testable
//! without touching process globals; [`PlanFiles`] bundles the resolved
//! directory, the slug cache and the session id for the engine.

pub mod slug;
mod slug_words;
pub mod topic;

use crate::sync::lock;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::file_gate::{FileGate, Limit};
use crate::permissions::paths;
use crate::permissions::secrets::SecretStores;
use crate::plan::files::slug::{InvalidSlug, PlanSlugs};

/// Why a `plansDirectory` setting was not used.
#[derive(Debug, thiserror::Error)]
pub enum PlansDirError {
    #[error(
        "plansDirectory '{setting}' resolves to {resolved}, which is outside the project root {root}; use a path inside the project"
    )]
    OutsideProject {
        setting: String,
        resolved: PathBuf,
        root: PathBuf,
    },
    #[error("cannot resolve plansDirectory '{setting}': {source}")]
    Unresolvable {
        setting: String,
        #[source]
        source: crate::permissions::paths::PathError,
    },
    #[error("could not create plansDirectory {path}: {source}")]
    Create {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Resolves the `plansDirectory` setting against the project root and
/// creates it. The result must stay inside the project: the setting goes
/// through the same canonicaliser as permission decisions (symlinks, also
/// dangling ones, and `..` resolved as the kernel would) before anything is
/// created.
pub fn resolve_plans_directory(
    project_root: &Path,
    setting: &str,
) -> Result<PathBuf, PlansDirError> {
    let root = paths::canonicalize(project_root, project_root)
        .unwrap_or_else(|_| paths::normalize_lexically(project_root, project_root));
    let resolved = paths::canonicalize(Path::new(setting.trim()), &root).map_err(|source| {
        PlansDirError::Unresolvable {
            setting: setting.to_string(),
            source,
        }
    })?;
    if !paths::is_within(&resolved, &root) {
        return Err(PlansDirError::OutsideProject {
            setting: setting.to_string(),
            resolved,
            root,
        });
    }
    std::fs::create_dir_all(&resolved).map_err(|source| PlansDirError::Create {
        path: resolved.clone(),
        source,
    })?;
    Ok(resolved)
}

/// The plans directory: the `plansDirectory` setting when it is set and
/// valid, else `{config_dir}/plans`. A rejected setting is logged as a
/// warning and the fallback is used. The directory is created.
pub fn plans_directory(project_root: &Path, setting: Option<&str>, config_dir: &Path) -> PathBuf {
    if let Some(setting) = setting.filter(|s| !s.trim().is_empty()) {
        match resolve_plans_directory(project_root, setting) {
            Ok(dir) => return dir,
            Err(e) => tracing::warn!("{e}; using {} instead", config_dir.join("plans").display()),
        }
    }
    let fallback = config_dir.join("plans");
    if let Err(e) = std::fs::create_dir_all(&fallback) {
        tracing::warn!(
            "could not create the plans directory {}: {e}",
            fallback.display()
        );
    }
    fallback
}

/// `{dir}/{slug}.md`, or `{dir}/{slug}-agent-{agent_id}.md` for a sub-agent
/// so a sub-agent never overwrites the main plan.
/// Characters of `agent_id` outside `[A-Za-z0-9_-]` become `_`, so the file
/// always stays inside `dir`.
pub fn plan_file_path(dir: &Path, slug: &str, agent_id: Option<&str>) -> PathBuf {
    match agent_id {
        None => dir.join(format!("{slug}.md")),
        Some(id) => {
            let id: String = id
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            dir.join(format!("{slug}-agent-{id}.md"))
        }
    }
}

/// The largest plan file read.
pub const MAX_PLAN_BYTES: u64 = 8 * 1024 * 1024;

/// The plan's text, read through the [file gate](crate::file_gate): a
/// regular file that resolves inside its own plans directory (a link
/// planted under the plan's name leads nowhere else), never a secret
/// store or a kernel file. A missing file is `None`; any other refusal is
/// logged and also `None`, because a plan that cannot be read must not
/// break the turn. Invalid UTF-8 is replaced rather than rejected. An empty
/// file is `Some("")`: callers that treat "empty" as "no plan" check that.
pub fn get_plan(path: &Path) -> Option<String> {
    let dir = path.parent().unwrap_or(Path::new("/"));
    let gate = FileGate::new([dir.to_path_buf()], SecretStores::for_user(&[], &[]));
    match gate.read(path, Limit::Whole(MAX_PLAN_BYTES)) {
        Ok(file) => Some(file.text()),
        Err(e) if e.is_not_found() => None,
        Err(e) => {
            tracing::warn!("plan file: {e}");
            None
        }
    }
}

/// A session's plan files: the resolved plans directory, the slug cache and
/// the current session id. Cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct PlanFiles {
    dir: PathBuf,
    slugs: PlanSlugs,
    session_id: Mutex<String>,
}

impl PlanFiles {
    /// Uses `dir` as the plans directory as is.
    pub fn new(dir: PathBuf, session_id: impl Into<String>) -> Self {
        Self {
            dir,
            slugs: PlanSlugs::new(),
            session_id: Mutex::new(session_id.into()),
        }
    }

    /// Resolves the directory with [`plans_directory`].
    pub fn from_settings(
        project_root: &Path,
        plans_directory_setting: Option<&str>,
        config_dir: &Path,
        session_id: impl Into<String>,
    ) -> Self {
        Self::new(
            plans_directory(project_root, plans_directory_setting, config_dir),
            session_id,
        )
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn slugs(&self) -> &PlanSlugs {
        &self.slugs
    }

    pub fn session_id(&self) -> String {
        lock(&self.session_id).clone()
    }

    /// Switches to another session id (resume, fork, `/clear`).
    pub fn set_session_id(&self, session_id: impl Into<String>) {
        *lock(&self.session_id) = session_id.into();
    }

    /// The current session's slug, generated on first use.
    pub fn slug(&self) -> String {
        self.slugs.get_or_create(&self.session_id(), &self.dir)
    }

    /// The slug if one was already generated or restored, without creating one.
    pub fn existing_slug(&self) -> Option<String> {
        self.slugs.get(&self.session_id())
    }

    /// Pins the current session to `slug` (resume).
    pub fn adopt_slug(&self, slug: &str) -> Result<(), InvalidSlug> {
        self.slugs.set(&self.session_id(), slug)
    }

    /// The plan file of the main conversation (`None`) or of a sub-agent.
    pub fn path(&self, agent_id: Option<&str>) -> PathBuf {
        plan_file_path(&self.dir, &self.slug(), agent_id)
    }

    /// The plan's text, see [`get_plan`].
    pub fn read(&self, agent_id: Option<&str>) -> Option<String> {
        get_plan(&self.path(agent_id))
    }

    /// Whether there is a plan to read: a path that exists but cannot be
    /// read as a file (a directory, no permission) has no plan, as `/plan`
    /// and ExitPlanMode see it too.
    pub fn exists(&self, agent_id: Option<&str>) -> bool {
        self.read(agent_id).is_some()
    }

    /// Fork: copies the plan of `original_slug` to this session's own
    /// new slug, so the two sessions never write the same file. Returns the
    /// new path, or `None` when there was nothing to copy.
    pub fn fork_from(&self, original_slug: &str) -> std::io::Result<Option<PathBuf>> {
        if !crate::plan::files::slug::is_valid_slug(original_slug) {
            return Ok(None);
        }
        let source = plan_file_path(&self.dir, original_slug, None);
        let Some(content) = get_plan(&source) else {
            return Ok(None);
        };
        let mut target = self.path(None);
        if target == source {
            // The fork must not share the original's file.
            self.slugs.clear(&self.session_id());
            target = self.path(None);
        }
        std::fs::write(&target, content)?;
        Ok(Some(target))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(p: &Path) -> PathBuf {
        std::fs::canonicalize(p).unwrap()
    }

    #[test]
    fn default_is_config_dir_plans_and_is_created() {
        let project = tempfile::tempdir().unwrap();
        let config = tempfile::tempdir().unwrap();
        let dir = plans_directory(project.path(), None, config.path());
        assert_eq!(dir, config.path().join("plans"));
        assert!(dir.is_dir());
        // An empty setting counts as unset.
        assert_eq!(
            plans_directory(project.path(), Some("  "), config.path()),
            dir
        );
    }

    #[test]
    fn setting_inside_project_is_used_and_created() {
        let project = tempfile::tempdir().unwrap();
        let config = tempfile::tempdir().unwrap();
        let dir = plans_directory(project.path(), Some(".catui/plans"), config.path());
        assert_eq!(dir, canon(project.path()).join(".catui/plans"));
        assert!(dir.is_dir());
        // `..` that stays inside is fine; the project root itself is allowed.
        let dir = plans_directory(project.path(), Some("a/../docs/plans"), config.path());
        assert_eq!(dir, canon(project.path()).join("docs/plans"));
        assert_eq!(
            plans_directory(project.path(), Some("."), config.path()),
            canon(project.path())
        );
        // An absolute path inside the project is accepted too.
        let abs = project.path().join("abs-plans");
        let dir = plans_directory(project.path(), abs.to_str(), config.path());
        assert_eq!(dir, canon(project.path()).join("abs-plans"));
    }

    #[test]
    fn escapes_fall_back_to_config_dir() {
        let parent = tempfile::tempdir().unwrap();
        let project = parent.path().join("project");
        std::fs::create_dir(&project).unwrap();
        let config = tempfile::tempdir().unwrap();
        let fallback = config.path().join("plans");
        for bad in [
            "../outside",
            "plans/../../outside",
            "/tmp/catui-plans-elsewhere",
        ] {
            assert_eq!(
                plans_directory(&project, Some(bad), config.path()),
                fallback,
                "{bad}"
            );
        }
        assert!(
            !parent.path().join("outside").exists(),
            "nothing created outside"
        );
        assert!(matches!(
            resolve_plans_directory(&project, "../outside"),
            Err(PlansDirError::OutsideProject { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn symlink_escape_is_rejected_before_creating_anything() {
        let project = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let config = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), project.path().join("link")).unwrap();
        let dir = plans_directory(project.path(), Some("link/plans"), config.path());
        assert_eq!(dir, config.path().join("plans"));
        assert!(!outside.path().join("plans").exists());
    }

    /// A dangling symlink inside the project that points outside is
    /// resolved to its target, so it is refused, not created through.
    #[cfg(unix)]
    #[test]
    fn a_dangling_symlink_pointing_outside_is_rejected() {
        let project = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("not-yet");
        std::os::unix::fs::symlink(&target, project.path().join("plans")).unwrap();
        assert!(matches!(
            resolve_plans_directory(project.path(), "plans/mine"),
            Err(PlansDirError::OutsideProject { .. })
        ));
        assert!(!target.exists());
    }

    #[test]
    fn file_names_for_main_and_agents() {
        let dir = Path::new("/p");
        assert_eq!(plan_file_path(dir, "a-b-c", None), Path::new("/p/a-b-c.md"));
        // A sub-agent gets its own file, never the main plan.
        assert_eq!(
            plan_file_path(dir, "a-b-c", Some("agent_7")),
            Path::new("/p/a-b-c-agent-agent_7.md")
        );
        let tricky = plan_file_path(dir, "a-b-c", Some("../../etc/passwd"));
        assert_eq!(tricky.parent(), Some(dir));
    }

    #[test]
    fn get_plan_missing_present_and_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.md");
        assert_eq!(get_plan(&path), None);
        std::fs::write(&path, "# Plan\n").unwrap();
        assert_eq!(get_plan(&path).as_deref(), Some("# Plan\n"));
        std::fs::write(&path, "").unwrap();
        assert_eq!(get_plan(&path).as_deref(), Some(""));
        // A directory cannot be read as a file: logged, None, no panic.
        assert_eq!(get_plan(dir.path()), None);
    }

    #[test]
    fn a_link_planted_under_the_plans_name_is_not_followed_out() {
        let dir = tempfile::tempdir().unwrap();
        let plans = dir.path().join("plans");
        std::fs::create_dir(&plans).unwrap();
        std::fs::write(dir.path().join("private.txt"), "PRIVATE").unwrap();
        let path = plans.join("p.md");
        std::os::unix::fs::symlink("../private.txt", &path).unwrap();
        assert_eq!(get_plan(&path), None);
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/proc/self/environ", &path).unwrap();
        assert_eq!(get_plan(&path), None);
        // A link within the plans directory is the plan.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(plans.join("real.md"), "# Real\n").unwrap();
        std::os::unix::fs::symlink("real.md", &path).unwrap();
        assert_eq!(get_plan(&path).as_deref(), Some("# Real\n"));
    }

    #[test]
    fn plan_files_keep_one_path_per_session() {
        let dir = tempfile::tempdir().unwrap();
        let files = PlanFiles::new(dir.path().to_path_buf(), "s1");
        assert_eq!(files.existing_slug(), None);
        let p1 = files.path(None);
        assert_eq!(files.path(None), p1);
        assert_eq!(p1.parent(), Some(dir.path()));
        let agent = files.path(Some("x1"));
        assert_ne!(agent, p1);
        assert!(
            agent
                .to_string_lossy()
                .ends_with(&format!("{}-agent-x1.md", files.slug()))
        );
        assert_eq!(files.read(None), None);
        std::fs::write(&p1, "plan").unwrap();
        assert_eq!(files.read(None).as_deref(), Some("plan"));

        files.set_session_id("s2");
        assert_ne!(files.path(None), p1, "another session gets another slug");
        files.set_session_id("s3");
        files.adopt_slug(&files.slugs().get("s1").unwrap()).unwrap();
        assert_eq!(files.path(None), p1, "resume reuses the recorded slug");
    }

    #[test]
    fn fork_copies_to_a_new_slug() {
        let dir = tempfile::tempdir().unwrap();
        let files = PlanFiles::new(dir.path().to_path_buf(), "orig");
        let original = files.path(None);
        std::fs::write(&original, "the plan").unwrap();
        let original_slug = files.slug();
        files.set_session_id("fork");
        let copied = files.fork_from(&original_slug).unwrap().unwrap();
        assert_ne!(copied, original);
        assert_eq!(std::fs::read_to_string(&copied).unwrap(), "the plan");
        assert_eq!(std::fs::read_to_string(&original).unwrap(), "the plan");
        assert_eq!(files.fork_from("missing-slug-here").unwrap(), None);
    }
}
