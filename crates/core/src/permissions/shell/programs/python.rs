//! `python -c` one-liners that only compute and print.
//!
//! The script is checked token by token against allow-lists: known-harmless
//! builtins, methods and standard modules only, never a name that opens
//! files for writing, runs programs or reaches the interpreter's internals
//! (`__import__`, `getattr`, `exec`). Anything else is not read-only. A
//! script that imports a module other than `sys` is read-only only while
//! the OS confines it: Python looks in the working directory first, where a
//! file named like the module would run.

use super::flags::version_only;
use super::{Judged, ReadOnly};
use crate::permissions::shell::words::Word;

/// Whether `word` is one of the whitespace-separated words of `list`.
pub(in crate::permissions::shell) fn listed(list: &str, word: &str) -> bool {
    list.split_whitespace().any(|w| w == word)
}

const PY_BUILTINS: &str = "\
    print len str int float bool repr sorted reversed list dict set tuple frozenset sum min \
    max range enumerate zip map filter abs round any all chr ord hex oct bin divmod pow \
    isinstance format input iter next True False None open";
const PY_KEYWORDS: &str = "\
    for in if else elif and or not is import while break continue pass lambda";
/// Never in a script, not even as a name it binds (a lambda parameter
/// named `exec` would receive the real `exec`).
const PY_NEVER: &str = "\
    exec eval compile getattr setattr delattr globals locals vars dir breakpoint help \
    memoryview object type super classmethod staticmethod property exit quit copyright \
    credits license callable issubclass bytearray os subprocess shutil pathlib importlib \
    builtins from as def class with global nonlocal del yield async await";
const PY_MODULES: &str = "\
    sys json math re collections itertools statistics datetime csv textwrap string platform \
    hashlib base64 time";
const PY_ATTRS: &str = "\
    load loads dumps argv stdin stdout stderr version version_info platform executable \
    maxsize byteorder exit read readline readlines keys values items get split rsplit strip \
    lstrip rstrip join upper lower title capitalize startswith endswith replace format count \
    find rfind index splitlines partition rpartition encode decode isdigit isalpha isspace \
    zfill ljust rjust center append extend sort reverse copy update setdefault most_common \
    Counter defaultdict OrderedDict datetime date now today isoformat strftime fromtimestamp \
    time sqrt floor ceil pi log match search findall finditer sub group groups IGNORECASE \
    MULTILINE reader DictReader sha256 sha1 md5 hexdigest b64encode b64decode mean median \
    stdev python_version system_alias";

/// `python`/`python3`: the version query, or `-c SCRIPT`.
pub(in crate::permissions::shell) fn python(name: &str, args: &[Word]) -> Judged {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        match w.text.as_str() {
            _ if w.dynamic => break,
            "-I" | "-E" | "-s" | "-S" | "-B" | "-u" | "-q" | "-P" | "-b" => {}
            "-c" => {
                let script = args.get(i).ok_or("`python -c` without a script")?;
                if script.dynamic {
                    return Err(format!(
                        "the Python script `{}` is only known at run time",
                        script.text
                    ));
                }
                return python_script(&script.text);
            }
            _ => break,
        }
    }
    version_only(name, args, &["--version", "-V"]).map(|()| ReadOnly::ALWAYS)
}

struct Token {
    text: String,
    kind: Kind,
}

#[derive(PartialEq, Clone, Copy)]
enum Kind {
    Name,
    Literal,
    Punct,
}

/// Splits Python source into names, literals and punctuation.
fn python_tokens(src: &str) -> Result<Vec<Token>, String> {
    let s: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        if c.is_whitespace() || c == '\\' {
            i += 1;
            continue;
        }
        if c == '#' {
            while s.get(i).is_some_and(|&c| c != '\n') {
                i += 1;
            }
            continue;
        }
        let start = i;
        if c.is_ascii_alphabetic() || c == '_' {
            while s
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
            {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            if matches!(s.get(i), Some('\'' | '"')) && word.len() <= 2 {
                let lower = word.to_ascii_lowercase();
                if lower.contains('f') {
                    return Err(
                        "the Python script uses an f-string, whose `{...}` parts run code".into(),
                    );
                }
                if !lower.chars().all(|c| matches!(c, 'r' | 'b' | 'u')) {
                    return Err(format!(
                        "the Python string prefix `{word}` is not understood"
                    ));
                }
                python_string(&s, &mut i, lower.contains('r'))?;
                out.push(Token {
                    text: String::new(),
                    kind: Kind::Literal,
                });
                continue;
            }
            out.push(Token {
                text: word,
                kind: Kind::Name,
            });
            continue;
        }
        if c == '\'' || c == '"' {
            python_string(&s, &mut i, false)?;
            out.push(Token {
                text: String::new(),
                kind: Kind::Literal,
            });
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && s.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            while s
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
            {
                i += 1;
            }
            out.push(Token {
                text: String::new(),
                kind: Kind::Literal,
            });
            continue;
        }
        if "+-*/%=<>!()[]{},:.;~&|^\n".contains(c) {
            i += 1;
            out.push(Token {
                text: c.to_string(),
                kind: Kind::Punct,
            });
            continue;
        }
        return Err(format!(
            "the Python script has `{c}`, which is not understood"
        ));
    }
    Ok(out)
}

/// Skips a string literal starting at its quote.
fn python_string(s: &[char], i: &mut usize, raw: bool) -> Result<(), String> {
    let q = s[*i];
    let triple = s.get(*i + 1) == Some(&q) && s.get(*i + 2) == Some(&q);
    *i += if triple { 3 } else { 1 };
    while let Some(&c) = s.get(*i) {
        *i += 1;
        if c == '\\' {
            // Even raw strings cannot end on an escaped quote.
            *i += 1;
            let _ = raw;
        } else if c == q && (!triple || (s.get(*i) == Some(&q) && s.get(*i + 1) == Some(&q))) {
            if triple {
                *i += 2;
            }
            return Ok(());
        } else if c == '\n' && !triple {
            break;
        }
    }
    Err("the Python script has an unterminated string".into())
}

fn python_script(src: &str) -> Judged {
    let tokens = python_tokens(src)?;
    if let Some(t) = tokens
        .iter()
        .find(|t| t.kind == Kind::Name && listed(PY_NEVER, t.text.as_str()))
    {
        return Err(format!(
            "the Python script uses `{}`, which can run code or change files",
            t.text
        ));
    }
    let punct = |k: usize, p: &str| {
        tokens
            .get(k)
            .is_some_and(|t| t.kind == Kind::Punct && t.text == p)
    };
    let name_at = |k: usize| {
        tokens
            .get(k)
            .filter(|t| t.kind == Kind::Name)
            .map(|t| t.text.as_str())
    };
    // Names the script binds: `x = `, `x += `, `x := `, keyword
    // arguments, and the variables of `for` and `lambda`.
    let mut bound: Vec<&str> = Vec::new();
    let mut imports: Vec<&str> = Vec::new();
    let mut binder: Option<&str> = None;
    for (k, t) in tokens.iter().enumerate() {
        match (t.kind, t.text.as_str()) {
            (Kind::Name, "for" | "lambda") => {
                binder = Some(if t.text == "for" { "in" } else { ":" })
            }
            (Kind::Name, "in") if binder == Some("in") => binder = None,
            (Kind::Punct, ":") if binder == Some(":") => binder = None,
            (Kind::Name, name) => {
                let op_assign = tokens.get(k + 1).is_some_and(|n| {
                    n.kind == Kind::Punct && "+-*/%|&^:".contains(n.text.as_str())
                }) && punct(k + 2, "=");
                if binder.is_some() || (punct(k + 1, "=") && !punct(k + 2, "=")) || op_assign {
                    bound.push(name);
                }
            }
            _ => {}
        }
    }
    let mut k = 0;
    while let Some(t) = tokens.get(k) {
        if t.kind != Kind::Name {
            k += 1;
            continue;
        }
        let name = t.text.as_str();
        if name.starts_with('_') {
            return Err(format!(
                "the Python script uses `{name}`, which reaches the interpreter's internals"
            ));
        }
        if k > 0 && punct(k - 1, ".") {
            let on_stream = k >= 2 && matches!(name_at(k - 2), Some("stdout" | "stderr"));
            if !(listed(PY_ATTRS, name) || (name == "write" && on_stream)) {
                return Err(format!(
                    "the Python script uses `.{name}`, which is not known to be harmless"
                ));
            }
        } else if name == "import" {
            loop {
                k += 1;
                let module = name_at(k).ok_or("`import` without a module")?;
                if !listed(PY_MODULES, module) {
                    return Err(format!(
                        "the Python script imports `{module}`, which is not known to be harmless"
                    ));
                }
                imports.push(module);
                if !punct(k + 1, ",") {
                    break;
                }
                k += 1;
            }
        } else if name == "open" {
            // Only `open(path)`: a mode argument could open for writing.
            if !punct(k + 1, "(") {
                return Err("the Python script uses `open` other than to read one file".into());
            }
            let mut depth = 0;
            for t in &tokens[k + 1..] {
                match (t.kind, t.text.as_str()) {
                    (Kind::Punct, "(" | "[" | "{") => depth += 1,
                    (Kind::Punct, ")" | "]" | "}") => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    (Kind::Punct, ",") if depth == 1 => {
                        return Err(
                            "`open` with more than a path can open a file for writing".into()
                        );
                    }
                    // `open(*[p, 'w'])`, `open(**{...})`: unpacked, the
                    // arguments can hold a mode.
                    (Kind::Punct, "*" | "=") if depth == 1 => {
                        return Err(
                            "`open` with unpacked or keyword arguments can open a file for writing"
                                .into(),
                        );
                    }
                    _ => {}
                }
            }
        } else if !(listed(PY_BUILTINS, name)
            || listed(PY_KEYWORDS, name)
            || imports.contains(&name)
            || bound.contains(&name))
        {
            return Err(format!(
                "the Python script uses `{name}`, which is not known to be harmless"
            ));
        }
        k += 1;
    }
    match imports.iter().find(|m| **m != "sys") {
        Some(m) => Ok(ReadOnly::when_confined(format!(
            "Python imports `{m}` from the working directory first if a file there has that name"
        ))),
        None => Ok(ReadOnly::ALWAYS),
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    fn py(script: &str) -> Judged {
        python("python3", &[Word::lit("-c"), Word::lit(script)])
    }

    #[test]
    fn python_one_liners() {
        assert_eq!(py("print(1+2)"), Ok(ReadOnly::ALWAYS));
        assert_eq!(py("import sys; print(sys.version)"), Ok(ReadOnly::ALWAYS));
        assert!(matches!(
            py("import json,sys; print(json.load(sys.stdin)['name'])"),
            Ok(ReadOnly {
                confined: Some(_),
                ..
            })
        ));
        assert!(
            py("import json; d = json.load(open('package.json')); print(d['version'])").is_ok()
        );
        assert!(py("xs = [x * 2 for x in range(3)]; print(sorted(xs, key=lambda v: -v))").is_ok());
        assert!(py("import sys; sys.stdout.write('hi')").is_ok());
        for bad in [
            "import os; os.system('touch x')",
            "open('x', 'w').write('y')",
            "print(1, file=open('x', 'w'))",
            "__import__('os').system('x')",
            "exec('x')",
            "getattr(print, 'x')",
            "print(f'{open(\"x\",\"w\")}')",
            "import subprocess",
            "from os import system",
            "o = open; o('x', 'w')",
            "open(*['x', 'w']).write('y')",
            "open(*('x',), *('w',))",
            "open(**{'file': 'x', 'mode': 'w'})",
            "import pathlib; pathlib.Path('x').write_text('y')",
        ] {
            assert!(py(bad).is_err(), "{bad}");
        }
        assert!(python("python3", &[Word::lit("--version")]).is_ok());
        assert!(python("python3", &[Word::lit("script.py")]).is_err());
    }
}
