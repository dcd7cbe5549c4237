//! How long the read-only analysis of a typical ~200-character command line
//! takes (the permission check runs it on every Bash call).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

use catui_core::permissions::shell::analyze;

const COMMAND: &str = "cd crates/core && git log --oneline -n 20 -- src/ | head -5 && \
rg -n 'fn analyze' --type rust src | wc -l; find . -name '*.rs' -not -path './target/*' \
-exec grep -l 'tree_sitter' {} + 2>/dev/null | sort | uniq -c";

fn bench(c: &mut Criterion) {
    assert!(COMMAND.len() >= 190, "command is {} chars", COMMAND.len());
    assert!(analyze(COMMAND).read_only);
    c.bench_function("analyze_200_char_command", |b| {
        b.iter(|| analyze(black_box(COMMAND)))
    });
    let mutating = "ls -la && echo \"$(git rev-parse HEAD)\" > out.txt; sed -i 's/a/b/' f";
    c.bench_function("analyze_short_mutating_command", |b| {
        b.iter(|| analyze(black_box(mutating)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
