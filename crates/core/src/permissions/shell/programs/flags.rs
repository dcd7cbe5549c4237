//! Programs whose flags decide whether they only read: `sort -o` writes,
//! `rg --pre` runs a program, `date -s` sets the clock, a second `uniq` or
//! `xxd` operand is an output file, `make` reads only for its version...
//!
//! Most are one [`FlagTable`] each (checked by the one loop in
//! [`super::flag_table`]); the rest are rules on the whole command line
//! (`printf -v`, `hostname`'s queries, `cargo`'s offline forms, the
//! toolchains' version queries).

use super::flag_table::{Dynamic, FlagTable, Operands, ValueLetters, check_table};
use super::{Judged, ReadOnly, no_dynamic_options};
use crate::permissions::shell::words::Word;

/// Judges the programs this module knows; anything else is not read-only.
pub(in crate::permissions::shell) fn check(name: &str, args: &[Word]) -> Judged {
    let always = |r: Result<(), String>| r.map(|()| ReadOnly::ALWAYS);
    if let Some(table) = TABLES.iter().find(|t| t.names.contains(&name)) {
        return always(check_table(table, args));
    }
    match name {
        "printf" => always(printf(args)),
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

/// The programs judged by their flags alone, one table each.
const TABLES: &[FlagTable] = &[
    FlagTable {
        names: &["sort"],
        dynamic: Dynamic::BeforeDoubleDash,
        refused_long: &[
            ("output", 1, "`sort -o` writes a file"),
            (
                "compress-program",
                1,
                "`sort --compress-program` runs a program",
            ),
        ],
        refused_letters: &[('o', "`sort -o` writes a file")],
        value_letters: ValueLetters::Getopt(&['k', 't', 'S', 'T']),
        value_words: &[],
        double_dash_ends_options: true,
        operands: Operands::Any,
    },
    FlagTable {
        names: &["uniq"],
        dynamic: Dynamic::BeforeDoubleDash,
        refused_long: &[],
        refused_letters: &[],
        value_letters: ValueLetters::None,
        value_words: &[
            "-f",
            "-s",
            "-w",
            "--skip-fields",
            "--skip-chars",
            "--check-chars",
        ],
        double_dash_ends_options: true,
        operands: Operands::OneInput,
    },
    // `xxd [options] [infile [outfile]]`: its own parser, one-dash long
    // options, and any word only known at run time could name the output.
    FlagTable {
        names: &["xxd"],
        dynamic: Dynamic::Anywhere(
            "`xxd` gets an argument only known at run time (`{word}`), which could name an output file",
        ),
        refused_long: &[],
        refused_letters: &[],
        value_letters: ValueLetters::None,
        value_words: &[
            "-c", "-g", "-l", "-s", "-o", "-n", "-cols", "-len", "-seek", "-name",
        ],
        double_dash_ends_options: true,
        operands: Operands::OneInput,
    },
    FlagTable {
        names: &["fd", "fdfind"],
        dynamic: Dynamic::BeforeDoubleDash,
        refused_long: &[
            ("exec", 1, "`fd --exec` runs a command for each match"),
            ("exec-batch", 1, "`fd --exec` runs a command for each match"),
        ],
        refused_letters: &[
            ('x', "`fd --exec` runs a command for each match"),
            ('X', "`fd --exec` runs a command for each match"),
        ],
        value_letters: ValueLetters::None,
        value_words: &[],
        double_dash_ends_options: true,
        operands: Operands::Any,
    },
    FlagTable {
        names: &["rg"],
        dynamic: Dynamic::BeforeDoubleDash,
        refused_long: &[
            ("pre", 3, "`rg --pre` runs a program on every file"),
            ("hostname-bin", 1, "`rg --hostname-bin` runs a program"),
        ],
        refused_letters: &[],
        value_letters: ValueLetters::None,
        value_words: &[],
        double_dash_ends_options: true,
        operands: Operands::Any,
    },
    // tree's own parser takes a value letter's value from the next word.
    FlagTable {
        names: &["tree"],
        dynamic: Dynamic::BeforeDoubleDash,
        refused_long: &[("output", 1, "`tree {word}` writes files")],
        refused_letters: &[
            ('o', "`tree {word}` writes files"),
            ('R', "`tree {word}` writes files"),
        ],
        value_letters: ValueLetters::Last(&['L', 'P', 'I', 'H', 'T']),
        value_words: &["--charset", "--filelimit", "--timefmt", "--sort"],
        double_dash_ends_options: true,
        operands: Operands::Any,
    },
    FlagTable {
        names: &["file"],
        dynamic: Dynamic::BeforeDoubleDash,
        refused_long: &[("compile", 1, "`file -C` writes a compiled magic file")],
        refused_letters: &[('C', "`file -C` writes a compiled magic file")],
        value_letters: ValueLetters::None,
        value_words: &[],
        double_dash_ends_options: true,
        operands: Operands::Any,
    },
    // Any operand but `+FORMAT` sets the clock. Stricter than date itself:
    // only a lone `-d` takes a value, and words after `--` are still
    // judged as options.
    FlagTable {
        names: &["date"],
        dynamic: Dynamic::BeforeDoubleDash,
        refused_long: &[("set", 1, "`date --set` changes the system clock")],
        refused_letters: &[('s', "`date -s` changes the system clock")],
        value_letters: ValueLetters::None,
        value_words: &["-d", "-f", "-r", "--date", "--file", "--reference"],
        double_dash_ends_options: false,
        operands: Operands::StartingWith('+', "`date {word}` sets the system clock"),
    },
];

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
    fn each_table_parses_values_its_programs_way() {
        // getopt: the value letter ends the cluster, what follows is its value.
        assert!(run(&["sort", "-ko", "1"]).is_ok());
        assert!(run(&["sort", "-ok", "1"]).is_err());
        assert!(run(&["sort", "-k", "-o"]).is_ok());
        assert!(run(&["sort", "--", "-o"]).is_ok());
        // tree judges every letter; a trailing value letter takes the next word.
        assert!(run(&["tree", "-Lo", "2"]).is_err());
        assert!(run(&["tree", "-aL", "2", "src"]).is_ok());
        assert!(run(&["tree", "--sort", "name", "-R"]).is_err());
        // date: only `+FORMAT` operands, only a lone `-d` takes a value,
        // and `--` does not end its options.
        assert!(run(&["date", "-d", "yesterday", "+%s"]).is_ok());
        assert!(run(&["date", "-ud", "yesterday"]).is_err());
        assert!(run(&["date", "--", "--set=x"]).is_err());
        assert!(run(&["date", "-"]).is_err());
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
