#!/usr/bin/env bash
# What the broker feature costs a run that has no broker (docs/SCALE.md,
# docs/BENCHMARKS.md "Broker"): max RSS and wall time of `catui -p hi`
# against catui-mock, for a binary built with the default features
# (broker compiled in) and one built without it, run alternately.
#
#   bash bench/broker.sh WITH_BROKER_BIN WITHOUT_BROKER_BIN [RUNS] [MOCK_BIN]
#
# Build the two binaries with the same profile, e.g.
#   cargo build --release -p catui && cp target/release/catui /tmp/catui-broker
#   cargo build --release -p catui --no-default-features --features demo && cp target/release/catui /tmp/catui-nobroker
# The limits of the broker itself: cargo run -p catui-broker --example broker_bench
set -euo pipefail
WITH=${1:?binary with the broker feature}
WITHOUT=${2:?binary without it}
RUNS=${3:-15}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MOCK=${4:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/catui-mock}
[ -x "$MOCK" ] || { echo "$MOCK is missing: cargo build -p catui-testkit --bins" >&2; exit 1; }

WORK=$(mktemp -d /tmp/catui-broker-bench.XXXXXX)
MOCK_PID=
cleanup() {
    [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/project" "$WORK/home" "$WORK/config"
cp "$WITH" "$WORK/with"
cp "$WITHOUT" "$WORK/without"

"$MOCK" >"$WORK/mock.out" 2>&1 &
MOCK_PID=$!
for _ in $(seq 100); do [ -s "$WORK/mock.out" ] && break; sleep 0.05; done
MOCK_URL=$(head -n1 "$WORK/mock.out")

cd "$WORK/project"
run() { # run NAME: one `-p hi`, its max RSS (KiB) and wall time (s) appended
    env -i PATH="$PATH" HOME="$WORK/home" CATUI_CONFIG_DIR="$WORK/config" \
        ANTHROPIC_API_KEY=bench-key-not-secret ANTHROPIC_BASE_URL="$MOCK_URL" \
        CATUI_MODEL=bench-main /usr/bin/time -f "%M %e" -a -o "$WORK/$1.txt" \
        "$WORK/$1" -p hi >/dev/null 2>>"$WORK/err"
}
run with; run without # warm-up, not counted
: >"$WORK/with.txt"; : >"$WORK/without.txt"
for _ in $(seq "$RUNS"); do run with; run without; done

python3 - "$WORK" <<'PY'
import statistics, sys
work = sys.argv[1]
print("| `catui -p hi` | RSS min | RSS median | RSS max (MiB) | time median (ms) | runs |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for name, label in (("with", "broker feature compiled in"), ("without", "without the broker feature")):
    rows = [l.split() for l in open(f"{work}/{name}.txt") if l.strip() and l.split()[0].isdigit()]
    rss = [int(r[0]) / 1024 for r in rows]
    secs = [float(r[1]) * 1000 for r in rows]
    print(f"| {label} | {min(rss):.1f} | {statistics.median(rss):.1f} | {max(rss):.1f} | {statistics.median(secs):.0f} | {len(rows)} |")
PY
