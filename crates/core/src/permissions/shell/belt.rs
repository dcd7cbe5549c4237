//! A second, independent reading of the command text: where bash would
//! start running something while expanding words (`$(`, backticks, `$((`,
//! `$[`, `${`, `<(`, `>(`), found by a small quote-aware scanner of our own.
//!
//! The syntax tree is the primary source; this scanner exists because the
//! tree-sitter grammar does not always agree with bash (it misses backticks
//! inside `${x?...}`, for instance). Every place found here must be a node
//! the walker checked, or the command line is not read-only. The scanner
//! errs towards finding too much: a false find only means a prompt.

/// Byte offsets in the command text where bash starts a substitution or
/// expansion. `Err` when the text ends inside a quote or substitution.
pub(super) fn active_openers(src: &str) -> Result<Vec<usize>, String> {
    let mut scan = Scan {
        s: src.as_bytes(),
        i: 0,
        stack: vec![Ctx::Code { close: None }],
        found: Vec::new(),
        heredocs: Vec::new(),
    };
    scan.run()?;
    Ok(scan.found)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Ctx {
    /// Commands: the top level, `$(...)`, `<(...)` (closed by `)` at
    /// `depth` 0), and backticks (closed by a backtick).
    Code {
        close: Option<Close>,
    },
    Double,
    /// `${...}`; single quotes are quotes only outside double quotes.
    Brace {
        in_double: bool,
    },
    /// `$((...))` with its paren depth, or `$[...]`.
    Arith {
        depth: usize,
        bracket: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Close {
    Paren(usize),
    Backtick,
}

struct Heredoc {
    delimiter: Vec<u8>,
    strip_tabs: bool,
    quoted: bool,
}

struct Scan<'a> {
    s: &'a [u8],
    i: usize,
    stack: Vec<Ctx>,
    found: Vec<usize>,
    heredocs: Vec<Heredoc>,
}

impl Scan<'_> {
    fn at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }

    fn top(&self) -> Ctx {
        self.stack
            .last()
            .copied()
            .unwrap_or(Ctx::Code { close: None })
    }

    fn set_top(&mut self, ctx: Ctx) {
        if let Some(t) = self.stack.last_mut() {
            *t = ctx;
        }
    }

    fn run(&mut self) -> Result<(), String> {
        while let Some(c) = self.at(0) {
            match self.top() {
                Ctx::Code { close } => self.code(c, close)?,
                Ctx::Double => self.double(c),
                Ctx::Brace { in_double } => self.brace(c, in_double)?,
                Ctx::Arith { depth, bracket } => self.arith(c, depth, bracket),
            }
        }
        if self.stack.len() > 1 || !self.heredocs.is_empty() {
            return Err("the command ends inside a quote, substitution or here-document".into());
        }
        Ok(())
    }

    /// `$(`, `$((`, `$[`, `${` and backticks start nested contexts anywhere
    /// but inside single quotes. Returns true when one was taken.
    fn opener(&mut self, c: u8) -> bool {
        let start = self.i;
        match (c, self.at(1), self.at(2)) {
            (b'$', Some(b'('), Some(b'(')) => {
                self.found.push(start);
                self.i += 3;
                self.stack.push(Ctx::Arith {
                    depth: 0,
                    bracket: false,
                });
            }
            (b'$', Some(b'('), _) => {
                self.found.push(start);
                self.i += 2;
                self.stack.push(Ctx::Code {
                    close: Some(Close::Paren(0)),
                });
            }
            (b'$', Some(b'['), _) => {
                self.found.push(start);
                self.i += 2;
                self.stack.push(Ctx::Arith {
                    depth: 0,
                    bracket: true,
                });
            }
            (b'$', Some(b'{'), _) => {
                self.found.push(start);
                self.i += 2;
                let in_double = matches!(self.top(), Ctx::Double)
                    || matches!(self.top(), Ctx::Brace { in_double: true });
                self.stack.push(Ctx::Brace { in_double });
            }
            (b'`', _, _) => {
                self.found.push(start);
                self.i += 1;
                self.stack.push(Ctx::Code {
                    close: Some(Close::Backtick),
                });
            }
            _ => return false,
        }
        true
    }

    fn code(&mut self, c: u8, close: Option<Close>) -> Result<(), String> {
        if c == b'`' && close == Some(Close::Backtick) {
            self.stack.pop();
            self.i += 1;
            return Ok(());
        }
        if self.opener(c) {
            return Ok(());
        }
        match c {
            b'\\' => self.i += 2,
            b'\'' => self.single_quoted()?,
            b'"' => {
                self.i += 1;
                self.stack.push(Ctx::Double);
            }
            b'$' if self.at(1) == Some(b'\'') => {
                self.i += 1;
                self.ansi_c()?;
            }
            b'$' if self.at(1) == Some(b'"') => {
                self.i += 2;
                self.stack.push(Ctx::Double);
            }
            b'<' | b'>' if self.at(1) == Some(b'(') => {
                self.found.push(self.i);
                self.i += 2;
                self.stack.push(Ctx::Code {
                    close: Some(Close::Paren(0)),
                });
            }
            b'<' if self.at(1) == Some(b'<') && self.at(2) != Some(b'<') => self.heredoc_start()?,
            b'<' if self.at(1) == Some(b'<') => self.i += 3,
            b'#' if self.word_start() => {
                while self.at(0).is_some_and(|c| c != b'\n') {
                    self.i += 1;
                }
            }
            b'\n' => {
                self.i += 1;
                self.heredoc_bodies()?;
            }
            b'(' => {
                if let Some(Close::Paren(d)) = close {
                    self.set_top(Ctx::Code {
                        close: Some(Close::Paren(d + 1)),
                    });
                }
                self.i += 1;
            }
            b')' => {
                match close {
                    Some(Close::Paren(0)) => {
                        self.stack.pop();
                    }
                    Some(Close::Paren(d)) => self.set_top(Ctx::Code {
                        close: Some(Close::Paren(d - 1)),
                    }),
                    _ => {}
                }
                self.i += 1;
            }
            _ => self.i += 1,
        }
        Ok(())
    }

    fn double(&mut self, c: u8) {
        if self.opener(c) {
            return;
        }
        match c {
            b'\\' => self.i += 2,
            b'"' => {
                self.stack.pop();
                self.i += 1;
            }
            _ => self.i += 1,
        }
    }

    fn brace(&mut self, c: u8, in_double: bool) -> Result<(), String> {
        if self.opener(c) {
            return Ok(());
        }
        match c {
            b'\\' => self.i += 2,
            b'}' => {
                self.stack.pop();
                self.i += 1;
            }
            b'\'' if !in_double => self.single_quoted()?,
            b'"' => {
                self.i += 1;
                self.stack.push(Ctx::Double);
            }
            _ => self.i += 1,
        }
        Ok(())
    }

    fn arith(&mut self, c: u8, depth: usize, bracket: bool) {
        if self.opener(c) {
            return;
        }
        let set = |scan: &mut Self, depth| scan.set_top(Ctx::Arith { depth, bracket });
        match (c, bracket) {
            (b'\\', _) => self.i += 2,
            (b'"', _) => {
                self.i += 1;
                self.stack.push(Ctx::Double);
            }
            (b'(', false) | (b'[', true) => {
                set(self, depth + 1);
                self.i += 1;
            }
            (b')', false) if depth == 0 && self.at(1) == Some(b')') => {
                self.stack.pop();
                self.i += 2;
            }
            (b']', true) if depth == 0 => {
                self.stack.pop();
                self.i += 1;
            }
            (b')', false) | (b']', true) => {
                set(self, depth.saturating_sub(1));
                self.i += 1;
            }
            _ => self.i += 1,
        }
    }

    /// `#` starts a comment only at the start of a word.
    fn word_start(&self) -> bool {
        match self.i.checked_sub(1).and_then(|k| self.s.get(k)) {
            None => true,
            Some(p) => p.is_ascii_whitespace() || b";&|()<>".contains(p),
        }
    }

    fn single_quoted(&mut self) -> Result<(), String> {
        self.i += 1;
        while let Some(c) = self.at(0) {
            self.i += 1;
            if c == b'\'' {
                return Ok(());
            }
        }
        Err("the command ends inside single quotes".into())
    }

    /// `$'...'`, entered at the quote.
    fn ansi_c(&mut self) -> Result<(), String> {
        self.i += 1;
        while let Some(c) = self.at(0) {
            self.i += 1;
            match c {
                b'\\' => self.i += 1,
                b'\'' => return Ok(()),
                _ => {}
            }
        }
        Err("the command ends inside $'...' quotes".into())
    }

    /// `<<` or `<<-` and its delimiter word.
    fn heredoc_start(&mut self) -> Result<(), String> {
        self.i += 2;
        let strip_tabs = self.at(0) == Some(b'-');
        if strip_tabs {
            self.i += 1;
        }
        while self.at(0).is_some_and(|c| c == b' ' || c == b'\t') {
            self.i += 1;
        }
        let mut delimiter = Vec::new();
        let mut quoted = false;
        while let Some(c) = self.at(0) {
            match c {
                b'\'' | b'"' => {
                    quoted = true;
                    self.i += 1;
                    while let Some(q) = self.at(0) {
                        self.i += 1;
                        if q == c {
                            break;
                        }
                        delimiter.push(q);
                    }
                }
                b'\\' => {
                    quoted = true;
                    if let Some(n) = self.at(1) {
                        delimiter.push(n);
                    }
                    self.i += 2;
                }
                c if c.is_ascii_whitespace() || b";&|<>()".contains(&c) => break,
                c => {
                    delimiter.push(c);
                    self.i += 1;
                }
            }
        }
        if delimiter.is_empty() {
            return Err("a here-document without a delimiter".into());
        }
        self.heredocs.push(Heredoc {
            delimiter,
            strip_tabs,
            quoted,
        });
        Ok(())
    }

    /// After a newline: the bodies of the here-documents started on the
    /// line just ended. Unquoted bodies expand `$(`, `${`, `$[` and
    /// backticks like double quotes do (without nesting, which only adds
    /// finds).
    fn heredoc_bodies(&mut self) -> Result<(), String> {
        for doc in std::mem::take(&mut self.heredocs) {
            let mut in_backtick = false;
            loop {
                if self.i >= self.s.len() {
                    return Err("a here-document has no end line".into());
                }
                let line_end = self.s[self.i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(self.s.len(), |p| self.i + p);
                let line = &self.s[self.i..line_end];
                let compared = if doc.strip_tabs {
                    let tabs = line.iter().take_while(|&&c| c == b'\t').count();
                    &line[tabs..]
                } else {
                    line
                };
                if compared == doc.delimiter.as_slice() {
                    self.i = (line_end + 1).min(self.s.len());
                    break;
                }
                // Bash joins a line ending in an unescaped `\` with the
                // next before comparing it with the delimiter (`EO\` and
                // `F` end the document): the grammar does not, so the two
                // could disagree on where the commands start again.
                let trailing = line.iter().rev().take_while(|&&c| c == b'\\').count();
                if !doc.quoted && trailing % 2 == 1 {
                    return Err(
                        "a here-document line ends with `\\`, which bash joins with the next line, so where the document ends is unclear".into(),
                    );
                }
                if !doc.quoted {
                    let mut k = self.i;
                    while k < line_end {
                        match (self.s[k], self.s.get(k + 1)) {
                            (b'\\', _) => k += 1,
                            (b'`', _) => {
                                if !in_backtick {
                                    self.found.push(k);
                                }
                                in_backtick = !in_backtick;
                            }
                            (b'$', Some(b'(' | b'{' | b'[')) => self.found.push(k),
                            _ => {}
                        }
                        k += 1;
                    }
                }
                self.i = line_end + 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    fn found(src: &str) -> Vec<usize> {
        active_openers(src).unwrap()
    }

    #[test]
    fn quotes_hide_openers_and_double_quotes_do_not() {
        assert_eq!(found("echo '$(a)' \"$(b)\""), vec![13]);
        assert_eq!(found("echo \\$(a) $'\\'$(b)'"), Vec::<usize>::new());
        assert_eq!(
            found("echo `a` ${x} $((1)) $[2] <(c)"),
            vec![5, 9, 14, 21, 26]
        );
        assert_eq!(found("echo ${x?`id`}"), vec![5, 9]);
        assert_eq!(found("echo a#$(b) # $(c)"), vec![7]);
    }

    #[test]
    fn heredoc_bodies() {
        assert_eq!(found("cat <<E\n$(a) `b`\nE\n"), vec![8, 13]);
        assert_eq!(found("cat <<'E'\n$(a)\nE\n"), Vec::<usize>::new());
        assert_eq!(found("cat <<-E\n\t$(a)\n\tE\necho $(b)"), vec![10, 23]);
        assert!(active_openers("cat <<E\nno end").is_err());
        // `E\` + `` joined is the delimiter for bash, not for the grammar.
        assert!(active_openers("cat <<EOF\nx\nEO\\\nF\ntouch y\nEOF\n").is_err());
        assert!(active_openers("cat <<'EOF'\nx\\\nEOF\n").is_ok());
        assert!(active_openers("cat <<EOF\nx\\\\\nEOF\n").is_ok());
    }

    #[test]
    fn unfinished_text_is_an_error() {
        assert!(active_openers("echo '$(a)").is_err());
        assert!(active_openers("echo $(a").is_err());
        assert!(active_openers("echo \"a").is_err());
    }
}
