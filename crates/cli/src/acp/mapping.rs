//! Pure translations between catui's session and the Agent Client
//! Protocol: modes, tool calls (kind, title, locations, diffs), permission
//! options and answers, plan entries, prompt content. No I/O beyond reading
//! a file that a Write would replace (for its diff).

use catui_protocol::tool_names;
use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{
    self as acp, Diff, PermissionOption, PermissionOptionKind, PlanEntry, PlanEntryPriority,
    PlanEntryStatus, RequestPermissionOutcome, SessionMode, SessionModeState, ToolCallContent,
    ToolCallLocation, ToolKind,
};
use catui_core::engine::PermissionAnswer;
use catui_core::plan::approval::decision::ApprovalDecision;
use catui_protocol::{ContentBlock, PermissionMode};
use serde_json::{Value, json};

/// The modes offered, in the order of the editor's menu.
pub fn modes(current: PermissionMode, auto_enabled: bool) -> SessionModeState {
    let mut list = vec![
        (
            PermissionMode::Default,
            "Default",
            "Ask before edits and commands",
        ),
        (
            PermissionMode::AcceptEdits,
            "Accept edits",
            "Edits in the project are applied without asking",
        ),
        (
            PermissionMode::Plan,
            "Plan",
            "Read-only research; nothing changes until you approve a plan",
        ),
        (
            PermissionMode::BypassPermissions,
            "Bypass permissions",
            "Run everything without asking",
        ),
    ];
    if auto_enabled {
        list.push((
            PermissionMode::Auto,
            "Auto",
            "A classifier model approves safe calls",
        ));
    }
    let available = list
        .into_iter()
        .map(|(mode, name, description)| {
            SessionMode::new(mode.to_string(), name).description(description.to_string())
        })
        .collect();
    SessionModeState::new(current.to_string(), available)
}

/// The category an editor shows for a tool.
/// The slash commands an editor may offer: catui's own and the session's
/// custom commands (`/NAME`, sent as a prompt starting with it).
pub fn available_commands(custom: &[(String, String)]) -> Vec<acp::AvailableCommand> {
    catui_core::engine::slash_commands::COMMANDS
        .iter()
        .map(|(name, help)| (name.to_string(), help.to_string()))
        .chain(custom.iter().cloned())
        .map(|(name, help)| acp::AvailableCommand::new(name, help))
        .collect()
}

pub fn tool_kind(name: &str) -> ToolKind {
    match name {
        tool_names::READ => ToolKind::Read,
        tool_names::EDIT | tool_names::WRITE | tool_names::NOTEBOOK_EDIT => ToolKind::Edit,
        tool_names::GLOB | tool_names::GREP => ToolKind::Search,
        tool_names::BASH
        | tool_names::BASH_OUTPUT
        | tool_names::KILL_SHELL
        | tool_names::BASH_INPUT => ToolKind::Execute,
        tool_names::WEB_FETCH => ToolKind::Fetch,
        tool_names::ENTER_PLAN_MODE | tool_names::EXIT_PLAN_MODE => ToolKind::SwitchMode,
        tool_names::TODO_WRITE | tool_names::AGENT | tool_names::TASK => ToolKind::Think,
        _ => ToolKind::Other,
    }
}

fn str_field<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

/// The file a tool call reads or changes, absolute.
pub fn tool_path(input: &Value, cwd: &Path) -> Option<PathBuf> {
    let raw = ["file_path", "notebook_path", "path"]
        .iter()
        .find_map(|k| str_field(input, k))?;
    let path = Path::new(raw);
    Some(if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    })
}

/// A short title for a tool call before it runs (the engine's own summary
/// replaces it once it starts).
pub fn tool_title(name: &str, input: &Value, cwd: &Path) -> String {
    let shown = |p: PathBuf| {
        p.strip_prefix(cwd)
            .map(|r| r.display().to_string())
            .unwrap_or_else(|_| p.display().to_string())
    };
    match name {
        tool_names::BASH => match str_field(input, "command") {
            Some(c) => format!("Bash({})", first_line(c)),
            None => name.to_string(),
        },
        tool_names::GREP | tool_names::GLOB => match str_field(input, "pattern") {
            Some(p) => format!("{name}({p})"),
            None => name.to_string(),
        },
        tool_names::EXIT_PLAN_MODE => "Ready to code?".to_string(),
        tool_names::ENTER_PLAN_MODE => "Enter plan mode".to_string(),
        _ => match tool_path(input, cwd) {
            Some(p) => format!("{name}({})", shown(p)),
            None => name.to_string(),
        },
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// Where the call acts, for the editor's follow-along.
pub fn tool_locations(input: &Value, cwd: &Path) -> Vec<ToolCallLocation> {
    let Some(path) = tool_path(input, cwd) else {
        return Vec::new();
    };
    let line = input
        .get("offset")
        .and_then(Value::as_u64)
        .and_then(|l| u32::try_from(l).ok());
    vec![ToolCallLocation::new(path).line(line)]
}

/// The diff an edit would make: Edit's old and new strings, or the file a
/// Write replaces (read now) and its new content.
pub fn tool_diff(name: &str, input: &Value, cwd: &Path) -> Option<ToolCallContent> {
    let path = tool_path(input, cwd)?;
    match name {
        tool_names::EDIT => {
            let old = str_field(input, "old_string")?;
            let new = str_field(input, "new_string")?;
            Some(ToolCallContent::Diff(
                Diff::new(path, new).old_text(old.to_string()),
            ))
        }
        tool_names::WRITE => {
            let new = str_field(input, "content")?;
            let old = std::fs::read_to_string(&path).ok();
            Some(ToolCallContent::Diff(Diff::new(path, new).old_text(old)))
        }
        _ => None,
    }
}

/// Text as tool-call content.
pub fn text_content(text: impl Into<String>) -> ToolCallContent {
    ToolCallContent::Content(acp::Content::new(acp::ContentBlock::Text(
        acp::TextContent::new(text),
    )))
}

/// Option ids of an ordinary permission prompt.
pub const ALLOW_ONCE: &str = "allow_once";
pub const ALLOW_ALWAYS: &str = "allow_always";
pub const REJECT: &str = "reject_once";

/// The choices of a permission prompt, as the terminal UI offers them:
/// yes, yes and don't ask again (when a rule can say so), no.
pub fn permission_options(tool: &str, suggestion: Option<&str>) -> Vec<PermissionOption> {
    let mut options = vec![PermissionOption::new(
        ALLOW_ONCE,
        "Yes",
        PermissionOptionKind::AllowOnce,
    )];
    if let Some(rule) = suggestion {
        let label = if rule == tool {
            format!("Yes, and don't ask again for {tool} this session")
        } else {
            format!("Yes, and don't ask again for {rule} this session")
        };
        options.push(PermissionOption::new(
            ALLOW_ALWAYS,
            label,
            PermissionOptionKind::AllowAlways,
        ));
    }
    options.push(PermissionOption::new(
        REJECT,
        "No",
        PermissionOptionKind::RejectOnce,
    ));
    options
}

/// The `updatedPermissions` that allow calls like this one for the rest of
/// the session, from a rule's text (`Bash(npm test:*)`, `Edit`).
pub fn session_rule(rule: &str) -> Value {
    let (tool, content) = match rule.split_once('(') {
        Some((tool, rest)) => (tool, rest.strip_suffix(')')),
        None => (rule, None),
    };
    let mut wire_rule = json!({ "toolName": tool });
    if let Some(content) = content {
        wire_rule["ruleContent"] = json!(content);
    }
    json!([{
        "type": "addRules",
        "rules": [wire_rule],
        "behavior": "allow",
        "destination": "session",
    }])
}

/// What the user chose in an ordinary permission prompt. Anything but an
/// allow option (cancelled, an unknown id, a failed request) denies.
pub fn permission_answer(
    outcome: Result<RequestPermissionOutcome, String>,
    suggestion: Option<&str>,
) -> PermissionAnswer {
    let chosen = match outcome {
        Ok(RequestPermissionOutcome::Selected(selected)) => selected.option_id.0.to_string(),
        Ok(_) => {
            return PermissionAnswer::Deny {
                message: "The user cancelled the prompt.".into(),
            };
        }
        Err(e) => {
            return PermissionAnswer::Unanswered {
                reason: format!("the permission prompt failed: {e}"),
            };
        }
    };
    match chosen.as_str() {
        ALLOW_ONCE => PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: None,
        },
        ALLOW_ALWAYS => PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: suggestion.map(session_rule),
        },
        _ => PermissionAnswer::Deny {
            message: String::new(),
        },
    }
}

/// Option ids of the plan approval (ExitPlanMode).
pub const PLAN_ACCEPT_EDITS: &str = "plan_accept_edits";
pub const PLAN_REVIEW_EDITS: &str = "plan_review_edits";
pub const PLAN_KEEP_PLANNING: &str = "plan_keep_planning";
pub const PLAN_PARK: &str = "plan_park";
pub const PLAN_BACKGROUND: &str = "plan_background";

/// The choices of the plan approval, as the terminal UI's dialog.
pub fn plan_options() -> Vec<PermissionOption> {
    vec![
        PermissionOption::new(
            PLAN_ACCEPT_EDITS,
            "Yes, and auto-accept edits",
            PermissionOptionKind::AllowAlways,
        ),
        PermissionOption::new(
            PLAN_REVIEW_EDITS,
            "Yes, and manually approve edits",
            PermissionOptionKind::AllowOnce,
        ),
        PermissionOption::new(
            PLAN_KEEP_PLANNING,
            "No, keep planning",
            PermissionOptionKind::RejectOnce,
        ),
        PermissionOption::new(
            PLAN_BACKGROUND,
            "Yes, implement in the background (git worktree, branch catui/<plan>)",
            PermissionOptionKind::AllowOnce,
        ),
        PermissionOption::new(
            PLAN_PARK,
            "Not now: park the plan (nothing is approved)",
            PermissionOptionKind::RejectOnce,
        ),
    ]
}

/// What the user chose in the plan approval, as the user's decision;
/// `input` is the request's input (plan, path, diff). Fails closed: a
/// cancelled request keeps planning; a failed one, or an option that is
/// none of the plan's, approves nothing and is no decision of the user's.
/// `feedback` (the response's `_meta.feedback`) reaches the model when
/// planning goes on, and is the note of a parked plan.
pub fn plan_answer(
    outcome: Result<RequestPermissionOutcome, String>,
    input: &Value,
    feedback: Option<String>,
) -> PermissionAnswer {
    let decision = match outcome {
        Ok(RequestPermissionOutcome::Selected(selected)) => {
            match selected.option_id.0.as_ref() {
                PLAN_ACCEPT_EDITS => ApprovalDecision::approve(Some(PermissionMode::AcceptEdits)),
                // None: the mode from before plan mode.
                PLAN_REVIEW_EDITS => ApprovalDecision::approve(None),
                // A background agent in a git worktree carries it out,
                // its edits accepted (nobody is there to approve them).
                PLAN_BACKGROUND => ApprovalDecision {
                    dispatch: true,
                    ..ApprovalDecision::approve(Some(PermissionMode::AcceptEdits))
                },
                PLAN_PARK => ApprovalDecision::park(feedback.unwrap_or_default()),
                PLAN_KEEP_PLANNING => ApprovalDecision::keep_planning(feedback.unwrap_or_default()),
                other => {
                    return PermissionAnswer::Unanswered {
                        reason: format!(
                            "the client chose '{other}', which is no option of the plan approval"
                        ),
                    };
                }
            }
        }
        Ok(_) => ApprovalDecision::keep_planning(String::new()),
        Err(e) => {
            return PermissionAnswer::Unanswered {
                reason: format!("the plan approval request failed: {e}"),
            };
        }
    };
    decision.into_answer(input)
}

/// The text of the plan approval: the plan, and what changed since the
/// revision shown last.
pub fn plan_request_content(input: &Value) -> Vec<ToolCallContent> {
    let mut content = Vec::new();
    let plan = str_field(input, "plan").unwrap_or("");
    content.push(text_content(if plan.trim().is_empty() {
        "(The plan file is empty.)".to_string()
    } else {
        plan.to_string()
    }));
    if let Some(diff) = str_field(input, "planDiff").filter(|d| !d.trim().is_empty()) {
        content.push(text_content(format!(
            "Changes since the last revision you saw:\n\n```diff\n{}\n```",
            diff.trim_end()
        )));
    }
    content
}

/// TodoWrite's list as plan entries.
pub fn todo_entries(input: &Value) -> Option<Vec<PlanEntry>> {
    let todos = input.get("todos")?.as_array()?;
    Some(
        todos
            .iter()
            .filter_map(|t| {
                let content = str_field(t, "content")?;
                let status = match str_field(t, "status") {
                    Some("in_progress") => PlanEntryStatus::InProgress,
                    Some("completed") => PlanEntryStatus::Completed,
                    _ => PlanEntryStatus::Pending,
                };
                Some(PlanEntry::new(content, PlanEntryPriority::Medium, status))
            })
            .collect(),
    )
}

/// The steps of an approved plan: its top-level numbered items, else its
/// top-level bullet items; all pending.
pub fn plan_steps(plan: &str) -> Vec<PlanEntry> {
    let numbered: Vec<&str> = plan.lines().filter_map(numbered_item).collect();
    let items = if numbered.is_empty() {
        plan.lines().filter_map(bullet_item).collect()
    } else {
        numbered
    };
    items
        .into_iter()
        .map(|s| PlanEntry::new(s, PlanEntryPriority::Medium, PlanEntryStatus::Pending))
        .collect()
}

fn numbered_item(line: &str) -> Option<&str> {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let rest = line[digits..]
        .strip_prefix(". ")
        .or_else(|| line[digits..].strip_prefix(") "))?;
    Some(rest.trim()).filter(|s| !s.is_empty())
}

fn bullet_item(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))?;
    let rest = rest
        .strip_prefix("[ ] ")
        .or_else(|| rest.strip_prefix("[x] "))
        .unwrap_or(rest);
    Some(rest.trim()).filter(|s| !s.is_empty())
}

/// An editor's prompt as catui input. Text stays text; a linked or
/// embedded file becomes a mention or its quoted contents; images are
/// passed on.
pub fn prompt_blocks(prompt: Vec<acp::ContentBlock>) -> Vec<ContentBlock> {
    let mut blocks = Vec::new();
    for block in prompt {
        match block {
            acp::ContentBlock::Text(t) => blocks.push(ContentBlock::text(t.text)),
            acp::ContentBlock::ResourceLink(link) => {
                let path = link.uri.strip_prefix("file://").unwrap_or(&link.uri);
                blocks.push(ContentBlock::text(format!("@{path}")));
            }
            acp::ContentBlock::Resource(resource) => match resource.resource {
                acp::EmbeddedResourceResource::TextResourceContents(text) => {
                    let path = text.uri.strip_prefix("file://").unwrap_or(&text.uri);
                    blocks.push(ContentBlock::text(format!(
                        "<context ref=\"{path}\">\n{}\n</context>",
                        text.text
                    )));
                }
                _ => blocks.push(ContentBlock::text(
                    "(a binary resource was attached; catui cannot read it)",
                )),
            },
            acp::ContentBlock::Image(image) => blocks.push(ContentBlock::Image {
                source: json!({
                    "type": "base64",
                    "media_type": image.mime_type,
                    "data": image.data,
                }),
            }),
            _ => blocks.push(ContentBlock::text(
                "(an attachment of a kind catui cannot read was left out)",
            )),
        }
    }
    blocks
}

#[cfg(test)]
#[path = "mapping_tests.rs"]
mod tests;
