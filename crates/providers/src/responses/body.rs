//! The Responses API request body for a [`ModelRequest`]: instructions,
//! input items (messages, function calls and their outputs, reasoning
//! items), tools, reasoning options.

use catui_protocol::{
    ContentBlock, Effort, Message, ModelRequest, Role, ToolChoice, ToolResultContent,
};
use serde_json::{Map, Value, json};

use crate::openai::{image_url, result_text};

/// The body for `request`, streamed, stored nowhere.
pub fn request_body(request: &ModelRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    if !request.system.is_empty() {
        body.insert("instructions".into(), json!(request.system));
    }
    let mut input = Vec::new();
    for m in &request.messages {
        match m.role {
            Role::User => user_items(m, &mut input),
            Role::Assistant => assistant_items(m, &mut input),
        }
    }
    body.insert("input".into(), Value::Array(input));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                // Not `strict`: catui's schemas have optional properties,
                // which strict mode does not allow.
                json!({"type": "function", "name": t.name, "description": t.description,
                       "parameters": t.input_schema, "strict": false})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert(
            "tool_choice".into(),
            match &request.tool_choice {
                ToolChoice::Auto => json!("auto"),
                ToolChoice::Any => json!("required"),
                ToolChoice::Tool { name } => json!({"type": "function", "name": name}),
            },
        );
        body.insert("parallel_tool_calls".into(), json!(true));
    }
    let reasoning = &request.reasoning;
    if reasoning.effort.is_some() || reasoning.summaries {
        let mut r = Map::new();
        if let Some(effort) = reasoning.effort {
            r.insert("effort".into(), json!(effort_value(effort)));
        }
        if reasoning.summaries {
            r.insert("summary".into(), json!("auto"));
        }
        body.insert("reasoning".into(), Value::Object(r));
        body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    }
    body.insert("max_output_tokens".into(), json!(request.max_tokens));
    if let Some(t) = request.temperature {
        body.insert("temperature".into(), json!(t));
    }
    body.insert("store".into(), json!(false));
    body.insert("stream".into(), json!(true));
    Value::Object(body)
}

/// OpenAI's effort scale tops out at `xhigh`.
pub(crate) fn effort_value(effort: Effort) -> &'static str {
    match effort {
        Effort::Max => "xhigh",
        other => other.as_str(),
    }
}

/// A user message: outputs of the function calls it answers first (they
/// must follow their calls), then its text and images as one message.
fn user_items(m: &Message, out: &mut Vec<Value>) {
    let mut parts = Vec::new();
    for b in &m.content {
        match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                out.push(call_output(tool_use_id, content, *is_error));
                // Images of a result follow in the user message.
                let images = crate::openai::result_images(content);
                if !images.is_empty() {
                    parts.push(json!({"type": "input_text",
                        "text": format!("The image returned by tool call {tool_use_id}:")}));
                    for image in images {
                        parts.push(json!({"type": "input_image",
                            "image_url": image["image_url"]["url"]}));
                    }
                }
            }
            ContentBlock::Text { text } if !text.is_empty() => {
                parts.push(json!({"type": "input_text", "text": text}))
            }
            ContentBlock::Image { source } => {
                if let Some(url) = image_url(source) {
                    parts.push(json!({"type": "input_image", "image_url": url}));
                }
            }
            _ => {}
        }
    }
    if !parts.is_empty() {
        out.push(json!({"type": "message", "role": "user", "content": parts}));
    }
}

fn call_output(call_id: &str, content: &ToolResultContent, is_error: bool) -> Value {
    let text = result_text(content);
    // The API has no error flag for outputs; say it in the text.
    let text = if is_error {
        format!("Error: {text}")
    } else {
        text
    };
    json!({"type": "function_call_output", "call_id": call_id, "output": text})
}

/// An assistant message, item by item in its own order: reasoning (only
/// with its encrypted content: without a stored conversation the API can
/// resolve nothing else), text, function calls. Anthropic thinking has no
/// place here and is left out.
fn assistant_items(m: &Message, out: &mut Vec<Value>) {
    let mut text = String::new();
    let flush = |text: &mut String, out: &mut Vec<Value>| {
        if !text.is_empty() {
            out.push(json!({"type": "message", "role": "assistant",
                            "content": [{"type": "output_text", "text": std::mem::take(text)}]}));
        }
    };
    for b in &m.content {
        match b {
            ContentBlock::Text { text: t } => text.push_str(t),
            ContentBlock::Reasoning {
                summary,
                encrypted_content: Some(encrypted),
                ..
            } => {
                flush(&mut text, out);
                let summary: Vec<Value> = if summary.is_empty() {
                    Vec::new()
                } else {
                    vec![json!({"type": "summary_text", "text": summary})]
                };
                out.push(json!({"type": "reasoning", "summary": summary,
                                "encrypted_content": encrypted}));
            }
            ContentBlock::ToolUse { id, name, input } => {
                flush(&mut text, out);
                // Malformed model JSON is stored as a string; send it back as
                // the model wrote it.
                let arguments = match input {
                    Value::String(raw) => raw.clone(),
                    other => other.to_string(),
                };
                out.push(json!({"type": "function_call", "call_id": id, "name": name,
                                "arguments": arguments}));
            }
            _ => {}
        }
    }
    flush(&mut text, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use catui_protocol::{Reasoning, ToolSpec};

    fn request(messages: Vec<Message>) -> ModelRequest {
        ModelRequest {
            model: "gpt-5-codex".into(),
            system: "Be brief.".into(),
            messages,
            tools: vec![ToolSpec {
                name: "Read".into(),
                description: "Reads".into(),
                input_schema: json!({"type": "object"}),
            }],
            tool_choice: ToolChoice::Auto,
            max_tokens: 1000,
            temperature: None,
            reasoning: Reasoning::default(),
        }
    }

    #[test]
    fn a_tool_loop_becomes_items_in_order() {
        let assistant = Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Reasoning {
                    id: "rs_1".into(),
                    summary: "look first".into(),
                    encrypted_content: Some("enc-1".into()),
                },
                ContentBlock::Thinking {
                    thinking: "anthropic only".into(),
                    signature: "sig".into(),
                },
                ContentBlock::Reasoning {
                    id: "rs_2".into(),
                    summary: String::new(),
                    encrypted_content: None,
                },
                ContentBlock::text("Reading."),
                ContentBlock::ToolUse {
                    id: "call_1".into(),
                    name: "Read".into(),
                    input: json!({"file_path": "a"}),
                },
                ContentBlock::ToolUse {
                    id: "call_2".into(),
                    name: "Read".into(),
                    input: Value::String("{bad".into()),
                },
            ],
        };
        let results = Message {
            role: Role::User,
            content: vec![
                ContentBlock::tool_result("call_1", "contents", false),
                ContentBlock::tool_result("call_2", "bad json", true),
                ContentBlock::text("<system-reminder>x</system-reminder>"),
            ],
        };
        let body = request_body(&request(vec![
            Message::user_text("read a"),
            assistant,
            results,
        ]));
        assert_eq!(body["instructions"], "Be brief.");
        assert_eq!(body["store"], false);
        assert_eq!(
            body["input"],
            json!([
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "read a"}]},
                {"type": "reasoning", "summary": [{"type": "summary_text", "text": "look first"}], "encrypted_content": "enc-1"},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Reading."}]},
                {"type": "function_call", "call_id": "call_1", "name": "Read", "arguments": "{\"file_path\":\"a\"}"},
                {"type": "function_call", "call_id": "call_2", "name": "Read", "arguments": "{bad"},
                {"type": "function_call_output", "call_id": "call_1", "output": "contents"},
                {"type": "function_call_output", "call_id": "call_2", "output": "Error: bad json"},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<system-reminder>x</system-reminder>"}]}
            ])
        );
        assert_eq!(
            body["tools"][0],
            json!({"type": "function", "name": "Read", "description": "Reads",
                   "parameters": {"type": "object"}, "strict": false})
        );
        assert!(body.get("reasoning").is_none());
        assert!(body.get("include").is_none());
    }

    #[test]
    fn reasoning_options_ask_for_encrypted_reasoning() {
        let mut r = request(vec![Message::user_text("hi")]);
        r.reasoning = Reasoning {
            effort: Some(Effort::Max),
            summaries: true,
            ..Default::default()
        };
        r.tool_choice = ToolChoice::Tool {
            name: "Read".into(),
        };
        let body = request_body(&r);
        assert_eq!(
            body["reasoning"],
            json!({"effort": "xhigh", "summary": "auto"})
        );
        assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
        assert_eq!(
            body["tool_choice"],
            json!({"type": "function", "name": "Read"})
        );
        assert_eq!(body["max_output_tokens"], 1000);
    }
}
