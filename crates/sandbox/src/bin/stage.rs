//! The inner stage as a program of its own, for this crate's tests (catui's
//! binary runs the same stage behind a hidden first argument).

fn main() {
    catui_sandbox::stage::main(std::env::args_os().skip(1))
}
