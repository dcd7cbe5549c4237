//! Markdown to styled terminal lines (pulldown-cmark events in, ratatui
//! lines out): headings, emphasis, inline code, lists, block quotes, rules,
//! tables (laid out with column widths and borders for the width at hand)
//! and fenced code blocks (syntax-highlighted, see [`crate::highlight`]).
//! Lines come out unwrapped with a hanging indent, so the caller can wrap
//! them for any width and cache the result.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::table::Table;
use crate::theme;
use crate::wrap::{str_width, wrap_line};

/// One logical line of rendered Markdown.
#[derive(Debug, Clone, PartialEq)]
pub struct MdLine {
    pub line: Line<'static>,
    /// Columns of hanging indent for wrapped continuation rows.
    pub indent: usize,
    /// A horizontal rule: drawn across the full width, never wrapped.
    pub is_rule: bool,
    /// A table, laid out when the width is known.
    pub table: Option<Table>,
}

/// The style of code block text that is not highlighted.
pub fn code_block_style() -> Style {
    Style::default().fg(theme::current().code_fg)
}

fn inline_code_style() -> Style {
    Style::default().fg(theme::current().inline_code)
}

fn dim() -> Style {
    Style::default().fg(theme::current().dim)
}

struct ListState {
    next: Option<u64>,
}

struct Renderer {
    out: Vec<MdLine>,
    cur: Vec<Span<'static>>,
    styles: Vec<Style>,
    lists: Vec<ListState>,
    /// Marker of the list item whose first line is being built.
    pending_marker: Option<String>,
    quote_depth: usize,
    in_code: bool,
    code_lang: String,
    code: String,
    heading: Option<HeadingLevel>,
    link_url: Vec<String>,
    needs_blank: bool,
    table_row: Vec<String>,
    table: Option<Table>,
    cell: String,
    in_cell: bool,
}

impl Renderer {
    fn new() -> Self {
        Self {
            out: Vec::new(),
            cur: Vec::new(),
            styles: vec![Style::default()],
            lists: Vec::new(),
            pending_marker: None,
            quote_depth: 0,
            in_code: false,
            code_lang: String::new(),
            code: String::new(),
            heading: None,
            link_url: Vec::new(),
            needs_blank: false,
            table_row: Vec::new(),
            table: None,
            cell: String::new(),
            in_cell: false,
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, patch: Style) {
        let s = self.style().patch(patch);
        self.styles.push(s);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    /// Indent of the current list nesting (each level is two columns plus
    /// the marker width of the enclosing items).
    fn list_indent(&self) -> usize {
        self.lists.len().saturating_sub(1) * 3
    }

    fn quote_prefix(&self) -> String {
        "│ ".repeat(self.quote_depth)
    }

    /// Starts a top-level block: one blank line separates blocks.
    fn start_block(&mut self) {
        if self.needs_blank && self.lists.is_empty() && !self.out.is_empty() {
            self.push_raw(Line::default(), 0);
        }
        self.needs_blank = false;
    }

    fn push_raw(&mut self, line: Line<'static>, indent: usize) {
        self.out.push(MdLine {
            line,
            indent,
            is_rule: false,
            table: None,
        });
    }

    fn text(&mut self, text: &str) {
        if self.in_cell {
            self.cell.push_str(text);
            return;
        }
        let style = self.style();
        self.cur.push(Span::styled(text.to_string(), style));
    }

    /// Ends the current line, adding quote bars, list indent and marker.
    fn flush(&mut self) {
        if self.cur.is_empty() && self.pending_marker.is_none() {
            return;
        }
        let mut spans = Vec::new();
        let quote = self.quote_prefix();
        let mut indent = str_width(&quote);
        if !quote.is_empty() {
            spans.push(Span::styled(quote, dim()));
        }
        if !self.lists.is_empty() {
            let base = self.list_indent();
            match self.pending_marker.take() {
                Some(marker) => {
                    let w = str_width(&marker);
                    spans.push(Span::raw(" ".repeat(base)));
                    spans.push(Span::styled(marker, dim()));
                    indent += base + w;
                }
                None => {
                    spans.push(Span::raw(" ".repeat(base + 2)));
                    indent += base + 2;
                }
            }
        }
        spans.append(&mut self.cur);
        self.push_raw(Line::from(spans), indent);
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.start_block(),
            Tag::Heading { level, .. } => {
                self.start_block();
                self.heading = Some(level);
                let style = match level {
                    HeadingLevel::H1 => {
                        Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
                    }
                    HeadingLevel::H2 => Style::default().add_modifier(Modifier::BOLD),
                    _ => Style::default().add_modifier(Modifier::BOLD | Modifier::ITALIC),
                };
                self.push_style(style);
            }
            Tag::BlockQuote(_) => {
                self.start_block();
                self.quote_depth += 1;
                self.push_style(Style::default().add_modifier(Modifier::ITALIC));
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                self.start_block();
                self.in_code = true;
                self.code.clear();
                self.code_lang = match kind {
                    CodeBlockKind::Fenced(lang) => lang.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
            }
            Tag::List(start) => {
                self.flush();
                if self.lists.is_empty() {
                    self.start_block();
                }
                self.lists.push(ListState { next: start });
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(ListState { next: Some(n) }) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_string(),
                };
                self.pending_marker = Some(marker);
            }
            Tag::Emphasis => self.push_style(Style::default().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::default().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => {
                self.push_style(Style::default().add_modifier(Modifier::CROSSED_OUT))
            }
            Tag::Link { dest_url, .. } => {
                self.link_url.push(dest_url.to_string());
                self.push_style(
                    Style::default()
                        .fg(theme::current().accent)
                        .add_modifier(Modifier::UNDERLINED),
                );
            }
            Tag::Table(aligns) => {
                self.flush();
                self.start_block();
                self.table = Some(Table::new(aligns));
            }
            Tag::TableCell => {
                self.in_cell = true;
                self.cell.clear();
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush();
                self.needs_blank = true;
            }
            TagEnd::Heading(_) => {
                self.pop_style();
                self.flush();
                self.heading = None;
                self.needs_blank = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.pop_style();
                self.quote_depth = self.quote_depth.saturating_sub(1);
                self.needs_blank = true;
            }
            TagEnd::CodeBlock => {
                self.in_code = false;
                let code = std::mem::take(&mut self.code);
                self.code_lines(&code);
                self.needs_blank = true;
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.needs_blank = true;
                }
            }
            TagEnd::Item => self.flush(),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Link => {
                self.pop_style();
                if let Some(url) = self.link_url.pop()
                    && !url.is_empty()
                    && !self.cur.iter().any(|s| s.content == url)
                {
                    self.cur.push(Span::styled(format!(" ({url})"), dim()));
                }
            }
            TagEnd::TableCell => {
                self.in_cell = false;
                self.table_row.push(std::mem::take(&mut self.cell));
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                let row = std::mem::take(&mut self.table_row);
                if let Some(t) = self.table.as_mut() {
                    t.rows.push(row);
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.out.push(MdLine {
                        line: Line::default(),
                        indent: 0,
                        is_rule: false,
                        table: Some(table),
                    });
                }
                self.needs_blank = true;
            }
            _ => {}
        }
    }

    /// A finished code block: highlighted when its language is known.
    fn code_lines(&mut self, code: &str) {
        let code = code.trim_end_matches('\n');
        if let Some(lines) = crate::highlight::highlight(code, &self.code_lang) {
            for pieces in lines {
                let mut spans = vec![Span::raw("  ")];
                spans.extend(pieces.into_iter().map(|(s, t)| Span::styled(t, s)));
                self.push_raw(Line::from(spans), 2);
            }
            return;
        }
        for line in code.split('\n') {
            let content = format!("  {line}");
            self.push_raw(Line::from(Span::styled(content, code_block_style())), 2);
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) if self.in_code => self.code.push_str(&t),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                if self.in_cell {
                    self.cell.push_str(&t);
                } else {
                    let style = self.style().patch(inline_code_style());
                    self.cur.push(Span::styled(t.to_string(), style));
                }
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.flush();
                self.start_block();
                self.out.push(MdLine {
                    line: Line::default(),
                    indent: 0,
                    is_rule: true,
                    table: None,
                });
                self.needs_blank = true;
            }
            Event::TaskListMarker(done) => {
                if let Some(m) = self.pending_marker.as_mut() {
                    *m = if done { "☒ ".into() } else { "☐ ".into() };
                }
            }
            Event::Html(t) | Event::InlineHtml(t) => self.text(t.trim_end_matches('\n')),
            Event::FootnoteReference(t) => self.text(&format!("[{t}]")),
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t),
        }
    }
}

/// Renders Markdown source to logical lines.
pub fn render_markdown(src: &str) -> Vec<MdLine> {
    let options =
        Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS;
    let mut r = Renderer::new();
    for event in Parser::new_ext(src, options) {
        r.event(event);
    }
    r.flush();
    r.out
}

/// Renders Markdown and wraps it to `width` columns.
pub fn markdown_lines(src: &str, width: usize) -> Vec<Line<'static>> {
    wrap_md(&render_markdown(src), width)
}

/// Wraps rendered Markdown to `width` columns.
pub fn wrap_md(lines: &[MdLine], width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::with_capacity(lines.len());
    for l in lines {
        if let Some(table) = &l.table {
            out.extend(table.lines(width));
        } else if l.is_rule {
            out.push(Line::styled("─".repeat(width.min(80)), dim()));
        } else if l.line.spans.is_empty() {
            out.push(Line::default());
        } else {
            out.extend(wrap_line(&l.line, width, l.indent));
        }
    }
    out
}

/// Inline Markdown of a todo item as spans: `code` in the accent colour,
/// `**bold**` bold, the markers themselves not shown.
pub fn inline_spans(text: &str, base: Style) -> Vec<Span<'static>> {
    let accent = theme::current().accent;
    let mut spans = Vec::new();
    for (i, part) in text.split('`').enumerate() {
        if part.is_empty() {
            continue;
        }
        if i % 2 == 1 {
            spans.push(Span::styled(part.to_string(), base.fg(accent)));
            continue;
        }
        for (j, piece) in part.split("**").enumerate() {
            if !piece.is_empty() {
                let style = if j % 2 == 1 {
                    base.add_modifier(Modifier::BOLD)
                } else {
                    base
                };
                spans.push(Span::styled(piece.to_string(), style));
            }
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(src: &str, width: usize) -> Vec<String> {
        markdown_lines(src, width)
            .iter()
            .map(|l| l.to_string())
            .collect()
    }

    #[test]
    fn headings_paragraphs_and_emphasis() {
        let lines = render_markdown("# Title\n\nSome *soft* and **strong** text with `code`.");
        let texts: Vec<String> = lines.iter().map(|l| l.line.to_string()).collect();
        assert_eq!(texts, ["Title", "", "Some soft and strong text with code."]);
        let title = &lines[0].line.spans[0];
        assert!(title.style.add_modifier.contains(Modifier::BOLD));
        let para = &lines[2].line.spans;
        let soft = para.iter().find(|s| s.content == "soft").map(|s| s.style);
        assert!(soft.is_some_and(|s| s.add_modifier.contains(Modifier::ITALIC)));
        let code = para.iter().find(|s| s.content == "code").map(|s| s.style);
        assert_eq!(code, Some(inline_code_style()));
    }

    #[test]
    fn lists_nest_with_hanging_indent() {
        let src = "- one\n- two is a longer item\n  - nested\n1. first\n2. second";
        assert_eq!(
            plain(src, 12),
            [
                "• one",
                "• two is a",
                "  longer",
                "  item",
                "   • nested",
                "",
                "1. first",
                "2. second"
            ]
        );
    }

    #[test]
    fn fenced_code_keeps_lines_and_gets_code_style() {
        let src = "Run:\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\nafter";
        let lines = render_markdown(src);
        let texts: Vec<String> = lines.iter().map(|l| l.line.to_string()).collect();
        assert_eq!(
            texts,
            [
                "Run:",
                "",
                "  fn main() {",
                "      println!(\"hi\");",
                "  }",
                "",
                "after"
            ]
        );
        let plain = render_markdown("```\nplain text\n```");
        assert_eq!(plain[0].line.spans[0].style, code_block_style());
    }

    #[test]
    fn tables_are_laid_out_with_widths_and_borders() {
        let src = "| Name | Size |\n|:-----|-----:|\n| a.rs | 12 |\n| longer.rs | 3 |\n";
        assert_eq!(
            plain(src, 40),
            [
                "┌───────────┬──────┐",
                "│ Name      │ Size │",
                "├───────────┼──────┤",
                "│ a.rs      │   12 │",
                "│ longer.rs │    3 │",
                "└───────────┴──────┘",
            ]
        );
    }

    #[test]
    fn quotes_rules_and_tasks() {
        let src = "> quoted\n\n---\n\n- [x] done\n- [ ] open";
        let out = plain(src, 10);
        assert_eq!(out[0], "│ quoted");
        assert_eq!(out[2], "─".repeat(10));
        assert_eq!(&out[4..], ["☒ done", "☐ open"]);
    }
}
