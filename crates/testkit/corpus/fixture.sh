#!/usr/bin/env bash
# Builds the throwaway world the shell corpus (shell.txt) runs in:
#   $1/project  a git repository with a few files (the working directory)
#   $1/home     HOME, with a .bashrc
#   $1/outside  a directory next to the project
# Every command of the corpus runs with the project as its working
# directory and HOME set to $1/home.
set -euo pipefail
root=$1
mkdir -p "$root/project/src" "$root/project/sub/deep" "$root/home" "$root/outside"
printf 'export X=1\n' > "$root/home/.bashrc"
printf 'outside\n' > "$root/outside/kept.txt"
cd "$root/project"
printf '# Demo\n\nA small project.\n' > README.md
printf '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n' > Cargo.toml
printf 'fn main() {\n    println!("hi");\n}\n' > src/main.rs
printf 'pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n' > src/lib.rs
printf '{"name": "demo", "version": "1.2.3", "scripts": {"test": "true"}}\n' > package.json
printf 'name,count\napple,3\npear,5\n' > data.csv
printf 'alpha\nbeta\ngamma\n' > a
printf 'beta\ndelta\n' > b
for f in f g x y in list; do printf 'line of %s\n' "$f" > "$f"; done
printf 'all:\n\t@echo built > built.txt\n' > Makefile
# A Makefile whose parsing runs a command even under `make -n`.
printf 'X := $(shell echo evaluated > mkshell.txt)\nall:\n\t@echo hi\n' > evil.mk
printf '#!/bin/sh\necho ran > ran.txt\n' > script.sh
chmod +x script.sh
printf 'nested\n' > sub/file.txt
printf 'deeper\n' > sub/deep/file.txt
git init -q
git add -A
git -c user.name=t -c user.email=t@example.invalid commit -qm init
printf 'changed but not committed\n' >> a
printf 'not tracked\n' > untracked.txt
# A file whose name is an option: what an unquoted `*` can smuggle in.
printf 'x\n' > ./--output=globbed.txt
