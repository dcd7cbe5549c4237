//! Commands that run in the background (`run_in_background`, or a
//! foreground command the user sent there): the session's list of them,
//! their output on disk, and their status.
//!
//! A background command starts exactly as a foreground one (same
//! permission decision, same sandbox, its own tracked process group), but
//! the call returns at once with an id. A task reads its output into a
//! file (at most [`MAX_SPILL_BYTES`]; beyond that it is only counted) and
//! waits for its shell. BashOutput reads what is new, KillShell ends the
//! group, and the engine tells the model about each command that finished
//! with its next request ([`BackgroundShells::take_finished`]). Groups and
//! files end with the session through [`groups`](super::groups).
//!
//! A foreground command registers here while it runs
//! ([`BackgroundShells::foreground`]), so that the user can send it to the
//! background ([`BackgroundShells::detach_foreground`], the TUI's Ctrl+B):
//! its call then hands its process, group and output so far to
//! [`BackgroundShells::adopt`] and returns the id.

use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio_util::sync::CancellationToken;

use super::launch::{Output, Started};
use super::output::MAX_SPILL_BYTES;
use super::pipes::DRAIN_AFTER_EXIT;
use super::{groups, pty};
use crate::sync::lock;

/// How a background command stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellStatus {
    Running,
    /// Its shell exited with this code.
    Exited(i32),
    /// Its shell was ended by this signal (not by KillShell).
    Signalled(i32),
    /// KillShell (or the user) ended it.
    Killed,
}

impl ShellStatus {
    pub fn is_running(self) -> bool {
        self == ShellStatus::Running
    }

    /// For the model and the user: `running`, `exit code 2`, ….
    pub fn describe(self) -> String {
        match self {
            ShellStatus::Running => "running".into(),
            ShellStatus::Exited(code) => format!("exit code {code}"),
            ShellStatus::Signalled(sig) => format!("ended by signal {sig}"),
            ShellStatus::Killed => "killed".into(),
        }
    }
}

/// The background commands of one session (shared by its sub-agents).
#[derive(Debug)]
pub struct BackgroundShells {
    dir: PathBuf,
    next: AtomicU32,
    shells: Mutex<Vec<Arc<Shell>>>,
    /// Foreground commands running now, each with the token that sends it
    /// to the background.
    foreground: Mutex<Vec<(u64, CancellationToken)>>,
    next_foreground: AtomicU64,
}

/// A foreground command's registration: while it lives,
/// [`BackgroundShells::detach_foreground`] may fire [`Foreground::detached`].
pub(super) struct Foreground {
    shells: Arc<BackgroundShells>,
    key: u64,
    token: CancellationToken,
}

impl Foreground {
    /// Fires when the user sends the command to the background.
    pub(super) fn detached(&self) -> CancellationToken {
        self.token.clone()
    }
}

impl Drop for Foreground {
    fn drop(&mut self) {
        lock(&self.shells.foreground).retain(|(key, _)| *key != self.key);
    }
}

/// One background command.
#[derive(Debug)]
pub struct Shell {
    /// `bash_1`, `bash_2`, … in the order they started.
    pub id: String,
    pub command: String,
    pub description: Option<String>,
    /// The sub-agent that started it (`None`: the main conversation); the
    /// finished reminder goes to that conversation.
    pub agent_id: Option<String>,
    /// Where its output is written.
    pub output_path: PathBuf,
    pub started: Instant,
    pgid: Option<i32>,
    /// catui's side of its terminal, where BashInput types (`None`: it has
    /// no terminal input: kept running, or sent to the background while it
    /// ran).
    input: Mutex<Option<std::fs::File>>,
    /// It is to outlive the session (`keep_running`): not ended with it,
    /// and it writes its output file itself.
    pub kept: bool,
    state: Mutex<State>,
}

/// A background command's place in the list, taken before it starts: its
/// id and its output file.
pub(super) struct Slot {
    id: String,
    output_path: PathBuf,
    file: std::fs::File,
}

impl Slot {
    /// A handle on the output file for the command to write itself.
    pub(super) fn file_for_command(&self) -> std::io::Result<std::fs::File> {
        self.file.try_clone()
    }
}

#[derive(Debug)]
struct State {
    status: ShellStatus,
    /// Bytes in the output file.
    written: u64,
    /// Bytes the command printed (more than `written` past the cap).
    total: u64,
    /// How far BashOutput has read.
    read_to: u64,
    /// The model has been told it ended (reminder or BashOutput).
    reported: bool,
    ended: Option<Instant>,
}

/// What BashOutput gets: what is new since the last read.
#[derive(Debug, Clone, PartialEq)]
pub struct NewOutput {
    pub status: ShellStatus,
    pub text: String,
    /// Bytes printed past the cap of the output file, never kept.
    pub lost: u64,
}

impl BackgroundShells {
    /// A list whose output files go in `dir` (created when needed).
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            next: AtomicU32::new(1),
            shells: Mutex::new(Vec::new()),
            foreground: Mutex::new(Vec::new()),
            next_foreground: AtomicU64::new(1),
        }
    }

    /// Registers a foreground command that is starting, until the guard
    /// is dropped.
    pub(super) fn foreground(self: &Arc<Self>) -> Foreground {
        let key = self.next_foreground.fetch_add(1, Ordering::SeqCst);
        let token = CancellationToken::new();
        lock(&self.foreground).push((key, token.clone()));
        Foreground {
            shells: self.clone(),
            key,
            token,
        }
    }

    /// Sends every foreground command running now to the background (the
    /// user's Ctrl+B): each keeps running, and its call returns at once
    /// with its background id. Returns how many there were (0: nothing
    /// happens).
    pub fn detach_foreground(&self) -> usize {
        let running = std::mem::take(&mut *lock(&self.foreground));
        for (_, token) in &running {
            token.cancel();
        }
        running.len()
    }

    /// Foreground commands running now that [`Self::detach_foreground`]
    /// would send to the background.
    pub fn foreground_running(&self) -> usize {
        lock(&self.foreground).len()
    }

    pub fn get(&self, id: &str) -> Option<Arc<Shell>> {
        lock(&self.shells).iter().find(|s| s.id == id).cloned()
    }

    /// Every background command of the session, oldest first.
    pub fn list(&self) -> Vec<Arc<Shell>> {
        lock(&self.shells).clone()
    }

    /// The commands that will outlive the session (`keep_running`) and
    /// still run: what catui leaves behind when it exits.
    pub fn left_running(&self) -> Vec<Arc<Shell>> {
        lock(&self.shells)
            .iter()
            .filter(|s| s.kept && s.status().is_running())
            .cloned()
            .collect()
    }

    pub fn running(&self) -> usize {
        lock(&self.shells)
            .iter()
            .filter(|s| s.status().is_running())
            .count()
    }

    /// The commands of conversation `agent_id` that ended and that its
    /// model has not been told about; they count as told from now on.
    pub fn take_finished(&self, agent_id: Option<&str>) -> Vec<Arc<Shell>> {
        lock(&self.shells)
            .iter()
            .filter(|s| s.agent_id.as_deref() == agent_id)
            .filter(|s| {
                let mut state = lock(&s.state);
                let take = !state.status.is_running() && !state.reported;
                state.reported |= take;
                take
            })
            .cloned()
            .collect()
    }

    /// The next id and its output file (`kept`: the file stays when the
    /// session ends, for the command that outlives it).
    pub(super) fn slot(&self, kept: bool) -> std::io::Result<Slot> {
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        let id = format!("bash_{n}");
        std::fs::create_dir_all(&self.dir)?;
        let output_path = self.dir.join(format!("bg-{}-{id}.log", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&output_path)?;
        if !kept {
            groups::remove_at_end(output_path.clone());
        }
        Ok(Slot {
            id,
            output_path,
            file,
        })
    }

    /// Adopts a started command into `slot`: returns its entry at once,
    /// and a task reads its output to the file and waits for it.
    /// `earlier`: what it printed before (a foreground command sent to the
    /// background).
    pub(super) fn adopt(
        &self,
        started: Started,
        slot: Slot,
        command: &str,
        description: Option<String>,
        agent_id: Option<String>,
        earlier: &[u8],
    ) -> std::io::Result<Arc<Shell>> {
        let Slot {
            id,
            output_path,
            file,
        } = slot;
        let Started {
            child,
            mut group,
            output,
            cwd_reader,
            at,
            ..
        } = started;
        // From here the group is the shell entry's: KillShell or the end
        // of the session ends it — unless it is kept, when nothing of
        // catui's ends it.
        let pgid = group.pgid.take();
        let kept = matches!(output, Output::File);
        if kept && let Some(pgid) = pgid {
            groups::forget(pgid);
        }
        let input = match &output {
            Output::Terminal(master) => Some(std::fs::File::from(master.try_clone()?)),
            _ => None,
        };
        let shell = Arc::new(Shell {
            id,
            command: command.to_string(),
            description,
            agent_id,
            output_path,
            started: at,
            pgid,
            input: Mutex::new(input),
            kept,
            state: Mutex::new(State {
                status: ShellStatus::Running,
                written: 0,
                total: 0,
                read_to: 0,
                reported: false,
                ended: None,
            }),
        });
        let mut sink = Sink {
            file,
            shell: shell.clone(),
        };
        sink.push(earlier);
        lock(&self.shells).push(shell.clone());
        let watched = shell.clone();
        tokio::spawn(async move {
            // Kept open until the shell ends, so its EXIT trap can write.
            let _cwd_reader = cwd_reader;
            let mut child = child;
            let reader = match output {
                Output::Pipe(out_rx) => Some(tokio::spawn(pump(out_rx, sink))),
                Output::Terminal(master) => Some(read_terminal(master, sink)),
                Output::File => None,
            };
            let status = child.wait().await;
            // Jobs the command left running may hold the pipe open.
            if let Some(mut reader) = reader
                && tokio::time::timeout(DRAIN_AFTER_EXIT, &mut reader)
                    .await
                    .is_err()
            {
                tokio::spawn(reader);
            }
            *lock(&watched.input) = None;
            let mut state = lock(&watched.state);
            if state.status.is_running() {
                state.status = match status {
                    Ok(s) => match (s.code(), s.signal()) {
                        (Some(code), _) => ShellStatus::Exited(code),
                        (None, Some(sig)) => ShellStatus::Signalled(sig),
                        (None, None) => ShellStatus::Exited(-1),
                    },
                    Err(_) => ShellStatus::Exited(-1),
                };
                state.ended = Some(Instant::now());
            }
        });
        Ok(shell)
    }
}

impl Shell {
    pub fn status(&self) -> ShellStatus {
        lock(&self.state).status
    }

    /// Its process id (the leader of its process group).
    pub fn pid(&self) -> Option<i32> {
        self.pgid
    }

    /// Types `keys` into its terminal. An error says why it cannot take
    /// input (no terminal, ended).
    pub fn send_input(&self, keys: &str) -> Result<(), InputError> {
        if !self.status().is_running() {
            return Err(InputError::Ended(self.status()));
        }
        let mut input = lock(&self.input);
        let Some(terminal) = input.as_mut() else {
            return Err(InputError::NoTerminal { kept: self.kept });
        };
        terminal
            .write_all(&pty::keys(keys))
            .map_err(InputError::Write)
    }

    /// How long it ran (so far, while running).
    pub fn elapsed(&self) -> Duration {
        let end = lock(&self.state).ended.unwrap_or_else(Instant::now);
        end.duration_since(self.started)
    }

    /// Ends the command and everything in its process group. False when
    /// it had already ended.
    pub fn kill(&self) -> bool {
        let mut state = lock(&self.state);
        if !state.status.is_running() {
            return false;
        }
        if let Some(pgid) = self.pgid {
            groups::kill(pgid);
        }
        state.status = ShellStatus::Killed;
        state.ended = Some(Instant::now());
        true
    }

    /// What the command printed since the last read (the model's reads);
    /// once the model has seen that it ended, no reminder follows.
    pub fn read_new(&self) -> std::io::Result<NewOutput> {
        self.sync_direct();
        let (status, from, to, total) = {
            let state = lock(&self.state);
            (state.status, state.read_to, state.written, state.total)
        };
        let bytes = read_range(&self.output_path, from, to)?;
        let mut state = lock(&self.state);
        state.read_to = to;
        if !status.is_running() {
            state.reported = true;
        }
        Ok(NewOutput {
            status,
            text: String::from_utf8_lossy(&bytes).into_owned(),
            lost: total - state.written,
        })
    }

    /// The model knows it ended: no reminder follows.
    pub fn mark_reported(&self) {
        lock(&self.state).reported = true;
    }

    /// Everything kept of its output (for the user's `/bashes` view), at
    /// most its last `max` bytes.
    pub fn output_tail(&self, max: u64) -> String {
        self.sync_direct();
        let to = lock(&self.state).written;
        let bytes = read_range(&self.output_path, to.saturating_sub(max), to).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        // A cut may start inside a character or a line.
        match (to > max, text.find('\n')) {
            (true, Some(at)) => text[at + 1..].to_string(),
            _ => text.into_owned(),
        }
    }

    /// Its last `n` lines of output (reading at most the last 64 KiB).
    pub fn last_lines(&self, n: usize) -> Vec<String> {
        let text = self.output_tail(64 * 1024);
        let lines: Vec<&str> = text.trim_end_matches(['\n', '\r']).lines().collect();
        let skip = lines.len().saturating_sub(n);
        lines[skip..].iter().map(|l| l.to_string()).collect()
    }

    /// Bytes of output kept so far.
    pub fn bytes_written(&self) -> u64 {
        self.sync_direct();
        lock(&self.state).written
    }

    /// A kept command writes its file itself: its size is what it wrote.
    fn sync_direct(&self) {
        if !self.kept {
            return;
        }
        if let Ok(meta) = std::fs::metadata(&self.output_path) {
            let mut state = lock(&self.state);
            state.written = meta.len();
            state.total = meta.len();
        }
    }
}

/// Why input could not be typed into a background command.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("it has already ended ({})", .0.describe())]
    Ended(ShellStatus),
    #[error(
        "it has no terminal to type into ({})",
        if *kept { "commands started with keep_running take no input" }
        else { "it was sent to the background while it ran" }
    )]
    NoTerminal { kept: bool },
    #[error("writing to its terminal failed: {0}")]
    Write(std::io::Error),
}

fn read_range(path: &Path, from: u64, to: u64) -> std::io::Result<Vec<u8>> {
    if to <= from {
        return Ok(Vec::new());
    }
    let mut file = std::fs::File::open(path)?;
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::new();
    file.take(to - from).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The output file of one command, capped at [`MAX_SPILL_BYTES`].
struct Sink {
    file: std::fs::File,
    shell: Arc<Shell>,
}

impl Sink {
    fn push(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let mut state = lock(&self.shell.state);
        state.total += bytes.len() as u64;
        let room = MAX_SPILL_BYTES.saturating_sub(state.written);
        let take = bytes.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        if take > 0 && self.file.write_all(&bytes[..take]).is_ok() {
            state.written += take as u64;
        }
    }
}

/// Copies what the command prints on its terminal to the file, on a
/// thread of its own (a terminal is not a pipe tokio can watch), until the
/// terminal closes; resolves when it has.
fn read_terminal(master: std::os::fd::OwnedFd, mut sink: Sink) -> tokio::task::JoinHandle<()> {
    let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
    let spawned = std::thread::Builder::new()
        .name("catui-bg-terminal".into())
        .spawn(move || {
            let mut master = std::fs::File::from(master);
            let mut chunk = vec![0u8; 16 * 1024];
            loop {
                match master.read(&mut chunk) {
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    // EIO: every process with the terminal open has ended.
                    Ok(0) | Err(_) => break,
                    Ok(n) => sink.push(&pty::clean(&chunk[..n])),
                }
            }
            let _ = done_tx.send(());
        });
    tokio::spawn(async move {
        if spawned.is_ok() {
            let _ = done_rx.await;
        }
    })
}

/// Copies the output pipe to the file until end-of-file.
async fn pump(mut rx: pipe::Receiver, mut sink: Sink) {
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        match rx.read(&mut chunk).await {
            Ok(0) => break,
            Ok(n) => sink.push(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
}
