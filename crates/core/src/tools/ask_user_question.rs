//! AskUserQuestion: the model asks the user one to four multiple-choice
//! questions and gets the answers back as text.
//!
//! The tool itself never talks to the user. Its access is
//! [`Access::Interaction`], so the permission layer always asks; the front
//! end (the TUI's question dialog, or a stream-json client answering
//! `can_use_tool`) shows the questions and approves with `updatedInput`
//! carrying `answers` = {question text: answer text}. The engine re-parses
//! that input, and [`AskUserQuestionTool::call`] turns the answers into the
//! tool result. When nobody can answer (plain `-p`), the permission layer
//! denies the call before it gets here; a call that still arrives without
//! answers fails with a clear error.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::Access;

const MIN_QUESTIONS: usize = 1;
const MAX_QUESTIONS: usize = 4;
const MIN_OPTIONS: usize = 2;
const MAX_OPTIONS: usize = 4;

use catui_protocol::tool_names::ASK_USER_QUESTION as NAME;

pub struct AskUserQuestionTool;

/// One choice offered for a question.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuestionOption {
    /// The choice as the user sees it and as it comes back in the answer (a few words).
    pub label: String,
    /// What picking this choice means or implies.
    pub description: String,
}

/// One question for the user.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// The full question, ending with a question mark. Each question in one call must be different.
    pub question: String,
    /// A very short tag for the question (one or two words, e.g. "Database"), shown as its tab.
    pub header: String,
    /// Two to four distinct choices. The user can always type another answer instead.
    #[schemars(length(min = MIN_OPTIONS, max = MAX_OPTIONS))]
    pub options: Vec<QuestionOption>,
    /// True when the user may pick several choices.
    #[serde(default, rename = "multiSelect")]
    pub multi_select: bool,
}

/// The model sends `questions`; `answers` is added by the front end when the
/// user answers and is not offered to the model.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskUserQuestionInput {
    /// One to four questions asked together.
    #[schemars(length(min = MIN_QUESTIONS, max = MAX_QUESTIONS))]
    pub questions: Vec<Question>,
    /// {question text: answer text}, filled in by the front end.
    #[serde(default)]
    #[schemars(skip)]
    pub answers: Option<Map<String, Value>>,
}

#[async_trait]
impl TypedTool for AskUserQuestionTool {
    type Input = AskUserQuestionInput;

    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> String {
        "Asks the user one to four multiple-choice questions while you work and returns their \
         answers.\n\
         \n\
         Use it when a decision is the user's to make: an unclear requirement, a choice between \
         approaches with real trade-offs, a preference you cannot infer from the code. Gather \
         everything you need to ask into one call rather than asking one question at a time.\n\
         \n\
         - Each question has a short `header` (a tag of one or two words), the full `question`, \
           and two to four `options`, each with a short `label` and a `description` of what \
           choosing it means.\n\
         - Set `multiSelect` when several options can apply together.\n\
         - The user can always answer in their own words instead of picking an option, so do not \
           add an \"Other\" option yourself.\n\
         - If you recommend one option, list it first and add \"(Recommended)\" to its label.\n\
         - In plan mode, do not use this tool to ask whether the plan is good or whether to \
           proceed: only ExitPlanMode asks for approval of a plan."
            .into()
    }

    fn is_read_only(&self, _: &AskUserQuestionInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _: &AskUserQuestionInput) -> bool {
        // One set of questions at a time keeps the user's dialogs in order.
        false
    }

    async fn validate_input(
        &self,
        input: &AskUserQuestionInput,
        _: &ToolContext,
    ) -> Result<(), ToolError> {
        validate(&input.questions)
    }

    fn access(&self, _: &AskUserQuestionInput, _: &ToolContext) -> Access {
        Access::Interaction
    }

    fn summary(&self, input: &AskUserQuestionInput) -> String {
        let headers: Vec<&str> = input.questions.iter().map(|q| q.header.as_str()).collect();
        format!("AskUserQuestion({})", headers.join(", "))
    }

    async fn call(
        &self,
        input: AskUserQuestionInput,
        _: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        validate(&input.questions)?;
        let answers = input.answers.unwrap_or_default();
        if answers.is_empty() {
            return Err(ToolError::failed(
                "The questions were not answered: nobody could answer them in this session. \
                 Continue with your best judgement and state the assumptions you made, or stop \
                 and explain what you need to know.",
            ));
        }
        let answered: Vec<(&Question, String)> = input
            .questions
            .iter()
            .map(|q| {
                let text = answers
                    .get(&q.question)
                    .and_then(answer_text)
                    .unwrap_or_else(|| "(no answer)".to_string());
                (q, text)
            })
            .collect();
        let pairs: Vec<String> = answered
            .iter()
            .map(|(q, a)| format!("\"{}\" = \"{}\"", q.question, a))
            .collect();
        let content = format!(
            "The user answered your questions: {}. Take these answers into account as you continue.",
            pairs.join(", ")
        );
        let display = answered
            .iter()
            .map(|(q, a)| format!("· {} → {}", q.header, a))
            .collect::<Vec<_>>()
            .join("\n");
        Ok(ToolOutput::text(content).with_display(display))
    }
}

/// An answer as text: a string as is, a list of choices comma-joined.
fn answer_text(value: &Value) -> Option<String> {
    let text = match value {
        Value::String(s) => s.trim().to_string(),
        Value::Array(items) => items
            .iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s.trim().to_string()),
                Value::Null => None,
                other => Some(other.to_string()),
            })
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    (!text.is_empty()).then_some(text)
}

fn validate(questions: &[Question]) -> Result<(), ToolError> {
    if !(MIN_QUESTIONS..=MAX_QUESTIONS).contains(&questions.len()) {
        return Err(ToolError::invalid(format!(
            "AskUserQuestion takes {MIN_QUESTIONS} to {MAX_QUESTIONS} questions, got {}; \
             ask fewer questions at a time.",
            questions.len()
        )));
    }
    for (i, q) in questions.iter().enumerate() {
        let n = i + 1;
        if q.question.trim().is_empty() {
            return Err(ToolError::invalid(format!(
                "Question {n} has no text; write the full question."
            )));
        }
        if q.header.trim().is_empty() {
            return Err(ToolError::invalid(format!(
                "Question {n} has an empty header; give it a short tag such as \"Scope\"."
            )));
        }
        if questions[..i].iter().any(|p| p.question == q.question) {
            return Err(ToolError::invalid(format!(
                "Question {n} repeats an earlier question (\"{}\"); each question must be \
                 different because answers are matched by question text.",
                q.question
            )));
        }
        if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&q.options.len()) {
            return Err(ToolError::invalid(format!(
                "Question {n} (\"{}\") has {} options; give {MIN_OPTIONS} to {MAX_OPTIONS} \
                 (the user can always type their own answer).",
                q.question,
                q.options.len()
            )));
        }
        for (j, o) in q.options.iter().enumerate() {
            if o.label.trim().is_empty() {
                return Err(ToolError::invalid(format!(
                    "Option {} of question {n} has an empty label.",
                    j + 1
                )));
            }
            if q.options[..j].iter().any(|p| p.label == o.label) {
                return Err(ToolError::invalid(format!(
                    "Question {n} offers the option \"{}\" twice; option labels must differ.",
                    o.label
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "ask_user_question_tests.rs"]
mod tests;
