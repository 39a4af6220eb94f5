//! # handoff-model
//!
//! The result model of handoff: the plain records a run produces and everything downstream
//! reads — the history store, the comparison, the gates and every view. A [`report::RunReport`]
//! holds one [`report::TrialResult`] per trial with its effective parameters, declared
//! [`semantics`], [`placement`], verdict, statistics ([`stats`]), [`lint`]s, memory, limits
//! and, for open-loop runs, the figures of [`open_loop`]; the run carries its
//! [`environment`], [`limits`], [`consensus`] and [`gate`] outcomes.
//!
//! This crate depends on nothing of the harness: the engine produces these records, the store
//! keeps them, the analysis and the views read them. It holds no engine, no transport and no
//! rendering beyond the plain-text wording of quantities ([`fmt`]) that lints and views share,
//! and the visible escaping of text others wrote ([`foreign`]) that every terminal view applies.
//! Its JSON form is the report format (`schema_version` [`report::SCHEMA_VERSION`]).
#![deny(missing_docs)]

pub mod code;
pub mod consensus;
pub mod cpu;
pub mod environment;
// Hand-built results for the tests of the crates above this one. Always compiled (it is small),
// not behind a feature: a feature the tests turn on would make `cargo test` build this crate,
// and every crate above it, a second time beside the build `cargo handoff run` makes.
#[doc(hidden)]
pub mod fixture;
pub mod fmt;
pub mod foreign;
pub mod gate;
pub mod identity;
pub mod layout;
pub mod limits;
pub mod lint;
pub mod memory;
pub mod open_loop;
pub mod origin;
pub mod payload;
pub mod placement;
pub mod printed;
pub mod repetitions;
pub mod report;
pub mod semantics;
pub mod stats;
pub mod suggest;
pub mod time;
pub mod workload;
