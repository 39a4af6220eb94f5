//! The engine's integration tests, one module a subject, in one test binary: the catalog is
//! linked once for all of them, not once a file. (The open-loop tests, `tests/open_loop.rs`,
//! are a binary of their own: they spin on the clock, and nothing may run beside them.)

mod adapters;
mod async_drivers;
mod consensus;
mod ipc;
mod layers;
mod layout;
mod output;
mod output_golden;
mod output_session;
mod suite_files;
mod verdicts;
mod watchdog;
