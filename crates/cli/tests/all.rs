//! catui's command-line tests, in one test binary: each file under
//! `suite/` is one behaviour's tests (run one group with
//! `cargo nextest run -p catui --test all suite::NAME::`), and `common/` is
//! the set-up they share. One binary links the workspace once instead of
//! once per file (`.ci/one-test-binary.py` keeps it so).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod suite;
