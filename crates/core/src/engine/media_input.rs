//! What a user message may carry besides text for the session's model:
//! images need a model that sees them (settings `models.NAME.vision`), PDF
//! documents need the Anthropic wire format. A message the model cannot
//! take is refused with a clear reason before any request, never sent with
//! its image or document quietly dropped.

use catui_protocol::ContentBlock;
use catui_providers::{ModelClient, ProviderKind};

/// Why `content` cannot go to `model` through `client`, if it cannot.
pub(super) fn refusal(
    content: &[ContentBlock],
    client: &dyn ModelClient,
    model: &str,
) -> Option<String> {
    let images = content
        .iter()
        .filter(|b| matches!(b, ContentBlock::Image { .. }))
        .count();
    let documents = content
        .iter()
        .filter(|b| matches!(b, ContentBlock::Document { .. }))
        .count();
    if images > 0 && client.model_info(model).text_only {
        return Some(format!(
            "{model} takes no images (settings `models` gives it `\"vision\": false`), so this \
             message was not sent. Send it without the image{}, or switch to a model that can \
             see images.",
            if images == 1 { "" } else { "s" }
        ));
    }
    if documents > 0 && client.kind() != ProviderKind::Anthropic {
        return Some(format!(
            "This provider ({}) takes no PDF documents, so this message was not sent. Send it \
             without the document, or give the PDF's path and let the model extract its text.",
            client.kind()
        ));
    }
    None
}
