//! This build's code identity per transport: a digest of the machine code its trials run.
//!
//! Each catalog entry knows the addresses of the functions its trials enter
//! ([`Entry::code_roots`]) and the crate they are compiled in ([`Entry::code_crate`]: a shipped
//! transport's adapter crate, which instantiates the engine for it). The `handoff-code` crate
//! reads this process's own executable, takes those roots and every function compiled for that
//! crate (symbols in the v0 scheme name it, see `.cargo/config.toml`), follows every call from
//! them, and digests the instructions it reaches with their placement taken out. Equal digests in two builds mean the
//! transport ran the same instructions in both (see [`handoff_model::code`]), so a comparison
//! of the two builds can tell a change of the code from the machine's drift or the placement of
//! the same code.
//!
//! Beside the code, each identity carries the digest of the sources its crate is built from,
//! its own and its dependencies' ([`set_sources`]: the program stamps them when it is built), so
//! that a transport whose code changed while its sources did not is named as moved by the
//! compiler, not by an edit.
//!
//! Reading the executable and decoding its code is done once per process; each function's
//! digest is kept, so the digests of a whole catalog cost one pass over the code they reach.
//! Where the executable cannot be read (not ELF x86-64, stripped of its symbols), every
//! identity is `None`, and comparisons say the code is unknown rather than guess.

use crate::catalog::{Catalog, Entry};
use handoff_model::code::CodeIdentity;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};

/// This process's executable, read once (or why it could not be).
fn image() -> Result<&'static handoff_code::Image, &'static str> {
    static IMAGE: OnceLock<Result<handoff_code::Image, String>> = OnceLock::new();
    IMAGE
        .get_or_init(|| handoff_code::Image::current().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| e.as_str())
}

/// The source identity of each crate, by crate name, as the program was built.
static SOURCES: OnceLock<&'static [(&'static str, &'static str)]> = OnceLock::new();

/// Records the source identity of each crate this program is built from, as `(crate name,
/// digest)` (the `handoff` command's build script computes them from its workspace). The first
/// call wins; a program that never calls it gives identities whose sources are unknown. It is
/// the program's to stamp, not this library's: a table compiled in here would rebuild the engine
/// and every adapter on every edit.
pub fn set_sources(table: &'static [(&'static str, &'static str)]) {
    let _ = SOURCES.set(table);
}

/// The source identity of `krate`, if the program stamped one.
fn source_of(krate: &str) -> Option<String> {
    SOURCES
        .get()?
        .iter()
        .find(|(k, _)| *k == krate)
        .map(|(_, d)| (*d).to_string())
}

/// Why this build's code identities are unknown, if they are.
pub fn unavailable() -> Option<String> {
    image().err().map(str::to_string)
}

/// The code identity of one catalog entry's trials in this build; `None` for an entry with no
/// roots (a transport that cannot run here) or when this executable cannot be read.
pub fn identity(entry: &Entry) -> Option<CodeIdentity> {
    static SEEN: OnceLock<Mutex<HashMap<Vec<usize>, Option<CodeIdentity>>>> = OnceLock::new();
    let roots = entry.code_roots();
    if roots.is_empty() {
        return None;
    }
    let seen = SEEN.get_or_init(Default::default);
    if let Some(known) = seen.lock().unwrap_or_else(|e| e.into_inner()).get(roots) {
        return known.clone();
    }
    let found = image()
        .ok()
        .and_then(|img| {
            let krate = entry.code_crate();
            let crates: &[&str] = if krate.is_empty() { &[] } else { &[krate] };
            img.reach(roots, crates).ok()
        })
        .map(|d| CodeIdentity {
            digest: d.digest,
            functions: d.functions,
            bytes: d.bytes,
            source: source_of(entry.code_crate()),
        });
    seen.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(roots.to_vec(), found.clone());
    found
}

/// The code identities of the named transports of `catalog` (names it does not hold, or whose
/// identity is unknown, are left out).
pub fn identities<'a>(
    catalog: &Catalog,
    names: impl IntoIterator<Item = &'a str>,
) -> BTreeMap<String, CodeIdentity> {
    names
        .into_iter()
        .filter_map(|n| Some((n.to_string(), identity(catalog.get(n)?)?)))
        .collect()
}
