//! The analysis against the public corpus (`crates/testkit/corpus/shell.txt`)
//! and against attack strings that cannot be shown to write in the corpus'
//! fixture (they need a pager, a preload library, the network...). A change
//! to the analysis that flips any verdict fails here.

use catui_testkit::shell_corpus::{self, Class};

use super::analyze;

/// Command lines that must not count as read-only, beyond the corpus.
pub(crate) const NOT_READ_ONLY: &[&str] = &[
    "echo x > f",
    "echo x >> f",
    "ls > out.txt",
    "ls &> out",
    "ls >| out",
    "ls 2> err.log",
    "ls >& out",
    "cat <<EOF > f\nhello\nEOF",
    "cat f | tee g",
    "{ ls; } > f",
    "for f in *; do echo $f; done > out",
    "rm x",
    "rm -rf target",
    "mv a b",
    "cp a b",
    "mkdir d",
    "touch f",
    "chmod +x f",
    "ln -s a b",
    "dd if=/dev/zero of=f",
    "truncate -s 0 f",
    "install -m 755 a b",
    "tee f",
    "curl https://example.invalid",
    "wget x",
    "npm install",
    "pip install x",
    "python -c 'import os'",
    "python3 script.py",
    "perl -pi -e s/a/b/ f",
    "ruby -e 'x'",
    "node -e 'x'",
    "bash -c 'ls'",
    "sh -c ls",
    "sudo ls",
    "kill 1",
    "ls; rm -rf x",
    "ls && touch x",
    "ls || rm x",
    "ls | rm x",
    "echo $(rm x)",
    "echo `touch f`",
    "cat <(rm x)",
    "x=$(rm y)",
    "env FOO=1 rm x",
    "env PATH=/tmp ls",
    "env -S 'rm x'",
    "xargs rm",
    "ls | xargs rm",
    "find . -name x -exec rm {} \\;",
    "find . -delete",
    "find . -name '*.o' -delete",
    "find . -fprint out",
    "find . -exec sh -c 'rm {}' \\;",
    "find . -exec grep x {}",
    "fd -x rm",
    "fd --exec rm {}",
    "sed -i s/a/b/ f",
    "sed -i.bak 's/a/b/' f",
    "sed --in-place 's/a/b/' f",
    "sed -ni 's/a/b/p' f",
    "sed 's/a/b/w out' f",
    "sed -n 'w out' f",
    "sed '1e date' f",
    "sed -f script.sed f",
    "awk '{print > \"f\"}' x",
    "awk '{ system(\"rm x\") }' f",
    "awk '{ print | \"sh\" }' f",
    "awk -f prog.awk f",
    "gawk -i inplace '{print}' f",
    "sort -o out f",
    "sort --output=out f",
    "sort -uo out f",
    "uniq in out",
    "rg --pre ./evil foo",
    "tree -o out.txt",
    "file -C -m magic",
    "date -s '2020-01-01'",
    "hostname newname",
    "printf -v x '%s' y",
    "PATH=/tmp ls",
    "LD_PRELOAD=/tmp/x.so ls",
    "IFS=x; ls",
    "export PATH=/tmp",
    "BASH_ENV=/tmp/x ls",
    "GIT_PAGER=evil git log",
    "eval ls",
    "source x",
    ". x",
    "exec ls",
    "f() { ls; }",
    "$CMD",
    "$(echo rm) x",
    "./script.sh",
    "/tmp/ls",
    "git commit -m x",
    "git push",
    "git checkout .",
    "git reset --hard",
    "git stash",
    "git stash pop",
    "git config user.name x",
    "git config --unset user.name",
    "git branch -D x",
    "git branch new-feature",
    "git branch -m old new",
    "git tag v1.0",
    "git tag -d v1.0",
    "git remote add origin x",
    "git reflog expire --all",
    "git worktree add ../x",
    "git -c core.pager=evil log",
    "git -c alias.st='!rm x' st",
    "git -c diff.external=evil diff",
    "git -c core.fsmonitor=evil status",
    "git -c filter.x.clean=evil status",
    "git diff --output=f",
    "git log --output f",
    "git grep -Oevil foo",
    "git clean -fd",
    "git apply p.diff",
    "git fetch",
    "git pull",
    "git merge x",
    "git rebase main",
    "git add .",
    "git rm x",
    "git mv a b",
    "git init",
    "git clone x",
    "git $SUB",
    "cargo build",
    "cargo test",
    "cargo run",
    "cargo --config 'alias.tree=\"run\"' tree",
    "cargo fmt",
    "rustc main.rs",
    "make",
    "echo 'unbalanced",
    "ls (",
    "if true; then ls",
    "cat <<EOF; rm x\nhi\nEOF",
    "sed {-i,s/a/b/,f}",
    "echo x > $FILE",
    "ls > >(cat)",
    "for PATH in /tmp; do ls; done",
    "((PATH=1))",
    "echo ${PATH:=/tmp}",
    "declare -n r=PATH",
    "time rm x",
    "timeout 5 rm x",
    "nice rm x",
    "command rm x",
    "builtin eval ls",
    "sort $OPTS f",
    "sed \"$SCRIPT\" f",
    "less f",
    "vim f",
    "nohup ls",
    "alias ls=rm",
    "trap 'rm x' EXIT",
    "read PATH",
    "hash -p /tmp/evil ls",
    "> f",
    ">> f",
    "git -p log",
    "git remote -v add origin x",
    "git branch -a new-branch",
    "git tag -a v1 -m x",
    "sed -n p f -i",
    "sort f --out=x",
    "find . -name \"$pat\" -delete",
    "xargs -I{} sh -c 'cat {}'",
    "awk 'BEGIN { while ((\"ls\" | getline l) > 0) print l }'",
    "git ls-remote --upload-pack=evil origin",
    "awk -- \"$prog\" f",
    "sed -- \"$s\" f",
    "find -- . \"$X\"",
];

#[test]
#[ignore = "prints every verdict; run with --ignored --nocapture to review"]
fn print_reasons() {
    for cmd in NOT_READ_ONLY {
        println!("{cmd:?} => {:?}", analyze(cmd).reason);
    }
}

#[test]
fn corpus_verdicts() {
    let mut wrong = Vec::new();
    for e in shell_corpus::entries() {
        let a = analyze(&e.command);
        let ok = match e.class {
            Class::Read => a.read_only && a.needs_confinement.is_none(),
            Class::ReadConfined => a.read_only && a.needs_confinement.is_some(),
            Class::Edit | Class::Write | Class::Ask | Class::FalseAsk => {
                !a.read_only && a.reason.as_deref().is_some_and(|r| !r.is_empty())
            }
        };
        if !ok {
            wrong.push(format!(
                "line {} ({:?}) {:?}: read_only={} confined={:?} reason={:?}",
                e.line, e.class, e.command, a.read_only, a.needs_confinement, a.reason
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The share of read-only command lines of the corpus that run without a
/// prompt (the corpus' `false-ask` lines are the ones that do not).
#[test]
fn read_only_commands_run_unprompted_at_least_95_percent() {
    let all = shell_corpus::entries();
    let reads: Vec<_> = all.iter().filter(|e| e.class.reads()).collect();
    let judged = reads
        .iter()
        .filter(|e| analyze(&e.command).read_only)
        .count();
    let share = judged as f64 / reads.len() as f64;
    assert!(share >= 0.95, "{judged}/{} = {share:.3}", reads.len());
}

/// Every kind of miss reported against the first analysis, each with an
/// example that really writes (see the corpus for proofs of most).
#[test]
fn every_reported_miss_class_asks() {
    let cases: &[(&str, &str)] = &[
        ("redirect in default mode", "echo pwn > ../outside.txt"),
        ("append redirect", "cat README.md >> README2.md"),
        ("redirect on a group", "{ ls; } > f"),
        ("redirect on a subshell", "(ls) > f"),
        ("redirect on a loop", "while true; do ls; done > f"),
        ("redirect on a function call", "f() { ls; }; f > out"),
        ("clobbering redirect", "ls >| f"),
        ("read-write redirect", "ls 1<>f"),
        ("process substitution target", "echo x > >(cat > f)"),
        ("process substitution body", "diff <(ls) <(cat > p.txt < a)"),
        ("bare PS4 assignment", "PS4='$(touch x)'; set -x; ls"),
        ("export 'NAME=value'", "export 'PS4=$(touch x)'; set -x; ls"),
        (
            "declare 'NAME=value'",
            "declare 'PS4=$(touch x)'; set -x; :",
        ),
        (
            "git config by environment",
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git log",
        ),
        (
            "external diff by environment",
            "GIT_EXTERNAL_DIFF=x git diff",
        ),
        ("set -k", "set -k; git diff GIT_EXTERNAL_DIFF=touch"),
        ("set -x after a trap of PS4", "set -a; PS4=x"),
        ("shopt", "shopt -s extdebug"),
        ("xargs injects options", "echo -delete | xargs find ."),
        ("xargs injects --pre", "echo --pre=x | xargs rg y"),
        ("xargs injects --output", "echo --output=x | xargs git log"),
        ("xargs -i replaces", "echo x | xargs -i sed -n p {}"),
        (
            "find -exec with a stray +",
            "find . -name a -exec sed -e s/alpha/omega/ + -i {} \\;",
        ),
        (
            "find -exec {} is a run-time word",
            "find . -exec rg x {} \\;",
        ),
        ("arithmetic on a string", "x='a[$(touch x)]'; echo $((x))"),
        ("test -v with a subscript", "test -v 'a[$(touch x)]'"),
        ("[ -v ] with a subscript", "[ -v 'a[$(touch x)]' ]"),
        ("[[ -eq ]] evaluates", "x='a[$(touch x)]'; [[ $x -eq 1 ]]"),
        ("indirect expansion", "x='a[$(touch x)]'; echo ${!x}"),
        ("substring offset", "y='a[$(touch x)]'; echo ${x:y}"),
        ("declare -i", "declare -i y; y='a[$(touch x)]'"),
        ("prompt expansion", "y='$(touch x)'; echo ${y@P}"),
        ("backticks in ${x?}", "echo ${x?`touch x`}"),
        ("backticks in a here-document", "cat <<E\n`touch x`\nE"),
        ("substitution in a here-document", "cat <<E\n$(touch x)\nE"),
        ("sed label hides w", "sed -n ':a w out' f"),
        ("sed branch hides w", "sed -n '/x/b;w out' f"),
        ("sed version hides w", "sed -n 'v 4.2 w out' f"),
        (
            "awk number then slash",
            "awk 'BEGIN { x = 4. / 2; print \"/\" ; y = 1 | 2 }'",
        ),
        (
            "awk slash after else",
            "awk '{ if (1) print; else /\"/; print | \"sh\"; x=\"/\" }'",
        ),
        ("awk system", "awk 'BEGIN { system(\"touch x\") }'"),
        ("git reflog --output", "git reflog show --output=f"),
        ("git grep -O in a cluster", "git grep -nOtouch x"),
        ("git abbreviated --output", "git diff --ou=f"),
        (
            "git grep abbreviated --open-files-in-pager",
            "git grep --op=touch x",
        ),
        ("a glob that becomes an option", "sort *"),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(_, cmd)| analyze(cmd).read_only)
        .map(|(name, cmd)| format!("{name}: {cmd:?}"))
        .collect();
    assert!(wrong.is_empty(), "judged read-only:\n{}", wrong.join("\n"));
}

/// Read-only commands the first analysis asked about.
#[test]
fn former_false_asks_run_unprompted() {
    for cmd in [
        "git config user.email",
        "GIT_PAGER=cat git log",
        "base64 README.md",
        "xxd Cargo.toml | head",
        "ps aux",
        "python3 -c 'print(1 + 2)'",
        "perl -ne 'print if /fn /' src/main.rs",
    ] {
        let a = analyze(cmd);
        assert!(
            a.read_only && a.needs_confinement.is_none(),
            "{cmd:?}: {:?}",
            a.reason
        );
    }
    // Project code runs, or may run, through these: only while confined.
    for cmd in [
        "cargo metadata --format-version 1 --no-deps",
        "cargo --version",
    ] {
        let a = analyze(cmd);
        assert!(a.read_only && a.needs_confinement.is_some(), "{cmd}");
    }
}

/// What needs the network, another repository or project code is never
/// read-only (issue 33), whatever wrapper or spelling carries it.
#[test]
fn network_other_repositories_and_project_code_are_never_read_only() {
    let cases: &[(&str, &str)] = &[
        ("git ls-remote", "git ls-remote http://127.0.0.1:9/x"),
        ("ls-remote through env", "env git ls-remote git://h/x"),
        ("ls-remote through find", "find . -exec git ls-remote u \\;"),
        ("ls-remote through xargs", "echo u | xargs git ls-remote"),
        ("remote show contacts", "git remote show origin"),
        ("remote -v show contacts", "git remote -v show origin"),
        ("fetch", "git fetch"),
        ("archive --remote", "git archive --remote=u HEAD"),
        ("submodule update", "git submodule update"),
        ("/dev/tcp read", ": < /dev/tcp/127.0.0.1/80"),
        ("/dev/udp read", "cat </dev/udp/127.0.0.1/53"),
        ("/dev/tcp on a group", "{ cat; } < /dev/tcp/h/1"),
        ("/dev/tcp through a variable", "cat < /dev/tcp/h/$p"),
        ("a read target only known at run time", "cat < \"$f\""),
        (
            "a read target from a substitution",
            "cat < $(echo /dev/tcp/h/1)",
        ),
        ("here-string then /dev/tcp", "cat <<< x 3</dev/tcp/h/1"),
        (
            "gawk network file",
            "gawk 'BEGIN { getline l < \"/inet/tcp/0/h/1\" }'",
        ),
        ("gawk network operand", "awk '{ print }' /inet/tcp/0/h/1"),
        ("cargo tree resolves online", "cargo tree"),
        ("cargo metadata resolves online", "cargo metadata"),
        ("--git-dir", "git --git-dir=vendor/x.git log"),
        ("--git-dir as two words", "git --git-dir vendor/x.git log"),
        ("--work-tree", "git --work-tree=. status"),
        ("--bare", "git --bare log"),
        ("GIT_DIR", "GIT_DIR=vendor/x.git git log"),
        ("-C at run time", "git -C \"$d\" log"),
        ("env -C at run time", "env -C $d git log"),
        ("-execdir git", "find . -execdir git status \\;"),
        ("make -n", "make -n"),
        ("make --dry-run", "make --dry-run all"),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(_, cmd)| analyze(cmd).read_only)
        .map(|(name, cmd)| format!("{name}: {cmd:?}"))
        .collect();
    assert!(wrong.is_empty(), "judged read-only:\n{}", wrong.join("\n"));
    // What only reads the project's own repository stays read-only, and
    // says where git runs for the permission layer to check.
    let a = analyze("env -C sub git -C deep log && git status");
    assert!(a.read_only, "{:?}", a.reason);
    assert_eq!(a.commands[0].git_dirs, ["sub/deep"]);
    assert_eq!(a.commands[1].git_dirs, ["."]);
    for cmd in [
        "git remote",
        "git remote -v",
        "git remote show",
        "git remote show -n origin",
        "git branch --sort=-committerdate",
        "git branch --sort -committerdate --list 'f*'",
        "git branch --contains -a",
        "cat < ./\"$f\"",
        "echo hi > /dev/stderr",
        "ls >/dev/null 2>&1",
    ] {
        assert!(analyze(cmd).read_only, "{cmd}: {:?}", analyze(cmd).reason);
    }
}

/// The misjudgment classes of issue 33 beyond the corpus lines, each as
/// the rule it broke.
#[test]
fn issue_33_misjudgment_classes_are_not_read_only() {
    let cases: &[(&str, &str)] = &[
        ("a required value swallows -l", "git branch --sort -l newb"),
        (
            "a required value swallows --list",
            "git tag --format --list v9",
        ),
        ("perl -F with white space", "perl '-F: -i' -ane print f"),
        ("perl -0 then -i", "perl -00pi -e 1 f"),
        ("perl white space before >", "perl -ne print $'\\n>out'"),
        ("perl glob operand", "perl -ne print src/*.rs"),
        (
            "perl method call",
            "perl -e 'print $x->q(system q(touch p))'",
        ),
        ("perl & call", "perl -e 'print &q(system q(touch p))'"),
        (
            "awk getline /",
            "awk 'BEGIN { getline / 1; print > \"f\"; x = 1 / 2 }'",
        ),
        ("awk ARGV", "awk 'BEGIN { ARGV[1] = \"f\" } { print }'"),
        (
            "awk getline from a variable",
            "awk 'BEGIN { getline l < f }'",
        ),
        ("sed bracketed delimiter", "sed 's/[/]/x/w out' f"),
        ("typeset quoted array", "typeset -a x='( $(touch y) )'"),
        ("declare quoted array", "declare -A 'x=( [$(touch y)]=1 )'"),
        ("2<f then /dev/stderr", "echo x 2<f >/dev/stderr"),
        ("fd copy of a read file", "echo x 3<f 1>&3 >/dev/stdout"),
        ("outer read of fd 1", "{ echo x >/dev/stdout; } 1<f"),
        (
            "awk reopens /dev/stdout",
            "awk '{ print > \"/dev/stdout\" }' 1<f",
        ),
        (
            "here-document joined line",
            "cat <<EOF\nx\nEO\\\nF\ntouch y\nEOF",
        ),
        ("uniq glob", "uniq -- src/*"),
        ("xxd braces", "xxd a{,.out}"),
        ("python open unpacked", "python3 -c 'open(*[\"f\", \"w\"])'"),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(_, cmd)| analyze(cmd).read_only)
        .map(|(name, cmd)| format!("{name}: {cmd:?}"))
        .collect();
    assert!(wrong.is_empty(), "judged read-only:\n{}", wrong.join("\n"));
}

#[test]
fn mutating_commands_are_not_read_only() {
    let wrong: Vec<&str> = NOT_READ_ONLY
        .iter()
        .filter(|cmd| analyze(cmd).read_only)
        .copied()
        .collect();
    assert!(wrong.is_empty(), "judged read-only:\n{}", wrong.join("\n"));
    for cmd in NOT_READ_ONLY {
        let a = analyze(cmd);
        assert!(
            a.reason.as_deref().is_some_and(|r| !r.is_empty()),
            "{cmd:?} has no reason"
        );
    }
}

#[test]
fn reasons_name_the_culprit() {
    let cases = [
        ("ls; rm -rf x", "`rm`"),
        ("echo x > f", "`f`"),
        ("eval ls", "`eval`"),
        ("PATH=/tmp ls", "`PATH`"),
        ("git push", "`git push`"),
        ("sed -i s/a/b/ f", "sed -i"),
        ("echo 'unbalanced", "could not be parsed"),
        ("find . -exec rm {} +", "`rm`"),
        ("f() { ls; }", "function"),
    ];
    for (cmd, needle) in cases {
        let reason = analyze(cmd).reason.unwrap_or_default();
        assert!(
            reason.contains(needle),
            "{cmd:?}: {reason:?} lacks {needle:?}"
        );
    }
}

#[test]
fn every_simple_command_is_listed_with_unquoted_words() {
    let a =
        analyze("git diff --stat && echo \"done: $(git rev-parse --short HEAD)\" | tee 'log file'");
    let argv: Vec<Vec<String>> = a.commands.iter().map(|c| c.argv.clone()).collect();
    assert_eq!(
        argv,
        vec![
            vec!["git", "diff", "--stat"],
            vec!["echo", "\"done: $(git rev-parse --short HEAD)\""],
            vec!["git", "rev-parse", "--short", "HEAD"],
            vec!["tee", "log file"],
        ]
    );
    assert_eq!(a.commands[0].text, "git diff --stat");
    assert!(!a.read_only);
}

#[test]
fn commands_in_every_construct_are_found() {
    let cases: [(&str, &[&str]); 8] = [
        ("(ls; pwd)", &["ls", "pwd"]),
        ("{ ls; } && cat f", &["ls", "cat"]),
        (
            "if a; then b; elif c; then d; else e; fi",
            &["a", "b", "c", "d", "e"],
        ),
        (
            "for x in 1; do a; done; while b; do c; done",
            &["a", "b", "c"],
        ),
        ("case x in y) a;; z) b;; esac", &["a", "b"]),
        ("diff <(a) <(b)", &["diff", "a", "b"]),
        ("echo `a` $(b)", &["echo", "a", "b"]),
        ("f() { a; }; f", &["a", "f"]),
    ];
    for (cmd, programs) in cases {
        let found: Vec<String> = analyze(cmd)
            .commands
            .iter()
            .filter_map(|c| c.argv.first().cloned())
            .collect();
        assert_eq!(found, programs, "{cmd:?}");
    }
}

#[test]
fn prefix_assignments_are_not_part_of_argv() {
    let a = analyze("foo=1 bar='x y' git log -1");
    assert_eq!(a.commands[0].argv, ["git", "log", "-1"]);
    assert_eq!(a.commands[0].assignments.len(), 2);
    assert_eq!(a.commands[0].assignments[1].value, "x y");
    assert!(a.read_only);
}
