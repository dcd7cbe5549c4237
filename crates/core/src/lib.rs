//! catui's agent.
//!
//! - [`engine`] — the conversation loop — one engine driven by inputs, emitting
//!   [`engine::EngineEvent`]s that the TUI and headless front ends translate.
//! - [`tools`] — one file per tool behind the one [`tools::Tool`] trait.
//! - [`permissions`] — modes, rules and the single decision function every
//!   tool call goes through; read-only shell analysis; OS confinement.
//! - [`plan`] — plan mode — plan files, transitions, Enter/ExitPlanMode,
//!   attachments, workflow prompts.
//! - [`agents`] — sub-agents.
//! - [`output`] — structured output: a final answer that matches a JSON
//!   schema (`--json-schema`).
//! - [`teams`] — teammates, mailboxes and plan approval by the team lead.
//! - [`session`] — transcripts, resume, fork.
//! - [`checkpoints`] — the project's files before each change, and rewind
//!   (code, conversation, back to an approved plan).
//! - [`settings`] — layered `settings.json`.
//! - [`hooks`] — the hook engine (settings command hooks and SDK callbacks).
//! - [`prompt`] — the system prompt and memory files.
//! - [`skills`] — skills (`SKILL.md` folders) and the `Skill` tool;
//!   [`custom_commands`] — Markdown slash commands.
//! - [`safe_fs`] — reading files of unknown type and size without hanging.
//! - [`sync`] — the one lock helper (a poisoned lock yields its value).
//! - [`builder`] — assembling a session from a configuration and a front
//!   end: the one way every front end and test starts one.

pub mod agents;
pub mod builder;
pub mod checkpoints;
pub mod completion;
pub mod config_dir;
pub mod contract;
pub mod custom_commands;
pub mod engine;
pub mod file_gate;
pub mod front_matter;
pub mod hooks;
pub mod mcp;
pub mod output;
pub mod permissions;
pub mod plan;
pub mod prompt;
pub mod safe_fs;
pub mod session;
pub mod settings;
pub mod skills;
pub mod status_line;
pub mod sync;
pub mod teams;
pub mod tools;
pub mod trust;
