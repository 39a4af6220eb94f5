//! Exit codes (documented in the README and `handoff --help`).

/// Every trial passed (or was reported `unsupported`).
pub const OK: u8 = 0;
/// At least one trial failed verification, hung or crashed, or (under consensus) a transport
/// delivered another stream than the others of its stream.
pub const VERDICT_FAILED: u8 = 1;
/// Bad input: unknown names, malformed suite file, impossible parameters, bad flags, a value
/// outside its range or more trials than `--max-trials` allows, an unknown run id or baseline,
/// a malformed store location, an output that cannot be written (refused before anything runs).
pub const BAD_INPUT: u8 = 2;
/// The run itself could not be completed (e.g. the output could not be written at the end, the
/// history store could not be opened or written); the report is still written and every result
/// is kept in the run's journal.
pub const RUN_ERROR: u8 = 3;
/// A result is significantly slower than the allowed maximum (`--max-regression`), or a
/// suite's gate failed.
pub const REGRESSION: u8 = 4;
