//! Streaming workloads over a callback transport: the transport calls the harness's [`Sink`].

use super::cpu::{self, CpuTally, Side};
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
    /// Whether the sink runs on a thread of the transport's (not a producer's): it then reads
    /// that thread's CPU clock at the first message and the last.
    own_thread: bool,
    /// The consumer thread's CPU time at the first message and at the last, ns.
    cpu: (Option<u64>, Option<u64>),
}

impl<M: Message> Sink<M> for EngineSink {
    #[inline(always)]
    fn accept(&mut self, msg: &M) {
        self.verifier.observe(msg);
        let n = self.verifier.count();
        if n >= self.cadence.next() {
            self.cadence.publish(n, &self.progress.delivered);
        }
        if n == 1 && self.own_thread {
            self.cpu.0 = cpu::thread_cpu_ns();
        }
        if n == self.total {
            self.end = Some(Instant::now());
            if self.own_thread {
                self.cpu.1 = cpu::thread_cpu_ns();
            }
        }
    }
}

enum Member {
    Producer(ProducerReport),
    Finished(Option<Box<EngineSink>>, Instant),
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
        shape: Callbacks(Flow::new(sem, spec, messages), Arc::default()),
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
/// from their reports; the tally their CPU time and the consumer's is added up in.
#[derive(Clone)]
struct Callbacks<'a>(Flow<'a>, Arc<CpuTally>);

impl<'a, T: CallbackTransport, M: Message> Engine for Callback<'a, T, M> {
    type Shape = Callbacks<'a>;
    type Ends = (Vec<T::Tx<M, EngineSink>>, T::Handle<M, EngineSink>);

    fn shape(&self) -> Callbacks<'a> {
        self.shape.clone()
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
            own_thread: sem.locality == Locality::CrossThread,
            cpu: (None, None),
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
        // The producers count for their side; the consumer, on the transport's thread, reads
        // its own clock in the sink (first message to last), added when the sample finishes.
        each_from_last(senders, |p, tx| {
            crew.spawn_as(Side::Producer, &format!("producer-{p}"), move || {
                Member::Producer(produce::<M, _>(tx, form, p as u32, per, batch))
            });
        });
        crew.spawn("finisher", move || {
            let sink = handle.finish();
            Member::Finished(sink.map(Box::new), Instant::now())
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
        Threads::planned(producers + 1, plan, place, self.0.spec, progress).counting(self.1.clone())
    }

    fn finish(self, members: Vec<Member>, place: Placement) -> SampleOutcome {
        let mut prods = Vec::new();
        let mut sink = None;
        let mut finished_at = Instant::now();
        for m in members {
            match m {
                Member::Producer(p) => prods.push(p),
                Member::Finished(s, at) => {
                    sink = s.map(|s| *s);
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
        // A same-thread sink ran on the producers' threads, whose time is counted already.
        if sink.own_thread {
            self.1.add(Side::Consumer, sink.cpu.0, sink.cpu.1);
        }
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
