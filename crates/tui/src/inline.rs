//! The terminal as the main interface uses it: no alternate screen. The
//! transcript is printed into the terminal's normal screen as entries
//! become final, so it scrolls into the terminal's own scrollback (mouse
//! wheel, search and copy work as in the shell, and it stays there after
//! exit); below it a small live area is redrawn in place.
//!
//! The live area starts where the cursor was at launch and grows down to
//! the bottom of the screen; when it needs more room, or history is added
//! under a full screen, the whole screen is scrolled up by printing line
//! feeds on its last row, which pushes the top rows into the scrollback.
//! Frames are diffed cell by cell against the last one. The full
//! transcript view (Ctrl+O) is the one thing drawn on the alternate
//! screen, with the mouse wheel captured while it is open.
//!
//! Only final transcript rows may ever reach the scrollback — never a
//! frame of the live area, never a dialog. Two rules keep it so:
//! - Rows are cleared one by one (erase-line), never with an erase of the
//!   screen: tmux (option `scroll-on-clear`, on by default) and some other
//!   terminals push the whole screen into the scrollback when it is erased
//!   from its top-left corner, which is where a full-screen live area or
//!   dialog starts.
//! - The terminal's cursor stays hidden at the live area's first row (the
//!   input cursor is drawn as a reversed cell). When the window gets
//!   shorter, terminals drop the rows under the cursor before they push
//!   rows off the top, so a shrink takes the live area's rows, not
//!   copies of them into the scrollback; and after a resize the cursor's
//!   row is where the live area starts.
//!
//! When the width changes, the history entries that are wholly on the
//! screen are printed again at the new width (the current turn among them
//! whenever it fits on the screen); rows already in the scrollback stay as
//! they were printed. See [`Inline::locate_after_resize`].

use std::collections::VecDeque;
use std::io::{self, Stdout, Write};

use crossterm::cursor::MoveTo;
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::queue;
use crossterm::terminal::{Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use crate::render::{live_height, render_live, render_pager, review_address};
use crate::state::AppState;
use crate::terminal::{self, Screen};
use crate::theme;
use crate::transcript::EntryRows;

/// A history entry whose rows are all on the screen.
#[derive(Debug, Clone, PartialEq)]
struct Printed {
    /// Its index in the transcript.
    entry: usize,
    /// Screen row of its first row (may be past the bottom while a batch
    /// is being printed).
    start: i32,
    /// The written width of each of its rows.
    widths: Vec<u16>,
}

/// The live area under the printed transcript.
pub struct Inline {
    backend: CrosstermBackend<Stdout>,
    /// Screen size (columns, rows).
    size: (u16, u16),
    /// First row of the live area.
    top: u16,
    /// The last frame drawn there (`None`: repaint everything).
    prev: Option<Buffer>,
    /// Whether the transcript view is showing (alternate screen).
    pager: bool,
    /// History entries wholly on the screen, oldest first.
    printed: VecDeque<Printed>,
    /// The width `printed` was laid out at.
    printed_width: u16,
    /// The window was resized: find the live area again before drawing.
    resized: bool,
}

/// The written width of `line` (up to its last non-blank character).
fn line_width(line: &Line<'_>) -> u16 {
    let text = line.to_string();
    crate::wrap::str_width(text.trim_end()).min(u16::MAX as usize) as u16
}

/// Rows of the screen the printed rows of widths `widths` take at
/// `width` columns when the terminal re-wraps them.
fn rewrapped_rows(widths: &[u16], width: u16) -> i32 {
    let width = width.max(1);
    widths
        .iter()
        .map(|w| i32::from(w.div_ceil(width).max(1)))
        .sum()
}

fn strip_colours(buf: &mut Buffer) {
    if !theme::no_color() {
        return;
    }
    for cell in buf.content.iter_mut() {
        cell.fg = Color::Reset;
        cell.bg = Color::Reset;
    }
}

impl Inline {
    /// Switches the terminal to raw mode (no alternate screen) and places
    /// the live area at the cursor.
    pub fn enter() -> io::Result<Self> {
        terminal::enter(Screen::Inline)?;
        let size = crossterm::terminal::size()?;
        let mut out = io::stdout();
        let top = match crossterm::cursor::position() {
            Ok((_, row)) => row,
            Err(_) => {
                // The terminal did not say where the cursor is: start from
                // a clean screen.
                queue!(out, Clear(ClearType::All))?;
                0
            }
        };
        queue!(out, crossterm::cursor::Hide)?;
        out.flush()?;
        Ok(Self {
            backend: CrosstermBackend::new(out),
            size,
            top: top.min(size.1.saturating_sub(1)),
            prev: None,
            pager: false,
            printed: VecDeque::new(),
            printed_width: size.0,
            resized: false,
        })
    }

    /// The terminal changed size; the live area is found again (the
    /// terminal may have re-wrapped and moved it) before the next frame.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.size = (width, height);
        self.resized = true;
        self.prev = None;
    }

    /// The size frames are drawn at.
    pub fn size(&self) -> (u16, u16) {
        self.size
    }

    /// Whether a resize waits for [`Self::locate_after_resize`].
    pub fn resize_pending(&self) -> bool {
        self.resized && !self.pager
    }

    /// After a resize, on the normal screen: finds the live area again
    /// (the cursor was left at its first row and moved with it) and, when
    /// the width changed, returns the first history entry to print again
    /// at the new width — the earliest one still wholly on the screen.
    /// The live area then starts where that entry started.
    pub fn locate_after_resize(&mut self) -> io::Result<Option<usize>> {
        if self.pager || !std::mem::take(&mut self.resized) {
            return Ok(None);
        }
        let (width, height) = self.size;
        Backend::flush(&mut self.backend)?;
        if let Ok((_, row)) = crossterm::cursor::position() {
            self.top = row;
        }
        self.top = self.top.min(height.saturating_sub(1));
        let old_width = std::mem::replace(&mut self.printed_width, width);
        if old_width == width {
            return Ok(None);
        }
        // Wider: rows stay one row each. Narrower: terminals that re-wrap
        // split the rows longer than the new width.
        let mut start = i32::from(self.top);
        let mut first = None;
        for p in self.printed.iter().rev() {
            start -= if width > old_width {
                p.widths.len() as i32
            } else {
                rewrapped_rows(&p.widths, width)
            };
            if start < 0 {
                break;
            }
            first = Some((p.entry, start));
        }
        self.printed.clear();
        let Some((entry, row)) = first else {
            return Ok(None);
        };
        self.top = row as u16;
        Ok(Some(entry))
    }

    /// Leaves the transcript view, if it is showing.
    pub fn show_normal_screen(&mut self) -> io::Result<()> {
        if self.pager {
            queue!(self.backend, DisableMouseCapture, LeaveAlternateScreen)?;
            terminal::set_alternate(false);
            self.pager = false;
            self.prev = None;
        }
        Ok(())
    }

    /// Erases rows `from..` to the bottom of the screen, one row at a time
    /// (see the module comment: never an erase of the screen).
    fn clear_from(&mut self, from: u16) -> io::Result<()> {
        for y in from..self.size.1 {
            queue!(self.backend, MoveTo(0, y), Clear(ClearType::UntilNewLine))?;
        }
        Ok(())
    }

    /// Leaves the (hidden) cursor at the live area's first column and row.
    fn park_cursor(&mut self) -> io::Result<()> {
        queue!(self.backend, MoveTo(0, self.top))?;
        Ok(())
    }

    /// Scrolls the whole screen up by `rows` (their top rows go into the
    /// scrollback).
    fn scroll_up(&mut self, rows: u16) -> io::Result<()> {
        if rows == 0 {
            return Ok(());
        }
        let bottom = self.size.1.saturating_sub(1);
        queue!(self.backend, MoveTo(0, bottom))?;
        for _ in 0..rows {
            self.backend.write_all(b"\n")?;
        }
        self.top = self.top.saturating_sub(rows);
        for p in self.printed.iter_mut() {
            p.start -= i32::from(rows);
        }
        while self.printed.front().is_some_and(|p| p.start < 0) {
            self.printed.pop_front();
        }
        self.prev = None;
        Ok(())
    }

    /// Paints `buf` (whose area is on screen) over cleared cells.
    fn paint_fresh(&mut self, buf: &mut Buffer) -> io::Result<()> {
        strip_colours(buf);
        let blank = Buffer::empty(buf.area);
        self.backend.draw(blank.diff(buf).into_iter())
    }

    /// Prints final transcript rows, entry by entry, above the live area
    /// (which is then repainted below them).
    pub fn insert(&mut self, entries: &[EntryRows]) -> io::Result<()> {
        if entries.iter().all(|(_, rows)| rows.is_empty()) || self.pager {
            return Ok(());
        }
        let (width, height) = self.size;
        let mut offset = i32::from(self.top);
        for (entry, rows) in entries {
            self.printed.push_back(Printed {
                entry: *entry,
                start: offset,
                widths: rows.iter().map(line_width).collect(),
            });
            offset += rows.len() as i32;
        }
        let rows: Vec<&Line<'static>> = entries.iter().flat_map(|(_, r)| r.iter()).collect();
        self.clear_from(self.top)?;
        let mut i = 0;
        while i < rows.len() {
            if self.top >= height {
                let need = (rows.len() - i).min(height as usize) as u16;
                self.scroll_up(need.max(1))?;
            }
            let room = (height - self.top) as usize;
            let chunk = room.min(rows.len() - i);
            let area = Rect::new(0, self.top, width, chunk as u16);
            let mut buf = Buffer::empty(area);
            let lines: Vec<Line<'static>> =
                rows[i..i + chunk].iter().map(|l| (*l).clone()).collect();
            Paragraph::new(lines).render(area, &mut buf);
            self.paint_fresh(&mut buf)?;
            self.top += chunk as u16;
            i += chunk;
        }
        self.prev = None;
        if self.top < height {
            self.park_cursor()?;
        }
        Ok(())
    }

    /// Draws the live area (or the transcript view).
    pub fn draw(&mut self, state: &AppState) -> io::Result<()> {
        if state.pager.is_some() {
            return self.draw_pager(state);
        }
        self.show_normal_screen()?;
        let (width, height) = self.size;
        let live_h = live_height(state, width, height).max(1);
        if self.top + live_h > height {
            self.scroll_up(self.top + live_h - height)?;
        }
        let area = Rect::new(0, self.top, width, live_h);
        let mut buf = Buffer::empty(area);
        if let Some((x, y)) = render_live(state, area, &mut buf)
            && let Some(cell) = buf.cell_mut((x, y))
        {
            // The input cursor, drawn: the terminal's own stays parked.
            cell.modifier.insert(Modifier::REVERSED);
        }
        strip_colours(&mut buf);
        match self.prev.take() {
            Some(prev) if prev.area == area => {
                self.backend.draw(prev.diff(&buf).into_iter())?;
            }
            _ => {
                self.clear_from(self.top)?;
                let blank = Buffer::empty(area);
                self.backend.draw(blank.diff(&buf).into_iter())?;
            }
        }
        if let Some((y, url)) = review_address(state, area) {
            // Written as text, not cells: the terminal wraps it as one
            // line, which copies whole however narrow the window.
            queue!(self.backend, MoveTo(0, y), crossterm::style::Print(url))?;
        }
        self.park_cursor()?;
        self.prev = Some(buf);
        Backend::flush(&mut self.backend)
    }

    fn draw_pager(&mut self, state: &AppState) -> io::Result<()> {
        if !self.pager {
            queue!(self.backend, EnterAlternateScreen, EnableMouseCapture)?;
            terminal::set_alternate(true);
            queue!(self.backend, Clear(ClearType::All))?;
            self.pager = true;
            self.prev = None;
        }
        let area = Rect::new(0, 0, self.size.0, self.size.1);
        let mut buf = Buffer::empty(area);
        render_pager(state, area, &mut buf);
        strip_colours(&mut buf);
        let prev = match self.prev.take() {
            Some(p) if p.area == area => p,
            _ => {
                queue!(self.backend, Clear(ClearType::All))?;
                Buffer::empty(area)
            }
        };
        self.backend.draw(prev.diff(&buf).into_iter())?;
        self.prev = Some(buf);
        Backend::flush(&mut self.backend)
    }

    /// The way out: the live area is replaced by the rest of the
    /// transcript and `farewell`, and the cursor left below them for the
    /// shell.
    pub fn finish(&mut self, rows: &[EntryRows], farewell: &[Line<'static>]) -> io::Result<()> {
        self.show_normal_screen()?;
        self.clear_from(self.top)?;
        self.insert(rows)?;
        self.insert(&[(usize::MAX, farewell.to_vec())])?;
        if self.top >= self.size.1 {
            self.scroll_up(1)?;
        }
        queue!(self.backend, MoveTo(0, self.top))?;
        self.backend.show_cursor()?;
        Backend::flush(&mut self.backend)
    }

    /// Runs `f` (an editor) with the terminal restored, then repaints.
    pub fn suspended<T>(&mut self, f: impl FnOnce() -> T) -> io::Result<T> {
        terminal::restore_terminal();
        let out = f();
        terminal::enter(Screen::Inline)?;
        queue!(self.backend, crossterm::cursor::Hide)?;
        if let Ok(size) = crossterm::terminal::size() {
            self.resize(size.0, size.1);
        }
        self.prev = None;
        self.pager = false;
        Ok(out)
    }
}

impl Drop for Inline {
    fn drop(&mut self) {
        terminal::restore_terminal();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrapped_rows_split_only_what_is_wider_than_the_screen() {
        assert_eq!(rewrapped_rows(&[80, 12, 0], 80), 3);
        assert_eq!(rewrapped_rows(&[80, 12, 0], 50), 4);
        assert_eq!(rewrapped_rows(&[120], 50), 3);
        assert_eq!(rewrapped_rows(&[5], 0), 5);
    }

    #[test]
    fn line_width_counts_up_to_the_last_written_character() {
        assert_eq!(line_width(&Line::raw("hello   ")), 5);
        assert_eq!(line_width(&Line::raw("")), 0);
        assert_eq!(line_width(&Line::raw("● 名前")), 6);
    }
}
