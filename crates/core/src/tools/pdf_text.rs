//! The text of a PDF's pages, for Read: what a model without documents
//! sees of a PDF, and what a page range (`pages: "1-5"`) gives. A small
//! reader, not a renderer: it finds the objects (object streams included),
//! walks the page tree in order, inflates each page's content streams and
//! collects the strings its text operators show. Fonts with their own
//! encodings (most CID fonts) give no readable text; the caller says so
//! rather than showing garbage.

use std::collections::HashMap;
use std::io::Read as _;

/// The most bytes one inflated stream may grow to, so a small file cannot
/// expand into gigabytes.
const MAX_INFLATED: u64 = 64 * 1024 * 1024;
/// Page-tree depth beyond which a (malformed, cyclic) tree is cut.
const MAX_DEPTH: usize = 32;

/// The objects of a PDF by number: the dictionary text and, for a stream,
/// its raw (still encoded) bytes.
struct Objects<'a> {
    by_number: HashMap<u32, (Vec<u8>, Option<&'a [u8]>)>,
}

/// The text of each page, in page order. Empty strings for pages with no
/// readable text; an error only when no page can be found at all.
pub fn page_texts(pdf: &[u8]) -> Result<Vec<String>, String> {
    let objects = Objects::parse(pdf);
    let pages = objects.pages();
    if pages.is_empty() {
        return Err("no pages could be found in it (damaged, or encrypted)".into());
    }
    Ok(pages
        .iter()
        .map(|page| {
            let mut text = String::new();
            for id in refs(&value_of(page, b"/Contents").unwrap_or_default()) {
                if let Some(data) = objects.stream(id) {
                    text.push_str(&show_text(&data));
                }
            }
            tidy(&text)
        })
        .collect())
}

/// Parses `"3"`, `"1-5"`, `"7-"` (to the end) into a 1-based inclusive
/// range within `total` pages.
pub fn parse_pages(spec: &str, total: usize) -> Result<(usize, usize), String> {
    let bad = || {
        format!("pages must be a page or a range such as \"3\", \"1-5\" or \"7-\", not {spec:?}.")
    };
    let spec = spec.trim();
    let (first, last) = match spec.split_once('-') {
        Some((a, b)) => {
            let a: usize = a.trim().parse().map_err(|_| bad())?;
            let b = b.trim();
            let b = if b.is_empty() {
                total
            } else {
                b.parse().map_err(|_| bad())?
            };
            (a, b)
        }
        None => {
            let n: usize = spec.parse().map_err(|_| bad())?;
            (n, n)
        }
    };
    if first == 0 || last < first {
        return Err(bad());
    }
    if first > total {
        return Err(format!(
            "the document has {total} page{}, so page {first} is past its end.",
            if total == 1 { "" } else { "s" }
        ));
    }
    Ok((first, last.min(total)))
}

impl<'a> Objects<'a> {
    fn parse(pdf: &'a [u8]) -> Self {
        let mut by_number = HashMap::new();
        let mut at = 0;
        while let Some(pos) = find(&pdf[at..], b" obj") {
            let obj_kw = at + pos;
            at = obj_kw + 4;
            let Some(number) = object_number(pdf, obj_kw) else {
                continue;
            };
            let body_start = at;
            let end = find(&pdf[body_start..], b"endobj")
                .map(|e| body_start + e)
                .unwrap_or(pdf.len());
            let body = &pdf[body_start..end];
            let entry = match find(body, b"stream") {
                Some(s) if !body[..s].ends_with(b"end") => {
                    let mut data = s + b"stream".len();
                    if body.get(data) == Some(&b'\r') {
                        data += 1;
                    }
                    if body.get(data) == Some(&b'\n') {
                        data += 1;
                    }
                    let stop = find(&body[data..], b"endstream")
                        .map(|e| data + e)
                        .unwrap_or(body.len());
                    (body[..s].to_vec(), Some(&body[data..stop]))
                }
                _ => (body.to_vec(), None),
            };
            // A later definition (an incremental update) wins.
            by_number.insert(number, entry);
            at = end;
        }
        let mut objects = Objects { by_number };
        objects.unpack_object_streams();
        objects
    }

    /// Objects stored inside `/Type /ObjStm` streams (PDF 1.5 and later).
    fn unpack_object_streams(&mut self) {
        let containers: Vec<u32> = self
            .by_number
            .iter()
            .filter(|(_, (dict, data))| data.is_some() && has_name(dict, b"/Type", b"/ObjStm"))
            .map(|(n, _)| *n)
            .collect();
        for number in containers {
            let Some(data) = self.stream(number) else {
                continue;
            };
            let Some((dict, _)) = self.by_number.get(&number) else {
                continue;
            };
            let first = int_of(dict, b"/First").unwrap_or(0);
            let count = int_of(dict, b"/N").unwrap_or(0);
            let header = String::from_utf8_lossy(data.get(..first.min(data.len())).unwrap_or(&[]))
                .into_owned();
            let nums: Vec<usize> = header
                .split_ascii_whitespace()
                .filter_map(|t| t.parse().ok())
                .collect();
            let pairs: Vec<(u32, usize)> = nums
                .chunks(2)
                .take(count)
                .filter_map(|c| Some((u32::try_from(*c.first()?).ok()?, *c.get(1)?)))
                .collect();
            for (i, (obj, offset)) in pairs.iter().enumerate() {
                let start = first + offset;
                let end = pairs
                    .get(i + 1)
                    .map(|(_, o)| first + o)
                    .unwrap_or(data.len());
                if let Some(text) = data.get(start..end.max(start).min(data.len())) {
                    self.by_number
                        .entry(*obj)
                        .or_insert_with(|| (text.to_vec(), None));
                }
            }
        }
    }

    fn dict(&self, number: u32) -> Option<&[u8]> {
        self.by_number.get(&number).map(|(d, _)| d.as_slice())
    }

    /// A stream's bytes, inflated when it is Flate-encoded; `None` for an
    /// encoding this reader does not know (images, LZW, ...).
    fn stream(&self, number: u32) -> Option<Vec<u8>> {
        let (dict, data) = self.by_number.get(&number)?;
        let data = (*data)?;
        let filter = value_of(dict, b"/Filter").unwrap_or_default();
        if filter.is_empty() {
            return Some(data.to_vec());
        }
        let names = filter
            .split(|c| *c == b'/')
            .filter(|n| !n.trim_ascii().is_empty())
            .count();
        if find(&filter, b"FlateDecode").is_none() || names > 1 {
            return None;
        }
        let mut out = Vec::new();
        let mut decoder = flate2::read::ZlibDecoder::new(data).take(MAX_INFLATED);
        // A truncated stream still gives what inflated before the damage.
        let _ = decoder.read_to_end(&mut out);
        Some(out)
    }

    /// The page dictionaries in reading order: the catalog's page tree, or
    /// every `/Type /Page` object by number when there is no tree to walk.
    fn pages(&self) -> Vec<Vec<u8>> {
        let root = self
            .by_number
            .values()
            .find(|(d, _)| has_name(d, b"/Type", b"/Catalog"))
            .and_then(|(d, _)| refs(&value_of(d, b"/Pages")?).first().copied());
        let mut out = Vec::new();
        if let Some(root) = root {
            self.walk(root, 0, &mut out);
        }
        if out.is_empty() {
            let mut numbers: Vec<&u32> = self
                .by_number
                .iter()
                .filter(|(_, (d, _))| has_name(d, b"/Type", b"/Page"))
                .map(|(n, _)| n)
                .collect();
            numbers.sort();
            out = numbers
                .into_iter()
                .filter_map(|n| self.dict(*n).map(<[u8]>::to_vec))
                .collect();
        }
        out
    }

    fn walk(&self, node: u32, depth: usize, out: &mut Vec<Vec<u8>>) {
        let Some(dict) = self.dict(node) else {
            return;
        };
        if depth > MAX_DEPTH {
            return;
        }
        if has_name(dict, b"/Type", b"/Pages") {
            for kid in refs(&value_of(dict, b"/Kids").unwrap_or_default()) {
                self.walk(kid, depth + 1, out);
            }
        } else {
            out.push(dict.to_vec());
        }
    }
}

/// The object number before ` obj` at `at` (`12 0 obj`).
fn object_number(pdf: &[u8], at: usize) -> Option<u32> {
    let before = &pdf[..at];
    let gen_start = before.iter().rposition(|c| !c.is_ascii_digit())? + 1;
    if gen_start == at || before.get(gen_start - 1) != Some(&b' ') {
        return None;
    }
    let num_end = gen_start - 1;
    let num_start = before[..num_end]
        .iter()
        .rposition(|c| !c.is_ascii_digit())
        .map_or(0, |p| p + 1);
    std::str::from_utf8(&before[num_start..num_end])
        .ok()?
        .parse()
        .ok()
}

/// The raw value after `key` in a dictionary's text, up to the next key.
fn value_of(dict: &[u8], key: &[u8]) -> Option<Vec<u8>> {
    let mut at = 0;
    loop {
        let pos = at + find(&dict[at..], key)?;
        let after = pos + key.len();
        // `/Type` must not match `/TypeX`.
        if dict.get(after).is_some_and(|c| c.is_ascii_alphanumeric()) {
            at = after;
            continue;
        }
        let rest = &dict[after..];
        let mut depth = 0i32;
        let mut end = rest.len();
        for (i, c) in rest.iter().enumerate() {
            match c {
                b'[' | b'(' => depth += 1,
                b']' | b')' => depth -= 1,
                b'<' if rest.get(i + 1) == Some(&b'<') => depth += 1,
                b'>' if rest.get(i + 1) == Some(&b'>') => {
                    if depth == 0 {
                        end = i;
                        break;
                    }
                    depth -= 1;
                }
                b'/' if depth == 0
                    && i > 0
                    && rest[..i].iter().any(|c| !c.is_ascii_whitespace()) =>
                {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        return Some(rest[..end].to_vec());
    }
}

fn has_name(dict: &[u8], key: &[u8], name: &[u8]) -> bool {
    value_of(dict, key).is_some_and(|v| {
        let v = v.trim_ascii();
        v == name
    })
}

fn int_of(dict: &[u8], key: &[u8]) -> Option<usize> {
    std::str::from_utf8(&value_of(dict, key)?)
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The object numbers of every `N G R` reference in `value`.
fn refs(value: &[u8]) -> Vec<u32> {
    let text = String::from_utf8_lossy(value);
    let tokens: Vec<&str> = text
        .split(|c: char| c.is_ascii_whitespace() || c == '[' || c == ']')
        .filter(|t| !t.is_empty())
        .collect();
    tokens
        .windows(3)
        .filter(|w| w[2] == "R")
        .filter_map(|w| {
            w[1].parse::<u32>().ok()?;
            w[0].parse().ok()
        })
        .collect()
}

/// The text a content stream shows: strings of `Tj`, `TJ`, `'` and `"`,
/// with line breaks where the text moves to a new line.
fn show_text(content: &[u8]) -> String {
    let mut out = String::new();
    let mut operands: Vec<Vec<u8>> = Vec::new();
    let mut array: Option<Vec<Vec<u8>>> = None;
    let mut i = 0;
    while i < content.len() {
        let c = content[i];
        match c {
            b'(' => {
                let (s, next) = literal_string(content, i + 1);
                match array.as_mut() {
                    Some(a) => a.push(s),
                    None => operands.push(s),
                }
                i = next;
            }
            b'<' if content.get(i + 1) != Some(&b'<') => {
                let end = content[i..]
                    .iter()
                    .position(|c| *c == b'>')
                    .map_or(content.len(), |p| i + p);
                let s = hex_string(&content[i + 1..end]);
                match array.as_mut() {
                    Some(a) => a.push(s),
                    None => operands.push(s),
                }
                i = end + 1;
            }
            b'[' => {
                array = Some(Vec::new());
                i += 1;
            }
            b']' => {
                if let Some(parts) = array.take() {
                    operands.push(parts.join(&0u8));
                }
                i += 1;
            }
            b'%' => {
                while i < content.len() && content[i] != b'\n' && content[i] != b'\r' {
                    i += 1;
                }
            }
            c if c.is_ascii_alphabetic() || c == b'\'' || c == b'"' || c == b'*' => {
                let start = i;
                while i < content.len()
                    && (content[i].is_ascii_alphabetic() || b"'\"*".contains(&content[i]))
                {
                    i += 1;
                }
                match &content[start..i] {
                    b"Tj" | b"TJ" => {
                        if let Some(s) = operands.last() {
                            push_shown(&mut out, s);
                        }
                    }
                    b"'" | b"\"" => {
                        out.push('\n');
                        if let Some(s) = operands.last() {
                            push_shown(&mut out, s);
                        }
                    }
                    b"Td" | b"TD" | b"T*" | b"ET" => out.push('\n'),
                    _ => {}
                }
                if array.is_none() {
                    operands.clear();
                }
            }
            b'-' | b'.' | b'0'..=b'9' if array.is_some() => {
                // A large negative kerning in TJ is a word gap.
                let start = i;
                while i < content.len()
                    && (content[i].is_ascii_digit() || b"-.".contains(&content[i]))
                {
                    i += 1;
                }
                let n: f64 = std::str::from_utf8(&content[start..i])
                    .ok()
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0.0);
                if n < -200.0
                    && let Some(a) = array.as_mut()
                {
                    a.push(b" ".to_vec());
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// Appends the characters of a shown string (one byte, one character; the
/// zero bytes that join a TJ array's parts are dropped).
fn push_shown(out: &mut String, s: &[u8]) {
    for &b in s {
        match b {
            0 => {}
            b'\t' => out.push(' '),
            b if b < 0x20 => {}
            b => out.push(char::from(b)),
        }
    }
}

/// A `(...)` string from `at` (just past the parenthesis): its bytes with
/// escapes resolved, and where scanning resumes.
fn literal_string(content: &[u8], mut at: usize) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    let mut depth = 1;
    while at < content.len() {
        let c = content[at];
        at += 1;
        match c {
            b'\\' => {
                let Some(&e) = content.get(at) else { break };
                at += 1;
                match e {
                    b'n' => out.push(b'\n'),
                    b'r' | b'\n' => {}
                    b't' => out.push(b'\t'),
                    b'0'..=b'7' => {
                        let mut v = u32::from(e - b'0');
                        for _ in 0..2 {
                            match content.get(at) {
                                Some(d @ b'0'..=b'7') => {
                                    v = v * 8 + u32::from(d - b'0');
                                    at += 1;
                                }
                                _ => break,
                            }
                        }
                        out.push((v & 0xff) as u8);
                    }
                    other => out.push(other),
                }
            }
            b'(' => {
                depth += 1;
                out.push(c);
            }
            b')' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    (out, at)
}

fn hex_string(hex: &[u8]) -> Vec<u8> {
    let digits: Vec<u8> = hex
        .iter()
        .filter_map(|c| char::from(*c).to_digit(16).map(|d| d as u8))
        .collect();
    digits
        .chunks(2)
        .map(|p| p[0] << 4 | p.get(1).copied().unwrap_or(0))
        .collect()
}

/// Collapses runs of blank lines and trailing spaces.
fn tidy(text: &str) -> String {
    let mut out = String::new();
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 1 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out
}

/// Whether extracted text is mostly readable characters (a CID font's
/// glyph numbers come out as control bytes and symbols).
pub fn looks_readable(text: &str) -> bool {
    let total = text.chars().filter(|c| !c.is_whitespace()).count();
    let good = text
        .chars()
        .filter(|c| c.is_alphanumeric() || c.is_ascii_punctuation())
        .count();
    total > 0 && good * 10 >= total * 8
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
#[path = "pdf_text_tests.rs"]
mod tests;
