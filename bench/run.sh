#!/usr/bin/env bash
# catui's benchmark suite: regenerates docs/BENCHMARKS.md.
#
# Usage: bash bench/run.sh [--runs N] [--with-search] [--with-criterion] [--with-claude-code]
#                          [--with-scale] [--repo-sizes LIST] [--search-files N]
#   --runs N            runs per figure (default 10, at least 5)
#   --with-search       also run bench/search.sh (Grep/Glob vs rg/fd; takes minutes)
#   --with-criterion    also run the criterion benches (shell analysis, TUI frame)
#   --with-claude-code  also time Claude Code against the same mock
#                       (installs @anthropic-ai/claude-code with npm into a temp dir)
#   --with-scale        also run bench/scale.sh (start-up against repository size,
#                       long sessions, resume, many agents; takes minutes)
#   --repo-sizes LIST   tracked files of the generated repositories for --with-scale
#                       (comma-separated, default 60000)
#   --search-files N    files in the --with-search tree (default 100000; 1000000 is
#                       the large-tree figure)
#
# Everything talks to a mock model server (target/release/catui-mock) on
# 127.0.0.1 only: no network, no API key. Needs cargo and python3; installs
# hyperfine with apt-get when missing. Honours CARGO_TARGET_DIR.
set -euo pipefail

RUNS=10
WITH_SEARCH=0
WITH_CRITERION=0
WITH_CC=0
WITH_SCALE=0
REPO_SIZES=60000
SEARCH_FILES=100000
CMDLINE="bash bench/run.sh $*"
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --with-search) WITH_SEARCH=1; shift ;;
        --with-criterion) WITH_CRITERION=1; shift ;;
        --with-claude-code) WITH_CC=1; shift ;;
        --with-scale) WITH_SCALE=1; shift ;;
        --repo-sizes) REPO_SIZES=$2; shift 2 ;;
        --search-files) SEARCH_FILES=$2; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ "$RUNS" -lt 5 ]; then RUNS=5; fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
OUT_DOC=$ROOT/docs/BENCHMARKS.md

if ! command -v hyperfine >/dev/null 2>&1; then
    echo "installing hyperfine" >&2
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq hyperfine >&2
fi

echo "== building release binaries" >&2
cargo build --release --locked -p catui -p catui-testkit --bins >&2
CATUI=$TARGET/release/catui
MOCK=$TARGET/release/catui-mock

WORK=$(mktemp -d /tmp/catui-bench.XXXXXX)
MOCK_PIDS=()
cleanup() {
    for pid in "${MOCK_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/project" "$WORK/home" "$WORK/config"

# Starts catui-mock with the given options; sets MOCK_URL.
start_mock() {
    local log=$WORK/mock.$RANDOM.out
    "$MOCK" "$@" >"$log" 2>&1 &
    MOCK_PIDS+=($!)
    for _ in $(seq 100); do
        if [ -s "$log" ]; then break; fi
        sleep 0.05
    done
    MOCK_URL=$(head -n1 "$log")
    case "$MOCK_URL" in
        http://127.0.0.1:*) ;;
        *) echo "catui-mock did not start: $(cat "$log")" >&2; exit 1 ;;
    esac
}
stop_mocks() {
    for pid in "${MOCK_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    MOCK_PIDS=()
}

# A clean environment for catui pointed at MOCK_URL (run from the project dir).
catui_env() {
    env -i PATH="$PATH" HOME="$WORK/home" CATUI_CONFIG_DIR="$WORK/config" \
        ANTHROPIC_API_KEY=bench-key-not-secret ANTHROPIC_BASE_URL="$MOCK_URL" \
        CATUI_MODEL=bench-main "$@"
}

# hyperfine JSON -> "min | median | max" in ms, one line per command.
stats_ms() {
    python3 - "$1" <<'PY'
import json, statistics, sys
for r in json.load(open(sys.argv[1]))["results"]:
    t = [x * 1000 for x in r["times"]]
    print(f'{min(t):.1f} | {statistics.median(t):.1f} | {max(t):.1f} | {len(t)}')
PY
}
median_ms() {
    python3 - "$1" "$2" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]
print(f'{statistics.median(r["times"]) * 1000:.3f}')
PY
}

# Max RSS (KiB) of RUNS runs of a command -> "min | median | max" in MiB; the
# median KiB goes to $WORK/last_rss.
rss_stats() {
    local f=$WORK/rss.txt
    : >"$f"
    for _ in $(seq "$RUNS"); do
        (cd "$WORK/project" && catui_env /usr/bin/time -f %M -a -o "$f" "$@" >/dev/null 2>>"$WORK/rss.err")
    done
    python3 - "$f" "$WORK/last_rss" <<'PY'
import statistics, sys
k = [int(l) for l in open(sys.argv[1]) if l.strip().isdigit()]
open(sys.argv[2], "w").write(str(statistics.median(k)))
m = [x / 1024 for x in k]
print(f'{min(m):.1f} | {statistics.median(m):.1f} | {max(m):.1f} | {len(m)}')
PY
}

hf() { # hf NAME CMD...: hyperfine in the project dir with catui's env
    local json=$WORK/$1.json; shift
    (cd "$WORK/project" && catui_env hyperfine -N --warmup 2 --runs "$RUNS" \
        --export-json "$json" "$@" >&2)
}

echo "== start-up and round trip" >&2
start_mock
hf version "$CATUI --version"
hf roundtrip "$CATUI -p hi"
VERSION_ROW=$(stats_ms "$WORK/version.json")
ROUNDTRIP_ROW=$(stats_ms "$WORK/roundtrip.json")
RSS_ROW=$(rss_stats "$CATUI" -p hi)
stop_mocks

echo "== parallel Explore agents (200 ms per model request)" >&2
AGENT_ROWS=""
declare -A AGENT_MED AGENT_RSS
for n in 1 3 8; do
    start_mock --agents "$n" --latency-ms 200 --small-model bench-small
    hf "agents$n" "$CATUI -p explore --small-model bench-small"
    row=$(stats_ms "$WORK/agents$n.json")
    rss=$(rss_stats "$CATUI" -p explore --small-model bench-small)
    AGENT_MED[$n]=$(median_ms "$WORK/agents$n.json" 0)
    AGENT_RSS[$n]=$(cat "$WORK/last_rss")
    AGENT_ROWS+="| $n | $row | $rss |"$'\n'
    stop_mocks
done
AGENT_SUMMARY=$(python3 - "${AGENT_MED[1]}" "${AGENT_MED[3]}" "${AGENT_MED[8]}" \
    "${AGENT_RSS[1]}" "${AGENT_RSS[8]}" <<'PY'
import sys
m1, m3, m8, r1, r8 = map(float, sys.argv[1:])
per = (r8 - r1) / 7 / 1024
print(f"3 agents take {m3 / m1:.2f}x the wall time of one agent (target <= 1.2x); "
      f"8 agents take {m8 / m1:.2f}x. Each run makes 3 sequential model round trips "
      f"(agents call, agents, final answer), so the floor is about 600 ms. "
      f"Memory per running sub-agent, (max RSS with 8 - with 1) / 7: about {per:.2f} MiB (approximate).")
PY
)

echo "== plan-mode context cost" >&2
PLAN_COST=$(cargo run --release --locked -q -p catui-core --example plan_context_cost -- 30)

SEARCH_SECTION="Not run this time (pass \`--with-search\`). The last results are in
[bench/SEARCH_RESULTS.md](../bench/SEARCH_RESULTS.md), produced by \`bash bench/search.sh\`."
if [ "$WITH_SEARCH" = 1 ]; then
    echo "== Grep/Glob vs rg/fd" >&2
    SEARCH_SECTION=$(bash bench/search.sh "/tmp/catui-search-bench-$SEARCH_FILES" "$SEARCH_FILES" "$RUNS")
fi


CRITERION_SECTION="Not run this time (pass \`--with-criterion\`). Run them with
\`cargo bench -p catui-core --bench shell_analysis\` (read-only analysis of a ~200-character
command line) and \`cargo bench -p catui-tui --bench render\` (frames over a 100,000-row transcript: the live area while
streaming, after a resize, and the Ctrl+O transcript view scrolling; bar < 2 ms warm)."
if [ "$WITH_CRITERION" = 1 ]; then
    echo "== criterion benches" >&2
    crit() {
        cargo bench --locked -p "$1" --bench "$2" -- --warm-up-time 1 --measurement-time 3 2>/dev/null \
            | grep -E '^[a-z_0-9]+ +time:|^[a-z_0-9]+$|^ +time:' | sed 's/^/    /'
    }
    CRITERION_SECTION="Criterion (3 s measurement, 1 s warm-up); \`time: [low estimate median high]\`:

    cargo bench -p catui-core --bench shell_analysis
$(crit catui-core shell_analysis)

    cargo bench -p catui-tui --bench render   # 100,000-row transcript; bar < 2 ms warm
$(crit catui-tui render)"
fi

CC_SECTION="Not run this time (pass \`--with-claude-code\`)."
if [ "$WITH_CC" = 1 ]; then
    echo "== Claude Code comparison" >&2
    CC_DIR=$WORK/claude-code
    mkdir -p "$CC_DIR" "$WORK/cchome"
    if (cd "$CC_DIR" && timeout 300 npm i --no-audit --no-fund --silent @anthropic-ai/claude-code >"$WORK/npm.log" 2>&1); then
        # The native binary itself, not the npm wrapper, so no Node.js start-up is counted.
        CLAUDE=$CC_DIR/node_modules/.bin/claude
        for c in "$CC_DIR"/node_modules/@anthropic-ai/claude-code-linux-*/claude; do
            if [ -x "$c" ]; then CLAUDE=$c; break; fi
        done
        CC_VERSION=$("$CLAUDE" --version 2>/dev/null | head -n1 || echo unknown)
        start_mock
        cc_env() {
            env -i PATH="$PATH" HOME="$WORK/cchome" ANTHROPIC_BASE_URL="$MOCK_URL" \
                ANTHROPIC_API_KEY=bench-key-not-secret CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
                DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 \
                DISABLE_NON_ESSENTIAL_MODEL_CALLS=1 "$@"
        }
        if (cd "$WORK/project" && cc_env timeout 60 "$CLAUDE" -p hi >"$WORK/cc.out" 2>"$WORK/cc.err") \
            && grep -q "Hello from the mock" "$WORK/cc.out"; then
            (cd "$WORK/project" && cc_env CATUI_CONFIG_DIR="$WORK/config" CATUI_MODEL=bench-main hyperfine -N --warmup 1 --runs "$RUNS" \
                --export-json "$WORK/cc.json" "$CATUI -p hi" "$CLAUDE -p hi" >&2)
            CC_ROWS=$(stats_ms "$WORK/cc.json")
            CATUI_CC=$(median_ms "$WORK/cc.json" 0)
            CLAUDE_CC=$(median_ms "$WORK/cc.json" 1)
            RATIO=$(python3 -c "print(f'{$CLAUDE_CC / $CATUI_CC:.1f}')")
            CC_SECTION="Claude Code $CC_VERSION (npm), same mock, same run, \`-p hi\` round trip:

| command | min (ms) | median (ms) | max (ms) | runs |
| --- | ---: | ---: | ---: | ---: |
| \`catui -p hi\` | $(echo "$CC_ROWS" | sed -n 1p) |
| \`claude -p hi\` | $(echo "$CC_ROWS" | sed -n 2p) |

Claude Code's median is ${RATIO}x catui's. Claude Code ran its native binary with
\`CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1\`, telemetry, error reporting and the auto-updater off, an
empty home and a dummy key; its base URL was the mock on 127.0.0.1."
        else
            CC_SECTION="Claude Code $CC_VERSION installed, but \`claude -p hi\` against the mock did not
answer as expected, so there is no side-by-side figure. Its stderr (first lines):

$(head -n 5 "$WORK/cc.err" | sed 's/^/    /')"
        fi
        stop_mocks
    else
        CC_SECTION="\`npm i @anthropic-ai/claude-code\` failed, so there is no side-by-side figure:

$(tail -n 5 "$WORK/npm.log" | sed 's/^/    /')"
    fi
fi

SCALE_SECTION="Not run this time (pass \`--with-scale\`). The last figures and the design are in
[docs/SCALE.md](SCALE.md); \`bash bench/scale.sh --help\` lists its parameters."
if [ "$WITH_SCALE" = 1 ]; then
    echo "== scale" >&2
    SCALE_ARGS=(--runs "$RUNS" --repo-sizes "$REPO_SIZES")
    if [ "$WITH_CC" = 1 ] && [ -n "${CLAUDE:-}" ]; then SCALE_ARGS+=(--claude "$CLAUDE"); fi
    SCALE_SECTION=$(bash bench/scale.sh "${SCALE_ARGS[@]}")
fi

RT_MED=$(median_ms "$WORK/roundtrip.json" 0)
echo "== writing $OUT_DOC" >&2
PREVIOUS_DOC=$WORK/BENCHMARKS.previous.md
if [ -f "$OUT_DOC" ]; then cp "$OUT_DOC" "$PREVIOUS_DOC"; else : >"$PREVIOUS_DOC"; fi
cat >"$OUT_DOC" <<EOF
# catui benchmarks

Generated by \`$CMDLINE\` on $(date -u +"%Y-%m-%d %H:%M UTC").
Machine: $(nproc) CPUs, Linux $(uname -r), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //' || echo 'unknown CPU');
load average at the start: $(cut -d' ' -f1-3 /proc/loadavg). $(hyperfine --version), $(rustc --version).
Release build. Every figure is min / median / max over the runs shown; wall times by hyperfine
(\`-N\`, 2 warm-up runs), memory as max RSS from \`/usr/bin/time -f %M\`.
The model is \`catui-mock\` (crates/testkit/src/bin/catui-mock.rs), a separate process on 127.0.0.1,
speaking the Anthropic streaming format; catui runs with a clean environment and a temp config home.

## Start-up, round trip, memory (target: < 15 ms median, < 30 MiB)

| figure | command | min | median | max | runs |
| --- | --- | ---: | ---: | ---: | ---: |
| wall time (ms) | \`catui --version\` | $VERSION_ROW |
| wall time (ms) | \`catui -p hi\` (start-up + one streamed answer + exit) | $ROUNDTRIP_ROW |
| max RSS (MiB) | \`catui -p hi\` | $RSS_ROW |

## Parallel Explore agents (target: 3 agents <= 1.2x one agent)

\`catui -p explore --small-model bench-small\` against \`catui-mock --agents N --latency-ms 200\`: the main
model asks for N Explore agents in one message; every model request (main and agents) waits 200 ms.

| agents | wall min (ms) | median (ms) | max (ms) | runs | max RSS min (MiB) | median | max | runs |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
$AGENT_ROWS
$AGENT_SUMMARY

## Plan-mode context cost over 30 human turns

\`cargo run -p catui-core --example plan_context_cost -- 30\`: the attachments the engine would inject
(same decision and rendering functions), wrapped in \`<system-reminder>\`. Tokens are estimated as
characters / 4, not counted by a tokenizer.

$PLAN_COST

## Grep / Glob vs ripgrep / fd

$SEARCH_SECTION

## Shell analysis and TUI frame time

$CRITERION_SECTION

## Claude Code, same mock

$CC_SECTION

## Scale: repository size, long sessions, many agents

$SCALE_SECTION
EOF
# Sections this run did not measure keep their earlier figures, and sections other
# scripts maintain (shell soundness, sessions, caching, MCP...) are carried over.
python3 bench/merge_sections.py "$PREVIOUS_DOC" "$OUT_DOC"
echo "catui -p hi median: $RT_MED ms; wrote $OUT_DOC" >&2
