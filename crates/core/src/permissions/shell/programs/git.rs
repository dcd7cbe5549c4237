//! Which `git` invocations only read: global options (and the `-c` settings
//! that would make git run another program), then the subcommand and, for
//! the subcommands with both reading and writing forms (`branch`, `tag`,
//! `config`, `remote`, `reflog`, `stash`, `worktree`), the listing forms.

use super::{Judged, ReadOnly, long_option_is, no_dynamic_options, short_cluster};
use crate::permissions::shell::words::Word;

/// Subcommands that never change the repository, checked only for the few
/// options that write a file or run a program.
const READERS: &[&str] = &[
    "annotate",
    "blame",
    "cat-file",
    "check-attr",
    "check-ignore",
    "cherry",
    "count-objects",
    "describe",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "for-each-ref",
    "grep",
    "log",
    "ls-files",
    "ls-tree",
    "merge-base",
    "name-rev",
    "range-diff",
    "rev-list",
    "rev-parse",
    "shortlog",
    "show",
    "show-branch",
    "show-ref",
    "status",
    "version",
    "whatchanged",
];

/// Subcommands that reach another repository, usually over the network:
/// never read-only, whatever they would fetch or show.
const NETWORK: &[&str] = &[
    "ls-remote",
    "fetch",
    "pull",
    "push",
    "clone",
    "archive",
    "submodule",
    "request-pull",
    "fetch-pack",
    "send-pack",
    "http-fetch",
    "bundle",
];

/// Judges `git ARGS`. A read-only verdict says where git runs (`-C`), for
/// the permission layer to check that it is the project's repository.
pub(in crate::permissions::shell) fn check(args: &[Word]) -> Judged {
    let mut dir = String::from(".");
    check_words(args, &mut dir)?;
    Ok(ReadOnly {
        git_dirs: vec![dir],
        ..ReadOnly::ALWAYS
    })
}

/// `dir` follows the `-C` options (each relative to the one before).
fn check_words(args: &[Word], dir: &mut String) -> Result<(), String> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if w.dynamic {
            return Err(format!(
                "`git` gets an argument only known at run time (`{t}`)"
            ));
        }
        match t {
            "-C" => {
                let to = args.get(i + 1).ok_or("`git -C` without a directory")?;
                if to.dynamic {
                    return Err(format!(
                        "`git -C {}` runs in a directory only known at run time",
                        to.text
                    ));
                }
                // An empty `-C ''` leaves the directory as it is.
                if !to.text.is_empty() {
                    *dir = if dir.as_str() == "." {
                        to.text.clone()
                    } else {
                        format!("{dir}/{}", to.text)
                    };
                }
                // Whether that is still the project is for the permission
                // layer to check on disk (absolute paths included); going
                // up or home is never read-only.
                if dir.starts_with('~') || dir.split('/').any(|part| part == "..") {
                    return Err(format!(
                        "`git -C {}` runs git outside the directory it was started in, where the repository could be anyone's",
                        to.text
                    ));
                }
                i += 2;
            }
            // Naming the repository itself skips discovery: whatever
            // configuration is there applies, so it is never read-only.
            "--git-dir" | "--work-tree" | "--bare" => {
                return Err(format!(
                    "`git {t}` points git at a repository directly, whose configuration can run programs"
                ));
            }
            _ if t.starts_with("--git-dir=") || t.starts_with("--work-tree=") => {
                return Err(format!(
                    "`git {t}` points git at a repository directly, whose configuration can run programs"
                ));
            }
            "--namespace" => i += 2,
            "-c" | "--config-env" => {
                let setting = args
                    .get(i + 1)
                    .ok_or_else(|| format!("`git {t}` without a setting"))?;
                if setting.dynamic {
                    return Err(format!(
                        "`git {t} {}` sets a value only known at run time",
                        setting.text
                    ));
                }
                check_setting(&setting.text)?;
                i += 2;
            }
            // Not `-p`/`--paginate`: a forced pager runs whatever the
            // repository's configuration names.
            "--no-pager"
            | "-P"
            | "--no-replace-objects"
            | "--literal-pathspecs"
            | "--glob-pathspecs"
            | "--noglob-pathspecs"
            | "--icase-pathspecs"
            | "--no-optional-locks"
            | "--no-advice" => i += 1,
            "--version" | "--exec-path" | "--html-path" | "--man-path" | "--info-path" => {
                return Ok(());
            }
            _ if t.starts_with("--config-env=") => {
                check_setting(&t["--config-env=".len()..])?;
                i += 1;
            }
            _ if t.starts_with("--namespace=") => i += 1,
            _ if t.starts_with('-') => {
                return Err(format!("`git {t}` is an option the analysis does not know"));
            }
            _ => break,
        }
    }
    let Some(sub) = args.get(i) else {
        return Ok(());
    };
    let rest = &args[i + 1..];
    let sub = sub.text.as_str();
    if READERS.contains(&sub) {
        return reader(sub, rest);
    }
    if NETWORK.contains(&sub) {
        return Err(format!(
            "`git {sub}` can reach another repository over the network, which only the user may allow"
        ));
    }
    no_dynamic_options("git", rest)?;
    let first = rest.first().map(|w| w.text.as_str());
    match sub {
        "branch" => listing("branch", rest, BRANCH_FLAGS),
        "tag" => listing("tag", rest, TAG_FLAGS),
        "config" => config(rest),
        "remote" => remote(rest),
        // `git reflog [show]` takes `git log`'s options, `--output` included.
        "reflog" => match first {
            None => Ok(()),
            Some("show") => reader("reflog", &rest[1..]),
            Some(f) if f.starts_with('-') => reader("reflog", rest),
            Some(other) => Err(format!("`git reflog {other}` changes the reflog")),
        },
        "stash" => match first {
            Some("list" | "show") => Ok(()),
            _ => Err("`git stash` without `list` or `show` changes the working tree".into()),
        },
        "worktree" => match first {
            Some("list") => Ok(()),
            _ => Err("`git worktree` without `list` changes worktrees".into()),
        },
        _ => Err(format!(
            "`git {sub}` can change the repository or run other programs"
        )),
    }
}

/// `git remote` listing forms. `show NAME` asks the remote itself (over
/// the network) unless `-n` says to show only what is known locally.
fn remote(rest: &[Word]) -> Result<(), String> {
    // `-v` may precede a subcommand (`git remote -v add ...`).
    let words: Vec<&str> = rest
        .iter()
        .map(|w| w.text.as_str())
        .filter(|t| *t != "-v" && *t != "--verbose")
        .collect();
    match words.split_first() {
        None | Some((&"get-url", _)) => Ok(()),
        Some((&"show", args)) => {
            let names = args.iter().filter(|a| !a.starts_with('-')).count();
            if names == 0 || args.contains(&"-n") {
                Ok(())
            } else {
                Err("`git remote show NAME` contacts the remote over the network (`-n` shows what is known locally)".into())
            }
        }
        Some((other, _)) => Err(format!("`git remote {other}` changes remotes")),
    }
}

/// Settings that may be given with `-c`: how output looks, never which
/// program runs or which files are read as configuration.
fn check_setting(setting: &str) -> Result<(), String> {
    let key = setting
        .split('=')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    const SECTIONS: &[&str] = &["color.", "log.", "grep.", "blame.", "column."];
    const EXACT: &[&str] = &[
        "core.quotepath",
        "core.abbrev",
        "diff.noprefix",
        "diff.mnemonicprefix",
        "diff.renames",
        "diff.algorithm",
        "diff.relative",
        "diff.context",
        "diff.interhunkcontext",
        "diff.statgraphwidth",
        "diff.submodule",
        "diff.colormoved",
        "format.pretty",
        "advice.detachedhead",
        "i18n.logoutputencoding",
    ];
    let harmless = (SECTIONS.iter().any(|p| key.starts_with(p)) && key != "log.showsignature")
        || EXACT.contains(&key.as_str());
    if harmless {
        Ok(())
    } else {
        Err(format!(
            "`git -c {key}=...` is a setting the analysis does not know to be harmless"
        ))
    }
}

fn reader(sub: &str, rest: &[Word]) -> Result<(), String> {
    no_dynamic_options("git", rest)?;
    for w in rest {
        let t = w.text.as_str();
        if t == "--" {
            break;
        }
        // Git accepts any unambiguous abbreviation of a long option, so
        // every prefix counts.
        if long_option_is(t, "output", 1) || long_option_is(t, "output-directory", 1) {
            return Err(format!("`git {sub} --output` writes a file"));
        }
        if long_option_is(t, "ext-diff", 1) {
            return Err(format!(
                "`git {sub} --ext-diff` runs an external diff program"
            ));
        }
        if sub == "grep"
            && (short_cluster(t).is_some_and(|c| c.contains('O'))
                || long_option_is(t, "open-files-in-pager", 1))
        {
            return Err("`git grep -O` opens the matches in another program".into());
        }
    }
    Ok(())
}

/// Flags of `git branch` that only list; `true` when the flag alone makes
/// it a listing (so names after it are patterns, not new branches).
const BRANCH_FLAGS: &[(&str, bool)] = &[
    ("--list", true),
    ("-l", true),
    ("--contains", true),
    ("--no-contains", true),
    ("--merged", true),
    ("--no-merged", true),
    ("--points-at", true),
    ("-a", false),
    ("--all", false),
    ("-r", false),
    ("--remotes", false),
    ("-v", false),
    ("-vv", false),
    ("--verbose", false),
    ("--show-current", false),
    ("-i", false),
    ("--ignore-case", false),
    ("--color", false),
    ("--no-color", false),
    ("--column", false),
    ("--no-column", false),
    ("--no-abbrev", false),
    ("--omit-empty", false),
    ("--sort", false),
    ("--format", false),
    ("--abbrev", false),
];

const TAG_FLAGS: &[(&str, bool)] = &[
    ("--list", true),
    ("-l", true),
    ("-n", true),
    ("--contains", true),
    ("--no-contains", true),
    ("--merged", true),
    ("--no-merged", true),
    ("--points-at", true),
    ("-i", false),
    ("--ignore-case", false),
    ("--color", false),
    ("--column", false),
    ("--no-column", false),
    ("--omit-empty", false),
    ("--sort", false),
    ("--format", false),
];

/// Options of `branch`/`tag` that always take the next word as their value,
/// whatever it looks like (`--sort -l` sorts by `-l`; it does not list).
const REQUIRES_VALUE: &[&str] = &["--points-at", "--sort", "--format"];

/// Options of `branch`/`tag` whose value is optional: the next word is
/// theirs unless it starts with `-` (git's "last argument default").
const OPTIONAL_VALUE: &[&str] = &["--contains", "--no-contains", "--merged", "--no-merged"];

/// `git branch`/`git tag` in a listing form: only the known listing flags,
/// and names only when the command lists (they are patterns then).
fn listing(sub: &str, rest: &[Word], flags: &[(&str, bool)]) -> Result<(), String> {
    let mut lists = false;
    let mut names = Vec::new();
    let mut i = 0;
    while let Some(w) = rest.get(i) {
        let t = w.text.as_str();
        i += 1;
        if !t.starts_with('-') {
            names.push(t);
            continue;
        }
        let (flag, inline_value) = match t.split_once('=') {
            Some((f, _)) => (f, true),
            None => (t, false),
        };
        // `-n5` for `git tag -n5`.
        let flag = if sub == "tag"
            && flag.starts_with("-n")
            && flag[2..].bytes().all(|b| b.is_ascii_digit())
        {
            "-n"
        } else {
            flag
        };
        let Some((_, implies_list)) = flags.iter().find(|(f, _)| *f == flag) else {
            let things = if sub == "tag" { "tags" } else { "branches" };
            return Err(format!(
                "`git {sub} {t}` changes {things} or is not understood"
            ));
        };
        lists |= *implies_list;
        if inline_value {
            continue;
        }
        if REQUIRES_VALUE.contains(&flag) {
            if rest.get(i).is_none() {
                return Err(format!("`git {sub} {flag}` without its value"));
            }
            i += 1;
        } else if OPTIONAL_VALUE.contains(&flag)
            && rest.get(i).is_some_and(|next| !next.text.starts_with('-'))
        {
            i += 1;
        }
    }
    match names.first() {
        Some(name) if !lists => Err(format!(
            "`git {sub} {name}` creates a {sub}; only listing forms are read-only"
        )),
        _ => Ok(()),
    }
}

fn config(rest: &[Word]) -> Result<(), String> {
    const READ_MODES: &[&str] = &[
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--get-color",
        "--get-colorbool",
        "--list",
        "-l",
    ];
    const NEUTRAL: &[&str] = &[
        "--global",
        "--system",
        "--local",
        "--worktree",
        "--show-origin",
        "--show-scope",
        "--name-only",
        "--show-names",
        "--null",
        "-z",
        "--includes",
        "--no-includes",
        "--bool",
        "--int",
        "--path",
        "--bool-or-int",
        "--expiry-date",
        "--all",
        "--regexp",
        "--fixed-value",
    ];
    const WITH_VALUE: &[&str] = &["--file", "-f", "--blob", "--type", "--default"];
    let mut reads = false;
    let mut names = 0;
    let mut i = 0;
    while let Some(w) = rest.get(i) {
        let t = w.text.as_str();
        i += 1;
        let subcommand = i == 1 && matches!(t, "get" | "list");
        if !t.starts_with('-') && !subcommand {
            // A key has a section (`user.email`); a bare word is a
            // subcommand such as `edit` or `set`.
            names += if t.contains('.') { 1 } else { 2 };
            continue;
        }
        if (i == 1 && matches!(t, "get" | "list")) || READ_MODES.contains(&t) {
            reads = true;
        } else if WITH_VALUE.contains(&t) {
            i += 1;
        } else if NEUTRAL.contains(&t)
            || [
                "--file=",
                "--blob=",
                "--type=",
                "--default=",
                "--value=",
                "--url=",
            ]
            .iter()
            .any(|p| t.starts_with(p))
        {
        } else if t.starts_with('-') {
            return Err(format!(
                "`git config {t}` changes configuration or is not understood"
            ));
        }
    }
    // `git config NAME` with no value reads it.
    if reads || names == 1 {
        Ok(())
    } else {
        Err("`git config` without `--get` or `--list` changes configuration".into())
    }
}
