//! Where transcripts live: `<config>/projects/<sanitised cwd>/<session>.jsonl`,
//! and sub-agent (sidechain) transcripts in a folder beside the session file.
//!
//! Every function takes the configuration directory explicitly so tests can
//! point at a temp dir; the `*_in_config_dir` wrappers use
//! [`crate::config_dir::config_dir`].

use std::path::{Path, PathBuf};

use crate::config_dir::config_dir;

/// The file extension of transcripts.
pub const TRANSCRIPT_EXTENSION: &str = "jsonl";

/// Turns an absolute working directory into one folder name: every
/// character that is not ASCII alphanumeric becomes `-`
/// (`/home/me/my_repo` → `-home-me-my-repo`).
pub fn sanitize_cwd(cwd: &Path) -> String {
    cwd.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// `<config_dir>/projects`.
pub fn projects_dir(config_dir: &Path) -> PathBuf {
    config_dir.join("projects")
}

/// The folder that holds the transcripts of one project (working directory).
pub fn project_dir(config_dir: &Path, cwd: &Path) -> PathBuf {
    projects_dir(config_dir).join(sanitize_cwd(cwd))
}

/// The transcript file of one session.
pub fn session_path(config_dir: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    project_dir(config_dir, cwd).join(format!(
        "{}.{TRANSCRIPT_EXTENSION}",
        safe_component(session_id)
    ))
}

/// [`project_dir`] under the configured catui home.
pub fn project_dir_in_config_dir(cwd: &Path) -> PathBuf {
    project_dir(&config_dir(), cwd)
}

/// [`session_path`] under the configured catui home.
pub fn session_path_in_config_dir(cwd: &Path, session_id: &str) -> PathBuf {
    session_path(&config_dir(), cwd, session_id)
}

/// The transcript of a sub-agent of the session stored at `session_path`:
/// `<project>/<session-id>/subagents/agent-<agent-id>.jsonl`. Kept out of
/// the project folder's top level so session listings do not show it.
pub fn sidechain_path(session_path: &Path, agent_id: &str) -> PathBuf {
    let dir = session_path.parent().unwrap_or_else(|| Path::new("."));
    let session_id = session_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(session_id).join("subagents").join(format!(
        "agent-{}.{TRANSCRIPT_EXTENSION}",
        safe_component(agent_id)
    ))
}

/// Makes an id safe to use as one path component: only ASCII
/// alphanumerics, `-` and `_` survive, so an id can never climb out of its
/// folder (`../x`) or name a hidden file.
fn safe_component(id: &str) -> String {
    let cleaned: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "-".to_string()
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_is_sanitised_to_one_component() {
        assert_eq!(
            sanitize_cwd(Path::new("/home/me/my_repo.v2")),
            "-home-me-my-repo-v2"
        );
        assert_eq!(sanitize_cwd(Path::new("/tmp/été")), "-tmp--t-");
    }

    #[test]
    fn session_path_layout() {
        let p = session_path(Path::new("/cfg"), Path::new("/w/r"), "abc-123");
        assert_eq!(p, PathBuf::from("/cfg/projects/-w-r/abc-123.jsonl"));
    }

    #[test]
    fn sidechain_lives_beside_the_session() {
        let s = PathBuf::from("/cfg/projects/-w-r/abc.jsonl");
        assert_eq!(
            sidechain_path(&s, "7f"),
            PathBuf::from("/cfg/projects/-w-r/abc/subagents/agent-7f.jsonl")
        );
    }

    #[test]
    fn ids_cannot_escape_their_folder() {
        let p = session_path(Path::new("/cfg"), Path::new("/w"), "../../etc/passwd");
        assert_eq!(p.parent(), Some(Path::new("/cfg/projects/-w")));
        let s = PathBuf::from("/cfg/projects/-w/abc.jsonl");
        let side = sidechain_path(&s, "../x");
        assert_eq!(
            side.parent(),
            Some(Path::new("/cfg/projects/-w/abc/subagents"))
        );
    }
}
