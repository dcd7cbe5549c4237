//! What of a project's own settings file applies before the user trusts
//! the project: one table of the settings keys ([`KEYS`]) and one function
//! that decides for a key and its value ([`treatment`]). [`split`] applies
//! it to a whole file, piece by piece, so that what waits can be named and
//! later accepted one piece at a time.
//!
//! A project may only make a session stricter until it is trusted: deny
//! and ask rules, `disableBypassPermissionsMode`, a stricter default mode,
//! `sandbox: true`. Whatever widens permissions, runs code or changes where
//! data goes waits. A key the table does not name waits too, so a key
//! added to the schema later is safe before anyone classifies it.
//! docs/SECURITY.md ("Trust") shows the same table; a test keeps the two in
//! step.

use std::sync::OnceLock;

use catui_protocol::PermissionMode;
use serde_json::{Map, Value};

use crate::trust::ConfigItem;

/// How a key is treated in a project file before the project is trusted.
#[derive(Debug, Clone, Copy)]
pub enum KeyClass {
    /// It can only make the session stricter: applied.
    Narrowing,
    /// It changes neither what may run nor where data goes: applied.
    Neutral,
    /// Narrowing for some values (`values` says which): those apply, any
    /// other value waits.
    NarrowingWhen {
        narrows: fn(&Value) -> bool,
        values: &'static str,
    },
    /// It widens permissions, runs code or redirects data: waits.
    HeldBack,
    /// Only the user's own settings may say it; a project's is ignored,
    /// trusted or not.
    UserOnly,
}

/// How a held-back key is cut into pieces the user accepts one by one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pieces {
    /// The value as a whole (`model`).
    Whole,
    /// Each member of an object (`env.BASH_ENV`, `mcpServers.fs`).
    Members,
    /// Each element of a list (`permissions.allow` rules).
    Elements,
    /// Each element of each list in an object (`hooks.PreToolUse[i]`).
    MemberElements,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct KeyRule {
    /// As written in settings, nested keys with a dot.
    pub key: &'static str,
    pub class: KeyClass,
    pub pieces: Pieces,
    /// Why, in a few words (the table in docs/SECURITY.md says the same).
    pub why: &'static str,
}

const fn rule(key: &'static str, class: KeyClass, pieces: Pieces, why: &'static str) -> KeyRule {
    KeyRule {
        key,
        class,
        pieces,
        why,
    }
}

use KeyClass::{HeldBack, Narrowing, Neutral, UserOnly};
use Pieces::{Elements, MemberElements, Members, Whole};

fn stricter_mode(value: &Value) -> bool {
    value
        .as_str()
        .and_then(|m| m.parse::<PermissionMode>().ok())
        .is_some_and(|m| matches!(m, PermissionMode::Plan | PermissionMode::Default))
}

/// `true`, or an object that keeps the sandbox on and lists no domain
/// (`{"enabled": true, "network": "off"}`): both only confine.
fn sandbox_on(value: &Value) -> bool {
    match value {
        Value::Bool(on) => *on,
        Value::Object(map) => {
            map.get("enabled").is_none_or(|e| e == &Value::Bool(true))
                && map.get("network").is_none_or(|n| n == "off")
                && map.keys().all(|k| k == "enabled" || k == "network")
        }
        _ => false,
    }
}

fn checkpoints_on(value: &Value) -> bool {
    value == &Value::Bool(true)
}

/// `planDrift: "ask"`: every change outside an approved plan asks.
fn drift_asks(value: &Value) -> bool {
    value == "ask"
}

/// `planGoal: false`: no continuation of catui's own after approval.
fn goal_off(value: &Value) -> bool {
    value == &Value::Bool(false)
}

/// `teammatePlanApprover: "user"`: a person approves teammates' plans.
fn person_approves(value: &Value) -> bool {
    value == "user"
}

/// At most the default number of continuations per input.
fn fewer_continuations(value: &Value) -> bool {
    value
        .as_u64()
        .is_some_and(|n| n <= u64::from(crate::engine::turn_end::DEFAULT_MAX_CONTINUATIONS))
}

/// Every settings key and how a project's value for it is treated before
/// the project is trusted.
pub const KEYS: &[KeyRule] = &[
    rule("permissions.deny", Narrowing, Elements, "refuses calls"),
    rule(
        "permissions.ask",
        Narrowing,
        Elements,
        "makes calls ask first",
    ),
    rule(
        "permissions.disableBypassPermissionsMode",
        Narrowing,
        Whole,
        "switches bypassPermissions off",
    ),
    rule(
        "permissions.defaultMode",
        KeyClass::NarrowingWhen {
            narrows: stricter_mode,
            values: "`plan`, `default` (only when stricter than what your own settings start in)",
        },
        Whole,
        "the mode a session starts in",
    ),
    rule(
        "sandbox",
        KeyClass::NarrowingWhen {
            narrows: sandbox_on,
            values: "`true`, or an object that keeps it on with the network `off`",
        },
        Whole,
        "confines allowed commands to the working directories",
    ),
    rule(
        "secretPaths",
        Narrowing,
        Elements,
        "adds secret stores that ask before being read and that confined commands do not see",
    ),
    rule(
        "fileCheckpointingEnabled",
        KeyClass::NarrowingWhen {
            narrows: checkpoints_on,
            values: "`true`",
        },
        Whole,
        "keeps the project's files before each change, so the agent's work can be rewound",
    ),
    rule(
        "planVariant",
        Neutral,
        Whole,
        "the wording of plan mode's prompt",
    ),
    rule(
        "planDrift",
        KeyClass::NarrowingWhen {
            narrows: drift_asks,
            values: "`\"ask\"`",
        },
        Whole,
        "whether a change to a file an approved plan does not name asks first",
    ),
    rule(
        "planGoal",
        KeyClass::NarrowingWhen {
            narrows: goal_off,
            values: "`false`",
        },
        Whole,
        "whether an approved plan's goal keeps the work going by itself (requests, cost)",
    ),
    rule(
        "dryRun",
        KeyClass::NarrowingWhen {
            narrows: super::dry_run::narrows,
            values: "`false`, or an object that turns it off or keeps `maxScratchMiB` at 2048 or less",
        },
        Whole,
        "whether plan mode runs commands that are not read-only in a throwaway copy, unasked",
    ),
    rule(
        "goalMaxContinuations",
        KeyClass::NarrowingWhen {
            narrows: fewer_continuations,
            values: "8 or fewer",
        },
        Whole,
        "how many continuations the goal loop makes by itself (requests, cost)",
    ),
    rule("planNames", Neutral, Whole, "how new plan files are named"),
    rule(
        "teammatePlanApprover",
        KeyClass::NarrowingWhen {
            narrows: person_approves,
            values: "`\"user\"`",
        },
        Whole,
        "whether a teammate's plan is approved by you or by the team lead (a model)",
    ),
    rule(
        "snapshotPlans",
        Neutral,
        Whole,
        "plan text also kept in the session's own transcript",
    ),
    rule(
        "permissions.allow",
        HeldBack,
        Elements,
        "lets calls run without asking",
    ),
    rule(
        "permissions.additionalDirectories",
        HeldBack,
        Elements,
        "widens where files may be read and written",
    ),
    rule(
        "env",
        HeldBack,
        Members,
        "reaches every command (`BASH_ENV`), the model client (`ANTHROPIC_BASE_URL`) and MCP servers",
    ),
    rule(
        "passEnv",
        HeldBack,
        Elements,
        "passes variables of catui's environment (tokens) to the commands, hooks and MCP servers someone allowed",
    ),
    rule(
        "hooks",
        HeldBack,
        MemberElements,
        "commands run at each event",
    ),
    rule(
        "mcpServers",
        HeldBack,
        Members,
        "programs or remote endpoints given tools; one also starts once approved by name",
    ),
    rule(
        "model",
        HeldBack,
        Whole,
        "which model gets the conversation",
    ),
    rule(
        "smallModel",
        HeldBack,
        Whole,
        "which model gets sub-agents' and the classifier's requests",
    ),
    rule(
        "planModel",
        HeldBack,
        Whole,
        "which model gets the conversation while planning",
    ),
    rule(
        "planEffort",
        HeldBack,
        Whole,
        "how much the model reasons (and costs) while planning and checking its work",
    ),
    rule(
        "completionCheck",
        HeldBack,
        Whole,
        "whether the model is sent back to check its work (one more request per input)",
    ),
    rule(
        "provider",
        HeldBack,
        Whole,
        "which service gets the conversation",
    ),
    rule(
        "models",
        HeldBack,
        Members,
        "model catalog: wire format, reasoning options, prices",
    ),
    rule(
        "plansDirectory",
        HeldBack,
        Whole,
        "moves plan files into the repository",
    ),
    rule(
        "autoMode.enabled",
        HeldBack,
        Whole,
        "lets a classifier allow calls instead of you",
    ),
    rule(
        "autoMode.useDuringPlan",
        HeldBack,
        Whole,
        "lets the classifier judge plan mode's calls",
    ),
    rule(
        "autoMode.classifierTimeoutMs",
        HeldBack,
        Whole,
        "how long the classifier may take",
    ),
    rule(
        "planAgents",
        HeldBack,
        Whole,
        "how many Plan agents run (requests, cost)",
    ),
    rule(
        "maxParallelAgents",
        HeldBack,
        Whole,
        "how many sub-agents run at once (requests, cost)",
    ),
    rule(
        "idleTimeoutSecs",
        HeldBack,
        Whole,
        "how long a silent model stream is waited for",
    ),
    rule(
        "autoCompactThreshold",
        HeldBack,
        Whole,
        "when the conversation is summarised (requests, cost)",
    ),
    rule(
        "broker",
        HeldBack,
        Whole,
        "publishes sessions, approval requests and team messages to another machine",
    ),
    rule(
        "brokerCredentials",
        HeldBack,
        Whole,
        "which identity logs in to the broker",
    ),
    rule(
        "approvals",
        HeldBack,
        Whole,
        "lets whoever answers on the broker approve instead of you",
    ),
    rule(
        "teams.backend",
        HeldBack,
        Whole,
        "moves teammates' messages to the broker",
    ),
    rule(
        "statusLine",
        HeldBack,
        Whole,
        "a command run again and again while the terminal UI shows",
    ),
    rule(
        "enableAllProjectMcpServers",
        UserOnly,
        Whole,
        "your answer about a project's servers",
    ),
    rule(
        "enabledMcpjsonServers",
        UserOnly,
        Whole,
        "your answer about a project's servers",
    ),
    rule(
        "disabledMcpjsonServers",
        UserOnly,
        Whole,
        "your answer about a project's servers",
    ),
];

/// What happens to one key of a project file before the project is
/// trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Treatment {
    /// Applied at once.
    Apply,
    /// Waits for trust, cut into these pieces.
    Hold(Pieces),
    /// Not read from a project file at all.
    Ignore,
}

/// The row of `key`, if the table has one.
pub fn rule_of(key: &str) -> Option<&'static KeyRule> {
    KEYS.iter().find(|r| r.key == key)
}

/// The one decision: what happens to `value` of `key` (dotted, as in
/// [`KEYS`]) in a project file before the project is trusted. A key the
/// table does not name waits, as a whole.
pub fn treatment(key: &str, value: &Value) -> Treatment {
    let Some(rule) = rule_of(key) else {
        return Treatment::Hold(Pieces::Whole);
    };
    match rule.class {
        KeyClass::Narrowing | KeyClass::Neutral => Treatment::Apply,
        KeyClass::NarrowingWhen { narrows, .. } if narrows(value) => Treatment::Apply,
        KeyClass::NarrowingWhen { .. } | KeyClass::HeldBack => Treatment::Hold(rule.pieces),
        KeyClass::UserOnly => Treatment::Ignore,
    }
}

/// Every key of the settings schema (see `file::known_keys`).
pub fn known_keys() -> &'static [String] {
    static KNOWN: OnceLock<Vec<String>> = OnceLock::new();
    KNOWN.get_or_init(super::file::known_keys)
}

/// One held-back piece of a file: what it is, and where it goes back
/// when it is accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldPiece {
    pub item: ConfigItem,
    /// The keys leading to it (`["env", "BASH_ENV"]`, `["permissions", "allow"]`).
    path: Vec<String>,
    /// Appended to the list at `path` rather than set there.
    element: bool,
    /// What the piece says (trust binds the files a hook or server runs
    /// from it: `crate::trust::files`).
    pub value: Value,
}

/// A project settings file cut in two.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Split {
    /// What applies before trust, as a settings object.
    pub kept: Map<String, Value>,
    /// What waits, piece by piece, in file order.
    pub held: Vec<HeldPiece>,
}

impl Split {
    /// Puts an accepted piece back into [`Split::kept`].
    pub fn restore(&mut self, piece: HeldPiece) {
        put(&mut self.kept, &piece.path, piece.element, piece.value);
    }
}

/// Sets `value` at `path` in `root`, or appends it to the list there.
fn put(root: &mut Map<String, Value>, path: &[String], element: bool, value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = root;
    for key in parents {
        let slot = at
            .entry(key.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        let Value::Object(next) = slot else { return };
        at = next;
    }
    if !element {
        at.insert(last.clone(), value);
        return;
    }
    let list = at
        .entry(last.clone())
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(items) = list {
        items.push(value);
    }
}

/// Cuts the settings `value` of the project file `source` (as shown,
/// relative to the project) into what applies before trust and what waits.
/// Keys the schema does not know are left out: no layer reads them.
pub fn split(source: &str, value: &Value) -> Split {
    let mut out = Split::default();
    let Value::Object(root) = value else {
        return out;
    };
    let known = known_keys();
    for (top, top_value) in root {
        if super::file::NESTED.contains(&top.as_str()) {
            let Value::Object(inner) = top_value else {
                continue;
            };
            for (sub, sub_value) in inner {
                let key = format!("{top}.{sub}");
                if known.contains(&key) {
                    place(&mut out, source, &[top, sub], &key, sub_value);
                }
            }
        } else if known.contains(top) {
            place(&mut out, source, &[top], top, top_value);
        }
    }
    out
}

/// Puts one key of a file where [`treatment`] says.
fn place(out: &mut Split, source: &str, path: &[&String], key: &str, value: &Value) {
    if value.is_null() {
        return;
    }
    let path: Vec<String> = path.iter().map(|s| (*s).clone()).collect();
    let pieces = match treatment(key, value) {
        Treatment::Ignore => return,
        Treatment::Apply => {
            put(&mut out.kept, &path, false, value.clone());
            return;
        }
        Treatment::Hold(pieces) => pieces,
    };
    let whole = |out: &mut Split| {
        out.held.push(HeldPiece {
            item: ConfigItem::new(source, key, key, true, value),
            path: path.clone(),
            element: false,
            value: value.clone(),
        });
    };
    match (pieces, value) {
        (Pieces::Members, Value::Object(members)) => {
            for (name, member) in members {
                let mut at = path.clone();
                at.push(name.clone());
                out.held.push(HeldPiece {
                    item: item(source, key, name, true, member),
                    path: at,
                    element: false,
                    value: member.clone(),
                });
            }
        }
        (Pieces::Elements, Value::Array(elements)) => {
            for element in elements {
                let item = ConfigItem::new(source, key, &element_name(element), false, element);
                out.held.push(HeldPiece {
                    item,
                    path: path.clone(),
                    element: true,
                    value: element.clone(),
                });
            }
        }
        (Pieces::MemberElements, Value::Object(members))
            if members.values().all(Value::is_array) =>
        {
            for (name, list) in members {
                let mut at = path.clone();
                at.push(name.clone());
                for element in list.as_array().into_iter().flatten() {
                    out.held.push(HeldPiece {
                        item: item(source, key, name, false, element),
                        path: at.clone(),
                        element: true,
                        value: element.clone(),
                    });
                }
            }
        }
        _ => whole(out),
    }
}

/// What a held-back value of `group` says, for people, where its JSON
/// would be hard to read: a hook's matcher and commands, a server's
/// command line or URL.
pub fn describe(group: &str, value: &Value) -> Option<String> {
    match group {
        "hooks" => {
            let commands: Vec<&str> = value
                .get("hooks")?
                .as_array()?
                .iter()
                .filter_map(|h| h.get("command").and_then(Value::as_str))
                .collect();
            let commands = commands.join("; ");
            Some(match value.get("matcher").and_then(Value::as_str) {
                Some(m) if !m.is_empty() => format!("[{m}] {commands}"),
                _ => commands,
            })
        }
        "mcpServers" => {
            if let Some(url) = value.get("url").and_then(Value::as_str) {
                return Some(url.to_string());
            }
            let mut line = vec![value.get("command")?.as_str()?.to_string()];
            for arg in value
                .get("args")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                line.push(arg.as_str().map_or_else(|| arg.to_string(), str::to_string));
            }
            Some(line.join(" "))
        }
        _ => None,
    }
}

/// A held-back piece, described for people where [`describe`] can.
fn item(source: &str, group: &str, name: &str, slot: bool, value: &Value) -> ConfigItem {
    let mut item = ConfigItem::new(source, group, name, slot, value);
    if let Some(text) = describe(group, value) {
        item.shown = text;
    }
    item
}

/// How an element of a list is named: a string as it is (a rule), else
/// its compact JSON.
fn element_name(element: &Value) -> String {
    match element {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
#[path = "classify_tests.rs"]
mod tests;
