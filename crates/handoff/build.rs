//! Captures the compiler version and build profile for the environment fingerprint. The git
//! commit is stamped by the command line's crate (`handoff-cli`), not here: a stamp that changes
//! with every commit would rebuild this crate, and every adapter crate above it, on every commit.
use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=HANDOFF_RUSTC_VERSION={version}");
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=HANDOFF_BUILD_PROFILE={profile}");
    println!("cargo:rerun-if-changed=build.rs");
}
