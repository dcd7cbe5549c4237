//! Ending a session on SIGTERM, SIGINT or SIGHUP without leaving anything
//! behind: the running turn is interrupted (its Bash commands are killed
//! with their process groups), the front end says how the session ended (a
//! final `result` line in stream-json; the terminal restored in the UI),
//! every process group a command left running is killed, and the process
//! exits with 128 + the signal number. A second signal while the first is
//! handled ends the process at once (after the same kill and restore), and
//! a front end that must end promptly whatever happens (the terminal UI:
//! its terminal may be gone) sets a deadline with [`exit_within`].

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

/// A signal that asked the session to end.
#[derive(Clone, Default)]
pub struct Stop {
    token: CancellationToken,
    signal: Arc<AtomicI32>,
}

impl Stop {
    /// Cancelled when the first signal arrives.
    pub fn token(&self) -> &CancellationToken {
        &self.token
    }

    /// The signal that arrived, if any.
    pub fn signal(&self) -> Option<i32> {
        match self.signal.load(Ordering::SeqCst) {
            0 => None,
            n => Some(n),
        }
    }

    /// The exit code for the signal (128 + its number).
    pub fn exit_code(&self) -> Option<u8> {
        self.signal().and_then(|n| u8::try_from(128 + n).ok())
    }

    /// The signal's name for messages.
    pub fn name(&self) -> &'static str {
        match self.signal() {
            Some(n) if n == SIGTERM => "SIGTERM",
            Some(n) if n == SIGINT => "SIGINT",
            Some(n) if n == SIGHUP => "SIGHUP",
            _ => "a signal",
        }
    }
}

/// Ends the process with `code` after `grace` unless it has ended by
/// then: the terminal is restored (errors ignored: it may have hung up)
/// and every process group a command started is killed. A backstop for
/// a clean shutdown that hangs (a write to a blocked terminal, a teammate
/// that does not stop).
pub fn exit_within(grace: std::time::Duration, code: u8) {
    std::thread::spawn(move || {
        std::thread::sleep(grace);
        // Restoring writes to the terminal, which may be stuck: it gets a
        // moment on its own thread, no more.
        std::thread::spawn(catui_tui::restore_terminal);
        std::thread::sleep(std::time::Duration::from_millis(50));
        catui_core::tools::bash::groups::kill_all();
        std::process::exit(i32::from(code));
    });
}

const SIGHUP: i32 = 1;
const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;

/// Starts listening for SIGTERM, SIGINT and SIGHUP. The first one calls
/// `on_first` and cancels the returned [`Stop`]; a second one calls
/// `on_second` and exits the process. Listening replaces the default
/// action (termination) for the rest of the process's life, so someone
/// must act on the token.
pub fn watch(
    on_first: impl Fn(&Stop) + Send + 'static,
    on_second: impl Fn() + Send + 'static,
) -> Stop {
    let stop = Stop::default();
    let kinds = [
        (SignalKind::terminate(), SIGTERM),
        (SignalKind::interrupt(), SIGINT),
        (SignalKind::hangup(), SIGHUP),
    ];
    let mut streams = Vec::new();
    for (kind, number) in kinds {
        match signal(kind) {
            Ok(s) => streams.push((s, number)),
            Err(e) => tracing::debug!("cannot watch signal {number}: {e}"),
        }
    }
    let watched = stop.clone();
    tokio::spawn(async move {
        let mut seen = 0;
        loop {
            let futures = streams.iter_mut().map(|(s, n)| {
                let n = *n;
                Box::pin(async move { s.recv().await.map(|()| n) })
            });
            let (got, _, _) = futures::future::select_all(futures).await;
            let Some(number) = got else { return };
            seen += 1;
            if seen == 1 {
                watched.signal.store(number, Ordering::SeqCst);
                on_first(&watched);
                watched.token.cancel();
            } else {
                on_second();
                let code = watched.exit_code().unwrap_or(1);
                catui_core::tools::bash::groups::kill_all();
                std::process::exit(i32::from(code));
            }
        }
    });
    stop
}
