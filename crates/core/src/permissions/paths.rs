//! Path canonicalisation for permission decisions.
//!
//! Every path a decision looks at goes through [`canonicalize`], so that
//! `..`, `.`, symlinks (also dangling ones, whose link text is followed) and
//! not-yet-created files all resolve to the one name the kernel would use.
//! Comparisons go through [`same_path`] and [`is_within`], which fold case
//! only on platforms whose default filesystems are case-insensitive.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// How many symlinks one resolution may follow before giving up (the
/// kernel's own limit is 40).
const MAX_SYMLINK_HOPS: usize = 40;

/// Why a path could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("too many levels of symbolic links while resolving {0}")]
    SymlinkLoop(PathBuf),
}

/// Resolves `path` (relative paths against `base`) to its canonical form:
/// symlinks followed, `.` and `..` removed. Components that do not exist yet
/// are kept as written below the deepest existing (canonical) ancestor, so
/// a file about to be created gets its canonical parent plus its name.
///
/// A dangling symlink resolves to where its link text points, because
/// writing through it would create that target.
pub fn canonicalize(path: &Path, base: &Path) -> Result<PathBuf, PathError> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    // Components still to resolve, in reverse so that `pop` takes the next.
    let mut pending: Vec<OsString> = Vec::new();
    let mut resolved = PathBuf::new();
    push_components(&absolute, &mut pending, &mut resolved);
    let mut hops = 0usize;
    // Once a component is missing, nothing below it can be a symlink.
    let mut missing = false;
    while let Some(part) = pending.pop() {
        if part == ".." {
            resolved.pop();
            // Back in a directory that may exist: what follows is checked
            // for symlinks again (`missing/../link/x` goes through `link`).
            missing = false;
            continue;
        }
        if part == "." {
            continue;
        }
        let candidate = resolved.join(&part);
        if missing {
            resolved = candidate;
            continue;
        }
        match std::fs::symlink_metadata(&candidate) {
            Ok(meta) if meta.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(PathError::SymlinkLoop(absolute));
                }
                match std::fs::read_link(&candidate) {
                    Ok(target) => {
                        // Resolve the link text relative to the link's
                        // directory (`resolved`), or from the root.
                        let mut rest = Vec::new();
                        push_components(&target, &mut rest, &mut resolved);
                        // `rest` is reversed; it must be resolved before
                        // whatever was pending after the link.
                        pending.extend(rest);
                    }
                    Err(_) => resolved = candidate,
                }
            }
            Ok(_) => resolved = candidate,
            Err(_) => {
                missing = true;
                resolved = candidate;
            }
        }
    }
    if resolved.as_os_str().is_empty() {
        resolved.push(Component::RootDir.as_os_str());
    }
    Ok(resolved)
}

/// Splits `path` into components pushed (reversed) onto `pending`; an
/// absolute path resets `resolved` to its root (and prefix on Windows).
fn push_components(path: &Path, pending: &mut Vec<OsString>, resolved: &mut PathBuf) {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Prefix(p) => {
                *resolved = PathBuf::from(p.as_os_str());
                parts.clear();
            }
            Component::RootDir => {
                // Keep a drive prefix (Windows) met earlier; reset the rest.
                let prefix = match resolved.components().next() {
                    Some(Component::Prefix(p)) => PathBuf::from(p.as_os_str()),
                    _ => PathBuf::new(),
                };
                *resolved = prefix;
                resolved.push(Component::RootDir.as_os_str());
                parts.clear();
            }
            Component::CurDir => {}
            Component::ParentDir => parts.push(OsString::from("..")),
            Component::Normal(name) => parts.push(name.to_os_string()),
        }
    }
    pending.extend(parts.into_iter().rev());
}

/// Makes `path` absolute against `base` and removes `.` and `..` by text
/// alone, without touching the filesystem: the name as the caller wrote it.
pub fn normalize_lexically(path: &Path, base: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Canonicalises only the parent of `path` and keeps its final name as
/// written: the name the file would be opened by, even when that final
/// component is itself a symlink. Used for the plan file, whose exception
/// must not follow a symlink planted under its name.
pub fn canonicalize_parent(path: &Path, base: &Path) -> Result<PathBuf, PathError> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => Ok(canonicalize(parent, base)?.join(name)),
        _ => canonicalize(&absolute, base),
    }
}

/// Whether the path text ends with a separator (`plan.md/`): such a name
/// means a directory, never the file of the same name.
pub fn has_trailing_separator(path: &Path) -> bool {
    let text = path.as_os_str().to_string_lossy();
    text.len() > 1 && (text.ends_with('/') || (cfg!(windows) && text.ends_with('\\')))
}

/// Whether the platform's default filesystems compare names without case.
pub const CASE_INSENSITIVE_FS: bool = cfg!(any(target_os = "macos", target_os = "windows"));

fn fold(path: &Path) -> OsString {
    if CASE_INSENSITIVE_FS {
        OsString::from(path.to_string_lossy().to_lowercase())
    } else {
        path.as_os_str().to_os_string()
    }
}

/// Whether two canonical paths name the same file on this platform.
pub fn same_path(a: &Path, b: &Path) -> bool {
    fold(a) == fold(b)
}

/// Whether canonical `path` is `dir` or lies below it.
pub fn is_within(path: &Path, dir: &Path) -> bool {
    if CASE_INSENSITIVE_FS {
        Path::new(&fold(path)).starts_with(Path::new(&fold(dir)))
    } else {
        path.starts_with(dir)
    }
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    fn real(p: &Path) -> PathBuf {
        std::fs::canonicalize(p).unwrap()
    }

    #[test]
    fn dot_dot_and_dot_are_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let root = real(dir.path());
        std::fs::create_dir(root.join("a")).unwrap();
        let got = canonicalize(Path::new("a/./../a/../plan.md"), &root).unwrap();
        assert_eq!(got, root.join("plan.md"));
    }

    #[test]
    fn missing_files_get_canonical_parent() {
        let dir = tempfile::tempdir().unwrap();
        let root = real(dir.path());
        std::fs::create_dir(root.join("real")).unwrap();
        symlink(root.join("real"), root.join("link")).unwrap();
        let got = canonicalize(&root.join("link/new/file.txt"), &root).unwrap();
        assert_eq!(got, root.join("real/new/file.txt"));
        // `..` below a missing directory is lexical (nothing there to follow).
        let got = canonicalize(&root.join("link/new/../x"), &root).unwrap();
        assert_eq!(got, root.join("real/x"));
    }

    #[test]
    fn symlink_to_outside_resolves_outside() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = real(dir.path());
        symlink(real(outside.path()), root.join("escape")).unwrap();
        let got = canonicalize(&root.join("escape/secret"), &root).unwrap();
        assert_eq!(got, real(outside.path()).join("secret"));
        assert!(!is_within(&got, &root));
    }

    #[test]
    fn dangling_symlink_follows_link_text() {
        let dir = tempfile::tempdir().unwrap();
        let root = real(dir.path());
        symlink("sub/target.txt", root.join("dangling")).unwrap();
        let got = canonicalize(&root.join("dangling"), &root).unwrap();
        assert_eq!(got, root.join("sub/target.txt"));
        symlink("/etc/passwd-not-here", root.join("abs")).unwrap();
        let got = canonicalize(&root.join("abs"), &root).unwrap();
        assert_eq!(got, PathBuf::from("/etc/passwd-not-here"));
    }

    #[test]
    fn relative_link_with_dot_dot_is_relative_to_link_dir() {
        let dir = tempfile::tempdir().unwrap();
        let root = real(dir.path());
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        symlink("../c.txt", root.join("a/b/link")).unwrap();
        let got = canonicalize(&root.join("a/b/link"), &root).unwrap();
        assert_eq!(got, root.join("a/c.txt"));
    }

    /// Regression: after `..` climbed out of a missing directory, a later
    /// symlink was kept as a plain name, so `new/../link/x` looked inside
    /// the project while creating `new` and writing through `link` lands
    /// outside.
    #[test]
    fn a_symlink_after_dot_dot_out_of_a_missing_directory_is_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = real(dir.path());
        let outside = tempfile::tempdir().unwrap();
        let outside = real(outside.path());
        symlink(&outside, root.join("link")).unwrap();
        let got = canonicalize(Path::new("new/../link/x"), &root).unwrap();
        assert_eq!(got, outside.join("x"));
    }

    #[test]
    fn symlink_loops_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let root = real(dir.path());
        symlink(root.join("b"), root.join("a")).unwrap();
        symlink(root.join("a"), root.join("b")).unwrap();
        assert!(matches!(
            canonicalize(&root.join("a/x"), &root),
            Err(PathError::SymlinkLoop(_))
        ));
    }

    #[test]
    fn parent_only_keeps_a_symlinked_final_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = real(dir.path());
        symlink(root.join("elsewhere"), root.join("plan.md")).unwrap();
        assert_eq!(
            canonicalize_parent(&root.join("plan.md"), &root).unwrap(),
            root.join("plan.md")
        );
        assert_eq!(
            canonicalize(&root.join("plan.md"), &root).unwrap(),
            root.join("elsewhere")
        );
    }

    #[test]
    fn lexical_normalisation_does_not_follow_links() {
        let got = normalize_lexically(Path::new("a/../b/./c"), Path::new("/base"));
        assert_eq!(got, PathBuf::from("/base/b/c"));
        assert_eq!(
            normalize_lexically(Path::new("/../x"), Path::new("/base")),
            PathBuf::from("/x")
        );
    }

    #[test]
    fn trailing_separators_and_case() {
        assert!(has_trailing_separator(Path::new("/x/plan.md/")));
        assert!(!has_trailing_separator(Path::new("/x/plan.md")));
        assert!(!has_trailing_separator(Path::new("/")));
        if !CASE_INSENSITIVE_FS {
            assert!(!same_path(Path::new("/x/PLAN.md"), Path::new("/x/plan.md")));
        }
        assert!(is_within(Path::new("/a/b/c"), Path::new("/a/b")));
        assert!(!is_within(Path::new("/a/bc"), Path::new("/a/b")));
    }
}
