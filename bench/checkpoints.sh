#!/usr/bin/env bash
# Checkpoint benchmarks (docs/BENCHMARKS.md, "Checkpoints"): the 60k-file
# repository of the start-up benchmark (bench/gen-repo.sh) with a
# 100-turn session, and a 2,000-turn session on a 1,000-file repository.
# Prints wall times and the CPU time of catui and its git processes
# (the CPU figures do not grow with the machine's load).
#
# Usage: bench/checkpoints.sh [PROFILE]   (PROFILE: release (default) or dev)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PROFILE=${1:-release}
WORK=${CATUI_BENCH_DIR:-/tmp/catui-bench-checkpoints}
mkdir -p "$WORK"
bash bench/gen-repo.sh "$WORK/repo-60000" 60000 2000
bash bench/gen-repo.sh "$WORK/repo-1000" 1000 0
if [ "$PROFILE" = release ]; then
    cargo build -q --release -p catui-core --example checkpoint_bench
    BIN=target/release/examples/checkpoint_bench
else
    cargo build -q -p catui-core --example checkpoint_bench
    BIN=target/debug/examples/checkpoint_bench
fi
echo "== 60,000 tracked + 2,000 untracked files, 100 turns"
"$BIN" "$WORK/repo-60000" 100
echo
echo "== 1,000 files, 2,000 turns"
"$BIN" "$WORK/repo-1000" 2000
