//! Capturing a command's output with bounded memory: the first and last
//! parts are kept, the middle is counted and replaced by a marker. When a
//! spill file is given, output longer than the model sees is also written
//! there whole (up to [`MAX_SPILL_BYTES`]) and the answer says where, so
//! the model can page through it with Read or search it with Grep.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Characters of output the model receives at most (head + tail).
pub const MAX_OUTPUT_CHARS: usize = 30_000;

/// The most a spill file holds; beyond it the rest of the output is only
/// counted.
pub const MAX_SPILL_BYTES: u64 = 64 * 1024 * 1024;

/// Spill files older than this are removed when a new one is written.
pub const SPILL_MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);

/// Bytes kept at each end while capturing; generous enough that the
/// character limit, not this, decides what is shown (a char is ≤ 4 bytes).
const KEEP_BYTES: usize = MAX_OUTPUT_CHARS / 2 * 4;

/// Output collected so far.
#[derive(Debug, Default)]
pub struct OutputBuffer {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    /// Characters dropped between `head` and `tail`.
    dropped_chars: usize,
    dropped_any: bool,
    /// Every byte pushed.
    total_bytes: u64,
    spill: Option<Spill>,
}

/// The file that receives the whole output once it is too long to show.
#[derive(Debug)]
struct Spill {
    path: PathBuf,
    /// Opened when the output first passes [`MAX_OUTPUT_CHARS`] bytes.
    file: Option<File>,
    written: u64,
    /// Creating or writing the file failed: the answer does not name it.
    failed: bool,
}

impl OutputBuffer {
    pub fn new() -> Self {
        Self::default()
    }

    /// A buffer that writes the whole output to `path` when it is longer
    /// than the model is shown (the directory is created as needed).
    pub fn spilling_to(path: PathBuf) -> Self {
        Self {
            spill: Some(Spill {
                path,
                file: None,
                written: 0,
                failed: false,
            }),
            ..Self::default()
        }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        self.total_bytes += bytes.len() as u64;
        self.spill_chunk(bytes);
        self.keep(bytes);
    }

    /// Writes `bytes` to the spill file, opening it (with everything kept
    /// so far, which is everything pushed so far) when the output first
    /// grows past what can be shown.
    fn spill_chunk(&mut self, bytes: &[u8]) {
        let Some(spill) = self.spill.as_mut().filter(|s| !s.failed) else {
            return;
        };
        if spill.file.is_none() {
            if self.total_bytes <= MAX_OUTPUT_CHARS as u64 {
                return;
            }
            // Nothing has been dropped yet: the kept ends are the whole
            // output before this chunk.
            let earlier: Vec<u8> = self.head.iter().chain(self.tail.iter()).copied().collect();
            match open_spill(&spill.path) {
                Some(file) => spill.file = Some(file),
                None => {
                    spill.failed = true;
                    return;
                }
            }
            spill.write(&earlier);
        }
        spill.write(bytes);
    }

    fn keep(&mut self, mut bytes: &[u8]) {
        if self.head.len() < KEEP_BYTES {
            let take = bytes.len().min(KEEP_BYTES - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        self.tail.extend(bytes);
        if self.tail.len() > KEEP_BYTES {
            let excess = self.tail.len() - KEEP_BYTES;
            self.dropped_chars += self
                .tail
                .drain(..excess)
                .filter(|b| !is_continuation(*b))
                .count();
            self.dropped_any = true;
        }
    }

    /// The captured text, cut to [`MAX_OUTPUT_CHARS`] with a
    /// `... [N characters cut] ...` marker when longer; with a spill file,
    /// a last line says where the whole output is. A spill file that turns
    /// out not to be needed is removed.
    pub fn render(&self) -> String {
        let (text, cut) = self.render_kept();
        let Some(spill) = &self.spill else {
            return text;
        };
        match (&spill.file, cut, spill.failed) {
            (Some(_), true, false) => {
                let whole = if spill.written < self.total_bytes {
                    format!("its first {} of {} bytes", spill.written, self.total_bytes)
                } else {
                    format!("all {} bytes", self.total_bytes)
                };
                format!(
                    "{text}\n\n[The output was too long to show in full; {whole} are saved in {}. \
                     Read it in parts with the Read tool (offset, limit) or search it with Grep.]",
                    spill.path.display()
                )
            }
            (Some(_), _, _) => {
                let _ = std::fs::remove_file(&spill.path);
                text
            }
            _ => text,
        }
    }

    /// Everything the command printed so far, for a command sent to the
    /// background while it runs: the spill file when the output outgrew
    /// what is kept in memory, else the kept bytes (then the whole output,
    /// or its two ends with a marker when no spill file could be written).
    /// A spill file read here is removed: the output lives on elsewhere.
    pub(super) fn so_far(&self) -> Vec<u8> {
        if let Some(spill) = self
            .spill
            .as_ref()
            .filter(|s| s.file.is_some() && !s.failed)
            && let Ok(bytes) = std::fs::read(&spill.path)
        {
            let _ = std::fs::remove_file(&spill.path);
            return bytes;
        }
        let mut all = self.head.clone();
        if self.dropped_any {
            all.extend_from_slice(
                format!("\n... [{} characters not kept] ...\n", self.dropped_chars).as_bytes(),
            );
        }
        all.extend(self.tail.iter());
        all
    }

    /// The text and whether anything was cut from it.
    fn render_kept(&self) -> (String, bool) {
        let half = MAX_OUTPUT_CHARS / 2;
        if !self.dropped_any {
            let mut all = self.head.clone();
            all.extend(self.tail.iter());
            let text = String::from_utf8_lossy(&all);
            let total = text.chars().count();
            if total <= MAX_OUTPUT_CHARS {
                return (text.into_owned(), false);
            }
            let head: String = text.chars().take(half).collect();
            let tail: String = text.chars().skip(total - half).collect();
            return (join(&head, total - 2 * half, &tail), true);
        }
        let head_text = String::from_utf8_lossy(&self.head);
        let head_total = head_text.chars().count();
        let head: String = head_text.chars().take(half).collect();
        // The tail may start inside a character.
        let tail_bytes: Vec<u8> = self
            .tail
            .iter()
            .copied()
            .skip_while(|b| is_continuation(*b))
            .collect();
        let tail_text = String::from_utf8_lossy(&tail_bytes);
        let tail_total = tail_text.chars().count();
        let tail: String = tail_text
            .chars()
            .skip(tail_total.saturating_sub(half))
            .collect();
        let cut =
            head_total.saturating_sub(half) + self.dropped_chars + tail_total.saturating_sub(half);
        (join(&head, cut, &tail), true)
    }
}

impl Spill {
    fn write(&mut self, bytes: &[u8]) {
        let room = MAX_SPILL_BYTES.saturating_sub(self.written);
        let take = bytes.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        if take == 0 {
            return;
        }
        let Some(file) = self.file.as_mut() else {
            return;
        };
        match file.write_all(&bytes[..take]) {
            Ok(()) => self.written += take as u64,
            Err(_) => self.failed = true,
        }
    }
}

/// Creates the spill file (private to the user where that means anything)
/// after clearing out old ones in its directory.
fn open_spill(path: &Path) -> Option<File> {
    let dir = path.parent()?;
    std::fs::create_dir_all(dir).ok()?;
    remove_old_spills(dir);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path).ok()
}

fn remove_old_spills(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok())
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > SPILL_MAX_AGE);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Where a session keeps the whole output of commands too long to show
/// (set by the session builder in the [`ToolContext`](crate::tools::ToolContext)'s
/// values; without it long output is only shortened).
#[derive(Debug, Clone)]
pub struct ToolOutputDir(pub PathBuf);

/// Where the whole output of tool call `tool_use_id` goes when it is too
/// long to show: `ID.txt` in `dir` (ids are reduced to letters, digits,
/// `-` and `_`; a missing one gets a random name).
pub fn spill_path(dir: &Path, tool_use_id: Option<&str>) -> PathBuf {
    let id: String = tool_use_id
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(100)
        .collect();
    let id = if id.is_empty() {
        uuid::Uuid::new_v4().to_string()
    } else {
        id
    };
    dir.join(format!("{id}.txt"))
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

fn join(head: &str, cut: usize, tail: &str) -> String {
    format!("{head}\n\n... [{cut} characters cut] ...\n\n{tail}")
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn short_output_is_kept_whole() {
        let mut b = OutputBuffer::new();
        b.push("héllo ".as_bytes());
        b.push(b"world");
        assert_eq!(b.render(), "héllo world");
    }

    #[test]
    fn long_output_keeps_head_and_tail() {
        let mut b = OutputBuffer::new();
        let line = "0123456789".repeat(10);
        for _ in 0..5_000 {
            b.push(line.as_bytes());
        }
        let out = b.render();
        let total = 5_000 * 100;
        let cut = total - MAX_OUTPUT_CHARS;
        assert!(
            out.contains(&format!("... [{cut} characters cut] ...")),
            "{}",
            &out[14_990..15_060]
        );
        assert!(out.starts_with("0123456789"));
        assert!(out.ends_with("0123456789"));
    }

    #[test]
    fn multibyte_counts_are_in_characters() {
        let mut b = OutputBuffer::new();
        for _ in 0..100_000 {
            b.push("é".as_bytes());
        }
        let out = b.render();
        assert!(out.contains(&format!("[{} characters cut]", 100_000 - MAX_OUTPUT_CHARS)));
        assert!(!out.contains('\u{fffd}'));
    }

    #[test]
    fn long_output_is_kept_whole_in_the_spill_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out/call_1.txt");
        let mut b = OutputBuffer::spilling_to(path.clone());
        let mut whole = Vec::new();
        for i in 0..20_000 {
            let line = format!("line {i} {}\n", "é".repeat(i % 7));
            b.push(line.as_bytes());
            whole.extend_from_slice(line.as_bytes());
        }
        let out = b.render();
        assert!(out.contains("characters cut]"), "{}", &out[..100]);
        assert!(out.ends_with(&format!(
            "all {} bytes are saved in {}. Read it in parts with the Read tool (offset, limit) or \
             search it with Grep.]",
            whole.len(),
            path.display()
        )));
        assert_eq!(std::fs::read(&path).unwrap(), whole);
    }

    #[test]
    fn short_output_leaves_no_spill_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("call_2.txt");
        let mut b = OutputBuffer::spilling_to(path);
        b.push(b"short");
        assert_eq!(b.render(), "short");
        // Over the limit in bytes but not in characters: shown whole, the
        // file that was started is removed.
        let path = dir.path().join("call_3.txt");
        let mut b = OutputBuffer::spilling_to(path.clone());
        b.push("é".repeat(MAX_OUTPUT_CHARS - 10).as_bytes());
        assert!(path.exists());
        assert_eq!(b.render().chars().count(), MAX_OUTPUT_CHARS - 10);
        assert!(!path.exists());
    }

    #[test]
    fn spill_file_is_capped_and_old_ones_go() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("old.txt");
        std::fs::write(&old, "x").unwrap();
        let long_ago = SystemTime::now() - SPILL_MAX_AGE - Duration::from_secs(60);
        File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        let path = dir.path().join("big.txt");
        let mut b = OutputBuffer::spilling_to(path.clone());
        let chunk = vec![b'y'; 1024 * 1024];
        let total = MAX_SPILL_BYTES + 3 * 1024 * 1024;
        for _ in 0..total / (1024 * 1024) {
            b.push(&chunk);
        }
        assert!(!old.exists());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), MAX_SPILL_BYTES);
        assert!(b.render().contains(&format!(
            "its first {MAX_SPILL_BYTES} of {total} bytes are saved in"
        )));
    }

    #[test]
    fn unwritable_spill_file_is_not_mentioned() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file"), "x").unwrap();
        let mut b = OutputBuffer::spilling_to(dir.path().join("file/sub/out.txt"));
        b.push("z".repeat(MAX_OUTPUT_CHARS * 3).as_bytes());
        let out = b.render();
        assert!(out.contains("characters cut]"));
        assert!(!out.contains("saved in"));
    }

    #[test]
    fn spill_paths_are_sanitised() {
        let dir = Path::new("/x/tool-output");
        let p = spill_path(dir, Some("toolu_01/../../etc"));
        assert_eq!(p.file_name().unwrap(), "toolu_01etc.txt");
        assert_eq!(p.parent().unwrap(), dir);
        let random = spill_path(dir, None);
        assert_eq!(random.extension().unwrap(), "txt");
    }

    #[test]
    fn just_over_the_limit_without_dropping() {
        let mut b = OutputBuffer::new();
        b.push("x".repeat(MAX_OUTPUT_CHARS + 10).as_bytes());
        assert!(b.render().contains("[10 characters cut]"));
    }
}
