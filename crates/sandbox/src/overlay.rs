//! Dry runs: the working directories seen through copy-on-write overlays
//! whose upper layers live in a scratch area, so that a command may build,
//! test and delete freely while the real tree stays byte-identical.
//!
//! The kernel mounts overlayfs for an unprivileged user inside its own user
//! and mount namespaces (Linux ≥ 5.11), so the inner stage does it: it
//! starts inside bubblewrap's namespaces still holding the capabilities of
//! its own user namespace, mounts one overlay on each directory (lower: the
//! directory as it is, read-only; upper and work: beneath the scratch area),
//! covers the secret stores again (an overlay shows its lower layer without
//! the mounts bubblewrap put over it), and only then applies Landlock and
//! seccomp and drops every capability. The mounts end with the namespaces,
//! so a killed catui leaves none behind.
//!
//! The scratch area is plain files on disk: it outlives one command (a
//! build, then the tests, see each other's output), and [`Changes`] reads
//! what a command did to the copy from it (added, modified, deleted files:
//! an upper-layer file shadows or adds, a `0/0` character device is a
//! whiteout that deletes).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One overlaid directory: where it is mounted and where its layers live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// The directory the command sees through the overlay (canonical).
    pub target: PathBuf,
    /// Its upper layer: everything the command changed.
    pub upper: PathBuf,
    /// overlayfs's own work directory (same file system as `upper`).
    pub work: PathBuf,
}

/// The overlays of `dirs` with layers beneath `scratch`: one per directory
/// not inside another one (whose overlay already covers it), each with a
/// name derived from its path so that every call of a session finds the
/// same upper layer again.
pub fn layout(scratch: &Path, dirs: &[PathBuf]) -> Vec<Layer> {
    let mut outer: Vec<&PathBuf> = Vec::new();
    for dir in dirs {
        if dirs.iter().any(|d| d != dir && dir.starts_with(d)) || outer.contains(&dir) {
            continue;
        }
        outer.push(dir);
    }
    outer
        .into_iter()
        .map(|target| {
            let name = layer_name(target);
            Layer {
                target: target.clone(),
                upper: scratch.join(&name).join("upper"),
                work: scratch.join(&name).join("work"),
            }
        })
        .collect()
}

/// A stable name for `dir`'s layers: its last component (readable) and a
/// hash of the whole path (unique).
fn layer_name(dir: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    // FNV-1a: stable across runs and builds, unlike std's hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in dir.as_os_str().as_bytes() {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let last: String = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "root".into())
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(32)
        .collect();
    format!("{last}-{hash:016x}")
}

/// Why `dir` cannot be overlaid with layers beneath `scratch`, if it
/// cannot: overlayfs refuses layers inside one another, and its option
/// string cannot carry some characters.
pub fn unusable(dir: &Path, scratch: &Path) -> Option<String> {
    if scratch.starts_with(dir) || dir.starts_with(scratch) {
        return Some(format!(
            "the scratch area {} and {} contain one another",
            scratch.display(),
            dir.display()
        ));
    }
    for p in [dir, scratch] {
        let text = p.to_string_lossy();
        if text.contains([',', ':', '\\', '\n']) || !p.is_absolute() {
            return Some(format!(
                "{} has a character overlayfs cannot take in a path (`,` `:` `\\`)",
                p.display()
            ));
        }
    }
    None
}

/// Mounts the overlays of `layers` and covers `hidden` again inside them.
/// Run by the inner stage inside its namespaces, before any restriction;
/// then moves the process's working directory onto the overlay (it still
/// points at the directory beneath otherwise).
#[cfg(target_os = "linux")]
pub fn mount(layers: &[Layer], hidden: &[PathBuf]) -> Result<(), String> {
    for layer in layers {
        for dir in [&layer.upper, &layer.work] {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create the dry run's layer {}: {e}", dir.display()))?;
        }
        let options = format!(
            "lowerdir={},upperdir={},workdir={},userxattr",
            layer.target.display(),
            layer.upper.display(),
            layer.work.display()
        );
        sys_mount(
            Some("overlay"),
            &layer.target,
            Some("overlay"),
            0,
            Some(&options),
        )
        .map_err(|e| {
            format!(
                "cannot mount the dry run's overlay on {}: {e}",
                layer.target.display()
            )
        })?;
    }
    for path in hidden {
        if !layers.iter().any(|l| path.starts_with(&l.target)) {
            continue;
        }
        let covered = match std::fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => sys_mount(
                Some("tmpfs"),
                path,
                Some("tmpfs"),
                libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
                Some("size=4k,mode=0500"),
            ),
            Ok(_) => sys_mount(Some("/dev/null"), path, None, libc::MS_BIND, None),
            Err(_) => Ok(()),
        };
        covered.map_err(|e| {
            format!(
                "cannot cover the secret store {} in the dry run: {e}",
                path.display()
            )
        })?;
    }
    if let Ok(cwd) = std::env::current_dir() {
        std::env::set_current_dir(&cwd).map_err(|e| {
            format!(
                "cannot enter {} through the dry run's overlay: {e}",
                cwd.display()
            )
        })?;
    }
    Ok(())
}

#[cfg(target_os = "linux")]
fn sys_mount(
    source: Option<&str>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |s: &str| CString::new(s).map_err(|_| std::io::ErrorKind::InvalidInput);
    let source = source.map(c).transpose()?;
    let fstype = fstype.map(c).transpose()?;
    let data = data.map(c).transpose()?;
    let target = CString::new(target.as_os_str().as_bytes())
        .map_err(|_| std::io::ErrorKind::InvalidInput)?;
    let ptr = |s: &Option<CString>| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
    // SAFETY: every pointer is a NUL-terminated string that outlives the
    // call, or null where mount(2) accepts null.
    #[allow(unsafe_code)]
    let rc = unsafe {
        libc::mount(
            ptr(&source),
            target.as_ptr(),
            ptr(&fstype),
            flags,
            ptr(&data).cast(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// One entry of an upper layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    /// A file, link or other non-directory the command wrote: its size
    /// and change time (a rewrite changes them).
    File { size: u64, ctime: (i64, i64) },
    /// A whiteout: the path was deleted in the copy.
    Whiteout,
}

/// What the upper layers held at one moment: every non-directory entry by
/// its path in the real tree, and their total size.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    entries: BTreeMap<PathBuf, Entry>,
    /// Bytes the upper layers take (file sizes, roughly).
    pub bytes: u64,
}

impl Snapshot {
    /// Reads the upper layers of `layers` (missing ones are empty).
    pub fn take(layers: &[Layer]) -> Snapshot {
        let mut snap = Snapshot::default();
        for layer in layers {
            walk(&layer.upper, &layer.target, &mut snap);
        }
        snap
    }

    /// Every path (in the real tree) the upper layers change: written,
    /// added or deleted in the copy.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.entries.keys().map(PathBuf::as_path)
    }
}

fn walk(dir: &Path, real: &Path, snap: &mut Snapshot) {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in read.flatten() {
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let real_path = real.join(entry.file_name());
        if meta.is_dir() {
            snap.bytes += meta.len();
            walk(&entry.path(), &real_path, snap);
        } else if meta.file_type().is_char_device() && meta.rdev() == 0 {
            snap.entries.insert(real_path, Entry::Whiteout);
        } else {
            snap.bytes += meta.len();
            snap.entries.insert(
                real_path,
                Entry::File {
                    size: meta.len(),
                    ctime: (meta.ctime(), meta.ctime_nsec()),
                },
            );
        }
    }
}

/// What one command changed in the copy, by path in the real tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    pub added: Vec<PathBuf>,
    pub modified: Vec<PathBuf>,
    pub deleted: Vec<PathBuf>,
}

impl Changes {
    /// The difference between the upper layers `before` and `after` a
    /// command; whether a path is new is judged against the real tree
    /// (which the dry run cannot have changed).
    pub fn between(before: &Snapshot, after: &Snapshot) -> Changes {
        let mut changes = Changes::default();
        let in_real = |p: &Path| std::fs::symlink_metadata(p).is_ok();
        for (path, now) in &after.entries {
            let was = before.entries.get(path);
            match (was, now) {
                (Some(w), n) if w == n => {}
                (_, Entry::Whiteout) => changes.deleted.push(path.clone()),
                (Some(Entry::File { .. }), Entry::File { .. }) => {
                    changes.modified.push(path.clone())
                }
                (Some(Entry::Whiteout), Entry::File { .. }) => changes.added.push(path.clone()),
                (None, Entry::File { .. }) if in_real(path) => changes.modified.push(path.clone()),
                (None, Entry::File { .. }) => changes.added.push(path.clone()),
            }
        }
        for (path, was) in &before.entries {
            if !after.entries.contains_key(path) && matches!(was, Entry::File { .. }) {
                changes.deleted.push(path.clone());
            }
        }
        changes
    }

    /// How many paths changed.
    pub fn len(&self) -> usize {
        self.added.len() + self.modified.len() + self.deleted.len()
    }

    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Removes a scratch area: directories a command made unreadable
/// (`chmod 000`) and overlayfs's own mode-0 work directory are opened up
/// on the way.
pub fn remove(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
        Ok(m) if !m.is_dir() => return std::fs::remove_file(dir),
        Ok(_) => {}
    }
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    for entry in std::fs::read_dir(dir)?.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => remove(&path)?,
            _ => std::fs::remove_file(&path)?,
        }
    }
    std::fs::remove_dir(dir)
}

#[cfg(test)]
#[path = "overlay_tests.rs"]
mod tests;
