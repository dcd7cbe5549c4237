//! What checkpoints cost (docs/BENCHMARKS.md, "Checkpoints"): the first
//! snapshot of a project, a snapshot when nothing and when one file
//! changed, and a session of many turns through the checkpoint service
//! (a checkpoint before each turn's change, one at its end), with the
//! rewind to its first message at the end.
//!
//! ```sh
//! bash bench/gen-repo.sh /tmp/catui-repo-60000 60000 2000
//! cargo run --release -p catui-core --example checkpoint_bench -- /tmp/catui-repo-60000 100
//! ```
//!
//! It changes files of REPO (`catui-bench-*.txt`) and removes them again.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use catui_core::checkpoints::shadow::ShadowRepo;
use catui_core::checkpoints::{CheckpointSetup, Checkpoints, RewindRequest, RewindTarget};
use catui_core::engine::Recorder;
use catui_core::plan::{PlanFiles, PlanModeConfig, PlanSession};
use catui_core::session::{Redactor, TranscriptRecorder, TranscriptWriter};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// CPU time of this process and its waited-for children (the git
/// processes), in ms, from /proc/self/stat (clock ticks of 10 ms): what
/// the machine's load does not inflate.
fn cpu_ms() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime, stime, cutime, cstime are fields 14-17 of the whole line,
    // 12-15 after the name and state.
    let ticks: f64 = fields
        .get(11..15)
        .unwrap_or_default()
        .iter()
        .filter_map(|f| f.parse::<f64>().ok())
        .sum();
    ticks * 10.0
}

/// Average CPU per run over `runs` runs of `f`.
fn cpu_per_run(name: &str, runs: usize, mut f: impl FnMut(usize)) {
    let before = cpu_ms();
    let started = Instant::now();
    for i in 0..runs {
        f(i);
    }
    println!(
        "| {name} | {:.1} ms CPU per run (catui + git) | {:.1} ms wall per run | {runs} |",
        (cpu_ms() - before) / runs as f64,
        ms(started.elapsed()) / runs as f64
    );
}

fn summary(name: &str, mut times: Vec<Duration>) {
    times.sort();
    let n = times.len();
    if n == 0 {
        return;
    }
    println!(
        "| {name} | {:.1} | {:.1} | {:.1} | {n} |",
        ms(times[0]),
        ms(times[n / 2]),
        ms(times[n - 1])
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(repo) = args.get(1).map(PathBuf::from) else {
        eprintln!("usage: checkpoint_bench REPO [TURNS]");
        std::process::exit(2);
    };
    let turns: usize = args.get(2).and_then(|t| t.parse().ok()).unwrap_or(100);
    let repo = std::fs::canonicalize(&repo).unwrap_or(repo);
    let home = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let bench_file = |i: usize| repo.join(format!("catui-bench-{i}.txt"));

    println!("| step | min (ms) | median (ms) | max (ms) | runs |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let shadow = ShadowRepo::new(home.path(), &repo);
    let started = Instant::now();
    let cpu_before = cpu_ms();
    let mut last = shadow
        .snapshot("bench", None, None)
        .unwrap_or_else(|e| panic!("{e}"));
    summary(
        "first snapshot of the project (new shadow repository)",
        vec![started.elapsed()],
    );
    println!(
        "| the same, CPU (catui + git) | {:.0} | | | 1 |",
        cpu_ms() - cpu_before
    );

    let mut unchanged = Vec::new();
    for _ in 0..10 {
        let t = Instant::now();
        last = shadow
            .snapshot("bench", Some(&last), None)
            .unwrap_or_else(|e| panic!("{e}"));
        unchanged.push(t.elapsed());
    }
    summary("snapshot, nothing changed", unchanged);

    let mut one = Vec::new();
    for i in 0..10 {
        std::fs::write(bench_file(0), format!("change {i}\n")).unwrap_or_else(|e| panic!("{e}"));
        let t = Instant::now();
        last = shadow
            .snapshot("bench", Some(&last), None)
            .unwrap_or_else(|e| panic!("{e}"));
        one.push(t.elapsed());
    }
    summary("snapshot, one file changed", one);

    println!("\n| CPU | per run | wall | runs |\n| --- | ---: | ---: | ---: |");
    cpu_per_run("snapshot, nothing changed", 20, |_| {
        last = shadow
            .snapshot("bench", Some(&last), None)
            .unwrap_or_else(|e| panic!("{e}"));
    });
    cpu_per_run("snapshot, one file changed", 20, |i| {
        std::fs::write(bench_file(0), format!("cpu {i}\n")).unwrap_or_else(|e| panic!("{e}"));
        last = shadow
            .snapshot("bench", Some(&last), None)
            .unwrap_or_else(|e| panic!("{e}"));
    });
    println!();
    session(home.path(), &repo, turns, &bench_file);
    for i in 0..turns.max(1) {
        let _ = std::fs::remove_file(bench_file(i));
    }
    let size = dir_size(&home.path().join("checkpoints"));
    println!(
        "\nshadow repository: {:.1} MiB",
        size as f64 / (1024.0 * 1024.0)
    );
}

/// `turns` turns through the service: each changes one file.
fn session(home: &Path, repo: &Path, turns: usize, bench_file: &dyn Fn(usize) -> PathBuf) {
    let transcript = home.join("bench-session.jsonl");
    let recorder = Arc::new(TranscriptRecorder::new(
        TranscriptWriter::open(&transcript)
            .unwrap_or_else(|e| panic!("{e}"))
            .with_redactor(Redactor::default()),
    ));
    let plan = Arc::new(PlanSession::new(
        PlanFiles::new(home.join("plans"), "bench"),
        PlanModeConfig::default(),
        None,
    ));
    let (events, _rx) = tokio::sync::mpsc::unbounded_channel();
    let checkpoints = Checkpoints::new(CheckpointSetup {
        session_id: "bench-session".into(),
        config_dir: home.to_path_buf(),
        project: repo.to_path_buf(),
        recorder: recorder.clone(),
        transcript: Some(transcript.clone()),
        entries: Vec::new(),
        plan,
        events,
        limits: Default::default(),
        rewind: true,
    });
    println!("| step | min (ms) | median (ms) | max (ms) | runs |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let mut starts = Vec::new();
    let mut ends = Vec::new();
    let mut first_start = None;
    let (mut cpu_starts, mut cpu_ends, mut cpu_first) = (0.0, 0.0, 0.0);
    for i in 0..turns {
        let uuid = format!("00000000-0000-4000-8000-{i:012}");
        checkpoints.input_started(&uuid, &format!("turn {i}"));
        recorder.record_with_uuid(
            &uuid,
            catui_core::engine::Record::User {
                message: catui_protocol::Message::user_text(format!("turn {i}")),
                is_meta: false,
            },
        );
        let t = Instant::now();
        let c = cpu_ms();
        checkpoints.before_change();
        let start = t.elapsed();
        if i == 0 {
            first_start = Some(start);
            cpu_first = cpu_ms() - c;
        } else {
            starts.push(start);
            cpu_starts += cpu_ms() - c;
        }
        std::fs::write(bench_file(i), format!("turn {i}\n")).unwrap_or_else(|e| panic!("{e}"));
        let t = Instant::now();
        let c = cpu_ms();
        checkpoints.input_handled();
        ends.push(t.elapsed());
        cpu_ends += cpu_ms() - c;
    }
    if let Some(first) = first_start {
        summary(
            "session: first checkpoint (existing shadow repository)",
            vec![first],
        );
    }
    let tail: Vec<Duration> = starts.iter().rev().take(20).copied().collect();
    summary(
        &format!("session: checkpoint before a turn's change ({turns} turns)"),
        starts,
    );
    summary("session: the same, last 20 turns", tail);
    summary("session: end of a turn (snapshot and files changed)", ends);
    let t = Instant::now();
    let points = checkpoints.points();
    summary(
        &format!("list the {} points to rewind to", points.len()),
        vec![t.elapsed()],
    );
    let first = RewindTarget::Message("00000000-0000-4000-8000-000000000000".into());
    let t = Instant::now();
    let report = checkpoints
        .rewind(&RewindRequest {
            target: first,
            code: true,
            conversation: true,
            force: false,
            dry_run: false,
        })
        .unwrap_or_else(|e| panic!("{e}"));
    summary(
        &format!(
            "rewind code and conversation to the first message ({} files deleted)",
            report.deleted.len()
        ),
        vec![t.elapsed()],
    );
    let runs = turns.saturating_sub(1).max(1) as f64;
    println!(
        "\nCPU (catui + git): first checkpoint of the session {cpu_first:.0} ms; per turn, \
         checkpoint before its change {:.1} ms, end of turn {:.1} ms (averages over {turns} turns)",
        cpu_starts / runs,
        cpu_ends / turns.max(1) as f64
    );
    let transcript_size = std::fs::metadata(&transcript).map(|m| m.len()).unwrap_or(0);
    println!(
        "\ntranscript of the {turns}-turn session: {:.1} KiB",
        transcript_size as f64 / 1024.0
    );
}

fn dir_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            match e.metadata() {
                Ok(m) if m.is_dir() => stack.push(e.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}
