//! The rewind picker's key tables, one per stage (the points, the
//! choices at a point, the overwrite confirmation). The picker finds a
//! pressed key's command here and writes its hint rows from the same
//! rows ([`crate::keymap`]), so a hint cannot promise what a key does not
//! do.

use crossterm::event::KeyCode;

use crate::keymap::{Binding, ch, key};

/// Keys while choosing the point to go back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointKey {
    Up,
    Down,
    Select,
    Cancel,
}

pub const POINTS: &[Binding<PointKey>] = &[
    Binding {
        keys: &[key(KeyCode::Up), ch('k')],
        label: "↑/↓",
        help: "choose a point",
        hint: "choose",
        command: PointKey::Up,
    },
    Binding {
        keys: &[key(KeyCode::Down), ch('j')],
        label: "",
        help: "",
        hint: "",
        command: PointKey::Down,
    },
    Binding {
        keys: &[key(KeyCode::Enter)],
        label: "Enter",
        help: "see what going back there restores",
        hint: "select",
        command: PointKey::Select,
    },
    Binding {
        keys: &[key(KeyCode::Esc)],
        label: "Esc",
        help: "close; nothing is restored",
        hint: "cancel",
        command: PointKey::Cancel,
    },
];

/// Keys while choosing what to restore at a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChoiceKey {
    Up,
    Down,
    Restore,
    /// A digit: that option.
    Number,
    Back,
}

pub const CHOICES: &[Binding<ChoiceKey>] = &[
    Binding {
        keys: &[key(KeyCode::Up), ch('k')],
        label: "↑/↓",
        help: "choose what to restore",
        hint: "choose",
        command: ChoiceKey::Up,
    },
    Binding {
        keys: &[key(KeyCode::Down), ch('j')],
        label: "",
        help: "",
        hint: "",
        command: ChoiceKey::Down,
    },
    Binding {
        keys: &[key(KeyCode::Enter)],
        label: "Enter",
        help: "restore the selected option",
        hint: "restore",
        command: ChoiceKey::Restore,
    },
    Binding {
        keys: &[
            ch('1'),
            ch('2'),
            ch('3'),
            ch('4'),
            ch('5'),
            ch('6'),
            ch('7'),
            ch('8'),
            ch('9'),
        ],
        label: "1-9",
        help: "restore that option",
        hint: "",
        command: ChoiceKey::Number,
    },
    Binding {
        keys: &[key(KeyCode::Esc)],
        label: "Esc",
        help: "back to the points",
        hint: "back",
        command: ChoiceKey::Back,
    },
];

/// Keys of the confirmation to overwrite files changed outside catui.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmKey {
    Yes,
    No,
}

pub const CONFIRM: &[Binding<ConfirmKey>] = &[
    Binding {
        keys: &[ch('y'), key(KeyCode::Enter)],
        label: "y",
        help: "rewind, overwriting those files",
        hint: "rewind anyway",
        command: ConfirmKey::Yes,
    },
    Binding {
        keys: &[ch('n'), key(KeyCode::Esc)],
        label: "n",
        help: "close; nothing is restored",
        hint: "cancel",
        command: ConfirmKey::No,
    },
];
