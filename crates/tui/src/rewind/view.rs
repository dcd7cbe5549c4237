//! How the rewind picker draws itself: the points with the files each
//! changed, the choices at a point under the preview of what restoring
//! the code changes (per file `+N −M`, relative to the file as it is
//! now), the overwrite confirmation, and each stage's hint row, written
//! from the stage's key table.

use catui_core::checkpoints::PointKind;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Padding, Paragraph, Widget};

use super::{CHOICES, CONFIRM, POINTS, Preview, RewindPicker, Stage};
use crate::keymap;
use crate::theme;
use crate::wrap::truncate;

/// Points shown at once; the list scrolls with the selection.
const VISIBLE_POINTS: usize = 8;
/// Files of a preview shown; the rest are counted.
const VISIBLE_FILES: usize = 6;

impl RewindPicker {
    pub(super) fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let t = theme::current();
        let dim = Style::default().fg(t.dim);
        let bold = Style::default().add_modifier(Modifier::BOLD);
        let inner = width.saturating_sub(6).max(10);
        let mut lines = Vec::new();
        match &self.stage {
            Stage::Points => {
                lines.push(Line::styled(
                    "Go back to before which message? (files it changed shown)",
                    bold,
                ));
                self.point_lines(inner, &mut lines);
                lines.push(Line::styled(keymap::hint(POINTS, |_| true), dim));
            }
            Stage::Choices {
                options,
                selected,
                preview,
            } => {
                let label = self
                    .points
                    .get(self.selected)
                    .map(|p| p.label.clone())
                    .unwrap_or_default();
                lines.push(Line::styled(truncate(&label, inner), bold));
                match preview {
                    Some(Ok(preview)) => preview_lines(preview, inner, &mut lines),
                    Some(Err(why)) => lines.push(Line::styled(
                        truncate(&format!("The code cannot be previewed: {why}"), inner),
                        Style::default().fg(t.warn),
                    )),
                    None => {}
                }
                for (i, c) in options.iter().enumerate() {
                    let marker = if i == *selected { "❯ " } else { "  " };
                    let style = if i == *selected {
                        Style::default().fg(t.accent)
                    } else {
                        Style::default()
                    };
                    lines.push(Line::styled(
                        format!("{marker}{}. {}", i + 1, c.label()),
                        style,
                    ));
                }
                lines.push(Line::styled(keymap::hint(CHOICES, |_| true), dim));
            }
            Stage::Confirm { outside, .. } => {
                lines.push(Line::styled(
                    "These files changed outside catui since then; rewinding overwrites them:",
                    Style::default().fg(t.warn).add_modifier(Modifier::BOLD),
                ));
                for f in outside.iter().take(VISIBLE_POINTS) {
                    lines.push(Line::raw(format!("  {}", truncate(f, inner))));
                }
                if outside.len() > VISIBLE_POINTS {
                    lines.push(Line::styled(
                        format!("  and {} more", outside.len() - VISIBLE_POINTS),
                        dim,
                    ));
                }
                lines.push(Line::styled(keymap::hint(CONFIRM, |_| true), dim));
            }
        }
        lines
    }

    /// The window of points around the selection.
    fn point_lines(&self, inner: usize, lines: &mut Vec<Line<'static>>) {
        let t = theme::current();
        let dim = Style::default().fg(t.dim);
        let start = self
            .selected
            .saturating_sub(VISIBLE_POINTS - 1)
            .min(self.points.len().saturating_sub(VISIBLE_POINTS));
        for (i, p) in self
            .points
            .iter()
            .enumerate()
            .skip(start)
            .take(VISIBLE_POINTS)
        {
            let marker = if i == self.selected { "❯ " } else { "  " };
            let tag = match p.kind {
                PointKind::Message => "",
                PointKind::PlanApproval => "◆ ",
                PointKind::BeforeRewind => "↶ ",
            };
            let style = if i == self.selected {
                Style::default().fg(t.accent)
            } else {
                Style::default()
            };
            let time = p.timestamp.get(11..16).unwrap_or_default();
            lines.push(Line::from(vec![
                Span::styled(marker.to_string(), style),
                Span::styled(truncate(&format!("{tag}{}", p.label), inner), style),
                Span::styled(format!("  {time}"), dim),
            ]));
            if !p.files.is_empty() {
                let files = format!("changed {}", p.files.join(", "));
                lines.push(Line::styled(
                    format!("    {}", truncate(&files, inner)),
                    dim,
                ));
            }
        }
    }

    /// Rows the picker would like at `width`.
    pub fn desired_height(&self, width: u16) -> u16 {
        self.lines(width as usize).len() as u16 + 4
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let t = theme::current();
        let block = Block::default()
            .borders(Borders::ALL)
            .border_type(BorderType::Rounded)
            .border_style(Style::default().fg(t.accent))
            .title(" Rewind ")
            .padding(Padding::horizontal(1));
        Paragraph::new(self.lines(area.width as usize))
            .block(block)
            .render(area, buf);
    }
}

/// The preview above a point's choices: a row per file with the lines
/// restoring the code adds and removes (`+N −M`, aligned, never cut; the
/// path gives way on a narrow screen), what else happens to the file, and
/// a count of the files beyond [`VISIBLE_FILES`].
fn preview_lines(preview: &Preview, inner: usize, lines: &mut Vec<Line<'static>>) {
    let t = theme::current();
    let dim = Style::default().fg(t.dim);
    if preview.files.is_empty() && preview.deleted.is_empty() {
        lines.push(Line::styled(
            "Restoring the code changes nothing: no file differs from that point.",
            dim,
        ));
        return;
    }
    lines.push(Line::styled("Restoring the code changes:", dim));
    let added_w = preview
        .files
        .iter()
        .map(|f| f.insertions.to_string().len())
        .max()
        .unwrap_or(1);
    let removed_w = preview
        .files
        .iter()
        .map(|f| f.deletions.to_string().len())
        .max()
        .unwrap_or(1);
    for f in preview.files.iter().take(VISIBLE_FILES) {
        let note = if preview.deleted.contains(&f.path) {
            " (deleted: created since)"
        } else if preview.outside.contains(&f.path) {
            " (changed outside catui)"
        } else {
            ""
        };
        // "  +N −M  path": 2 + 1 + N + 1 + 1 + M + 2.
        let room = inner
            .saturating_sub(added_w + removed_w + 7 + note.chars().count())
            .max(8);
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(
                format!("+{:<added_w$}", f.insertions),
                Style::default().fg(t.added_fg),
            ),
            Span::raw(" "),
            Span::styled(
                format!("−{:<removed_w$}", f.deletions),
                Style::default().fg(t.removed_fg),
            ),
            Span::raw(format!("  {}", truncate(&f.path, room))),
            Span::styled(note, dim),
        ]));
    }
    if preview.files.len() > VISIBLE_FILES {
        let rest = &preview.files[VISIBLE_FILES..];
        let added: u64 = rest.iter().map(|f| f.insertions).sum();
        let removed: u64 = rest.iter().map(|f| f.deletions).sum();
        lines.push(Line::styled(
            format!("  and {} more files (+{added} −{removed})", rest.len()),
            dim,
        ));
    }
}
