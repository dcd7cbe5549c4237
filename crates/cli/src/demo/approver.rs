//! Who answers the demo's permission prompts: the script (`--print`: keep
//! planning with feedback at the first plan, then approve with auto-accept
//! edits) or the person at the keyboard (the interactive demo).

use std::sync::atomic::{AtomicU32, Ordering};

use async_trait::async_trait;
use catui_core::engine::{Approver, PermissionAnswer, PermissionRequest};
use serde_json::{Value, json};

use super::narrate::Notes;
use super::script::FEEDBACK;

/// How the demo's prompts are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    Scripted,
    Keyboard,
}

pub struct DemoApprover {
    answers: Answers,
    notes: Notes,
    presentations: AtomicU32,
}

impl DemoApprover {
    pub fn new(answers: Answers, notes: Notes) -> DemoApprover {
        DemoApprover {
            answers,
            notes,
            presentations: AtomicU32::new(0),
        }
    }

    async fn plan_choice(&self, request: &PermissionRequest) -> PermissionAnswer {
        let n = self.presentations.fetch_add(1, Ordering::Relaxed) + 1;
        let input = &request.input;
        let mut text = format!(
            "\n━━ The plan is ready for approval (presentation {n}) ━━\nPlan file: {}\n",
            input["planFilePath"].as_str().unwrap_or("?")
        );
        match input["planDiff"].as_str() {
            Some(diff) => {
                text.push_str("Changes since the rejected version:\n");
                for line in diff.lines() {
                    text.push_str(&format!("  │ {line}\n"));
                }
            }
            None => {
                for line in input["plan"].as_str().unwrap_or("").lines() {
                    text.push_str(&format!("  │ {line}\n"));
                }
            }
        }
        text.push_str(
            "Would you like to proceed?\n  1. Yes, and auto-accept edits\n  2. Yes, and manually approve edits\n  3. No, keep planning",
        );
        self.notes.say(text).await;
        let choice = match self.answers {
            Answers::Scripted => {
                let (pick, feedback) = if n == 1 {
                    ("3", FEEDBACK.to_string())
                } else {
                    ("1", String::new())
                };
                self.notes
                    .say(format!("▸ demo script picks {pick}{}", quoted(&feedback)))
                    .await;
                (pick.to_string(), feedback)
            }
            Answers::Keyboard => {
                let pick = ask_line("Your choice [1/2/3]: ").await;
                let feedback = if pick.trim() == "3" {
                    let f = ask_line(&format!("What should change? [{FEEDBACK}]: ")).await;
                    if f.trim().is_empty() {
                        FEEDBACK.to_string()
                    } else {
                        f.trim().to_string()
                    }
                } else {
                    String::new()
                };
                (pick.trim().to_string(), feedback)
            }
        };
        match choice.0.as_str() {
            "3" => PermissionAnswer::Deny { message: choice.1 },
            "2" => approve(input, "default"),
            // Enter alone (or anything else) takes the first, default option.
            _ => approve(input, "acceptEdits"),
        }
    }
}

fn quoted(feedback: &str) -> String {
    if feedback.is_empty() {
        String::new()
    } else {
        format!(" with feedback: \"{feedback}\"")
    }
}

fn approve(input: &Value, mode: &str) -> PermissionAnswer {
    let mut updated = input.clone();
    if let Value::Object(map) = &mut updated {
        map.insert("mode".into(), json!(mode));
    }
    PermissionAnswer::Allow {
        updated_input: Some(updated),
        updated_permissions: None,
    }
}

/// Reads one line from the terminal without blocking the runtime.
async fn ask_line(prompt: &str) -> String {
    use std::io::Write;
    print!("{prompt}");
    let _ = std::io::stdout().flush();
    tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
        line
    })
    .await
    .unwrap_or_default()
}

#[async_trait]
impl Approver for DemoApprover {
    async fn ask(&self, request: PermissionRequest) -> PermissionAnswer {
        if request.tool_name == "ExitPlanMode" {
            return self.plan_choice(&request).await;
        }
        let what = format!(
            "permission needed for {}: {}",
            request.tool_name, request.reason
        );
        match self.answers {
            Answers::Scripted => {
                self.notes
                    .say(format!("▸ {what} — allowed by the demo script"))
                    .await;
                PermissionAnswer::Allow {
                    updated_input: None,
                    updated_permissions: None,
                }
            }
            Answers::Keyboard => {
                self.notes.say(format!("▸ {what}")).await;
                let answer = ask_line("Allow? [Y/n]: ").await;
                if answer.trim().eq_ignore_ascii_case("n") {
                    PermissionAnswer::Deny {
                        message: String::new(),
                    }
                } else {
                    PermissionAnswer::Allow {
                        updated_input: None,
                        updated_permissions: None,
                    }
                }
            }
        }
    }
}
