//! The statements of the walk that are not plain commands: declarations
//! (`declare`, `export`, `local`...), `unset`, `[[ ]]`/`[ ]` tests and `for`
//! loops, each judged on the names they assign and what they evaluate.

use tree_sitter::Node;

use super::builtins;
use super::expand::{check_arithmetic, check_assignment_name};
use super::parse::{Walker, fields, is_integer, named_children};
use super::programs::ReadOnly;
use super::words::{self, Word};

impl Walker<'_> {
    /// `declare`, `typeset`, `local`, `export`, `readonly`.
    pub(super) fn declaration(&mut self, node: Node, depth: usize) {
        let idx = self.new_command(node);
        let saved = self.current.replace(idx);
        let mut words = Vec::new();
        for (field, child) in fields(node) {
            if !child.is_named() {
                // The keyword itself.
                if field.is_none() && words.is_empty() {
                    words.push(Word::lit(&self.raw(child)));
                }
                continue;
            }
            match child.kind() {
                "variable_assignment" => {
                    let (name, value) = self.assignment_parts(child);
                    words.push(Word::lit(&self.raw(child)));
                    let array = child
                        .child_by_field_name("value")
                        .is_some_and(|v| v.kind() == "array");
                    if !array && value.as_deref().is_some_and(quoted_compound) {
                        self.problem(quoted_compound_problem(&name));
                    }
                    self.check_assignment(&name, value.as_deref(), child, depth);
                }
                "variable_name" => words.push(Word::lit(&self.raw(child))),
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    let found = self.redirect(child, depth);
                    self.attach(found);
                }
                _ => {
                    let w = words::word(child, self.src);
                    self.walk(child, depth + 1);
                    if w.dynamic {
                        self.problem(format!(
                            "`{}` is given `{}`, only known when the command runs",
                            words
                                .first()
                                .map(|w: &Word| w.text.as_str())
                                .unwrap_or("declare"),
                            w.text
                        ));
                    } else if let Some(flags) = w
                        .text
                        .strip_prefix('-')
                        .or_else(|| w.text.strip_prefix('+'))
                    {
                        if let Some(bad) = flags.chars().find(|c| !"aArxglupfF".contains(*c)) {
                            self.problem(format!(
                                "`{} -{bad}` changes how the variable is evaluated",
                                words
                                    .first()
                                    .map(|w: &Word| w.text.as_str())
                                    .unwrap_or("declare")
                            ));
                        }
                    } else if let Some((name, value)) = w.text.split_once('=') {
                        // `export 'NAME=value'` assigns like `NAME=value`.
                        let name = name.strip_suffix('+').unwrap_or(name);
                        if quoted_compound(value) {
                            self.problem(quoted_compound_problem(name));
                        }
                        if let Err(why) = check_assignment_name(name, Some(value)) {
                            self.problem(why);
                        }
                        self.vars.assigned(name, is_integer(value));
                    } else if let Err(why) = builtins::plain_name("declare", &w) {
                        self.problem(why);
                    }
                    words.push(w);
                }
            }
        }
        self.set_words(idx, &words, Ok(ReadOnly::ALWAYS));
        self.current = saved;
    }

    pub(super) fn unset(&mut self, node: Node, depth: usize) {
        let idx = self.new_command(node);
        let saved = self.current.replace(idx);
        let mut words = vec![Word::lit("unset")];
        for child in named_children(node) {
            let w = words::word(child, self.src);
            self.walk(child, depth + 1);
            let ok = matches!(w.text.as_str(), "-v" | "-f") && !w.dynamic
                || builtins::plain_name("unset", &w).is_ok();
            if !ok {
                self.problem(format!(
                    "`unset {}` is given a name that is not plain",
                    w.text
                ));
            }
            words.push(w);
        }
        self.set_words(idx, &words, Ok(ReadOnly::ALWAYS));
        self.current = saved;
    }

    /// `[[ ... ]]` and `[ ... ]`.
    pub(super) fn test_command(&mut self, node: Node, depth: usize) {
        let idx = self.new_command(node);
        let saved = self.current.replace(idx);
        let raw = self.raw(node);
        let double = raw.starts_with("[[");
        self.test_expression(node, double, &raw);
        self.walk_children(node, depth);
        let program = if double { "[[" } else { "[" };
        self.set_words(idx, &[Word::lit(program)], Ok(ReadOnly::ALWAYS));
        self.current = saved;
    }

    /// `-v NAME` needs a plain name; inside `[[`, the operands of `-eq` and
    /// friends are arithmetic.
    pub(super) fn test_expression(&mut self, node: Node, double: bool, context: &str) {
        let children = named_children(node);
        let operator = children
            .iter()
            .find(|c| c.kind() == "test_operator")
            .map(|c| self.raw(*c));
        match (node.kind(), operator.as_deref()) {
            ("unary_expression", Some("-v" | "-R")) => {
                if let Some(operand) = children.iter().find(|c| c.kind() != "test_operator") {
                    let w = words::word(*operand, self.src);
                    if let Err(why) = builtins::plain_name("-v", &w) {
                        self.problem(why);
                    }
                }
            }
            ("binary_expression", Some("-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge"))
                if double =>
            {
                for operand in children.iter().filter(|c| c.kind() != "test_operator") {
                    let text = self.raw(*operand);
                    let text = text
                        .strip_prefix('"')
                        .and_then(|t| t.strip_suffix('"'))
                        .unwrap_or(&text);
                    if let Err(why) = check_arithmetic(text, context, &mut self.vars) {
                        self.problem(why);
                    }
                }
            }
            _ => {}
        }
        for child in children {
            if matches!(
                child.kind(),
                "binary_expression" | "unary_expression" | "parenthesized_expression"
            ) {
                self.test_expression(child, double, context);
            }
        }
    }

    pub(super) fn for_loop(&mut self, node: Node, depth: usize) {
        if let Some(var) = node.child_by_field_name("variable") {
            let name = self.raw(var);
            if let Err(why) = check_assignment_name(&name, None) {
                self.problem(format!("the loop variable: {why}"));
            }
            let values: Vec<Node> = fields(node)
                .into_iter()
                .filter(|(f, _)| *f == Some("value"))
                .map(|(_, n)| n)
                .collect();
            let numeric = !values.is_empty()
                && values
                    .iter()
                    .all(|v| v.kind() == "number" || is_integer(&self.raw(*v)));
            self.vars.assigned(&name, numeric);
        }
        self.walk_children(node, depth);
    }
}

/// A quoted value that reads as an array (`declare -a 'x=( $(cmd) )'`,
/// `typeset -a x='( ... )'`): bash parses it again as a compound
/// assignment and runs what is inside, quotes or not.
fn quoted_compound(value: &str) -> bool {
    value.trim_start().starts_with('(')
}

fn quoted_compound_problem(name: &str) -> String {
    format!(
        "`{name}` is given a quoted `( ... )` value, which a declaration evaluates as an array, expansions included"
    )
}
