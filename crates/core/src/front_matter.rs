//! The front matter of Markdown files other agents' conventions use for
//! skills (`SKILL.md`) and custom commands (`.catui/commands/NAME.md`): a
//! block between `---` lines at the top holding `key: value` lines, where a
//! value may also be a list (`[a, b]`, `a, b` or `- item` lines below the
//! key). Only that subset of YAML is read; anything else in the block is an
//! error naming the line, so a file is never half understood.

use std::collections::BTreeMap;

/// A file split into its front matter and its body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontMatter {
    /// `key` → the value as written (quotes removed); list values joined
    /// by `, ` (see [`FrontMatter::list`]).
    pub fields: BTreeMap<String, String>,
    /// Keys written as YAML block lists, item by item.
    lists: BTreeMap<String, Vec<String>>,
    /// Everything after the closing `---` line.
    pub body: String,
}

/// Why a front matter block could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontMatterError {
    #[error("the front matter is not closed by a --- line")]
    Unclosed,
    #[error("front matter line `{0}` is not `key: value`")]
    BadLine(String),
}

impl FrontMatter {
    /// Reads `text`. A file without a leading `---` line has no front
    /// matter: all of it is the body.
    pub fn parse(text: &str) -> Result<FrontMatter, FrontMatterError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let Some(rest) = text
            .strip_prefix("---\n")
            .or_else(|| text.strip_prefix("---\r\n"))
        else {
            return Ok(FrontMatter {
                body: text.to_string(),
                ..FrontMatter::default()
            });
        };
        let (front, body) = if let Some(body) = rest.strip_prefix("---") {
            ("", body)
        } else {
            let end = rest.find("\n---").ok_or(FrontMatterError::Unclosed)?;
            (&rest[..end], &rest[end + 4..])
        };
        let body = body.split_once('\n').map(|(_, b)| b).unwrap_or("");
        let mut out = FrontMatter {
            body: body.to_string(),
            ..FrontMatter::default()
        };
        let mut lines = front.lines().peekable();
        while let Some(line) = lines.next() {
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            let (key, value) = line
                .split_once(':')
                .ok_or_else(|| FrontMatterError::BadLine(line.trim().to_string()))?;
            let key = key.trim().to_string();
            let value = unquote(value.trim());
            if value.is_empty() {
                let mut items = Vec::new();
                while let Some(item) = lines.peek().and_then(|l| l.trim().strip_prefix("- ")) {
                    items.push(unquote(item.trim()).to_string());
                    lines.next();
                }
                if !items.is_empty() {
                    out.fields.insert(key.clone(), items.join(", "));
                    out.lists.insert(key, items);
                    continue;
                }
            }
            out.fields.insert(key, value.to_string());
        }
        Ok(out)
    }

    /// The value of `key`, when present and not blank.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.trim().is_empty())
    }

    /// The value of `key` as a list: block list items, or a `[a, b]` /
    /// `a, b` line split at commas outside parentheses (so that a rule
    /// like `Bash(git add:*)` stays whole).
    pub fn list(&self, key: &str) -> Vec<String> {
        if let Some(items) = self.lists.get(key) {
            return items.clone();
        }
        let Some(value) = self.get(key) else {
            return Vec::new();
        };
        let inner = value
            .strip_prefix('[')
            .and_then(|v| v.strip_suffix(']'))
            .unwrap_or(value);
        let mut items = Vec::new();
        let mut current = String::new();
        let mut depth = 0i32;
        for c in inner.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            if c == ',' && depth <= 0 {
                items.push(std::mem::take(&mut current));
            } else {
                current.push(c);
            }
        }
        items.push(current);
        items
            .iter()
            .map(|i| unquote(i.trim()).to_string())
            .filter(|i| !i.is_empty())
            .collect()
    }
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    for q in ['"', '\''] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_lists_and_the_body() {
        let fm = FrontMatter::parse(
            "---\nname: pdf\ndescription: \"Fill PDF forms\"\nallowed-tools: Bash(git add:*), Read\ntags:\n  - a\n  - 'b'\n---\nBody line\n",
        )
        .unwrap();
        assert_eq!(fm.get("name"), Some("pdf"));
        assert_eq!(fm.get("description"), Some("Fill PDF forms"));
        assert_eq!(fm.list("allowed-tools"), vec!["Bash(git add:*)", "Read"]);
        assert_eq!(fm.list("tags"), vec!["a", "b"]);
        assert_eq!(fm.body, "Body line\n");
        assert_eq!(
            FrontMatter::parse("---\nallowed-tools: [Read, Grep]\n---\nx")
                .unwrap()
                .list("allowed-tools"),
            vec!["Read", "Grep"]
        );
    }

    #[test]
    fn no_front_matter_is_all_body_and_bad_blocks_are_errors() {
        assert_eq!(FrontMatter::parse("just text").unwrap().body, "just text");
        assert_eq!(
            FrontMatter::parse("---\nname: x\n"),
            Err(FrontMatterError::Unclosed)
        );
        assert_eq!(
            FrontMatter::parse("---\nnot a pair\n---\n"),
            Err(FrontMatterError::BadLine("not a pair".into()))
        );
    }
}
