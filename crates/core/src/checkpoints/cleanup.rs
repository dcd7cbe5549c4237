//! Retention of the shadow repository: once a day at most, the lines of
//! sessions unused for [`KEEP_FOR`] are forgotten, their objects pruned,
//! and other projects' shadow repositories unused for as long removed.

use std::path::Path;
use std::time::{Duration, SystemTime};

use super::{CheckpointError, ShadowRepo, line_ref};

/// How long checkpoints are kept after their session was last used.
pub const KEEP_FOR: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// How often a project's shadow repository is cleaned up.
const CLEANUP_EVERY: Duration = Duration::from_secs(24 * 60 * 60);

/// The file whose time says when the repository was last cleaned up.
const CLEANUP_STAMP: &str = "catui-cleanup";

impl ShadowRepo {
    /// At most once a day: forgets the lines of sessions (but `keep`'s)
    /// whose transcript is gone or older than [`KEEP_FOR`] (under
    /// `transcripts`, the project's folder of transcripts), packs the repository and prunes
    /// what only they kept, and removes other projects' repositories unused
    /// for as long.
    pub fn clean_up(&self, transcripts: &Path, keep: &str) -> Result<usize, CheckpointError> {
        let stamp = self.git.git_dir.join(CLEANUP_STAMP);
        if age(&stamp).is_some_and(|a| a < CLEANUP_EVERY) {
            return Ok(0);
        }
        let lock = self.lock()?;
        let _ = std::fs::write(&stamp, b"");
        let listing = self.git.run(&[
            "for-each-ref",
            "--format=%(refname)",
            "refs/catui/sessions/",
        ])?;
        let mut dropped = 0;
        for name in String::from_utf8_lossy(&listing).lines() {
            let Some(session) = name.strip_prefix("refs/catui/sessions/") else {
                continue;
            };
            let transcript = transcripts.join(format!(
                "{session}.{}",
                crate::session::paths::TRANSCRIPT_EXTENSION
            ));
            if name != line_ref(keep) && age(&transcript).is_none_or(|a| a > KEEP_FOR) {
                self.git.run(&["update-ref", "-d", name])?;
                dropped += 1;
            }
        }
        // Packs what the day's snapshots left loose (with deltas) and
        // prunes what only forgotten lines kept. Snapshots go on meanwhile
        // (not under the lock): what is younger than an hour is never
        // pruned, so an object written just before its commit is safe.
        drop(lock);
        if dropped > 0 {
            self.git
                .run_in_background(&["gc", "--quiet", "--prune=1.hour.ago"])?;
        } else {
            // Only when many objects are loose (git's own measure).
            self.git.run_in_background(&[
                "-c",
                "gc.auto=6700",
                "-c",
                "gc.pruneExpire=1.hour.ago",
                "gc",
                "--auto",
                "--quiet",
            ])?;
        }
        self.remove_abandoned_repositories();
        Ok(dropped)
    }

    /// Other projects' shadow repositories not cleaned up (so not used)
    /// for [`KEEP_FOR`] go entirely.
    fn remove_abandoned_repositories(&self) {
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return;
        };
        for entry in entries.flatten() {
            let dir = entry.path();
            if dir == self.git.git_dir || !dir.join("HEAD").is_file() {
                continue;
            }
            let last_used = age(&dir.join(CLEANUP_STAMP)).or_else(|| age(&dir.join("index")));
            if last_used.is_some_and(|a| a > KEEP_FOR) {
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
    }
}

fn age(path: &Path) -> Option<Duration> {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    Some(
        SystemTime::now()
            .duration_since(modified)
            .unwrap_or_default(),
    )
}
