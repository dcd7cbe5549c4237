//! The arrows between core's top-level modules go one way. Each module may
//! use only the modules listed below it in [`LAYERS`]; a `use` that points
//! up (or sideways into a cycle) fails here with the file that does it.
//! docs/ARCHITECTURE.md draws the same picture.
//!
//! This is the tool that checks for module cycles: it reads the sources
//! (code, not comments) for `crate::NAME` paths.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Core's top-level modules, lowest first.
const LAYERS: &[&str] = &[
    "sync",
    "config_dir",
    "trust",
    "safe_fs",
    "hooks",
    "permissions",
    "tools",
    "engine",
    "plan",
    "session",
    "checkpoints",
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
