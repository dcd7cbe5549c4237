//! Syntax highlighting of fenced code blocks with `syntect` (its bundled
//! grammars and themes, pure-Rust regexes). The grammar set is loaded
//! lazily — [`warm_up`] starts loading it on a background thread at
//! start-up so neither the first frame nor the first code block waits.
//! Highlighting is skipped with `NO_COLOR`, for unknown languages and for
//! very large blocks (they are shown plain).

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme, ThemeSet};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

use crate::theme;

/// Blocks longer than this are shown plain.
const MAX_LINES: usize = 2000;
const MAX_BYTES: usize = 200_000;

struct Assets {
    syntaxes: SyntaxSet,
    theme: Theme,
}

fn assets() -> Option<&'static Assets> {
    static ASSETS: OnceLock<Option<Assets>> = OnceLock::new();
    ASSETS
        .get_or_init(|| {
            let syntaxes = SyntaxSet::load_defaults_newlines();
            let mut themes = ThemeSet::load_defaults();
            let name = if theme::current().light {
                "InspiredGitHub"
            } else {
                "base16-ocean.dark"
            };
            let theme = themes.themes.remove(name)?;
            Some(Assets { syntaxes, theme })
        })
        .as_ref()
}

/// Loads the grammars on a background thread.
pub fn warm_up() {
    if !theme::no_color() {
        std::thread::spawn(|| {
            let _ = assets();
        });
    }
}

/// One highlighted line: styled pieces without the line break.
pub type StyledLine = Vec<(Style, String)>;

/// Highlights `code` as `lang` (a fence info string such as `rust` or
/// `py`); `None` when it should be shown plain.
pub fn highlight(code: &str, lang: &str) -> Option<Vec<StyledLine>> {
    let lang = lang.split([' ', ',', '{']).next().unwrap_or("").trim();
    if lang.is_empty() || theme::no_color() || code.len() > MAX_BYTES {
        return None;
    }
    if code.lines().count() > MAX_LINES {
        return None;
    }
    let assets = assets()?;
    let syntax = assets
        .syntaxes
        .find_syntax_by_token(lang)
        .or_else(|| assets.syntaxes.find_syntax_by_extension(lang))?;
    let mut h = HighlightLines::new(syntax, &assets.theme);
    let mut out = Vec::new();
    for line in LinesWithEndings::from(code) {
        let pieces = h.highlight_line(line, &assets.syntaxes).ok()?;
        let styled: StyledLine = pieces
            .into_iter()
            .map(|(style, text)| {
                let mut s = Style::default().fg(Color::Rgb(
                    style.foreground.r,
                    style.foreground.g,
                    style.foreground.b,
                ));
                if style.font_style.contains(FontStyle::BOLD) {
                    s = s.add_modifier(Modifier::BOLD);
                }
                if style.font_style.contains(FontStyle::ITALIC) {
                    s = s.add_modifier(Modifier::ITALIC);
                }
                (s, text.trim_end_matches(['\n', '\r']).to_string())
            })
            .filter(|(_, t)| !t.is_empty())
            .collect();
        out.push(styled);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_languages_get_colours_and_unknown_ones_none() {
        if theme::no_color() {
            assert!(highlight("fn main() {}\n", "rust").is_none());
            return;
        }
        let lines = highlight("fn main() {\n    let x = 1;\n}\n", "rust").unwrap();
        assert_eq!(lines.len(), 3);
        let text: String = lines[1].iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(text, "    let x = 1;");
        let colours: std::collections::HashSet<_> =
            lines[1].iter().filter_map(|(s, _)| s.fg).collect();
        assert!(colours.len() >= 2, "{:?}", lines[1]);
        assert!(highlight("x", "no-such-language").is_none());
        assert!(highlight("print(1)\n", "py").is_some());
    }
}
