#!/usr/bin/env bash
# Compares catui's Grep and Glob tools with ripgrep and fd on a generated
# tree of 100k+ files, all in one run so the ratios come from the same
# machine state. Prints a Markdown table (min/median/max over the runs).
#
# Usage: bench/search.sh [TREE_DIR] [FILES] [RUNS]
#   TREE_DIR  where the tree is generated (default /tmp/catui-search-bench)
#   FILES     number of files (default 100000)
#   RUNS      hyperfine runs per command (default 10, at least 5)
#
# Needs: cargo; installs ripgrep, fd-find and hyperfine with apt-get when missing.
set -euo pipefail

TREE=${1:-/tmp/catui-search-bench}
FILES=${2:-100000}
RUNS=${3:-10}
if [ "$RUNS" -lt 5 ]; then RUNS=5; fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
OUT=${BENCH_OUT:-$TARGET/search-bench}

need() {
    local bin=$1 pkg=$2
    if ! command -v "$bin" >/dev/null 2>&1; then
        echo "installing $pkg (for $bin)" >&2
        if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
        $SUDO apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$pkg" >&2
    fi
}
need rg ripgrep
need hyperfine hyperfine
FD=fdfind
if ! command -v fdfind >/dev/null 2>&1; then
    if command -v fd >/dev/null 2>&1; then FD=fd; else need fdfind fd-find; fi
fi

echo "building search_bench (release)" >&2
(cd "$ROOT" && cargo build --quiet --release -p catui-core --example search_bench)
BIN="$TARGET/release/examples/search_bench"

"$BIN" gen "$TREE" "$FILES" >&2
mkdir -p "$OUT"
rm -f "$OUT"/*.json

# One untimed pass of each tool over the whole tree first, so the first
# benchmark does not pay for pulling the tree into the page cache.
for _ in 1 2; do
    rg -l catui_bench_warm_up "$TREE" >/dev/null 2>&1 || true
    "$BIN" grep files catui_bench_warm_up "$TREE" >/dev/null 2>&1 || true
done

# Each benchmark: catui's command first, then the reference tool.
bench() {
    local name=$1; shift
    hyperfine -N --style basic --warmup 2 --runs "$RUNS" \
        --export-json "$OUT/$name.json" "$@" >&2
}

bench grep-files-regex \
    "$BIN grep files 'fn [a-z]+_handler' $TREE" \
    "rg -l 'fn [a-z]+_handler' $TREE"
bench grep-files-literal \
    "$BIN grep files needle_0 $TREE" \
    "rg -l needle_0 $TREE"
bench grep-content \
    "$BIN grep content 'needle_[0-9]{4}' $TREE" \
    "rg -n 'needle_[0-9]{4}' $TREE"
bench grep-content-common \
    "$BIN grep content TODO $TREE" \
    "rg -n TODO $TREE"
# Glob also sorts its matches newest first, which costs one stat per match
# that fd does not make; `rg --files --sortr modified` is the same work done
# the way the reference agent does it, shown for scale.
bench glob-selective \
    "$BIN glob 'pkg1*/mod0*/*_09*.json' $TREE" \
    "$FD -t f -p -g '**/pkg1*/mod0*/*_09*.json' $TREE"
bench glob-ext \
    "$BIN glob '*.rs' $TREE" \
    "$FD -t f -g '*.rs' $TREE" \
    "rg --files -g '*.rs' --sortr modified $TREE"
bench glob-all \
    "$BIN glob '**/*' $TREE" \
    "$FD -t f . $TREE"

echo
echo "Tree: $FILES files under $TREE; $(nproc) CPUs; $RUNS runs per command (hyperfine, 2 warm-up runs, warm cache)."
echo "rg $(rg --version | head -1 | awk '{print $2}'), $FD $($FD --version | awk '{print $2}'), hyperfine $(hyperfine --version | awk '{print $2}')."
echo
"$BIN" report "$OUT"/grep-files-regex.json "$OUT"/grep-files-literal.json \
    "$OUT"/grep-content.json "$OUT"/grep-content-common.json \
    "$OUT"/glob-selective.json "$OUT"/glob-ext.json "$OUT"/glob-all.json
