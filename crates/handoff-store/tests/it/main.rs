//! The history store's integration tests in one test binary.

mod store;
mod tls;
