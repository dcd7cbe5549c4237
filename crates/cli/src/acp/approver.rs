//! The session's permission prompts as `session/request_permission`
//! requests: ordinary prompts (allow once / always / reject), the plan
//! approval of ExitPlanMode (the plan, the diff against the revision shown
//! last, and the three plan choices) and AskUserQuestion (one request per
//! question), and a teammate's plan put to the user
//! ([`super::teammate_plan`]). Everything fails closed: a cancelled, failed or unreadable
//! answer denies, and for a plan means "keep planning".

use catui_protocol::tool_names;
use std::sync::Arc;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SessionId, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
};
use async_trait::async_trait;
use catui_core::engine::{Approver, PermissionAnswer, PermissionRequest};
use catui_core::sync::lock;
use serde_json::{Map, Value, json};
use tokio::sync::OnceCell;

use super::mapping;
use super::teammate_plan;
use super::updates::{Notifier, Updates};

/// What the approver needs once the session exists (the approver is made
/// before the session is built).
pub struct Wiring {
    pub notifier: Notifier,
    pub updates: Updates,
}

/// Asks the editor's user through the ACP client.
pub struct AcpApprover {
    pub cx: ConnectionTo<Client>,
    pub session_id: SessionId,
    pub wiring: Arc<OnceCell<Wiring>>,
}

impl AcpApprover {
    /// Sends one request and waits for the answer, after every update the
    /// engine reported before it (the tool call it is about).
    async fn request(
        &self,
        tool_call: ToolCallUpdate,
        options: Vec<PermissionOption>,
    ) -> (Result<RequestPermissionOutcome, String>, Option<Value>) {
        if let Some(w) = self.wiring.get() {
            w.updates.flush().await;
        }
        let request = RequestPermissionRequest::new(self.session_id.clone(), tool_call, options);
        match self.cx.send_request(request).block_task().await {
            Ok(RequestPermissionResponse { outcome, meta, .. }) => {
                (Ok(outcome), meta.and_then(|m| m.get("feedback").cloned()))
            }
            Err(e) => (Err(e.message), None),
        }
    }

    fn fields(&self, request: &PermissionRequest) -> ToolCallUpdateFields {
        let cwd = self
            .wiring
            .get()
            .map(|w| w.notifier.cwd.clone())
            .unwrap_or_default();
        let name = &request.tool_name;
        let input = &request.input;
        let mut fields = ToolCallUpdateFields::new()
            .title(mapping::tool_title(name, input, &cwd))
            .kind(mapping::tool_kind(name))
            .status(ToolCallStatus::Pending)
            .locations(mapping::tool_locations(input, &cwd))
            .raw_input(input.clone());
        if let Some(diff) = mapping::tool_diff(name, input, &cwd) {
            fields = fields.content(vec![diff]);
        }
        fields
    }

    async fn ask_plan(&self, request: PermissionRequest) -> PermissionAnswer {
        if let Some(agent) = teammate_plan::teammate_of(&request) {
            return self.ask_teammate_plan(request, &agent).await;
        }
        if let Some(w) = self.wiring.get() {
            let plan = request
                .input
                .get("plan")
                .and_then(Value::as_str)
                .map(str::to_string);
            lock(&w.notifier.shown).plan = plan;
        }
        let fields = self
            .fields(&request)
            .content(mapping::plan_request_content(&request.input));
        let call = ToolCallUpdate::new(request.tool_use_id.clone(), fields);
        let (outcome, feedback) = self.request(call, mapping::plan_options()).await;
        let feedback = typed_note(feedback.as_ref());
        mapping::plan_answer(outcome, &request.input, feedback)
    }

    /// A teammate's plan (`teammatePlanApprover: "user"`): its own title,
    /// choices and conflicts; the session's own last shown plan stays as
    /// it was (a later revision of it is diffed against that).
    async fn ask_teammate_plan(&self, request: PermissionRequest, agent: &str) -> PermissionAnswer {
        let fields = self
            .fields(&request)
            .title(teammate_plan::title(agent))
            .content(teammate_plan::content(&request.input));
        let call = ToolCallUpdate::new(request.tool_use_id.clone(), fields);
        let (outcome, feedback) = self.request(call, teammate_plan::options(agent)).await;
        let feedback = typed_note(feedback.as_ref());
        teammate_plan::answer(outcome, &request.input, feedback)
    }

    /// One request per question; the options are the question's choices.
    async fn ask_questions(&self, request: PermissionRequest) -> PermissionAnswer {
        let questions = request
            .input
            .get("questions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut answers = Map::new();
        for (n, question) in questions.iter().enumerate() {
            let text = question
                .get("question")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let labels: Vec<String> = question
                .get("options")
                .and_then(Value::as_array)
                .map(|o| {
                    o.iter()
                        .filter_map(|o| o.get("label").and_then(Value::as_str))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            let mut options: Vec<PermissionOption> = labels
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    PermissionOption::new(
                        format!("answer_{i}"),
                        l.clone(),
                        PermissionOptionKind::AllowOnce,
                    )
                })
                .collect();
            options.push(PermissionOption::new(
                "skip",
                "Skip: I'll answer in the chat",
                PermissionOptionKind::RejectOnce,
            ));
            let fields = ToolCallUpdateFields::new()
                .title(text.clone())
                .kind(mapping::tool_kind(&request.tool_name))
                .status(ToolCallStatus::Pending)
                .raw_input(question.clone());
            let call = ToolCallUpdate::new(format!("{}#{n}", request.tool_use_id), fields);
            let (outcome, _) = self.request(call, options).await;
            let chosen = match outcome {
                Ok(RequestPermissionOutcome::Selected(s)) => s
                    .option_id
                    .0
                    .strip_prefix("answer_")
                    .and_then(|i| i.parse::<usize>().ok())
                    .and_then(|i| labels.get(i).cloned()),
                _ => None,
            };
            let Some(label) = chosen else {
                return PermissionAnswer::Deny {
                    message: "The user did not answer; ask in the chat instead.".into(),
                };
            };
            answers.insert(text, json!(label));
        }
        let mut input = request.input.clone();
        input["answers"] = Value::Object(answers);
        PermissionAnswer::Allow {
            updated_input: Some(input),
            updated_permissions: None,
        }
    }
}

#[async_trait]
impl Approver for AcpApprover {
    async fn ask(&self, request: PermissionRequest) -> PermissionAnswer {
        match request.tool_name.as_str() {
            tool_names::EXIT_PLAN_MODE => self.ask_plan(request).await,
            tool_names::ASK_USER_QUESTION => self.ask_questions(request).await,
            _ => {
                let options =
                    mapping::permission_options(&request.tool_name, request.suggestion.as_deref());
                let call = ToolCallUpdate::new(request.tool_use_id.clone(), self.fields(&request));
                let (outcome, _) = self.request(call, options).await;
                mapping::permission_answer(outcome, request.suggestion.as_deref())
            }
        }
    }
}

/// The note a user typed beside a plan choice, trimmed; none when blank.
fn typed_note(feedback: Option<&Value>) -> Option<String> {
    feedback
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(str::to_string)
}
