//! Streaming workloads (`spsc`, `mpsc`, `mpmc`) over a pull transport.

use super::cpu::Side;
use super::crew::{Cadence, Progress};
use super::sample::{self, Engine, Flow, Members, Refused, Shape, Threads};
use crate::message::Message;
use crate::outcome::SampleOutcome;
use crate::placement::Placement;
use crate::semantics::Semantics;
use crate::transport::{each_from_last, ChannelConfig, Endpoints, Receiver, Sender, Transport};
use crate::verify::{self, Verifier};
use crate::workload::TrialSpec;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;

/// What one producer thread reports.
pub(super) struct ProducerReport {
    pub start: Instant,
    /// When its last send returned.
    pub end: Instant,
    pub failed: u64,
    /// `Some(sent)` if a send was refused before the producer finished.
    pub refused_after: Option<u64>,
    pub producer: u32,
}

/// What one consumer thread reports.
pub(super) struct ConsumerReport {
    start: Instant,
    /// When the last expected message arrived (single consumer) or the stream ended (several).
    end: Instant,
    failed: u64,
    verifier: Verifier,
}

/// What a member of a streaming sample reports.
pub(super) enum Member {
    Producer(ProducerReport),
    Consumer(ConsumerReport),
}

/// Sends `per` messages of producer `id`, built in `form`, one at a time or in runs of `batch`.
pub(super) fn produce<M: Message, S: Sender<M>>(
    mut tx: S,
    form: M::Form,
    id: u32,
    per: u64,
    batch: Option<usize>,
) -> ProducerReport {
    let start = Instant::now();
    let mut refused_after = None;
    match batch {
        None => {
            for seq in 0..per {
                if tx.send(M::build_in(form, id, seq)).is_err() {
                    refused_after = Some(seq);
                    break;
                }
            }
        }
        Some(b) => {
            let mut seq = 0;
            while seq < per {
                let end = (seq + b as u64).min(per);
                let mut run = (seq..end).map(|s| M::build_in(form, id, s));
                if let Err(m) = tx.send_batch(&mut run) {
                    refused_after = Some(m.seq());
                    break;
                }
                seq = end;
            }
        }
    }
    let end = Instant::now();
    let failed = tx.failed_attempts();
    drop(tx);
    ProducerReport {
        start,
        end,
        failed,
        refused_after,
        producer: id,
    }
}

/// Runs one streaming sample.
pub(super) fn run<T: Transport, M: Message>(
    t: &Arc<T>,
    sem: &Semantics,
    spec: &TrialSpec,
    messages: u64,
) -> SampleOutcome {
    let engine = Stream::<T, M> {
        t,
        shape: Streams(Flow::new(sem, spec, messages)),
        message: PhantomData,
    };
    sample::run(spec, engine)
}

/// A streaming sample's part of the skeleton ([`sample::run`]) for one transport and payload:
/// the channel, and its ends handed to a consumer thread per receiver and a producer thread per
/// sender.
struct Stream<'a, T, M> {
    t: &'a Arc<T>,
    shape: Streams<'a>,
    message: PhantomData<fn() -> M>,
}

/// A streaming sample's [`Shape`]: its threads, and the outcome from their reports.
#[derive(Clone, Copy)]
pub(super) struct Streams<'a>(pub Flow<'a>);

impl<'a, T: Transport, M: Message> Engine for Stream<'a, T, M> {
    type Shape = Streams<'a>;
    type Ends = Endpoints<T::Tx<M>, T::Rx<M>>;

    fn shape(&self) -> Streams<'a> {
        self.shape
    }

    fn build(&mut self, cfg: &ChannelConfig, _: &Arc<Progress>) -> Result<Self::Ends, Refused> {
        sample::endpoints(self.t.channel::<M>(cfg)?, cfg.producers, cfg.consumers)
    }

    fn spawn(&mut self, ends: Self::Ends, crew: &mut Threads<Member>) {
        let Endpoints { senders, receivers } = ends;
        let Flow {
            sem,
            spec,
            per,
            total,
        } = self.shape.0;
        let (producers, consumers, batch) = (spec.producers, spec.consumers, spec.batch);
        let form = M::form(spec.payload);
        each_from_last(receivers, |c, rx| {
            let verifier =
                Verifier::new(producers, per, sem.ordering, consumers).delivering(sem.delivery);
            let progress = crew.progress().clone();
            crew.spawn_as(Side::Consumer, &format!("consumer-{c}"), move || {
                Member::Consumer(consume::<M, T::Rx<M>>(
                    rx,
                    verifier,
                    total,
                    consumers == 1,
                    batch,
                    &progress.delivered,
                ))
            });
        });
        each_from_last(senders, |p, tx| {
            crew.spawn_as(Side::Producer, &format!("producer-{p}"), move || {
                Member::Producer(produce::<M, T::Tx<M>>(tx, form, p as u32, per, batch))
            });
        });
    }
}

impl Shape for Streams<'_> {
    type Report = Member;
    type Members = Threads<Member>;

    fn topology(&self) -> (usize, usize) {
        (self.0.spec.producers, self.0.spec.consumers)
    }

    fn total(&self) -> u64 {
        self.0.total
    }

    fn members(&self, progress: Arc<Progress>) -> Threads<Member> {
        Threads::new(
            self.0.spec.producers + self.0.spec.consumers,
            self.0.spec,
            progress,
        )
    }

    fn finish(self, members: Vec<Member>, place: Placement) -> SampleOutcome {
        let mut prods = Vec::new();
        let mut cons = Vec::new();
        for m in members {
            match m {
                Member::Producer(p) => prods.push(p),
                Member::Consumer(c) => cons.push(c),
            }
        }
        let start = prods
            .iter()
            .map(|p| p.start)
            .chain(cons.iter().map(|c| c.start))
            .min()
            .expect("threads ran");
        let end = cons.iter().map(|c| c.end).max().expect("a consumer ran");
        let failed_recvs = cons.iter().map(|c| c.failed).sum();
        let mut verifiers: Vec<Verifier> = cons.into_iter().map(|c| c.verifier).collect();
        note_refusals(&prods, &mut verifiers[0]);
        let verdict = verify::merge(verifiers);
        let elapsed_ns = end.saturating_duration_since(start).as_nanos() as u64;
        SampleOutcome {
            failed_sends: prods.iter().map(|p| p.failed).sum(),
            failed_recvs,
            submit_ns: sample::submitted(prods.iter().map(|p| p.end), start),
            ..sample::measured(verdict, elapsed_ns, place)
        }
    }
}

/// Records the first refused send, if any, in the verifier.
pub(super) fn note_refusals(prods: &[ProducerReport], v: &mut Verifier) {
    if let Some(p) = prods.iter().find(|p| p.refused_after.is_some()) {
        v.note_disconnect(p.producer, p.refused_after.unwrap_or(0));
    }
}

/// Receives and verifies until the stream ends; `single`: the only consumer, which stamps the
/// end at the `total`-th message.
pub(super) fn consume<M: Message, R: Receiver<M>>(
    mut rx: R,
    mut v: Verifier,
    total: u64,
    single: bool,
    batch: Option<usize>,
    delivered: &std::sync::atomic::AtomicU64,
) -> ConsumerReport {
    let start = Instant::now();
    let mut end = None;
    // The hot loops: the verifier's state lives in registers (see `Verifier::stream`); the
    // end-of-stream stamp and the progress publication are taken on rare branches. Each loop has
    // a view of its own: a view whose address escapes anywhere in the function (as it would
    // through the closure handed to `recv_runs`) lives in memory everywhere, and then every
    // release store of the transport forces the verifier's counters out to memory on every
    // message.
    let mut cadence = match batch {
        None => {
            let mut s = v.stream();
            let mut stop = Stops::new(total, single);
            while let Some(m) = rx.recv() {
                deliver(&mut s, m, &mut stop, delivered, &mut end);
            }
            stop.cadence
        }
        Some(b) => {
            // Stops are checked once per batch: the last message of the stream is always the
            // last of its batch, so the end is stamped as the call that delivered it returns.
            let mut s = v.stream();
            let mut stop = Stops::new(total, single);
            while rx.recv_runs(b, |run: &[M]| s.observe_run(run)) > 0 {
                let n = s.count();
                if n >= stop.next {
                    stop = at_stop(n, stop, delivered, &mut end);
                }
            }
            stop.cadence
        }
    };
    // Several consumers: each stops its clock when the stream ends for it.
    let end = end.unwrap_or_else(Instant::now);
    cadence.finish(v.count(), delivered);
    ConsumerReport {
        start,
        end,
        failed: rx.failed_attempts(),
        verifier: v,
    }
}

/// The delivered counts at which a consumer loop leaves its common path: where its [`Cadence`]
/// publishes progress, and, for a single consumer, at the last message to stamp the end. One
/// comparison per message (or per batch) finds both.
#[derive(Clone, Copy)]
struct Stops {
    next: u64,
    total: u64,
    single: bool,
    cadence: Cadence,
}

impl Stops {
    fn new(total: u64, single: bool) -> Stops {
        let mut s = Stops {
            next: 0,
            total,
            single,
            cadence: Cadence::new(),
        };
        s.next = s.after(0);
        s
    }

    /// The first stop after `n` delivered messages.
    #[inline]
    fn after(&self, n: u64) -> u64 {
        let progress = self.cadence.next();
        if self.single && n < self.total {
            progress.min(self.total)
        } else {
            progress
        }
    }
}

/// Verifies one delivered message; at a stop, publishes progress and, for a single consumer's
/// last message, stamps the end.
#[inline(always)]
fn deliver<M: Message>(
    s: &mut crate::verify::Stream<'_>,
    m: M,
    stop: &mut Stops,
    delivered: &std::sync::atomic::AtomicU64,
    end: &mut Option<Instant>,
) {
    s.observe(&m);
    drop(m);
    let n = s.count();
    if n >= stop.next {
        // By value, so that no pointer to the loop's state escapes the loop.
        *stop = at_stop(n, *stop, delivered, end);
    }
}

/// At or past a stop (`n` delivered): stamps the end once the whole stream is in, publishes
/// progress if it is due, and returns the stops from here on.
#[cold]
#[inline(never)]
fn at_stop(
    n: u64,
    mut stop: Stops,
    delivered: &std::sync::atomic::AtomicU64,
    end: &mut Option<Instant>,
) -> Stops {
    if stop.single && n >= stop.total && end.is_none() {
        *end = Some(Instant::now());
    }
    if n >= stop.cadence.next() {
        stop.cadence.publish(n, delivered);
    }
    stop.next = stop.after(n);
    stop
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering as AtomicOrdering;

    #[test]
    fn stops_fall_on_publications_and_the_last_message() {
        let s = Stops::new(10_000, true);
        // Nothing is published yet: the first message is a stop.
        assert_eq!(s.next, 1);
        assert_eq!(s.after(0), s.cadence.next());

        // Past the last message, only publications remain.
        let mut s = Stops::new(10_000, true);
        s.cadence
            .finish(9_990, &std::sync::atomic::AtomicU64::new(0));
        assert_eq!(s.after(9_990), 9_991);
        assert_eq!(s.after(10_000), s.cadence.next());

        // Several consumers: no end stamp, only publications.
        let s = Stops::new(10, false);
        assert_eq!(s.next, s.cadence.next());
    }

    /// A producer builds every message in the form it is given: `boxed:4096` bodies are 4096
    /// bytes, not the default length.
    #[test]
    fn a_producer_builds_in_the_payload_s_form() {
        use crate::payload::{Boxed, PayloadKind};
        struct Lengths(std::sync::mpsc::Sender<usize>);
        impl Sender<Boxed> for Lengths {
            fn send(&mut self, m: Boxed) -> Result<(), Boxed> {
                self.0.send(m.body().len()).unwrap();
                Ok(())
            }
        }
        for batch in [None, Some(3)] {
            let (tx, rx) = std::sync::mpsc::channel();
            let form = Boxed::form(PayloadKind::Boxed(4096));
            let report = produce::<Boxed, _>(Lengths(tx), form, 0, 10, batch);
            assert_eq!(report.refused_after, None);
            assert_eq!(
                rx.iter().collect::<Vec<_>>(),
                vec![4096; 10],
                "batch {batch:?}"
            );
        }
    }

    #[test]
    fn a_consumer_publishes_its_count_and_a_stream_its_total() {
        use crate::payload::Word;
        let (tx, rx) = std::sync::mpsc::channel::<Word>();
        struct Rx(std::sync::mpsc::Receiver<Word>);
        impl Receiver<Word> for Rx {
            fn recv(&mut self) -> Option<Word> {
                self.0.recv().ok()
            }
        }
        for seq in 0..50_000u64 {
            tx.send(Word::build(0, seq)).unwrap();
        }
        drop(tx);
        let delivered = std::sync::atomic::AtomicU64::new(0);
        let v = Verifier::new(1, 50_000, crate::semantics::Ordering::GlobalFifo, 1);
        let report = consume::<Word, Rx>(Rx(rx), v, 50_000, true, None, &delivered);
        assert_eq!(report.verifier.count(), 50_000);
        assert_eq!(delivered.load(AtomicOrdering::Relaxed), 50_000);
    }
}
