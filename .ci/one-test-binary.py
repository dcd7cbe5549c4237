#!/usr/bin/env python3
"""Keeps catui's command-line tests in one test binary.

Every `crates/cli/tests/NAME.rs` becomes the module `suite::NAME` of the one
binary `crates/cli/tests/all.rs` (file `crates/cli/tests/suite/NAME.rs`), so
CI compiles and links the workspace into one test executable instead of one
per file. Shared set-up stays in `crates/cli/tests/common/`, declared once in
`all.rs`.

Re-runnable: run it again after a rebase (or after someone adds a test file
at the top level) and it moves what is new, regenerates `suite/mod.rs`, and
leaves what is already moved alone. It also:
- renames the insta snapshots of a moved file (`snapshots/NAME__x.snap` ->
  `suite/snapshots/all__suite__NAME__x.snap`: insta names them after the
  module path, beside the source file);
- points `.ci/*` at `--test all` with a filter on the module instead of
  `--test NAME`;
- rewrites `crates/cli/tests/NAME.rs` paths in docs and comments.

Usage: python3 .ci/one-test-binary.py   (from anywhere in the repository)
"""

import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
TESTS = os.path.join(ROOT, "crates", "cli", "tests")
SUITE = os.path.join(TESTS, "suite")
BINARY = "all"

ALL_RS = """//! catui's command-line tests, in one test binary: each file under
//! `suite/` is one behaviour's tests (run one group with
//! `cargo nextest run -p catui --test all suite::NAME::`), and `common/` is
//! the set-up they share. One binary links the workspace once instead of
//! once per file (`.ci/one-test-binary.py` keeps it so).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod suite;
"""


def git(*args):
    subprocess.run(["git", "-C", ROOT, *args], check=True)


def move_test_files():
    """Moves top-level test files into suite/; returns the moved names."""
    os.makedirs(SUITE, exist_ok=True)
    moved = []
    for entry in sorted(os.listdir(TESTS)):
        path = os.path.join(TESTS, entry)
        if not entry.endswith(".rs") or entry == BINARY + ".rs" or not os.path.isfile(path):
            continue
        name = entry[:-3]
        target = os.path.join(SUITE, entry)
        if os.path.exists(target):
            sys.exit(f"{target} exists already; merge {path} into it by hand")
        git("mv", path, target)
        moved.append(name)
    return moved


def as_suite_module(path):
    """A file that was its own crate becomes a module of the binary."""
    with open(path) as f:
        text = f.read()
    uses_common = re.search(r"\bcommon::", text) is not None
    # `mod common;` declared the set-up per binary; the one binary declares
    # it once at its root.
    replacement = "use crate::common;" if uses_common else ""
    text = re.sub(r"^mod common;\n", replacement + ("\n" if replacement else ""), text, flags=re.M)
    # Files the tests include by a path relative to themselves.
    text = re.sub(
        r'(include_str!|include_bytes!)\("(?!\.\./)([^"]+)"\)',
        lambda m: f'{m.group(1)}("../{m.group(2)}")',
        text,
    )
    text = re.sub(
        r'#\[path = "(?!\.\./)([^"]+)"\]', lambda m: f'#[path = "../{m.group(1)}"]', text
    )
    with open(path, "w") as f:
        f.write(text)


def write_suite_mod():
    names = sorted(e[:-3] for e in os.listdir(SUITE) if e.endswith(".rs") and e != "mod.rs")
    lines = [
        "//! The command-line tests, one module per behaviour (see `../all.rs`).",
        "",
    ]
    lines += [f"mod {name};" for name in names]
    with open(os.path.join(SUITE, "mod.rs"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(TESTS, BINARY + ".rs"), "w") as f:
        f.write(ALL_RS)
    return names


def move_snapshots(moved):
    old_dir = os.path.join(TESTS, "snapshots")
    new_dir = os.path.join(SUITE, "snapshots")
    if not os.path.isdir(old_dir):
        return
    for entry in sorted(os.listdir(old_dir)):
        stem = entry.split("__", 1)[0]
        if stem in moved and entry.endswith(".snap"):
            os.makedirs(new_dir, exist_ok=True)
            git("mv", os.path.join(old_dir, entry), os.path.join(new_dir, f"{BINARY}__suite__{entry}"))


def tracked_text_files():
    out = subprocess.run(
        ["git", "-C", ROOT, "ls-files"], check=True, capture_output=True, text=True
    ).stdout.split("\n")
    for rel in out:
        if not rel or rel.startswith("crates/cli/tests/suite/snapshots/"):
            continue
        if rel.endswith((".md", ".rs", ".toml", ".py", ".sh")) or rel.startswith(".ci/"):
            yield rel


def rewrite_references(names):
    """`--test NAME` in CI scripts and `cli/tests/NAME.rs` paths everywhere."""
    known = set(names)

    def path_ref(m):
        return f"{m.group(1)}cli/tests/suite/{m.group(2)}.rs" if m.group(2) in known else m.group(0)

    for rel in tracked_text_files():
        path = os.path.join(ROOT, rel)
        if rel == ".ci/one-test-binary.py":
            continue
        with open(path) as f:
            try:
                text = f.read()
            except UnicodeDecodeError:
                continue
        new = re.sub(r"((?:crates/)?)cli/tests/([a-z0-9_]+)\.rs", path_ref, text)
        if rel.startswith(".ci/"):
            new = rewrite_ci_commands(new, known)
        if new != text:
            with open(path, "w") as f:
                f.write(new)


def rewrite_ci_commands(text, known):
    """`cargo nextest run -p catui --test A --test B ...` runs the same tests
    of the one binary, chosen by module; likewise `cargo test`."""

    def nextest(m):
        head, rest = m.group(1), m.group(2)
        picked = [n for n in re.findall(r"--test ([a-z0-9_]+)", rest) if n in known]
        if not picked:
            return m.group(0)
        rest = re.sub(r"\s*--test [a-z0-9_]+", "", rest)
        group = picked[0] if len(picked) == 1 else "(" + "|".join(picked) + ")"
        return f"{head} --test {BINARY}{rest} -E 'test(/^suite::{group}::/)'"

    def cargo_test(m):
        head, rest, after = m.group(1), m.group(2), m.group(3)
        picked = [n for n in re.findall(r"--test ([a-z0-9_]+)", rest) if n in known]
        if not picked:
            return m.group(0)
        rest = re.sub(r"\s*--test [a-z0-9_]+", "", rest)
        filters = " ".join(f"suite::{n}::" for n in picked)
        return f"{head} --test {BINARY}{rest} -- {after} {filters}"

    text = re.sub(
        r"(cargo nextest run -p catui)((?: [^\n]*?)?(?:--test [a-z0-9_]+)[^\n]*)", nextest, text
    )
    text = re.sub(
        r"(cargo test -p catui)((?: [^\n]*?)?--test [a-z0-9_]+[^\n]*?) -- ([^\n]*?)$",
        cargo_test,
        text,
        flags=re.M,
    )
    return text


def main():
    moved = move_test_files()
    for name in moved:
        as_suite_module(os.path.join(SUITE, name + ".rs"))
    names = write_suite_mod()
    move_snapshots(moved)
    rewrite_references(names)
    git("add", "-A", "crates/cli/tests")
    print(f"moved {len(moved)} test files; the binary `{BINARY}` has {len(names)} modules")


if __name__ == "__main__":
    main()
