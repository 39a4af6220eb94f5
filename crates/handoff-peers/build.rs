//! Compiles the peer transports: each C++ queue whose Debian package is installed (its adapter,
//! `cpp/<peer>.cpp`, into a static library of its own) and the C ring of
//! `examples/plugin-c/handoff_ring.c`. `cfg(peer_<name>)` tells `src/lib.rs` which were built.
//!
//! A peer whose header is missing, or whose adapter fails to compile, is left out with a warning
//! naming the package to install; the build itself never fails for it. `src/lib.rs` registers
//! such a peer as unavailable, with the reason this script gives it
//! (`HANDOFF_PEER_NOT_BUILT_<NAME>`).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

/// A C++ peer: its `cfg` name, adapter, the header that shows its package is installed, the
/// package, and the libraries it links.
struct Peer {
    name: &'static str,
    source: &'static str,
    header: &'static str,
    package: &'static str,
    libs: &'static [&'static str],
}

const PEERS: &[Peer] = &[
    Peer {
        name: "boost_spsc",
        source: "cpp/boost_spsc.cpp",
        header: "boost/lockfree/spsc_queue.hpp",
        package: "libboost-dev",
        libs: &[],
    },
    Peer {
        name: "moodycamel_rwq",
        source: "cpp/moodycamel_rwq.cpp",
        header: "readerwriterqueue/readerwriterqueue.h",
        package: "libreaderwriterqueue-dev",
        libs: &[],
    },
    Peer {
        name: "moodycamel_cq",
        source: "cpp/moodycamel_cq.cpp",
        header: "concurrentqueue/concurrentqueue.h",
        package: "libconcurrentqueue-dev",
        libs: &[],
    },
    Peer {
        name: "atomic_queue",
        source: "cpp/atomic_queue.cpp",
        header: "atomic_queue/atomic_queue.h",
        package: "libatomic-queue-dev",
        libs: &[],
    },
    Peer {
        name: "tbb_bounded",
        source: "cpp/tbb_bounded.cpp",
        header: "oneapi/tbb/concurrent_queue.h",
        package: "libtbb-dev",
        libs: &["tbb"],
    },
];

/// The C ring's `cfg` name.
const RING: &str = "c_ring";

fn main() {
    let crate_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = crate_dir.join("../..");
    let include = root.join("include");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo"));
    let ring = root.join("examples/plugin-c/handoff_ring.c");

    for name in PEERS.iter().map(|p| p.name).chain([RING]) {
        println!("cargo:rustc-check-cfg=cfg(peer_{name})");
    }
    for path in [
        include.join("handoff.h"),
        crate_dir.join("cpp"),
        ring.clone(),
    ] {
        println!("cargo:rerun-if-changed={}", path.display());
    }

    let mut missing = false;
    for peer in PEERS {
        let built = probe(peer, &out).and_then(|()| {
            cc::Build::new()
                .cpp(true)
                .std("c++17")
                .opt_level(2)
                .include(&include)
                .file(crate_dir.join(peer.source))
                .try_compile(&format!("handoff_peer_{}", peer.name))
                .map_err(|e| format!("compiling {} failed: {e}", peer.source))
        });
        match built {
            Ok(()) => {
                for lib in peer.libs {
                    println!("cargo:rustc-link-lib={lib}");
                }
                println!("cargo:rustc-cfg=peer_{}", peer.name);
            }
            Err(why) => {
                missing = true;
                not_built(peer.name, &why);
            }
        }
    }

    let ring_built = cc::Build::new()
        .std("c11")
        .opt_level(2)
        .include(&include)
        .define("HANDOFF_RING_ENTRY", "handoff_peer_c_ring")
        .file(&ring)
        .try_compile("handoff_peer_c_ring");
    match ring_built {
        Ok(()) => println!("cargo:rustc-cfg=peer_{RING}"),
        Err(e) => not_built(RING, &format!("compiling {} failed: {e}", ring.display())),
    }

    // Installing a missing package changes the include directory: build again then. (Cargo walks
    // a directory given here for its newest file, so this costs a little on every build, and only
    // while a peer is missing.)
    let system = Path::new("/usr/include");
    if missing && system.is_dir() {
        println!("cargo:rerun-if-changed={}", system.display());
    }
}

/// Whether the peer's header is found and its libraries link: a one-line program through the
/// compiler the peer would be built with. `Err` says what is missing and what installs it.
fn probe(peer: &Peer, out: &Path) -> Result<(), String> {
    let install = format!(
        "`apt-get install {}` (or scripts/install-peers)",
        peer.package
    );
    let compiler = cc::Build::new()
        .cpp(true)
        .cargo_metadata(false)
        .try_get_compiler()
        .map_err(|e| format!("no C++ compiler ({e}); install one, and {install}"))?;
    let source = out.join(format!("probe_{}.cpp", peer.name));
    fs::write(
        &source,
        format!("#include <{}>\nint main() {{ return 0; }}\n", peer.header),
    )
    .map_err(|e| format!("cannot write {}: {e}", source.display()))?;

    // Preprocessing is enough to find the header; linking is needed only to find libraries.
    let mut cmd = compiler.to_command();
    cmd.arg("-std=c++17").arg(&source).arg("-o");
    if peer.libs.is_empty() {
        cmd.arg(out.join(format!("probe_{}.i", peer.name)))
            .arg("-E");
    } else {
        cmd.arg(out.join(format!("probe_{}", peer.name)));
        cmd.args(peer.libs.iter().map(|lib| format!("-l{lib}")));
    }
    let found = cmd
        .output()
        .map_err(|e| format!("cannot run the C++ compiler: {e}"))?;
    for made in ["i", ""].map(|ext| out.join(format!("probe_{}", peer.name)).with_extension(ext)) {
        let _ = fs::remove_file(made); // a megabyte or two, of no further use
    }
    if found.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&found.stderr);
    Err(if peer.libs.is_empty() || said.contains(peer.header) {
        format!(
            "{} was missing when handoff was built; {install}, then rebuild",
            peer.header
        )
    } else {
        let libs = peer.libs.join(", ");
        format!(
            "{} or its libraries ({libs}) did not link; {install}, then rebuild",
            peer.header
        )
    })
}

/// Reports a peer left out: a build warning, and the reason for `src/lib.rs`.
fn not_built(name: &str, why: &str) {
    let why = why.replace(['\n', '\r'], " ");
    println!(
        "cargo:warning=peer {} not built: {why}",
        name.replace('_', "-")
    );
    println!(
        "cargo:rustc-env=HANDOFF_PEER_NOT_BUILT_{}={why}",
        name.to_uppercase()
    );
}
