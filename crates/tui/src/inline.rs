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
//! When the window is resized, most terminals re-wrap what is on screen,
//! which moves the live area. The cursor moves with the text it is on, so
//! the runtime asks the terminal where the cursor now is and works back to
//! the live area's new first row from the widths of the rows between them;
//! everything from there down is cleared and drawn again.

use std::io::{self, Stdout, Write};

use crossterm::cursor::MoveTo;
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::queue;
use crossterm::terminal::{Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use crate::render::{live_height, render_live, render_pager};
use crate::state::AppState;
use crate::terminal::{self, Screen};
use crate::theme;

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
    /// Where the cursor was left, relative to the live area.
    anchor: Anchor,
    /// A resize happened while the transcript view was showing: find the
    /// live area again when coming back.
    resized_in_pager: bool,
}

/// Where the cursor was left on the normal screen: its column and the
/// widths of the live area's rows above it (they are re-wrapped with it).
#[derive(Debug, Default, Clone, PartialEq)]
struct Anchor {
    column: u16,
    rows_above: Vec<u16>,
}

impl Anchor {
    /// How many rows above the cursor's row the live area starts once the
    /// terminal has re-wrapped its content to `width` columns.
    fn rows_to_top(&self, width: u16) -> u16 {
        let width = width.max(1);
        let rows = |w: u16| w.div_ceil(width).max(1);
        let own = self.column / width;
        self.rows_above.iter().map(|w| rows(*w)).sum::<u16>() + own
    }
}

/// The written width of row `y` of `buf` (up to its last non-blank cell).
fn row_width(buf: &Buffer, y: u16) -> u16 {
    let area = buf.area;
    (area.x..area.x + area.width)
        .rev()
        .find(|x| {
            let cell = &buf[(*x, y)];
            cell.symbol() != " " || cell.bg != Color::Reset
        })
        .map_or(0, |x| x - area.x + 1)
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
        out.flush()?;
        Ok(Self {
            backend: CrosstermBackend::new(out),
            size,
            top: top.min(size.1.saturating_sub(1)),
            prev: None,
            pager: false,
            anchor: Anchor::default(),
            resized_in_pager: false,
        })
    }

    /// The terminal changed size: find the live area again (the terminal
    /// may have re-wrapped it) and repaint from there down.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.size = (width, height);
        if self.pager {
            self.resized_in_pager = true;
        } else {
            self.find_live_area();
        }
        self.top = self.top.min(height.saturating_sub(1));
        self.prev = None;
    }

    /// Asks the terminal where the cursor is and moves `top` to match.
    /// A terminal that does not answer keeps the old row.
    fn find_live_area(&mut self) {
        if let Ok((_, row)) = crossterm::cursor::position() {
            self.top = row.saturating_sub(self.anchor.rows_to_top(self.size.0));
        }
    }

    /// Leaves the cursor at the live area's first column and row.
    fn park_cursor(&mut self) -> io::Result<()> {
        queue!(self.backend, MoveTo(0, self.top))?;
        self.anchor = Anchor::default();
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
        self.prev = None;
        Ok(())
    }

    /// Paints `buf` (whose area is on screen) over cleared cells.
    fn paint_fresh(&mut self, buf: &mut Buffer) -> io::Result<()> {
        strip_colours(buf);
        let blank = Buffer::empty(buf.area);
        self.backend.draw(blank.diff(buf).into_iter())
    }

    /// Prints final transcript rows above the live area (which is then
    /// repainted below them).
    pub fn insert(&mut self, rows: &[Line<'static>]) -> io::Result<()> {
        if rows.is_empty() || self.pager {
            return Ok(());
        }
        let (width, height) = self.size;
        queue!(
            self.backend,
            MoveTo(0, self.top),
            Clear(ClearType::FromCursorDown)
        )?;
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
            Paragraph::new(rows[i..i + chunk].to_vec()).render(area, &mut buf);
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
        if self.pager {
            queue!(self.backend, DisableMouseCapture, LeaveAlternateScreen)?;
            terminal::set_alternate(false);
            self.pager = false;
            self.prev = None;
            if std::mem::take(&mut self.resized_in_pager) {
                Backend::flush(&mut self.backend)?;
                self.find_live_area();
                self.top = self.top.min(self.size.1.saturating_sub(1));
            }
        }
        let (width, height) = self.size;
        let live_h = live_height(state, width, height).max(1);
        if self.top + live_h > height {
            self.scroll_up(self.top + live_h - height)?;
        }
        let area = Rect::new(0, self.top, width, live_h);
        let mut buf = Buffer::empty(area);
        let cursor = render_live(state, area, &mut buf);
        strip_colours(&mut buf);
        match self.prev.take() {
            Some(prev) if prev.area == area => {
                self.backend.draw(prev.diff(&buf).into_iter())?;
            }
            _ => {
                queue!(
                    self.backend,
                    MoveTo(0, self.top),
                    Clear(ClearType::FromCursorDown)
                )?;
                let blank = Buffer::empty(area);
                self.backend.draw(blank.diff(&buf).into_iter())?;
            }
        }
        match cursor {
            Some((x, y)) => {
                self.backend.set_cursor_position((x, y))?;
                self.backend.show_cursor()?;
                self.anchor = Anchor {
                    column: x,
                    rows_above: (area.y..y.max(area.y))
                        .map(|r| row_width(&buf, r))
                        .collect(),
                };
            }
            None => {
                self.backend.hide_cursor()?;
                self.park_cursor()?;
            }
        }
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
        self.backend.hide_cursor()?;
        self.prev = Some(buf);
        Backend::flush(&mut self.backend)
    }

    /// The way out: the live area is replaced by the rest of the
    /// transcript and `farewell`, and the cursor left below them for the
    /// shell.
    pub fn finish(&mut self, rows: &[Line<'static>], farewell: &[Line<'static>]) -> io::Result<()> {
        if self.pager {
            queue!(self.backend, DisableMouseCapture, LeaveAlternateScreen)?;
            terminal::set_alternate(false);
            self.pager = false;
        }
        queue!(
            self.backend,
            MoveTo(0, self.top),
            Clear(ClearType::FromCursorDown)
        )?;
        self.insert(rows)?;
        self.insert(farewell)?;
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
    use ratatui::style::Style;

    #[test]
    fn the_live_area_is_found_above_a_rewrapped_cursor() {
        let parked = Anchor::default();
        assert_eq!(parked.rows_to_top(50), 0);
        // A full-width rule, a short line, then the cursor at column 10 of
        // the input row: at 50 columns the 80-column rule takes two rows.
        let anchor = Anchor {
            column: 10,
            rows_above: vec![80, 12],
        };
        assert_eq!(anchor.rows_to_top(80), 2);
        assert_eq!(anchor.rows_to_top(120), 2);
        assert_eq!(anchor.rows_to_top(50), 3);
        // The cursor's own row wraps too when it is past the new width.
        let far = Anchor {
            column: 70,
            rows_above: vec![0],
        };
        assert_eq!(far.rows_to_top(50), 2);
        assert_eq!(far.rows_to_top(0), 71);
    }

    #[test]
    fn row_width_counts_up_to_the_last_written_cell() {
        let mut buf = Buffer::empty(Rect::new(0, 5, 20, 2));
        buf.set_string(0, 5, "hello", Style::default());
        assert_eq!(row_width(&buf, 5), 5);
        assert_eq!(row_width(&buf, 6), 0);
        buf.set_string(19, 6, "x", Style::default());
        assert_eq!(row_width(&buf, 6), 20);
    }
}
