//! Atomic file replacement for the writing tools (Write, Edit,
//! NotebookEdit): the new content goes to a temporary file in the target's
//! directory and is renamed over the target, so a reader (or a crash) sees
//! either the old file or the new one, never half of each.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes temp files of concurrent writes within one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replaces (or creates) the file at `path` with `bytes` atomically.
///
/// Missing parent directories are created. An existing file keeps its
/// permission bits. When `path` is a symlink, the file it points to is
/// replaced and the link is kept.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |file| file.write_all(bytes))
}

/// Like [`write_atomic`], with the content produced by `fill` writing into
/// the temporary file. If `fill` fails, the temporary file is removed and
/// the target is left exactly as it was.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let target = resolve_symlink(path);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir)?;
    let old_permissions = fs::metadata(&target).ok().map(|m| m.permissions());

    let (tmp_path, mut file) = create_temp_beside(&dir, &target)?;
    let result = (|| {
        fill(&mut file)?;
        file.flush()?;
        if let Some(perms) = old_permissions {
            file.set_permissions(perms)?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp_path, &target)
    })();
    if result.is_err() {
        // Best effort: the temp file is ours and useless now.
        let _ = fs::remove_file(&tmp_path);
    }
    result
}

/// Follows a symlink at `path` so the rename replaces the link's target and
/// not the link itself. A dangling or non-link path is returned unchanged.
fn resolve_symlink(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

fn create_temp_beside(dir: &Path, target: &Path) -> io::Result<(PathBuf, File)> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string());
    let pid = std::process::id();
    // A few attempts in case a stale temp file of a crashed run has the name.
    for _ in 0..16 {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.catui-tmp-{pid}-{n}"));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "could not create a temporary file in {} (names already taken)",
            dir.display()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn creates_file_and_parent_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/c.txt");
        write_atomic(&path, b"hello").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"hello");
    }

    #[test]
    fn replaces_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(entries(dir.path()), vec!["f.txt"]);
    }

    #[test]
    fn failed_write_leaves_old_file_intact_and_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "precious").unwrap();
        let err = write_atomic_with(&path, |f| {
            f.write_all(b"half of the new con")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(fs::read_to_string(&path).unwrap(), "precious");
        assert_eq!(entries(dir.path()), vec!["f.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn preserves_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.sh");
        fs::write(&path, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o751)).unwrap();
        write_atomic(&path, b"#!/bin/sh\necho hi\n").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o751);
    }

    #[cfg(unix)]
    #[test]
    fn writes_through_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
    }
}
