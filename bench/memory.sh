#!/usr/bin/env bash
# Where the resident memory of a one-shot `catui -p hi` goes: max RSS
# (/usr/bin/time) of `catui -p hi` and `catui --version` over N runs, and
# one breakdown of a `catui -p hi` waiting for its answer (catui-mock with
# --latency-ms 800, /proc/PID/smaps read after 400 ms): the executable's
# code, its read-only data (relocation records included), its data the
# loader relocated (copied pages), the heap, and the shared libraries.
# Also the wall time of `catui -p hi` (hyperfine -N) and the binary's size.
# Prints a Markdown section for docs/BENCHMARKS.md on stdout.
#
# The executable is measured as a fresh copy (what `cargo install` leaves):
# how much a page fault maps around it depends on how the file's pages sit
# in the page cache (large folios after readahead map more), so the build
# output itself can read higher or lower depending on its history; its
# figure is printed too.
#
# Usage: bash bench/memory.sh [--runs N]
# Needs: cargo build --release -p catui -p catui-testkit --bins, hyperfine
set -euo pipefail

RUNS=10
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BUILT=$TARGET/release/catui
MOCK=$TARGET/release/catui-mock
for bin in "$BUILT" "$MOCK"; do
    [ -x "$bin" ] || { echo "$bin is missing: cargo build --release -p catui -p catui-testkit --bins" >&2; exit 1; }
done
command -v hyperfine >/dev/null || { echo "hyperfine is missing (apt-get install hyperfine)" >&2; exit 1; }

WORK=$(mktemp -d /tmp/catui-memory-bench.XXXXXX)
MOCK_PIDS=()
cleanup() {
    for pid in "${MOCK_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/project" "$WORK/home" "$WORK/config" "$WORK/bin"
CATUI=$WORK/bin/catui
cp "$BUILT" "$CATUI"

start_mock() { # start_mock OPTIONS...: sets MOCK_URL
    local log=$WORK/mock.$RANDOM.out
    "$MOCK" "$@" >"$log" 2>&1 &
    MOCK_PIDS+=($!)
    for _ in $(seq 100); do
        if [ -s "$log" ]; then break; fi
        sleep 0.05
    done
    MOCK_URL=$(head -n1 "$log")
}
catui_env() {
    env -i PATH="$PATH" HOME="$WORK/home" CATUI_CONFIG_DIR="$WORK/config" \
        ANTHROPIC_API_KEY=bench-key-not-secret ANTHROPIC_BASE_URL="$MOCK_URL" \
        CATUI_MODEL=bench-main "$@"
}

start_mock
cd "$WORK/project"
for _ in $(seq "$RUNS"); do
    catui_env /usr/bin/time -f %M -a -o "$WORK/hi.rss" "$CATUI" -p hi >/dev/null 2>>"$WORK/err"
    catui_env /usr/bin/time -f %M -a -o "$WORK/version.rss" "$CATUI" --version >/dev/null 2>>"$WORK/err"
    catui_env /usr/bin/time -f %M -a -o "$WORK/built.rss" "$BUILT" -p hi >/dev/null 2>>"$WORK/err"
done
catui_env hyperfine -N --warmup 3 --runs "$((RUNS * 4))" --export-json "$WORK/time.json" \
    "$CATUI -p hi" >/dev/null 2>>"$WORK/err"

start_mock --latency-ms 800
# Without the shell function: $! must be catui itself.
env -i PATH="$PATH" HOME="$WORK/home" CATUI_CONFIG_DIR="$WORK/config" \
    ANTHROPIC_API_KEY=bench-key-not-secret ANTHROPIC_BASE_URL="$MOCK_URL" \
    CATUI_MODEL=bench-main "$CATUI" -p hi >/dev/null 2>>"$WORK/err" &
CATUI_PID=$!
sleep 0.4
cp "/proc/$CATUI_PID/smaps" "$WORK/smaps"
wait "$CATUI_PID"

readelf -SW "$CATUI" >"$WORK/sections"
python3 - "$WORK" "$CATUI" "$RUNS" <<'PY'
import re, statistics, sys
work, exe, runs = sys.argv[1], sys.argv[2], sys.argv[3]

def rss_row(name):
    kib = [int(l) for l in open(f"{work}/{name}.rss") if l.strip().isdigit()]
    mib = [k / 1024 for k in kib]
    return f"{min(mib):.1f} | {statistics.median(mib):.1f} | {max(mib):.1f} | {len(mib)}"

def time_row():
    import json
    times = [t * 1000 for t in json.load(open(f"{work}/time.json"))["results"][0]["times"]]
    return f"{min(times):.1f} | {statistics.median(times):.1f} | {max(times):.1f} | {len(times)}"

parts = {"code": 0, "read-only data": 0, "relocated data": 0, "heap": 0,
         "shared libraries": 0, "stacks and other": 0}
current = None
for line in open(f"{work}/smaps"):
    head = re.match(r"^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$", line)
    if head:
        perms, path = head.group(1), head.group(2).strip()
        if path == exe:
            current = ("code" if "x" in perms else
                       "relocated data" if perms.startswith("rw") else
                       "read-only data")
        elif path == "[heap]":
            current = "heap"
        elif path.startswith("/"):
            current = "shared libraries"
        else:
            current = "stacks and other"
        continue
    if line.startswith("Rss:") and current:
        kib = int(line.split()[1])
        parts[current] += kib
    if line.startswith("Anonymous:") and current == "read-only data":
        # The relocated read-only data (RELRO) is mapped read-only after
        # the loader wrote it: its copied pages are anonymous.
        kib = int(line.split()[1])
        parts["read-only data"] -= kib
        parts["relocated data"] += kib

sizes = {}
for line in open(f"{work}/sections"):
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", line)
    if m:
        sizes[m.group(1)] = int(m.group(2), 16)

print("## Memory of a one-shot run")
print()
print(f"`bash bench/memory.sh --runs {runs}`: max RSS (`/usr/bin/time -f %M`) against catui-mock.")
print()
print("| command | min (MiB) | median (MiB) | max (MiB) | runs |")
print("| --- | ---: | ---: | ---: | ---: |")
print(f"| `catui -p hi` (a fresh copy of the binary) | {rss_row('hi')} |")
print(f"| `catui --version` | {rss_row('version')} |")
print(f"| `catui -p hi`, the build output in place | {rss_row('built')} |")
print()
print("| wall time (ms) | min | median | max | runs |")
print("| --- | ---: | ---: | ---: | ---: |")
print(f"| `catui -p hi` (hyperfine -N) | {time_row()} |")
print()
total = sum(parts.values())
print(f"Resident memory of one `catui -p hi` waiting for its answer ({total / 1024:.1f} MiB), by mapping:")
print()
print("| part | MiB |")
print("| --- | ---: |")
for name, kib in parts.items():
    print(f"| {name} | {kib / 1024:.1f} |")
print()
mib = lambda name: sizes.get(name, 0) / 1024 / 1024
import os
print(f"Executable: {os.path.getsize(exe) / 1e6:.1f} MB on disk; {mib('.text'):.1f} MiB of code, "
      f"{(mib('.rela.dyn') + mib('.relr.dyn')):.2f} MiB of relocation records "
      f"(read by the loader at every start), {mib('.data.rel.ro'):.2f} MiB of data they relocate "
      "(copied pages).")
PY
