#!/usr/bin/env bash
# What the sandbox adds per command: `git status` and `rg x` through the
# real Bash tool, unconfined, confined by Landlock + seccomp (no inner
# stage), and confined by bubblewrap + Landlock + seccomp (catui's binary
# as the inner stage). Release build; prints a Markdown table.
#   bash bench/sandbox.sh [DIR] [RUNS]     (DIR: a git repository, default .)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.}
runs=${2:-30}
command -v rg >/dev/null || { echo "bench/sandbox.sh: needs ripgrep (apt-get install ripgrep)" >&2; exit 2; }
cargo build --quiet --release -p catui
cargo build --quiet --release -p catui-core --example sandbox_cost
echo "Machine: $(nproc) CPUs, $(uname -sr); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
target/release/examples/sandbox_cost --stage target/release/catui --dir "$dir" --runs "$runs" 'git status' 'rg x'
