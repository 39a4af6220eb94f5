//! Streaming workloads over a callback transport: the transport calls the harness's [`Sink`].

use super::crew::{Cadence, Progress};
use super::sample::{self, Engine, Flow, Refused, Shape, Threads};
use super::stream::{note_refusals, produce, ProducerReport};
use crate::message::Message;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::{self, Placement};
use crate::semantics::{Locality, Semantics};
use crate::transport::{each_from_last, CallbackHandle, CallbackTransport, ChannelConfig, Sink};
use crate::verify::{self, Verifier};
use crate::workload::TrialSpec;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;

/// The harness's consumer as handed to a callback transport.
pub(crate) struct EngineSink {
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
    let engine = Callback::<T, M> {
        t,
        shape: Callbacks(Flow::new(sem, spec, messages)),
        message: PhantomData,
    };
    sample::run(spec, engine)
}

/// A callback stream's part of the skeleton ([`sample::run`]) for one transport and payload: the
/// transport connected to the harness's sink, its senders handed to a producer thread each, and
/// its handle to a thread that waits for the transport to finish calling the sink.
struct Callback<'a, T, M> {
    t: &'a Arc<T>,
    shape: Callbacks<'a>,
    message: PhantomData<fn() -> M>,
}

/// A callback stream's [`Shape`]: the producers' threads and the finisher's, and the outcome
/// from their reports.
#[derive(Clone, Copy)]
struct Callbacks<'a>(Flow<'a>);

impl<'a, T: CallbackTransport, M: Message> Engine for Callback<'a, T, M> {
    type Shape = Callbacks<'a>;
    type Ends = (Vec<T::Tx<M, EngineSink>>, T::Handle<M, EngineSink>);

    fn shape(&self) -> Callbacks<'a> {
        self.shape
    }

    fn build(
        &mut self,
        cfg: &ChannelConfig,
        progress: &Arc<Progress>,
    ) -> Result<Self::Ends, Refused> {
        let Flow {
            sem, per, total, ..
        } = self.shape.0;
        let sink = EngineSink {
            verifier: Verifier::new(cfg.producers, per, sem.ordering, 1),
            total,
            end: None,
            progress: progress.clone(),
            cadence: Cadence::new(),
        };
        let (senders, handle) = self.t.connect::<M, EngineSink>(cfg, sink)?;
        if senders.len() != cfg.producers {
            return Err(Refused::Endpoints(format!(
                "adapter returned {} senders for {}",
                senders.len(),
                cfg.producers
            )));
        }
        Ok((senders, handle))
    }

    fn spawn(&mut self, ends: Self::Ends, crew: &mut Threads<Member>) {
        let (senders, handle) = ends;
        let (per, batch) = (self.shape.0.per, self.shape.0.spec.batch);
        let form = M::form(self.shape.0.spec.payload);
        // Spawned on no side: the consumer runs on the transport's own thread, whose CPU time
        // is not the harness's to read, so a callback stream records no CPU cost at all rather
        // than a producer-only one (see `super::cpu`).
        each_from_last(senders, |p, tx| {
            crew.spawn(&format!("producer-{p}"), move || {
                Member::Producer(produce::<M, _>(tx, form, p as u32, per, batch))
            });
        });
        crew.spawn("finisher", move || {
            let sink = handle.finish();
            Member::Finished(sink, Instant::now())
        });
    }
}

impl Shape for Callbacks<'_> {
    type Report = Member;
    type Members = Threads<Member>;

    fn topology(&self) -> (usize, usize) {
        (self.0.spec.producers, 1)
    }

    fn total(&self) -> u64 {
        self.0.total
    }

    /// The producers' threads and the finisher's; where the transport runs the consumer on a
    /// thread of its own, that thread is planned for too, but placed by the transport.
    fn members(&self, progress: Arc<Progress>) -> Threads<Member> {
        let producers = self.0.spec.producers;
        let consumer_thread = usize::from(self.0.sem.locality == Locality::CrossThread);
        let plan = placement::plan(producers + consumer_thread, self.0.spec.pin);
        let mut place = plan.placement.clone();
        if consumer_thread == 1 && place.pinned {
            place.note = Some(
                "the transport's own consumer thread is placed by the transport, not pinned".into(),
            );
            place.cores.pop();
        }
        Threads::planned(producers + 1, plan, place, self.0.spec, progress)
    }

    fn finish(self, members: Vec<Member>, place: Placement) -> SampleOutcome {
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
        let elapsed_ns = end.saturating_duration_since(start).as_nanos() as u64;
        SampleOutcome {
            failed_sends: prods.iter().map(|p| p.failed).sum(),
            submit_ns: sample::submitted(prods.iter().map(|p| p.end), start),
            ..sample::measured(verdict, elapsed_ns, place)
        }
    }
}
