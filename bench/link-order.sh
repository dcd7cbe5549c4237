#!/usr/bin/env bash
# Regenerates crates/cli/link/catui.order, the functions a one-shot run
# executes, which the linker places first and together in the executable
# (crates/cli/build.rs, `--symbol-ordering-file`). The list comes from the
# release binary itself: valgrind's callgrind records every function that
# ran during `catui --version`, `catui -p hi` and `catui -p` on a piped
# prompt against catui-mock, by its symbol name.
#
# Names carry a hash that changes when a dependency's version, the release
# profile or the Rust toolchain changes; names the linker does not find are
# skipped, so a stale list only orders less. Regenerate it after such a
# change: build, run this, build again (`bash bench/memory.sh` shows the
# effect).
#
# Usage: bash bench/link-order.sh
# Needs: cargo build --release -p catui -p catui-testkit --bins, valgrind
set -euo pipefail

case "${1:-}" in
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
esac

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
CATUI=$TARGET/release/catui
MOCK=$TARGET/release/catui-mock
OUT=$ROOT/crates/cli/link/catui.order
for bin in "$CATUI" "$MOCK"; do
    [ -x "$bin" ] || { echo "$bin is missing: cargo build --release -p catui -p catui-testkit --bins" >&2; exit 1; }
done
command -v valgrind >/dev/null || { echo "valgrind is missing (apt-get install valgrind)" >&2; exit 1; }
readelf -SW "$CATUI" | grep -q '\.symtab' || { echo "$CATUI has no symbol table (is the release profile stripping it?)" >&2; exit 1; }

WORK=$(mktemp -d /tmp/catui-link-order.XXXXXX)
MOCK_PID=
cleanup() {
    [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/project" "$WORK/home" "$WORK/config"

"$MOCK" >"$WORK/mock.out" 2>&1 &
MOCK_PID=$!
for _ in $(seq 100); do [ -s "$WORK/mock.out" ] && break; sleep 0.05; done
MOCK_URL=$(head -n1 "$WORK/mock.out")

profile() { # profile NAME ARGS...: callgrind output in $WORK/NAME.cg
    local name=$1
    shift
    (cd "$WORK/project" && env -i PATH="$PATH" HOME="$WORK/home" CATUI_CONFIG_DIR="$WORK/config" \
        ANTHROPIC_API_KEY=bench-key-not-secret ANTHROPIC_BASE_URL="$MOCK_URL" CATUI_MODEL=bench-main \
        valgrind -q --tool=callgrind --demangle=no --compress-strings=no --dump-instr=no \
        --callgrind-out-file="$WORK/$name.cg" "$CATUI" "$@" </dev/null >/dev/null 2>>"$WORK/err") ||
        { cat "$WORK/err" >&2; exit 1; }
}
profile version --version
profile hi -p hi
(cd "$WORK/project" && echo "say hi" | env -i PATH="$PATH" HOME="$WORK/home" CATUI_CONFIG_DIR="$WORK/config" \
    ANTHROPIC_API_KEY=bench-key-not-secret ANTHROPIC_BASE_URL="$MOCK_URL" CATUI_MODEL=bench-main \
    valgrind -q --tool=callgrind --demangle=no --compress-strings=no --dump-instr=no \
    --callgrind-out-file="$WORK/piped.cg" "$CATUI" -p >/dev/null 2>>"$WORK/err")

nm --defined-only "$CATUI" | awk '$2 ~ /^[tTwW]$/ {print $3}' | sort -u >"$WORK/symbols"
# Every function that ran, in the order callgrind first met it, the start-up
# run's first; only names of this executable's own functions.
cat "$WORK/version.cg" "$WORK/hi.cg" "$WORK/piped.cg" |
    sed -n 's/^c\{0,1\}fn=\(([0-9]*) \)\{0,1\}//p' |
    awk '!seen[$0]++' >"$WORK/ran"
awk 'NR == FNR { known[$0] = 1; next } known[$0]' "$WORK/symbols" "$WORK/ran" >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "$(wc -l <"$OUT") functions in $OUT (of $(wc -l <"$WORK/symbols") in the executable)" >&2
