//! The demo's narrated transcript: engine events turned into one readable
//! line each (tool calls, agents, refusals, mode changes), interleaved in
//! order with what the approver says.

use catui_protocol::tool_names;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use catui_core::engine::EngineEvent;
use catui_protocol::attachment::ReminderType;
use catui_protocol::{Attachment, ContentBlock};
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;

/// A message for the narrator from outside the engine.
pub enum Note {
    /// Print this once every earlier engine event is printed, then ack.
    Say(String, oneshot::Sender<()>),
    /// The session is over: print what is left and stop.
    End,
}

/// Lets the approver print in order with the engine's events.
#[derive(Clone)]
pub struct Notes(UnboundedSender<Note>);

impl Notes {
    pub fn channel() -> (Notes, UnboundedReceiver<Note>) {
        let (tx, rx) = unbounded_channel();
        (Notes(tx), rx)
    }

    /// Prints `text` after the events emitted before it; waits until shown.
    pub async fn say(&self, text: String) {
        let (tx, rx) = oneshot::channel();
        if self.0.send(Note::Say(text, tx)).is_ok() {
            let _ = rx.await;
        }
    }

    pub fn end(&self) {
        let _ = self.0.send(Note::End);
    }
}

/// Translates events to lines; paths are shown relative to `project`.
pub struct Narrator {
    project: PathBuf,
    /// Agent tool_use id → "Explore #1" etc.
    agents: HashMap<String, String>,
    agents_started: Option<Instant>,
    agents_running: usize,
    /// Main-agent tool_use id → tool name.
    names: HashMap<String, String>,
}

impl Narrator {
    pub fn new(project: PathBuf) -> Narrator {
        Narrator {
            project,
            agents: HashMap::new(),
            agents_started: None,
            agents_running: 0,
            names: HashMap::new(),
        }
    }

    /// Runs until [`Note::End`]; engine events go first when both wait, so
    /// what the engine did before a prompt is shown before the prompt.
    pub async fn run(
        mut self,
        mut events: UnboundedReceiver<EngineEvent>,
        mut notes: UnboundedReceiver<Note>,
    ) {
        loop {
            tokio::select! {
                biased;
                Some(event) = events.recv() => self.event(event),
                note = notes.recv() => match note {
                    Some(Note::Say(text, done)) => {
                        println!("{text}");
                        let _ = done.send(());
                    }
                    Some(Note::End) | None => {
                        while let Ok(event) = events.try_recv() {
                            self.event(event);
                        }
                        return;
                    }
                },
            }
        }
    }

    fn short_path(&self, path: &str) -> String {
        match std::path::Path::new(path).strip_prefix(&self.project) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.to_string(),
        }
    }

    fn describe_call(&self, name: &str, input: &Value) -> String {
        let s = |k: &str| input[k].as_str().unwrap_or("").to_string();
        let arg = match name {
            tool_names::READ | tool_names::WRITE | tool_names::EDIT => {
                self.short_path(&s("file_path"))
            }
            tool_names::GREP | tool_names::GLOB => s("pattern"),
            tool_names::AGENT => format!("{}: {}", s("subagent_type"), s("description")),
            _ => String::new(),
        };
        format!("{name}({arg})")
    }

    fn event(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::Assistant {
                message,
                parent_tool_use_id,
                ..
            } => {
                let who = parent_tool_use_id.as_ref().map(|p| self.agent_label(p));
                for block in &message.content {
                    match (block, &who) {
                        (ContentBlock::Text { text }, None) if !text.trim().is_empty() => {
                            println!("\n● {}", text.trim().replace('\n', "\n  "));
                        }
                        (ContentBlock::ToolUse { id, name, input }, None) => {
                            if name == tool_names::AGENT {
                                let kind = input["subagent_type"].as_str().unwrap_or("agent");
                                let n = self.agents.len() + 1;
                                self.agents.insert(id.clone(), format!("{kind} #{n}"));
                                if self.agents_running == 0 {
                                    self.agents_started = Some(Instant::now());
                                }
                                self.agents_running += 1;
                            }
                            self.names.insert(id.clone(), name.clone());
                            println!("  ⏺ {}", self.describe_call(name, input));
                        }
                        (ContentBlock::ToolUse { name, input, .. }, Some(who)) => {
                            println!("    ↳ [{who}] {}", self.describe_call(name, input));
                        }
                        _ => {}
                    }
                }
            }
            EngineEvent::User {
                message,
                parent_tool_use_id: None,
                ..
            } => self.results(&message.content),
            EngineEvent::PermissionMode {
                mode,
                pre_plan_mode,
            } => {
                let from = pre_plan_mode.map(|m| format!(" (was {m} before plan mode)"));
                println!("\n[permission mode → {mode}{}]", from.unwrap_or_default());
            }
            EngineEvent::Attachment(attachment) => self.attachment(&attachment),
            EngineEvent::Result(outcome) => {
                println!(
                    "\n[session turn ended: {} model requests, {:.1} s, {} input / {} output tokens]",
                    outcome.num_turns,
                    outcome.duration_ms as f64 / 1000.0,
                    outcome.usage.input_tokens,
                    outcome.usage.output_tokens
                );
            }
            _ => {}
        }
    }

    fn agent_label(&self, tool_use_id: &str) -> String {
        self.agents
            .get(tool_use_id)
            .cloned()
            .unwrap_or_else(|| "agent".into())
    }

    fn results(&mut self, blocks: &[ContentBlock]) {
        let mut finished_agents = 0;
        for block in blocks {
            let ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } = block
            else {
                continue;
            };
            let text = content
                .as_text()
                .replace(&format!("{}/", self.project.display()), "");
            if self
                .names
                .get(tool_use_id)
                .is_some_and(|n| n == tool_names::READ)
                && !is_error
            {
                println!("    ⎿ read {} lines", text.lines().count());
            } else if *is_error {
                println!("    ✗ refused: {}", first_line(&text, 140));
            } else if let Some(label) = self.agents.get(tool_use_id) {
                finished_agents += 1;
                println!("    ⎿ {label} done: {}", first_line(&text, 100));
            } else {
                println!("    ⎿ {}", first_line(&text, 100));
            }
        }
        if finished_agents > 1
            && let Some(started) = self.agents_started.take()
        {
            println!(
                "    ({finished_agents} agents ran side by side: {:.1} s in all, each making two {} ms model calls)",
                started.elapsed().as_secs_f64(),
                super::script::EXPLORE_LATENCY.as_millis()
            );
        }
        if finished_agents > 0 {
            self.agents_running = self.agents_running.saturating_sub(finished_agents);
            if self.agents_running == 0 {
                self.agents_started = None;
            }
        }
    }

    fn attachment(&self, attachment: &Attachment) {
        match attachment {
            Attachment::PlanMode {
                reminder_type,
                is_sub_agent: false,
                ..
            } => {
                let kind = match reminder_type {
                    ReminderType::Full => "full",
                    ReminderType::Sparse => "short",
                };
                println!(
                    "[plan-mode reminder ({kind}) sent with the request: read-only, except the plan file]"
                );
            }
            Attachment::PlanModeExit { .. } => {
                println!("[the model is told plan mode ended and edits are allowed]");
            }
            _ => {}
        }
    }
}

/// The first line of `text`, cut to `max` characters.
fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if line.chars().count() > max {
        let cut: String = line.chars().take(max).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}
