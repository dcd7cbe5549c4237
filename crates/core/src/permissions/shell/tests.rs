//! The read-only corpus: commands a model writes, each with the expected
//! verdict. A change to the analysis that flips any of them fails here.

use super::analyze;

/// Read-only command lines.
const READ_ONLY: &[&str] = &[
    "ls",
    "ls -la",
    "ls -la src/ | head -20",
    "ls >/dev/null 2>&1",
    "ls 2>/dev/null",
    "ls &>/dev/null",
    "ls 2>&1 | grep x",
    "cat README.md",
    "cat -n src/main.rs | sed -n 1,40p",
    "cat < input.txt",
    "cat <<EOF\nhello\nEOF",
    "cat <<'EOF' | grep x\nhi\nEOF",
    "grep <<< \"some text\" some",
    "head -n 50 Cargo.toml",
    "tail -n 100 log.txt",
    "tail -f log.txt",
    "wc -l src/*.rs",
    "echo hello",
    "echo $(ls)",
    "echo \"$HOME\"",
    "echo `pwd`",
    "printf '%s\\n' a b",
    "pwd",
    "which cargo",
    "type ls",
    "file Cargo.toml",
    "stat -c %s Cargo.toml",
    "du -sh target",
    "df -h .",
    "tree -L 2",
    "tree -a -I target",
    "rg foo",
    "rg -n 'fn main' --type rust",
    "rg -l TODO | xargs wc -l",
    "grep -r foo . | wc -l",
    "grep -rn \"pattern\" src/ --include='*.rs'",
    "egrep 'a|b' f",
    "fgrep -x word f",
    "find . -name '*.rs'",
    "find . -type f -name '*.toml' -newer Cargo.lock",
    "find . -name '*.rs' -exec grep -l foo {} \\;",
    "find src -name '*.rs' -exec wc -l {} +",
    "find . -print0 | xargs -0 grep -l x",
    "fd -e rs",
    "fdfind main src",
    "sed -n 1,5p f",
    "sed -n '/start/,/end/p' file.txt",
    "sed 's/foo/bar/g' f",
    "sed -e 's/a/b/' -e 's/c/d/' f",
    "sed -E 's/(a|b)+/x/' f",
    "awk '{print $1}' f",
    "awk -F: '$3 > 1000 {print $1}' /etc/passwd",
    "awk 'NR==1, NR==5' f",
    "awk '{ n += $2 } END { print n }' data",
    "sort f",
    "sort -u -k2 f | uniq -c",
    "sort -t, -k 2n data.csv",
    "uniq -c f",
    "cut -d: -f1 /etc/passwd",
    "tr a-z A-Z < f",
    "nl f",
    "diff a b",
    "diff <(ls a) <(ls b)",
    "diff -u old new",
    "cmp a b",
    "comm -12 a b",
    "basename /a/b.rs .rs",
    "dirname /a/b",
    "realpath .",
    "readlink -f x",
    "date",
    "date +%Y-%m-%d",
    "date -u -d '2 days ago' +%s",
    "env",
    "env FOO=1 ls",
    "env -i ls",
    "printenv HOME",
    "uname -a",
    "id",
    "whoami",
    "hostname",
    "hostname -f",
    "true",
    "false || true",
    "test -f Cargo.toml && cat Cargo.toml",
    "[ -d src ] && ls src",
    "[[ -f x ]] || echo missing",
    "jq .name package.json",
    "cd /tmp && ls",
    "cd src; ls -la",
    "FOO=1 ls",
    "FOO=bar BAZ=qux grep x f",
    "ls | xargs cat",
    "xargs -n1 echo < list",
    "git status",
    "git status --short",
    "git log --oneline | head",
    "git log -n 5 --format='%h %s'",
    "git diff",
    "git diff --stat HEAD~1",
    "git diff --cached -- src/",
    "git show HEAD:src/main.rs",
    "git blame -L 1,20 src/lib.rs",
    "git branch",
    "git branch -a",
    "git branch --list 'feat/*'",
    "git branch -vv",
    "git branch --show-current",
    "git branch --contains HEAD",
    "git rev-parse --show-toplevel",
    "git rev-parse HEAD",
    "git ls-files",
    "git ls-files -m",
    "git ls-tree -r HEAD --name-only",
    "git grep -n foo",
    "git describe --tags",
    "git shortlog -sn",
    "git remote -v",
    "git remote show origin",
    "git tag",
    "git tag -l 'v1.*'",
    "git tag --list",
    "git config --get user.name",
    "git config --list",
    "git config -l --show-origin",
    "git cat-file -p HEAD",
    "git for-each-ref --format='%(refname)' refs/heads",
    "git merge-base main HEAD",
    "git reflog",
    "git reflog show -n 10",
    "git stash list",
    "git worktree list",
    "git -C sub status",
    "git --no-pager log -1",
    "git -c color.ui=never log -1",
    "git --version",
    "cargo metadata --format-version 1",
    "cargo tree -d",
    "cargo --version",
    "rustc --version",
    "node --version",
    "python3 --version",
    "for f in *.rs; do wc -l \"$f\"; done",
    "while read -r l; do echo \"$l\"; done < f",
    "if [ -f x ]; then cat x; else echo none; fi",
    "case $x in a) echo a;; *) echo b;; esac",
    "(cd src && ls)",
    "{ ls; pwd; }",
    "ls; pwd; echo done",
    "! grep -q x f",
    "time ls",
    "timeout 5 cat f",
    "command -v rg",
    "/usr/bin/ls -l",
    "ls # a comment",
    "x=$(git rev-parse HEAD); echo $x",
    "export FOO=bar; printenv FOO",
    "set -euo pipefail; ls",
    "echo {}",
    "git log @{u}..HEAD",
    "echo hi > /dev/stderr",
    "awk '{ print $1 > \"/dev/stderr\" }' f",
    "",
];

/// Command lines that must not count as read-only.
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
    "python -c 'print(1)'",
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
fn corpus_has_enough_commands() {
    assert!(READ_ONLY.len() + NOT_READ_ONLY.len() >= 150);
}

#[test]
fn read_only_commands_are_read_only() {
    let wrong: Vec<String> = READ_ONLY
        .iter()
        .filter_map(|cmd| {
            let a = analyze(cmd);
            (!a.read_only).then(|| format!("{cmd:?}: {:?}", a.reason))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "judged not read-only:\n{}",
        wrong.join("\n")
    );
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
    let a = analyze("FOO=1 BAR='x y' git log -1");
    assert_eq!(a.commands[0].argv, ["git", "log", "-1"]);
    assert!(a.read_only);
}
