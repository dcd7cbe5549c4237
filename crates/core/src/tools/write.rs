//! Write: creates a file or replaces one the model has read (and that has
//! not changed since), atomically. Also owns the stale-write guard and the
//! diff rendering shared with Edit.

use catui_protocol::tool_names;
use std::path::Path;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::editor_files::{EditorFs, write_text};
use super::{FileStamp, ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::Access;
use crate::safe_fs::{self, SafeReadError};

pub struct WriteTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteInput {
    /// Path of the file to write: absolute, or relative to the project root.
    pub file_path: String,
    /// The complete new content of the file.
    pub content: String,
}

#[async_trait]
impl TypedTool for WriteTool {
    type Input = WriteInput;
    fn name(&self) -> &'static str {
        tool_names::WRITE
    }
    fn description(&self) -> String {
        "Writes a file with the given content, creating it (and missing parent directories) or \
         replacing it entirely.\n\
         \n\
         - To replace an existing file you must have read it with Read in this conversation, and \
           it must not have changed since; otherwise the write is refused and you should Read it \
           again.\n\
         - For changes to part of an existing file prefer Edit: it sends only the changed text.\n\
         - Do not create documentation or README files unless the user asked for them.\n\
         - The write is atomic: readers see the old file or the new one, never a mix.\n\
         - The result names the absolute path and the line count (\"Created … (12 lines).\"); \
           the file holds exactly the content you sent, so there is no need to Read it back."
            .into()
    }
    fn is_read_only(&self, _: &WriteInput) -> bool {
        false
    }
    fn is_concurrency_safe(&self, _: &WriteInput) -> bool {
        false
    }
    async fn validate_input(&self, input: &WriteInput, _: &ToolContext) -> Result<(), ToolError> {
        if input.file_path.trim().is_empty() {
            return Err(ToolError::invalid(
                "file_path is empty: give the path of the file to write.",
            ));
        }
        Ok(())
    }
    fn access(&self, input: &WriteInput, ctx: &ToolContext) -> Access {
        Access::Write {
            path: ctx.resolve(&input.file_path),
        }
    }
    fn summary(&self, input: &WriteInput) -> String {
        format!("Write({})", input.file_path)
    }
    async fn call(&self, input: WriteInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = ctx.resolve(&input.file_path);
        if path.is_dir() {
            return Err(ToolError::failed(format!(
                "{} is a directory; give the path of a file inside it.",
                path.display()
            )));
        }
        refuse_special_file(&path, tool_names::WRITE)?;
        let old = match safe_fs::read_bounded(&path, MAX_EDIT_FILE_BYTES) {
            Ok(bytes) => {
                ensure_fresh(ctx, &path)?;
                Previous::Text(String::from_utf8_lossy(&bytes).into_owned())
            }
            Err(e) if e.is_not_found() => Previous::None,
            Err(SafeReadError::TooLarge { size, .. }) => {
                ensure_fresh(ctx, &path)?;
                Previous::TooLarge(size)
            }
            Err(e) => {
                return Err(ToolError::failed(format!(
                    "Could not read the existing {}: {e}.",
                    path.display()
                )));
            }
        };
        let editor = ctx.values.get::<EditorFs>();
        write_text(editor, &path, &input.content)
            .await
            .map_err(|e| write_error(&path, &e))?;
        ctx.record_read(&path);

        let lines = input.content.lines().count();
        let shown = path.display();
        Ok(match old {
            Previous::None => ToolOutput::text(format!("Created {shown} ({lines} lines)."))
                .with_display(format!(
                    "Created {shown} ({lines} lines)\n{}",
                    preview(&input.content)
                )),
            Previous::Text(old) => ToolOutput::text(format!("Wrote {shown} ({lines} lines)."))
                .with_display(unified_diff(&path, &old, &input.content)),
            Previous::TooLarge(size) => ToolOutput::text(format!("Wrote {shown} ({lines} lines)."))
                .with_display(format!(
                    "Replaced {shown} (it was {}; too large to show a diff)",
                    super::media::human_size(size)
                )),
        })
    }
}

/// The most of an existing file Write, Edit and NotebookEdit load into
/// memory (Edit and NotebookEdit refuse larger files; Write replaces them
/// without a diff).
pub(crate) const MAX_EDIT_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// What the file looked like before a Write.
enum Previous {
    None,
    Text(String),
    TooLarge(u64),
}

/// Refuses to write over a FIFO, device or socket (the rename would replace
/// the node itself, or fail in a system directory). `tool` names the
/// caller in the message.
pub(crate) fn refuse_special_file(path: &Path, tool: &str) -> Result<(), ToolError> {
    match safe_fs::special_file_kind(path) {
        Some(kind) if kind != "a directory" => Err(ToolError::failed(format!(
            "{} is {kind}, not a regular file. {tool} only changes regular files.",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// The stale-write guard: `path` (which exists) must have been read in this
/// session and be unchanged since (same mtime and size).
pub(crate) fn ensure_fresh(ctx: &ToolContext, path: &Path) -> Result<(), ToolError> {
    let Some(read) = ctx.read_stamp(path) else {
        return Err(ToolError::failed(format!(
            "{} has not been read in this conversation. Read it first, then try again.",
            path.display()
        )));
    };
    if FileStamp::of(path) != Some(read) {
        return Err(ToolError::failed(format!(
            "{} has changed since you last read it (by the user, a command or another tool). \
             Read it again and redo your change on the current content.",
            path.display()
        )));
    }
    Ok(())
}

pub(crate) fn write_error(path: &Path, e: &std::io::Error) -> ToolError {
    ToolError::failed(format!(
        "Could not write {}: {e}. The file was left unchanged.",
        path.display()
    ))
}

/// A compact unified diff (3 lines of context) for the user.
pub(crate) fn unified_diff(path: &Path, old: &str, new: &str) -> String {
    let name = path.display().to_string();
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string()
}

/// The first lines of a new file, for the user's display.
fn preview(content: &str) -> String {
    const MAX_LINES: usize = 20;
    let mut s = content
        .lines()
        .take(MAX_LINES)
        .collect::<Vec<_>>()
        .join("\n");
    let more = content.lines().count().saturating_sub(MAX_LINES);
    if more > 0 {
        s.push_str(&format!("\n… {more} more lines"));
    }
    s
}

#[cfg(test)]
mod tests {
    use std::fs;

    use serde_json::json;

    use super::*;
    use crate::tools::read::ReadTool;
    use crate::tools::test_support::{ctx, run, run_err};

    #[tokio::test]
    async fn creates_new_file_with_parents() {
        let dir = tempfile::tempdir().unwrap();
        let c = ctx(dir.path());
        let out = run(
            WriteTool,
            &c,
            json!({"file_path": "deep/er/new.rs", "content": "fn main() {}\n"}),
        )
        .await
        .unwrap();
        let path = dir.path().join("deep/er/new.rs");
        assert_eq!(fs::read_to_string(&path).unwrap(), "fn main() {}\n");
        assert!(out.content.starts_with("Created "));
        assert!(out.display.unwrap().contains("fn main() {}"));
        // The write counts as a read: a follow-up overwrite needs no Read.
        assert_eq!(c.read_stamp(&path), FileStamp::of(&path));
    }

    /// After Bash moved its directory, the permission check and the write
    /// both take a relative path from the project root.
    #[tokio::test]
    async fn relative_paths_ignore_bashs_directory() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        let c = ctx(dir.path());
        c.set_cwd(dir.path().join("sub"));
        let input = json!({"file_path": "notes.md", "content": "x\n"});
        let parsed: WriteInput = serde_json::from_value(input.clone()).unwrap();
        let expected = c.project_root.join("notes.md");
        assert!(matches!(
            WriteTool.access(&parsed, &c),
            Access::Write { path, .. } if path == expected
        ));
        run(WriteTool, &c, input).await.unwrap();
        assert_eq!(fs::read_to_string(&expected).unwrap(), "x\n");
        assert!(!dir.path().join("sub/notes.md").exists());
    }

    #[tokio::test]
    async fn overwrite_requires_prior_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "old\n").unwrap();
        let c = ctx(dir.path());
        let err = run_err(
            WriteTool,
            &c,
            json!({"file_path": "f.txt", "content": "new\n"}),
        )
        .await;
        assert!(err.contains("has not been read"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\n");

        run(ReadTool, &c, json!({"file_path": "f.txt"}))
            .await
            .unwrap();
        let out = run(
            WriteTool,
            &c,
            json!({"file_path": "f.txt", "content": "new\n"}),
        )
        .await
        .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        let diff = out.display.unwrap();
        assert!(diff.contains("-old") && diff.contains("+new"), "{diff}");
    }

    #[tokio::test]
    async fn overwrite_refused_when_changed_since_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "v1\n").unwrap();
        let c = ctx(dir.path());
        run(ReadTool, &c, json!({"file_path": "f.txt"}))
            .await
            .unwrap();
        // Someone else changes the file (size differs, so the stamp differs
        // even on filesystems with coarse mtimes).
        fs::write(&path, "changed by the user\n").unwrap();
        let err = run_err(WriteTool, &c, json!({"file_path": "f.txt", "content": "x"})).await;
        assert!(err.contains("has changed since you last read it"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "changed by the user\n");
    }

    #[tokio::test]
    async fn directory_target_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("d")).unwrap();
        let err = run_err(
            WriteTool,
            &ctx(dir.path()),
            json!({"file_path": "d", "content": "x"}),
        )
        .await;
        assert!(err.contains("is a directory"), "{err}");
    }

    #[tokio::test]
    async fn special_files_are_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let c = ctx(dir.path());
        crate::safe_fs::mkfifo(&dir.path().join("pipe"));
        let err = run_err(WriteTool, &c, json!({"file_path": "pipe", "content": "x"})).await;
        assert!(err.contains("FIFO"), "{err}");
        assert!(crate::safe_fs::special_file_kind(&dir.path().join("pipe")).is_some());
        // A link to a device would otherwise have the device node replaced.
        std::os::unix::fs::symlink("/dev/null", dir.path().join("null")).unwrap();
        let err = run_err(WriteTool, &c, json!({"file_path": "null", "content": "x"})).await;
        assert!(err.contains("character device"), "{err}");
    }

    #[tokio::test]
    async fn a_file_over_the_size_cap_is_replaced_without_a_diff() {
        let dir = tempfile::tempdir().unwrap();
        let c = ctx(dir.path());
        let path = dir.path().join("big.bin");
        let f = fs::File::create(&path).unwrap();
        f.set_len(MAX_EDIT_FILE_BYTES + 1).unwrap();
        drop(f);
        c.record_read(&path);
        let out = run(
            WriteTool,
            &c,
            json!({"file_path": "big.bin", "content": "small now\n"}),
        )
        .await
        .unwrap();
        assert!(out.content.contains("Wrote"), "{}", out.content);
        assert!(
            out.display
                .as_deref()
                .unwrap_or_default()
                .contains("too large to show a diff"),
            "{:?}",
            out.display
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "small now\n");
    }

    #[test]
    fn writer_flags() {
        let input = WriteInput {
            file_path: "a".into(),
            content: String::new(),
        };
        assert!(!WriteTool.is_read_only(&input));
        assert!(!WriteTool.is_concurrency_safe(&input));
        let c = ctx(Path::new("/tmp"));
        assert_eq!(
            WriteTool.access(&input, &c),
            Access::Write {
                path: Path::new("/tmp/a").to_path_buf()
            }
        );
    }
}
