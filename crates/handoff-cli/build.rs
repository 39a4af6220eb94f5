//! Stamps the git commit the `handoff` command is built from (`-dirty` for an edited tree) for
//! the environment fingerprint; `main_with` hands it to the library. Stamped here, in the crate
//! at the top, so that a new commit rebuilds this crate only, never the engine or an adapter
//! (the commit and when to take it again: see `build/stamp.rs`).

#[path = "build/stamp.rs"]
mod stamp;

fn main() {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| ".".into());
    let stamp = stamp::stamp(&dir);
    println!("cargo:rustc-env=HANDOFF_GIT_COMMIT={}", stamp.commit);
    for path in &stamp.watch {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}
