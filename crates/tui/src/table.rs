//! Markdown tables laid out for a width: each column as wide as its
//! widest cell, the widest columns narrowed (their cells wrapped) when the
//! table does not fit, box-drawing borders, a bold header and the
//! alignment the table asked for. When even narrowed columns cannot fit,
//! each row is shown as `header: value` lines instead.

use pulldown_cmark::Alignment;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::theme;
use crate::wrap::{str_width, wrap_line};

/// Narrowest a column gets before the table is shown as a list.
const MIN_COL: usize = 4;

/// A parsed table; `rows[0]` is the header.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub aligns: Vec<Alignment>,
    pub rows: Vec<Vec<String>>,
}

fn border() -> Style {
    Style::default().fg(theme::current().border)
}

/// Cell text wrapped to `width` columns.
fn wrap_cell(text: &str, width: usize) -> Vec<String> {
    let rows = wrap_line(&Line::raw(text.to_string()), width.max(1), 0);
    let out: Vec<String> = rows.iter().map(|l| l.to_string()).collect();
    if out.is_empty() {
        vec![String::new()]
    } else {
        out
    }
}

fn pad(text: &str, width: usize, align: Alignment) -> String {
    let gap = width.saturating_sub(str_width(text));
    match align {
        Alignment::Right => format!("{}{text}", " ".repeat(gap)),
        Alignment::Center => {
            let left = gap / 2;
            format!("{}{text}{}", " ".repeat(left), " ".repeat(gap - left))
        }
        Alignment::Left | Alignment::None => format!("{text}{}", " ".repeat(gap)),
    }
}

impl Table {
    pub fn new(aligns: Vec<Alignment>) -> Self {
        Self {
            aligns,
            rows: Vec::new(),
        }
    }

    fn columns(&self) -> usize {
        self.rows.iter().map(Vec::len).max().unwrap_or(0)
    }

    fn cell(&self, row: usize, col: usize) -> &str {
        self.rows
            .get(row)
            .and_then(|r| r.get(col))
            .map_or("", String::as_str)
    }

    /// Column widths that fit `width`, or `None` when nothing fits.
    fn widths(&self, width: usize) -> Option<Vec<usize>> {
        let cols = self.columns();
        let mut widths: Vec<usize> = (0..cols)
            .map(|c| {
                (0..self.rows.len())
                    .map(|r| str_width(self.cell(r, c)))
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let avail = width.checked_sub(3 * cols + 1)?;
        while widths.iter().sum::<usize>() > avail {
            let (i, w) = widths.iter().copied().enumerate().max_by_key(|(_, w)| *w)?;
            if w <= MIN_COL {
                return None;
            }
            widths[i] = w - 1;
        }
        Some(widths)
    }

    fn rule(widths: &[usize], left: &str, mid: &str, right: &str) -> Line<'static> {
        let parts: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
        Line::styled(format!("{left}{}{right}", parts.join(mid)), border())
    }

    /// The table's rows at `width`.
    pub fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let Some(widths) = self.widths(width) else {
            return self.as_list(width);
        };
        let mut out = vec![Self::rule(&widths, "┌", "┬", "┐")];
        for (r, _) in self.rows.iter().enumerate() {
            let cells: Vec<Vec<String>> = widths
                .iter()
                .enumerate()
                .map(|(c, w)| wrap_cell(self.cell(r, c), *w))
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1);
            let style = if r == 0 {
                Style::default().add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            for i in 0..height {
                let mut spans = vec![Span::styled("│", border())];
                for (c, w) in widths.iter().enumerate() {
                    let text = cells[c].get(i).map_or("", String::as_str);
                    let align = self.aligns.get(c).copied().unwrap_or(Alignment::None);
                    spans.push(Span::styled(format!(" {} ", pad(text, *w, align)), style));
                    spans.push(Span::styled("│", border()));
                }
                out.push(Line::from(spans));
            }
            if r == 0 && self.rows.len() > 1 {
                out.push(Self::rule(&widths, "├", "┼", "┤"));
            }
        }
        out.push(Self::rule(&widths, "└", "┴", "┘"));
        out
    }

    /// Each body row as `header: value` lines, for very narrow screens.
    fn as_list(&self, width: usize) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        for r in 1..self.rows.len() {
            if r > 1 {
                out.push(Line::styled("─".repeat(width.clamp(1, 20)), border()));
            }
            for c in 0..self.columns() {
                let line = Line::from(vec![
                    Span::styled(
                        format!("{}: ", self.cell(0, c)),
                        Style::default().add_modifier(Modifier::BOLD),
                    ),
                    Span::raw(self.cell(r, c).to_string()),
                ]);
                out.extend(wrap_line(&line, width.max(1), 2));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[&[&str]]) -> Table {
        Table {
            aligns: vec![Alignment::None; rows[0].len()],
            rows: rows
                .iter()
                .map(|r| r.iter().map(|c| c.to_string()).collect())
                .collect(),
        }
    }

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn wide_cells_wrap_inside_narrowed_columns() {
        let t = table(&[
            &["Step", "What"],
            &["1", "Change the greeting in the main file"],
        ]);
        let rows = texts(&t.lines(30));
        assert!(rows.iter().all(|r| str_width(r) <= 30), "{rows:#?}");
        assert_eq!(rows[0], "┌──────┬─────────────────────┐");
        assert_eq!(rows[3], "│ 1    │ Change the greeting │");
        assert_eq!(rows[4], "│      │ in the main file    │");
    }

    #[test]
    fn too_narrow_tables_become_lists() {
        let t = table(&[&["Name", "Kind", "Size"], &["a", "file", "12"]]);
        assert_eq!(texts(&t.lines(12)), ["Name: a", "Kind: file", "Size: 12"]);
    }
}
