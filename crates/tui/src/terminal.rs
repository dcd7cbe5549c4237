//! Terminal hygiene: raw mode, bracketed paste, keyboard enhancement (so
//! Shift+Enter is distinguishable) and — for full-screen uses such as the
//! session picker or the transcript view — the alternate screen are
//! switched on together and always switched off again: on return, on error
//! (Drop) and on panic (a hook). Also owns the input reader thread (it reads
//! the terminal itself and decodes with [`crate::term_input`]), which can be
//! paused so that an external editor gets every keystroke, running
//! `$VISUAL`/`$EDITOR` with the terminal suspended, and noticing that the
//! terminal hung up ([`hung_up`]).

use std::fs::File;
use std::io::{self, Read, Stdout, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Once, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

use crossterm::event::{
    self, DisableBracketedPaste, EnableBracketedPaste, Event, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
    supports_keyboard_enhancement,
};
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc::{UnboundedSender, WeakUnboundedSender};

use crate::term_input::Decoder;

/// Whether keyboard enhancement flags were pushed (and must be popped).
static ENHANCED: AtomicBool = AtomicBool::new(false);
/// Whether our modes are on, so restoring twice is harmless.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Whether the alternate screen is on (and must be left).
static ALTERNATE: AtomicBool = AtomicBool::new(false);
static PANIC_HOOK: Once = Once::new();
/// The terminal's answer to the keyboard-enhancement query, asked once: a
/// terminal that does not answer costs a timeout, so never ask twice.
static ENHANCEMENT_SUPPORTED: OnceLock<bool> = OnceLock::new();

/// Where a session draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// The alternate screen, cleared on the way out.
    Full,
    /// The normal screen: output stays in the scrollback.
    Inline,
}

/// Records that the alternate screen was entered or left by the caller.
pub fn set_alternate(on: bool) {
    ALTERNATE.store(on, Ordering::SeqCst);
}

/// Switches the terminal modes on for `screen`.
pub fn enter(screen: Screen) -> io::Result<()> {
    install_panic_hook();
    enter_modes(screen).inspect_err(|_| restore_terminal())
}

fn enter_modes(screen: Screen) -> io::Result<()> {
    enable_raw_mode()?;
    let mut out = io::stdout();
    if screen == Screen::Full {
        execute!(out, EnterAlternateScreen)?;
        set_alternate(true);
    }
    execute!(out, EnableBracketedPaste)?;
    if *ENHANCEMENT_SUPPORTED.get_or_init(|| supports_keyboard_enhancement().unwrap_or(false)) {
        execute!(
            out,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
        ENHANCED.store(true, Ordering::SeqCst);
    }
    ACTIVE.store(true, Ordering::SeqCst);
    Ok(())
}

/// Puts the terminal back as it was. Errors are ignored on purpose: this
/// runs on the way out, where nothing better can be done with them.
pub fn restore_terminal() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = io::stdout();
    if ENHANCED.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    let _ = execute!(out, DisableBracketedPaste, crossterm::cursor::Show);
    if ALTERNATE.swap(false, Ordering::SeqCst) {
        let _ = execute!(
            out,
            crossterm::event::DisableMouseCapture,
            LeaveAlternateScreen
        );
    }
    let _ = disable_raw_mode();
    let _ = out.flush();
}

/// Restores the terminal before the default panic message is printed, so
/// the message is readable and the shell is usable afterwards.
fn install_panic_hook() {
    PANIC_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_terminal();
            previous(info);
        }));
    });
}

/// The full-screen terminal, restored when dropped.
pub struct TerminalSession {
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl TerminalSession {
    pub fn enter() -> io::Result<Self> {
        enter(Screen::Full)?;
        match Terminal::new(CrosstermBackend::new(io::stdout())) {
            Ok(terminal) => Ok(Self { terminal }),
            Err(e) => {
                restore_terminal();
                Err(e)
            }
        }
    }
}

impl Drop for TerminalSession {
    fn drop(&mut self) {
        restore_terminal();
    }
}

#[derive(Default)]
struct ReaderFlags {
    paused: bool,
    parked: bool,
    stop: bool,
    /// The thread has returned.
    finished: bool,
}

type Shared = Arc<(Mutex<ReaderFlags>, Condvar)>;

fn lock(shared: &Shared) -> MutexGuard<'_, ReaderFlags> {
    catui_core::sync::lock(&shared.0)
}

/// Reads terminal events on a thread and forwards them to the UI loop.
pub struct InputReader {
    shared: Shared,
    handle: Option<JoinHandle<()>>,
    /// For keys read while paused; weak, so that the channel closes when
    /// the thread gives up (the terminal hung up).
    tx: WeakUnboundedSender<Event>,
}

impl InputReader {
    pub fn spawn(tx: UnboundedSender<Event>) -> Self {
        let shared: Shared = Arc::new((Mutex::new(ReaderFlags::default()), Condvar::new()));
        let thread_shared = shared.clone();
        let weak = tx.downgrade();
        let handle = std::thread::spawn(move || {
            read_loop(&thread_shared, &tx);
            lock(&thread_shared).finished = true;
            thread_shared.1.notify_all();
        });
        Self {
            shared,
            handle: Some(handle),
            tx: weak,
        }
    }

    /// Runs `f`, which asks the terminal something through crossterm (where
    /// the cursor is), with this reader paused so that the answer reaches
    /// crossterm; keys crossterm read meanwhile are passed on afterwards.
    pub fn while_paused<T>(&self, f: impl FnOnce() -> T) -> T {
        self.pause();
        let out = f();
        while let Ok(true) = event::poll(Duration::ZERO) {
            match event::read() {
                Ok(ev) => {
                    if let Some(tx) = self.tx.upgrade() {
                        let _ = tx.send(ev);
                    }
                }
                Err(_) => break,
            }
        }
        self.resume();
        out
    }

    /// Stops reading and waits until the thread is parked (at most one
    /// poll interval), so a child process owns the keyboard.
    pub fn pause(&self) {
        let mut flags = lock(&self.shared);
        flags.paused = true;
        while !flags.parked && !flags.stop {
            let (g, timed_out) =
                catui_core::sync::wait_timeout(&self.shared.1, flags, Duration::from_millis(500));
            flags = g;
            if timed_out {
                break;
            }
        }
    }

    pub fn resume(&self) {
        lock(&self.shared).paused = false;
        self.shared.1.notify_all();
    }

    /// Asks the thread to stop without waiting for it (the terminal hung
    /// up: the thread may be stuck inside crossterm until the process ends).
    pub fn abandon(&mut self) {
        lock(&self.shared).stop = true;
        self.shared.1.notify_all();
        self.handle = None;
    }
}

/// How long dropping the reader waits for its thread to see `stop`.
const READER_STOP_WAIT: Duration = Duration::from_millis(300);

impl Drop for InputReader {
    fn drop(&mut self) {
        if self.handle.is_none() {
            return;
        }
        let mut flags = lock(&self.shared);
        flags.stop = true;
        self.shared.1.notify_all();
        // A reader inside crossterm on a terminal that hung up can spin
        // there without ever returning (it reads EOF forever): wait a
        // little, then leave the thread behind rather than hang the exit.
        let deadline = std::time::Instant::now() + READER_STOP_WAIT;
        while !flags.finished {
            let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) else {
                break;
            };
            flags = catui_core::sync::wait_timeout(&self.shared.1, flags, left).0;
        }
        let finished = flags.finished;
        drop(flags);
        if let Some(h) = self.handle.take()
            && finished
        {
            let _ = h.join();
        }
    }
}

/// How long the reader waits for input before it looks at its flags, the
/// window size and an unfinished escape sequence again.
const READ_POLL: Duration = Duration::from_millis(50);

/// The terminal to read keys from: stdin when it is one, else `/dev/tty`.
fn open_tty() -> io::Result<File> {
    use std::io::IsTerminal;
    let stdin = io::stdin();
    if stdin.is_terminal() {
        Ok(File::from(stdin.as_fd().try_clone_to_owned()?))
    } else {
        File::open("/dev/tty")
    }
}

fn read_loop(shared: &Shared, tx: &UnboundedSender<Event>) {
    let Ok(mut tty) = open_tty() else { return };
    let Ok(mut poll) = Poll::new() else { return };
    let fd = tty.as_raw_fd();
    if poll
        .registry()
        .register(&mut SourceFd(&fd), Token(0), Interest::READABLE)
        .is_err()
    {
        return;
    }
    let mut ready = Events::with_capacity(4);
    let mut decoder = Decoder::default();
    let mut size = crossterm::terminal::size().ok();
    let mut buf = vec![0u8; 8192];
    let mut out = Vec::new();
    loop {
        {
            let mut flags = lock(shared);
            while flags.paused && !flags.stop {
                flags.parked = true;
                shared.1.notify_all();
                flags = catui_core::sync::wait(&shared.1, flags);
            }
            flags.parked = false;
            if flags.stop {
                return;
            }
        }
        match poll.poll(&mut ready, Some(READ_POLL)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
        if ready.is_empty() {
            decoder.idle(&mut out);
        } else {
            // Readiness is reported once per arrival: read what is there
            // (a full buffer means there may be more).
            loop {
                match tty.read(&mut buf) {
                    // End of file or an error: the terminal hung up.
                    Ok(0) => return,
                    Ok(n) => {
                        decoder.feed(&buf[..n], &mut out);
                        if n < buf.len() {
                            break;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(_) => return,
                }
            }
        }
        let now = crossterm::terminal::size().ok();
        if now != size {
            size = now;
            if let Some((w, h)) = now {
                out.push(Event::Resize(w, h));
            }
        }
        for ev in out.drain(..) {
            if tx.send(ev).is_err() {
                return;
            }
        }
    }
}

/// Whether the terminal has hung up: its window closed, the tmux session
/// killed, the SSH connection lost, the pty's other end closed — with or
/// without a SIGHUP. The kernel then answers every terminal request on the
/// tty with an error, so stdin stops being a terminal. Cheap enough to ask
/// every frame; the reader also gives up when its reads fail or end, but a
/// paused reader (an editor running) reads nothing.
pub fn hung_up() -> bool {
    use std::io::IsTerminal;
    !io::stdin().is_terminal()
}

/// The editor command: `$VISUAL`, then `$EDITOR`, then `vi`. May carry
/// arguments (`code -w`).
pub fn editor_command() -> Vec<String> {
    choose_editor(std::env::var("VISUAL").ok(), std::env::var("EDITOR").ok())
}

fn choose_editor(visual: Option<String>, editor: Option<String>) -> Vec<String> {
    let cmd = [visual, editor]
        .into_iter()
        .flatten()
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string());
    cmd.split_whitespace().map(str::to_string).collect()
}

/// Runs the configured editor on `path` and waits for it.
pub fn open_in_editor(path: &Path) -> io::Result<()> {
    open_with(&editor_command(), path)
}

fn open_with(cmd: &[String], path: &Path) -> io::Result<()> {
    let Some((program, args)) = cmd.split_first() else {
        return Err(io::Error::other(
            "no editor configured: set $VISUAL or $EDITOR",
        ));
    };
    let status = Command::new(program)
        .args(args)
        .arg(path)
        .status()
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("could not start editor '{program}': {e}; set $VISUAL or $EDITOR"),
            )
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "editor '{program}' exited with {status}; the text was not changed"
        )))
    }
}

/// Edits `text` in the external editor through a temporary Markdown file.
pub fn edit_text(text: &str) -> io::Result<String> {
    edit_text_with(&editor_command(), text)
}

fn edit_text_with(cmd: &[String], text: &str) -> io::Result<String> {
    let file = tempfile::Builder::new()
        .prefix("catui-")
        .suffix(".md")
        .tempfile()?;
    std::fs::write(file.path(), text)?;
    open_with(cmd, file.path())?;
    let edited = std::fs::read_to_string(file.path())?;
    // Editors add a final newline; drop it when the original had none.
    Ok(match (text.ends_with('\n'), edited.strip_suffix('\n')) {
        (false, Some(stripped)) => stripped.to_string(),
        _ => edited,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_visual_then_editor_then_vi() {
        let s = |v: &str| Some(v.to_string());
        assert_eq!(choose_editor(s("code -w"), s("nano")), ["code", "-w"]);
        assert_eq!(choose_editor(s(" "), s("nano")), ["nano"]);
        assert_eq!(choose_editor(None, None), ["vi"]);
    }

    #[test]
    fn edits_text_through_the_editor_command() {
        // A stand-in editor: a shell script that appends a line.
        let cmd: Vec<String> = ["sh", "-c", "printf 'added\\n' >> \"$0\""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(edit_text_with(&cmd, "first\n").unwrap(), "first\nadded\n");
        assert_eq!(edit_text_with(&cmd, "first").unwrap(), "firstadded");
        let failing: Vec<String> = vec!["false".into()];
        let err = edit_text_with(&failing, "x").unwrap_err();
        assert!(err.to_string().contains("not changed"));
        let missing: Vec<String> = vec!["/nonexistent/editor".into()];
        assert!(
            edit_text_with(&missing, "x")
                .unwrap_err()
                .to_string()
                .contains("could not start")
        );
    }
}
