#!/usr/bin/env bash
# MCP servers must never delay a session: `catui -p hi` (start-up, the first
# model request, one streamed answer, exit) with no MCP server, with a server
# that never answers the MCP handshake, and with one that dies at once.
# Prints a Markdown section for docs/BENCHMARKS.md on stdout.
#
# Usage: bash bench/mcp.sh [--runs N]
# Needs the release binaries (cargo build --release -p catui -p catui-testkit
# --bins) and hyperfine. Everything is on 127.0.0.1 (catui-mock).
set -euo pipefail

RUNS=20
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
CATUI=$TARGET/release/catui
MOCK=$TARGET/release/catui-mock
for bin in "$CATUI" "$MOCK"; do
    [ -x "$bin" ] || { echo "$bin is missing: cargo build --release -p catui -p catui-testkit --bins" >&2; exit 1; }
done
command -v hyperfine >/dev/null || { echo "hyperfine is missing (apt-get install hyperfine)" >&2; exit 1; }

WORK=$(mktemp -d /tmp/catui-mcp-bench.XXXXXX)
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

# In files: hyperfine -N splits a command line into words like a shell.
HANGS=$WORK/hangs.json
DIES=$WORK/dies.json
echo '{"mcpServers":{"hangs":{"command":"sleep","args":["599.25"]}}}' >"$HANGS"
echo '{"mcpServers":{"dies":{"command":"false"}}}' >"$DIES"

cd "$WORK/project"
env -i PATH="$PATH" HOME="$WORK/home" CATUI_CONFIG_DIR="$WORK/config" \
    ANTHROPIC_API_KEY=bench-key-not-secret ANTHROPIC_BASE_URL="$MOCK_URL" CATUI_MODEL=bench-main \
    hyperfine -N --warmup 2 --runs "$RUNS" --export-json "$WORK/mcp.json" \
    -n none "$CATUI -p hi" \
    -n hangs "$CATUI -p hi --mcp-config $HANGS" \
    -n dies "$CATUI -p hi --mcp-config $DIES" >&2
# Servers left running once every catui has exited (should be none).
sleep 0.5
LEFT=$(pgrep -fc "sleep 599.25" || true)
pkill -f "sleep 599.25" 2>/dev/null || true

python3 - "$WORK/mcp.json" "$RUNS" "$LEFT" <<'PY'
import json, statistics, sys
results = json.load(open(sys.argv[1]))["results"]
label = {
    "none": "no MCP server",
    "hangs": "a server that never answers the handshake (`sleep`)",
    "dies": "a server that exits at once (`false`)",
}
print("## MCP servers never delay the first request")
print()
print(f"`bash bench/mcp.sh --runs {sys.argv[2]}`: `catui -p hi` (start-up, first model request, one")
print("streamed answer, exit) against catui-mock, with the server given by `--mcp-config`.")
print()
print("| servers | min (ms) | median (ms) | max (ms) | runs |")
print("| --- | ---: | ---: | ---: | ---: |")
medians = {}
for r in results:
    t = [x * 1000 for x in r["times"]]
    medians[r["command"]] = statistics.median(t)
    print(f'| {label[r["command"]]} | {min(t):.1f} | {statistics.median(t):.1f} | {max(t):.1f} | {len(t)} |')
print()
base = medians["none"]
print(f'A hanging server adds {medians["hangs"] - base:+.1f} ms to the median, a dead one '
      f'{medians["dies"] - base:+.1f} ms: servers connect in the background and the first '
      "request does not wait for them.")
print()
print(f"Hanging servers still running after all {int(sys.argv[2]) + 2} runs with one: {sys.argv[3]} "
      "(catui kills the process group of every server it started when it exits).")
PY
