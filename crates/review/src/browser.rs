//! Opening the review page in the user's browser, or saying why not (the
//! address is then printed for the user to open): over SSH the browser
//! would open on the wrong machine, and without a display there is none.
//! `$BROWSER` wins; otherwise `xdg-open` (Linux with a display) or `open`
//! (macOS). The review page's browser gets a hand-off file's path, never
//! a token ([`open_review`]). A launcher returns as soon as the browser is started, and fails
//! when none can be: catui waits a moment for that answer before saying the
//! page was opened. A program that keeps running (a browser named in
//! `$BROWSER` itself) counts as opened and is waited for on a thread of its
//! own.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::server::ReviewLinks;

/// How long a launcher may take to say whether a browser started.
const LAUNCH_ANSWER: Duration = Duration::from_secs(5);

/// Why the page was not opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotOpened {
    #[error("this is an SSH session: open the address in a browser on your own machine")]
    Ssh,
    #[error("no browser can be started here (no display and no $BROWSER)")]
    NoBrowser,
    #[error("{program} did not open a browser: {reason}")]
    Failed { program: String, reason: String },
}

/// Opens `url` in a browser, reading the environment through `env`.
/// `url` is on the browser's command line, where other local users can
/// read it: the review page is opened with [`open_review`] instead.
pub fn open_in_browser(url: &str, env: impl Fn(&str) -> Option<String>) -> Result<(), NotOpened> {
    let program = browser_program(&env)?;
    launch(&program, url)
}

/// Opens the review page of `links` in a browser without its token on
/// any command line: the browser is given the path of a hand-off file
/// (0600) that sends it on to a link that works once
/// ([`ReviewLinks::handoff_file`]).
pub fn open_review(
    links: &ReviewLinks,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(), NotOpened> {
    let program = browser_program(&env)?;
    let file = links.handoff_file().map_err(|e| NotOpened::Failed {
        program: "catui".to_string(),
        reason: format!("the page's hand-off file could not be written: {e}"),
    })?;
    launch(&program, &file.to_string_lossy())
}

/// The program that opens a browser here, or why there is none.
fn browser_program(env: &impl Fn(&str) -> Option<String>) -> Result<String, NotOpened> {
    let set = |name: &str| env(name).is_some_and(|v| !v.trim().is_empty());
    if set("SSH_CONNECTION") || set("SSH_TTY") || set("SSH_CLIENT") {
        return Err(NotOpened::Ssh);
    }
    match env("BROWSER").filter(|b| !b.trim().is_empty()) {
        Some(browser) => Ok(browser),
        None if cfg!(target_os = "macos") => Ok("open".to_string()),
        None if set("DISPLAY") || set("WAYLAND_DISPLAY") => Ok("xdg-open".to_string()),
        None => Err(NotOpened::NoBrowser),
    }
}

/// Starts `program` (with its own words) on `target`.
fn launch(program: &str, target: &str) -> Result<(), NotOpened> {
    let mut words = program.split_whitespace();
    let name = words.next().unwrap_or("xdg-open").to_string();
    let mut child = Command::new(&name)
        .args(words)
        .arg(target)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| NotOpened::Failed {
            program: name.clone(),
            reason: e.to_string(),
        })?;
    let asked = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                return Err(NotOpened::Failed {
                    program: name,
                    reason: format!("it ended with {status}"),
                });
            }
            Ok(None) if asked.elapsed() < LAUNCH_ANSWER => {
                std::thread::sleep(Duration::from_millis(20));
            }
            // Still running: a browser itself, or a launcher that waits
            // for one. Reap it whenever it ends.
            Ok(None) | Err(_) => {
                std::thread::spawn(move || child.wait());
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn ssh_sessions_and_machines_without_a_display_print_the_address() {
        assert_eq!(
            open_in_browser(
                "http://x",
                env(&[("SSH_CONNECTION", "1 2 3 4"), ("BROWSER", "true")])
            ),
            Err(NotOpened::Ssh)
        );
        if !cfg!(target_os = "macos") {
            assert_eq!(
                open_in_browser("http://x", env(&[])),
                Err(NotOpened::NoBrowser)
            );
        }
        assert!(matches!(
            open_in_browser("http://x", env(&[("BROWSER", "/nonexistent/browser")])),
            Err(NotOpened::Failed { .. })
        ));
        // `true` stands in for a launcher that started a browser, `false`
        // for one that found none.
        assert_eq!(
            open_in_browser("http://x", env(&[("BROWSER", "true")])),
            Ok(())
        );
        assert!(matches!(
            open_in_browser("http://x", env(&[("BROWSER", "false")])),
            Err(NotOpened::Failed { .. })
        ));
    }
}
