//! How long the `@` picker takes on a large tree: the walk (opening the
//! picker the first time) and each keystroke's ranking as a query is
//! typed letter by letter, on a generated tree of N files (default
//! 100 000) in a temporary directory, or on a directory given.
//!
//! ```text
//! cargo run --release -p catui-fuzzy --example picker_bench -- [FILES|DIR] [RUNS]
//! ```

use std::path::Path;
use std::time::{Duration, Instant};

use catui_fuzzy::{FileIndex, IndexStatus, Matcher};

/// Rows the picker asks for.
const LIMIT: usize = 50;
/// Queries typed letter by letter.
const QUERIES: [&str; 3] = ["render", "src/mod42", "tests_file_9"];

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_else(|| "100000".into());
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(7);
    let generated;
    let root = match what.parse::<usize>() {
        Ok(n) => {
            generated = match tempfile::tempdir() {
                Ok(d) => d,
                Err(e) => return eprintln!("no temporary directory: {e}"),
            };
            if let Err(e) = make_tree(generated.path(), n) {
                return eprintln!("could not make the tree: {e}");
            }
            generated.path().to_path_buf()
        }
        Err(_) => what.into(),
    };
    let mut walks = Vec::new();
    let mut first_keys = Vec::new();
    let mut later_keys = Vec::new();
    let mut paths = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let mut index = FileIndex::new(&root);
        index.open();
        loop {
            if let IndexStatus::Ready { paths: p, .. } = index.status() {
                paths = p;
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        walks.push(start.elapsed());
        for query in QUERIES {
            let mut matcher = Matcher::default();
            for end in 1..=query.len() {
                let typed = &query[..end];
                let t = Instant::now();
                let best = index.with_entries(|e, g| matcher.rank(e, g, typed, LIMIT));
                std::hint::black_box(best);
                let took = t.elapsed();
                if end == 1 {
                    first_keys.push(took);
                } else {
                    later_keys.push(took);
                }
            }
        }
    }
    println!("tree: {} ({paths} paths listed)", root.display());
    report("open: walk until the list is complete", &mut walks);
    report("first letter after @ (whole list ranked)", &mut first_keys);
    report("each further letter (narrowed ranking)", &mut later_keys);
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let median = times[times.len() / 2];
    let max = times[times.len() - 1];
    println!(
        "{what}: median {:.2} ms, max {:.2} ms over {} samples",
        ms(median),
        ms(max),
        times.len()
    );
}

/// `n` empty files spread as a source tree is: 100 files a directory,
/// directories three deep, a `.gitignore`d build folder beside them.
fn make_tree(root: &Path, n: usize) -> std::io::Result<()> {
    let kinds = ["src", "tests", "docs", "crates"];
    for i in 0..n {
        let d = i / 100;
        let dir = root.join(format!(
            "{}/mod{}/part{}",
            kinds[d % kinds.len()],
            d / 10,
            d % 10
        ));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir)?;
        }
        let name = match i % 3 {
            0 => format!("render_{i}.rs"),
            1 => format!("tests_file_{i}.txt"),
            _ => format!("Widget{i}.ts"),
        };
        std::fs::write(dir.join(name), "")?;
    }
    std::fs::create_dir_all(root.join("target/debug"))?;
    std::fs::write(root.join("target/debug/ignored.bin"), "")?;
    std::fs::write(root.join(".gitignore"), "target/\n")
}
