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
