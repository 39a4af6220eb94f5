//! The trial engine (in progress).
use crate::outcome::SampleOutcome;
use crate::transport::{CallbackTransport, Transport};
use crate::workload::TrialSpec;
use std::sync::Arc;

/// Runs one sample of a pull transport.
pub fn run_pull<T: Transport>(_t: &Arc<T>, _spec: &TrialSpec, _messages: u64) -> SampleOutcome {
    todo!()
}

/// Runs one sample of a callback transport.
pub fn run_callback<T: CallbackTransport>(_t: &Arc<T>, _spec: &TrialSpec, _messages: u64) -> SampleOutcome {
    todo!()
}
