//! One writer per session: a process that writes a session's transcript
//! holds an exclusive lock on `<session-id>.lock` beside it for as long as
//! it runs, so a second `--resume` (or `--continue`) of a live session is
//! refused instead of interleaving two conversations in one file.
//!
//! The lock is an advisory `flock` on the lock file: the kernel drops it
//! when the process ends however it ends, so a crash never leaves a session
//! locked. The file holds the owner's process id, for the message that
//! names who holds it. Lock files are left in place when the session ends
//! (removing them would race with a process about to lock the same file).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Why the session could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum SessionLockError {
    /// Another process holds the session.
    #[error(
        "session {session_id} is open in another catui process{}; wait for it to end, or continue \
         the conversation in a new session with --resume {session_id} --fork-session",
        pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
    )]
    InUse {
        session_id: String,
        pid: Option<u32>,
    },
    /// The lock file could not be created or locked.
    #[error("cannot lock the session at {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The lock of a session, held until dropped.
#[derive(Debug)]
pub struct SessionLock {
    _file: File,
    path: PathBuf,
}

impl SessionLock {
    /// The lock file of the transcript at `transcript` (`<id>.jsonl`).
    pub fn path_for(transcript: &Path) -> PathBuf {
        transcript.with_extension("lock")
    }

    /// Locks the session whose transcript is `transcript`, or says who
    /// holds it.
    #[allow(clippy::incompatible_msrv)] // File::try_lock: stable since 1.89; the toolchain is newer.
    pub fn acquire(transcript: &Path, session_id: &str) -> Result<SessionLock, SessionLockError> {
        let path = Self::path_for(transcript);
        let io = |source| SessionLockError::Io {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(SessionLockError::InUse {
                    session_id: session_id.to_string(),
                    pid: read_pid(&mut file),
                });
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        // Best effort: the pid only makes the message more helpful.
        let _ = file
            .set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| writeln!(file, "{}", std::process::id()));
        Ok(SessionLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn read_pid(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.take(64).read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_session_is_refused_until_released() {
        let dir = tempfile::tempdir().unwrap();
        let transcript = dir.path().join("p/abc.jsonl");
        let held = SessionLock::acquire(&transcript, "abc").unwrap();
        assert_eq!(held.path(), dir.path().join("p/abc.lock"));
        // A second open file description conflicts like another process.
        let err = SessionLock::acquire(&transcript, "abc").unwrap_err();
        match &err {
            SessionLockError::InUse { pid, .. } => assert_eq!(*pid, Some(std::process::id())),
            other => panic!("{other}"),
        }
        let text = err.to_string();
        assert!(
            text.contains("open in another catui process") && text.contains("--fork-session"),
            "{text}"
        );
        drop(held);
        SessionLock::acquire(&transcript, "abc").unwrap();
    }
}
