#!/usr/bin/env bash
# Generates a git repository of a given size for the start-up benchmark:
# TRACKED committed files (one commit) plus UNTRACKED new files, about
# 200 files per directory. Reuses DIR when it already holds that shape.
#
# Usage: bench/gen-repo.sh DIR TRACKED UNTRACKED
set -euo pipefail
DIR=${1:?usage: bench/gen-repo.sh DIR TRACKED UNTRACKED}
TRACKED=${2:?tracked file count}
UNTRACKED=${3:?untracked file count}
MARK="$DIR/.git/catui-bench-shape"
if [ -f "$MARK" ] && [ "$(cat "$MARK")" = "$TRACKED $UNTRACKED" ]; then
    echo "$DIR already holds $TRACKED tracked + $UNTRACKED untracked files" >&2
    exit 0
fi
rm -rf "$DIR"
mkdir -p "$DIR"
python3 - "$DIR" "$TRACKED" "$UNTRACKED" <<'PY'
import os, sys
root, tracked, untracked = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def write(prefix, n):
    for i in range(n):
        d = os.path.join(root, prefix, f"pkg{i // 5000:03}", f"mod{(i // 200) % 25:02}")
        if i % 200 == 0:
            os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i:07}.txt"), "w") as f:
            f.write(f"file {i}\nline two of {prefix}\n")
write("src", tracked)
PY
g() { git -C "$DIR" -c user.name=bench -c user.email=bench@example.invalid \
        -c commit.gpgsign=false -c init.defaultBranch=main "$@"; }
g init -q
g add -A
g commit -q -m "generated tree of $TRACKED files"
python3 - "$DIR" "$UNTRACKED" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "new", f"mod{i // 200:03}")
    if i % 200 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"u{i:07}.txt"), "w") as f:
        f.write(f"untracked {i}\n")
PY
echo "$TRACKED $UNTRACKED" >"$MARK"
echo "generated $DIR: $TRACKED tracked + $UNTRACKED untracked files" >&2
