//! Line-anchored review comments on a plan: the user attaches comments to
//! lines of the plan shown for approval (several per review), or to a
//! passage they selected (the review page in a browser); "keep planning"
//! sends them to the model as the quoted lines with each comment under its
//! line, after the user's general feedback.

/// One comment: a 1-based line number of the plan, the comment's text and,
/// when the user selected one, the passage it is about (which starts on
/// that line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineComment {
    pub line: usize,
    pub text: String,
    pub passage: Option<String>,
}

/// The feedback the model receives: `message` (may be empty), then each
/// comment under the plan line it is about, in line order. Comments with
/// no text are dropped; a line number outside the plan is kept, marked.
pub fn review_feedback(plan: &str, message: &str, comments: &[LineComment]) -> String {
    let lines: Vec<&str> = plan.lines().collect();
    let mut sorted: Vec<&LineComment> = comments
        .iter()
        .filter(|c| !c.text.trim().is_empty())
        .collect();
    sorted.sort_by_key(|c| c.line);
    let mut out = message.trim().to_string();
    if sorted.is_empty() {
        return out;
    }
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str("Comments on lines of the plan:");
    for c in sorted {
        let quoted = c
            .line
            .checked_sub(1)
            .and_then(|i| lines.get(i))
            .map_or_else(
                || "(no such line in the plan)".to_string(),
                |l| l.to_string(),
            );
        out.push_str(&format!("\n\n> line {}: {}", c.line, quoted));
        if let Some(passage) = c
            .passage
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            // A selection may span lines: quote it on one line.
            let passage = passage.split_whitespace().collect::<Vec<_>>().join(" ");
            out.push_str(&format!("\nAbout \"{passage}\":"));
        }
        out.push_str(&format!("\n{}", c.text.trim()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(line: usize, text: &str) -> LineComment {
        LineComment {
            line,
            text: text.into(),
            passage: None,
        }
    }

    #[test]
    fn a_selected_passage_is_quoted_under_its_line() {
        let plan = "# Plan\n1. Parse --json\n2. Use json.dumps for the\n   report body\n";
        let comment = LineComment {
            passage: Some("json.dumps for the\n   report".into()),
            ..c(3, "orjson is faster.")
        };
        assert_eq!(
            review_feedback(plan, "", &[comment]),
            "Comments on lines of the plan:\n\n> line 3: 2. Use json.dumps for the\nAbout \"json.dumps for the report\":\norjson is faster."
        );
    }

    #[test]
    fn comments_quote_their_lines_in_order() {
        let plan = "# Plan\n1. Parse --json\n2. Use json.dumps\n";
        let text = review_feedback(
            plan,
            "Mostly fine.",
            &[
                c(3, "Use orjson instead."),
                c(2, "Also accept -j."),
                c(9, "?"),
                c(1, " "),
            ],
        );
        assert_eq!(
            text,
            "Mostly fine.\n\nComments on lines of the plan:\n\n> line 2: 1. Parse --json\nAlso accept -j.\n\n> line 3: 2. Use json.dumps\nUse orjson instead.\n\n> line 9: (no such line in the plan)\n?"
        );
        assert_eq!(review_feedback(plan, " keep going ", &[]), "keep going");
        assert!(review_feedback(plan, "", &[c(1, "x")]).starts_with("Comments on lines"));
    }
}
