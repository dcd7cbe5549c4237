//! Everything the `catui` binary prints on stdout and stderr outside the
//! terminal interface: through the one terminal sanitiser
//! (`catui_protocol::terminal`), since almost any line can hold bytes from
//! outside — the model's answer, a tool's summary or error, a plan file, a
//! server's error message — and an escape sequence among them would drive
//! the user's terminal (OSC 52 sets the clipboard, OSC 2 the title, CSI
//! erases what was shown).
//!
//! This module defines `println!` and `eprintln!` for the whole crate
//! (`main.rs` declares it first, with `#[macro_use]`, so that these shadow
//! the standard ones in every module after it): the same formatting, the
//! text sanitised, and a closed pipe or a terminal that hung up is a lost
//! line rather than a panic. Writers that subcommands print through are
//! [`stdout`] (a [`Sanitized`] writer); JSON lines go through
//! [`json_line`].

use std::io::{self, Write};

use catui_protocol::terminal::{self, Sanitizer};

/// `println!` for the crate: the line sanitised, on stdout.
macro_rules! println {
    () => {
        $crate::output::out_line("")
    };
    ($($arg:tt)*) => {
        $crate::output::out_line(&format!($($arg)*))
    };
}

/// `eprintln!` for the crate: the line sanitised, on stderr.
macro_rules! eprintln {
    () => {
        $crate::output::err_line("")
    };
    ($($arg:tt)*) => {
        $crate::output::err_line(&format!($($arg)*))
    };
}

/// Prints `text` and a newline on stdout, sanitised; a failed write is
/// ignored (the reader has gone).
pub fn out_line(text: &str) {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{}", terminal::sanitize(text));
    let _ = out.flush();
}

/// Prints `text` and a newline on stderr, sanitised; a failed write is
/// ignored (the terminal may have hung up).
pub fn err_line(text: &str) {
    let _ = writeln!(io::stderr().lock(), "{}", terminal::sanitize(text));
}

/// Text for stdout, sanitised: what headless text output prints.
pub fn text(text: &str) -> std::borrow::Cow<'_, str> {
    terminal::sanitize(text)
}

/// A JSON line made safe to print, its value unchanged.
pub fn json_line(line: &str) -> std::borrow::Cow<'_, str> {
    terminal::json_line(line)
}

/// Stdout through the sanitiser: what subcommands print to.
pub fn stdout() -> Sanitized<io::Stdout> {
    Sanitized::new(io::stdout())
}

/// A writer that sanitises what passes through it. It keeps its place
/// between writes, so a sequence that `write!` hands over in two pieces
/// is removed whole; bytes that are not UTF-8 are dropped.
pub struct Sanitized<W: Write> {
    inner: W,
    sanitizer: Sanitizer,
    /// The start of a character split between two writes.
    partial: Vec<u8>,
}

impl<W: Write> Sanitized<W> {
    pub fn new(inner: W) -> Sanitized<W> {
        Sanitized {
            inner,
            sanitizer: Sanitizer::new(),
            partial: Vec::new(),
        }
    }
}

impl<W: Write> Write for Sanitized<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.partial.extend_from_slice(buf);
        let mut clean = String::with_capacity(self.partial.len());
        let mut rest: &[u8] = &self.partial;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    self.sanitizer.push_str(s, &mut clean);
                    rest = &[];
                    break;
                }
                Err(e) => {
                    let (good, after) = rest.split_at(e.valid_up_to());
                    // Valid by the error's own account.
                    if let Ok(s) = std::str::from_utf8(good) {
                        self.sanitizer.push_str(s, &mut clean);
                    }
                    match e.error_len() {
                        // Not UTF-8: dropped.
                        Some(n) => rest = &after[n..],
                        // A character cut off at the end: kept for the
                        // next write.
                        None => {
                            rest = after;
                            break;
                        }
                    }
                }
            }
        }
        self.partial = rest.to_vec();
        self.inner.write_all(clean.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_writer_removes_sequences_split_between_writes_and_bytes() {
        let mut w = Sanitized::new(Vec::new());
        let esc = '\u{1b}';
        write!(w, "a{esc}").unwrap();
        write!(w, "]52;c;ZXZpbA==\u{7}b ").unwrap();
        // A C1 OSC (C2 9D) cut between two writes, and a byte that is not
        // UTF-8.
        w.write_all(&[0xC2]).unwrap();
        w.write_all(&[0x9D, b'2', b';', b't', 0x07, 0xFF, b'c'])
            .unwrap();
        assert_eq!(String::from_utf8(w.inner).unwrap(), "ab c");
    }
}
