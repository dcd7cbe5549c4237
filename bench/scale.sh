#!/usr/bin/env bash
# Scale benchmarks: costs that must not grow with the repository or the
# session. Prints a Markdown section on stdout (bench/run.sh --with-scale
# puts it into docs/BENCHMARKS.md); progress goes to stderr.
#
# Usage: bench/scale.sh [--runs N] [--repo-sizes LIST] [--untracked N]
#                       [--turns LIST] [--agents N] [--claude PATH]
#   --runs N          timed runs per command (default 10, at least 3)
#   --repo-sizes LIST tracked files of the generated git repositories,
#                     comma-separated (default 60000)
#   --untracked N     untracked files added to each repository (default 2000)
#   --turns LIST      lengths of the long sessions, comma-separated
#                     (default 500,1000,2000)
#   --agents N        parallel sub-agents, and teammates (default 50)
#   --claude PATH     also run this Claude Code binary, against the same mock
#
# Everything runs against catui-mock on 127.0.0.1 with a dummy key. The
# start-up comparison interleaves its commands: rounds of a few runs of
# each, so a change in machine load hits all of them alike.
set -euo pipefail

RUNS=10
REPO_SIZES=60000
UNTRACKED=2000
TURNS=500,1000,2000
AGENTS=50
CLAUDE=""
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --repo-sizes) REPO_SIZES=$2; shift 2 ;;
        --untracked) UNTRACKED=$2; shift 2 ;;
        --turns) TURNS=$2; shift 2 ;;
        --agents) AGENTS=$2; shift 2 ;;
        --claude) CLAUDE=$2; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ "$RUNS" -lt 3 ]; then RUNS=3; fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
REPOS=${BENCH_REPOS:-/tmp/catui-bench-repos}

command -v hyperfine >/dev/null || { echo "hyperfine is needed (bench/run.sh installs it)" >&2; exit 1; }
echo "== building release binaries" >&2
cargo build --release --locked -q -p catui -p catui-testkit --bins >&2
CATUI=$TARGET/release/catui
MOCK=$TARGET/release/catui-mock

WORK=$(mktemp -d /tmp/catui-scale.XXXXXX)
MOCK_PIDS=()
cleanup() {
    for pid in "${MOCK_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/empty" "$WORK/home" "$WORK/config" "$WORK/cchome"

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
catui_env() {
    env -i PATH="$PATH" HOME="$WORK/home" CATUI_CONFIG_DIR="$WORK/config" \
        ANTHROPIC_API_KEY=bench-key-not-secret ANTHROPIC_BASE_URL="$MOCK_URL" \
        CATUI_MODEL=bench-main "$@"
}
cc_env() {
    env -i PATH="$PATH" HOME="$WORK/cchome" ANTHROPIC_BASE_URL="$MOCK_URL" \
        ANTHROPIC_API_KEY=bench-key-not-secret CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 \
        DISABLE_NON_ESSENTIAL_MODEL_CALLS=1 "$@"
}

# interleave NAME ROUNDS -- DIR1 CMD1 -- DIR2 CMD2 ...: every round runs each
# command twice (after one warm-up) in its directory; all times are merged
# into $WORK/NAME.times (one JSON list per command, in order).
interleave() {
    local name=$1 rounds=$2; shift 2
    local dirs=() cmds=()
    while [ $# -gt 0 ]; do
        [ "$1" = "--" ] && shift
        dirs+=("$1"); cmds+=("$2"); shift 2
    done
    : >"$WORK/$name.parts"
    for r in $(seq "$rounds"); do
        for i in "${!cmds[@]}"; do
            (cd "${dirs[$i]}" && catui_env hyperfine -N --warmup 1 --runs 2 \
                --export-json "$WORK/$name.$r.$i.json" "${cmds[$i]}" >/dev/null 2>&1)
            echo "$i $WORK/$name.$r.$i.json" >>"$WORK/$name.parts"
        done
    done
}
# Stats of an interleaved run: "min | median | max | runs" per command.
interleaved_stats() {
    python3 - "$WORK/$1.parts" <<'PY'
import json, statistics, sys
by = {}
for line in open(sys.argv[1]):
    i, path = line.split()
    by.setdefault(int(i), []).extend(t * 1000 for t in json.load(open(path))["results"][0]["times"])
for i in sorted(by):
    t = by[i]
    print(f"{min(t):.1f} | {statistics.median(t):.1f} | {max(t):.1f} | {len(t)}")
PY
}
interleaved_median() {
    python3 - "$WORK/$1.parts" "$2" <<'PY'
import json, statistics, sys
t = []
for line in open(sys.argv[1]):
    i, path = line.split()
    if int(i) == int(sys.argv[2]):
        t.extend(x * 1000 for x in json.load(open(path))["results"][0]["times"])
print(f"{statistics.median(t):.3f}")
PY
}
# Max RSS in MiB of one run of a command in a directory; the run's CPU
# time (user + system, s) goes to $WORK/last_cpu.
rss_mib() {
    local dir=$1; shift
    local f=$WORK/rss.$RANDOM
    (cd "$dir" && catui_env /usr/bin/time -f "%M %U %S" -o "$f" "$@" >"$WORK/last.out" 2>"$WORK/last.err") || {
        echo "failed: $* (stderr: $(tail -n 3 "$WORK/last.err"))" >&2
        return 1
    }
    python3 - "$f" "$WORK/last_cpu" <<'PY'
import sys
rss, user, system = open(sys.argv[1]).read().split()[-3:]
open(sys.argv[2], "w").write(f"{float(user) + float(system):.2f}")
print(f"{int(rss) / 1024:.1f}")
PY
}
ROUNDS=$(( (RUNS + 1) / 2 ))

# ---------------------------------------------------------------- start-up
echo "== start-up vs repository size" >&2
IFS=, read -r -a SIZES <<<"$REPO_SIZES"
for n in "${SIZES[@]}"; do
    bash "$ROOT/bench/gen-repo.sh" "$REPOS/repo-$n" "$n" "$UNTRACKED"
done
start_mock
args=(-- "$WORK/empty" "$CATUI -p hi")
for n in "${SIZES[@]}"; do args+=(-- "$REPOS/repo-$n" "$CATUI -p hi"); done
interleave startup "$ROUNDS" "${args[@]}"
STARTUP=$(interleaved_stats startup)
EMPTY_MED=$(interleaved_median startup 0)
STARTUP_ROWS="| empty directory (no git) | $(echo "$STARTUP" | sed -n 1p) | 1.00x |"$'\n'
for i in "${!SIZES[@]}"; do
    med=$(interleaved_median startup $((i + 1)))
    ratio=$(python3 -c "print(f'{$med / $EMPTY_MED:.2f}')")
    STARTUP_ROWS+="| git repository, ${SIZES[$i]} tracked + $UNTRACKED untracked files | $(echo "$STARTUP" | sed -n "$((i + 2))p") | ${ratio}x |"$'\n'
done
GIT_STATUS_ROWS=""
for n in "${SIZES[@]}"; do
    (cd "$REPOS/repo-$n" && hyperfine -N --warmup 1 --runs "$RUNS" \
        --export-json "$WORK/gitstatus-$n.json" \
        "git --no-optional-locks status --porcelain=v1 --untracked-files=normal" >/dev/null 2>&1)
    GIT_STATUS_ROWS+="| \`git status\` in the $n-file repository (what start-up used to wait for) | $(python3 - "$WORK/gitstatus-$n.json" <<'PY'
import json, statistics, sys
t = [x * 1000 for x in json.load(open(sys.argv[1]))["results"][0]["times"]]
print(f"{min(t):.1f} | {statistics.median(t):.1f} | {max(t):.1f} | {len(t)} |")
PY
)"$'\n'
done
CC_STARTUP=""
if [ -n "$CLAUDE" ]; then
    echo "== Claude Code start-up vs repository size" >&2
    n=${SIZES[-1]}
    cc_parts() {
        : >"$WORK/cc-startup.parts"
        for r in $(seq "$ROUNDS"); do
            for pair in "0 $WORK/empty" "1 $REPOS/repo-$n"; do
                set -- $pair
                (cd "$2" && cc_env hyperfine -N --warmup 1 --runs 2 \
                    --export-json "$WORK/cc-startup.$r.$1.json" "$CLAUDE -p hi" >/dev/null 2>&1)
                echo "$1 $WORK/cc-startup.$r.$1.json" >>"$WORK/cc-startup.parts"
            done
        done
    }
    if cc_parts; then
        CC=$(interleaved_stats cc-startup)
        e=$(interleaved_median cc-startup 0); g=$(interleaved_median cc-startup 1)
        CC_STARTUP="| Claude Code, empty directory | $(echo "$CC" | sed -n 1p) | 1.00x |
| Claude Code, git repository of $n + $UNTRACKED files | $(echo "$CC" | sed -n 2p) | $(python3 -c "print(f'{$g / $e:.2f}')")x |"
    fi
fi
stop_mocks

# ---------------------------------------------------------- long sessions
echo "== long sessions" >&2
LONG=$WORK/long
mkdir -p "$LONG"
python3 - "$LONG/bench.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(40):
        f.write(f"line {i:02}: the quick brown fox jumps over the lazy dog, again and again.\n")
PY
IFS=, read -r -a TURN_LIST <<<"$TURNS"
LONG_ROWS=""
for n in "${TURN_LIST[@]}"; do
    start_mock --tool-turns "$n" --tool-file "$LONG/bench.txt"
    rm -rf "$WORK/config/projects"
    t0=$(date +%s.%N)
    rss=$(rss_mib "$LONG" "$CATUI" -p "read the bench file over and over")
    t1=$(date +%s.%N)
    grep -q "Done after $n tool calls" "$WORK/last.out" || {
        echo "the $n-turn session did not finish: $(tail -n 3 "$WORK/last.out" "$WORK/last.err")" >&2
        exit 1
    }
    transcript=$(find "$WORK/config/projects" -name '*.jsonl' -printf '%s %p\n' | sort -n | tail -n1 | cut -d' ' -f2)
    entries=$(wc -l <"$transcript")
    tsize=$(python3 -c "import os; print(f'{os.path.getsize(\"$transcript\") / 1048576:.1f}')")
    wall=$(python3 -c "print(f'{($t1 - $t0):.2f}')")
    per=$(python3 -c "print(f'{($t1 - $t0) * 1000 / $n:.2f}')")
    cpu=$(cat "$WORK/last_cpu")
    cpu_per=$(python3 -c "print(f'{$cpu * 1000 / $n:.2f}')")
    LONG_ROWS+="| $n | $entries entries, $tsize MiB | $wall | $per | $cpu | $cpu_per | $rss |"$'\n'
    LAST_SESSION=$(basename "$transcript" .jsonl)
    LAST_TURNS=$n
    stop_mocks
done
# Resuming the longest session and asking one more question, against a
# fresh session asking the same: the difference is resume's cost (load,
# rebuild) plus sending the long conversation once.
start_mock
interleave resume "$ROUNDS" -- "$LONG" "$CATUI -p hi" -- "$LONG" "$CATUI -p --resume $LAST_SESSION --fork-session hi"
RESUME=$(interleaved_stats resume)
RESUME_RSS=$(rss_mib "$LONG" "$CATUI" -p --resume "$LAST_SESSION" --fork-session hi)
stop_mocks

# ------------------------------------------------------------ many agents
echo "== $AGENTS parallel sub-agents" >&2
AG=$WORK/agents
mkdir -p "$AG/config"
echo "{\"maxParallelAgents\": $AGENTS}" >"$AG/config/settings.json"
AGENT_ROWS=""
declare -A AG_MED AG_RSS
for n in 1 "$AGENTS"; do
    start_mock --agents "$n" --latency-ms 200 --small-model bench-small
    (cd "$WORK/empty" && catui_env CATUI_CONFIG_DIR="$AG/config" hyperfine -N --warmup 1 --runs "$RUNS" \
        --export-json "$WORK/ag$n.json" "$CATUI -p explore --small-model bench-small" >/dev/null 2>&1)
    AG_MED[$n]=$(python3 -c "import json, statistics; print(statistics.median(json.load(open('$WORK/ag$n.json'))['results'][0]['times']) * 1000)")
    rsses=()
    for _ in 1 2 3; do
        rsses+=("$(rss_mib "$WORK/empty" env CATUI_CONFIG_DIR="$AG/config" "$CATUI" -p explore --small-model bench-small)")
    done
    AG_RSS[$n]=$(python3 -c "import statistics; print(statistics.median([${rsses[0]}, ${rsses[1]}, ${rsses[2]}]))")
    AGENT_ROWS+="| $n | $(python3 -c "
import json, statistics
t = [x * 1000 for x in json.load(open('$WORK/ag$n.json'))['results'][0]['times']]
print(f'{min(t):.1f} | {statistics.median(t):.1f} | {max(t):.1f} | {len(t)}')") | ${AG_RSS[$n]} |"$'\n'
    stop_mocks
done
AGENT_SUMMARY=$(python3 -c "
m1, mn = ${AG_MED[1]}, ${AG_MED[$AGENTS]}
r1, rn = ${AG_RSS[1]}, ${AG_RSS[$AGENTS]}
print(f'$AGENTS agents take {mn / m1:.2f}x the wall time of one agent; memory per running agent, '
      f'(max RSS with $AGENTS - with 1) / $((AGENTS - 1)): {(rn - r1) / ($AGENTS - 1) * 1024:.0f} KiB.')")

# ------------------------------------------------------------- teammates
echo "== $AGENTS teammates" >&2
TEAM_ROWS=""
declare -A TM_MED TM_RSS
for n in 1 "$AGENTS"; do
    start_mock --teammates "$n" --latency-ms 200
    times=(); rsses=()
    for _ in $(seq "$ROUNDS"); do
        rm -rf "$WORK/config/teams"
        line=$(cd "$WORK/empty" && catui_env python3 "$ROOT/bench/teammates.py" "$CATUI" "$MOCK_URL" "$n" "$WORK/empty")
        times+=("$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['all_reported_ms'])" "$line")")
        rsses+=("$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['max_rss_mib'])" "$line")")
    done
    TM_MED[$n]=$(python3 -c "import statistics,sys; print(statistics.median(map(float, sys.argv[1:])))" "${times[@]}")
    TM_RSS[$n]=$(python3 -c "import statistics,sys; print(statistics.median(map(float, sys.argv[1:])))" "${rsses[@]}")
    TEAM_ROWS+="| $n | $(python3 -c "
import statistics, sys
t = list(map(float, sys.argv[1:]))
print(f'{min(t):.1f} | {statistics.median(t):.1f} | {max(t):.1f} | {len(t)}')" "${times[@]}") | ${TM_RSS[$n]} |"$'\n'
    stop_mocks
done
TEAM_SUMMARY=$(python3 -c "
m1, mn = ${TM_MED[1]}, ${TM_MED[$AGENTS]}
r1, rn = ${TM_RSS[1]}, ${TM_RSS[$AGENTS]}
print(f'$AGENTS teammates take {mn / m1:.2f}x the time of one; memory per teammate, '
      f'(max RSS with $AGENTS - with 1) / $((AGENTS - 1)): {(rn - r1) / ($AGENTS - 1) * 1024:.0f} KiB.')")

cat <<EOF
### Start-up against repository size

\`catui -p hi\` (start-up, one streamed answer, exit) in an empty directory and in generated git
repositories (\`bench/gen-repo.sh\`: one commit of N files, about 200 per directory, plus
$UNTRACKED untracked files). Commands interleaved: $ROUNDS rounds of 2 timed runs each after a
warm-up, so load changes hit every row alike. Wall time in ms.

| where | min | median | max | runs | median ÷ empty |
| --- | ---: | ---: | ---: | ---: | ---: |
$STARTUP_ROWS$CC_STARTUP
$GIT_STATUS_ROWS
The system prompt names the branch (read from \`.git/HEAD\`, no process); \`git status\` and \`git log\` run
in the background and reach the model as a reminder with the first request after they finish
(see [docs/SCALE.md](SCALE.md)).

### Long sessions

One prompt, N model turns, each a Read of a 40-line file (\`catui-mock --tool-turns N\`). The mock
reports a small prompt size, so automatic compaction never starts: the whole conversation stays in
memory and is sent with every request (the request size, and so the session's total work, grows
with N; a real session would compact). Wall time includes the mock, which parses every request
on the same two CPUs; catui's own CPU time (user + system, from \`/usr/bin/time\`) is given
beside it. Max RSS from \`/usr/bin/time\`, one run each.

| turns | transcript | wall (s) | wall per turn (ms) | catui CPU (s) | catui CPU per turn (ms) | max RSS (MiB) |
| ---: | --- | ---: | ---: | ---: | ---: | ---: |
$LONG_ROWS
Resuming the $LAST_TURNS-turn session (\`catui -p --resume ID --fork-session hi\`) against a fresh
\`catui -p hi\` in the same directory, interleaved, ms:

| command | min | median | max | runs |
| --- | ---: | ---: | ---: | ---: |
| \`catui -p hi\` | $(echo "$RESUME" | sed -n 1p) |
| \`catui -p --resume ID --fork-session hi\` | $(echo "$RESUME" | sed -n 2p) |

Max RSS of the resumed run: $RESUME_RSS MiB.

### $AGENTS parallel sub-agents

\`catui -p explore\` against \`catui-mock --agents N --latency-ms 200\` with \`maxParallelAgents: $AGENTS\`:
the main model asks for N Explore agents in one message, every model request waits 200 ms.

| agents | wall min (ms) | median | max | runs | max RSS (MiB, median of 3) |
| ---: | ---: | ---: | ---: | ---: | ---: |
$AGENT_ROWS
$AGENT_SUMMARY

### $AGENTS teammates

A stream-json session (\`bench/teammates.py\`) against \`catui-mock --teammates N --latency-ms 200\`: the
lead's first answer is a TeamCreate of N members; each teammate sends the lead one message
(SendMessage) and ends; every model request waits 200 ms. Time from the prompt until every
teammate's message has reached the lead ($ROUNDS runs), ms:

| teammates | min | median | max | runs | max RSS (MiB, median) |
| ---: | ---: | ---: | ---: | ---: | ---: |
$TEAM_ROWS
$TEAM_SUMMARY
EOF
