//! Walking the tree-sitter-bash syntax tree: finds every simple command
//! (with its unquoted words) and every construct that can write or run code
//! without being a command (redirections, assignments to sensitive
//! variables, function definitions, parse errors).
//!
//! Judging a simple command's program and flags is [`super::readonly_list`]'s
//! job; this module only reports what the shell would see.

use std::cell::RefCell;

use tree_sitter::{Node, Parser};

use super::SimpleCommand;
use super::readonly_list::{self, is_sensitive_variable};

/// Nesting deeper than this is refused rather than walked, so a hostile
/// command cannot exhaust the stack.
const MAX_DEPTH: usize = 256;

/// One shell word as the analysis sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Word {
    /// The unquoted value when `dynamic` is false; the source text otherwise.
    pub text: String,
    /// The value is only known when the shell runs (expansions,
    /// substitutions, brace expansion).
    pub dynamic: bool,
}

impl Word {
    #[cfg(test)]
    pub(super) fn lit(text: &str) -> Word {
        Word {
            text: text.to_string(),
            dynamic: false,
        }
    }
}

/// Everything found in one command line.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    pub commands: Vec<SimpleCommand>,
    /// Why the command line is not read-only, in the order found.
    pub violations: Vec<String>,
}

thread_local! {
    // Building a parser costs more than parsing a short command, so each
    // thread keeps one.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn parse(src: &str) -> Result<tree_sitter::Tree, String> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .map_err(|e| format!("the shell parser could not be loaded: {e}"))?;
            *slot = Some(parser);
        }
        let parser = slot
            .as_mut()
            .ok_or_else(|| "the shell parser could not be loaded".to_string())?;
        parser
            .parse(src, None)
            .ok_or_else(|| "the shell parser gave up on this command".to_string())
    })
}

/// Parses `src` and collects its commands and violations.
pub(super) fn walk(src: &str) -> Outcome {
    let tree = match parse(src) {
        Ok(tree) => tree,
        Err(reason) => {
            return Outcome {
                commands: Vec::new(),
                violations: vec![reason],
            };
        }
    };
    let root = tree.root_node();
    let mut walker = Walker {
        src: src.as_bytes(),
        out: Outcome::default(),
    };
    if root.has_error() {
        let near = first_error(root)
            .map(|n| format!(" near `{}`", clip(&walker.raw(n), 40)))
            .unwrap_or_default();
        walker.deny(format!(
            "the command could not be parsed{near} (unbalanced quotes, a missing \
             keyword or an unfinished construct)"
        ));
    }
    walker.walk(root, 0);
    walker.out
}

fn first_error(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    node.children(&mut cursor).find_map(first_error)
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max).collect();
    format!("{cut}…")
}

/// A child node with the name of the field it fills, if any.
fn fields<'t>(node: Node<'t>) -> Vec<(Option<&'static str>, Node<'t>)> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            out.push((cursor.field_name(), cursor.node()));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    out
}

struct Walker<'s> {
    src: &'s [u8],
    out: Outcome,
}

impl Walker<'_> {
    fn raw(&self, node: Node) -> String {
        node.utf8_text(self.src).unwrap_or_default().to_string()
    }

    fn deny(&mut self, reason: impl Into<String>) {
        self.out.violations.push(reason.into());
    }

    fn walk_children(&mut self, node: Node, depth: usize) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            self.walk(child, depth + 1);
        }
    }

    fn walk(&mut self, node: Node, depth: usize) {
        if depth > MAX_DEPTH {
            self.deny("the command is nested too deeply to be checked");
            return;
        }
        match node.kind() {
            "command" => self.command(node, depth),
            "file_redirect" => self.file_redirect(node, depth),
            "heredoc_redirect" => {
                if fields(node).iter().any(|(f, _)| *f == Some("argument")) {
                    // Words after `<<EOF` belong to the command; rather than
                    // re-attach them, refuse the unusual form.
                    self.deny("words after a here-document marker cannot be checked");
                }
                self.walk_children(node, depth);
            }
            "variable_assignment" => self.assignment(node, depth),
            "declaration_command" => self.declaration(node, depth),
            "function_definition" => {
                let name = node
                    .child_by_field_name("name")
                    .map(|n| self.raw(n))
                    .unwrap_or_default();
                self.deny(format!(
                    "it defines a shell function (`{name}`), whose body runs later"
                ));
                self.walk_children(node, depth);
            }
            "for_statement" => {
                if let Some(var) = node.child_by_field_name("variable") {
                    let name = self.raw(var);
                    if is_sensitive_variable(&name) {
                        self.deny(format!("the loop assigns to `{name}`"));
                    }
                }
                self.walk_children(node, depth);
            }
            "expansion" => {
                self.expansion(node);
                self.walk_children(node, depth);
            }
            "binary_expression" | "postfix_expression" | "unary_expression" => {
                // Arithmetic like `((PATH=1))` assigns; reading a sensitive
                // variable in arithmetic has no use, so any mention counts.
                let mut cursor = node.walk();
                let names: Vec<String> = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() == "variable_name")
                    .map(|c| self.raw(c))
                    .collect();
                for name in names {
                    if is_sensitive_variable(&name) {
                        self.deny(format!("arithmetic changes `{name}`"));
                    }
                }
                self.walk_children(node, depth);
            }
            _ => self.walk_children(node, depth),
        }
    }

    fn command(&mut self, node: Node, depth: usize) {
        let mut words = Vec::new();
        let mut nested = Vec::new();
        for (field, child) in fields(node) {
            match (field, child.kind()) {
                (None, "variable_assignment") => nested.push(child),
                (Some("name"), _) => {
                    let mut cursor = child.walk();
                    let inner: Vec<Node> = child.named_children(&mut cursor).collect();
                    let word = match inner.as_slice() {
                        [only] => self.word(*only),
                        _ => self.word(child),
                    };
                    words.push(word);
                    nested.push(child);
                }
                (Some("argument"), _) => {
                    words.push(self.word(child));
                    nested.push(child);
                }
                _ if child.is_named() => nested.push(child),
                _ => {}
            }
        }
        let text = self.raw(node);
        self.out.commands.push(SimpleCommand {
            argv: words.iter().map(|w| w.text.clone()).collect(),
            text,
        });
        if let Err(reason) = readonly_list::judge(&words) {
            self.deny(reason);
        }
        for child in nested {
            self.walk(child, depth + 1);
        }
    }

    fn assignment(&mut self, node: Node, depth: usize) {
        if let Some(name) = node.child_by_field_name("name") {
            // `arr[i]=x` names the array through a subscript node.
            let name_node = name.child_by_field_name("name").unwrap_or(name);
            let name = self.raw(name_node);
            if is_sensitive_variable(&name) {
                self.deny(format!(
                    "it assigns to `{name}`, which changes which programs run or how"
                ));
            }
        }
        self.walk_children(node, depth);
    }

    fn declaration(&mut self, node: Node, depth: usize) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in &children {
            if child.kind() == "word" {
                let flag = self.raw(*child);
                if flag.starts_with('-') && flag.contains('n') {
                    self.deny("a name reference (`declare -n`) can assign to any variable");
                }
            }
        }
        for child in children {
            self.walk(child, depth + 1);
        }
    }

    fn expansion(&mut self, node: Node) {
        let mut cursor = node.walk();
        let mut name = None;
        let mut assigns = false;
        for child in node.children(&mut cursor) {
            match child.kind() {
                "variable_name" if name.is_none() => name = Some(self.raw(child)),
                "=" | ":=" => assigns = true,
                _ => {}
            }
        }
        if let Some(name) = name
            && assigns
            && is_sensitive_variable(&name)
        {
            self.deny(format!("`${{{name}:=...}}` assigns to `{name}`"));
        }
    }

    fn file_redirect(&mut self, node: Node, depth: usize) {
        let parts = fields(node);
        let op = parts
            .iter()
            .find(|(f, n)| f.is_none() && !n.is_named())
            .map(|(_, n)| n.kind())
            .unwrap_or("");
        let dests: Vec<Node> = parts
            .iter()
            .filter(|(f, _)| *f == Some("destination"))
            .map(|(_, n)| *n)
            .collect();
        let dest_words: Vec<Word> = dests.iter().map(|d| self.word(*d)).collect();
        match op {
            "<" | "<&" | "<&-" | ">&-" => {
                if dest_words.len() > 1 {
                    self.deny("words after an input redirection cannot be checked");
                }
            }
            ">&" if matches!(dest_words.as_slice(), [w] if !w.dynamic
                && (w.text == "-" || w.text.bytes().all(|b| b.is_ascii_digit()))) => {}
            ">" | ">>" | "&>" | "&>>" | ">|" | ">&" => match dest_words.as_slice() {
                [w] if !w.dynamic && is_harmless_sink(&w.text) => {}
                [w] => self.deny(format!(
                    "it redirects output to `{}`, which writes a file",
                    w.text
                )),
                _ => self.deny("an output redirection with several words cannot be checked"),
            },
            other => self.deny(format!("the redirection `{other}` cannot be checked")),
        }
        for dest in dests {
            self.walk(dest, depth + 1);
        }
    }

    /// The value of a word-like node.
    fn word(&self, node: Node) -> Word {
        let raw = self.raw(node);
        let dynamic = |text: String| Word {
            text,
            dynamic: true,
        };
        let fixed = |text: String| Word {
            text,
            dynamic: false,
        };
        match node.kind() {
            "word" => {
                if has_brace_expansion(&raw) {
                    dynamic(raw)
                } else {
                    fixed(unescape_unquoted(&raw))
                }
            }
            "number" if node.named_child_count() == 0 => fixed(raw),
            "raw_string" => fixed(strip_quotes(&raw, 1)),
            "string" => {
                let mut cursor = node.walk();
                let plain = node
                    .named_children(&mut cursor)
                    .all(|c| c.kind() == "string_content");
                if plain {
                    fixed(unescape_double(&strip_quotes(&raw, 1)))
                } else {
                    dynamic(raw)
                }
            }
            "translated_string" => match node.named_child(0) {
                Some(inner) if inner.kind() == "string" => self.word(inner),
                _ => dynamic(raw),
            },
            "ansi_c_string" => match decode_ansi_c(&raw) {
                Some(text) => fixed(text),
                None => dynamic(raw),
            },
            "concatenation" => self.concatenation(node, raw),
            _ => dynamic(raw),
        }
    }

    fn concatenation(&self, node: Node, raw: String) -> Word {
        let mut text = String::new();
        let mut unquoted = String::new();
        let mut dynamic = false;
        let mut end = node.start_byte();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.start_byte() != end {
                // Pieces the grammar did not name: do not guess their value.
                dynamic = true;
            }
            end = child.end_byte();
            let part = self.word(child);
            dynamic |= part.dynamic;
            if child.kind() == "word" {
                unquoted.push_str(&self.raw(child));
            }
            text.push_str(&part.text);
        }
        if end != node.end_byte() || has_brace_expansion(&unquoted) {
            dynamic = true;
        }
        if dynamic {
            Word { text: raw, dynamic }
        } else {
            Word { text, dynamic }
        }
    }
}

/// Output redirections to these only reach the terminal or nowhere.
fn is_harmless_sink(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/stdout" | "/dev/stderr")
}

/// `{a,b}` and `{1..3}` turn one word into several, so the word's value is
/// not what it looks like.
fn has_brace_expansion(unquoted: &str) -> bool {
    match (unquoted.find('{'), unquoted.rfind('}')) {
        (Some(open), Some(close)) if open < close => {
            let inner = &unquoted[open..close];
            inner.contains(',') || inner.contains("..")
        }
        _ => false,
    }
}

fn strip_quotes(raw: &str, n: usize) -> String {
    if raw.len() >= 2 * n {
        raw.get(n..raw.len() - n).unwrap_or_default().to_string()
    } else {
        String::new()
    }
}

/// Removes the backslashes of an unquoted word (`a\ b` → `a b`).
fn unescape_unquoted(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Removes the backslashes that are special inside double quotes.
fn unescape_double(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Decodes `$'...'` for the common escapes; `None` for the rest (the word is
/// then treated as unknown).
fn decode_ansi_c(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix("$'")?.strip_suffix('\'')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let decoded = match chars.next()? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'a' => '\u{7}',
            'b' => '\u{8}',
            'e' | 'E' => '\u{1b}',
            'f' => '\u{c}',
            'v' => '\u{b}',
            c @ ('\\' | '\'' | '"' | '?') => c,
            _ => return None,
        };
        out.push(decoded);
    }
    Some(out)
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn words_are_unquoted() {
        let out = walk(r#"grep -n 'a b' "c d" e\ f $'g\th' "x\"y" {} ''"#);
        assert_eq!(
            out.commands[0].argv,
            ["grep", "-n", "a b", "c d", "e f", "g\th", "x\"y", "{}", ""]
        );
    }

    #[test]
    fn expansions_keep_their_source_text() {
        let out = walk(r#"echo "$HOME/x" ${y} $(ls) a{b,c}"#);
        assert_eq!(
            out.commands[0].argv,
            ["echo", "\"$HOME/x\"", "${y}", "$(ls)", "a{b,c}"]
        );
        assert_eq!(out.commands[1].argv, ["ls"]);
    }

    #[test]
    fn brace_expansion_is_detected() {
        assert!(has_brace_expansion("{a,b}"));
        assert!(has_brace_expansion("x{1..3}"));
        assert!(!has_brace_expansion("{}"));
        assert!(!has_brace_expansion("HEAD@{1}"));
    }
}
