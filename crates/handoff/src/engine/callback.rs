//! Streaming workloads over a callback transport: the transport calls the harness's [`Sink`].

use super::crew::{Cadence, Crew, Progress};
use super::stream::{build_failed, crew_failed, note_refusals, produce, ProducerReport};
use crate::message::Message;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement;
use crate::semantics::{Locality, Semantics};
use crate::transport::{CallbackHandle, CallbackTransport, ChannelConfig, Sink};
use crate::verify::{self, Verifier};
use crate::workload::TrialSpec;
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;
use std::time::Instant;

/// The harness's consumer as handed to a callback transport.
pub struct EngineSink {
    verifier: Verifier,
    total: u64,
    end: Option<Instant>,
    progress: Arc<Progress>,
    cadence: Cadence,
}

impl<M: Message> Sink<M> for EngineSink {
    #[inline(always)]
    fn accept(&mut self, msg: &M) {
        self.verifier.observe(msg);
        let n = self.verifier.count();
        if n >= self.cadence.next() {
            self.cadence.publish(n, &self.progress.delivered);
        }
        if n == self.total {
            self.end = Some(Instant::now());
        }
    }
}

enum Member {
    Producer(ProducerReport),
    Finished(Option<EngineSink>, Instant),
}

/// Runs one streaming sample over a callback transport.
pub(super) fn run<T: CallbackTransport, M: Message>(
    t: &Arc<T>,
    sem: &Semantics,
    spec: &TrialSpec,
    messages: u64,
) -> SampleOutcome {
    let producers = spec.producers;
    let per = (messages / producers as u64).max(1);
    let total = per * producers as u64;
    let consumer_thread = usize::from(sem.locality == Locality::CrossThread);
    let plan = placement::plan(producers + consumer_thread, spec.pin);
    let mut place = plan.placement.clone();
    if consumer_thread == 1 && place.pinned {
        place.note = Some(
            "the transport's own consumer thread is placed by the transport, not pinned".into(),
        );
        place.cores.pop();
    }

    let mut crew: Crew<Member> = Crew::new(producers + 1, plan).laid_out(spec.layout);
    let sink = EngineSink {
        verifier: Verifier::new(producers, per, sem.ordering, 1),
        total,
        end: None,
        progress: crew.progress.clone(),
        cadence: Cadence::new(),
    };
    let cfg = ChannelConfig {
        capacity: spec.capacity,
        producers,
        consumers: 1,
        options: spec.options.clone(),
    };
    let (senders, handle) = match t.connect::<M, EngineSink>(&cfg, sink) {
        Ok(x) => x,
        Err(e) => return build_failed(e, place),
    };
    if senders.len() != producers {
        let why = format!("adapter returned {} senders for {producers}", senders.len());
        return SampleOutcome::status_only(SampleStatus::Crashed(why), place);
    }
    for (p, tx) in senders.into_iter().enumerate() {
        let batch = spec.batch;
        crew.spawn(&format!("producer-{p}"), move || {
            Member::Producer(produce::<M, _>(tx, p as u32, per, batch))
        });
    }
    crew.spawn("finisher", move || {
        let sink = handle.finish();
        Member::Finished(sink, Instant::now())
    });
    let progress = crew.progress.clone();
    let members = match crew.collect(spec.watchdog(None)) {
        Ok(m) => m,
        Err(e) => {
            return crew_failed(
                e,
                &progress.delivered.load(AtomicOrdering::Relaxed),
                total,
                spec.watchdog(None),
                place,
            )
        }
    };
    if progress.pin_failed.load(AtomicOrdering::Relaxed) {
        place.pinned = false;
        place.note = Some("the OS refused a pin request".into());
    }
    let mut prods = Vec::new();
    let mut sink = None;
    let mut finished_at = Instant::now();
    for m in members {
        match m {
            Member::Producer(p) => prods.push(p),
            Member::Finished(s, at) => {
                sink = s;
                finished_at = at;
            }
        }
    }
    let Some(mut sink) = sink else {
        return SampleOutcome::status_only(
            SampleStatus::Crashed("the transport's consumer thread died".into()),
            place,
        );
    };
    let start = prods.iter().map(|p| p.start).min().expect("producers ran");
    let end = sink.end.unwrap_or(finished_at);
    note_refusals(&prods, &mut sink.verifier);
    let verdict = verify::merge(vec![sink.verifier]);
    SampleOutcome {
        status: match verdict.violation {
            None => SampleStatus::Pass,
            Some(v) => SampleStatus::Fail(v),
        },
        messages: verdict.count,
        elapsed_ns: end.saturating_duration_since(start).as_nanos() as u64,
        failed_sends: prods.iter().map(|p| p.failed).sum(),
        failed_recvs: 0,
        digest: verdict.digest,
        latency: None,
        placement: place,
        paced: None,
        same_worker: None,
        layout: None,
        memory: None,
    }
}
