//! `pipeline`: injector -> hop -> stage -> hop -> … -> sink, each hop a transport of its own;
//! and `paced`/`ramp`, which are the one-hop case with K injectors.
//!
//! Several injectors (`producers = K`) make a **fan-in** into the first hop. Several consumers
//! (`consumers = N`) make a **fan-out**: the last hop must be a broadcast transport, and each of
//! the N sinks must receive, and is verified to receive, the whole stream.
//!
//! Hops of different transports have different endpoint types, so each hop's endpoints are
//! boxed (`Box<dyn Sender<_>>`, `Box<dyn Receiver<_>>`): one virtual call per send and receive,
//! a few nanoseconds against the microseconds a pipeline's events take end to end, and small
//! next to the clock reads and histogram records every open-loop message costs anyway (both are
//! measured and reported with each result). Boxing also keeps the engine compiled once per
//! payload rather than once per transport and payload. The hops come from a [`HopSource`] (the
//! catalog), whose builders know each hop's concrete transport type; the message type is checked
//! at compile time (see [`super::hop`]).

use super::hop::{HopBuilder, HopPayload};
use super::open_loop::{self, HopMeta};
use super::sample;
use super::support::check_support;
use crate::open_loop::Stamped;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::semantics::Ordering;
use crate::transport::{BuildError, ChannelConfig};
use crate::workload::{Delivery, PipelineSpec, Reactor, TrialSpec, WorkloadKind};

pub use super::hop::{AsyncBoxedHop, BoxedHop, HopSource};

/// The hops of an open-loop trial: a pipeline's own, or the trial's transport as the one hop of
/// `paced` and `ramp`.
pub(super) fn hops_of(spec: &TrialSpec) -> Option<std::borrow::Cow<'_, PipelineSpec>> {
    match (&spec.pipeline, spec.workload) {
        (Some(p), _) => Some(std::borrow::Cow::Borrowed(p)),
        (None, WorkloadKind::Paced | WorkloadKind::Ramp) => {
            Some(std::borrow::Cow::Owned(PipelineSpec::over(vec![
                crate::workload::Hop {
                    transport: spec.transport.clone(),
                    capacity: spec.capacity,
                },
            ])))
        }
        (None, _) => None,
    }
}

/// The writers of hop `i`: the injectors into the first, one stage into each other, and the
/// merge source beside the stage into its hop.
fn writers_of(spec: &TrialSpec, pipe: &PipelineSpec, i: usize) -> usize {
    match i {
        0 => spec.producers,
        _ if pipe.merge.is_some_and(|m| m.hop == i + 1) => 2,
        _ => 1,
    }
}

/// Why a pipeline's reactor strategy or merge source does not fit its hops, and which key
/// (`reactor` or `merge_hop`) asked for it.
pub(crate) struct ShapeProblem {
    pub key: &'static str,
    pub why: String,
}

/// Checks a pipeline's reactor strategy and merge source against its hops: `None` if they fit.
/// `conflates(i)` says whether hop `i` keeps only the newest value.
pub(crate) fn shape_problem(
    pipe: &PipelineSpec,
    conflates: impl Fn(usize) -> bool,
) -> Option<ShapeProblem> {
    let n = pipe.hops.len();
    let merge = |why: String| {
        Some(ShapeProblem {
            key: "merge_hop",
            why,
        })
    };
    if pipe.reactor == Reactor::Latest && n > 0 && conflates(n - 1) {
        return Some(ShapeProblem { key: "reactor", why: format!(
            "reactor `latest` drains its hop, but the last hop (`{}`) already keeps only the newest value: use reactor `sequential`",
            pipe.hops[n - 1].transport
        )});
    }
    let m = pipe.merge?;
    if m.hop < 2 || m.hop > n {
        return merge(format!(
            "a merge source feeds a middle or last hop (2 to {n}), not hop {}{}",
            m.hop,
            if m.hop == 1 {
                ": the first hop's writers are the injectors (`producers`)"
            } else {
                ""
            }
        ));
    }
    if m.rate == 0 {
        return merge("a merge source needs a rate of at least 1 event/s".into());
    }
    if let Some(i) = (m.hop - 1..n).find(|&i| conflates(i)) {
        return merge(format!(
            "hop {} (`{}`) conflates at or after the merge into hop {}: one source's final value could replace the other's",
            i + 1,
            pipe.hops[i].transport,
            m.hop
        ));
    }
    None
}

/// Checks every hop of a pipeline trial against its transport's declared semantics (each hop
/// seen as a stream of its own: the injectors into the first, one stage into each other).
pub(crate) fn check(source: &dyn HopSource, spec: &TrialSpec) -> Result<(), Box<SampleOutcome>> {
    let fail = |status| {
        Err(Box::new(SampleOutcome::status_only(
            status,
            Placement::default(),
        )))
    };
    let Some(pipe) = hops_of(spec) else {
        return fail(SampleStatus::Invalid(
            "a pipeline trial names no hops".into(),
        ));
    };
    if pipe.hops.is_empty() {
        return fail(SampleStatus::Invalid(
            "a pipeline needs at least one hop".into(),
        ));
    }
    if let Err(why) = source.drivers().resolve(spec.driver) {
        return fail(SampleStatus::Invalid(why.to_string()));
    }
    if spec.consumers == 0 || spec.producers == 0 {
        return fail(SampleStatus::Invalid(format!(
            "{} takes at least 1 producer and 1 consumer",
            spec.workload
        )));
    }
    if pipe.delivery == Delivery::Latest && spec.producers != 1 {
        return fail(SampleStatus::Invalid(
            "latest delivery takes one injector: with several, one injector's final value could be replaced by another's".into(),
        ));
    }
    let mut conflating = false;
    let mut conflates = Vec::new();
    for (i, hop) in pipe.hops.iter().enumerate() {
        let info = match source.hop_transport(&hop.transport) {
            Ok((info, _)) => info,
            Err(e) => return fail(SampleStatus::Invalid(format!("hop {}: {e}", i + 1))),
        };
        conflating |= info.semantics.ordering == Ordering::Latest;
        conflates.push(info.semantics.ordering == Ordering::Latest);
        let writers = writers_of(spec, &pipe, i);
        let readers = if i + 1 == pipe.hops.len() {
            spec.consumers
        } else {
            1
        };
        let as_stream = TrialSpec {
            transport: hop.transport.clone(),
            workload: if spec.pipeline.is_some() {
                WorkloadKind::Pipeline
            } else {
                spec.workload
            },
            capacity: hop.capacity,
            producers: writers,
            consumers: readers,
            pipeline: None,
            ..spec.clone()
        };
        if let Err(mut o) = check_support(info, &as_stream) {
            if spec.pipeline.is_none() {
                return Err(o);
            }
            o.status = match o.status {
                SampleStatus::Unsupported(s) => {
                    SampleStatus::Unsupported(format!("hop {} ({}): {s}", i + 1, hop.transport))
                }
                SampleStatus::Invalid(s) => {
                    SampleStatus::Invalid(format!("hop {} ({}): {s}", i + 1, hop.transport))
                }
                other => other,
            };
            return Err(o);
        }
    }
    if let Some(p) = shape_problem(&pipe, |i| conflates[i]) {
        return fail(SampleStatus::Invalid(p.why));
    }
    // Checked here as well as when the sample runs, so that a plan asking for it is refused
    // before anything runs.
    match (pipe.delivery, conflating) {
        (Delivery::Latest, false) if spec.pipeline.is_some() => fail(SampleStatus::Invalid(
            "delivery `latest` needs a conflating hop (a transport with `latest` ordering)".into(),
        )),
        (Delivery::Sequential, true) if spec.pipeline.is_some() => fail(SampleStatus::Invalid(
            "a hop conflates, so not every event can reach the sink: use delivery `latest`".into(),
        )),
        _ => Ok(()),
    }
}

/// Runs one pipeline sample, its hops built by `source`.
pub(crate) fn run(source: &dyn HopSource, spec: &TrialSpec, messages: u64) -> SampleOutcome {
    crate::with_payload!(spec.payload, M => run_typed::<M>(source, spec, messages))
}

/// One hop of a [`Chain`], ready to build.
pub(super) struct Link<'s> {
    /// Its transport's name.
    pub transport: String,
    /// Its transport's hop builder.
    pub builder: &'s dyn HopBuilder,
    /// Its channel's configuration: its capacity, writers and readers.
    pub cfg: ChannelConfig,
}

impl Link<'_> {
    /// Builds this hop (index `i` of its chain) for threads, or the sample's outcome saying why
    /// it could not be.
    pub fn build<M: HopPayload>(
        &self,
        i: usize,
    ) -> Result<BoxedHop<Stamped<M>>, Box<SampleOutcome>> {
        M::build_hop(self.builder, &self.cfg).map_err(|e| Box::new(self.refused(i, e)))
    }

    /// The outcome of a sample whose hop `i` (this one) refused to be built.
    pub fn refused(&self, i: usize, e: BuildError) -> SampleOutcome {
        let mut o = sample::refused(e.into(), Placement::default());
        if let SampleStatus::Unsupported(s) | SampleStatus::Invalid(s) = &mut o.status {
            *s = format!("hop {} ({}): {s}", i + 1, self.transport);
        }
        o
    }

    /// (writers, readers) of this hop.
    pub fn counts(&self) -> (usize, usize) {
        (self.cfg.producers, self.cfg.consumers)
    }
}

/// A pipeline trial's hops, checked against its shape and described: what both ways of
/// running it (threads of one process, or two processes) build it from.
pub(super) struct Chain<'s> {
    pub links: Vec<Link<'s>>,
    pub meta: Vec<HopMeta>,
    /// What the sinks verify.
    pub ordering: Ordering,
    /// The driver its stages run under (`None`: OS threads).
    pub run_on: Option<(std::sync::Arc<dyn crate::driver::TaskDriver>, Option<usize>)>,
    /// The chain index of the hop the merge source writes, if any.
    pub merge: Option<usize>,
}

/// The chain of `spec`'s hops from `source`, or the sample's outcome saying why it cannot run.
pub(super) fn chain<'s>(
    source: &'s dyn HopSource,
    spec: &TrialSpec,
) -> Result<Chain<'s>, Box<SampleOutcome>> {
    let fail = |status| Box::new(SampleOutcome::status_only(status, Placement::default()));
    check(source, spec)?;
    let Some(pipe) = hops_of(spec) else {
        return Err(fail(SampleStatus::Invalid(
            "a pipeline trial names no hops".into(),
        )));
    };
    let run_on = source
        .drivers()
        .resolve(spec.driver)
        .map_err(|why| fail(SampleStatus::Invalid(why.to_string())))?;
    let mut links = Vec::new();
    let mut meta = Vec::new();
    let mut fifo = true;
    let mut conflating = false;
    for (i, hop) in pipe.hops.iter().enumerate() {
        let (info, builder) = source
            .hop_transport(&hop.transport)
            .map_err(|e| fail(SampleStatus::Invalid(format!("hop {}: {e}", i + 1))))?;
        // The last hop feeds the sinks: several in a fan-out.
        let readers = if i + 1 == pipe.hops.len() {
            spec.consumers
        } else {
            1
        };
        links.push(Link {
            transport: hop.transport.clone(),
            builder,
            cfg: ChannelConfig {
                capacity: hop.capacity,
                producers: writers_of(spec, &pipe, i),
                consumers: readers,
                options: spec.options.clone(),
            },
        });
        let ordering = info.semantics.ordering;
        fifo &= ordering.is_fifo();
        conflating |= ordering == Ordering::Latest;
        meta.push(HopMeta {
            name: hop.transport.clone(),
            capacity: match info.semantics.bound {
                // A conflating hop holds one value, whatever capacity was asked for.
                _ if ordering == Ordering::Latest => Some(1),
                b if b.has_capacity() => Some(hop.capacity),
                _ => None,
            },
            latest: ordering == Ordering::Latest,
            delivery: info.semantics.delivery,
        });
    }
    let ordering = match (pipe.delivery, conflating) {
        (Delivery::Latest, true) => Ordering::Latest,
        (Delivery::Latest, false) => {
            return Err(fail(SampleStatus::Invalid(
                "delivery `latest` needs a conflating hop (a transport with `latest` ordering)"
                    .into(),
            )))
        }
        (Delivery::Sequential, true) => {
            return Err(fail(SampleStatus::Invalid(
                "a hop conflates, so not every event can reach the sink: use delivery `latest`"
                    .into(),
            )))
        }
        (Delivery::Sequential, false) if fifo => Ordering::PerProducerFifo,
        (Delivery::Sequential, false) => Ordering::None,
    };
    Ok(Chain {
        links,
        meta,
        ordering,
        run_on,
        merge: pipe.merge.map(|m| m.hop - 1),
    })
}

fn run_typed<M: HopPayload>(
    source: &dyn HopSource,
    spec: &TrialSpec,
    messages: u64,
) -> SampleOutcome {
    let chain = match chain(source, spec) {
        Ok(c) => c,
        Err(o) => return *o,
    };
    match chain.run_on {
        None => {
            let mut hops = Vec::new();
            for (i, link) in chain.links.iter().enumerate() {
                match link.build::<M>(i) {
                    Ok(h) => hops.push(h),
                    Err(o) => return *o,
                }
            }
            open_loop::run::<M, _, _>(hops, chain.meta, chain.ordering, spec, messages)
        }
        Some((driver, workers)) => {
            let mut hops = Vec::new();
            for (i, link) in chain.links.iter().enumerate() {
                match M::build_async_hop(link.builder, &link.cfg, spec.driver) {
                    Ok(h) => hops.push(h),
                    Err(e) => return link.refused(i, e),
                }
            }
            open_loop::run_tasks::<M>(
                hops,
                chain.meta,
                chain.ordering,
                spec,
                messages,
                driver,
                workers,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{Hop, Pacing};

    fn pipeline(hops: &[&str], delivery: Delivery) -> TrialSpec {
        TrialSpec {
            transport: hops[0].into(),
            workload: WorkloadKind::Pipeline,
            driver: Default::default(),
            payload: crate::payload::PayloadKind::U64,
            capacity: 64,
            producers: 1,
            consumers: 1,
            messages: crate::workload::Messages::Fixed(1000),
            batch: None,
            options: Default::default(),
            samples: 1,
            warmup: 0,
            timeout_ms: 1000,
            pin: false,
            fresh_process: false,
            placement: Default::default(),
            pacing: Pacing::Rate(1000),
            pacer: Default::default(),
            pipeline: Some(PipelineSpec {
                hops: hops
                    .iter()
                    .map(|t| Hop {
                        transport: t.to_string(),
                        capacity: 64,
                    })
                    .collect(),
                stage_work_ns: 0,
                delivery,
                reactor: Default::default(),
                reactor_work_ns: 0,
                merge: None,
            }),
            layout: None,
        }
    }

    /// The delivery mode is checked with the hops, before a sample runs (the command line's
    /// preflight refuses such a trial with exit 2 instead of reporting it `invalid`).
    #[test]
    fn the_delivery_mode_is_checked_against_the_hops_before_running() {
        let c = crate::test_catalog::catalog();
        let status = |spec: &TrialSpec| check(&c, spec).map_err(|o| o.status.clone());
        match status(&pipeline(&["rtrb", "rtrb"], Delivery::Latest)) {
            Err(SampleStatus::Invalid(why)) => {
                assert!(why.contains("needs a conflating hop"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        match status(&pipeline(&["rtrb", "latest-cell"], Delivery::Sequential)) {
            Err(SampleStatus::Invalid(why)) => {
                assert!(why.contains("use delivery `latest`"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            status(&pipeline(&["rtrb", "latest-cell"], Delivery::Latest)),
            Ok(())
        );
        assert_eq!(
            status(&pipeline(&["rtrb", "rtrb"], Delivery::Sequential)),
            Ok(())
        );
    }
}
