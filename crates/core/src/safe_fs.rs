//! Opening and reading files whose type and size catui does not control
//! (the model's paths, a repository's settings and agent files), without
//! letting a hostile path hang or exhaust the process.
//!
//! Only regular files are opened. The type is checked twice: with a
//! symlink-following `stat` before opening (so a FIFO, a device or a socket
//! is refused without touching it), and with `fstat` on the opened
//! descriptor (so a path swapped for a FIFO in between is caught too). The
//! open itself is non-blocking, so even that race cannot block on a FIFO
//! with no writer. Reads are bounded: callers say how many bytes they will
//! hold at most.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SafeReadError {
    /// Opening or reading failed (missing file, permissions, IO error).
    #[error("{}", io_message(path, source))]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The path exists but is not a regular file.
    #[error("{} is {kind}, not a regular file", path.display())]
    NotRegular { path: PathBuf, kind: &'static str },
    /// The file is larger than the caller will hold.
    #[error(
        "{} is too large ({} bytes; at most {limit} bytes are read)",
        path.display(),
        size
    )]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
}

fn io_message(path: &Path, source: &io::Error) -> String {
    format!("cannot read {}: {source}", path.display())
}

impl SafeReadError {
    /// Whether the file does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, SafeReadError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }

    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            SafeReadError::Io { path, .. }
            | SafeReadError::NotRegular { path, .. }
            | SafeReadError::TooLarge { path, .. } => path,
        }
    }
}

/// What kind of non-regular file `meta` describes, in words; `None` for a
/// regular file.
pub fn non_regular_kind(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("a special file")
    }
}

/// The kind of the non-regular file at `path` (symlinks followed); `None`
/// when it is a regular file or does not exist.
pub fn special_file_kind(path: &Path) -> Option<&'static str> {
    std::fs::metadata(path)
        .ok()
        .and_then(|m| non_regular_kind(&m))
}

/// Opens `path` for reading if, and only if, it is a regular file.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), SafeReadError> {
    let io = |source| SafeReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let before = std::fs::metadata(path).map_err(io)?;
    if let Some(kind) = non_regular_kind(&before) {
        return Err(SafeReadError::NotRegular {
            path: path.to_path_buf(),
            kind,
        });
    }
    open_walked_regular(path)
}

/// [`open_regular`] for a path a directory walk has just reported as a
/// regular file (from the directory entry itself): no `stat` before the
/// open, which on a million-file search is a million system calls. The
/// open cannot block and the `fstat` after it still refuses anything that
/// is not a regular file.
pub fn open_walked_regular(path: &Path) -> Result<(File, Metadata), SafeReadError> {
    let io = |source| SafeReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    // O_NONBLOCK: a FIFO swapped in after the stat opens at once instead of
    // waiting for a writer (and is refused below). It changes nothing for
    // regular files. O_NOCTTY: a terminal device never becomes ours.
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if let Some(kind) = non_regular_kind(&meta) {
        return Err(SafeReadError::NotRegular {
            path: path.to_path_buf(),
            kind,
        });
    }
    Ok((file, meta))
}

/// Reads the whole regular file at `path` if it holds at most `limit`
/// bytes. The limit is enforced on the bytes read, not only on the size
/// `stat` reported, so a file that grows while being read is cut off too.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, SafeReadError> {
    let (file, meta) = open_regular(path)?;
    let too_large = |size| SafeReadError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit,
    };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| SafeReadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read_bounded`] as text; invalid UTF-8 is replaced.
pub fn read_text_bounded(path: &Path, limit: u64) -> Result<String, SafeReadError> {
    let bytes = read_bounded(path, limit)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// [`read_bounded`] that treats a missing file as `None`.
pub fn read_text_if_exists(path: &Path, limit: u64) -> Result<Option<String>, SafeReadError> {
    match read_text_bounded(path, limit) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Creates a FIFO at `path` (tests of the refusal paths).
#[cfg(test)]
#[allow(clippy::unwrap_used, unsafe_code)]
pub(crate) fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo has no other preconditions.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
    assert_eq!(rc, 0, "mkfifo failed: {}", io::Error::last_os_error());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "hello").unwrap();
        assert_eq!(read_bounded(&p, 5).unwrap(), b"hello");
        let err = read_bounded(&p, 4).unwrap_err();
        assert!(
            matches!(err, SafeReadError::TooLarge { size: 5, .. }),
            "{err}"
        );
    }

    #[test]
    fn fifos_and_devices_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        mkfifo(&fifo);
        let err = read_bounded(&fifo, 100).unwrap_err();
        assert!(err.to_string().contains("FIFO"), "{err}");
        let link = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let err = read_bounded(&link, 100).unwrap_err();
        assert!(err.to_string().contains("character device"), "{err}");
        assert_eq!(special_file_kind(&fifo), Some("a FIFO (named pipe)"));
        assert_eq!(special_file_kind(&dir.path().join("absent")), None);
    }

    #[test]
    fn missing_files_are_none_or_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("absent");
        assert!(read_text_if_exists(&p, 10).unwrap().is_none());
        assert!(read_bounded(&p, 10).unwrap_err().is_not_found());
    }
}
