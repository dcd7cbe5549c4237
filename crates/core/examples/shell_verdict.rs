//! Prints the read-only verdict of shell command lines, for reviewing the
//! analysis: `cargo run -p catui-core --example shell_verdict -- 'git log | head'`.
//! With `--tree`, also prints the tree-sitter syntax tree. Without
//! arguments, reads one command per line from stdin.

use std::io::BufRead;

use catui_core::permissions::shell::analyze;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let tree = args.first().is_some_and(|a| a == "--tree");
    if tree {
        args.remove(0);
    }
    let commands: Vec<String> = if args.is_empty() {
        std::io::stdin()
            .lock()
            .lines()
            .map_while(Result::ok)
            .collect()
    } else {
        args
    };
    for command in commands {
        let a = analyze(&command);
        let verdict = if a.read_only { "read-only" } else { "ASKS" };
        println!("{verdict:9} {command:?}  {}", a.reason.unwrap_or_default());
        if tree {
            let mut parser = tree_sitter::Parser::new();
            if parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .is_ok()
                && let Some(t) = parser.parse(&command, None)
            {
                println!("  {}", t.root_node().to_sexp());
            }
        }
    }
}
