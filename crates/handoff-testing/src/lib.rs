//! Test-only transports that misbehave on purpose, for proving that the harness catches every
//! kind of failure: wrong content ([`faulty`]: drops, duplicates, reorders, hangs, panics,
//! aborts, stale and lost fan-out values) and wrong timing ([`faulty_timing`]: a stalling
//! producer, a saturation knee); and one that is only slow ([`slow`]: it must pass, not be
//! taken for hung); and one whose per-message cost a test raises from outside ([`planted`]: a
//! comparison must catch it); a spinning ring slowed by a planted share of its own time
//! ([`slowed`]: how small a change a comparison finds); and ones that deliver correctly
//! but misbehave towards their process ([`process`]: they print, leak, or never return from
//! creating their channel); and ones whose peer process fails in a cross-process trial
//! ([`peer`]).
//!
//! A crate of its own, never part of `handoff_transports::builtin`, so that building them changes
//! no shipped transport's code: a test registers them with [`register_all`], or takes
//! [`catalog`]; the `handoff` command registers them with its `testing` feature.

pub mod faulty;
pub mod faulty_timing;
pub mod paused;
#[cfg(target_os = "linux")]
pub mod peer;
pub mod planted;
pub mod process;
pub mod slow;
pub mod slowed;

use handoff::catalog::Catalog;

/// Registers every test-only transport.
pub fn register_all(c: &mut Catalog) {
    faulty::register_all(c);
    faulty_timing::register_all(c);
    planted::register_all(c);
    #[cfg(target_os = "linux")]
    peer::register_all(c);
    process::register_all(c);
    slow::register_all(c);
    slowed::register_all(c);
}

/// The built-in catalog plus every test-only transport.
pub fn catalog() -> Catalog {
    let mut c = handoff_transports::builtin();
    register_all(&mut c);
    c
}
