//! `shm-ring`: handoff's reference IPC transport, a bounded SPSC ring in memory the two
//! processes share.
//!
//! The ring itself is the `handoff-shm` crate (its protocol, its waits, and the model tests
//! that check both under loom); this module puts it in an anonymous shared file (`memfd`) that
//! the listening process creates and the joining one opens through `/proc/<pid>/fd/<n>` (the
//! rendezvous): no name in `/dev/shm` or anywhere else, so nothing is left when both processes
//! are gone. A message is copied once each way, as its fixed-size wire form, straight into and
//! out of its slot; there is no system call on the path of a message while neither side sleeps.
//! A batch is written with one ring claim, and received as one run.
//!
//! Waiting: `wait=spin` (the default) spins like every spinning transport of the catalog;
//! `wait=block` sleeps on a futex in the shared region after a short spin, and the other side
//! wakes it only when it sleeps. Either way a side whose peer process died finds out within
//! milliseconds and ends its stream instead of waiting forever.
//!
//! Within one process the same ring joins two threads, the baseline against which the cost of
//! the process boundary shows.

use super::wire::wire_size;
use handoff::catalog::{Catalog, Entry};
use handoff::message::Message;
use handoff::semantics::{Semantics, WaitStrategy};
use handoff::shared_memory::Region;
use handoff::transport::{
    BuildError, ChannelConfig, Endpoints, OptionTable, Receiver, Sender, Transport, TransportInfo,
    TrySendError,
};
use handoff::transport_cross::{CrossProcess, End};
use handoff_shm::{Consumer, Producer, Shared, Waiting};
use std::marker::PhantomData;
use std::sync::Arc;

/// How a side that cannot proceed waits.
const WAIT: OptionTable<Waiting> = OptionTable {
    name: "wait",
    help: "spin: the harness's shared spin (spin-loop hints, a yield every 64 failed polls; never sleeps); block: spins and yields briefly, then sleeps on a futex in the shared region, woken by the other side only when it sleeps (a full fence per publication on the other side)",
    values: &[("spin", Waiting::Spin), ("block", Waiting::Block)],
    waits: &[WaitStrategy::Spin, WaitStrategy::SpinThenPark],
};

/// The largest region of rings, in bytes.
const MAX_BYTES: usize = 1 << 30;

/// `count` rings of one region (a memfd both processes map), each at a multiple of `stride` (a
/// whole number of pages): `shm-ring`'s one, or `shm-sharded`'s one per producer.
pub(super) struct Rings {
    /// The transport's name, in its errors.
    name: &'static str,
    capacity: usize,
    wire: usize,
    stride: usize,
    count: usize,
}

impl Rings {
    /// `count` rings of `capacity` slots (rounded up to a power of two, at least 2) for `M`.
    pub fn of<M: Message>(
        name: &'static str,
        capacity: usize,
        count: usize,
    ) -> Result<Rings, BuildError> {
        let wire = wire_size::<M>()?;
        let slots = capacity.max(2).checked_next_power_of_two();
        let stride = slots.map(|c| handoff_shm::bytes_for(c, wire).next_multiple_of(4096));
        match (slots, stride) {
            (Some(slots), Some(stride)) if stride.saturating_mul(count) <= MAX_BYTES => Ok(Rings {
                name,
                capacity: slots,
                wire,
                stride,
                count,
            }),
            _ => Err(BuildError::Invalid(format!(
                "{} of {capacity} slots for {wire}-byte messages {} larger than {} MiB",
                if count == 1 {
                    "a ring".to_string()
                } else {
                    format!("{count} rings")
                },
                if count == 1 { "is" } else { "are" },
                MAX_BYTES >> 20
            ))),
        }
    }

    /// Why the region could not be made or opened.
    fn failed(&self, e: impl std::fmt::Display) -> BuildError {
        BuildError::Unsupported(format!("{}: {e}", self.name))
    }

    /// The rings, laid out in a new region, and the rendezvous by which another process opens
    /// them.
    pub fn create(&self) -> Result<(Vec<Arc<Shared>>, String), BuildError> {
        let region = Region::create(&format!("handoff-{}", self.name), self.stride * self.count)
            .map_err(|e| self.failed(e))?;
        let at = region.path();
        Ok((self.lay_out(region, true)?, at))
    }

    /// The rings another process laid out, found at `rendezvous`.
    pub fn open(&self, rendezvous: &str) -> Result<Vec<Arc<Shared>>, BuildError> {
        let region = Region::open(rendezvous).map_err(|e| self.failed(e))?;
        self.lay_out(region, false)
    }

    /// The rings of `region` (laid out fresh when `create`, else checked), each keeping the
    /// region alive.
    fn lay_out(&self, region: Region, create: bool) -> Result<Vec<Arc<Shared>>, BuildError> {
        if region.len() < self.stride * self.count {
            return Err(self.failed(format!(
                "the region holds {} B, {} ring(s) need {}",
                region.len(),
                self.count,
                self.stride * self.count
            )));
        }
        let region = Arc::new(region);
        (0..self.count)
            .map(|k| {
                // SAFETY: ring `k`'s share of the region: `stride` bytes from a page boundary
                // (the region is page-aligned and `stride` a whole number of pages), inside the
                // region (checked above), which the ring keeps alive; fresh and zeroed when
                // `create`, and reached only through rings (here and in the other process).
                let shared = unsafe {
                    let base = region.as_ptr().add(k * self.stride);
                    let keep = Box::new(region.clone());
                    if create {
                        Shared::create_in(base, self.stride, self.capacity, self.wire, keep)
                    } else {
                        Shared::open_in(base, self.stride, self.wire, keep)
                    }
                };
                shared.map(Arc::new).map_err(|e| self.failed(e))
            })
            .collect()
    }
}

/// `shm-ring`.
pub struct ShmRing;

impl ShmRing {
    /// The one ring of `cfg`, for `M`.
    fn rings<M: Message>(cfg: &ChannelConfig) -> Result<Rings, BuildError> {
        if cfg.producers != 1 || cfg.consumers != 1 {
            return Err(BuildError::Unsupported(format!(
                "shm-ring is single-producer single-consumer ({} producers, {} consumers asked)",
                cfg.producers, cfg.consumers
            )));
        }
        Rings::of::<M>("shm-ring", cfg.capacity, 1)
    }

    /// A new ring for `cfg`, with slots for `M`, its wait and its rendezvous.
    fn create<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<(Arc<Shared>, Waiting, String), BuildError> {
        let (mut rings, at) = Self::rings::<M>(cfg)?.create()?;
        let ring = rings.pop().expect("one ring");
        Ok((ring, WAIT.get(cfg), at))
    }

    /// The ring another process created at `rendezvous`, for `M`, and its wait.
    fn open<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<(Arc<Shared>, Waiting), BuildError> {
        let ring = Self::rings::<M>(cfg)?
            .open(rendezvous)?
            .pop()
            .expect("one ring");
        Ok((ring, WAIT.get(cfg)))
    }
}

impl Transport for ShmRing {
    type Tx<M: Message> = ShmTx<M>;
    type Rx<M: Message> = ShmRx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo::new(
            "shm-ring",
            "handoff's shared-memory ring: an SPSC ring of tagged wire-size slots in a memfd both processes map; the consumer polls the tag of the slot it expects and frees slots a span at a time; wait=block sleeps on a cross-process futex",
            Semantics::spsc()
                .bounded(2, true)
                .wait(WaitStrategy::Spin)
                .batch(),
        )
        .with_option(WAIT.spec())
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Self::Tx<M>, Self::Rx<M>>, BuildError> {
        let (shared, waiting, _) = self.create::<M>(cfg)?;
        Ok(Endpoints::one(
            ShmTx::new(Producer::take(shared.clone(), waiting)),
            ShmRx::new(Consumer::take(shared, waiting)),
        ))
    }
}

impl CrossProcess for ShmRing {
    type Listener = (Arc<Shared>, Waiting);

    fn listen<M: Message>(
        &self,
        _end: End,
        cfg: &ChannelConfig,
    ) -> Result<(Self::Listener, String), BuildError> {
        let (shared, waiting, at) = self.create::<M>(cfg)?;
        Ok(((shared, waiting), at))
    }

    fn accept_receiver<M: Message>(
        &self,
        (shared, waiting): Self::Listener,
        _cfg: &ChannelConfig,
    ) -> Result<ShmRx<M>, BuildError> {
        Ok(ShmRx::new(Consumer::take(shared, waiting)))
    }

    fn accept_sender<M: Message>(
        &self,
        (shared, waiting): Self::Listener,
        _cfg: &ChannelConfig,
    ) -> Result<ShmTx<M>, BuildError> {
        Ok(ShmTx::new(Producer::take(shared, waiting)))
    }

    fn join_senders<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<Vec<ShmTx<M>>, BuildError> {
        if cfg.producers != 1 {
            return Err(BuildError::Unsupported(format!(
                "shm-ring takes one producer, not {}",
                cfg.producers
            )));
        }
        let (shared, waiting) = self.open::<M>(rendezvous, cfg)?;
        Ok(vec![ShmTx::new(Producer::take(shared, waiting))])
    }

    fn join_receiver<M: Message>(
        &self,
        rendezvous: &str,
        cfg: &ChannelConfig,
    ) -> Result<ShmRx<M>, BuildError> {
        let (shared, waiting) = self.open::<M>(rendezvous, cfg)?;
        Ok(ShmRx::new(Consumer::take(shared, waiting)))
    }
}

/// Writes `m`'s wire form into a slot.
#[inline(always)]
fn write<M: Message>(m: &M, at: *mut u8) {
    // SAFETY: the ring hands out slots of the wire size it was made for, `M`'s (`create` and
    // `open` size it by `wire_size::<M>`), valid for writes.
    unsafe { m.write_wire(at) }
}

/// Reads a message's wire form out of a slot.
#[inline(always)]
pub(super) fn read<M: Message>(at: *const u8) -> M {
    // SAFETY: as in `write`, for reads; the slot holds a message the producer wrote, and any
    // bytes give a value.
    unsafe { M::read_wire(at) }
}

/// The producer's handle: the ring's end and the failed attempts it counted.
pub struct ShmTx<M> {
    end: Producer,
    failed: u64,
    _m: PhantomData<fn(M)>,
}

impl<M: Message> ShmTx<M> {
    /// The handle of a ring's producer end.
    pub(super) fn new(end: Producer) -> ShmTx<M> {
        ShmTx {
            end,
            failed: 0,
            _m: PhantomData,
        }
    }
}

impl<M: Message> Sender<M> for ShmTx<M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        let (mut round, mut slept) = (0, false);
        loop {
            if self.end.try_push(|at| write(&msg, at)) {
                return Ok(());
            }
            if self.end.consumer_gone(slept) {
                return Err(msg);
            }
            self.failed += 1;
            slept = self.end.pause(&mut round);
        }
    }

    #[inline(always)]
    fn send_batch<I: Iterator<Item = M>>(&mut self, msgs: &mut I) -> Result<(), M> {
        let (mut round, mut slept) = (0, false);
        let mut next = None;
        loop {
            if next.is_none() {
                next = msgs.next();
                if next.is_none() {
                    return Ok(());
                }
            }
            if self.end.push_run(&mut next, msgs, write::<M>) > 0 {
                (round, slept) = (0, false);
                continue;
            }
            if self.end.consumer_gone(slept) {
                return Err(next.take().expect("a message is waiting"));
            }
            self.failed += 1;
            slept = self.end.pause(&mut round);
        }
    }

    /// A full ring refuses the message whole: open-loop runs count it as refused.
    #[inline(always)]
    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        if self.end.try_push(|at| write(&msg, at)) {
            Ok(())
        } else if self.end.consumer_gone(false) {
            Err(TrySendError::Disconnected(msg))
        } else {
            Err(TrySendError::Full(msg))
        }
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

/// The consumer's handle: the ring's end, the failed attempts it counted, and a run's messages
/// (reused).
pub struct ShmRx<M: Message> {
    end: Consumer,
    failed: u64,
    run: Vec<M>,
}

impl<M: Message> ShmRx<M> {
    fn new(end: Consumer) -> ShmRx<M> {
        ShmRx {
            end,
            failed: 0,
            run: Vec::new(),
        }
    }

    /// Hands up to `max` ready messages to `f` as one run; how many (0 if none is ready).
    #[inline(always)]
    fn pop_run(&mut self, max: usize, f: &mut impl FnMut(&[M])) -> usize {
        let run = &mut self.run;
        run.clear();
        let n = self.end.pop_each(max, read::<M>, &mut |m| run.push(m));
        if n > 0 {
            f(run);
            run.clear();
        }
        n
    }
}

impl<M: Message> Receiver<M> for ShmRx<M> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        let (mut round, mut slept) = (0, false);
        loop {
            if let Some(m) = self.end.try_pop(read::<M>) {
                return Some(m);
            }
            // Whatever the producer published before it left is still read.
            if self.end.producer_gone(slept) {
                return self.end.try_pop(read::<M>);
            }
            self.failed += 1;
            slept = self.end.pause(&mut round);
        }
    }

    #[inline(always)]
    fn recv_batch<F: FnMut(M)>(&mut self, max: usize, mut f: F) -> usize {
        let (mut round, mut slept) = (0, false);
        loop {
            let n = self.end.pop_each(max, read::<M>, &mut f);
            if n > 0 {
                return n;
            }
            if self.end.producer_gone(slept) {
                return self.end.pop_each(max, read::<M>, &mut f);
            }
            self.failed += 1;
            slept = self.end.pause(&mut round);
        }
    }

    #[inline(always)]
    fn recv_runs<F: FnMut(&[M])>(&mut self, max: usize, mut f: F) -> usize {
        let (mut round, mut slept) = (0, false);
        loop {
            let n = self.pop_run(max, &mut f);
            if n > 0 {
                return n;
            }
            if self.end.producer_gone(slept) {
                return self.pop_run(max, &mut f);
            }
            self.failed += 1;
            slept = self.end.pause(&mut round);
        }
    }

    fn failed_attempts(&self) -> u64 {
        self.failed
    }
}

/// Registers `shm-ring`.
pub(crate) fn register(c: &mut Catalog) {
    c.register(Entry::cross_process(ShmRing));
}

#[cfg(test)]
mod tests {
    /// The ring's spin yields as often as every spinning transport of the catalog.
    #[test]
    fn the_ring_spins_as_the_catalog_does() {
        assert_eq!(
            handoff_shm::SPINS_BEFORE_YIELD,
            handoff::adapter::SPINS_BEFORE_YIELD
        );
    }
}
