#!/usr/bin/env bash
# What MCP servers cost a one-shot run: `catui -p hi` (start-up, the first
# model request, one streamed answer, exit) with no MCP server, with a real
# one (the reference `server-everything` over stdio, when installed by
# .ci/mcp-setup), with one that never answers the handshake (startup
# timeout 1 s) and with one that dies at once. The first request waits for
# servers that are still starting, so the real server's tools are in it;
# the hanging one costs at most its timeout; with no server nothing waits.
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
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
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
EVERYTHING=$ROOT/crates/cli/tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js

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
REAL=$WORK/everything.json
echo '{"mcpServers":{"hangs":{"command":"sleep","args":["599.25"],"startupTimeoutMs":1000}}}' >"$HANGS"
echo '{"mcpServers":{"dies":{"command":"false"}}}' >"$DIES"
COMMANDS=(-n none "$CATUI -p hi"
    -n hangs "$CATUI -p hi --mcp-config $HANGS"
    -n dies "$CATUI -p hi --mcp-config $DIES")
if [ -f "$EVERYTHING" ] && command -v node >/dev/null; then
    echo "{\"mcpServers\":{\"ev\":{\"command\":\"node\",\"args\":[\"$EVERYTHING\",\"stdio\"]}}}" >"$REAL"
    COMMANDS+=(-n everything "$CATUI -p hi --mcp-config $REAL")
else
    echo "server-everything is not installed (bash .ci/mcp-setup): measuring without it" >&2
fi

cd "$WORK/project"
env -i PATH="$PATH" HOME="$WORK/home" CATUI_CONFIG_DIR="$WORK/config" \
    ANTHROPIC_API_KEY=bench-key-not-secret ANTHROPIC_BASE_URL="$MOCK_URL" CATUI_MODEL=bench-main \
    hyperfine -N --warmup 2 --runs "$RUNS" --export-json "$WORK/mcp.json" "${COMMANDS[@]}" >&2
# Servers left running once every catui has exited (should be none).
sleep 0.5
LEFT=$(pgrep -fc "sleep 599.25" || true)
pkill -f "sleep 599.25" 2>/dev/null || true

python3 - "$WORK/mcp.json" "$RUNS" "$LEFT" <<'PY'
import json, statistics, sys
results = json.load(open(sys.argv[1]))["results"]
label = {
    "none": "no MCP server",
    "everything": "the reference `server-everything` (node, stdio): its tools in the first request",
    "hangs": "a server that never answers the handshake (`sleep`, `startupTimeoutMs` 1000)",
    "dies": "a server that exits at once (`false`)",
}
print("## MCP servers: what the first request waits for")
print()
print(f"`bash bench/mcp.sh --runs {sys.argv[2]}`: `catui -p hi` (start-up, first model request, one")
print("streamed answer, exit) against catui-mock, with the server given by `--mcp-config`. The first")
print("request waits for servers still starting, each at most its startup timeout.")
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
line = (f'Without servers nothing waits. A server that dies adds {medians["dies"] - base:+.1f} ms to the '
        f'median (its failure is known at once); one that hangs adds {medians["hangs"] - base:+.0f} ms, '
        "its 1 s startup timeout")
if "everything" in medians:
    line += (f'; the real server adds {medians["everything"] - base:+.0f} ms, the time node needs to start '
             "it and answer the handshake, and in exchange its tools are in the first request")
print(line + ".")
print()
print(f"Hanging servers still running after all {int(sys.argv[2]) + 2} runs with one: {sys.argv[3]} "
      "(the timeout ends the attempt and its process, and catui kills the process group of every "
      "server it started when it exits).")
PY
