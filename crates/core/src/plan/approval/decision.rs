//! The user's decision on a plan presented for approval, as one type.
//!
//! Every front end produces an [`ApprovalDecision`] — the terminal UI's dialog,
//! the stream-json / SDK answer ([`ApprovalDecision::from_response`]), the ACP
//! client's choice — and turns it into the engine's permission answer with
//! [`ApprovalDecision::into_answer`]. One code path consumes it: keeping
//! planning is the engine's denial (ExitPlanMode's `denied_result`);
//! approving and parking reach ExitPlanMode's call as fields of its input
//! ([`ApprovalDecision::from_input`]) and are carried out by
//! [`crate::plan::approval`]. A new front end (a review page in a browser) only
//! has to build this value.
//!
//! The fields an answer may set on ExitPlanMode's input are listed in
//! docs/PROTOCOL.md: `mode`, `clearContext`, `skip_steps`, `model`, `plan`
//! (the user's edited text) and `planHash` (the revision answered); a park
//! is `park: true` with an optional `note`.

use catui_protocol::PermissionMode;
use catui_protocol::control::PermissionResponse;
use catui_protocol::mode::UnknownMode;
use serde_json::{Value, json};

use crate::engine::PermissionAnswer;
use crate::plan::approval::review::{LineComment, review_feedback};

/// What the user decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalVerdict {
    /// Leave plan mode and carry out the plan (minus any skipped steps).
    Approve,
    /// Stay in plan mode; the feedback reaches the model.
    KeepPlanning,
    /// "Not now": leave plan mode without approving anything; the plan
    /// file is kept for later.
    Park,
}

/// The user's whole answer to one presentation of a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalDecision {
    pub verdict: ApprovalVerdict,
    /// Approve: the mode to continue in; `None` = the mode from before
    /// plan mode.
    pub mode: Option<PermissionMode>,
    /// Approve: implementation continues in a fresh conversation.
    pub clear_context: bool,
    /// Keep planning: the user's feedback; park: the user's note.
    pub feedback: String,
    /// Keep planning: comments on lines of the plan.
    pub comments: Vec<LineComment>,
    /// Approve: 1-based numbers of the plan's numbered steps the user
    /// leaves out.
    pub skip_steps: Vec<usize>,
    /// Approve: the model that implements (`None`: the session's model).
    pub model: Option<String>,
    /// Approve, and hand the plan to a background agent in a git worktree
    /// (`updatedInput.dispatch: "worktree"`) instead of carrying it out here.
    pub dispatch: bool,
    /// The plan as the user edited it before approving.
    pub edited_plan: Option<String>,
    /// The revision this answers (the presentation's `planHash`); `None`:
    /// the one shown.
    pub plan_hash: Option<String>,
}

/// Input fields only an answer sets; they are never taken over from the
/// presentation when an answer is encoded.
const ANSWER_FIELDS: &[&str] = &[
    "mode",
    "clearContext",
    "skip_steps",
    "model",
    "park",
    "note",
    "dispatch",
];

impl ApprovalDecision {
    fn new(verdict: ApprovalVerdict) -> Self {
        ApprovalDecision {
            verdict,
            mode: None,
            clear_context: false,
            dispatch: false,
            feedback: String::new(),
            comments: Vec::new(),
            skip_steps: Vec::new(),
            model: None,
            edited_plan: None,
            plan_hash: None,
        }
    }

    /// Approve, continuing in `mode` (`None`: the mode from before plan mode).
    pub fn approve(mode: Option<PermissionMode>) -> Self {
        ApprovalDecision {
            mode,
            ..Self::new(ApprovalVerdict::Approve)
        }
    }

    /// Keep planning with this feedback.
    pub fn keep_planning(feedback: impl Into<String>) -> Self {
        ApprovalDecision {
            feedback: feedback.into(),
            ..Self::new(ApprovalVerdict::KeepPlanning)
        }
    }

    /// Park the plan, with an optional note.
    pub fn park(note: impl Into<String>) -> Self {
        ApprovalDecision {
            feedback: note.into(),
            ..Self::new(ApprovalVerdict::Park)
        }
    }

    /// The permission answer that carries this decision to the engine;
    /// `shown` is the input of the prompt being answered.
    pub fn into_answer(self, shown: &Value) -> PermissionAnswer {
        if self.verdict == ApprovalVerdict::KeepPlanning {
            let plan = self
                .edited_plan
                .as_deref()
                .or_else(|| shown.get("plan").and_then(Value::as_str))
                .unwrap_or_default();
            return PermissionAnswer::Deny {
                message: review_feedback(plan, &self.feedback, &self.comments),
            };
        }
        PermissionAnswer::Allow {
            updated_input: Some(self.answer_input(shown)),
            updated_permissions: None,
        }
    }

    /// This decision as the answer a stream-json client sends (comments
    /// kept apart from the feedback), which [`Self::from_response`] reads
    /// back: how a decision made after the session ended is recorded.
    pub fn into_response(self, shown: &Value) -> PermissionResponse {
        if self.verdict == ApprovalVerdict::KeepPlanning {
            return PermissionResponse::Deny {
                message: self.feedback.trim().to_string(),
                interrupt: false,
                comments: self
                    .comments
                    .into_iter()
                    .map(|c| catui_protocol::control::PlanLineComment {
                        line: c.line,
                        text: c.text,
                        passage: c.passage,
                    })
                    .collect(),
                park: false,
            };
        }
        PermissionResponse::Allow {
            updated_input: Some(self.answer_input(shown)),
            updated_permissions: None,
            dry_run: false,
        }
    }

    /// ExitPlanMode's input carrying an approval or a park: the shown input
    /// with the answer's fields.
    fn answer_input(self, shown: &Value) -> Value {
        let mut input = match shown {
            Value::Object(map) => map.clone(),
            _ => serde_json::Map::new(),
        };
        for field in ANSWER_FIELDS {
            input.remove(*field);
        }
        if let Some(hash) = self.plan_hash {
            input.insert("planHash".into(), json!(hash));
        }
        if self.verdict == ApprovalVerdict::Park {
            input.insert("park".into(), json!(true));
            if !self.feedback.trim().is_empty() {
                input.insert("note".into(), json!(self.feedback.trim()));
            }
        } else {
            input.insert(
                "mode".into(),
                self.mode.map_or(Value::Null, |m| json!(m.to_string())),
            );
            if self.clear_context {
                input.insert("clearContext".into(), json!(true));
            }
            if self.dispatch {
                input.insert("dispatch".into(), json!("worktree"));
            }
            if !self.skip_steps.is_empty() {
                input.insert("skip_steps".into(), json!(self.skip_steps));
            }
            if let Some(model) = self.model {
                input.insert("model".into(), json!(model));
            }
            if let Some(plan) = self.edited_plan {
                input.insert("plan".into(), json!(plan));
            }
        }
        Value::Object(input)
    }

    /// One line saying what was decided, for the user (the terminal UI
    /// when the decision came from the review page, `catui plans review`).
    pub fn summary(&self) -> String {
        match self.verdict {
            ApprovalVerdict::Approve => {
                let mut text = match self.mode {
                    Some(mode) => format!("Approved, continuing in {mode}"),
                    None => "Approved, continuing in the mode from before plan mode".to_string(),
                };
                if self.clear_context {
                    text.push_str(" in a fresh conversation");
                }
                if self.dispatch {
                    text =
                        "Approved and handed to a background agent in a git worktree".to_string();
                }
                if !self.skip_steps.is_empty() {
                    let steps: Vec<String> =
                        self.skip_steps.iter().map(ToString::to_string).collect();
                    text.push_str(&format!(" without step(s) {}", steps.join(", ")));
                }
                if let Some(model) = &self.model {
                    text.push_str(&format!("; {model} implements"));
                }
                text
            }
            ApprovalVerdict::KeepPlanning => match self.comments.len() {
                0 => "Sent back: keep planning".to_string(),
                1 => "Sent back with 1 comment: keep planning".to_string(),
                n => format!("Sent back with {n} comments: keep planning"),
            },
            ApprovalVerdict::Park => "Parked: nothing approved, plan mode ends".to_string(),
        }
    }

    /// Reads a stream-json (SDK) answer to the prompt whose input was
    /// `shown`: `allow` approves with the fields of `updatedInput`; `deny`
    /// keeps planning, or parks with `"park": true`. A field that cannot be
    /// read is an error that says which.
    pub fn from_response(
        response: &PermissionResponse,
        shown: &Value,
    ) -> Result<Self, AnswerError> {
        match response {
            PermissionResponse::Deny {
                message,
                comments,
                park,
                ..
            } => Ok(if *park {
                Self::park(message.clone())
            } else {
                ApprovalDecision {
                    comments: comments
                        .iter()
                        .map(|c| LineComment {
                            line: c.line,
                            text: c.text.clone(),
                            passage: c.passage.clone(),
                        })
                        .collect(),
                    ..Self::keep_planning(message.clone())
                }
            }),
            PermissionResponse::Allow { updated_input, .. } => {
                let answer = updated_input.as_ref().unwrap_or(shown);
                if answer.get("park") == Some(&Value::Bool(true)) {
                    let note = answer.get("note").and_then(Value::as_str).unwrap_or("");
                    return Ok(Self::park(note));
                }
                let mode = match answer.get("mode") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(m)) => Some(
                        m.parse::<PermissionMode>()
                            .map_err(AnswerError::UnknownMode)?,
                    ),
                    Some(other) => return Err(AnswerError::ModeNotAName(other.clone())),
                };
                let skip_steps = match answer.get("skip_steps") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(value) => step_numbers(value)?,
                };
                let text =
                    |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
                let model = match answer.get("model") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(m)) if m.trim().is_empty() => None,
                    Some(Value::String(m)) => Some(m.trim().to_string()),
                    Some(other) => return Err(AnswerError::Model(other.clone())),
                }
                .filter(|m| Some(m) != text(shown, "model").as_ref());
                // The hash binds the approval to a text: one that cannot be
                // read approves nothing (it is not taken for "absent").
                let dispatch = match answer.get("dispatch") {
                    None | Some(Value::Null) => false,
                    Some(v) if v == "worktree" => true,
                    Some(other) => return Err(AnswerError::Dispatch(other.clone())),
                };
                let plan_hash = match answer.get("planHash") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(h)) => Some(h.clone()),
                    Some(other) => return Err(AnswerError::PlanHash(other.clone())),
                };
                Ok(ApprovalDecision {
                    dispatch,
                    clear_context: answer.get("clearContext") == Some(&Value::Bool(true)),
                    skip_steps,
                    model,
                    edited_plan: text(answer, "plan")
                        .filter(|p| Some(p) != text(shown, "plan").as_ref()),
                    plan_hash,
                    ..Self::approve(mode)
                })
            }
        }
    }

    /// The decision an approval or a park carried to ExitPlanMode's call.
    pub fn from_input(input: &crate::plan::approval::exit_input::ExitPlanModeInput) -> Self {
        if input.park == Some(true) {
            return Self::park(input.note.clone().unwrap_or_default());
        }
        let mode = match &input.mode {
            Some(Value::String(m)) => m.parse::<PermissionMode>().ok(),
            _ => None,
        };
        ApprovalDecision {
            dispatch: input.dispatch.as_deref() == Some("worktree"),
            clear_context: input.clear_context == Some(true),
            skip_steps: input.skip_steps.clone().unwrap_or_default(),
            model: input
                .model
                .clone()
                .map(|m| m.trim().to_string())
                .filter(|m| !m.is_empty()),
            edited_plan: input.plan.clone(),
            plan_hash: input.plan_hash.clone(),
            ..Self::approve(mode)
        }
    }
}

/// Which field of an approval answer could not be read: such an answer
/// approves nothing (a field is never taken for absent). The texts name the
/// field as the client sent it (`updatedInput.NAME`).
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    #[error("updatedInput.mode: {0}")]
    UnknownMode(UnknownMode),
    #[error("updatedInput.mode must be a mode name or null, not {0}")]
    ModeNotAName(Value),
    #[error("updatedInput.skip_steps must be a list of step numbers from 1, not {0}")]
    SkipSteps(Value),
    #[error("updatedInput.model must be a model name, not {0}")]
    Model(Value),
    #[error("updatedInput.dispatch must be \"worktree\" (or absent), not {0}")]
    Dispatch(Value),
    #[error("updatedInput.planHash must be the SHA-256 of the plan shown (a string), not {0}")]
    PlanHash(Value),
}

impl AnswerError {
    /// The field of `updatedInput` that could not be read.
    pub fn field(&self) -> &'static str {
        match self {
            AnswerError::UnknownMode(_) | AnswerError::ModeNotAName(_) => "mode",
            AnswerError::SkipSteps(_) => "skip_steps",
            AnswerError::Model(_) => "model",
            AnswerError::Dispatch(_) => "dispatch",
            AnswerError::PlanHash(_) => "planHash",
        }
    }
}

/// `skip_steps` as step numbers: a list of whole numbers from 1.
fn step_numbers(value: &Value) -> Result<Vec<usize>, AnswerError> {
    let bad = || AnswerError::SkipSteps(value.clone());
    let list = value.as_array().ok_or_else(bad)?;
    list.iter()
        .map(|n| match n.as_u64() {
            Some(n) if n >= 1 => usize::try_from(n).map_err(|_| bad()),
            _ => Err(bad()),
        })
        .collect()
}

#[cfg(test)]
#[path = "decision_tests.rs"]
mod tests;
