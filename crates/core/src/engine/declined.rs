//! A call the user chose not to run, as the model was told and as the user
//! sees it. The row under a declined call is read back from the model's
//! text by [`declined_view`], live and when a session is resumed, so the
//! replay shows the words the live run showed (the user-facing text of a
//! past call is not recorded). A plan sent back has its own words, read
//! the same way by `plan::tools::exit_rules::plan_rejection_view` (plan
//! sits above the engine).

/// What the model reads for a call the user stopped before it ran.
pub const INTERRUPTED: &str = "Interrupted by the user: this tool call was not run.";

/// The opening of what the model reads for a call the user declined.
const DECLINED: &str = "The user declined to run ";

/// The model-facing texts that say the user chose not to run a call.
const DECLINED_OPENINGS: [&str; 3] = [
    DECLINED,
    INTERRUPTED,
    "The user rejected the plan and wants to keep planning.",
];

/// Whether a stored tool result says the user chose not to run the call
/// (so a resumed transcript marks it as the live one did: not failed).
pub fn declined_by_user(model_text: &str) -> bool {
    DECLINED_OPENINGS.iter().any(|o| model_text.starts_with(o))
}

/// The row the user sees under the declined call `name` whose result told
/// the model `model_text`: `Declined · their words`, `Interrupted · not
/// run`. `None` for a text of a tool's own.
pub fn declined_view(name: &str, model_text: &str) -> Option<String> {
    if model_text == INTERRUPTED {
        return Some("Interrupted · not run".to_string());
    }
    if let Some(rest) = model_text
        .strip_prefix(DECLINED)
        .and_then(|r| r.strip_prefix(name))
    {
        return match rest.strip_prefix(": ").map(str::trim) {
            Some("") => Some("Declined".to_string()),
            Some(said) => Some(format!("Declined · {said}")),
            None if rest.starts_with('.') => Some("Declined".to_string()),
            None => None,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_words_come_back_from_the_models_text() {
        assert_eq!(
            declined_view("Edit", "The user declined to run Edit: keep it quiet").as_deref(),
            Some("Declined · keep it quiet")
        );
        assert_eq!(
            declined_view(
                "Bash",
                "The user declined to run Bash. Do not retry the same call; adapt or ask."
            )
            .as_deref(),
            Some("Declined")
        );
        assert_eq!(
            declined_view("Edit", INTERRUPTED).as_deref(),
            Some("Interrupted · not run")
        );
        // Another tool's name, or a text of a tool's own: not read back.
        assert_eq!(
            declined_view("Write", "The user declined to run Edit: x"),
            None
        );
        assert_eq!(declined_view("Edit", "Something else entirely"), None);
    }
}
