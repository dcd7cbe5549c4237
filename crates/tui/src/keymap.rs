//! The key tables: every key of the main screen and of the dialogs, with
//! the command it is bound to and the words that describe it. The same
//! table answers "what does this key do" for the handlers
//! ([`command`]), the `?` sheet (`help.rs`) and the hint rows under the
//! dialogs and in the spinner ([`hint`]), so a hint cannot promise what
//! the key does not do.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One key as the tables match it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

/// A key without modifiers.
pub const fn key(code: KeyCode) -> Key {
    Key {
        code,
        mods: KeyModifiers::NONE,
    }
}

/// A key with Ctrl.
pub const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
    }
}

/// A plain character key.
pub const fn ch(c: char) -> Key {
    key(KeyCode::Char(c))
}

impl Key {
    /// Whether a pressed key is this one. Shift is part of the key only
    /// where it is not part of the character (`?` comes with or without
    /// it, depending on the terminal).
    pub fn matches(&self, pressed: KeyEvent) -> bool {
        let mut significant = KeyModifiers::CONTROL | KeyModifiers::ALT;
        if !matches!(pressed.code, KeyCode::Char(_) | KeyCode::BackTab) {
            significant |= KeyModifiers::SHIFT;
        }
        let code = match (self.code, pressed.code) {
            // Letters with Ctrl may come upper-case with Shift.
            (KeyCode::Char(a), KeyCode::Char(b)) => {
                a == b || (self.mods.contains(KeyModifiers::CONTROL) && a.eq_ignore_ascii_case(&b))
            }
            (a, b) => a == b,
        };
        code && (pressed.modifiers & significant) == (self.mods & significant)
    }
}

/// One row of a table: the keys, how they are written, what they do at
/// length (the `?` sheet) and in a hint row (a few words), and the command.
#[derive(Debug, Clone, Copy)]
pub struct Binding<C: 'static> {
    pub keys: &'static [Key],
    pub label: &'static str,
    pub help: &'static str,
    pub hint: &'static str,
    pub command: C,
}

/// The command `pressed` is bound to in `table`, if any.
pub fn command<C: Copy>(table: &[Binding<C>], pressed: KeyEvent) -> Option<C> {
    table
        .iter()
        .find(|b| b.keys.iter().any(|k| k.matches(pressed)))
        .map(|b| b.command)
}

/// The hint of the commands `shown` picks, in table order: `label hint`
/// joined by ` · `. A binding with an empty hint is left out.
pub fn hint<C: Copy>(table: &[Binding<C>], shown: impl Fn(C) -> bool) -> String {
    hint_with(table, shown, |b| b.label.to_string())
}

/// [`hint`] with labels made by `label` (a number range that depends on
/// how many options a dialog has).
pub fn hint_with<C: Copy>(
    table: &[Binding<C>],
    shown: impl Fn(C) -> bool,
    label: impl Fn(&Binding<C>) -> String,
) -> String {
    table
        .iter()
        .filter(|b| !b.hint.is_empty() && shown(b.command))
        .map(|b| format!("{} {}", label(b), b.hint))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The hint of `command` alone (`esc to interrupt` in the spinner).
pub fn hint_of<C: Copy + PartialEq>(table: &[Binding<C>], command: C) -> String {
    hint(table, |c| c == command)
}

/// The status line after the first Esc of Esc Esc: the rewind row's hint
/// under the key still to press (its label's last), "Esc again to rewind".
pub fn rewind_hint() -> String {
    hint_with(
        MAIN,
        |c| c == Main::Rewind,
        |b| b.label.rsplit(' ').next().unwrap_or(b.label).to_string(),
    )
}

/// Commands of the main screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Main {
    Send,
    NewLine,
    TakeBack,
    /// Esc: stop the turn, close the palette, or (twice) rewind.
    Escape,
    /// Esc Esc on an empty prompt: the rewind picker. Not a key of its own
    /// (the presses are [`Main::Escape`]'s); its row holds the sheet's words
    /// and the hint the first Esc writes ([`rewind_hint`]).
    Rewind,
    /// Ctrl+C: interrupt, clear, quit — [`crate::state::CtrlC`] says which.
    CtrlC,
    Restore,
    Background,
    Transcript,
    /// Ctrl+T: the todo panel, shown or hidden.
    Todos,
    PageUp,
    CycleMode,
    Editor,
    Help,
    /// Rows of the sheet that are typed, not pressed (`/`, `/plan review`).
    Typed,
}

const NONE: &[Key] = &[];

/// Every key of the main screen, in the `?` sheet's order.
pub const MAIN: &[Binding<Main>] = &[
    Binding {
        keys: &[key(KeyCode::Enter)],
        label: "Enter",
        help: "send (while the agent works: queue it for after the turn)",
        hint: "send",
        command: Main::Send,
    },
    Binding {
        keys: &[
            ctrl('j'),
            Key {
                code: KeyCode::Enter,
                mods: KeyModifiers::SHIFT,
            },
            Key {
                code: KeyCode::Enter,
                mods: KeyModifiers::ALT,
            },
        ],
        label: "Ctrl+J / Shift+Enter",
        help: "new line",
        hint: "new line",
        command: Main::NewLine,
    },
    Binding {
        keys: &[key(KeyCode::Up)],
        label: "Up",
        help: "take the last queued message back to edit it",
        hint: "edit queued",
        command: Main::TakeBack,
    },
    Binding {
        keys: &[key(KeyCode::Esc)],
        label: "Esc",
        help: "stop the agent (your prompt returns to the input if nothing was answered yet); \
               on a dialog: stop, and nothing is sent to the agent",
        hint: "to interrupt",
        command: Main::Escape,
    },
    Binding {
        keys: NONE,
        label: "Esc Esc",
        help: "on an empty prompt: rewind code and/or conversation (/rewind)",
        hint: "again to rewind",
        command: Main::Rewind,
    },
    Binding {
        keys: &[ctrl('c')],
        label: "Ctrl+C",
        help: "first stops a running turn, then clears the input (Ctrl+Y brings it back), \
               then quits; the status line says which comes next",
        hint: "",
        command: Main::CtrlC,
    },
    Binding {
        keys: &[ctrl('y')],
        label: "Ctrl+Y",
        help: "bring back the input Ctrl+C cleared",
        hint: "",
        command: Main::Restore,
    },
    Binding {
        keys: &[ctrl('b')],
        label: "Ctrl+B",
        help: "send the running command to the background (in tmux: twice); /bashes lists them",
        hint: "background",
        command: Main::Background,
    },
    Binding {
        keys: &[ctrl('o')],
        label: "Ctrl+O",
        help: "full transcript with all output expanded",
        hint: "transcript",
        command: Main::Transcript,
    },
    Binding {
        keys: &[ctrl('t')],
        label: "Ctrl+T",
        help: "show or hide the todo list (it shows while any todo is open)",
        hint: "",
        command: Main::Todos,
    },
    Binding {
        keys: &[key(KeyCode::PageUp)],
        label: "PgUp",
        help: "full transcript, one page up (also your terminal's scrollback)",
        hint: "",
        command: Main::PageUp,
    },
    Binding {
        keys: &[key(KeyCode::BackTab)],
        label: "Shift+Tab",
        help: "cycle permission modes",
        hint: "to cycle",
        command: Main::CycleMode,
    },
    Binding {
        keys: &[ctrl('g')],
        label: "Ctrl+G",
        help: "edit the input (or the plan, while planning) in $EDITOR",
        hint: "editor",
        command: Main::Editor,
    },
    Binding {
        keys: NONE,
        label: "/plan review",
        help: "read and comment on the plan in your browser (b in the approval dialog)",
        hint: "",
        command: Main::Typed,
    },
    Binding {
        keys: NONE,
        label: "/",
        help: "commands (Tab completes)",
        hint: "",
        command: Main::Typed,
    },
    Binding {
        keys: &[ch('?')],
        label: "?",
        help: "this sheet (on an empty prompt)",
        hint: "for keys",
        command: Main::Help,
    },
];

/// Keys of the transcript view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PagerKey {
    PageUp,
    PageDown,
    Up,
    Down,
    Top,
    Bottom,
    Back,
}

pub const PAGER: &[Binding<PagerKey>] = &[
    Binding {
        keys: &[key(KeyCode::PageUp), ch('b')],
        label: "PgUp/PgDn",
        help: "scroll a page",
        hint: "",
        command: PagerKey::PageUp,
    },
    Binding {
        keys: &[key(KeyCode::PageDown), ch(' ')],
        label: "",
        help: "",
        hint: "",
        command: PagerKey::PageDown,
    },
    Binding {
        keys: &[key(KeyCode::Up), ch('k')],
        label: "Up/Down, wheel",
        help: "scroll a row",
        hint: "",
        command: PagerKey::Up,
    },
    Binding {
        keys: &[key(KeyCode::Down), ch('j')],
        label: "",
        help: "",
        hint: "",
        command: PagerKey::Down,
    },
    Binding {
        keys: &[key(KeyCode::Home), ch('g')],
        label: "Home/End",
        help: "top, bottom",
        hint: "",
        command: PagerKey::Top,
    },
    Binding {
        keys: &[key(KeyCode::End), ch('G')],
        label: "",
        help: "",
        hint: "",
        command: PagerKey::Bottom,
    },
    Binding {
        keys: &[key(KeyCode::Esc), ch('q'), ctrl('o')],
        label: "Esc, q, Ctrl+O",
        help: "back",
        hint: "back",
        command: PagerKey::Back,
    },
];

/// Commands shared by the choice dialogs (permission, plan, enter-plan,
/// question): the parts every one of them has. A dialog's own keys come
/// in its table as [`Choice::Own`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice<O> {
    /// Enter: the selected option (or send the note being typed).
    Confirm,
    /// A digit: that option.
    Number,
    Up,
    Down,
    /// Esc: stop; nothing is sent to the agent and the turn ends.
    Stop,
    Own(O),
}

/// The digit range shown for [`Choice::Number`] with `n` options.
pub fn number_label(n: usize) -> String {
    if n <= 1 {
        "1".to_string()
    } else {
        format!("1-{n}")
    }
}

/// The options part every choice dialog starts its table with.
macro_rules! choice_rows {
    ($own:ty) => {
        [
            $crate::keymap::Binding::<$crate::keymap::Choice<$own>> {
                keys: &[$crate::keymap::key(crossterm::event::KeyCode::Enter)],
                label: "Enter",
                help: "choose the selected option",
                hint: "",
                command: $crate::keymap::Choice::Confirm,
            },
            $crate::keymap::Binding {
                keys: &[
                    $crate::keymap::ch('1'),
                    $crate::keymap::ch('2'),
                    $crate::keymap::ch('3'),
                    $crate::keymap::ch('4'),
                    $crate::keymap::ch('5'),
                    $crate::keymap::ch('6'),
                    $crate::keymap::ch('7'),
                    $crate::keymap::ch('8'),
                    $crate::keymap::ch('9'),
                ],
                label: "1-9",
                help: "choose that option",
                hint: "choose",
                command: $crate::keymap::Choice::Number,
            },
            $crate::keymap::Binding {
                keys: &[$crate::keymap::key(crossterm::event::KeyCode::Up)],
                label: "↑",
                help: "previous option",
                hint: "",
                command: $crate::keymap::Choice::Up,
            },
            $crate::keymap::Binding {
                keys: &[
                    $crate::keymap::key(crossterm::event::KeyCode::Down),
                    $crate::keymap::key(crossterm::event::KeyCode::Tab),
                ],
                label: "↓",
                help: "next option",
                hint: "",
                command: $crate::keymap::Choice::Down,
            },
            $crate::keymap::Binding {
                keys: &[$crate::keymap::key(crossterm::event::KeyCode::Esc)],
                label: "Esc",
                help: "stop: nothing is sent and the turn ends",
                hint: "stop",
                command: $crate::keymap::Choice::Stop,
            },
        ]
    };
}
pub(crate) use choice_rows;

/// Keys while a dialog's note field has focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Note {
    Send,
    Back,
    Stop,
}

pub const NOTE: &[Binding<Note>] = &[
    Binding {
        keys: &[key(KeyCode::Enter)],
        label: "Enter",
        help: "send the note (the agent carries on with it)",
        hint: "sends the note",
        command: Note::Send,
    },
    Binding {
        keys: &[key(KeyCode::Up)],
        label: "↑",
        help: "back to the options",
        hint: "options",
        command: Note::Back,
    },
    Binding {
        keys: &[key(KeyCode::Esc)],
        label: "Esc",
        help: "stop without sending",
        hint: "stops",
        command: Note::Stop,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn keys_find_their_command_and_only_theirs() {
        assert_eq!(
            command(MAIN, press(KeyCode::Esc, KeyModifiers::NONE)),
            Some(Main::Escape)
        );
        assert_eq!(
            command(MAIN, press(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Main::CtrlC)
        );
        assert_eq!(
            command(MAIN, press(KeyCode::Enter, KeyModifiers::SHIFT)),
            Some(Main::NewLine)
        );
        assert_eq!(
            command(MAIN, press(KeyCode::Char('?'), KeyModifiers::SHIFT)),
            Some(Main::Help)
        );
        assert_eq!(
            command(MAIN, press(KeyCode::Char('c'), KeyModifiers::NONE)),
            None
        );
    }

    #[test]
    fn hints_come_from_the_rows() {
        assert_eq!(hint_of(MAIN, Main::Escape), "Esc to interrupt");
        assert_eq!(rewind_hint(), "Esc again to rewind");
        assert_eq!(
            hint(NOTE, |_| true),
            "Enter sends the note · ↑ options · Esc stops"
        );
    }
}
