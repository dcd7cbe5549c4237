//! Redirections in the walk: which write a file, how those written around
//! a compound statement reach every command inside it, and the cross-check
//! of the walk against the independent scan of [`super::belt`].

use tree_sitter::Node;

use super::parse::{Walker, clip, fields};
use super::words::{self, Word};
use super::{Redirect, belt};

impl Walker<'_> {
    /// Redirections wrapped around a statement apply to every command in it.
    pub(super) fn redirected(&mut self, node: Node, depth: usize) {
        let mut found = Vec::new();
        for (field, child) in fields(node) {
            if field == Some("redirect") {
                found.extend(self.redirect(child, depth));
            }
        }
        let before = self.out.commands.len();
        let depth_before = self.inherited.len();
        self.inherited.extend(found.iter().cloned());
        if let Some(body) = node.child_by_field_name("body") {
            self.walk(body, depth + 1);
        }
        self.inherited.truncate(depth_before);
        if self.out.commands.len() == before {
            // No command to carry them (`> f` alone, `[[ ]] > f`...).
            for r in found.iter().filter(|r| r.writes) {
                self.out.line_problems.push(r.reason());
            }
        }
    }

    /// Redirections found directly on a command.
    pub(super) fn attach(&mut self, found: Vec<Redirect>) {
        match self.current.and_then(|i| self.out.commands.get_mut(i)) {
            Some(c) => c.redirects.extend(found),
            None => {
                for r in found.iter().filter(|r| r.writes) {
                    self.out.line_problems.push(r.reason());
                }
            }
        }
    }

    /// The redirections of one redirect node (a here-document may carry
    /// more), with the reasons of those that write recorded in order.
    pub(super) fn redirect(&mut self, node: Node, depth: usize) -> Vec<Redirect> {
        let mut out = Vec::new();
        let parts = fields(node);
        let op = parts
            .iter()
            .find(|(f, n)| f.is_none() && !n.is_named())
            .map(|(_, n)| n.kind().to_string())
            .unwrap_or_default();
        let fd = parts
            .iter()
            .find(|(f, _)| *f == Some("descriptor"))
            .map(|(_, n)| self.raw(*n));
        if fd.as_deref().is_some_and(|d| d.starts_with('{')) {
            self.problem(format!(
                "`{}` stores a file descriptor in a variable",
                self.raw(node)
            ));
        }
        match node.kind() {
            "heredoc_redirect" => {
                for (field, child) in &parts {
                    match (field, child.kind()) {
                        (Some("argument"), _) => {
                            self.problem("words after a here-document marker cannot be checked")
                        }
                        (_, "file_redirect" | "heredoc_redirect" | "herestring_redirect") => {
                            out.extend(self.redirect(*child, depth));
                        }
                        (_, "heredoc_body") => self.walk(*child, depth + 1),
                        _ => {}
                    }
                }
                out.push(Redirect::reading(fd, "<<", ""));
                return out;
            }
            "herestring_redirect" => {
                self.walk_children(node, depth);
                out.push(Redirect::reading(fd, "<<<", ""));
                return out;
            }
            _ => {}
        }
        let dests: Vec<Node> = parts
            .iter()
            .filter(|(f, _)| *f == Some("destination"))
            .map(|(_, n)| *n)
            .collect();
        let dest_words: Vec<Word> = dests.iter().map(|d| words::word(*d, self.src)).collect();
        for dest in &dests {
            self.walk(*dest, depth + 1);
        }
        let target = dest_words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let dynamic = dest_words.iter().any(|w| w.dynamic);
        let single = dest_words.len() == 1;
        let is_fd = single
            && !dynamic
            && (target == "-"
                || (!target.is_empty() && target.bytes().all(|b| b.is_ascii_digit())));
        let redirect = match op.as_str() {
            "<" if single => Redirect::reading(fd, &op, &target),
            "<&" | "<&-" | ">&-" if dest_words.len() <= 1 => Redirect::reading(fd, &op, &target),
            ">&" if is_fd => Redirect::reading(fd, &op, &target),
            ">" | ">>" | "&>" | "&>>" | ">|" | ">&" | "<>" if single => {
                let sink = !dynamic
                    && matches!(target.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr");
                Redirect {
                    fd,
                    op: op.clone(),
                    target,
                    dynamic,
                    writes: !sink,
                }
            }
            _ => {
                self.problem(format!(
                    "the redirection `{}` cannot be checked",
                    clip(&self.raw(node), 40)
                ));
                return out;
            }
        };
        if redirect.writes {
            self.out.problems.push(redirect.reason());
        }
        out.push(redirect);
        out
    }

    /// Every place where bash would start a substitution must be one the
    /// walk checked.
    pub(super) fn cross_check(&mut self, src: &str) {
        match belt::active_openers(src) {
            Err(why) => {
                if self.out.problems.is_empty() {
                    self.problem(why);
                }
            }
            Ok(openers) => {
                // The grammar sometimes starts a node at the blank before
                // the `$`.
                let bytes = src.as_bytes();
                let walked = |at: usize| {
                    self.starts.range(..=at).next_back().is_some_and(|&s| {
                        bytes
                            .get(s..at)
                            .is_some_and(|gap| gap.iter().all(|b| b.is_ascii_whitespace()))
                    })
                };
                let missed = openers.into_iter().find(|&at| {
                    !walked(at) && !self.checked.iter().any(|&(a, b)| a <= at && at < b)
                });
                if let Some(at) = missed {
                    let here = clip(src.get(at..).unwrap_or_default(), 30);
                    self.problem(format!(
                        "the expansion at `{here}` is one the analysis could not follow"
                    ));
                }
            }
        }
    }
}

impl Redirect {
    pub(super) fn reading(fd: Option<String>, op: &str, target: &str) -> Redirect {
        Redirect {
            fd,
            op: op.to_string(),
            target: target.to_string(),
            dynamic: false,
            writes: false,
        }
    }

    /// Why this redirection is not read-only.
    pub fn reason(&self) -> String {
        if self.dynamic {
            format!(
                "it redirects output to `{}`, a file only known when the command runs",
                self.target
            )
        } else {
            format!(
                "it redirects output to `{}`, which writes a file",
                self.target
            )
        }
    }
}
