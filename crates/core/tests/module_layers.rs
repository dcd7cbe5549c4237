//! The layout rules the compiler does not check, read from the sources
//! (code, not comments):
//!
//! - The arrows between core's top-level modules go one way. Each module
//!   may use only the modules listed below it in [`LAYERS`]; a `use` that
//!   points up (or sideways into a cycle) fails here with the file that does
//!   it. docs/ARCHITECTURE.md draws the same picture. This is the tool that
//!   checks for module cycles: it looks for `crate::NAME` paths.
//! - A fact with one home stays there: MCP tool names
//!   (`mcp__server__tool`) are built and taken apart only in
//!   [`MCP_NAME_HOME`], and catui's own tools' names are spelt only in
//!   [`TOOL_NAMES_HOME`], in every crate of the workspace.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Core's top-level modules, lowest first.
const LAYERS: &[&str] = &[
    "sync",
    "front_matter",
    "config_dir",
    "trust",
    "safe_fs",
    "status_line",
    "hooks",
    "permissions",
    "file_gate",
    "tools",
    "engine",
    "skills",
    "custom_commands",
    "output",
    "completion",
    "plan",
    "session",
    "checkpoints",
    "contract",
    "agents",
    "teams",
    "mcp",
    "prompt",
    "settings",
    "builder",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its comments (line comments and doc
/// comments; block comments are not used in this crate).
fn code_of(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut cut = line.len();
        for (i, c) in line.char_indices() {
            if c == '"' && prev != '\\' {
                in_str = !in_str;
            }
            if !in_str && c == '/' && prev == '/' {
                cut = i - 1;
                break;
            }
            prev = c;
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

/// The top-level modules a piece of code names through `crate::`.
fn used_modules(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        let before_ok = at == 0
            || !rest[..at]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if before_ok {
            if let Some(group) = after.strip_prefix('{') {
                // `use crate::{a::X, b};`
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    let name: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        out.insert(name);
                    }
                }
            } else {
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
        rest = after;
    }
    out
}

#[test]
fn modules_only_use_modules_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut seen_modules = BTreeSet::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        seen_modules.insert(module.clone());
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for used in used_modules(&code) {
            if used != module {
                edges
                    .entry((module.clone(), used))
                    .or_default()
                    .push(rel.display().to_string());
            }
        }
    }
    for m in &seen_modules {
        assert!(
            rank(m).is_some(),
            "module `{m}` is not placed in LAYERS (tests/module_layers.rs) nor in docs/ARCHITECTURE.md"
        );
    }
    let upward: Vec<String> = edges
        .iter()
        .filter(|((from, to), _)| match (rank(from), rank(to)) {
            (Some(f), Some(t)) => t > f,
            _ => false,
        })
        .map(|((from, to), files)| format!("{from} -> {to} in {}", files.join(", ")))
        .collect();
    assert!(
        upward.is_empty(),
        "these uses point up the layers (a lower module must not use a higher one):\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_checker_sees_grouped_and_plain_paths_but_not_comments() {
    let code = code_of(
        "use crate::{plan::X, tools};\nlet a = crate::engine::f(); // crate::teams\n/// [`Y`](crate::agents::Y)\nlet s = \"// not a comment\"; crate::session::g();",
    );
    let used: Vec<String> = used_modules(&code).into_iter().collect();
    assert_eq!(used, ["engine", "plan", "session", "tools"]);
}

/// The one file that builds and takes apart MCP names, relative to
/// `crates/`.
const MCP_NAME_HOME: &str = "protocol/src/mcp_name.rs";

/// `code` up to its unit-test module (`#[cfg(test)]` before a `mod` with a
/// body), where names are example data rather than code that uses them. A
/// test module declared by `#[cfg(test)] mod name;` (its code in a
/// `*_tests.rs` file) does not end the code around it.
fn without_test_module(code: &str) -> &str {
    let mut from = 0;
    while let Some(at) = code[from..].find("#[cfg(test)]") {
        let start = from + at;
        let after = code[start + "#[cfg(test)]".len()..].trim_start();
        let declared_elsewhere = || {
            let item = after
                .lines()
                .find(|l| !l.trim_start().starts_with("#["))
                .unwrap_or("");
            item.trim_end().ends_with(';')
        };
        if (after.starts_with("mod ") || after.starts_with("#[path")) && !declared_elsewhere() {
            return &code[..start];
        }
        from = start + 1;
    }
    code
}

/// Every source file of the workspace's crates (`crates/*/src`), without
/// the `*_tests.rs` files that hold unit tests.
fn workspace_sources(crates: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(crates).unwrap() {
        let src = entry.unwrap().path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    assert!(files.len() > 100, "the workspace's sources were not found");
    files.retain(|f| !f.to_string_lossy().ends_with("_tests.rs"));
    files
}

/// The lines of `code` that build or match an MCP name by hand: a string
/// that starts with the prefix (`"mcp__`) or a format string that puts a
/// server into one (`mcp__{`). Prose that only mentions a name (an error
/// message's example) is neither.
fn hand_written_mcp_names(code: &str) -> Vec<(usize, String)> {
    code.lines()
        .enumerate()
        .filter(|(_, line)| line.contains("\"mcp__") || line.contains("mcp__{"))
        .map(|(i, line)| (i + 1, line.trim().to_string()))
        .collect()
}

#[test]
fn mcp_names_are_built_and_taken_apart_only_in_their_home() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let home = crates.join(MCP_NAME_HOME);
    assert!(home.is_file(), "{} is missing", home.display());
    let mut hits = Vec::new();
    for file in workspace_sources(crates).iter().filter(|f| **f != home) {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for (line, text) in hand_written_mcp_names(without_test_module(&code)) {
            let rel = file.strip_prefix(crates).unwrap().display().to_string();
            hits.push(format!("crates/{rel}:{line}: {text}"));
        }
    }
    assert!(
        hits.is_empty(),
        "MCP names built or parsed by hand; use catui_protocol::mcp_name (tool_name, parse_tool_name, is_mcp_name, pattern_covers) instead:\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_mcp_name_check_sees_names_built_by_hand_but_not_prose_or_tests() {
    let code = code_of(
        "let a = name.strip_prefix(\"mcp__\");\n\
         let b = format!(\"/mcp__{server}__{prompt}\");\n\
         // \"mcp__ in a comment\n\
         let e = \"rule `x` is bad (e.g. `mcp__server__tool`)\";\n\
         #[cfg(test)]\nfn only_for_tests() {}\n\
         let c = name.starts_with(\"mcp__\");\n\
         #[cfg(test)]\nmod tests {\n    let d = \"mcp__db__query\";\n}\n",
    );
    let lines: Vec<usize> = hand_written_mcp_names(without_test_module(&code))
        .into_iter()
        .map(|(line, _)| line)
        .collect();
    assert_eq!(lines, [1, 2, 7]);
}

/// The one file that spells catui's own tools' names, relative to
/// `crates/`.
const TOOL_NAMES_HOME: &str = "protocol/src/tool_names.rs";

/// The lines of `code` that write one of `names` as a string literal (the
/// whole literal: prose that mentions a tool inside a longer text is not a
/// name the code matches or builds).
fn literal_tool_names(code: &str, names: &[&str]) -> Vec<(usize, String)> {
    code.lines()
        .enumerate()
        .filter(|(_, line)| names.iter().any(|n| line.contains(&format!("\"{n}\""))))
        .map(|(i, line)| (i + 1, line.trim().to_string()))
        .collect()
}

#[test]
fn tool_names_are_spelt_only_in_their_home() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let home = crates.join(TOOL_NAMES_HOME);
    assert!(home.is_file(), "{} is missing", home.display());
    // A tool that does not exist is matched nowhere either.
    let mut names: Vec<&str> = catui_protocol::tool_names::ALL.to_vec();
    names.push("MultiEdit");
    let mut hits = Vec::new();
    for file in workspace_sources(crates).iter().filter(|f| **f != home) {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for (line, text) in literal_tool_names(without_test_module(&code), &names) {
            let rel = file.strip_prefix(crates).unwrap().display().to_string();
            hits.push(format!("crates/{rel}:{line}: {text}"));
        }
    }
    assert!(
        hits.is_empty(),
        "tool names written as string literals; use the constants in catui_protocol::tool_names instead:\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_tool_name_check_sees_literals_but_not_prose_or_tests() {
    let code = code_of(
        "if name == \"Write\" {}\n\
         let a = \"Use Write to create a file\";\n\
         // \"Edit\" in a comment\n\
         #[cfg(test)]\nmod elsewhere_tests;\n\
         matches!(n, \"Read\" | \"Grep\");\n\
         #[cfg(test)]\nmod tests {\n    let d = \"Edit\";\n}\n",
    );
    let lines: Vec<usize> = literal_tool_names(
        without_test_module(&code),
        &["Write", "Edit", "Read", "Grep"],
    )
    .into_iter()
    .map(|(line, _)| line)
    .collect();
    assert_eq!(lines, [1, 6]);
}
