//! Plan-mode context cost: the reminder text that plan-mode
//! attachments inject over N human turns with the real cadence (a full
//! reminder, then short ones every few turns, a full one again later)
//! against a full reminder on every turn. Uses the same decision and
//! rendering functions as the engine. Tokens are estimated as chars / 4.
//!
//! `cargo run -p catui-core --example plan_context_cost -- [TURNS]`
//! prints one markdown table (used by bench/run.sh).

use std::path::PathBuf;

use catui_core::plan::engine_hooks::attachments::wrap_system_reminder;
use catui_core::plan::{
    PlanAttachmentInput, PlanModeConfig, PlanState, PromptOptions, plan_attachments,
    render_attachment,
};
use catui_protocol::attachment::ReminderType;
use catui_protocol::{Attachment, ContentBlock, Message, PermissionMode, Role};

fn main() {
    let turns: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(30);
    let path = PathBuf::from("/home/user/.catui/plans/brisk-cedar-otter.md");
    let config = PlanModeConfig::default();
    let options = PromptOptions::new(path.to_string_lossy(), false, false, &config);
    let state = PlanState::new();
    let mut messages: Vec<Message> = Vec::new();
    let (mut cadence_chars, mut full, mut sparse) = (0usize, 0usize, 0usize);
    for i in 0..turns {
        messages.push(Message::user_text(format!("human turn {i}")));
        let input = PlanAttachmentInput {
            messages: &messages,
            meta_message_indices: &[],
            mode: PermissionMode::Plan,
            is_sub_agent: false,
            plan_file_path: &path,
            plan_exists: false,
        };
        for a in plan_attachments(&input, &state) {
            if let Attachment::PlanMode { reminder_type, .. } = &a {
                match reminder_type {
                    ReminderType::Full => full += 1,
                    ReminderType::Sparse => sparse += 1,
                }
            }
            let text = wrap_system_reminder(&render_attachment(&a, &options));
            cadence_chars += text.chars().count();
            if let Some(last) = messages.last_mut() {
                last.content.push(ContentBlock::text(text));
            }
        }
        messages.push(Message {
            role: Role::Assistant,
            content: vec![ContentBlock::text(format!("answer {i}"))],
        });
    }
    let full_one = wrap_system_reminder(&render_attachment(
        &Attachment::PlanMode {
            reminder_type: ReminderType::Full,
            is_sub_agent: false,
            plan_file_path: path.to_string_lossy().into_owned(),
            plan_exists: false,
        },
        &options,
    ))
    .chars()
    .count();
    let sparse_one = wrap_system_reminder(&render_attachment(
        &Attachment::PlanMode {
            reminder_type: ReminderType::Sparse,
            is_sub_agent: false,
            plan_file_path: path.to_string_lossy().into_owned(),
            plan_exists: false,
        },
        &options,
    ))
    .chars()
    .count();
    let every_turn = full_one * turns;
    let tok = |c: usize| c.div_ceil(4);
    println!("| strategy | reminders sent | characters | tokens (chars/4) |");
    println!("| --- | --- | ---: | ---: |");
    println!(
        "| catui cadence | {full} full + {sparse} short | {cadence_chars} | {} |",
        tok(cadence_chars)
    );
    println!(
        "| full reminder every turn | {turns} full | {every_turn} | {} |",
        tok(every_turn)
    );
    println!();
    println!(
        "One full reminder: {full_one} chars (~{} tokens); one short reminder: {sparse_one} chars (~{} tokens). \
         Over {turns} human turns the cadence injects {:.1}% of the every-turn cost.",
        tok(full_one),
        tok(sparse_one),
        100.0 * cadence_chars as f64 / every_turn.max(1) as f64
    );
}
