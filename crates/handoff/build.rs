//! Captures the compiler version, build profile and git commit for the environment fingerprint
//! (the commit and when to take it again: see `build/stamp.rs`).
use std::process::Command;

#[path = "build/stamp.rs"]
mod stamp;

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
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| ".".into());
    let stamp = stamp::stamp(&dir);
    println!("cargo:rustc-env=HANDOFF_GIT_COMMIT={}", stamp.commit);
    for path in &stamp.watch {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}
