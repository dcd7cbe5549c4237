//! Images attached to a message by pasting or dropping their path into the
//! input box: recognising a pasted path as an image file, the
//! `[image: name.png]` placeholder the box shows for it, and the image
//! blocks a submitted message carries for the placeholders in its text.

use std::path::{Path, PathBuf};

use catui_core::tools::media::{self, MediaKind};
use catui_protocol::ContentBlock;

/// The images attached so far, by placeholder. Kept for the session so a
/// queued input or one recalled from history still finds its image.
#[derive(Debug, Default)]
pub struct Attachments {
    images: Vec<(String, ContentBlock)>,
}

impl Attachments {
    /// Reads the image at `path` and returns its placeholder, or why it
    /// cannot be attached.
    pub fn add(&mut self, path: &Path) -> Result<String, String> {
        let block = media::attach_image(path)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let same_name = self
            .images
            .iter()
            .filter(|(label, _)| label.ends_with(&format!(": {name}]")))
            .count();
        let label = if same_name == 0 {
            format!("[image: {name}]")
        } else {
            format!("[image #{}: {name}]", same_name + 1)
        };
        self.images.push((label.clone(), block));
        Ok(label)
    }

    /// The content of a submitted message: its text, then the image of
    /// each placeholder it still holds, in the order they appear.
    pub fn content(&self, text: String) -> Vec<ContentBlock> {
        let mut found: Vec<(usize, &ContentBlock)> = self
            .images
            .iter()
            .filter_map(|(label, block)| text.find(label.as_str()).map(|at| (at, block)))
            .collect();
        found.sort_by_key(|(at, _)| *at);
        let mut content = vec![ContentBlock::text(text)];
        content.extend(found.into_iter().map(|(_, block)| block.clone()));
        content
    }
}

/// The image file a paste names, if the pasted text is exactly one path to
/// an existing PNG, JPEG, GIF or WebP file. Terminals paste a dropped file
/// as its path, sometimes quoted, with spaces escaped, or as a `file://`
/// URL; a relative path is taken from `cwd`.
pub fn pasted_image_path(text: &str, cwd: &Path) -> Option<PathBuf> {
    let text = text.trim();
    if text.is_empty() || text.contains('\n') {
        return None;
    }
    let unquoted = ['\'', '"']
        .iter()
        .find_map(|q| text.strip_prefix(*q)?.strip_suffix(*q))
        .map(str::to_string)
        .unwrap_or_else(|| unescape(text));
    let raw = match unquoted.strip_prefix("file://") {
        Some(url) => String::from_utf8(catui_protocol::percent::decode(url)).ok()?,
        None => unquoted,
    };
    let path = cwd.join(raw);
    let kind = MediaKind::from_path(&path)?;
    (kind != MediaKind::Pdf && path.is_file()).then_some(path)
}

/// `a\ b.png` → `a b.png`: a shell-escaped path as some terminals drop it.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_paths_in_the_forms_terminals_use() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("my shot.png");
        std::fs::write(&file, b"x").unwrap();
        let plain = file.display().to_string();
        for pasted in [
            plain.clone(),
            format!("'{plain}'"),
            format!("\"{plain}\"\n"),
            plain.replace(' ', "\\ "),
            format!("file://{}", plain.replace(' ', "%20")),
        ] {
            assert_eq!(
                pasted_image_path(&pasted, dir.path()),
                Some(file.clone()),
                "{pasted}"
            );
        }
        assert_eq!(pasted_image_path("my shot.png", dir.path()), Some(file));
        assert_eq!(pasted_image_path("missing.png", dir.path()), None);
        assert_eq!(pasted_image_path("some text", dir.path()), None);
        assert_eq!(
            pasted_image_path(&format!("{plain}\n{plain}"), dir.path()),
            None
        );
    }
}
