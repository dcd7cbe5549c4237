//! Files as the user's editor has them. An editor front end (ACP, when the
//! client offers its `fs` capabilities) hands the tools an [`EditorFs`]:
//! Read then sees unsaved buffers, and Write and Edit go through the editor,
//! which shows and tracks the change. Without one, the tools use the disk.
//! Either way the permission layer decided first: this only changes where
//! the bytes come from and go to.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;

/// The editor's side of file access.
#[async_trait]
pub trait EditorFiles: Send + Sync {
    /// The text of `path` as the editor has it (an open buffer, unsaved
    /// changes included), or `None` when the editor cannot say, in which
    /// case the file is read from disk.
    async fn read(&self, path: &Path) -> Option<String>;
    /// Writes `content` to `path` through the editor. `None`: the editor
    /// does not write files, so the tool writes to disk itself.
    async fn write(&self, path: &Path, content: &str) -> Option<Result<(), String>>;
}

/// The tool context value that carries the editor's files.
#[derive(Clone)]
pub struct EditorFs(pub Arc<dyn EditorFiles>);

/// Writes `content` to `path`: through the editor when there is one that
/// writes, else atomically on disk.
pub(crate) async fn write_text(
    editor: Option<&EditorFs>,
    path: &Path,
    content: &str,
) -> std::io::Result<()> {
    if let Some(EditorFs(files)) = editor {
        match files.write(path, content).await {
            Some(Ok(())) => return Ok(()),
            Some(Err(why)) => {
                return Err(std::io::Error::other(format!(
                    "the editor did not write it: {why}"
                )));
            }
            None => {}
        }
    }
    super::fs_atomic::write_atomic(path, content.as_bytes())
}

/// How a command run in the editor's terminal ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TerminalRun {
    pub output: String,
    pub exit_code: Option<u32>,
    pub signal: Option<String>,
    pub timed_out: bool,
    pub cancelled: bool,
}

/// The editor's terminals (ACP's `terminal` capability): a command the
/// user allowed runs where the user sees it.
#[async_trait]
pub trait EditorTerminal: Send + Sync {
    /// Runs `command` with `bash -c` in `cwd`, killing it after `timeout`
    /// or when `cancel` fires. `Err`: the editor could not run it.
    async fn run(
        &self,
        command: &str,
        cwd: &Path,
        timeout: std::time::Duration,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<TerminalRun, String>;
}

/// The tool context value that carries the editor's terminals.
#[derive(Clone)]
pub struct EditorShell(pub Arc<dyn EditorTerminal>);
