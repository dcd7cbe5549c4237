use std::io::Write as _;

use super::*;

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn stream_obj(n: u32, dict: &str, data: &[u8]) -> Vec<u8> {
    let mut v = format!("{n} 0 obj\n<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
    v.extend_from_slice(data);
    v.extend_from_slice(b"\nendstream\nendobj\n");
    v
}

/// Three pages: plain content, Flate content with kerning gaps, and a page
/// whose dictionary sits in an object stream (as PDF 1.5 writers do).
fn sample() -> Vec<u8> {
    let mut pdf = b"%PDF-1.5\n".to_vec();
    pdf.extend_from_slice(b"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n");
    pdf.extend_from_slice(
        b"2 0 obj\n<< /Type /Pages /Kids [3 0 R 4 0 R 9 0 R] /Count 3 >>\nendobj\n",
    );
    pdf.extend_from_slice(b"3 0 obj\n<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>\nendobj\n");
    pdf.extend_from_slice(b"4 0 obj\n<</Type/Page/Parent 2 0 R/Contents[6 0 R]>>\nendobj\n");
    pdf.extend(stream_obj(
        5,
        "",
        b"BT /F1 12 Tf 72 700 Td (Hello \\(page\\) one) Tj 0 -14 Td (second line) Tj ET",
    ));
    pdf.extend(stream_obj(
        6,
        "/Filter /FlateDecode",
        &deflate(b"BT [(Wor) 20 (ld) -400 (wide)] TJ ET"),
    ));
    let page = b"<< /Type /Page /Parent 2 0 R /Contents 7 0 R >>";
    let header = b"9 0 ";
    let mut objstm = header.to_vec();
    objstm.extend_from_slice(page);
    pdf.extend(stream_obj(
        8,
        &format!(
            "/Type /ObjStm /N 1 /First {} /Filter /FlateDecode",
            header.len()
        ),
        &deflate(&objstm),
    ));
    pdf.extend(stream_obj(7, "", b"BT <48692074686572650a> Tj ET"));
    pdf.extend_from_slice(b"trailer << /Root 1 0 R >>\n%%EOF\n");
    pdf
}

#[test]
fn pages_in_order_with_their_text() {
    let pages = page_texts(&sample()).unwrap();
    assert_eq!(pages.len(), 3, "{pages:?}");
    assert_eq!(pages[0], "Hello (page) one\nsecond line");
    assert_eq!(pages[1], "World wide");
    assert_eq!(pages[2], "Hi there");
    assert!(pages.iter().all(|p| looks_readable(p)));
}

#[test]
fn no_pages_is_an_error_and_garbage_is_not_readable() {
    assert!(page_texts(b"%PDF-1.4\nnothing here").is_err());
    assert!(!looks_readable("\u{1}\u{2}\u{3}\u{fffd}\u{fffd}"));
    assert!(!looks_readable(""));
}

#[test]
fn page_ranges() {
    assert_eq!(parse_pages("1-5", 10), Ok((1, 5)));
    assert_eq!(parse_pages(" 3 ", 10), Ok((3, 3)));
    assert_eq!(parse_pages("7-", 10), Ok((7, 10)));
    assert_eq!(parse_pages("8-20", 10), Ok((8, 10)));
    assert!(parse_pages("0-2", 10).is_err());
    assert!(parse_pages("5-2", 10).is_err());
    assert!(parse_pages("x", 10).unwrap_err().contains("\"1-5\""));
    assert!(parse_pages("11", 10).unwrap_err().contains("10 pages"));
}
