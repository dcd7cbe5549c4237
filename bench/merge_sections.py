#!/usr/bin/env python3
"""Carries hand-maintained and not-re-measured sections into a regenerated BENCHMARKS.md.

Usage: merge_sections.py PREVIOUS NEW   (NEW is rewritten in place)

bench/run.sh regenerates docs/BENCHMARKS.md from what it measured. Sections it does
not own (written by other scripts or by hand) and sections it skipped this time
("Not run this time ...") would otherwise be lost; this keeps the earlier text of
both. Sections are matched by their `## ` heading, ignoring a trailing "(...)".
"""
import re
import sys


def split(text):
    """Returns (preamble, [(heading, body)]) for a Markdown document."""
    parts = re.split(r"(?m)^(## .*)$", text)
    preamble = parts[0]
    sections = [(parts[i], parts[i + 1]) for i in range(1, len(parts), 2)]
    return preamble, sections


def key(heading):
    return re.sub(r"\s*\(.*\)\s*$", "", heading).strip().lower()


def main(previous_path, new_path):
    with open(previous_path, encoding="utf-8") as f:
        previous = f.read()
    with open(new_path, encoding="utf-8") as f:
        new = f.read()
    _, old_sections = split(previous)
    preamble, new_sections = split(new)
    old_by_key = {key(h): (h, b) for h, b in old_sections}
    new_keys = {key(h) for h, _ in new_sections}
    merged = []
    for heading, body in new_sections:
        old = old_by_key.get(key(heading))
        if body.strip().startswith("Not run this time") and old and not old[1].strip().startswith("Not run this time"):
            note = "\n_Not re-measured by the latest run; figures from an earlier run:_\n"
            old_body = old[1].replace(note, "")
            merged.append((heading, note + old_body))
        else:
            merged.append((heading, body))
    for heading, body in old_sections:
        if key(heading) not in new_keys:
            merged.append((heading, body))
    out = preamble + "".join(h + (b if b.endswith("\n") else b + "\n") for h, b in merged)
    with open(new_path, "w", encoding="utf-8") as f:
        f.write(out.rstrip("\n") + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: merge_sections.py PREVIOUS NEW")
    main(sys.argv[1], sys.argv[2])
