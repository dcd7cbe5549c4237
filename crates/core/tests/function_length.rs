//! A long function should read as a table of contents: named steps, each
//! short enough to hold in one's head. This test reads core's sources
//! (code, not comments or strings) and fails, naming each offender, when a
//! function outside tests is longer than [`MAX_LINES`], or when
//! `SessionBuilder::build` (which lists the stages of building a session)
//! is longer than [`MAX_BUILD_LINES`].

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

/// The longest a function in core may be, from its `fn` line to its
/// closing brace.
const MAX_LINES: usize = 150;

/// The longest `SessionBuilder::build` may be.
const MAX_BUILD_LINES: usize = 120;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether a file holds tests only (core keeps them in `tests.rs` and
/// `*_tests.rs` beside the code, included under `#[cfg(test)]`).
fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().unwrap().to_string_lossy();
    name.ends_with("tests.rs")
}

/// The text with comments, string literals and character literals turned
/// into spaces (line breaks kept), so braces inside them do not count.
fn blank_out(src: &str) -> Vec<u8> {
    let s = src.as_bytes();
    let mut out = s.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(s.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(s.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            let mut j = i;
            while j < s.len() {
                if s[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if s[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if (i == 0 || !ident(s[i - 1]))
            && let Some(hashes) = raw_string_start(rest)
        {
            let open = rest.iter().position(|&b| b == b'"').unwrap() + 1;
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let end = s[i + open..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(s.len(), |p| i + open + p + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if s[i] == b'"' {
            let mut j = i + 1;
            while j < s.len() && s[j] != b'"' {
                j += if s[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if s[i] == b'\'' {
            // A character literal ('x', '\n', '\u{1F600}', 'é'); a lifetime
            // ('a) has no closing quote within reach.
            let len = if rest.get(1) == Some(&b'\\') {
                rest[2..].iter().position(|&b| b == b'\'').map(|p| p + 3)
            } else {
                // At most four bytes make one character.
                let ch = String::from_utf8_lossy(&rest[1..rest.len().min(5)])
                    .chars()
                    .next();
                ch.and_then(|c| {
                    let after = 1 + c.len_utf8();
                    (rest.get(after) == Some(&b'\'')).then_some(after + 1)
                })
            };
            match len {
                Some(len) if len <= 12 => {
                    blank(&mut out, i, i + len);
                    i += len;
                }
                _ => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out
}

/// `r"`, `r#"`, `br"`…: the number of `#`s of a raw string starting here.
fn raw_string_start(rest: &[u8]) -> Option<usize> {
    let rest = rest.strip_prefix(b"b").unwrap_or(rest);
    let rest = rest.strip_prefix(b"r")?;
    let hashes = rest.iter().take_while(|&&b| b == b'#').count();
    (rest.get(hashes) == Some(&b'"')).then_some(hashes)
}

/// The index of the brace that closes the one at `open`.
fn closing_brace(code: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &b) in code.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Byte ranges of `#[cfg(test)] mod NAME { ... }` blocks.
fn test_modules(code: &str) -> Vec<(usize, usize)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    for (at, _) in code.match_indices("#[cfg(test)]") {
        let after = code[at + "#[cfg(test)]".len()..].trim_start();
        let start = code.len() - after.len();
        let after = after.strip_prefix("pub ").unwrap_or(after);
        let Some(rest) = after.strip_prefix("mod ") else {
            continue;
        };
        let name_len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if rest[name_len..].trim_start().starts_with('{') {
            let open = start + code[start..].find('{').unwrap();
            if let Some(close) = closing_brace(bytes, open) {
                out.push((at, close));
            }
        }
    }
    out
}

/// Every function with a body: (name, first line, number of lines).
fn functions(src: &str) -> Vec<(String, usize, usize)> {
    let code = String::from_utf8_lossy(&blank_out(src)).into_owned();
    let bytes = code.as_bytes();
    let tests = test_modules(&code);
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("fn ") {
        let at = from + p;
        from = at + 3;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        if tests.iter().any(|&(a, b)| a <= at && at <= b) {
            continue;
        }
        let rest = &code[at + 3..];
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue; // `fn(` types
        }
        // The body starts at the first `{` outside the signature's
        // brackets; a `;` first means a declaration without a body.
        let mut depth = 0i32;
        let mut open = None;
        let mut k = at + 3;
        while k < bytes.len() {
            match bytes[k] {
                b'-' if bytes.get(k + 1) == Some(&b'>') => k += 1,
                b'(' | b'[' | b'<' => depth += 1,
                b')' | b']' | b'>' => depth -= 1,
                b';' if depth <= 0 => break,
                b'{' if depth <= 0 => {
                    open = Some(k);
                    break;
                }
                _ => {}
            }
            k += 1;
        }
        let Some(open) = open else { continue };
        let Some(close) = closing_brace(bytes, open) else {
            continue;
        };
        let first = line_of(at);
        out.push((name, first, line_of(close) - first + 1));
    }
    out
}

fn core_functions() -> Vec<(PathBuf, String, usize, usize)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files.into_iter().filter(|f| !is_test_file(f)) {
        let text = std::fs::read_to_string(&file).unwrap();
        for (name, line, len) in functions(&text) {
            let shown = file.strip_prefix(&src).unwrap().to_path_buf();
            out.push((shown, name, line, len));
        }
    }
    out
}

#[test]
fn no_function_in_core_is_longer_than_the_limit() {
    let long: Vec<String> = core_functions()
        .into_iter()
        .filter(|(_, _, _, len)| *len > MAX_LINES)
        .map(|(file, name, line, len)| format!("{}:{line} fn {name}: {len} lines", file.display()))
        .collect();
    assert!(
        long.is_empty(),
        "functions over {MAX_LINES} lines (split them into named steps):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_session_builder_reads_as_a_table_of_contents() {
    let build = core_functions()
        .into_iter()
        .find(|(file, name, _, _)| file == Path::new("builder/mod.rs") && name == "build")
        .expect("SessionBuilder::build in builder/mod.rs");
    assert!(
        build.3 <= MAX_BUILD_LINES,
        "SessionBuilder::build is {} lines; at most {MAX_BUILD_LINES} (stages go in their own functions)",
        build.3
    );
}

/// The scanner itself: braces in strings, characters and comments do not
/// count, nor do test modules, and declarations have no body.
#[test]
fn the_scanner_measures_what_the_compiler_sees() {
    let src = r##"
fn short() {
    let s = "}}}";
    let c = '}';
    let r = r#"{{"#;
    // }
    /* { */
}
trait T { fn declared(&self) -> u8; }
fn generic<T: Into<String>>(x: T) -> Vec<u8> where T: Clone {
    let _ = |a: &str| -> usize { a.len() };
    vec![]
}
#[cfg(test)]
mod tests {
    fn hidden() {}
}
"##;
    let found = functions(src);
    let names: Vec<(&str, usize)> = found.iter().map(|(n, _, l)| (n.as_str(), *l)).collect();
    assert_eq!(names, vec![("short", 7), ("generic", 4)]);
}
