//! `planNames: "date-topic"`: plan files named by the day and the topic,
//! `2026-12-06-add-json-flag.md`, from the plan's first heading or, for a
//! plan without one, the request that started it. Pure functions; the
//! renaming itself is [`crate::plan::pick_up::name_by_topic`].

/// How new plan files are named (`planNames`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanNames {
    /// Three random words (`brisk-cedar-otter`).
    #[default]
    Words,
    /// The day and the topic (`2026-12-06-add-json-flag`).
    DateTopic,
}

/// Words in a topic, and its length in characters at most.
const MAX_WORDS: usize = 6;
const MAX_CHARS: usize = 48;

/// Words that say nothing about the topic.
const FILLER: &[&str] = &[
    "a",
    "an",
    "the",
    "plan",
    "to",
    "for",
    "of",
    "and",
    "implementation",
];

/// The topic of `text`: its words in lowercase ASCII, filler left out,
/// joined by `-`; `None` when nothing is left.
pub fn topic(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut words = 0;
    for word in text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
    {
        if FILLER.contains(&word.as_str()) {
            continue;
        }
        if words == MAX_WORDS || out.len() + word.len() + 1 > MAX_CHARS {
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word);
        words += 1;
    }
    (!out.is_empty()).then_some(out)
}

/// The plan's first Markdown heading, without its `#`s.
pub fn first_heading(plan: &str) -> Option<&str> {
    plan.lines()
        .map(str::trim)
        .find(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim())
        .filter(|l| !l.is_empty())
}

/// `{date}-{topic}` for a plan (its first heading, else `request`).
pub fn date_topic_slug(date: &str, plan: &str, request: Option<&str>) -> Option<String> {
    let topic = first_heading(plan)
        .and_then(topic)
        .or_else(|| request.and_then(topic))?;
    Some(format!("{date}-{topic}"))
}

/// Whether `slug` is already named by a date (`2026-12-06-...`).
pub fn is_dated(slug: &str) -> bool {
    let b = slug.as_bytes();
    b.len() > 11
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
        && b[10] == b'-'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_heading_then_the_request() {
        assert_eq!(
            date_topic_slug(
                "2026-12-06",
                "# Plan: Add a --json flag to `todo list`\n1. x\n",
                None
            )
            .as_deref(),
            Some("2026-12-06-add-json-flag-todo-list")
        );
        assert_eq!(
            date_topic_slug(
                "2026-12-06",
                "1. only steps\n",
                Some("Rewrite the CSV parser")
            )
            .as_deref(),
            Some("2026-12-06-rewrite-csv-parser")
        );
        assert_eq!(date_topic_slug("2026-12-06", "1. x\n", Some("¿¡")), None);
        let long = topic(&"word ".repeat(40)).unwrap();
        assert!(long.split('-').count() <= MAX_WORDS && long.len() <= MAX_CHARS);
        assert!(crate::plan::files::slug::is_valid_slug(
            &date_topic_slug("2026-12-06", "# Ünïcode Ärger!! x", None).unwrap()
        ));
    }

    #[test]
    fn dated_slugs_are_recognised() {
        assert!(is_dated("2026-12-06-add-json-flag"));
        assert!(!is_dated("brisk-cedar-otter"));
        assert!(!is_dated("2026-12-06"));
    }
}
