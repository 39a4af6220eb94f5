//! The source identity of every crate this build compiles: a digest of the sources it is built
//! from, its own and those of everything it depends on, so that two builds of a transport can be
//! told apart by their sources as well as by their machine code.
//!
//! Read from the workspace's `Cargo.lock`, which names every package of the build and what each
//! depends on. A package of the workspace (no `source` in the lock) is digested by the files
//! it is compiled from: everything under its directory except `tests/`, `benches/`,
//! `examples/` and hidden or `target` directories. A package from a registry or a git
//! repository is digested by its name, version, source and checksum. The lock lists a
//! member's dev-dependencies with the rest, which its build never compiles (the engine's tests
//! depend on every adapter), so a member's dependencies are those its manifest declares for its
//! build: `[dependencies]` and `[build-dependencies]`, its targets' too. A crate's identity
//! digests its own and every dependency's, with the workspace's build settings (the root
//! `Cargo.toml`, whose profiles choose optimisation, and `.cargo/config.toml`, whose flags reach
//! every crate) folded into each. What is left out is the compiler: two builds whose sources
//! are identical but whose machine code differs were moved by the compiler or its version, not
//! by an edit.
//!
//! Used by the crate's build script, which writes the table the `handoff` command hands to the
//! library; nothing here panics (a workspace it cannot read gives an empty table, and every
//! transport's source identity is then unknown).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One package of the lock.
struct Package {
    name: String,
    version: String,
    /// Where it comes from; `None` for a member of the workspace.
    source: Option<String>,
    checksum: Option<String>,
    /// Its dependencies as the lock names them: `name`, `name version` or
    /// `name version (source)`.
    dependencies: Vec<String>,
}

/// The packages a member's manifest depends on to build (not its dev-dependencies), by package
/// name; `None` if the manifest cannot be read.
fn built_with(dir: &Path) -> Option<BTreeSet<String>> {
    let manifest: toml::Table = std::fs::read_to_string(dir.join("Cargo.toml"))
        .ok()?
        .parse()
        .ok()?;
    let mut tables = vec![&manifest];
    if let Some(targets) = manifest.get("target").and_then(|t| t.as_table()) {
        tables.extend(targets.values().filter_map(|t| t.as_table()));
    }
    let mut out = BTreeSet::new();
    for t in tables {
        for kind in ["dependencies", "build-dependencies"] {
            let Some(deps) = t.get(kind).and_then(|d| d.as_table()) else {
                continue;
            };
            for (key, spec) in deps {
                let renamed = spec.get("package").and_then(|p| p.as_str());
                out.insert(renamed.unwrap_or(key).to_string());
            }
        }
    }
    Some(out)
}

/// The source identity of each crate of the workspace at `root`, by crate name as the compiler
/// spells it (`-` as `_`), as `(crate, 16 hex digits)`; empty when the workspace cannot be read.
pub fn identities(root: &Path) -> Vec<(String, String)> {
    let Some(packages) = lock(&root.join("Cargo.lock")) else {
        return Vec::new();
    };
    let dirs = member_dirs(root);
    let settings = digest_files(
        root,
        &[root.join("Cargo.toml"), root.join(".cargo/config.toml")],
    );
    // Each package's own digest, by its index in the lock.
    let own: Vec<u64> = packages
        .iter()
        .map(|p| match (&p.source, dirs.get(&p.name)) {
            (None, Some(dir)) => digest_files(dir, &files_under(dir)),
            _ => fnv(
                0,
                format!(
                    "{} {} {} {}",
                    p.name,
                    p.version,
                    p.source.as_deref().unwrap_or("?"),
                    p.checksum.as_deref().unwrap_or("?")
                )
                .as_bytes(),
            ),
        })
        .collect();
    // A member's build dependencies; `None` (every dependency the lock lists) for the rest.
    let built: Vec<Option<BTreeSet<String>>> = packages
        .iter()
        .map(|p| match (&p.source, dirs.get(&p.name)) {
            (None, Some(dir)) => built_with(dir),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for (i, p) in packages.iter().enumerate() {
        if p.source.is_some() {
            continue;
        }
        let mut closure = BTreeSet::new();
        reach(&packages, &built, i, &mut closure);
        let mut h = fnv(0, &settings.to_le_bytes());
        for j in closure {
            h = fnv(h, packages[j].name.as_bytes());
            h = fnv(h, &own[j].to_le_bytes());
        }
        out.push((p.name.replace('-', "_"), format!("{h:016x}")));
    }
    out
}

/// Adds `i` and everything its build depends on to `seen` (`built[i]`: the packages a member
/// builds with, see [`built_with`]).
fn reach(
    packages: &[Package],
    built: &[Option<BTreeSet<String>>],
    i: usize,
    seen: &mut BTreeSet<usize>,
) {
    if !seen.insert(i) {
        return;
    }
    for dep in &packages[i].dependencies {
        let Some(j) = find(packages, dep) else {
            continue;
        };
        if built[i]
            .as_ref()
            .is_some_and(|names| !names.contains(&packages[j].name))
        {
            continue;
        }
        reach(packages, built, j, seen);
    }
}

/// The package a lock's dependency entry names.
fn find(packages: &[Package], entry: &str) -> Option<usize> {
    let mut words = entry.split_whitespace();
    let name = words.next()?;
    let version = words.next();
    packages
        .iter()
        .position(|p| p.name == name && version.map_or(true, |v| p.version == v))
}

/// The packages of a `Cargo.lock`, or `None` if it cannot be read.
fn lock(path: &Path) -> Option<Vec<Package>> {
    let text = std::fs::read_to_string(path).ok()?;
    let doc: toml::Table = text.parse().ok()?;
    let list = doc.get("package")?.as_array()?;
    let text_of = |t: &toml::Table, k: &str| t.get(k).and_then(|v| v.as_str()).map(String::from);
    Some(
        list.iter()
            .filter_map(|v| v.as_table())
            .filter_map(|t| {
                Some(Package {
                    name: text_of(t, "name")?,
                    version: text_of(t, "version")?,
                    source: text_of(t, "source"),
                    checksum: text_of(t, "checksum"),
                    dependencies: t
                        .get("dependencies")
                        .and_then(|d| d.as_array())
                        .map(|d| {
                            d.iter()
                                .filter_map(|x| x.as_str().map(String::from))
                                .collect()
                        })
                        .unwrap_or_default(),
                })
            })
            .collect(),
    )
}

/// The directory of each package under `root/crates` (two levels deep), by package name.
fn member_dirs(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut look = |dir: &Path| {
        let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            return;
        };
        let name = text
            .parse::<toml::Table>()
            .ok()
            .and_then(|t| t.get("package")?.get("name")?.as_str().map(String::from));
        if let Some(name) = name {
            out.insert(name, dir.to_path_buf());
        }
    };
    for dir in subdirs(&root.join("crates")) {
        look(&dir);
        for inner in subdirs(&dir) {
            look(&inner);
        }
    }
    out
}

/// The directories in `dir`, sorted.
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// The files a package in `dir` is compiled from, sorted: everything under it but its tests,
/// benches, examples, hidden entries and `target`. (A nested package, such as an adapter crate
/// under its family's directory, is a package of its own and left out.)
fn files_under(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, top: bool, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "target" {
                continue;
            }
            if path.is_dir() {
                let skipped = top && matches!(name.as_str(), "tests" | "benches" | "examples");
                if !skipped && !path.join("Cargo.toml").is_file() {
                    walk(&path, false, out);
                }
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, true, &mut out);
    out.sort();
    out
}

/// The digest of `files` (paths relative to `base` and contents; a missing file counts as
/// absent).
fn digest_files(base: &Path, files: &[PathBuf]) -> u64 {
    let mut h = fnv(0, b"files");
    for f in files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        let rel = f.strip_prefix(base).unwrap_or(f);
        h = fnv(h, rel.to_string_lossy().as_bytes());
        h = fnv(h, &(bytes.len() as u64).to_le_bytes());
        h = fnv(h, &bytes);
    }
    h
}

/// 64-bit FNV-1a of `bytes`, continuing from `h` (0 starts a fresh digest).
fn fnv(h: u64, bytes: &[u8]) -> u64 {
    let mut h = if h == 0 { 0xcbf2_9ce4_8422_2325 } else { h };
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
