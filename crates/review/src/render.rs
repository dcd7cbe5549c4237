//! The plan as HTML for the review page, rendered here from Markdown with
//! `pulldown-cmark` (tables, task lists, strikethrough) and `syntect`
//! (code blocks, as CSS classes). The plan is untrusted text — the model
//! wrote it — so nothing in it becomes markup of its own: raw HTML is
//! shown as text, links keep only `http`, `https`, `mailto` and in-page
//! targets, and images are shown as their description and address, never
//! loaded. Every block carries the plan line it starts on (`data-line`),
//! so comments can be anchored to lines of the rendered plan; headings
//! get ids for the outline.

use std::sync::OnceLock;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Serialize;
use syntect::html::{ClassStyle, ClassedHTMLGenerator, css_for_theme_with_class_style};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

/// Code blocks larger than this are shown without highlighting.
const MAX_HIGHLIGHT_BYTES: usize = 100_000;
/// The class prefix of highlighted code.
const CLASS_STYLE: ClassStyle = ClassStyle::SpacedPrefixed { prefix: "hl-" };

/// A heading of the plan, for the outline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Heading {
    pub level: u8,
    pub text: String,
    /// The element id (`h-LINE`).
    pub id: String,
    pub line: usize,
}

/// A plan rendered for the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rendered {
    pub html: String,
    pub outline: Vec<Heading>,
}

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The 1-based line of each byte offset, by the offsets where lines start.
struct Lines(Vec<usize>);

impl Lines {
    fn of(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines(starts)
    }

    fn at(&self, offset: usize) -> usize {
        self.0.partition_point(|start| *start <= offset).max(1)
    }
}

/// A link target the page may follow; anything else (`javascript:`,
/// `data:`, relative paths on the review server) is dropped.
fn safe_href(url: &str) -> Option<&str> {
    let lower = url.trim().to_ascii_lowercase();
    let ok = lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("mailto:")
        || (lower.starts_with('#') && !lower.contains(':'));
    ok.then_some(url.trim())
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Renders `plan` (Markdown) as safe HTML with its outline.
pub fn render_plan(plan: &str) -> Rendered {
    let lines = Lines::of(plan);
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let mut html = String::with_capacity(plan.len() * 2);
    let mut outline = Vec::new();
    // The closing markup of each open element, innermost last.
    let mut closing: Vec<String> = Vec::new();
    // An open code block: its language and text so far.
    let mut code: Option<(String, String)> = None;
    // An open heading: its outline entry, text collected as it comes.
    let mut heading: Option<Heading> = None;
    let mut in_table_head = false;
    let mut items = 0usize;
    for (event, range) in Parser::new_ext(plan, options).into_offset_iter() {
        let line = lines.at(range.start);
        match event {
            Event::Start(tag) => {
                let (open, close) = match tag {
                    Tag::Paragraph if items > 0 => ("<p>".to_string(), "</p>\n"),
                    Tag::Paragraph => (format!("<p data-line=\"{line}\">"), "</p>\n"),
                    Tag::Heading { level, .. } => {
                        let level = heading_level(level);
                        let id = format!("h-{line}");
                        heading = Some(Heading {
                            level,
                            text: String::new(),
                            id: id.clone(),
                            line,
                        });
                        let close = match level {
                            1 => "</h1>\n",
                            2 => "</h2>\n",
                            3 => "</h3>\n",
                            4 => "</h4>\n",
                            5 => "</h5>\n",
                            _ => "</h6>\n",
                        };
                        (
                            format!("<h{level} id=\"{id}\" data-line=\"{line}\">"),
                            close,
                        )
                    }
                    Tag::BlockQuote(_) => (
                        format!("<blockquote data-line=\"{line}\">\n"),
                        "</blockquote>\n",
                    ),
                    Tag::CodeBlock(kind) => {
                        let lang = match kind {
                            CodeBlockKind::Fenced(info) => {
                                info.split_whitespace().next().unwrap_or("").to_string()
                            }
                            CodeBlockKind::Indented => String::new(),
                        };
                        code = Some((lang, String::new()));
                        (
                            format!("<pre class=\"code\" data-line=\"{line}\"><code>"),
                            "</code></pre>\n",
                        )
                    }
                    Tag::HtmlBlock => (
                        format!("<pre class=\"raw-html\" data-line=\"{line}\">"),
                        "</pre>\n",
                    ),
                    Tag::List(Some(start)) => (format!("<ol start=\"{start}\">\n"), "</ol>\n"),
                    Tag::List(None) => ("<ul>\n".to_string(), "</ul>\n"),
                    Tag::Item => {
                        items += 1;
                        (format!("<li data-line=\"{line}\">"), "</li>\n")
                    }
                    Tag::Table(_) => ("<table>\n".to_string(), "</table>\n"),
                    Tag::TableHead => {
                        in_table_head = true;
                        (
                            format!("<thead><tr data-line=\"{line}\">"),
                            "</tr></thead>\n",
                        )
                    }
                    Tag::TableRow => (format!("<tr data-line=\"{line}\">"), "</tr>\n"),
                    Tag::TableCell if in_table_head => ("<th>".to_string(), "</th>"),
                    Tag::TableCell => ("<td>".to_string(), "</td>"),
                    Tag::Emphasis => ("<em>".to_string(), "</em>"),
                    Tag::Strong => ("<strong>".to_string(), "</strong>"),
                    Tag::Strikethrough => ("<del>".to_string(), "</del>"),
                    Tag::Link {
                        dest_url, title, ..
                    } => match safe_href(&dest_url) {
                        Some(href) => (
                            format!(
                                "<a href=\"{}\" title=\"{}\" rel=\"noopener noreferrer\" target=\"_blank\">",
                                escape(href),
                                escape(&title)
                            ),
                            "</a>",
                        ),
                        None => (
                            format!("<span class=\"link\" title=\"{}\">", escape(&dest_url)),
                            "</span>",
                        ),
                    },
                    // Never loaded: the description and where it points.
                    Tag::Image { dest_url, .. } => (
                        format!(
                            "<span class=\"image\" title=\"{}\">image: ",
                            escape(&dest_url)
                        ),
                        "</span>",
                    ),
                    Tag::FootnoteDefinition(name) => (
                        format!(
                            "<div class=\"footnote\" data-line=\"{line}\"><sup>{}</sup> ",
                            escape(&name)
                        ),
                        "</div>\n",
                    ),
                    _ => ("<span>".to_string(), "</span>"),
                };
                html.push_str(&open);
                closing.push(close.to_string());
            }
            Event::End(end) => {
                match end {
                    TagEnd::CodeBlock => {
                        if let Some((lang, text)) = code.take() {
                            html.push_str(&highlight(&lang, &text));
                        }
                    }
                    TagEnd::Heading(_) => outline.extend(heading.take()),
                    TagEnd::TableHead => in_table_head = false,
                    TagEnd::Item => items = items.saturating_sub(1),
                    _ => {}
                }
                html.push_str(&closing.pop().unwrap_or_default());
            }
            Event::Text(text) => {
                if let Some((_, body)) = code.as_mut() {
                    body.push_str(&text);
                    continue;
                }
                if let Some(h) = heading.as_mut() {
                    h.text.push_str(&text);
                }
                html.push_str(&escape(&text));
            }
            Event::Code(text) => {
                if let Some(h) = heading.as_mut() {
                    h.text.push_str(&text);
                }
                html.push_str("<code>");
                html.push_str(&escape(&text));
                html.push_str("</code>");
            }
            // Raw HTML in the plan is text, shown as written.
            Event::Html(text) => html.push_str(&escape(&text)),
            Event::InlineHtml(text) => {
                if let Some(h) = heading.as_mut() {
                    h.text.push_str(&text);
                }
                html.push_str("<code class=\"raw-html\">");
                html.push_str(&escape(&text));
                html.push_str("</code>");
            }
            Event::InlineMath(text) | Event::DisplayMath(text) => {
                html.push_str("<code>");
                html.push_str(&escape(&text));
                html.push_str("</code>");
            }
            Event::FootnoteReference(name) => {
                html.push_str(&format!("<sup>[{}]</sup>", escape(&name)));
            }
            Event::SoftBreak => html.push('\n'),
            Event::HardBreak => html.push_str("<br>\n"),
            Event::Rule => html.push_str(&format!("<hr data-line=\"{line}\">\n")),
            Event::TaskListMarker(done) => html.push_str(if done {
                "<input type=\"checkbox\" checked disabled> "
            } else {
                "<input type=\"checkbox\" disabled> "
            }),
        }
    }
    // A plan cut off mid-element still closes what it opened.
    while let Some(close) = closing.pop() {
        html.push_str(&close);
    }
    Rendered { html, outline }
}

fn syntaxes() -> &'static SyntaxSet {
    static SYNTAXES: OnceLock<SyntaxSet> = OnceLock::new();
    SYNTAXES.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// A code block's text as HTML: highlighted when its language is known,
/// escaped text otherwise.
fn highlight(lang: &str, text: &str) -> String {
    let syntaxes = syntaxes();
    let syntax = (!lang.is_empty() && text.len() <= MAX_HIGHLIGHT_BYTES)
        .then(|| syntaxes.find_syntax_by_token(lang))
        .flatten();
    let Some(syntax) = syntax else {
        return escape(text);
    };
    let mut generator = ClassedHTMLGenerator::new_with_class_style(syntax, syntaxes, CLASS_STYLE);
    for line in LinesWithEndings::from(text) {
        if generator
            .parse_html_for_line_which_includes_newline(line)
            .is_err()
        {
            return escape(text);
        }
    }
    generator.finalize()
}

/// The style sheet of highlighted code (light and dark themes).
pub fn highlight_css() -> String {
    let themes = syntect::highlighting::ThemeSet::load_defaults();
    let mut css = String::new();
    if let Some(light) = themes.themes.get("InspiredGitHub")
        && let Ok(rules) = css_for_theme_with_class_style(light, CLASS_STYLE)
    {
        css.push_str(&rules);
    }
    if let Some(dark) = themes.themes.get("base16-ocean.dark")
        && let Ok(rules) = css_for_theme_with_class_style(dark, CLASS_STYLE)
    {
        css.push_str("@media (prefers-color-scheme: dark) {\n");
        css.push_str(&rules);
        css.push_str("}\n");
    }
    css
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
