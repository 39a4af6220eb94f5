//! Stamps the git commit the `handoff` command is built from (`-dirty` for an edited tree) for
//! the environment fingerprint, and writes the source identity of every crate of the workspace
//! (`sources.rs` in the build's output directory); `main_with` hands both to the library.
//! Stamped here, in the crate at the top, so that a new commit or an edit rebuilds this crate
//! only, never the engine or an adapter (the commit and when to take it again: see
//! `build/stamp.rs`; the source identities: `build/sources.rs`).

#[path = "build/sources.rs"]
mod sources;
#[path = "build/stamp.rs"]
mod stamp;

use std::path::PathBuf;

fn main() {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| ".".into());
    let stamp = stamp::stamp(&dir);
    println!("cargo:rustc-env=HANDOFF_GIT_COMMIT={}", stamp.commit);

    // The workspace's root is two levels up (crates/handoff-cli).
    let root = dir.join("../..");
    let root = root.canonicalize().unwrap_or(root);
    let table = sources::identities(&root);
    let mut text = String::from(
        "/// The source identity of each crate of the workspace, by crate name (`build/sources.rs`).\n\
         pub static SOURCES: &[(&str, &str)] = &[\n",
    );
    for (krate, digest) in &table {
        text.push_str(&format!("    ({krate:?}, {digest:?}),\n"));
    }
    text.push_str("];\n");
    let out = std::env::var_os("OUT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| ".".into());
    if let Err(e) = std::fs::write(out.join("sources.rs"), text) {
        println!("cargo:warning=cannot write the source identities: {e}");
    }

    let mut watch = stamp.watch;
    watch.extend(
        ["Cargo.lock", "Cargo.toml", ".cargo/config.toml", "crates"]
            .iter()
            .map(|p| root.join(p))
            .filter(|p| p.exists()),
    );
    watch.sort();
    watch.dedup();
    for path in &watch {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}
