//! Link options that keep a one-shot `catui -p` small in memory (issue 37).
//!
//! Most of what a run holds is the executable's own pages: every page the
//! run touches, and on a file-backed fault the kernel maps its cached
//! neighbours too. Two options shrink that, on glibc Linux, for a release
//! build with the toolchain's default linker (rust-lld):
//! - packed relative relocations (`-z pack-relative-relocs`, DT_RELR): a
//!   position-independent executable carries one record per pointer in its
//!   data and the loader reads all of them at every start; packed, 1.35 MiB
//!   of records become a few KiB, and the executable keeps its address
//!   randomisation. glibc's loader reads them from 2.36 on (checked with
//!   `getconf GNU_LIBC_VERSION` on the build host).
//! - `link/catui.order` (made by `bench/link-order.sh`): the functions a
//!   one-shot run executes, placed first and together, so the run's code
//!   is about 1.4 MiB of contiguous pages instead of pages spread over the
//!   whole 10 MiB of code. Only rust-lld (the default linker of
//!   x86_64-unknown-linux-gnu from Rust 1.90 on) gets it: GNU ld has no
//!   such option.
//!
//! A build that names its own linker (`-C linker=…`, `-fuse-ld=…`,
//! `-C linker-features=…` in the rustflags, or `RUSTC_LINKER`) or cross-
//! compiles gets neither: not every linker knows them (mold 1.10 writes
//! DT_RELR that glibc refuses, and has no ordering file).
//! `CATUI_PLAIN_LINK=1` turns them off.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=link/catui.order");
    println!("cargo:rerun-if-env-changed=CATUI_PLAIN_LINK");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let default_linker = !var("CARGO_ENCODED_RUSTFLAGS").contains("link")
        && !var("CARGO_ENCODED_RUSTFLAGS").contains("fuse-ld")
        && std::env::var_os("RUSTC_LINKER").is_none();
    if var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || var("TARGET") != var("HOST")
        || var("PROFILE") != "release"
        || !default_linker
        || std::env::var_os("CATUI_PLAIN_LINK").is_some()
    {
        return;
    }
    if host_glibc_at_least(2, 36) {
        println!("cargo:rustc-link-arg-bin=catui=-Wl,-z,pack-relative-relocs");
    }
    let order = Path::new(&var("CARGO_MANIFEST_DIR")).join("link/catui.order");
    let rust_lld = var("TARGET") == "x86_64-unknown-linux-gnu" && rustc_minor() >= Some(90);
    // `-Wl,` splits its argument at commas.
    if rust_lld && order.is_file() && !order.to_string_lossy().contains(',') {
        println!(
            "cargo:rustc-link-arg-bin=catui=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        // Names from another build (other dependency versions) are skipped.
        println!("cargo:rustc-link-arg-bin=catui=-Wl,--no-warn-symbol-ordering");
    }
}

/// The minor version of the compiler building this crate (1.MINOR).
fn rustc_minor() -> Option<u32> {
    let rustc = std::env::var_os("RUSTC")?;
    let out = Command::new(rustc).arg("--version").output().ok()?;
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.split_whitespace().nth(1)?;
    version.split('.').nth(1)?.parse().ok()
}

/// Whether the build host's glibc is at least `major.minor` (the binary is
/// linked against it). Unknown counts as no.
fn host_glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    // "glibc 2.36"
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.split_whitespace().nth(1) else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(ma), Some(mi)) => (ma, mi) >= (major, minor),
        _ => false,
    }
}
