//! The command's end-to-end tests, one module a subject, in one test binary: the catalog is
//! linked once for all of them, not once a file. Two are binaries of their own: the docs tests
//! (`tests/docs`, every documented command in order) and the comparisons across time
//! (`tests/compare.rs`, whose runs must have the machine to themselves).

mod against;
mod brokers;
mod build_script;
mod cli;
mod foreign;
mod history;
mod html;
mod plugins;
mod processes;
mod recommend;
mod shared_features;
mod support;
mod watchdog;
mod workers;
