//! Walking the tree-sitter-bash syntax tree: every simple command with its
//! words, prefix assignments and redirections (its own and those of the
//! compound statements around it), and every construct that can write or
//! run code without being a command (assignments, function definitions,
//! arithmetic, unusual expansions).
//!
//! The walk is an allow-list over node kinds: a kind it does not know is a
//! problem, never skipped. Judging a command's program and flags is
//! [`super::programs`]'s job; expansions are [`super::expand`]'s.

use std::cell::RefCell;
use std::collections::BTreeSet;

use tree_sitter::{Node, Parser};

use super::expand::{Vars, check_arithmetic, check_assignment_name, check_braced};
use super::programs::{self, ReadOnly};
use super::words::{self, Word};
use super::{Assignment, Redirect, SimpleCommand, builtins};

/// Nesting deeper than this is refused rather than walked, so a hostile
/// command cannot exhaust the stack.
const MAX_DEPTH: usize = 256;

/// Everything found in one command line.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    pub commands: Vec<SimpleCommand>,
    /// Problems that belong to no single command.
    pub line_problems: Vec<String>,
    /// Every problem, in the order found.
    pub problems: Vec<String>,
    /// Why the line is read-only only while confined, if it is.
    pub needs_confinement: Option<String>,
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

/// The words of `src` when it is exactly one plain command (no prefix
/// assignment, redirection, operator or comment, and nothing the grammar
/// cannot parse), split and unquoted the way [`walk`] does for the
/// commands it finds: a permission rule's `Bash(...)` words, compared with
/// those of the commands a line runs.
pub(in crate::permissions) fn plain_command_words(src: &str) -> Option<Vec<String>> {
    let tree = parse(src).ok()?;
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let [command] = named_children(root)[..] else {
        return None;
    };
    if command.kind() != "command" {
        return None;
    }
    let mut words = Vec::new();
    for (field, child) in fields(command) {
        let word = match (field, named_children(child).as_slice()) {
            (Some("name"), [only]) => words::word(*only, src.as_bytes()),
            (Some("name" | "argument"), _) => words::word(child, src.as_bytes()),
            // An assignment or a redirection: not plain words.
            _ if child.is_named() => return None,
            _ => continue,
        };
        words.push(word.text);
    }
    Some(words)
}

/// Parses `src` and collects its commands and problems.
pub(super) fn walk(src: &str) -> Outcome {
    let tree = match parse(src) {
        Ok(tree) => tree,
        Err(reason) => {
            return Outcome {
                line_problems: vec![reason.clone()],
                problems: vec![reason],
                ..Outcome::default()
            };
        }
    };
    let root = tree.root_node();
    let mut walker = Walker {
        src: src.as_bytes(),
        out: Outcome::default(),
        current: None,
        inherited: Vec::new(),
        starts: BTreeSet::new(),
        checked: Vec::new(),
        vars: Vars::default(),
    };
    if root.has_error() {
        let near = first_error(root)
            .map(|n| format!(" near `{}`", clip(&walker.raw(n), 40)))
            .unwrap_or_default();
        walker.problem(format!(
            "the command could not be parsed{near} (unbalanced quotes, a missing keyword or an unfinished construct)"
        ));
    }
    walker.walk(root, 0);
    walker.check_descriptors();
    if let Some(why) = walker.vars.unsafe_arithmetic() {
        walker.problem(why);
    }
    walker.cross_check(src);
    walker.out
}

pub(super) fn first_error(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    node.children(&mut cursor).find_map(first_error)
}

pub(super) fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max).collect();
    format!("{cut}…")
}

/// A child node with the name of the field it fills, if any.
pub(super) fn fields<'t>(node: Node<'t>) -> Vec<(Option<&'static str>, Node<'t>)> {
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

pub(super) fn named_children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

pub(super) fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

pub(super) struct Walker<'s> {
    pub(super) src: &'s [u8],
    pub(super) out: Outcome,
    /// The simple command whose words are being walked.
    pub(super) current: Option<usize>,
    /// Redirections of the compound statements around the walk.
    pub(super) inherited: Vec<Redirect>,
    /// Where the substitutions and expansions that were checked start.
    pub(super) starts: BTreeSet<usize>,
    /// Byte ranges checked as a whole (arithmetic).
    pub(super) checked: Vec<(usize, usize)>,
    pub(super) vars: Vars,
}

impl Walker<'_> {
    pub(super) fn raw(&self, node: Node) -> String {
        node.utf8_text(self.src).unwrap_or_default().to_string()
    }

    /// A problem of the current command, or of the line.
    pub(super) fn problem(&mut self, reason: impl Into<String>) {
        let reason = reason.into();
        match self.current.and_then(|i| self.out.commands.get_mut(i)) {
            Some(c) => c.other_problems.push(reason.clone()),
            None => self.out.line_problems.push(reason.clone()),
        }
        self.out.problems.push(reason);
    }

    pub(super) fn walk_children(&mut self, node: Node, depth: usize) {
        for child in named_children(node) {
            self.walk(child, depth + 1);
        }
    }

    pub(super) fn walk(&mut self, node: Node, depth: usize) {
        if depth > MAX_DEPTH {
            self.problem("the command is nested too deeply to be checked");
            return;
        }
        match node.kind() {
            "program"
            | "list"
            | "pipeline"
            | "subshell"
            | "do_group"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "while_statement"
            | "case_statement"
            | "case_item"
            | "negated_command"
            | "variable_assignments"
            | "concatenation"
            | "string"
            | "translated_string"
            | "array"
            | "heredoc_body"
            | "command_name"
            | "simple_expansion"
            | "subscript"
            | "ERROR"
            | "binary_expression"
            | "unary_expression"
            | "parenthesized_expression"
            | "postfix_expression"
            | "ternary_expression" => self.walk_children(node, depth),
            "comment"
            | "word"
            | "raw_string"
            | "ansi_c_string"
            | "string_content"
            | "number"
            | "heredoc_start"
            | "heredoc_end"
            | "heredoc_content"
            | "file_descriptor"
            | "extglob_pattern"
            | "regex"
            | "special_variable_name"
            | "variable_name"
            | "test_operator" => {}
            "compound_statement" => {
                let raw = self.raw(node);
                match raw.strip_prefix("((").and_then(|r| r.strip_suffix("))")) {
                    Some(inner) => self.arithmetic(node, inner, &raw),
                    None => self.walk_children(node, depth),
                }
            }
            "command" => self.command(node, depth),
            "declaration_command" => self.declaration(node, depth),
            "unset_command" => self.unset(node, depth),
            "test_command" => self.test_command(node, depth),
            "redirected_statement" => self.redirected(node, depth),
            "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                let found = self.redirect(node, depth);
                self.attach(found);
            }
            "variable_assignment" => self.assignment(node, depth),
            "function_definition" => {
                let name = node
                    .child_by_field_name("name")
                    .map(|n| self.raw(n))
                    .unwrap_or_default();
                self.problem(format!(
                    "it defines a shell function (`{name}`), whose body runs later"
                ));
                self.walk_children(node, depth);
            }
            "for_statement" => self.for_loop(node, depth),
            "c_style_for_statement" => {
                let raw = self.raw(node);
                let inner = raw
                    .find("((")
                    .and_then(|a| raw[a + 2..].find("))").map(|b| &raw[a + 2..a + 2 + b]));
                match inner {
                    Some(inner) => {
                        for part in inner.split(';') {
                            if let Err(why) = check_arithmetic(part, &raw, &mut self.vars) {
                                self.problem(why);
                            }
                        }
                        let body = node.child_by_field_name("body");
                        let end = body.map_or(node.end_byte(), |b| b.start_byte());
                        self.checked.push((node.start_byte(), end));
                        if let Some(body) = body {
                            self.walk(body, depth + 1);
                        }
                    }
                    None => {
                        self.problem(format!("the loop `{}` is not understood", clip(&raw, 40)))
                    }
                }
            }
            "arithmetic_expansion" => {
                let raw = self.raw(node);
                let inner = raw
                    .strip_prefix("$((")
                    .and_then(|r| r.strip_suffix("))"))
                    .or_else(|| raw.strip_prefix("$[").and_then(|r| r.strip_suffix(']')));
                match inner {
                    Some(inner) => self.arithmetic(node, inner, &raw),
                    None => self.problem(format!("the arithmetic `{raw}` is not understood")),
                }
            }
            "command_substitution" | "process_substitution" => {
                self.starts.insert(node.start_byte());
                // Redirections around the outer command do not apply inside.
                let saved = std::mem::take(&mut self.inherited);
                self.walk_children(node, depth);
                self.inherited = saved;
            }
            "expansion" => {
                self.starts.insert(node.start_byte());
                let raw = self.raw(node);
                if let Err(why) = check_braced(&raw, &mut self.vars) {
                    self.problem(why);
                }
                self.walk_children(node, depth);
            }
            other => self.problem(format!(
                "the shell construct `{other}` (`{}`) is not understood",
                clip(&self.raw(node), 40)
            )),
        }
    }

    /// Arithmetic text checked as a whole.
    pub(super) fn arithmetic(&mut self, node: Node, inner: &str, raw: &str) {
        self.starts.insert(node.start_byte());
        self.checked.push((node.start_byte(), node.end_byte()));
        if let Err(why) = check_arithmetic(inner, raw, &mut self.vars) {
            self.problem(why);
        }
    }

    pub(super) fn new_command(&mut self, node: Node) -> usize {
        self.out.commands.push(SimpleCommand {
            argv: Vec::new(),
            text: self.raw(node),
            assignments: Vec::new(),
            redirects: self.inherited.clone(),
            words_problem: None,
            needs_confinement: None,
            git_dirs: Vec::new(),
            other_problems: Vec::new(),
        });
        self.out.commands.len() - 1
    }

    pub(super) fn set_words(
        &mut self,
        idx: usize,
        words: &[Word],
        judged: Result<ReadOnly, String>,
    ) {
        let Some(c) = self.out.commands.get_mut(idx) else {
            return;
        };
        c.argv = words.iter().map(|w| w.text.clone()).collect();
        match judged {
            Ok(ReadOnly { confined, git_dirs }) => {
                c.git_dirs = git_dirs;
                if let Some(why) = confined {
                    c.needs_confinement = Some(why.clone());
                    self.out.needs_confinement.get_or_insert(why);
                }
            }
            Err(why) => {
                c.words_problem = Some(why.clone());
                self.out.problems.push(why);
            }
        }
    }

    pub(super) fn command(&mut self, node: Node, depth: usize) {
        let idx = self.new_command(node);
        let saved = self.current.replace(idx);
        let mut words = Vec::new();
        for (field, child) in fields(node) {
            match (field, child.kind()) {
                (_, "variable_assignment") => self.prefix_assignment(idx, child, depth),
                (_, "file_redirect" | "heredoc_redirect" | "herestring_redirect") => {
                    let found = self.redirect(child, depth);
                    self.attach(found);
                }
                (Some("name"), _) => {
                    let inner = named_children(child);
                    words.push(match inner.as_slice() {
                        [only] => words::word(*only, self.src),
                        _ => words::word(child, self.src),
                    });
                    self.walk(child, depth + 1);
                }
                (Some("argument"), _) => {
                    words.push(words::word(child, self.src));
                    self.walk(child, depth + 1);
                }
                _ if child.is_named() => self.walk(child, depth + 1),
                _ => {}
            }
        }
        if words
            .first()
            .is_some_and(|w| !w.dynamic && w.text == "read")
        {
            for name in builtins::read_targets(&words[1..]) {
                self.vars.assigned(&name, false);
            }
        }
        let judged = programs::judge(&words);
        self.set_words(idx, &words, judged);
        self.current = saved;
    }

    /// `NAME=value` before a command: in that command's environment.
    pub(super) fn prefix_assignment(&mut self, idx: usize, node: Node, depth: usize) {
        let (name, value) = self.assignment_parts(node);
        if let Some(c) = self.out.commands.get_mut(idx) {
            c.assignments.push(Assignment {
                name: name.clone(),
                value: value.clone().unwrap_or_else(|| "…".into()),
            });
        }
        self.check_assignment(&name, value.as_deref(), node, depth);
    }

    /// The assigned name (with any subscript) and the value when it is a
    /// fixed word.
    pub(super) fn assignment_parts(&self, node: Node) -> (String, Option<String>) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.raw(n))
            .unwrap_or_default();
        let value = match node.child_by_field_name("value") {
            None => Some(String::new()),
            Some(v) => {
                let w = words::word(v, self.src);
                (!w.dynamic).then_some(w.text)
            }
        };
        (name, value)
    }

    pub(super) fn check_assignment(
        &mut self,
        name: &str,
        value: Option<&str>,
        node: Node,
        depth: usize,
    ) {
        if let Err(why) = check_assignment_name(name, value) {
            self.problem(why);
        }
        self.vars.assigned(name, value.is_some_and(is_integer));
        if let Some(v) = node.child_by_field_name("value") {
            self.walk(v, depth + 1);
        }
        if let Some(n) = node.child_by_field_name("name") {
            // Subscripts may hold substitutions.
            self.walk(n, depth + 1);
        }
    }

    pub(super) fn assignment(&mut self, node: Node, depth: usize) {
        let (name, value) = self.assignment_parts(node);
        self.check_assignment(&name, value.as_deref(), node, depth);
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    pub(super) fn words_are_unquoted() {
        let out = walk(r#"grep -n 'a b' "c d" e\ f $'g\th' "x\"y" {} ''"#);
        assert_eq!(
            out.commands[0].argv,
            ["grep", "-n", "a b", "c d", "e f", "g\th", "x\"y", "{}", ""]
        );
    }

    #[test]
    pub(super) fn expansions_keep_their_source_text() {
        let out = walk(r#"echo "$HOME/x" ${y} $(ls) a{b,c}"#);
        assert_eq!(
            out.commands[0].argv,
            ["echo", "\"$HOME/x\"", "${y}", "$(ls)", "a{b,c}"]
        );
        assert_eq!(out.commands[1].argv, ["ls"]);
    }

    #[test]
    pub(super) fn redirections_travel_with_their_commands() {
        let out = walk("{ ls; pwd; } > out 2>&1; cat < in");
        assert_eq!(out.commands.len(), 3);
        for c in &out.commands[..2] {
            assert!(
                c.redirects.iter().any(|r| r.writes && r.target == "out"),
                "{c:?}"
            );
        }
        assert!(out.commands[2].redirects.iter().all(|r| !r.writes));
        let out = walk("x=1 git log > log.txt");
        assert_eq!(out.commands[0].assignments[0].name, "x");
        assert_eq!(out.commands[0].redirects[0].target, "log.txt");
    }
}
