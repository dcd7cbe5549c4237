//! Writing and reading transcript files.
//!
//! A transcript is append-only JSONL. The writer fills the bookkeeping
//! fields of each entry (uuid, the `parentUuid` chain, timestamp, session,
//! cwd, slug, agent), redacts secrets, and writes each line with one
//! `write_all` on a file opened with `O_APPEND`, so lines from concurrent
//! writers never interleave. Every append is fsynced; [`TranscriptWriter::append_batch`]
//! writes several entries with one fsync.
//!
//! A failed append (full disk, IO error) is taken back: the file is cut to
//! where the append began, so a half-written line never glues onto the
//! next entry; if it cannot be cut, the next append starts on a new line.
//! The caller keeps what was not written (see [`super::recorder`]).
//!
//! Loading is forgiving: a line that does not parse (a torn last line after
//! a crash, a hand-edited middle line) is skipped with a warning, never an
//! error for the whole file; complete entries glued behind a torn one (by
//! older versions) are recovered.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::{SecondsFormat, Utc};
use serde::Deserialize;

use super::entry::{EntryBody, TranscriptEntry};
use super::redact::Redactor;

/// How far from the end [`TranscriptWriter::open`] looks for the last
/// entry's uuid to continue the chain. Entries larger than this (huge file
/// snapshots) only cost the chain link, never data.
const TAIL_SCAN_BYTES: u64 = 1024 * 1024;

/// Appends entries to one transcript file.
#[derive(Debug)]
pub struct TranscriptWriter {
    file: File,
    path: PathBuf,
    session_id: String,
    cwd: String,
    slug: Option<String>,
    agent_id: Option<String>,
    git_branch: Option<String>,
    last_uuid: Option<String>,
    redactor: Redactor,
    /// A failed append left part of a line that could not be cut away:
    /// the next append starts with a newline.
    torn: bool,
}

impl TranscriptWriter {
    /// Opens (creating it and its folders when needed) the transcript at
    /// `path` for appending.
    ///
    /// Defaults, each changeable with a builder method: the session id is
    /// the file stem, cwd is the process's working directory, secrets are
    /// the API keys in the environment ([`Redactor::from_env`]). When the
    /// file already has entries, the chain continues from the last one; a
    /// torn last line is closed with a newline so the next entry starts on
    /// a line of its own.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&path)?;
        let last_uuid = continue_chain(&mut file)?;
        let session_id = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let cwd = std::env::current_dir()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Self {
            file,
            path,
            session_id,
            cwd,
            slug: None,
            agent_id: None,
            git_branch: None,
            last_uuid,
            redactor: Redactor::from_env(),
            torn: false,
        })
    }

    /// Opens the transcript of session `session_id` for the project in `cwd`
    /// under `config_dir` (see [`super::paths::session_path`]).
    pub fn for_session(config_dir: &Path, cwd: &Path, session_id: &str) -> io::Result<Self> {
        Ok(
            Self::open(super::paths::session_path(config_dir, cwd, session_id))?
                .with_session_id(session_id)
                .with_cwd(cwd)
                .with_git_branch(super::git_branch::current_branch(cwd)),
        )
    }

    /// Opens the sidechain transcript of sub-agent `agent_id` beside the
    /// parent session's file; entries carry the parent's session id.
    pub fn for_sidechain(
        session_path: &Path,
        session_id: &str,
        cwd: &Path,
        agent_id: &str,
    ) -> io::Result<Self> {
        Ok(
            Self::open(super::paths::sidechain_path(session_path, agent_id))?
                .with_session_id(session_id)
                .with_cwd(cwd)
                .with_agent_id(agent_id),
        )
    }

    /// Sets the session id written in every entry.
    pub fn with_session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = session_id.into();
        self
    }

    /// Sets the working directory written in every entry.
    pub fn with_cwd(mut self, cwd: impl AsRef<Path>) -> Self {
        self.cwd = cwd.as_ref().to_string_lossy().into_owned();
        self
    }

    /// Marks this as a sub-agent (sidechain) transcript.
    pub fn with_agent_id(mut self, agent_id: impl Into<String>) -> Self {
        self.agent_id = Some(agent_id.into());
        self
    }

    /// Sets the git branch written in every entry (shown by `catui sessions`).
    pub fn with_git_branch(mut self, branch: Option<String>) -> Self {
        self.git_branch = branch;
        self
    }

    /// Replaces the secrets to redact (the default reads the environment).
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// Sets the plan slug written in entries from now on.
    pub fn set_slug(&mut self, slug: Option<String>) {
        self.slug = slug;
    }

    /// Sets the uuid the next entry points to (e.g. the entry a fork
    /// continues from).
    pub fn set_parent(&mut self, uuid: Option<String>) {
        self.last_uuid = uuid;
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The uuid of the last entry written (or found when opening).
    pub fn last_uuid(&self) -> Option<&str> {
        self.last_uuid.as_deref()
    }

    /// Appends one entry and fsyncs. Returns the entry as built (before
    /// redaction, which only applies to the bytes on disk).
    pub fn append(&mut self, body: EntryBody) -> io::Result<TranscriptEntry> {
        let mut entries = self.append_batch(vec![body])?;
        entries
            .pop()
            .ok_or_else(|| io::Error::other("transcript batch of one produced no entry"))
    }

    /// Appends several entries, chained in order, with a single write and
    /// a single fsync. On error nothing of the batch stays in the file (or,
    /// when the file cannot be cut back, the next append starts on a fresh
    /// line) and the chain is unchanged.
    pub fn append_batch(&mut self, bodies: Vec<EntryBody>) -> io::Result<Vec<TranscriptEntry>> {
        self.append_all(&bodies)
    }

    /// [`Self::append_batch`] over borrowed bodies, so a caller can keep
    /// them when the write fails.
    pub fn append_all(&mut self, bodies: &[EntryBody]) -> io::Result<Vec<TranscriptEntry>> {
        self.append_keyed(bodies.iter().map(|b| (None, b)))
    }

    /// Like [`Self::append_all`], where an entry may come with its own
    /// uuid (a user message the client named; a fork's copy of its
    /// parent's entries). The others get fresh ones.
    pub fn append_keyed<'a>(
        &mut self,
        items: impl IntoIterator<Item = (Option<&'a str>, &'a EntryBody)>,
    ) -> io::Result<Vec<TranscriptEntry>> {
        let mut entries = Vec::new();
        let mut parent = self.last_uuid.clone();
        let mut buf = String::new();
        if self.torn {
            buf.push('\n');
        }
        for (uuid, body) in items {
            if matches!(body, EntryBody::Unknown) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "an entry of unknown kind cannot be written to a transcript",
                ));
            }
            let body = body.clone();
            let entry = TranscriptEntry {
                uuid: uuid
                    .map(str::to_string)
                    .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
                parent_uuid: parent.take(),
                timestamp: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
                session_id: self.session_id.clone(),
                cwd: self.cwd.clone(),
                slug: self.slug.clone(),
                agent_id: self.agent_id.clone(),
                git_branch: self.git_branch.clone(),
                body,
            };
            let line = serde_json::to_string(&entry).map_err(io::Error::other)?;
            buf.push_str(&self.redactor.redact(&line));
            buf.push('\n');
            parent = Some(entry.uuid.clone());
            entries.push(entry);
        }
        if entries.is_empty() {
            return Ok(entries);
        }
        // One write for the whole batch: with O_APPEND the kernel places it
        // at the end atomically with respect to other appenders.
        let before = self.file.metadata().map(|m| m.len()).ok();
        let written = self
            .file
            .write_all(buf.as_bytes())
            .and_then(|()| self.file.flush())
            .and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            self.take_back(before);
            return Err(e);
        }
        self.torn = false;
        self.last_uuid = parent;
        Ok(entries)
    }

    /// Removes what a failed append may have written (a partial line, or
    /// lines whose fsync failed), so the file ends with a complete entry.
    /// One writer per session (the session lock) makes cutting back safe.
    fn take_back(&mut self, before: Option<u64>) {
        let cut = before.is_some_and(|len| {
            self.file.set_len(len).is_ok() && self.file.metadata().is_ok_and(|m| m.len() == len)
        });
        if !cut {
            self.torn = true;
        }
    }
}

/// Finds the uuid of the last complete entry near the end of the file, and
/// terminates a torn last line so the next append starts a fresh line.
fn continue_chain(file: &mut File) -> io::Result<Option<String>> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(None);
    }
    let start = len.saturating_sub(TAIL_SCAN_BYTES);
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)?;
    if tail.last() != Some(&b'\n') {
        // O_APPEND: this lands at the end whatever the cursor says.
        file.write_all(b"\n")?;
    }

    #[derive(Deserialize)]
    struct UuidOnly {
        uuid: String,
    }
    let mut lines: Vec<&[u8]> = tail.split(|b| *b == b'\n').collect();
    if start > 0 && !lines.is_empty() {
        // The first piece may be the end of a line cut by the scan window.
        lines.remove(0);
    }
    Ok(lines
        .iter()
        .rev()
        .find_map(|line| serde_json::from_slice::<UuidOnly>(line).ok())
        .map(|u| u.uuid))
}

/// A transcript read from disk.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Loaded {
    pub entries: Vec<TranscriptEntry>,
    /// One message per skipped line, naming the file and the line.
    pub warnings: Vec<String>,
}

impl Loaded {
    /// The uuid of the last entry, to continue the chain from.
    pub fn last_uuid(&self) -> Option<&str> {
        self.entries.last().map(|e| e.uuid.as_str())
    }

    /// The plan slug most recently recorded, if any.
    pub fn slug(&self) -> Option<&str> {
        self.entries.iter().rev().find_map(|e| e.slug.as_deref())
    }
}

/// Reads a transcript. Only failing to read the file is an error; lines
/// that do not parse are skipped with a warning.
pub fn load(path: impl AsRef<Path>) -> io::Result<Loaded> {
    let path = path.as_ref();
    let bytes = std::fs::read(path)?;
    Ok(parse(path, &bytes))
}

fn parse(path: &Path, bytes: &[u8]) -> Loaded {
    let mut loaded = Loaded::default();
    let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    // A trailing newline yields an empty last piece; the real last line is
    // the last non-blank one.
    let last_content = lines
        .iter()
        .rposition(|l| !l.iter().all(u8::is_ascii_whitespace));
    for (index, line) in lines.iter().enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let err = match serde_json::from_slice::<TranscriptEntry>(line) {
            Ok(entry) => {
                loaded.entries.push(entry);
                continue;
            }
            Err(err) => err,
        };
        if let Some((entries, lost)) = glued_entries(line) {
            let skipped = if lost > 0 {
                format!(" and {lost} incomplete one(s) skipped ({err})")
            } else {
                String::new()
            };
            loaded.warnings.push(format!(
                "{}: line {} held several entries glued together (an interrupted write); {} \
                 complete one(s) were recovered{skipped}",
                path.display(),
                index + 1,
                entries.len(),
            ));
            loaded.entries.extend(entries);
        } else if Some(index) == last_content {
            loaded.warnings.push(format!(
                "{}: the last line is incomplete or corrupt and was skipped \
                 (probably cut off when catui stopped while writing): {err}",
                path.display()
            ));
        } else {
            loaded.warnings.push(format!(
                "{}: line {} is not a valid transcript entry and was skipped: {err}",
                path.display(),
                index + 1
            ));
        }
    }
    loaded
}

/// Every entry starts with its uuid; a torn entry followed by complete ones
/// on the same line (the glue an interrupted append used to leave) splits
/// at those starts. `Some((complete entries, pieces that did not parse))`
/// when the line holds at least two pieces and one of them parses.
fn glued_entries(line: &[u8]) -> Option<(Vec<TranscriptEntry>, usize)> {
    const START: &[u8] = b"{\"uuid\":\"";
    let mut starts: Vec<usize> = line
        .windows(START.len())
        .enumerate()
        .filter(|(_, w)| *w == START)
        .map(|(i, _)| i)
        .collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    if starts.len() < 2 {
        return None;
    }
    let mut entries = Vec::new();
    let mut lost = 0;
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(line.len());
        match serde_json::from_slice::<TranscriptEntry>(&line[start..end]) {
            Ok(entry) => entries.push(entry),
            Err(_) => lost += 1,
        }
    }
    (!entries.is_empty()).then_some((entries, lost))
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
