//! Which paths may have changed since the last snapshot, from the kernel's
//! file notifications (inotify, Linux): a snapshot then asks git about
//! those paths only, or skips git entirely when nothing changed, instead
//! of an `lstat` of every file of the project. The work tree's folders are
//! watched from the first snapshot on (folders `.gitignore` excludes and
//! `.git` are not); folders created later are watched as they appear, and
//! named as changed so files made in them before the watch are seen.
//!
//! Whenever it cannot be sure — the kernel's queue overflowed, a folder
//! could not be watched, more folders than [`MAX_WATCHED_DIRS`], another
//! system — it says [`Changes::Unknown`] and the caller scans everything.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::sync::lock;

/// Projects with more folders than this are scanned, not watched.
pub const MAX_WATCHED_DIRS: usize = 20_000;

/// More changed paths than this are scanned as a whole.
pub const MAX_CHANGED_PATHS: usize = 500;

/// What changed since the last [`Watch::take_changes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changes {
    /// Nothing in the watched folders.
    Nothing,
    /// These paths (relative to the project; folders for whole subtrees).
    Paths(BTreeSet<PathBuf>),
    /// Unknown: scan everything.
    Unknown,
}

/// The project's folders under watch.
pub struct Watch {
    #[cfg(target_os = "linux")]
    fd: rustix::fd::OwnedFd,
    root: PathBuf,
    /// The root `.gitignore` and `.git/info/exclude`: folders they exclude
    /// are not watched when they appear (`target/` after a clean build).
    ignored: ignore::gitignore::Gitignore,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Watch descriptor → folder, relative to the root.
    dirs: HashMap<i32, PathBuf>,
    /// Something was missed since the last take: scan everything.
    lost: bool,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch").field("root", &self.root).finish()
    }
}

/// The folders of `root` git would look into: `.gitignore`d ones and
/// `.git` are left out. `None` past [`MAX_WATCHED_DIRS`] (the walk stops
/// there: a home directory is not walked to its end).
fn folders(root: &Path) -> Option<Vec<PathBuf>> {
    let walk = ignore::WalkBuilder::new(root)
        .hidden(false)
        .parents(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    let mut out = Vec::new();
    for entry in walk.flatten() {
        if entry.file_type().is_some_and(|t| t.is_dir()) {
            if out.len() == MAX_WATCHED_DIRS {
                return None;
            }
            out.push(entry.into_path());
        }
    }
    Some(out)
}

#[cfg(target_os = "linux")]
mod linux {
    use rustix::fs::inotify::{self, ReadFlags, WatchFlags};

    pub(super) fn flags() -> WatchFlags {
        WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MODIFY
            | WatchFlags::CLOSE_WRITE
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::ATTRIB
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR
            | WatchFlags::DONT_FOLLOW
            | WatchFlags::EXCL_UNLINK
    }

    pub(super) fn is_new_dir(events: ReadFlags) -> bool {
        events.contains(ReadFlags::ISDIR)
            && events.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO)
    }

    pub(super) fn lost(events: ReadFlags) -> bool {
        events.intersects(ReadFlags::QUEUE_OVERFLOW | ReadFlags::UNMOUNT)
    }

    pub(super) fn gone(events: ReadFlags) -> bool {
        events.intersects(ReadFlags::IGNORED | ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF)
    }

    pub(super) use inotify::{CreateFlags, Reader, add_watch, init};
}

impl Watch {
    /// Starts watching `root`'s folders; `None` where that is not possible
    /// (not Linux, too many folders, no inotify).
    #[cfg(target_os = "linux")]
    pub fn start(root: &Path) -> Option<Watch> {
        let fd = linux::init(linux::CreateFlags::NONBLOCK | linux::CreateFlags::CLOEXEC).ok()?;
        let mut rules = ignore::gitignore::GitignoreBuilder::new(root);
        for file in [root.join(".gitignore"), root.join(".git/info/exclude")] {
            if file.is_file() {
                let _ = rules.add(file);
            }
        }
        let watch = Watch {
            fd,
            root: root.to_path_buf(),
            ignored: rules
                .build()
                .unwrap_or_else(|_| ignore::gitignore::Gitignore::empty()),
            state: Mutex::new(State::default()),
        };
        let dirs = folders(root)?;
        let mut state = lock(&watch.state);
        for dir in dirs {
            if !watch.add(&mut state, &dir) {
                return None;
            }
        }
        drop(state);
        Some(watch)
    }

    #[cfg(not(target_os = "linux"))]
    pub fn start(_root: &Path) -> Option<Watch> {
        None
    }

    /// Watches `dir` (absolute); false when the kernel refused.
    #[cfg(target_os = "linux")]
    fn add(&self, state: &mut State, dir: &Path) -> bool {
        let Ok(rel) = dir.strip_prefix(&self.root) else {
            return false;
        };
        match linux::add_watch(&self.fd, dir, linux::flags()) {
            Ok(wd) => {
                state.dirs.insert(wd, rel.to_path_buf());
                true
            }
            // Gone already: its parent's event names it.
            Err(rustix::io::Errno::NOENT) => true,
            Err(_) => false,
        }
    }

    /// What changed since the last call (or since the watch started).
    #[cfg(target_os = "linux")]
    pub fn take_changes(&self) -> Changes {
        let mut state = lock(&self.state);
        let mut paths = BTreeSet::new();
        let mut new_dirs = Vec::new();
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 16 * 1024];
        let mut reader = linux::Reader::new(&self.fd, &mut buf);
        loop {
            let event = match reader.next() {
                Ok(e) => e,
                Err(rustix::io::Errno::AGAIN) => break,
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => {
                    state.lost = true;
                    break;
                }
            };
            let flags = event.events();
            if linux::lost(flags) {
                state.lost = true;
                continue;
            }
            let Some(dir) = state.dirs.get(&event.wd()).cloned() else {
                continue;
            };
            match event.file_name() {
                Some(name) => {
                    let name = path_of(name.to_bytes());
                    if name.as_os_str() == ".git" {
                        continue;
                    }
                    let rel = dir.join(name);
                    let is_dir = flags.contains(rustix::fs::inotify::ReadFlags::ISDIR);
                    if self.ignored.matched(&rel, is_dir).is_ignore() {
                        continue;
                    }
                    if linux::is_new_dir(flags) {
                        new_dirs.push(rel.clone());
                    }
                    paths.insert(rel);
                }
                None if linux::gone(flags) => {
                    state.dirs.remove(&event.wd());
                }
                None => {}
            }
        }
        for rel in new_dirs {
            // Watched from now on; what was made in it before is found by
            // asking about the folder itself.
            let dirs = folders(&self.root.join(&rel));
            if dirs.is_none() || state.dirs.len() > MAX_WATCHED_DIRS {
                state.lost = true;
            }
            for dir in dirs.unwrap_or_default() {
                if !self.add(&mut state, &dir) {
                    state.lost = true;
                }
            }
        }
        if std::mem::take(&mut state.lost) || paths.len() > MAX_CHANGED_PATHS {
            return Changes::Unknown;
        }
        if paths.is_empty() {
            Changes::Nothing
        } else {
            Changes::Paths(paths)
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn take_changes(&self) -> Changes {
        Changes::Unknown
    }
}

fn path_of(bytes: &[u8]) -> PathBuf {
    super::shadow::path_from_bytes(bytes)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn changes_are_named_and_new_folders_watched() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("target/debug")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(root.join("src/a.rs"), "a").unwrap();
        let watch = Watch::start(&root).unwrap();
        assert_eq!(watch.take_changes(), Changes::Nothing);

        std::fs::write(root.join("src/a.rs"), "b").unwrap();
        std::fs::write(root.join("target/debug/out"), "ignored").unwrap();
        std::fs::create_dir_all(root.join("new/deeper")).unwrap();
        std::fs::write(root.join("new/deeper/x.txt"), "x").unwrap();
        std::fs::remove_dir_all(root.join("target")).unwrap();
        std::fs::create_dir_all(root.join("target/release")).unwrap();
        let Changes::Paths(paths) = watch.take_changes() else {
            panic!("expected paths")
        };
        assert!(paths.contains(Path::new("src/a.rs")), "{paths:?}");
        assert!(paths.contains(Path::new("new")), "{paths:?}");
        assert!(!paths.iter().any(|p| p.starts_with("target")), "{paths:?}");

        // The new folders are watched now.
        std::fs::write(root.join("new/deeper/y.txt"), "y").unwrap();
        std::fs::remove_file(root.join("src/a.rs")).unwrap();
        // A new ignored folder is not watched.
        std::fs::write(root.join("target/release/bin"), "b").unwrap();
        let Changes::Paths(paths) = watch.take_changes() else {
            panic!("expected paths")
        };
        assert!(paths.contains(Path::new("new/deeper/y.txt")), "{paths:?}");
        assert!(paths.contains(Path::new("src/a.rs")), "{paths:?}");
        assert_eq!(watch.take_changes(), Changes::Nothing);
    }
}
