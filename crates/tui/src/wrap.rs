//! Wrapping styled lines to a terminal width. Widths are display columns
//! (unicode-width), so a wide character is never split across rows and
//! never overflows the right edge.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Display columns of one character (control characters count as zero).
pub fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Display columns of a string.
pub fn str_width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Builds one output row span by span, merging runs of the same style.
struct RowBuilder {
    spans: Vec<Span<'static>>,
    width: usize,
}

impl RowBuilder {
    fn new() -> Self {
        Self {
            spans: Vec::new(),
            width: 0,
        }
    }

    fn push_char(&mut self, c: char, style: Style) {
        self.width += char_width(c);
        if let Some(last) = self.spans.last_mut()
            && last.style == style
        {
            last.content.to_mut().push(c);
            return;
        }
        self.spans.push(Span::styled(c.to_string(), style));
    }

    fn push_str(&mut self, s: &str, style: Style) {
        for c in s.chars() {
            self.push_char(c, style);
        }
    }

    fn finish(self, line_style: Style) -> Line<'static> {
        Line::from(self.spans).style(line_style)
    }
}

/// A run of characters that wrapping keeps together (a word) or may drop
/// at a row break (whitespace).
struct Token {
    chars: Vec<(char, Style)>,
    width: usize,
    is_space: bool,
}

fn tokenize(line: &Line<'_>) -> Vec<Token> {
    let mut tokens: Vec<Token> = Vec::new();
    for span in &line.spans {
        let style = line.style.patch(span.style);
        for c in span.content.chars() {
            // Tabs would render at the terminal's discretion; use spaces.
            let (c, w) = if c == '\t' {
                (' ', 1)
            } else {
                (c, char_width(c))
            };
            let is_space = c == ' ';
            match tokens.last_mut() {
                Some(t) if t.is_space == is_space => {
                    t.chars.push((c, style));
                    t.width += w;
                }
                _ => tokens.push(Token {
                    chars: vec![(c, style)],
                    width: w,
                    is_space,
                }),
            }
        }
    }
    tokens
}

/// Wraps `line` to `width` columns at word boundaries; a word wider than a
/// row is split between characters. Continuation rows start with `indent`
/// spaces (hanging indent for list items and quoted blocks).
pub fn wrap_line(line: &Line<'_>, width: usize, indent: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let indent = if indent + 4 > width { 0 } else { indent };
    let line_style = Style::default();
    let mut rows = Vec::new();
    let mut row = RowBuilder::new();
    let mut first_row = true;

    let new_row = |row: &mut RowBuilder, rows: &mut Vec<Line<'static>>, first: &mut bool| {
        let done = std::mem::replace(row, RowBuilder::new());
        rows.push(done.finish(line_style));
        *first = false;
        row.push_str(&" ".repeat(indent), Style::default());
    };

    for token in tokenize(line) {
        let at_row_start = if first_row {
            row.width == 0
        } else {
            row.width == indent
        };
        if token.is_space {
            if row.width + token.width <= width {
                for (c, s) in token.chars {
                    row.push_char(c, s);
                }
            } else if !at_row_start {
                new_row(&mut row, &mut rows, &mut first_row);
            }
            continue;
        }
        if row.width + token.width <= width {
            for (c, s) in token.chars {
                row.push_char(c, s);
            }
            continue;
        }
        // The word does not fit: move it to a fresh row when it fits there,
        // otherwise split it by characters.
        if !at_row_start && indent + token.width <= width {
            trim_trailing_spaces(&mut row);
            new_row(&mut row, &mut rows, &mut first_row);
            for (c, s) in token.chars {
                row.push_char(c, s);
            }
            continue;
        }
        for (c, s) in token.chars {
            let w = char_width(c);
            if row.width + w > width && row.width > indent {
                new_row(&mut row, &mut rows, &mut first_row);
            }
            row.push_char(c, s);
        }
    }
    trim_trailing_spaces(&mut row);
    rows.push(row.finish(line_style));
    rows
}

/// Drops spaces at the end of a row so a break never leaves a trailing gap
/// that shifts the next row's content.
fn trim_trailing_spaces(row: &mut RowBuilder) {
    while let Some(last) = row.spans.last_mut() {
        let trimmed_len = last.content.trim_end_matches(' ').len();
        let removed = last.content.len() - trimmed_len;
        if removed == 0 {
            break;
        }
        row.width -= removed;
        if trimmed_len == 0 {
            row.spans.pop();
        } else {
            last.content.to_mut().truncate(trimmed_len);
            break;
        }
    }
}

/// Cuts `s` to at most `width` columns, ending with `…` when it was cut.
pub fn truncate(s: &str, width: usize) -> String {
    if str_width(s) <= width {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = char_width(c);
        if w + cw + 1 > width {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

/// Prefixes the first row with `first` and the others with spaces of the
/// same width.
pub fn with_gutter(rows: Vec<Line<'static>>, first: Span<'static>) -> Vec<Line<'static>> {
    let pad = " ".repeat(first.width());
    rows.into_iter()
        .enumerate()
        .map(|(i, mut row)| {
            let gutter = if i == 0 {
                first.clone()
            } else {
                Span::raw(pad.clone())
            };
            row.spans.insert(0, gutter);
            row
        })
        .collect()
}

/// `text`'s lines in `style`, each wrapped at `width`.
pub(crate) fn plain_rows(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    text.lines()
        .flat_map(|l| wrap_line(&Line::styled(l.to_string(), style), width, 0))
        .collect()
}

/// The note that replaces folded lines.
pub fn more_lines(n: usize) -> String {
    let noun = if n == 1 { "line" } else { "lines" };
    format!("… +{n} {noun} (ctrl+o to expand)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn wraps_at_word_boundaries() {
        let l = Line::from("the quick brown fox jumps");
        assert_eq!(
            texts(&wrap_line(&l, 10, 0)),
            ["the quick", "brown fox", "jumps"]
        );
    }

    #[test]
    fn splits_long_words_and_keeps_hanging_indent() {
        let l = Line::from("- abcdefghijklmnop x");
        let rows = texts(&wrap_line(&l, 8, 2));
        assert_eq!(rows, ["- abcdef", "  ghijkl", "  mnop x"]);
    }

    #[test]
    fn wide_characters_never_overflow() {
        let l = Line::from("漢字漢字漢字漢字");
        let rows = wrap_line(&l, 5, 0);
        for r in &rows {
            assert!(r.width() <= 5, "{r:?}");
        }
        assert_eq!(texts(&rows), ["漢字", "漢字", "漢字", "漢字"]);
    }

    #[test]
    fn styles_survive_wrapping() {
        let l = Line::from(vec![
            Span::raw("plain "),
            Span::styled("bold words", Style::default().bold()),
        ]);
        let rows = wrap_line(&l, 8, 0);
        assert_eq!(texts(&rows), ["plain", "bold", "words"]);
        assert_eq!(rows[1].spans[0].style, Style::default().bold());
    }

    #[test]
    fn truncates_with_ellipsis() {
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("hi", 6), "hi");
    }
}
