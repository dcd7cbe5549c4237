//! Turning the bytes a terminal sends into key, paste, mouse and focus
//! events. catui reads the terminal itself (see [`crate::terminal`]) rather
//! than through crossterm's reader because that reader silently drops
//! sequences it does not know — among them xterm's modifyOtherKeys form
//! `ESC [ 27 ; mods ; code ~`, which tmux (`extended-keys`) and xterm send
//! for Shift+Enter — and spins on a terminal that hung up.
//!
//! Understood: UTF-8 text, control keys, Alt as an Esc prefix, the legacy
//! cursor/function key forms (`CSI A`, `SS3 P`, `CSI 3 ~`, with `;mods`),
//! modifyOtherKeys, the kitty keyboard protocol's `CSI code ; mods u`,
//! bracketed paste, focus reports and X10/SGR/urxvt mouse reports. Anything
//! else is consumed and ignored, never passed on as text.

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

const ESC: u8 = 0x1B;
const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";
/// Longest control sequence looked for before the bytes are given up.
const MAX_SEQUENCE: usize = 64;

/// What one step of decoding found at the front of the buffer.
#[derive(Debug)]
enum Step {
    /// More bytes are needed to tell.
    Need,
    /// These bytes mean nothing catui uses.
    Skip(usize),
    /// An event, and how many bytes it took.
    Event(Event, usize),
}

/// Bytes read so far that do not yet make a whole event.
#[derive(Debug, Default)]
pub struct Decoder {
    pending: Vec<u8>,
    /// How much of an unfinished paste at the front of `pending` has been
    /// searched for its end already (a long paste arrives in many reads).
    scanned: usize,
}

impl Decoder {
    /// Decodes `bytes`, just read, into `out`. A sequence cut off at the
    /// end waits for the next read; a lone Esc at the end is the Esc key
    /// (a terminal sends an Alt or cursor sequence in one write).
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        self.pending.extend_from_slice(bytes);
        if self.scanned > 0 {
            // An unfinished paste: look for its end only in what is new.
            let from = self.scanned.saturating_sub(PASTE_END.len() - 1);
            if !self.pending[from..]
                .windows(PASTE_END.len())
                .any(|w| w == PASTE_END)
            {
                self.scanned = self.pending.len();
                return;
            }
            self.scanned = 0;
        }
        let mut at = 0;
        while at < self.pending.len() {
            match step(&self.pending[at..]) {
                Step::Need => break,
                Step::Skip(n) => at += n,
                Step::Event(ev, n) => {
                    out.push(ev);
                    at += n;
                }
            }
        }
        self.pending.drain(..at);
        if self.pending.starts_with(PASTE_START) {
            self.scanned = self.pending.len();
        }
        if self.pending == [ESC] {
            self.pending.clear();
            out.push(key(KeyCode::Esc, KeyModifiers::NONE));
        }
    }

    /// Nothing more arrived for a while: an unfinished sequence is given up
    /// (`ESC x` is still Alt+x). A paste waits for its end however long.
    pub fn idle(&mut self, out: &mut Vec<Event>) {
        if self.pending.is_empty() || self.pending.starts_with(PASTE_START) {
            return;
        }
        if let [ESC, _] = self.pending[..]
            && let Step::Event(ev, _) = with_alt(step(&self.pending[1..]), 1)
        {
            out.push(ev);
        }
        self.pending.clear();
        self.scanned = 0;
    }
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> Event {
    Event::Key(KeyEvent::new(code, modifiers))
}

fn ctrl(c: u8) -> KeyCode {
    KeyCode::Char(char::from(c))
}

fn step(b: &[u8]) -> Step {
    let one = |code, mods| Step::Event(key(code, mods), 1);
    match b[0] {
        ESC => escape(b),
        b'\r' => one(KeyCode::Enter, KeyModifiers::NONE),
        b'\t' => one(KeyCode::Tab, KeyModifiers::NONE),
        0x7F => one(KeyCode::Backspace, KeyModifiers::NONE),
        0 => one(ctrl(b' '), KeyModifiers::CONTROL),
        c @ 0x01..=0x1A => one(ctrl(c - 1 + b'a'), KeyModifiers::CONTROL),
        c @ 0x1C..=0x1F => one(ctrl(c - 0x1C + b'4'), KeyModifiers::CONTROL),
        _ => text(b),
    }
}

/// One UTF-8 character at the front of `b` (uppercase carries Shift, as
/// crossterm reports it).
fn text(b: &[u8]) -> Step {
    let len = match b[0] {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => return Step::Skip(1),
    };
    if b.len() < len {
        return Step::Need;
    }
    let Some(c) = std::str::from_utf8(&b[..len])
        .ok()
        .and_then(|s| s.chars().next())
    else {
        return Step::Skip(1);
    };
    let shift = if c.is_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    Step::Event(key(KeyCode::Char(c), shift), len)
}

fn escape(b: &[u8]) -> Step {
    match b.get(1) {
        None => Step::Need,
        Some(b'[') => csi(b),
        Some(b'O') => match b.get(2) {
            None => Step::Need,
            Some(&f) => match legacy_final(f) {
                Some(code) => Step::Event(key(code, KeyModifiers::NONE), 3),
                None => Step::Skip(3),
            },
        },
        Some(&ESC) => Step::Event(key(KeyCode::Esc, KeyModifiers::NONE), 1),
        Some(_) => with_alt(step(&b[1..]), 1),
    }
}

/// Alt plus whatever follows the Esc prefix.
fn with_alt(inner: Step, prefix: usize) -> Step {
    match inner {
        Step::Event(Event::Key(mut k), n) => {
            k.modifiers |= KeyModifiers::ALT;
            Step::Event(Event::Key(k), n + prefix)
        }
        Step::Event(_, n) | Step::Skip(n) => Step::Skip(n + prefix),
        Step::Need => Step::Need,
    }
}

/// The key a legacy final byte names (`CSI A`, `SS3 P`, `CSI 1;5 C`).
fn legacy_final(f: u8) -> Option<KeyCode> {
    Some(match f {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        b'P' => KeyCode::F(1),
        b'Q' => KeyCode::F(2),
        b'R' => KeyCode::F(3),
        b'S' => KeyCode::F(4),
        _ => return None,
    })
}

/// `ESC [ params final`.
fn csi(b: &[u8]) -> Step {
    if b.len() == 2 {
        return Step::Need;
    }
    if b[2] == b'M' {
        // X10 mouse: three bytes after the M.
        return match b.get(3..6) {
            None => Step::Need,
            Some(&[cb, x, y]) => mouse_step(
                u16::from(cb).saturating_sub(32),
                u16::from(x).saturating_sub(33),
                u16::from(y).saturating_sub(33),
                true,
                6,
            ),
            Some(_) => Step::Skip(6),
        };
    }
    let Some(end) = (2..b.len()).find(|&i| !(0x20..=0x3F).contains(&b[i])) else {
        return if b.len() > MAX_SEQUENCE {
            Step::Skip(b.len())
        } else {
            Step::Need
        };
    };
    let f = b[end];
    if !(0x40..=0x7E).contains(&f) {
        // Not a control sequence after all: give up its start.
        return Step::Skip(end);
    }
    let params = &b[2..end];
    let len = end + 1;
    if params == b"200" && f == b'~' {
        return paste(b);
    }
    let event = match params.first() {
        Some(b'<') if matches!(f, b'M' | b'm') => sgr_mouse(&params[1..], f == b'M'),
        Some(b'?' | b'>' | b'=') => None,
        _ => plain_csi(params, f),
    };
    match event {
        Some(ev) => Step::Event(ev, len),
        None => Step::Skip(len),
    }
}

/// Bracketed paste: everything up to `ESC [ 201 ~`, as it came.
fn paste(b: &[u8]) -> Step {
    let body = &b[PASTE_START.len()..];
    match body.windows(PASTE_END.len()).position(|w| w == PASTE_END) {
        None => Step::Need,
        Some(at) => Step::Event(
            Event::Paste(String::from_utf8_lossy(&body[..at]).into_owned()),
            PASTE_START.len() + at + PASTE_END.len(),
        ),
    }
}

/// The numbers of a parameter string, `;`-separated; each may carry
/// `:`-separated sub-numbers (the kitty protocol's alternates and event
/// types). Missing numbers are `None`.
fn numbers(params: &[u8]) -> Option<Vec<Vec<Option<u32>>>> {
    let s = std::str::from_utf8(params).ok()?;
    if s.is_empty() {
        return Some(Vec::new());
    }
    s.split(';')
        .map(|part| {
            part.split(':')
                .map(|n| {
                    if n.is_empty() {
                        Ok(None)
                    } else {
                        n.parse().map(Some)
                    }
                })
                .collect::<Result<Vec<_>, _>>()
                .ok()
        })
        .collect()
}

/// The modifiers of an xterm modifier parameter (1 + a bit mask).
fn modifiers(param: u32) -> KeyModifiers {
    let bits = param.saturating_sub(1);
    let mut m = KeyModifiers::NONE;
    for (bit, flag) in [
        (1, KeyModifiers::SHIFT),
        (2, KeyModifiers::ALT),
        (4, KeyModifiers::CONTROL),
        (8, KeyModifiers::SUPER),
        (16, KeyModifiers::HYPER),
        (32, KeyModifiers::META),
    ] {
        if bits & bit != 0 {
            m |= flag;
        }
    }
    m
}

fn event_kind(code: Option<u32>) -> KeyEventKind {
    match code {
        Some(2) => KeyEventKind::Repeat,
        Some(3) => KeyEventKind::Release,
        _ => KeyEventKind::Press,
    }
}

/// A key a numeric code names: modifyOtherKeys and kitty `u` sequences
/// carry the Unicode code point, a few with their own key.
fn code_point_key(code: u32, mods: KeyModifiers) -> Option<KeyCode> {
    Some(match code {
        13 | 57414 => KeyCode::Enter,
        9 if mods.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
        9 => KeyCode::Tab,
        27 => KeyCode::Esc,
        8 | 127 => KeyCode::Backspace,
        // The keypad's digits and operators, as their characters.
        57399..=57408 => KeyCode::Char(char::from_digit(code - 57399, 10)?),
        57409 => KeyCode::Char('.'),
        57410 => KeyCode::Char('/'),
        57411 => KeyCode::Char('*'),
        57412 => KeyCode::Char('-'),
        57413 => KeyCode::Char('+'),
        57415 => KeyCode::Char('='),
        0..=31 | 57344..=63743 => return None,
        _ => KeyCode::Char(char::from_u32(code)?),
    })
}

/// The key of `CSI n ~`.
fn tilde_key(n: u32) -> Option<KeyCode> {
    Some(match n {
        1 | 7 => KeyCode::Home,
        2 => KeyCode::Insert,
        3 => KeyCode::Delete,
        4 | 8 => KeyCode::End,
        5 => KeyCode::PageUp,
        6 => KeyCode::PageDown,
        11..=15 => KeyCode::F((n - 10) as u8),
        17..=21 => KeyCode::F((n - 11) as u8),
        23..=26 => KeyCode::F((n - 12) as u8),
        28..=29 => KeyCode::F((n - 15) as u8),
        31..=34 => KeyCode::F((n - 17) as u8),
        _ => return None,
    })
}

fn plain_csi(params: &[u8], f: u8) -> Option<Event> {
    let nums = numbers(params)?;
    let first = |i: usize| nums.get(i).and_then(|n| n.first().copied().flatten());
    let mods = first(1).map_or(KeyModifiers::NONE, modifiers);
    let kind = event_kind(nums.get(1).and_then(|n| n.get(1).copied().flatten()));
    let with = |code: KeyCode, mods: KeyModifiers| {
        Some(Event::Key(KeyEvent::new_with_kind(code, mods, kind)))
    };
    match f {
        b'~' if first(0) == Some(27) => {
            // modifyOtherKeys: CSI 27 ; mods ; code ~
            let code = code_point_key(first(2)?, mods)?;
            with(code, mods)
        }
        b'~' => with(tilde_key(first(0)?)?, mods),
        b'u' => {
            let code = first(0)?;
            let mut keycode = code_point_key(code, mods)?;
            // The shifted form, when the terminal reports it (`97:65`).
            if mods.contains(KeyModifiers::SHIFT)
                && let Some(shifted) = nums
                    .first()
                    .and_then(|n| n.get(1).copied().flatten())
                    .and_then(char::from_u32)
            {
                keycode = KeyCode::Char(shifted);
            }
            with(keycode, mods)
        }
        b'Z' => with(KeyCode::BackTab, mods | KeyModifiers::SHIFT),
        b'I' if nums.is_empty() => Some(Event::FocusGained),
        b'O' if nums.is_empty() => Some(Event::FocusLost),
        b'M' if nums.len() == 3 => {
            // urxvt mouse: CSI cb ; x ; y M
            let (cb, x, y) = (first(0)?, first(1)?, first(2)?);
            mouse_event(
                u16::try_from(cb.saturating_sub(32)).ok()?,
                u16::try_from(x.saturating_sub(1)).ok()?,
                u16::try_from(y.saturating_sub(1)).ok()?,
                true,
            )
        }
        _ => with(legacy_final(f)?, mods),
    }
}

/// SGR mouse: `CSI < cb ; x ; y M` (press) or `m` (release).
fn sgr_mouse(params: &[u8], pressed: bool) -> Option<Event> {
    let nums = numbers(params)?;
    let n = |i: usize| {
        nums.get(i)
            .and_then(|n| n.first().copied().flatten())
            .and_then(|v| u16::try_from(v).ok())
    };
    mouse_event(
        n(0)?,
        n(1)?.saturating_sub(1),
        n(2)?.saturating_sub(1),
        pressed,
    )
}

fn mouse_step(cb: u16, column: u16, row: u16, pressed: bool, len: usize) -> Step {
    match mouse_event(cb, column, row, pressed) {
        Some(ev) => Step::Event(ev, len),
        None => Step::Skip(len),
    }
}

/// A mouse report's button code, decoded: the wheel, buttons, drags and
/// moves, with Shift/Alt/Ctrl.
fn mouse_event(cb: u16, column: u16, row: u16, pressed: bool) -> Option<Event> {
    let mut modifiers = KeyModifiers::NONE;
    for (bit, flag) in [
        (4, KeyModifiers::SHIFT),
        (8, KeyModifiers::ALT),
        (16, KeyModifiers::CONTROL),
    ] {
        if cb & bit != 0 {
            modifiers |= flag;
        }
    }
    let button = match cb & 0b11 {
        0 => MouseButton::Left,
        1 => MouseButton::Middle,
        _ => MouseButton::Right,
    };
    let kind = if cb & 64 != 0 {
        match cb & 0b11 {
            0 => MouseEventKind::ScrollUp,
            1 => MouseEventKind::ScrollDown,
            2 => MouseEventKind::ScrollLeft,
            _ => MouseEventKind::ScrollRight,
        }
    } else if cb & 32 != 0 {
        if cb & 0b11 == 3 {
            MouseEventKind::Moved
        } else {
            MouseEventKind::Drag(button)
        }
    } else if !pressed || cb & 0b11 == 3 {
        MouseEventKind::Up(button)
    } else {
        MouseEventKind::Down(button)
    };
    Some(Event::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers,
    }))
}

#[cfg(test)]
#[path = "term_input_tests.rs"]
mod tests;
