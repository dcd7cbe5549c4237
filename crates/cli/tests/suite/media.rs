//! Images and documents reach the model, through the real binary: Read of
//! a PNG gives an image block in the tool result on the Anthropic wire and
//! an `image_url` part right after the tool message on the OpenAI one; a
//! PDF is a document block on Anthropic and described where the provider
//! takes no documents; a stream-json user message may carry an image; a
//! model without vision (settings `vision: false`) gets no image: a user
//! message with one, or with a PDF for a provider without documents, is
//! refused with a clear error and nothing is sent. A PDF's pages come as
//! text where the provider takes no documents, and a page range
//! (`pages: "2-3"`) gives those pages' text on any provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{MockServer, Script, Turn};
use common::{Sandbox, StreamSession, output_within};
use serde_json::{Value, json};

/// A 1x1 PNG.
pub(super) const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0xd, 0xa, 0x1a, 0xa, 0x0, 0x0, 0x0, 0xd, 0x49, 0x48, 0x44, 0x52, 0x0,
    0x0, 0x0, 0x1, 0x0, 0x0, 0x0, 0x1, 0x8, 0x6, 0x0, 0x0, 0x0, 0x1f, 0x15, 0xc4, 0x89, 0x0, 0x0,
    0x0, 0xd, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0xf8, 0xcf, 0x50, 0xf, 0x0, 0x3,
    0x86, 0x1, 0x80, 0x5a, 0x34, 0x7d, 0x6b, 0x0, 0x0, 0x0, 0x0, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];
/// The same PNG as the base64 the wire carries.
pub(super) const PNG_B64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const PDF: &[u8] = b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n";

fn read_twice(sb: &Sandbox, server: &MockServer, openai: bool) {
    let mut cmd = if openai {
        sb.catui_openai(server)
    } else {
        sb.catui(server)
    };
    cmd.args([
        "-p",
        "look at them",
        "--settings",
        r#"{"completionCheck":"off"}"#,
    ]);
    let out = output_within(cmd, b"", 60);
    common::assert_ok(&out);
}

fn script() -> Script {
    Script::new()
        .turn(common::read("i1", "shot.png"))
        .turn(common::read("d1", "spec.pdf"))
        .turn(Turn::text("seen"))
}

fn project() -> Sandbox {
    let sb = Sandbox::new();
    std::fs::write(sb.project().join("shot.png"), PNG).unwrap();
    std::fs::write(sb.project().join("spec.pdf"), PDF).unwrap();
    sb
}

#[test]
fn anthropic_gets_an_image_block_and_a_document_block() {
    let sb = project();
    let server = common::mock(script());
    read_twice(&sb, &server, false);
    let reqs = server.requests();
    let find = |r: &catui_testkit::RecordedRequest, id: &str| -> Value {
        r.messages()
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == id)
            .unwrap()
    };
    let image = find(&reqs[1], "i1");
    let blocks = image["content"].as_array().unwrap();
    assert!(
        blocks[0]["text"].as_str().unwrap().contains("1x1 pixels"),
        "{image}"
    );
    assert_eq!(blocks[1]["type"], "image", "{image}");
    assert_eq!(blocks[1]["source"]["media_type"], "image/png");
    assert_eq!(blocks[1]["source"]["data"], PNG_B64);
    let doc = find(&reqs[2], "d1");
    let blocks = doc["content"].as_array().unwrap();
    assert_eq!(blocks[1]["type"], "document", "{doc}");
    assert_eq!(blocks[1]["source"]["media_type"], "application/pdf");
    assert!(!blocks[1]["source"]["data"].as_str().unwrap().is_empty());
}

#[test]
fn openai_gets_the_image_after_the_tool_message_and_a_pdf_description() {
    let sb = project();
    let server = common::mock(script());
    read_twice(&sb, &server, true);
    let reqs = server.requests();
    let messages = reqs[1].messages();
    let tool_at = messages
        .iter()
        .position(|m| m["role"] == "tool" && m["tool_call_id"] == "i1")
        .unwrap();
    let tool_text = messages[tool_at]["content"].as_str().unwrap();
    common::assert_contains(tool_text, "1x1 pixels");
    let next = &messages[tool_at + 1];
    assert_eq!(next["role"], "user", "{next}");
    let url = next["content"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|p| p["image_url"]["url"].as_str())
        .unwrap();
    assert_eq!(url, format!("data:image/png;base64,{PNG_B64}"));
    // No documents on this provider: the PDF is described, with advice.
    let (pdf, _) = common::result_of(&reqs[2], "d1");
    common::assert_contains(&pdf, "a PDF document");
    common::assert_contains(&pdf, "pdftotext");
}

#[test]
fn a_stream_json_user_message_may_carry_an_image() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("a dot")));
    let mut s = sb.stream(&server, &[]);
    s.send(json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "what is this?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}
    ]}}));
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    let first = &server.requests()[0];
    let content = first.messages()[0]["content"].as_array().unwrap().clone();
    let image = content.iter().find(|b| b["type"] == "image").unwrap();
    assert_eq!(image["source"]["data"], PNG_B64);
}

#[test]
fn a_model_without_vision_is_refused_an_image_and_read_says_why() {
    let sb = project();
    sb.user_settings(r#"{"models": {"text-model": {"vision": false}}}"#);
    let server = common::mock(
        Script::new()
            .turn(common::read("i1", "shot.png"))
            .turn(Turn::text("described")),
    );
    let mut s = sb.stream(&server, &["--model", "text-model"]);
    s.send(json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "what is this?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}
    ]}}));
    let refused = s.wait_type("result");
    assert_eq!(refused["is_error"], true, "{refused}");
    let why = refused["result"].as_str().unwrap();
    common::assert_contains(why, "text-model takes no images");
    common::assert_contains(why, "not sent");
    assert!(server.requests().is_empty(), "nothing may reach the model");
    // The next input goes through; Read describes the image and says why.
    s.send(json!({"type": "user", "message": {"role": "user", "content": "look at shot.png"}}));
    let done = s.wait_for("second result", |v| {
        v["type"] == "result" && v["result"] == "described"
    });
    assert_eq!(done["is_error"], false, "{done}");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    let reqs = server.requests();
    let (text, _) = common::result_of(&reqs[1], "i1");
    common::assert_contains(&text, "1x1 pixels");
    common::assert_contains(&text, "takes no images");
    let sent = serde_json::to_string(&reqs[1].body).unwrap();
    assert!(
        !sent.contains(PNG_B64),
        "no image bytes may be sent: {sent}"
    );
}

#[test]
fn a_pdf_in_a_user_message_is_refused_where_the_provider_takes_no_documents() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("unused")));
    let mut s = StreamSession::start(sb.catui_openai(&server), &[]);
    s.send(json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "summarise"},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"}}
    ]}}));
    let refused = s.wait_type("result");
    assert_eq!(refused["is_error"], true, "{refused}");
    let why = refused["result"].as_str().unwrap();
    common::assert_contains(why, "takes no PDF documents");
    // The session's last input failed, so its exit status says so.
    let (code, _) = s.finish();
    assert_eq!(code, 1);
    assert!(server.requests().is_empty(), "nothing may reach the model");
}

/// A PDF of `pages`, each showing one line of text (uncompressed streams).
fn text_pdf(pages: &[&str]) -> Vec<u8> {
    let n = pages.len();
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 3 + 2 * i)).collect();
    let mut pdf = format!(
        "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [{}] /Count {n} >> endobj\n",
        kids.join(" ")
    );
    for (i, text) in pages.iter().enumerate() {
        let page = 3 + 2 * i;
        let content = format!("BT /F1 12 Tf 72 700 Td ({text}) Tj ET");
        pdf.push_str(&format!(
            "{page} 0 obj << /Type /Page /Parent 2 0 R /Contents {} 0 R >> endobj\n{} 0 obj << /Length {} >>\nstream\n{content}\nendstream\nendobj\n",
            page + 1,
            page + 1,
            content.len()
        ));
    }
    pdf.push_str("trailer << /Root 1 0 R >>\n%%EOF\n");
    pdf.into_bytes()
}

#[test]
fn a_pdf_is_text_without_documents_and_a_page_range_is_those_pages() {
    let sb = Sandbox::new();
    std::fs::write(
        sb.project().join("manual.pdf"),
        text_pdf(&[
            "Chapter one: install",
            "Chapter two: configure",
            "Chapter three: run",
        ]),
    )
    .unwrap();
    let script = || {
        Script::new()
            .turn(common::read("p1", "manual.pdf"))
            .turn(Turn::tool_use(
                "p2",
                "Read",
                json!({"file_path": "manual.pdf", "pages": "2-3"}),
            ))
            .turn(Turn::tool_use(
                "p3",
                "Read",
                json!({"file_path": "manual.pdf", "pages": "9"}),
            ))
            .turn(Turn::text("read"))
    };
    // OpenAI: no documents, so the whole text; the range gives two pages.
    let server = common::mock(script());
    read_twice(&sb, &server, true);
    let reqs = server.requests();
    let (all, is_error) = common::result_of(&reqs[1], "p1");
    assert!(!is_error, "{all}");
    common::assert_contains(&all, "3 pages");
    common::assert_contains(&all, "takes no documents");
    for line in [
        "Chapter one: install",
        "Chapter two: configure",
        "Chapter three: run",
    ] {
        common::assert_contains(&all, line);
    }
    let (range, _) = common::result_of(&reqs[2], "p2");
    common::assert_contains(&range, "--- page 2 ---\nChapter two: configure");
    common::assert_contains(&range, "Chapter three: run");
    common::assert_lacks(&range, "Chapter one");
    // The OpenAI wire has no error flag: the text says it.
    let (past, _) = common::result_of(&reqs[3], "p3");
    assert!(past.starts_with("Error:"), "{past}");
    common::assert_contains(&past, "manual.pdf");
    common::assert_contains(&past, "has 3 pages, so page 9 is past its end");

    // Anthropic: the whole file is a document; a range is those pages' text.
    let server = common::mock(script());
    read_twice(&sb, &server, false);
    let reqs = server.requests();
    let whole = serde_json::to_string(&reqs[1].body).unwrap();
    common::assert_contains(&whole, "\"type\":\"document\"");
    let (range, _) = common::result_of(&reqs[2], "p2");
    common::assert_contains(&range, "a page range comes as text");
    common::assert_contains(&range, "Chapter two: configure");
    common::assert_lacks(&range, "Chapter one");
    assert!(
        !serde_json::to_string(&reqs[2].messages().last().unwrap())
            .unwrap()
            .contains("\"type\":\"document\""),
        "a range sends no document"
    );
}
