//! The built-in peer transports: queues written in C++ and a ring written in C, compiled into
//! handoff and measured through the same C ABI as any plugin (`include/handoff.h`), so that the
//! Rust transports are compared with what people reach for in other languages.
//!
//! | peer | Debian package | header | transports |
//! |---|---|---|---|
//! | `boost-spsc` | `libboost-dev` | `boost/lockfree/spsc_queue.hpp` | `boost-spsc` |
//! | `moodycamel-rwq` | `libreaderwriterqueue-dev` | `readerwriterqueue/readerwriterqueue.h` | `moodycamel-rwq` |
//! | `moodycamel-cq` | `libconcurrentqueue-dev` | `concurrentqueue/concurrentqueue.h` | `moodycamel-cq` |
//! | `atomic-queue` | `libatomic-queue-dev` | `atomic_queue/atomic_queue.h` | `atomic-queue-spsc`, `atomic-queue-mpmc` |
//! | `tbb-bounded` | `libtbb-dev` | `oneapi/tbb/concurrent_queue.h` | `tbb-bounded` |
//! | `c-ring` | none (a C compiler) | none | `c-ring` |
//!
//! The build script compiles each C++ peer whose header it finds (`cpp/<peer>.cpp`, one small
//! adapter per library over the shared `cpp/blocks.hpp`), and the C ring, which is also the
//! example plugin `examples/plugin-c/handoff_ring.c`. `scripts/install-peers` installs the five
//! packages. A peer that was not built is still listed, as unavailable with the reason and the
//! command that installs its package; its trials are `unsupported`.
//!
//! What each queue holds for a requested capacity is stated in its adapter and its description:
//! Boost's ring, oneTBB's queue and the C ring hold exactly the capacity; atomic_queue rounds up
//! to a power of two of at least 4096, so it declares both as its constraints; the two moodycamel
//! queues, which never allocate after creation through the calls used here, hold more than asked
//! and say so. atomic_queue's MPMC form is declared unordered: a producer preempted between
//! claiming its slot and filling it is overtaken by one a lap ahead, so even one producer's
//! blocks can arrive out of order (the stream tests caught it).

use handoff::catalog::Catalog;
use handoff::semantics::{Ordering, Semantics, WaitStrategy};
use handoff::transport::TransportInfo;

use handoff::plugin::{self, abi};

/// One peer: a queue library (or the C ring) and the transports its table declares.
#[derive(Debug)]
pub struct Peer {
    /// The plugin's name, e.g. `boost-spsc`.
    pub name: &'static str,
    /// The Debian package with its header; `None` for the C ring, which needs only a C compiler.
    pub package: Option<&'static str>,
    /// The header the build looks for.
    pub header: Option<&'static str>,
    /// The language its transports are written in.
    pub language: &'static str,
    /// What its table declares (the same as the table, which a test checks).
    pub transports: &'static [Declared],
    /// Its entry point, if it was built.
    entry: Option<abi::Entry>,
    /// Why it was not built, as the build script said.
    not_built: Option<&'static str>,
}

/// A peer transport's declaration.
#[derive(Debug)]
pub struct Declared {
    /// The transport's name.
    pub name: &'static str,
    /// Its one-line description.
    pub description: &'static str,
    /// Its semantics as handoff reads them from the table.
    pub semantics: Semantics,
}

impl Declared {
    /// The transport's info, in the peer's language.
    pub fn info(&self, language: &str) -> TransportInfo {
        TransportInfo::new(self.name, self.description, self.semantics).in_language(language)
    }
}

impl Peer {
    /// Whether the peer was compiled into this build.
    pub fn built(&self) -> bool {
        self.entry.is_some()
    }

    /// The peer's plugin table, if it was built.
    pub fn table(&self) -> Option<*const abi::Plugin> {
        // SAFETY: a peer's entry point takes nothing and returns its static table.
        self.entry.map(|entry| unsafe { entry() })
    }

    /// Why the peer cannot run here: `None` if it was built.
    pub fn unavailable(&self) -> Option<String> {
        if self.built() {
            return None;
        }
        Some(match (self.not_built, self.header, self.package) {
            (Some(why), _, _) => format!("not built: {why}"),
            (None, Some(header), Some(package)) => format!(
                "not built: {header} was missing when handoff was built; `apt-get install \
                 {package}`, then rebuild"
            ),
            _ => "not built: the C compiler failed on it when handoff was built".into(),
        })
    }
}

/// Every peer, built or not.
pub fn peers() -> &'static [Peer] {
    PEERS
}

/// Registers every peer transport: those built with their tables, the others as unavailable
/// (listed with the reason, `unsupported` in a run). A name the catalog already has is left as
/// it is.
pub fn register(catalog: &mut Catalog) {
    for peer in PEERS {
        let why = match peer.table() {
            // SAFETY: a peer's table is a static of code linked into this executable.
            Some(table) => match unsafe { plugin::register_static(catalog, table) } {
                Ok(()) => continue,
                Err(e) => format!("plugin {} {e}", peer.name),
            },
            None => peer.unavailable().unwrap_or_default(),
        };
        for t in peer.transports {
            if catalog.get(t.name).is_none() {
                catalog.register(plugin::unavailable(t.info(peer.language), &why));
            }
        }
    }
}

/// The entry point `$symbol` of a peer built under `cfg($cfg)`, or `None`.
macro_rules! entry {
    ($cfg:meta, $symbol:ident) => {{
        #[cfg($cfg)]
        extern "C" {
            fn $symbol() -> *const abi::Plugin;
        }
        #[cfg($cfg)]
        let entry: Option<abi::Entry> = Some($symbol);
        #[cfg(not($cfg))]
        let entry: Option<abi::Entry> = None;
        entry
    }};
}

/// What the peers' tables declare: non-blocking calls only, so every wait is handoff's spin.
const SPSC: Semantics = Semantics::spsc();
const MPMC: Semantics = Semantics::mpmc().wait(WaitStrategy::Spin);

static PEERS: &[Peer] = &[
    Peer {
        name: "boost-spsc",
        package: Some("libboost-dev"),
        header: Some("boost/lockfree/spsc_queue.hpp"),
        language: "C++",
        transports: &[Declared {
            name: "boost-spsc",
            description: "boost::lockfree::spsc_queue (bounded SPSC ring, wait-free), batches via \
                          push/pop of arrays",
            semantics: SPSC.batch(),
        }],
        entry: entry!(peer_boost_spsc, handoff_peer_boost_spsc),
        not_built: option_env!("HANDOFF_PEER_NOT_BUILT_BOOST_SPSC"),
    },
    Peer {
        name: "moodycamel-rwq",
        package: Some("libreaderwriterqueue-dev"),
        header: Some("readerwriterqueue/readerwriterqueue.h"),
        language: "C++",
        transports: &[Declared {
            name: "moodycamel-rwq",
            description: "moodycamel::ReaderWriterQueue (SPSC, lock-free) via \
                          try_enqueue/try_dequeue, which never allocate; holds more than asked \
                          (2^k-1 >= capacity; 511-slot blocks from 1024)",
            semantics: SPSC,
        }],
        entry: entry!(peer_moodycamel_rwq, handoff_peer_moodycamel_rwq),
        not_built: option_env!("HANDOFF_PEER_NOT_BUILT_MOODYCAMEL_RWQ"),
    },
    Peer {
        name: "moodycamel-cq",
        package: Some("libconcurrentqueue-dev"),
        header: Some("concurrentqueue/concurrentqueue.h"),
        language: "C++",
        transports: &[Declared {
            name: "moodycamel-cq",
            description: "moodycamel::ConcurrentQueue (MPMC, lock-free, a sub-queue per producer \
                          thread) via try_ calls, which never allocate: holds capacity or more \
                          (32-slot blocks, 2 more per producer)",
            semantics: MPMC.batch(),
        }],
        entry: entry!(peer_moodycamel_cq, handoff_peer_moodycamel_cq),
        not_built: option_env!("HANDOFF_PEER_NOT_BUILT_MOODYCAMEL_CQ"),
    },
    Peer {
        name: "atomic-queue",
        package: Some("libatomic-queue-dev"),
        header: Some("atomic_queue/atomic_queue.h"),
        language: "C++",
        transports: &[
            Declared {
                name: "atomic-queue-spsc",
                description: "atomic_queue::AtomicQueueB2, SPSC form (a state per slot, \
                              throughput-tuned); capacity a power of two, at least 4096",
                semantics: SPSC.bounded(4096, true),
            },
            Declared {
                name: "atomic-queue-mpmc",
                description: "atomic_queue::AtomicQueueB2, MPMC form (a state per slot, \
                              throughput-tuned); unordered: a producer stalled on its slot is \
                              overtaken; capacity 2^n >= 4096",
                semantics: MPMC.bounded(4096, true).ordering(Ordering::None),
            },
        ],
        entry: entry!(peer_atomic_queue, handoff_peer_atomic_queue),
        not_built: option_env!("HANDOFF_PEER_NOT_BUILT_ATOMIC_QUEUE"),
    },
    Peer {
        name: "tbb-bounded",
        package: Some("libtbb-dev"),
        header: Some("oneapi/tbb/concurrent_queue.h"),
        language: "C++",
        transports: &[Declared {
            name: "tbb-bounded",
            description: "oneTBB concurrent_bounded_queue (MPMC, set_capacity) via \
                          try_push/try_pop; slots in pages allocated as it fills",
            semantics: MPMC,
        }],
        entry: entry!(peer_tbb_bounded, handoff_peer_tbb_bounded),
        not_built: option_env!("HANDOFF_PEER_NOT_BUILT_TBB_BOUNDED"),
    },
    Peer {
        name: "c-ring",
        package: None,
        header: None,
        language: "C",
        transports: &[Declared {
            name: "c-ring",
            description: "hand-rolled batched SPSC ring in C11 (cached counters, one store per \
                          batch), blocks copied with memcpy",
            semantics: SPSC.bounded(1, true).batch(),
        }],
        entry: entry!(peer_c_ring, handoff_peer_c_ring),
        not_built: option_env!("HANDOFF_PEER_NOT_BUILT_C_RING"),
    },
];
