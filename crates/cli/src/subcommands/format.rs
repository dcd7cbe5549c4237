//! Small text helpers shared by the subcommands' tables.

use std::time::SystemTime;

/// "just now", "5m ago", "3h ago", "4d ago", or the date (from an RFC 3339
/// timestamp) for anything older than 30 days.
pub fn when(modified: SystemTime, timestamp: Option<&str>) -> String {
    let secs = SystemTime::now()
        .duration_since(modified)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    match secs {
        0..60 => "just now".to_string(),
        60..3_600 => format!("{}m ago", secs / 60),
        3_600..86_400 => format!("{}h ago", secs / 3_600),
        86_400..2_592_000 => format!("{}d ago", secs / 86_400),
        _ => timestamp
            .and_then(|t| t.get(..10))
            .map(str::to_string)
            .unwrap_or_else(|| format!("{}d ago", secs / 86_400)),
    }
}

/// `text` on one line, cut to `max` characters with an ellipsis.
pub fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Left-aligns `text` in `width` characters.
pub fn pad(text: &str, width: usize) -> String {
    let len = text.chars().count();
    if len >= width {
        text.to_string()
    } else {
        format!("{text}{}", " ".repeat(width - len))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn relative_times_and_cutting() {
        let now = SystemTime::now();
        assert_eq!(when(now, None), "just now");
        assert_eq!(when(now - Duration::from_secs(300), None), "5m ago");
        assert_eq!(when(now - Duration::from_secs(7_300), None), "2h ago");
        assert_eq!(when(now - Duration::from_secs(3 * 86_400), None), "3d ago");
        assert_eq!(
            when(
                now - Duration::from_secs(90 * 86_400),
                Some("2024-01-02T03:04:05.000Z")
            ),
            "2024-01-02"
        );
        assert_eq!(one_line("a\n  b\tc", 10), "a b c");
        assert_eq!(one_line("abcdefghij", 5), "abcd…");
        assert_eq!(pad("ab", 4), "ab  ");
    }
}
