//! Opening the review page in the user's browser, or saying why not (the
//! address is then printed for the user to open): over SSH the browser
//! would open on the wrong machine, and without a display there is none.
//! `$BROWSER` wins; otherwise `xdg-open` (Linux with a display) or `open`
//! (macOS). The launcher is waited for on a thread of its own (it returns
//! at once, leaving the browser running).

use std::process::{Command, Stdio};

/// Why the page was not opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotOpened {
    #[error("this is an SSH session: open the address in a browser on your own machine")]
    Ssh,
    #[error("no browser can be started here (no display and no $BROWSER)")]
    NoBrowser,
    #[error("{program} could not be started: {reason}")]
    Failed { program: String, reason: String },
}

/// Opens `url` in a browser, reading the environment through `env`.
pub fn open_in_browser(url: &str, env: impl Fn(&str) -> Option<String>) -> Result<(), NotOpened> {
    let set = |name: &str| env(name).is_some_and(|v| !v.trim().is_empty());
    if set("SSH_CONNECTION") || set("SSH_TTY") || set("SSH_CLIENT") {
        return Err(NotOpened::Ssh);
    }
    let program = match env("BROWSER").filter(|b| !b.trim().is_empty()) {
        Some(browser) => browser,
        None if cfg!(target_os = "macos") => "open".to_string(),
        None if set("DISPLAY") || set("WAYLAND_DISPLAY") => "xdg-open".to_string(),
        None => return Err(NotOpened::NoBrowser),
    };
    let mut words = program.split_whitespace();
    let name = words.next().unwrap_or("xdg-open").to_string();
    let mut child = Command::new(&name)
        .args(words)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| NotOpened::Failed {
            program: name,
            reason: e.to_string(),
        })?;
    std::thread::spawn(move || child.wait());
    Ok(())
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
        // `true` stands in for a browser that starts.
        assert_eq!(
            open_in_browser("http://x", env(&[("BROWSER", "true")])),
            Ok(())
        );
    }
}
