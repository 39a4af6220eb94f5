//! The trial engine: runs one sample of one workload over one transport.
//!
//! For every sample: the channel is created, threads are spawned, pinned and parked at a start
//! barrier (all outside the timed region); each thread reads the clock as it leaves the barrier;
//! the sample's time runs from the earliest of those reads to the moment the consumer received
//! the last expected message. Consumers verify every message and publish their progress; a
//! watchdog turns a sample in which no message is delivered for the watchdog interval into
//! `hung` (a slow one that keeps delivering runs to its end; see `crew`), and a panic into
//! `crashed`.
//!
//! That skeleton is written once (`sample`): the closed-loop engines (`stream`, `pingpong`,
//! `callback`, and `asynch`'s stream and ping-pong) fill in their channels, their members' work
//! and how the members' reports make the outcome; the open-loop engine (`open_loop`, behind
//! [`pipeline`]) shares its collection step.
//!
//! Async transports run under the trial's [`Driver`](crate::workload::Driver): OS threads, or
//! tasks on a tokio runtime built outside the timed region (see `asynch`).
//!
//! Samples are independent: the orchestration that interleaves samples of different trials,
//! calibrates message counts and computes statistics lives in [`crate::session`].

pub(crate) mod asynch;
mod callback;
pub(crate) mod cpu;
pub(crate) mod crew;
mod faults;
pub mod hop;
mod open_loop;
mod pingpong;
pub mod pipeline;
#[cfg(target_os = "linux")]
pub(crate) mod processes;
mod same_worker;
mod sample;
mod stream;
mod support;

use crate::driver::Drivers;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::transport::{CallbackTransport, Transport, TransportInfo};
use crate::transport_async::AsyncTransport;
use crate::workload::{TrialSpec, WorkloadKind};
use std::sync::Arc;

pub(crate) use support::check_support;

/// Refuses an async driver for a blocking transport, whatever its declared wait strategy.
fn threads_only(info: &TransportInfo, spec: &TrialSpec) -> Result<(), Box<SampleOutcome>> {
    if spec.driver.is_async() {
        return Err(Box::new(SampleOutcome::status_only(
            SampleStatus::Unsupported(format!(
                "driver {} runs async transports only; {} is a blocking transport (run it with driver threads)",
                spec.driver, info.name
            )),
            Placement::default(),
        )));
    }
    Ok(())
}

/// Runs one sample of a pull transport.
pub(crate) fn run_pull<T: Transport>(t: &Arc<T>, spec: &TrialSpec, messages: u64) -> SampleOutcome {
    let info = t.info();
    if let Err(o) = check_support(&info, spec).and_then(|()| threads_only(&info, spec)) {
        return *o;
    }
    match spec.workload {
        WorkloadKind::PingPong => {
            crate::with_payload!(spec.payload, M => pingpong::run::<T, M>(t, spec, messages))
        }
        WorkloadKind::Paced | WorkloadKind::Ramp | WorkloadKind::Pipeline => {
            SampleOutcome::status_only(
                SampleStatus::Invalid(
                    "open-loop workloads run through the catalog (executor::run_sample)".into(),
                ),
                crate::placement::Placement::default(),
            )
        }
        _ => {
            crate::with_payload!(spec.payload, M => stream::run::<T, M>(t, &info.semantics, spec, messages))
        }
    }
}

/// Runs one sample of a callback transport.
pub(crate) fn run_callback<T: CallbackTransport>(
    t: &Arc<T>,
    spec: &TrialSpec,
    messages: u64,
) -> SampleOutcome {
    let info = t.info();
    if let Err(o) = check_support(&info, spec).and_then(|()| threads_only(&info, spec)) {
        return *o;
    }
    crate::with_payload!(spec.payload, M => callback::run::<T, M>(t, &info.semantics, spec, messages))
}

/// Runs one sample of an async transport under the trial's driver (see `asynch`: OS threads
/// each driving one future, or tasks on a tokio runtime).
pub(crate) fn run_async<T: AsyncTransport>(
    t: &Arc<T>,
    spec: &TrialSpec,
    messages: u64,
    drivers: &Drivers,
) -> SampleOutcome {
    let info = t.info();
    if let Err(o) = check_support(&info, spec) {
        return *o;
    }
    let run_on = match resolve_driver(drivers, spec, &info, t.drivers()) {
        Ok(r) => r,
        Err(o) => return *o,
    };
    match spec.workload {
        WorkloadKind::PingPong => {
            crate::with_payload!(spec.payload, M => asynch::pingpong::run::<T, M>(t, spec, &run_on, messages))
        }
        _ => {
            crate::with_payload!(spec.payload, M => asynch::stream::run::<T, M>(t, &info.semantics, spec, &run_on, messages))
        }
    }
}

/// The driver `spec` runs under, from `drivers`; refused (`unsupported`) when the async
/// transport `info` says it cannot run there (`only`: the drivers it runs under, if not all).
pub(crate) fn resolve_driver(
    drivers: &Drivers,
    spec: &TrialSpec,
    info: &TransportInfo,
    only: Option<&'static [&'static str]>,
) -> Result<asynch::driver::RunOn, Box<SampleOutcome>> {
    let refuse = |status| Box::new(SampleOutcome::status_only(status, Placement::default()));
    if let Some(only) = only {
        if !only.contains(&spec.driver.name()) {
            return Err(refuse(SampleStatus::Unsupported(format!(
                "{} runs under the driver{} {} only (driver {} requested)",
                info.name,
                if only.len() == 1 { "" } else { "s" },
                only.join(", "),
                spec.driver
            ))));
        }
    }
    drivers
        .resolve(spec.driver)
        .map_err(|why| refuse(SampleStatus::Invalid(why.to_string())))
}
