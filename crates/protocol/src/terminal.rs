//! The one terminal sanitiser: every byte catui prints that came from the
//! model, a tool, a file or a server passes [`sanitize`] (or a
//! [`Sanitizer`] for text that arrives in pieces, or is shown with
//! [`reveal`] where the user must see what is there), so that nothing it
//! prints can drive the terminal — set the clipboard (OSC 52), the window
//! title (OSC 0/2), move the cursor or erase what was shown (CSI), send
//! device control strings (DCS), ring the bell, or slip a C1 control past
//! a terminal that reads one.
//!
//! What is removed: escape sequences whole (`ESC [ … final`, `ESC ] …
//! BEL|ST`, `ESC P|X|^|_ … ST`, `ESC` with intermediates and a final byte,
//! a bare `ESC`), their C1 forms (U+009B CSI, U+009D OSC, U+0090 DCS,
//! U+0098 SOS, U+009E PM, U+009F APC) with what they introduce, every other
//! C0 and C1 control and DEL. What is kept: text, newlines and tabs (a
//! `\r\n` becomes `\n`; a lone `\r`, which would let later text overwrite
//! earlier text on screen, goes).
//!
//! JSON output needs no sanitising of its own beyond [`json_line`]: a JSON
//! encoder escapes C0 controls (ESC becomes `\u001b`), but not the C1
//! range, which [`json_line`] escapes too.
//!
//! ```
//! use catui_protocol::terminal::{reveal, sanitize};
//! let answer = "Done.\x1b]52;c;ZXZpbA==\x07 \x1b[31mred\x1b[0m\n";
//! assert_eq!(sanitize(answer), "Done. red\n");
//! assert_eq!(reveal("a\x1bb\x07"), "a␛b␇");
//! ```

use std::borrow::Cow;

const ESC: char = '\u{1b}';
const BEL: char = '\u{07}';
/// The C1 string terminator.
const ST: char = '\u{9c}';

/// Where the sanitiser is inside what it reads.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
enum State {
    #[default]
    Text,
    /// After a carriage return: kept only as part of `\r\n`.
    CarriageReturn,
    /// After `ESC`.
    Escape,
    /// After `ESC` and intermediate bytes (`ESC ( B`): up to a final byte.
    EscapeIntermediate,
    /// Inside a control sequence: parameters, then one final byte.
    Csi,
    /// Inside a string (OSC, DCS, SOS, PM, APC) up to its terminator.
    Str,
    /// After `ESC` inside a string: `ESC \` ends it.
    StrEscape,
}

/// The sanitiser over text that arrives in pieces (a stream, a writer
/// called many times): a sequence split between two pieces is removed as
/// whole as one in a single piece. [`sanitize`] is this over one piece.
#[derive(Clone, Debug, Default)]
pub struct Sanitizer {
    state: State,
}

impl Sanitizer {
    pub fn new() -> Sanitizer {
        Sanitizer::default()
    }

    /// Appends what of `text` may be printed to `out`.
    pub fn push_str(&mut self, text: &str, out: &mut String) {
        for c in text.chars() {
            self.push(c, out);
        }
    }

    /// Reads one character, appending it to `out` if it may be printed.
    pub fn push(&mut self, c: char, out: &mut String) {
        self.state = match self.state {
            State::Text => self.text(c, out),
            State::CarriageReturn => {
                if c == '\n' {
                    out.push('\n');
                    State::Text
                } else {
                    self.text(c, out)
                }
            }
            State::Escape => match c {
                '[' => State::Csi,
                ']' | 'P' | 'X' | '^' | '_' => State::Str,
                ' '..='/' => State::EscapeIntermediate,
                // A newline or another escape is not swallowed by the
                // escape before it.
                '\n' | ESC => self.text(c, out),
                // Two-byte escapes (`ESC c`, `ESC 7`, `ESC =`): the
                // character goes with the escape, whatever it is.
                _ => State::Text,
            },
            State::EscapeIntermediate => match c {
                ' '..='/' => State::EscapeIntermediate,
                '0'..='~' => State::Text,
                // Broken off: what broke it is read as text again.
                _ => self.text(c, out),
            },
            State::Csi => match c {
                // Parameters and intermediates.
                ' '..='?' => State::Csi,
                '@'..='~' => State::Text,
                // Broken off by something that cannot be part of one.
                _ => self.text(c, out),
            },
            State::Str => match c {
                BEL | ST => State::Text,
                ESC => State::StrEscape,
                // A string with no terminator ends at the line's end, so
                // that it cannot swallow the rest of the text.
                '\n' => {
                    out.push('\n');
                    State::Text
                }
                _ => State::Str,
            },
            State::StrEscape => match c {
                '\\' => State::Text,
                // `ESC` ended the string and starts a sequence of its own.
                _ => {
                    self.state = State::Escape;
                    return self.push(c, out);
                }
            },
        };
    }

    /// A character read as text: printed, dropped, or the start of a
    /// sequence. Returns the state after it.
    fn text(&mut self, c: char, out: &mut String) -> State {
        match c {
            ESC => State::Escape,
            '\r' => State::CarriageReturn,
            '\u{9b}' => State::Csi,
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => State::Str,
            c if removed_control(c) => State::Text,
            c => {
                out.push(c);
                State::Text
            }
        }
    }
}

/// Whether `c` is a control character [`sanitize`] removes: C0 but tab and
/// newline, DEL, C1.
fn removed_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `text` with every escape sequence and control character removed but
/// newlines and tabs (see the module documentation). Borrows when there
/// is nothing to remove.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(removed_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    Sanitizer::new().push_str(text, &mut out);
    Cow::Owned(out)
}

/// Characters that are not controls but change how the text around them
/// reads without showing themselves: bidirectional overrides and isolates
/// (a command that displays reversed), zero-width spaces and joiners, the
/// byte order mark. [`reveal`] shows them.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2069}'
            | '\u{feff}'
            | '\u{061c}'
            | '\u{00ad}'
    )
}

/// `text` with every control character but newline and tab shown as a
/// visible picture (`␛` for ESC, `␇` for BEL, `␍` for a carriage return,
/// `␡` for DEL, `⟨U+009B⟩` for a C1 control or an invisible format
/// character such as a bidirectional override), so that the user sees
/// what is there instead of the terminal acting on it: for what the user
/// must judge (the command an approval dialog asks about).
pub fn reveal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| removed_control(c) || invisible(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\u{7f}' => out.push('\u{2421}'),
            c if (c as u32) < 0x20 && removed_control(c) => {
                out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'))
            }
            c if removed_control(c) || invisible(c) => {
                out.push_str(&format!("⟨U+{:04X}⟩", c as u32))
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A line of JSON output made safe to print: DEL and the C1 controls
/// (which a JSON encoder leaves raw) escaped as `\u007f`…`\u009f`; C0
/// controls are escaped by the encoder already. The JSON value is
/// unchanged.
pub fn json_line(line: &str) -> Cow<'_, str> {
    let raw = |c: &char| ('\u{7f}'..='\u{9f}').contains(c);
    if !line.chars().any(|c| raw(&c)) {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len() + 8);
    for c in line.chars() {
        if raw(&c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
#[path = "terminal_tests.rs"]
mod tests;
