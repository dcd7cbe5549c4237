#!/usr/bin/env bash
# Session benchmarks: resume of a 10,000-entry transcript
# (target < 150 ms) and listing 1,000 sessions (target < 200 ms), both in
# the library and, for the listing, through the real `catui sessions`.
# The measurements are `#[ignore]`d tests that generate their own data in
# temp dirs and print min/median/max; this script runs them in release.
#
# Usage: bench/sessions.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
cargo test -p catui-core --release --lib -- --ignored --nocapture \
    bench_resume_10k_entries bench_list_1000_sessions 2>&1 | grep -E "^(resume|list) of"
cargo test -p catui --release --test sessions_cli -- --ignored --nocapture \
    bench_sessions_command_1000 2>&1 | grep -E "^catui sessions"
