//! The Messages API request body as borrowed, typed wire structures: a
//! request is serialized straight from the conversation, without copying
//! it into a `serde_json::Value` tree first (long sessions send many MiB
//! per request). Field order is fixed, so the bytes of a conversation that
//! only grows keep their prefix, which prompt caching relies on.

use catui_protocol::{ContentBlock, Message, ModelRequest, Role, ToolChoice, ToolResultContent};
use serde::{Serialize, Serializer};
use serde_json::Value;

/// `{"type": "ephemeral"}`: the prompt-caching breakpoint.
#[derive(Debug, Clone, Copy, Serialize)]
struct Ephemeral {
    #[serde(rename = "type")]
    kind: &'static str,
}

const EPHEMERAL: Ephemeral = Ephemeral { kind: "ephemeral" };

#[derive(Serialize)]
pub(crate) struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<[SystemText<'a>; 1]>,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<WireToolChoice<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<Value>,
    stream: bool,
}

#[derive(Serialize)]
struct SystemText<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    cache_control: Ephemeral,
}

#[derive(Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    content: Vec<WireBlock<'a>>,
}

#[derive(Serialize)]
struct WireBlock<'a> {
    #[serde(flatten)]
    kind: BlockKind<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<Ephemeral>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockKind<'a> {
    Text {
        text: &'a str,
    },
    Thinking {
        thinking: &'a str,
        signature: &'a str,
    },
    RedactedThinking {
        data: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: ObjectOrEmpty<'a>,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: ResultContent<'a>,
        #[serde(skip_serializing_if = "is_false")]
        is_error: bool,
    },
    Image {
        source: &'a Value,
    },
    Document {
        source: &'a Value,
    },
}

// serde hands `skip_serializing_if` a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_false(b: &bool) -> bool {
    !*b
}

/// A tool input as the API needs it: malformed model JSON is stored as a
/// string, and goes out as an empty object.
struct ObjectOrEmpty<'a>(&'a Value);

impl Serialize for ObjectOrEmpty<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_object() {
            self.0.serialize(s)
        } else {
            serde_json::Map::new().serialize(s)
        }
    }
}

#[derive(Serialize)]
#[serde(untagged)]
enum ResultContent<'a> {
    Text(&'a str),
    Blocks(Vec<WireBlock<'a>>),
}

#[derive(Serialize)]
struct WireTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<Ephemeral>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireToolChoice<'a> {
    Auto,
    Any,
    Tool { name: &'a str },
}

/// The body for `request` (see [`super::request_body`] for what
/// goes in it). `thinking` is the request's thinking parameter, if it
/// thinks; `output_config` its effort.
pub(crate) fn body<'a>(
    request: &'a ModelRequest,
    thinking: Option<Value>,
    output_config: Option<Value>,
) -> Body<'a> {
    let keep_thinking = thinking.is_some();
    let mut messages: Vec<WireMessage<'a>> = request
        .messages
        .iter()
        .filter_map(|m| message(m, keep_thinking))
        .collect();
    if let Some(last) = messages.last_mut() {
        let cacheable = last.content.iter_mut().rev().find(|b| {
            !matches!(
                b.kind,
                BlockKind::Thinking { .. } | BlockKind::RedactedThinking { .. }
            )
        });
        if let Some(block) = cacheable {
            block.cache_control = Some(EPHEMERAL);
        }
    }
    let mut tools: Vec<WireTool<'a>> = request
        .tools
        .iter()
        .map(|t| WireTool {
            name: &t.name,
            description: &t.description,
            input_schema: &t.input_schema,
            cache_control: None,
        })
        .collect();
    if let Some(last) = tools.last_mut() {
        last.cache_control = Some(EPHEMERAL);
    }
    let tool_choice = (!tools.is_empty()).then(|| match &request.tool_choice {
        ToolChoice::Auto => WireToolChoice::Auto,
        ToolChoice::Any => WireToolChoice::Any,
        ToolChoice::Tool { name } => WireToolChoice::Tool { name },
    });
    Body {
        model: &request.model,
        max_tokens: request.max_tokens,
        system: (!request.system.is_empty()).then(|| {
            [SystemText {
                kind: "text",
                text: &request.system,
                cache_control: EPHEMERAL,
            }]
        }),
        messages,
        tools,
        tool_choice,
        // Thinking works only at the default temperature.
        temperature: if keep_thinking {
            None
        } else {
            request.temperature
        },
        thinking,
        output_config,
        stream: true,
    }
}

/// One wire message; `None` when nothing in it can be sent.
fn message(m: &Message, keep_thinking: bool) -> Option<WireMessage<'_>> {
    let content: Vec<WireBlock<'_>> = m
        .content
        .iter()
        .filter(|b| {
            keep_thinking
                || !matches!(
                    b,
                    ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. }
                )
        })
        .filter_map(block)
        .collect();
    if content.is_empty() {
        return None;
    }
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    Some(WireMessage { role, content })
}

fn block(b: &ContentBlock) -> Option<WireBlock<'_>> {
    let kind = match b {
        // The API rejects empty text blocks.
        ContentBlock::Text { text } if text.is_empty() => return None,
        ContentBlock::Text { text } => BlockKind::Text { text },
        // Thinking goes back unchanged; without a signature (e.g. reasoning
        // from another provider) the API would reject it.
        ContentBlock::Thinking { signature, .. } if signature.is_empty() => return None,
        ContentBlock::Thinking {
            thinking,
            signature,
        } => BlockKind::Thinking {
            thinking,
            signature,
        },
        ContentBlock::RedactedThinking { data } => BlockKind::RedactedThinking { data },
        // OpenAI reasoning cannot be read here.
        ContentBlock::Reasoning { .. } => return None,
        ContentBlock::ToolUse { id, name, input } => BlockKind::ToolUse {
            id,
            name,
            input: ObjectOrEmpty(input),
        },
        ContentBlock::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => BlockKind::ToolResult {
            tool_use_id,
            content: match content {
                ToolResultContent::Text(t) => ResultContent::Text(t),
                ToolResultContent::Blocks(blocks) => {
                    ResultContent::Blocks(blocks.iter().filter_map(block).collect())
                }
            },
            is_error: *is_error,
        },
        ContentBlock::Image { source } => BlockKind::Image { source },
        ContentBlock::Document { source } => BlockKind::Document { source },
    };
    Some(WireBlock {
        kind,
        cache_control: None,
    })
}
