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
        let duplicates = matches!(op.as_str(), "<&" | ">&" | "<&-" | ">&-");
        if !duplicates && dest_words.iter().any(may_open_network) {
            self.problem(format!(
                "the redirection `{}` may open a network connection (bash's /dev/tcp and /dev/udp)",
                clip(&self.raw(node), 40)
            ));
        }
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

/// Whether bash could take this redirection target for one of its network
/// paths (`/dev/tcp/HOST/PORT`, `/dev/udp/...`): it names one, or starts
/// with text only known when the command runs that could become one.
fn may_open_network(target: &Word) -> bool {
    const NETWORK: [&str; 2] = ["/dev/tcp/", "/dev/udp/"];
    if !target.dynamic {
        return NETWORK.iter().any(|n| target.text.starts_with(n));
    }
    let raw = target.text.trim_start_matches(['"', '\'']);
    if raw.starts_with('~') {
        return false;
    }
    let fixed: String = raw
        .chars()
        .take_while(|c| !"$`*?[{~\\\"'".contains(*c))
        .collect();
    if fixed.is_empty() {
        return true;
    }
    // A relative path never becomes `/dev/...`.
    fixed.starts_with('/')
        && NETWORK
            .iter()
            .any(|n| n.starts_with(fixed.as_str()) || fixed.starts_with(n))
}

/// What a file descriptor of a command refers to, for the reopen check.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fd {
    /// What the command was started with (the Bash tool's pipes).
    Given,
    /// `/dev/null`, or closed.
    Nowhere,
    /// A file the line named (even for reading).
    File,
}

/// Why writing to `/dev/stdout` or `/dev/stderr` in this command would
/// write a file: its descriptor 1 or 2 was pointed at a file first
/// (`1<f >/dev/stdout` opens `f` again, for writing). Outer redirections
/// come first in `redirects`, as bash applies them.
pub(super) fn reopened_output(redirects: &[Redirect]) -> Option<String> {
    let mut fds: std::collections::HashMap<String, Fd> = ["0", "1", "2"]
        .into_iter()
        .map(|n| (n.to_string(), Fd::Given))
        .collect();
    let state = |fds: &std::collections::HashMap<String, Fd>, n: &str| {
        fds.get(n).copied().unwrap_or(Fd::Nowhere)
    };
    for r in redirects {
        let default = if r.op.starts_with('<') { "0" } else { "1" };
        let fd = r.fd.clone().unwrap_or_else(|| default.to_string());
        let through = match r.target.as_str() {
            "/dev/stdout" => Some("1"),
            "/dev/stderr" => Some("2"),
            _ => None,
        };
        if let Some(n) = through
            && !r.dynamic
            && state(&fds, n) == Fd::File
        {
            return Some(format!(
                "`{}{} {}` opens again, for writing, the file descriptor {n} was pointed at",
                r.fd.as_deref().unwrap_or(""),
                r.op,
                r.target
            ));
        }
        if matches!(r.op.as_str(), "<<" | "<<<") {
            continue;
        }
        let copies_fd = matches!(r.op.as_str(), "<&" | ">&")
            && !r.target.is_empty()
            && r.target.bytes().all(|b| b.is_ascii_digit());
        let new = if r.dynamic {
            Fd::File
        } else if copies_fd {
            state(&fds, &r.target)
        } else if let Some(n) = through {
            state(&fds, n)
        } else if r.op.ends_with('-') || r.target == "-" || r.target == "/dev/null" {
            Fd::Nowhere
        } else {
            Fd::File
        };
        // `&> f` and `>& f` (a file, not a descriptor) take both outputs.
        let both_outputs = r.op.starts_with('&') || (r.op == ">&" && !copies_fd && r.fd.is_none());
        if both_outputs {
            fds.insert("1".into(), new);
            fds.insert("2".into(), new);
        } else {
            fds.insert(fd, new);
        }
    }
    // A program told to write to /dev/stdout itself (awk's `print >
    // "/dev/stdout"`) would reopen a file its output descriptor reads.
    ["1", "2"].into_iter().find_map(|n| {
        (state(&fds, n) == Fd::File).then(|| {
            format!("its output descriptor {n} is pointed at a file, which writing to /dev/stdout or /dev/stderr would reopen")
        })
    })
}

impl Walker<'_> {
    /// Every command whose output descriptors point at a file refuses
    /// `/dev/stdout`-style sinks (see [`reopened_output`]). A file opened
    /// for writing is refused already; this catches those opened to read.
    pub(super) fn check_descriptors(&mut self) {
        for i in 0..self.out.commands.len() {
            let reads_only_files = self.out.commands[i].writes().next().is_none();
            if !reads_only_files {
                continue;
            }
            if let Some(why) = reopened_output(&self.out.commands[i].redirects) {
                self.out.commands[i].other_problems.push(why.clone());
                self.out.problems.push(why);
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
