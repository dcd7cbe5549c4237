//! Benchmark driver for the Grep and Glob tools, used by `bench/search.sh`
//! so hyperfine can time catui's in-process search against `rg` and `fd`
//! on the same tree in the same run.
//!
//! ```text
//! search_bench gen DIR [FILES]                 generate a deterministic tree
//! search_bench grep MODE PATTERN DIR           run the Grep tool (MODE: files|content|count)
//! search_bench glob PATTERN DIR                run the Glob tool
//! search_bench report FILE.json...             hyperfine JSON -> Markdown table
//! ```
//!
//! `grep` and `glob` go through the same path as the engine (JSON input,
//! parse, validate, call) and print the tool's answer to stdout.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use catui_core::tools::glob::GlobTool;
use catui_core::tools::grep::GrepTool;
use catui_core::tools::{Adapter, Tool, ToolContext, TypedTool};
use serde_json::{Value, json};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn main() {
    if let Err(e) = real_main() {
        eprintln!("search_bench: {e}");
        std::process::exit(2);
    }
}

fn real_main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| -> Res<&str> {
        args.get(i)
            .map(String::as_str)
            .ok_or_else(|| format!("missing argument {i}; see the module docs for usage").into())
    };
    match arg(0)? {
        "gen" => {
            let files = match args.get(2) {
                Some(n) => n.parse()?,
                None => 100_000,
            };
            generate(Path::new(arg(1)?), files)
        }
        "grep" => {
            let mode = match arg(1)? {
                "files" => "files_with_matches",
                "content" => "content",
                "count" => "count",
                other => return Err(format!("unknown grep mode {other}").into()),
            };
            let input = json!({"pattern": arg(2)?, "path": arg(3)?, "output_mode": mode});
            run_tool(GrepTool, Path::new(arg(3)?), input)
        }
        "glob" => {
            let input = json!({"pattern": arg(1)?, "path": arg(2)?});
            run_tool(GlobTool, Path::new(arg(2)?), input)
        }
        "report" => report(&args[1..]),
        other => Err(format!("unknown command {other}; use gen, grep, glob or report").into()),
    }
}

fn run_tool<T: TypedTool>(tool: T, dir: &Path, input: Value) -> Res<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let ctx = ToolContext::new(dir.to_path_buf());
    let adapter = Adapter(Arc::new(tool));
    let out = rt.block_on(async {
        let call = adapter.parse(&input)?;
        call.validate(&ctx).await?;
        call.call(&ctx).await
    })?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.content.as_bytes())?;
    stdout.write_all(b"\n")?;
    Ok(())
}

/// A small deterministic PRNG (xorshift64*), so every run builds the same tree.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: &[&str] = &[
    "let", "value", "count", "index", "buffer", "result", "config", "state", "render", "parse",
    "token", "stream", "error", "handle", "update", "return", "match", "option", "string",
    "vector", "client", "server", "request", "response", "session", "plan", "file", "path",
    "search", "window", "event", "model", "tool", "cache", "limit", "offset", "query", "line",
];
const EXTS: &[&str] = &["rs", "rs", "rs", "rs", "ts", "ts", "py", "py", "md", "json"];

/// Writes `files` files under `dir` (plus an ignored `target/` and a `.git`
/// marker so gitignore rules apply as in a real repository).
fn generate(dir: &Path, files: u64) -> Res<()> {
    if dir.join(".catui-bench-tree").exists() {
        let have: u64 = fs::read_to_string(dir.join(".catui-bench-tree"))?
            .trim()
            .parse()
            .unwrap_or(0);
        if have == files {
            println!("{} already holds the {files}-file tree", dir.display());
            return Ok(());
        }
    }
    fs::create_dir_all(dir.join(".git"))?;
    fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n")?;
    fs::write(dir.join(".gitignore"), "target/\n*.log\n")?;
    let per_dir = 200;
    let mut text = String::new();
    for i in 0..files {
        let sub: PathBuf = dir
            .join(format!("pkg{:02}", i / (per_dir * 25)))
            .join(format!("mod{:02}", (i / per_dir) % 25));
        if i.is_multiple_of(per_dir) {
            fs::create_dir_all(&sub)?;
        }
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (i + 1).wrapping_mul(0x1000_0000_01B3));
        let ext = EXTS[(i % EXTS.len() as u64) as usize];
        text.clear();
        fill_file(&mut rng, i, ext, &mut text);
        fs::write(sub.join(format!("file_{i:06}.{ext}")), &text)?;
    }
    // Ignored build output: every tool should skip it.
    let target = dir.join("target/debug");
    fs::create_dir_all(&target)?;
    for i in 0..2000 {
        fs::write(
            target.join(format!("gen_{i}.rs")),
            "// needle_0000 generated\n",
        )?;
    }
    fs::write(dir.join(".catui-bench-tree"), files.to_string())?;
    println!("generated {files} files under {}", dir.display());
    Ok(())
}

fn fill_file(rng: &mut Rng, i: u64, ext: &str, text: &mut String) {
    use std::fmt::Write as _;
    let lines = 10 + rng.below(50);
    for l in 0..lines {
        let indent = (rng.below(4) * 4) as usize;
        text.extend(std::iter::repeat_n(' ', indent));
        let words = 3 + rng.below(8);
        if ext == "rs" && l % 7 == 0 && rng.below(20) == 0 {
            let _ = write!(text, "fn {}_handler(", WORDS[rng.below(38) as usize]);
        }
        for w in 0..words {
            if w > 0 {
                text.push(' ');
            }
            text.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        }
        if rng.below(50) == 0 {
            text.push_str(" // TODO");
        }
        text.push('\n');
    }
    // A rare token in about one file in 337, for selective searches.
    if i.is_multiple_of(337) {
        let _ = writeln!(text, "let needle_{:04} = {};", i % 10_000, rng.below(100));
    }
}

/// Turns hyperfine `--export-json` files into one Markdown table. The first
/// command of each file is catui's; every other row shows catui's median
/// divided by that command's (below 1.5 meets the quality bar), for the
/// medians and for the minimums (the latter is steadier on a busy machine).
fn report(files: &[String]) -> Res<()> {
    println!(
        "| benchmark | command | min (ms) | median (ms) | max (ms) | runs | catui ÷ this (median) | catui ÷ this (min) |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for file in files {
        let v: Value = serde_json::from_str(&fs::read_to_string(file)?)?;
        let name = Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let results = v["results"].as_array().cloned().unwrap_or_default();
        let ms = |r: &Value, k: &str| r[k].as_f64().unwrap_or(f64::NAN) * 1000.0;
        let catui = results.first();
        for (i, r) in results.iter().enumerate() {
            let runs = r["times"].as_array().map_or(0, Vec::len);
            let ratio = |k: &str| match (i, catui) {
                (0, _) | (_, None) => String::new(),
                (_, Some(c)) => format!("{:.2}x", ms(c, k) / ms(r, k)),
            };
            let command = r["command"].as_str().unwrap_or("?");
            // Shorten the long build path of our binary for the table.
            let command = match command.find("search_bench") {
                Some(at) => format!("catui {}", &command[at + "search_bench ".len()..]),
                None => command.to_string(),
            };
            println!(
                "| {name} | `{}` | {:.1} | {:.1} | {:.1} | {runs} | {} | {} |",
                command.replace('|', "\\|"),
                ms(r, "min"),
                ms(r, "median"),
                ms(r, "max"),
                ratio("median"),
                ratio("min"),
            );
        }
    }
    Ok(())
}
