//! Programs whose flags decide whether they only read: `sort -o` writes,
//! `rg --pre` runs a program, `date -s` sets the clock, a second `uniq` or
//! `xxd` operand is an output file, `make` reads only with `-n`...

use super::{Judged, ReadOnly, long_option_is, no_dynamic_options, short_cluster};
use crate::permissions::shell::words::{Word, has_brace_expansion, has_glob};

/// Judges the programs this module knows; anything else is not read-only.
pub(in crate::permissions::shell) fn check(name: &str, args: &[Word]) -> Judged {
    let always = |r: Result<(), String>| r.map(|()| ReadOnly::ALWAYS);
    match name {
        "printf" => always(printf(args)),
        "sort" => always(sort(args)),
        "uniq" => always(uniq(args)),
        "xxd" => always(xxd(args)),
        "fd" | "fdfind" => always(fd(args)),
        "rg" => always(rg(args)),
        "tree" => always(tree(args)),
        "file" => always(file(args)),
        "date" => always(date(args)),
        "hostname" => always(hostname(args)),
        "cargo" => cargo(args),
        "make" | "gmake" => make(args),
        "rustc" => toolchain_version(name, args, &["--version", "-V", "-vV", "--verbose", "-v"]),
        "node" | "npm" => always(version_only(name, args, &["--version", "-v"])),
        "pnpm" | "yarn" => toolchain_version(name, args, &["--version", "-v"]),
        "go" => toolchain_version(name, args, &["version"]),
        _ => Err(format!("`{name}` is not a known read-only command")),
    }
}

fn printf(args: &[Word]) -> Result<(), String> {
    match args.first() {
        Some(w) if w.dynamic => Err(format!(
            "`printf` with a first argument only known at run time (`{}`) could be `-v`",
            w.text
        )),
        Some(w) if w.text.starts_with("-v") => Err("`printf -v` assigns a variable".into()),
        _ => Ok(()),
    }
}

fn sort(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("sort", args)?;
    let mut skip_next = false;
    for w in args {
        let t = w.text.as_str();
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if t == "--" {
            break;
        }
        if long_option_is(t, "output", 1) {
            return Err("`sort -o` writes a file".into());
        }
        if long_option_is(t, "compress-program", 1) {
            return Err("`sort --compress-program` runs a program".into());
        }
        if let Some(cluster) = short_cluster(t) {
            for (idx, c) in cluster.char_indices() {
                match c {
                    'o' => return Err("`sort -o` writes a file".into()),
                    'k' | 't' | 'S' | 'T' => {
                        skip_next = idx + 1 == cluster.len();
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// The operands of a command whose options may take a value: the words
/// that are neither options nor option values.
fn operands<'a>(args: &'a [Word], takes_value: &[&str]) -> Vec<&'a Word> {
    let mut out = Vec::new();
    let mut only_operands = false;
    let mut skip_next = false;
    for w in args {
        let t = w.text.as_str();
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if only_operands || t == "-" || !t.starts_with('-') {
            out.push(w);
        } else if t == "--" {
            only_operands = true;
        } else if takes_value.contains(&t) {
            skip_next = true;
        }
    }
    out
}

/// The one input operand of a program whose second operand is an output
/// file (`uniq IN OUT`, `xxd IN OUT`). An operand the shell expands (a
/// glob, braces, a variable) may become several words, the second of
/// which would be written, so it is refused.
fn single_input(program: &str, args: &[Word], takes_value: &[&str]) -> Result<(), String> {
    let operands = operands(args, takes_value);
    if let Some(w) = operands
        .iter()
        .find(|w| w.dynamic || has_glob(&w.text) || has_brace_expansion(&w.text))
    {
        return Err(format!(
            "`{program} {}` may expand to several files, and `{program}` writes to the second",
            w.text
        ));
    }
    if operands.len() > 1 {
        return Err(format!(
            "`{program}` with a second file operand writes to that file"
        ));
    }
    Ok(())
}

fn uniq(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("uniq", args)?;
    let takes = [
        "-f",
        "-s",
        "-w",
        "--skip-fields",
        "--skip-chars",
        "--check-chars",
    ];
    single_input("uniq", args, &takes)
}

/// `xxd [options] [infile [outfile]]`: the second operand is written.
fn xxd(args: &[Word]) -> Result<(), String> {
    if let Some(w) = args.iter().find(|w| w.dynamic) {
        return Err(format!(
            "`xxd` gets an argument only known at run time (`{}`), which could name an output file",
            w.text
        ));
    }
    let takes = [
        "-c", "-g", "-l", "-s", "-o", "-n", "-cols", "-len", "-seek", "-name",
    ];
    single_input("xxd", args, &takes)
}

fn fd(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("fd", args)?;
    for w in args {
        let t = w.text.as_str();
        if t == "--" {
            break;
        }
        let execs = long_option_is(t, "exec", 1)
            || long_option_is(t, "exec-batch", 1)
            || short_cluster(t).is_some_and(|c| c.contains(['x', 'X']));
        if execs {
            return Err("`fd --exec` runs a command for each match".into());
        }
    }
    Ok(())
}

fn rg(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("rg", args)?;
    for w in args {
        let t = w.text.as_str();
        if t == "--" {
            break;
        }
        if long_option_is(t, "pre", 3) {
            return Err("`rg --pre` runs a program on every file".into());
        }
        if long_option_is(t, "hostname-bin", 1) {
            return Err("`rg --hostname-bin` runs a program".into());
        }
    }
    Ok(())
}

fn tree(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("tree", args)?;
    let mut skip_next = false;
    for w in args {
        let t = w.text.as_str();
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if t == "--" {
            break;
        }
        if let Some(cluster) = short_cluster(t) {
            if cluster.contains(['o', 'R']) {
                return Err(format!("`tree {t}` writes files"));
            }
            skip_next = cluster.ends_with(['L', 'P', 'I', 'H', 'T']);
        } else if long_option_is(t, "output", 1) {
            return Err(format!("`tree {t}` writes files"));
        } else if matches!(t, "--charset" | "--filelimit" | "--timefmt" | "--sort") {
            skip_next = true;
        }
    }
    Ok(())
}

fn file(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("file", args)?;
    for w in args {
        let t = w.text.as_str();
        if t == "--" {
            break;
        }
        if long_option_is(t, "compile", 1) || short_cluster(t).is_some_and(|c| c.contains('C')) {
            return Err("`file -C` writes a compiled magic file".into());
        }
    }
    Ok(())
}

fn date(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("date", args)?;
    let mut skip_next = false;
    for w in args {
        let t = w.text.as_str();
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if long_option_is(t, "set", 1) {
            return Err("`date --set` changes the system clock".into());
        }
        if let Some(cluster) = short_cluster(t) {
            if cluster.contains('s') {
                return Err("`date -s` changes the system clock".into());
            }
            skip_next = matches!(cluster, "d" | "f" | "r");
        } else if matches!(t, "--date" | "--file" | "--reference") {
            skip_next = true;
        } else if !t.starts_with('+') && !t.starts_with("--") {
            return Err(format!("`date {t}` sets the system clock"));
        }
    }
    Ok(())
}

fn hostname(args: &[Word]) -> Result<(), String> {
    const QUERIES: &[&str] = &[
        "-f",
        "-s",
        "-d",
        "-i",
        "-I",
        "-A",
        "-a",
        "-y",
        "-V",
        "-h",
        "--fqdn",
        "--long",
        "--short",
        "--domain",
        "--ip-address",
        "--all-ip-addresses",
        "--all-fqdns",
        "--alias",
        "--nis",
        "--version",
        "--help",
    ];
    match args
        .iter()
        .find(|w| w.dynamic || !QUERIES.contains(&w.text.as_str()))
    {
        Some(w) => Err(format!("`hostname {}` can set the host name", w.text)),
        None => Ok(()),
    }
}

/// A version query of a program that is often a toolchain manager's shim
/// (rustup, corepack, go's toolchain switch): the shim runs, and may first
/// download, the version a project file names (`rust-toolchain.toml`, even
/// a `path` inside the project; `packageManager`; go.mod's `toolchain`),
/// so it reads only while confined.
fn toolchain_version(name: &str, args: &[Word], allowed: &[&str]) -> Judged {
    version_only(name, args, allowed)?;
    Ok(ReadOnly::when_confined(format!(
        "`{name}` may be a toolchain manager's shim that runs (and first downloads) the version the project's files name"
    )))
}

/// `cargo metadata` and `cargo tree` read, but run the compiler named by the
/// project's `.cargo/config.toml` (and rustup the toolchain its
/// `rust-toolchain.toml` names) and may rewrite `Cargo.lock`. Resolving
/// dependencies may also fetch the registry: only offline forms read.
fn cargo(args: &[Word]) -> Judged {
    no_dynamic_options("cargo", args)?;
    let args = match args.first() {
        Some(w) if w.text.starts_with('+') => &args[1..],
        _ => args,
    };
    if args.iter().any(|w| {
        w.text == "--config" || w.text.starts_with("--config=") || w.text.starts_with("-Z")
    }) {
        return Err("`cargo --config` can make cargo run other programs".into());
    }
    let has = |flag: &str| args.iter().any(|w| w.text == flag);
    let offline = has("--offline") || has("--frozen");
    match args.first().map(|w| w.text.as_str()) {
        Some("--version" | "-V" | "-Vv" | "version") | None => Ok(ReadOnly::when_confined(
            "`cargo` may be rustup's shim, which runs (and first downloads) the toolchain the project's rust-toolchain.toml names",
        )),
        Some(sub @ ("metadata" | "tree")) if offline || (sub == "metadata" && has("--no-deps")) => {
            Ok(ReadOnly::when_confined(format!(
                "`cargo {sub}` runs the compiler the project's cargo configuration names and may rewrite Cargo.lock"
            )))
        }
        Some(sub @ ("metadata" | "tree")) => Err(format!(
            "`cargo {sub}` may fetch the registry over the network (add `--offline` to read only what is here)"
        )),
        Some(sub) => Err(format!("`cargo {sub}` builds, runs or changes files")),
    }
}

/// `make` runs the build. Even `make -n` runs code the project controls:
/// the Makefile's `$(shell ...)` functions, recipe lines that start with `+`
/// or call `$(MAKE)`, and the rules that remake included makefiles. So
/// only the version query is read-only.
fn make(args: &[Word]) -> Judged {
    version_only("make", args, &["--version", "-v"]).map_err(|_| {
        "`make` runs the Makefile's commands (even `-n` runs its `$(shell ...)`, `+` and `$(MAKE)` lines and remakes included makefiles)".to_string()
    })?;
    Ok(ReadOnly::ALWAYS)
}

pub(in crate::permissions::shell) fn version_only(
    name: &str,
    args: &[Word],
    allowed: &[&str],
) -> Result<(), String> {
    if !args.is_empty()
        && args
            .iter()
            .all(|w| !w.dynamic && allowed.contains(&w.text.as_str()))
    {
        Ok(())
    } else {
        Err(format!(
            "`{name}` runs code; only its version query is read-only"
        ))
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    fn run(args: &[&str]) -> Judged {
        let words: Vec<Word> = args[1..].iter().map(|t| Word::lit(t)).collect();
        check(args[0], &words)
    }

    #[test]
    fn operand_counts() {
        assert!(run(&["xxd", "f"]).is_ok());
        assert!(run(&["xxd", "-c", "16", "f"]).is_ok());
        assert!(run(&["xxd", "-r", "f", "out"]).is_err());
        assert!(run(&["uniq", "-f", "1", "in"]).is_ok());
        assert!(run(&["uniq", "in", "out"]).is_err());
        // A glob may expand to an input and an output file.
        assert!(run(&["uniq", "--", "src/*.txt"]).is_err());
        assert!(run(&["uniq", "-c", "a{,b}"]).is_err());
        assert!(run(&["xxd", "-c", "8", "a?"]).is_err());
    }

    #[test]
    fn make_is_never_read_only_but_its_version() {
        assert!(run(&["make", "--version"]).is_ok());
        for bad in [
            &["make", "-n"][..],
            &["make", "-C", "sub", "--dry-run", "all"],
            &["make"],
            &["make", "-n", "MAKE=touch x"],
            &["make", "-n", "--eval=x"],
        ] {
            assert!(run(bad).is_err(), "{bad:?}");
        }
    }
}
