#!/usr/bin/env bash
# What a dry run adds over a confined command (issue 50; goal: <= 20 ms for
# a small project): `git status` and `ls` through the real Bash tool in a
# small git project (40 files), unconfined, confined (Landlock + seccomp;
# then bubblewrap + Landlock + seccomp with catui's inner stage), and as a
# dry run (the same layers plus overlays over the project and the home, a
# fresh scratch area each run, its changes counted, the area removed).
# Release build (PROFILE=dev for the dev profile, on a machine where the
# release build's fat LTO is too slow); prints a Markdown table.
#   bash bench/dry_run.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
profile=${PROFILE:-release}
out=target/$([ "$profile" = dev ] && echo debug || echo release)
cargo build --quiet --profile "$profile" -p catui
cargo build --quiet --profile "$profile" -p catui-core --example sandbox_cost
project=$(mktemp -d "${TMPDIR:-/tmp}/catui-bench-dry-run.XXXXXX")
trap 'rm -rf "$project"' EXIT
mkdir -p "$project/src"
for i in $(seq 1 40); do printf 'pub fn f%d() {}\n' "$i" > "$project/src/m$i.rs"; done
git -C "$project" init -q
git -C "$project" add -A
git -C "$project" -c user.name=bench -c user.email=bench@example.invalid commit -qm init
echo "Machine: $(nproc) CPUs, $(uname -sr); load average: $(cut -d' ' -f1-3 /proc/loadavg); profile: $profile"
"$out/examples/sandbox_cost" --stage "$out/catui" --dir "$project" --runs "$runs" 'git status' 'ls'
