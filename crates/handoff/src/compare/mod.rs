//! Comparing two runs: did a change make it faster or slower?
//!
//! Results are matched by their [`crate::identity::Identity`]; each metric (see `metric`) is
//! tested with the Mann–Whitney U test on the per-sample figures (`mann_whitney`), its ratio
//! of medians given with a bootstrap interval (`bootstrap`), its p-value adjusted for every
//! figure judged at once (`fdr`), and judged in [`model`]. What
//! makes a comparison less than clean is said in `warnings`; [`crate::output::compare`]
//! renders it as a table, markdown, HTML, JSON or the Bencher Metric Format.
//!
//! The two builds of one paired run (`handoff run --against`) are compared pair by pair instead
//! ([`mod@paired`]): the Wilcoxon signed-rank test (`signed_rank`) on the per-pair log ratios, the
//! median of those ratios with a bootstrap interval over pairs, then the same adjustment, verdicts
//! and regression flag.

pub(crate) mod bootstrap;
pub(crate) mod fdr;
pub mod link_orders;
pub(crate) mod mann_kendall;
pub(crate) mod mann_whitney;
pub(crate) mod metric;
pub mod model;
pub(crate) mod normal;
pub mod paired;
pub(crate) mod signed_rank;
pub(crate) mod student_t;
pub(crate) mod warnings;

pub use model::{compare, Change, Comparison, Judgement, Row, DEFAULT_THRESHOLD};
pub use paired::paired;

#[cfg(test)]
mod tests;
