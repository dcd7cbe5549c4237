//! What the model is told about a call that would ask: the rule a prompt
//! suggests, and the denial when nobody can answer (plain `-p`), naming
//! the rule, mode or flag that would let the call run.

use catui_protocol::tool_names;
use std::path::Path;

use super::secrets::SecretStores;
use super::{Access, AskWhy, CallInfo, Rule, RuleSourceKind};

/// The denial for a call that would ask when nobody can answer: what it
/// needed and the rule or flag that would let it run.
pub(super) fn non_interactive_message(call: &CallInfo, reason: &str, why: &AskWhy) -> String {
    let head = format!(
        "{} was not run: {reason}, and nobody can answer permission prompts in this non-interactive session.",
        call.tool_name
    );
    match why {
        AskWhy::Interaction => {
            format!("{head} Continue without the user's answer, or run the session interactively.")
        }
        AskWhy::AskRule(rule) if rule.origin.kind == RuleSourceKind::UnappliedSettings => {
            let file = rule.origin.file.as_ref().map_or_else(
                || "the settings file".to_string(),
                |f| f.display().to_string(),
            );
            format!(
                "{head} Every tool call asks first because {file} could not be applied, so its deny rules are unknown. To let it run, fix {file} (or remove it)."
            )
        }
        AskWhy::AskRule(rule) => format!(
            "{head} To let it run, remove the ask rule `{}` ({}).",
            rule.rule, rule.origin
        ),
        AskWhy::Secret { suggestion } => match suggestion {
            Some(rule) => format!(
                "{head} Secret stores are never read without the user's word. To allow it, add `{rule}` to permissions.allow in your user settings or pass --allowed-tools \"{rule}\"."
            ),
            None => format!("{head} Secret stores are never read without the user's word."),
        },
        AskWhy::Escalation => format!(
            "{head} Nothing the model starts may get a wider permission mode than the session's without the user's word. Start it without that mode, or start the session in that mode yourself."
        ),
        AskWhy::Default {
            suggestion,
            accept_edits_would_allow,
        } => {
            let mut text = head;
            if let Some(rule) = suggestion {
                text.push_str(&format!(
                    " To allow it, add `{rule}` to permissions.allow in .catui/settings.json or pass --allowed-tools \"{rule}\""
                ));
                if *accept_edits_would_allow {
                    text.push_str(", or run with --permission-mode acceptEdits");
                }
                text.push('.');
            } else if *accept_edits_would_allow {
                text.push_str(" To allow it, run with --permission-mode acceptEdits.");
            }
            text
        }
    }
}

/// The allow rule that lets this call's tool reach `path` (and, for a
/// directory, everything in it).
pub(super) fn secret_rule(call: &CallInfo, path: &Path, secrets: &SecretStores) -> Rule {
    let tool = match call.access {
        Access::Write { .. } => tool_names::EDIT,
        _ => tool_names::READ,
    };
    let shown = secrets.shown(path);
    let spec = if shown.starts_with('~') {
        globset::escape(&shown)
    } else {
        format!("/{}", globset::escape(&shown))
    };
    Rule::with_specifier(tool, spec)
}
