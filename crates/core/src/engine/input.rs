//! Taking one user input: the id its message keeps, a slash command run
//! here (`/compact`), by an extension or by [`slash_commands`] (a custom
//! command's turn with its allow rules and model for that turn only), media
//! the model cannot take refused, the prompt hooks, `@` mentions read, and
//! the one [`EngineEvent::Result`] that ends every input. The model loop
//! the input starts is `Engine::run_turn`'s, in `mod.rs`.

use std::time::Instant;

use catui_protocol::stream_json::ResultSubtype;
use catui_protocol::{ContentBlock, Message, Role, Usage};

use super::{
    Engine, EngineEvent, InputView, TurnOutcome, attachments, hook_points, media_input, mentions,
    slash_commands,
};

/// One user input: its content and, when the client named it, its id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserInput {
    pub content: Vec<ContentBlock>,
    /// The transcript uuid for the user message (`None`: a fresh one).
    pub uuid: Option<String>,
}

impl Engine {
    /// Handles one user input: a slash command, or a message for the model.
    /// Always ends with exactly one [`EngineEvent::Result`], also returned.
    pub async fn handle_input(&mut self, content: Vec<ContentBlock>) -> TurnOutcome {
        self.handle_user_input(UserInput {
            content,
            uuid: None,
        })
        .await
    }

    /// [`Self::handle_input`] for an input that may carry its own id (a
    /// client's `uuid`): the transcript keeps it for the user message, so
    /// a rewind can name the message.
    pub async fn handle_user_input(&mut self, input: UserInput) -> TurnOutcome {
        let UserInput { content, uuid } = input;
        let started = Instant::now();
        self.api_time_at_input = self.api_time();
        self.new_turn_token();
        if let Some(messages) = self.shared.take_replaced_conversation() {
            // A rewind of the conversation, applied between inputs.
            self.messages = messages;
            self.last_prompt_tokens = 0;
            self.messages_at_last_prompt = 0;
        }
        self.refresh();
        let text = Message {
            role: Role::User,
            content: content.clone(),
        }
        .text();
        let uuid = uuid
            .filter(|u| !u.trim().is_empty())
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        self.shared.emit(EngineEvent::UserMessage {
            uuid: uuid.clone(),
            content: content.clone(),
        });
        for extension in &self.shared.extensions {
            extension.input_started(&InputView {
                uuid: &uuid,
                text: &text,
            });
        }
        self.input_uuid = Some(uuid);
        let outcome = if let Some(command) = slash_commands::parse(&text)
            && command.name == "compact"
        {
            let args = command.args.trim();
            match self.compact((!args.is_empty()).then_some(args)).await {
                Ok(text) => {
                    self.outcome(ResultSubtype::Success, text, 0, Usage::default(), started)
                }
                Err(e) => self.outcome(
                    ResultSubtype::ErrorDuringExecution,
                    e.to_string(),
                    0,
                    Usage::default(),
                    started,
                ),
            }
        } else if let Some(command) = slash_commands::parse(&text) {
            let later = self
                .shared
                .extensions
                .iter()
                .find_map(|e| e.command_later(&command));
            let out = match later {
                Some(answer) => answer.await,
                None => slash_commands::run(self, &command),
            };
            match out {
                slash_commands::CommandOutput::Local { text, is_error } => self.outcome(
                    if is_error {
                        ResultSubtype::ErrorDuringExecution
                    } else {
                        ResultSubtype::Success
                    },
                    text,
                    0,
                    Usage::default(),
                    started,
                ),
                slash_commands::CommandOutput::Shown { text, view } => TurnOutcome {
                    view: Some(view),
                    ..self.outcome(ResultSubtype::Success, text, 0, Usage::default(), started)
                },
                slash_commands::CommandOutput::Query { notice, prompt } => {
                    if let Some(notice) = notice {
                        self.shared.emit(EngineEvent::Notification {
                            key: format!("command-{}", command.name),
                            text: notice,
                        });
                    }
                    self.run_turn(vec![ContentBlock::text(prompt)], started)
                        .await
                }
                slash_commands::CommandOutput::Turn(turn) => {
                    self.run_command_turn(&command.name, turn, started).await
                }
            }
        } else if let Some(why) =
            media_input::refusal(&content, self.client.as_ref(), &self.request_model())
        {
            self.outcome(
                ResultSubtype::ErrorDuringExecution,
                why,
                0,
                Usage::default(),
                started,
            )
        } else {
            match hook_points::before_prompt(self, &text).await {
                hook_points::PromptGate::Send(context) => {
                    let mut content = content;
                    content.extend(
                        context
                            .iter()
                            .map(|c| ContentBlock::text(attachments::wrap(c))),
                    );
                    content.extend(self.read_mentions(&text));
                    self.run_turn(content, started).await
                }
                hook_points::PromptGate::Refused(why) => self.outcome(
                    ResultSubtype::ErrorDuringExecution,
                    why,
                    0,
                    Usage::default(),
                    started,
                ),
            }
        };
        for extension in &self.shared.extensions {
            for notice in extension.input_handled() {
                let (key, text) = (notice.key, notice.text);
                self.shared.emit(if notice.essential {
                    EngineEvent::Advice { key, text }
                } else {
                    EngineEvent::Notification { key, text }
                });
            }
        }
        if let Some(unsaved) = self.shared.recorder.unsaved() {
            // Said after every input while it lasts: what the user typed or
            // the model answered is not on disk yet.
            self.shared.emit(EngineEvent::Notification {
                key: "transcript_unsaved".into(),
                text: unsaved,
            });
        }
        self.input_uuid = None;
        self.shared.emit(EngineEvent::Result(outcome.clone()));
        outcome
    }

    /// A custom command's turn: its allow rules and model hold for this
    /// turn only, and are taken back however it ends.
    async fn run_command_turn(
        &mut self,
        name: &str,
        turn: slash_commands::CommandTurn,
        started: Instant,
    ) -> TurnOutcome {
        use crate::permissions::rules::{
            RuleBehavior, RuleOrigin, RuleSourceKind, SourcedRule, parse_rule_list,
        };
        if let Some(notice) = turn.notice {
            self.shared.emit(EngineEvent::Notification {
                key: format!("command-{name}"),
                text: notice,
            });
        }
        let origin = RuleOrigin {
            kind: RuleSourceKind::Command,
            file: Some(turn.source.clone()),
            root: self
                .shared
                .permissions()
                .working_dirs
                .first()
                .cloned()
                .unwrap_or_default(),
        };
        let mut bad = Vec::new();
        {
            let mut permissions = self.shared.permissions();
            for parsed in turn.allowed_tools.iter().flat_map(|t| parse_rule_list(t)) {
                match parsed {
                    Ok(rule) => permissions.rules.push(
                        RuleBehavior::Allow,
                        SourcedRule {
                            rule,
                            origin: origin.clone(),
                        },
                    ),
                    Err(e) => bad.push(e.to_string()),
                }
            }
        }
        if !bad.is_empty() {
            self.shared.emit(EngineEvent::Notification {
                key: format!("command-{name}"),
                text: format!(
                    "/{name}: allowed-tools entries not understood and not applied: {}",
                    bad.join("; ")
                ),
            });
        }
        let model = turn
            .model
            .filter(|m| !m.trim().is_empty())
            .map(|m| std::mem::replace(&mut self.config.model, m));
        let outcome = self
            .run_turn(vec![ContentBlock::text(turn.prompt)], started)
            .await;
        if let Some(model) = model {
            self.config.model = model;
        }
        self.shared
            .permissions()
            .rules
            .allow
            .retain(|r| r.origin != origin);
        outcome
    }

    /// The files and directories the user's input mentions with `@`
    /// (the main conversation only), each refusal said to the user.
    fn read_mentions(&self, text: &str) -> Vec<ContentBlock> {
        if self.config.agent_id.is_some() {
            return Vec::new();
        }
        let found = mentions::read(text, &self.tool_ctx);
        // Said even without --verbose: the user asked for the file.
        for line in found.refused {
            self.shared.emit(EngineEvent::Advice {
                key: "file-gate".into(),
                text: line,
            });
        }
        found.attached.into_iter().map(ContentBlock::text).collect()
    }
}
