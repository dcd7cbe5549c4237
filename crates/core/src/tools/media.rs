//! Recognises the non-text files Read does not print as text (images and
//! PDFs), reads the cheap facts about them from their headers (pixel
//! dimensions, an approximate PDF page count), and turns them into what the
//! model can see: an image block, a PDF's document block where the
//! session's provider takes documents ([`ModelInputs`]), a PDF's pages as
//! text (no documents, or a page range; the text from `pdf_text`);
//! otherwise a description.

use std::path::Path;

use base64::Engine as _;
use catui_protocol::ContentBlock;
use serde_json::json;

use super::ToolOutput;

/// What the session's model accepts besides text, set by the session from
/// its provider: Anthropic takes images and PDFs, the OpenAI wire formats
/// images only. Without it Read describes media files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelInputs {
    pub images: bool,
    pub documents: bool,
}

/// The largest image sent (the providers' limit for one image).
pub const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;
/// The longest side the providers accept at all.
pub const MAX_IMAGE_SIDE: u32 = 8_000;
/// Beyond this long side the provider scales the image down itself.
pub const SCALED_SIDE: u32 = 1_568;
/// The largest PDF sent, and the most pages.
pub const MAX_PDF_BYTES: u64 = 32 * 1024 * 1024;
pub const MAX_PDF_PAGES: usize = 100;

/// The most text one PDF read returns; the note says how to read on.
const MAX_PDF_TEXT_BYTES: usize = 200 * 1024;

/// The model's view of a media file whose bytes are `bytes`: the block it
/// can see with a line of facts (for a PDF, its pages' text where the
/// provider takes no documents or a page range is asked for), or `None`
/// when it cannot take this kind (or the file is beyond the limits), and
/// the caller describes it.
pub fn for_model(
    kind: MediaKind,
    path: &Path,
    bytes: &[u8],
    inputs: ModelInputs,
    pages: Option<&str>,
) -> Result<Option<ToolOutput>, String> {
    let size = bytes.len() as u64;
    let data = || base64::engine::general_purpose::STANDARD.encode(bytes);
    if kind == MediaKind::Pdf {
        if !inputs.documents || pages.is_some() {
            return pdf_text_for_model(path, bytes, inputs, pages);
        }
        if size > MAX_PDF_BYTES {
            return Err(format!(
                "{} is {}, more than the {} a document may be. Read its text a part at a time \
                 with `pages` (e.g. \"1-20\").",
                path.display(),
                human_size(size),
                human_size(MAX_PDF_BYTES)
            ));
        }
        let pages = super::pdf_text::page_texts(bytes)
            .map(|p| p.len())
            .unwrap_or_else(|_| pdf_page_count(bytes));
        if pages > MAX_PDF_PAGES {
            return Err(format!(
                "{} has {pages} pages, more than the {MAX_PDF_PAGES} a document may have. Read \
                 its text a part at a time with `pages` (e.g. \"1-20\").",
                path.display()
            ));
        }
        let block = ContentBlock::Document {
            source: json!({"type": "base64", "media_type": "application/pdf", "data": data()}),
        };
        let text = format!(
            "{} ({}{}) is attached below as a document.",
            path.display(),
            human_size(size),
            if pages > 0 {
                format!(", {pages} page{}", plural(pages))
            } else {
                String::new()
            }
        );
        return Ok(Some(with_media(text, block)));
    }
    if !inputs.images {
        return Ok(None);
    }
    let (w, h) = image_dimensions(kind, bytes).unwrap_or((0, 0));
    if size > MAX_IMAGE_BYTES || w.max(h) > MAX_IMAGE_SIDE {
        return Err(format!(
            "{} is {} ({w}x{h} pixels), beyond what can be shown (at most {} and {MAX_IMAGE_SIDE} \
             pixels a side). Make a smaller copy with Bash (e.g. `convert IN -resize 1568x1568 \
             /tmp/small.png`) and read that.",
            path.display(),
            human_size(size),
            human_size(MAX_IMAGE_BYTES)
        ));
    }
    let scaled = if w.max(h) > SCALED_SIDE {
        format!("; the provider scales it to at most {SCALED_SIDE} pixels on its long side")
    } else {
        String::new()
    };
    let block = ContentBlock::Image {
        source: json!({"type": "base64", "media_type": kind.media_type(), "data": data()}),
    };
    let text = format!(
        "{} is {} ({w}x{h} pixels, {}{scaled}); it is shown below.",
        path.display(),
        kind.label(),
        human_size(size)
    );
    Ok(Some(with_media(text, block)))
}

/// An image the user attaches (a path pasted or dropped into the terminal
/// UI) as the block its message carries, or why it cannot be one. The same
/// limits as Read's; whether the model takes images is the engine's check.
pub fn attach_image(path: &Path) -> Result<ContentBlock, String> {
    let kind = MediaKind::from_path(path)
        .filter(|k| *k != MediaKind::Pdf)
        .ok_or_else(|| format!("{} is not a PNG, JPEG, GIF or WebP image.", path.display()))?;
    let (file, meta) = crate::safe_fs::open_regular(path)
        .map_err(|e| format!("Could not attach {}: {e}.", path.display()))?;
    if meta.len() > MAX_IMAGE_BYTES {
        return Err(format!(
            "{} is {}, more than the {} an image may be.",
            path.display(),
            human_size(meta.len()),
            human_size(MAX_IMAGE_BYTES)
        ));
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_IMAGE_BYTES), &mut bytes)
        .map_err(|e| format!("Could not attach {}: {e}.", path.display()))?;
    let Some((w, h)) = image_dimensions(kind, &bytes) else {
        return Err(format!(
            "{} is not a readable {} (its header is not one).",
            path.display(),
            kind.label().trim_start_matches("a ")
        ));
    };
    if w.max(h) > MAX_IMAGE_SIDE {
        return Err(format!(
            "{} is {w}x{h} pixels, more than the {MAX_IMAGE_SIDE} pixels a side an image may have.",
            path.display()
        ));
    }
    Ok(ContentBlock::Image {
        source: json!({
            "type": "base64",
            "media_type": kind.media_type(),
            "data": base64::engine::general_purpose::STANDARD.encode(&bytes),
        }),
    })
}

/// A PDF's pages as text: for providers without documents, and for a page
/// range. `None` (describe the file) when no page or no readable text can
/// be found in the whole document; a page range without readable text is
/// an error that says why.
fn pdf_text_for_model(
    path: &Path,
    bytes: &[u8],
    inputs: ModelInputs,
    pages: Option<&str>,
) -> Result<Option<ToolOutput>, String> {
    use super::pdf_text;
    let texts = match pdf_text::page_texts(bytes) {
        Ok(texts) => texts,
        Err(why) if pages.is_some() => return Err(format!("{}: {why}.", path.display())),
        Err(_) => return Ok(None),
    };
    let total = texts.len();
    let (first, last) = match pages {
        Some(spec) => pdf_text::parse_pages(spec, total)
            .map_err(|why| format!("{}: {why}", path.display()))?,
        None => (1, total),
    };
    let mut body = String::new();
    let mut shown_last = first - 1;
    for (n, text) in (first..=last).zip(&texts[first - 1..last]) {
        let page = if text.is_empty() {
            "(no text on this page)"
        } else {
            text
        };
        let block = format!("\n--- page {n} ---\n{page}\n");
        if body.len() + block.len() > MAX_PDF_TEXT_BYTES && shown_last >= first {
            break;
        }
        body.push_str(&block);
        shown_last = n;
    }
    if !texts[first - 1..shown_last]
        .iter()
        .any(|t| pdf_text::looks_readable(t))
    {
        if pages.is_none() {
            return Ok(None);
        }
        return Err(format!(
            "{} has no readable text on pages {first}-{shown_last} (scanned pages, or fonts \
             with their own encoding). If a converter such as `pdftotext` or an OCR tool is \
             installed, run it with Bash.",
            path.display()
        ));
    }
    let why = if inputs.documents {
        "a page range comes as text; read without `pages` to see the whole document"
    } else {
        "this provider takes no documents, so you see only the text: no images, and the \
         layout of tables is lost"
    };
    let header = format!(
        "{} is a PDF document ({}, {total} page{}). The text of pages {first}-{shown_last} \
         follows ({why}).",
        path.display(),
        human_size(bytes.len() as u64),
        plural(total)
    );
    let mut text = format!("{header}\n{body}");
    if shown_last < last {
        text.push_str(&format!(
            "\n(Stopped after page {shown_last}: output size limit. Read on with pages: \
             \"{}-{last}\".)",
            shown_last + 1
        ));
    }
    Ok(Some(ToolOutput::text(text).with_display(header)))
}

fn with_media(text: String, block: ContentBlock) -> ToolOutput {
    let mut out = ToolOutput::text(text.clone()).with_display(text);
    out.media.push(block);
    out
}

/// A file kind Read describes rather than prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Png,
    Jpeg,
    Gif,
    Webp,
    Pdf,
}

impl MediaKind {
    /// The kind implied by the file name's extension, if any.
    pub fn from_path(path: &Path) -> Option<MediaKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(MediaKind::Png),
            "jpg" | "jpeg" => Some(MediaKind::Jpeg),
            "gif" => Some(MediaKind::Gif),
            "webp" => Some(MediaKind::Webp),
            "pdf" => Some(MediaKind::Pdf),
            _ => None,
        }
    }

    /// The MIME type providers expect.
    pub fn media_type(self) -> &'static str {
        match self {
            MediaKind::Png => "image/png",
            MediaKind::Jpeg => "image/jpeg",
            MediaKind::Gif => "image/gif",
            MediaKind::Webp => "image/webp",
            MediaKind::Pdf => "application/pdf",
        }
    }

    fn label(self) -> &'static str {
        match self {
            MediaKind::Png => "a PNG image",
            MediaKind::Jpeg => "a JPEG image",
            MediaKind::Gif => "a GIF image",
            MediaKind::Webp => "a WebP image",
            MediaKind::Pdf => "a PDF document",
        }
    }
}

/// A model-facing description of a media file from its leading bytes
/// (`head`, up to a few hundred KiB) and its total size.
pub fn describe(kind: MediaKind, path: &Path, head: &[u8], size: u64) -> String {
    let mut facts = Vec::new();
    match kind {
        MediaKind::Pdf => {
            if let Some(version) = pdf_version(head) {
                facts.push(format!("PDF {version}"));
            }
            // Counting page objects is only worth it when we hold the whole file.
            if head.len() as u64 == size {
                let pages = pdf_page_count(head);
                if pages > 0 {
                    facts.push(format!("about {pages} page{}", plural(pages)));
                }
            }
        }
        _ => {
            if let Some((w, h)) = image_dimensions(kind, head) {
                facts.push(format!("{w}x{h} pixels"));
            }
        }
    }
    facts.push(human_size(size));
    let advice = match kind {
        MediaKind::Pdf => {
            "No text could be read from its pages (scanned pages, or fonts with their own encoding). If a converter such as `pdftotext` or an OCR tool is installed, run it with Bash and read its output."
        }
        _ => "Read does not show image contents as text.",
    };
    format!(
        "{} is {} ({}). {advice}",
        path.display(),
        kind.label(),
        facts.join(", ")
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Sizes the way people read them: bytes, KiB or MiB with one decimal.
pub fn human_size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} bytes")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / (KIB * KIB))
    }
}

fn be16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_be_bytes([
        *b.get(at)?,
        *b.get(at + 1)?,
    ])))
}
fn le16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes([
        *b.get(at)?,
        *b.get(at + 1)?,
    ])))
}
fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn le24(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 3)?;
    Some(u32::from(s[0]) | u32::from(s[1]) << 8 | u32::from(s[2]) << 16)
}

/// Width and height from the image header, when the header is well formed.
pub fn image_dimensions(kind: MediaKind, b: &[u8]) -> Option<(u32, u32)> {
    match kind {
        MediaKind::Png => {
            if b.get(..8)? != b"\x89PNG\r\n\x1a\n" || b.get(12..16)? != b"IHDR" {
                return None;
            }
            Some((be32(b, 16)?, be32(b, 20)?))
        }
        MediaKind::Gif => {
            if !b.starts_with(b"GIF8") {
                return None;
            }
            Some((le16(b, 6)?, le16(b, 8)?))
        }
        MediaKind::Webp => webp_dimensions(b),
        MediaKind::Jpeg => jpeg_dimensions(b),
        MediaKind::Pdf => None,
    }
}

fn webp_dimensions(b: &[u8]) -> Option<(u32, u32)> {
    if b.get(..4)? != b"RIFF" || b.get(8..12)? != b"WEBP" {
        return None;
    }
    match b.get(12..16)? {
        b"VP8 " => Some((le16(b, 26)? & 0x3fff, le16(b, 28)? & 0x3fff)),
        b"VP8L" => {
            let bits = u32::from_le_bytes(b.get(21..25)?.try_into().ok()?);
            Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
        }
        b"VP8X" => Some((le24(b, 24)? + 1, le24(b, 27)? + 1)),
        _ => None,
    }
}

/// Walks the JPEG marker segments up to the first start-of-frame.
fn jpeg_dimensions(b: &[u8]) -> Option<(u32, u32)> {
    if b.get(..2)? != [0xff, 0xd8] {
        return None;
    }
    let mut i = 2;
    loop {
        while *b.get(i)? != 0xff {
            i += 1;
        }
        while *b.get(i)? == 0xff {
            i += 1;
        }
        let marker = *b.get(i)?;
        i += 1;
        // Markers without a length field.
        if marker == 0xd8 || marker == 0x01 || (0xd0..=0xd7).contains(&marker) {
            continue;
        }
        let len = be16(b, i)? as usize;
        let is_sof = matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc);
        if is_sof {
            return Some((be16(b, i + 5)?, be16(b, i + 3)?));
        }
        if len < 2 {
            return None;
        }
        i += len;
    }
}

fn pdf_version(b: &[u8]) -> Option<String> {
    let rest = b.strip_prefix(b"%PDF-")?;
    let v: String = rest
        .iter()
        .take(4)
        .take_while(|c| c.is_ascii_digit() || **c == b'.')
        .map(|&c| char::from(c))
        .collect();
    (!v.is_empty()).then_some(v)
}

/// Counts `/Type /Page` objects (not `/Pages`). Page objects inside
/// compressed object streams are missed, hence "about".
fn pdf_page_count(b: &[u8]) -> usize {
    let mut count = 0;
    let mut i = 0;
    while let Some(pos) = find(&b[i..], b"/Type") {
        let mut j = i + pos + 5;
        while b.get(j).is_some_and(|c| c.is_ascii_whitespace()) {
            j += 1;
        }
        if b.get(j..j + 5) == Some(b"/Page") && b.get(j + 5) != Some(&b's') {
            count += 1;
        }
        i = j;
    }
    count
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        v.extend_from_slice(&w.to_be_bytes());
        v.extend_from_slice(&h.to_be_bytes());
        v.extend_from_slice(&[8, 6, 0, 0, 0]);
        v
    }

    #[test]
    fn png_and_gif_dimensions() {
        assert_eq!(
            image_dimensions(MediaKind::Png, &png(640, 480)),
            Some((640, 480))
        );
        let gif = b"GIF89a\x20\x03\x58\x02rest";
        assert_eq!(image_dimensions(MediaKind::Gif, gif), Some((800, 600)));
        assert_eq!(image_dimensions(MediaKind::Png, b"not a png"), None);
    }

    #[test]
    fn jpeg_dimensions_skip_app_segments() {
        let mut j = vec![0xff, 0xd8];
        // APP0 segment of length 16.
        j.extend_from_slice(&[0xff, 0xe0, 0x00, 0x10]);
        j.extend_from_slice(&[0u8; 14]);
        // SOF0: length 17, precision 8, height 300, width 400.
        j.extend_from_slice(&[0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x01, 0x90]);
        assert_eq!(image_dimensions(MediaKind::Jpeg, &j), Some((400, 300)));
    }

    #[test]
    fn pdf_pages_and_version() {
        let pdf = b"%PDF-1.7\n1 0 obj << /Type /Pages /Count 2 >>\n2 0 obj << /Type /Page >>\n3 0 obj <</Type/Page>>";
        let text = describe(MediaKind::Pdf, Path::new("a.pdf"), pdf, pdf.len() as u64);
        assert!(text.contains("PDF 1.7"), "{text}");
        assert!(text.contains("about 2 pages"), "{text}");
    }
}
