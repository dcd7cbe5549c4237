//! Pseudo-terminals for background commands: a command started with
//! `run_in_background` gets a terminal of its own (stdin, stdout and
//! stderr on its slave side, and it as the controlling terminal), so that
//! an editor, a REPL or a y/n prompt works and can be driven with
//! BashInput; catui keeps the master side, reading what the command
//! prints and writing what the model types.

use std::os::fd::OwnedFd;

use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
use rustix::termios::{Winsize, tcsetwinsize};

/// The size the terminal reports: what programs lay their screens out for.
const COLUMNS: u16 = 120;
const ROWS: u16 = 40;

/// Both sides of a new pseudo-terminal.
pub(super) struct Pty {
    /// catui's side: reads the command's output, writes its input.
    pub(super) master: OwnedFd,
    /// The command's side: its stdin, stdout and stderr.
    pub(super) slave: OwnedFd,
}

/// Opens a pseudo-terminal of [`COLUMNS`] x [`ROWS`].
pub(super) fn open() -> std::io::Result<Pty> {
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)?;
    grantpt(&master)?;
    unlockpt(&master)?;
    let name = ptsname(&master, Vec::new())?;
    let slave: OwnedFd = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(std::ffi::OsStr::from_bytes(name.as_bytes()))?
        .into();
    tcsetwinsize(
        &slave,
        Winsize {
            ws_row: ROWS,
            ws_col: COLUMNS,
            ws_xpixel: 0,
            ws_ypixel: 0,
        },
    )?;
    Ok(Pty { master, slave })
}

use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::OpenOptionsExt as _;

/// What the model typed, as a terminal would send it: Enter is a carriage
/// return (`\n` in the model's text stands for it), the way a keyboard
/// sends it, so that both line-reading programs (the terminal turns it
/// into a newline) and full-screen ones (editors) see Enter.
pub(super) fn keys(input: &str) -> Vec<u8> {
    input.replace("\r\n", "\r").replace('\n', "\r").into_bytes()
}

/// The terminal's output as text for the model: carriage returns before
/// newlines (the terminal's line ends) become plain newlines.
pub(super) fn clean(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            continue;
        }
        out.push(b);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enter_is_a_carriage_return_and_line_ends_come_back_plain() {
        assert_eq!(keys(":q!\n"), b":q!\r");
        assert_eq!(keys("a\r\nb"), b"a\rb");
        assert_eq!(clean(b">>> 42\r\n>>> "), b">>> 42\n>>> ");
    }

    #[test]
    fn a_pty_opens_with_its_size() {
        let pty = open().unwrap();
        let size = rustix::termios::tcgetwinsize(&pty.slave).unwrap();
        assert_eq!((size.ws_col, size.ws_row), (COLUMNS, ROWS));
        assert!(rustix::termios::isatty(&pty.slave));
    }
}
