//! Colours for dark and light terminals, and `NO_COLOR`. The theme is
//! picked once: `CATUI_THEME=light|dark` wins, else the terminal's
//! `COLORFGBG` hint (a light background ends in 7 or 15), else dark.
//! With `NO_COLOR` set (to anything non-empty) the terminal writer drops
//! every colour and keeps only bold, italic, underline and reverse; code is
//! then not highlighted either.

use std::sync::OnceLock;

use catui_protocol::PermissionMode;
use ratatui::style::{Color, Style};

/// Named colours of one theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub light: bool,
    pub dim: Color,
    pub text: Color,
    pub accent: Color,
    pub ok: Color,
    pub error: Color,
    pub warn: Color,
    pub added_fg: Color,
    pub removed_fg: Color,
    pub inline_code: Color,
    pub code_bg: Color,
    pub code_fg: Color,
    pub border: Color,
}

impl Theme {
    pub const DARK: Theme = Theme {
        light: false,
        dim: Color::DarkGray,
        text: Color::White,
        accent: Color::Cyan,
        ok: Color::Green,
        error: Color::Red,
        warn: Color::Yellow,
        added_fg: Color::Green,
        removed_fg: Color::Red,
        inline_code: Color::Indexed(117),
        code_bg: Color::Indexed(235),
        code_fg: Color::Indexed(252),
        border: Color::DarkGray,
    };

    pub const LIGHT: Theme = Theme {
        light: true,
        dim: Color::Indexed(244),
        text: Color::Black,
        accent: Color::Blue,
        ok: Color::Indexed(28),
        error: Color::Indexed(160),
        warn: Color::Indexed(130),
        added_fg: Color::Indexed(28),
        removed_fg: Color::Indexed(160),
        inline_code: Color::Indexed(25),
        code_bg: Color::Indexed(255),
        code_fg: Color::Indexed(236),
        border: Color::Indexed(250),
    };

    pub fn added(&self) -> Style {
        Style::default().fg(self.added_fg)
    }

    pub fn removed(&self) -> Style {
        Style::default().fg(self.removed_fg)
    }
}

/// Picks the theme from the settings the user can give.
pub fn choose(catui_theme: Option<&str>, colorfgbg: Option<&str>) -> Theme {
    match catui_theme.map(str::trim) {
        Some("light") => return Theme::LIGHT,
        Some("dark") => return Theme::DARK,
        _ => {}
    }
    let light_bg = colorfgbg
        .and_then(|v| v.rsplit(';').next())
        .and_then(|bg| bg.trim().parse::<u8>().ok())
        .is_some_and(|bg| bg == 7 || bg == 15);
    if light_bg { Theme::LIGHT } else { Theme::DARK }
}

/// The theme of this process.
pub fn current() -> &'static Theme {
    static THEME: OnceLock<Theme> = OnceLock::new();
    THEME.get_or_init(|| {
        choose(
            std::env::var("CATUI_THEME").ok().as_deref(),
            std::env::var("COLORFGBG").ok().as_deref(),
        )
    })
}

/// Whether colours are off (`NO_COLOR`, see <https://no-color.org>).
pub fn no_color() -> bool {
    static OFF: OnceLock<bool> = OnceLock::new();
    *OFF.get_or_init(|| std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()))
}

/// `style` without colours, when colours are off.
pub fn strip(style: Style) -> Style {
    Style {
        fg: None,
        bg: None,
        underline_color: None,
        ..style
    }
}

/// Label and colour of a permission mode in the status line.
pub fn mode_badge(mode: PermissionMode) -> (&'static str, Style) {
    let t = current();
    match mode {
        PermissionMode::Plan => ("⏸ plan mode on", Style::default().fg(t.accent)),
        PermissionMode::AcceptEdits => ("⏵⏵ accept edits on", Style::default().fg(Color::Magenta)),
        PermissionMode::BypassPermissions => {
            ("⏵⏵ bypass permissions on", Style::default().fg(t.error))
        }
        PermissionMode::Auto => ("⏵⏵ auto mode on", Style::default().fg(t.warn)),
        PermissionMode::Default => ("default mode", Style::default().fg(t.dim)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn light_or_dark_from_the_environment() {
        assert_eq!(choose(Some("light"), None), Theme::LIGHT);
        assert_eq!(choose(Some("dark"), Some("0;15")), Theme::DARK);
        assert_eq!(choose(None, Some("0;15")), Theme::LIGHT);
        assert_eq!(choose(None, Some("15;default;0")), Theme::DARK);
        assert_eq!(choose(None, None), Theme::DARK);
        let s = strip(Style::default().fg(Color::Red).bg(Color::Blue));
        assert_eq!((s.fg, s.bg), (None, None));
    }
}
