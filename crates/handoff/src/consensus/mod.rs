//! Consensus: every transport that was asked for the same stream delivered the same stream.
//!
//! The verifier judges each trial on its own, against the semantics its transport declares.
//! Consensus judges trials against each other: trials whose streams are defined alike (same
//! workload, payload, producers and consumers, and for an open-loop trial the same rate; see
//! [`stream`]) and that moved the same number of messages per sample must show the same digest
//! ([`crate::verify`]). A transport whose digest differs from the one most of its group delivered
//! delivered another stream, though its own verification may have passed: a transport that
//! promises no order and reorders passes verification, and still does not deliver the stream a
//! FIFO transport delivers.
//!
//! A run asks for consensus with `consensus = true` at the top of its suite file or with
//! `--consensus`. Then:
//! 1. the plan refuses trials of one stream that ask for different fixed counts (see
//!    `count::conflict`): their digests could not be compared;
//! 2. the session calibrates every `auto` trial as usual, then gives every trial of a stream the
//!    one count of `count::one_count` (the smallest calibrated, so no sample runs longer than
//!    its target) before the warm-ups and timed samples;
//! 3. after the run, [`judge`] groups the results and compares their digests into a
//!    [`Consensus`], which the report carries and the views state under each table. A failed
//!    consensus fails the run like a failed verdict.
//!
//! | file        | concept                                                            |
//! |-------------|--------------------------------------------------------------------|
//! | `stream.rs` | which trials must agree: the stream definition, and who is left out |
//! | `count.rs`  | one message count per stream                                        |
//! | `judge.rs`  | results → verdict                                                  |

pub(crate) mod count;
mod judge;
pub mod stream;

pub use handoff_model::consensus::{Consensus, ConsensusGroup, Excluded, Member};
pub use judge::judge;
pub use stream::StreamKey;
