//! The verifier: exactly-once, declared order and body integrity, checked on the consumer side.
//!
//! Cost is O(1) per message with no allocation: all state (per-producer counters and, where
//! needed, a bitmap of one bit per message) is allocated when the verifier is created, outside
//! the timed region. Three modes, chosen from the transport's declared ordering and the number of
//! consumers:
//!
//! | mode        | when                              | per-message check                              |
//! |-------------|-----------------------------------|------------------------------------------------|
//! | contiguous  | FIFO, one consumer                | `seq == next[p]`, then `next[p] += 1`          |
//! | increasing  | FIFO, several consumers           | `seq > last[p]` and bit `(p, seq)` not yet set |
//! | set         | unordered                         | bit `(p, seq)` not yet set (an inversion is allowed; it changes the digest) |
//! | latest      | conflating (`latest`), one consumer | `seq > last[p]`; at the end `last[p]` is the final seq |
//!
//! Every mode names a message delivered twice as such (`producer 0: seq 8376 delivered twice`),
//! and keeps *order violation* for a message that arrives out of order for the first time. In
//! contiguous mode a sequence number below `next[p]` has necessarily been delivered already,
//! so it is reported as a duplicate; one above is an order violation (a message skipped or
//! overtaken), reported as `producer 3: expected seq 1041, got 1043`. In increasing mode the
//! bitmap tells a message seen before (a duplicate) from one that comes after a later one (an
//! order violation); in set mode only the first is a fault; in latest mode a value equal to the
//! newest delivered is a duplicate, and an older one is stale. Missing messages are found
//! at the end of the stream ([`Verifier::finish`], `merge`).
//!
//! A transport that does not promise exactly-once delivery ([`Delivery`]) is checked with the
//! bitmap, whatever its order ([`Verifier::delivering`]): an at-least-once transport may deliver
//! a message again, and each redelivery is counted (`redelivered`) instead of failing, and left
//! out of the count and the digest; an at-most-once transport may lose messages, and what never
//! arrived is counted (`lost`) instead of failing. Neither may do the other: an at-least-once
//! loss and an at-most-once duplicate fail as they would for any transport.
//!
//! Global FIFO cannot be observed without a global clock; for transports declaring it the
//! verifier checks per-producer FIFO, which global FIFO implies.
//!
//! In latest mode values may be skipped, so nothing is reported missing at the end, except that
//! with a single producer its final value must have been seen (a latest-value channel always
//! shows its newest value before it reports the end).
//!
//! The digest is the wrapping sum of every delivered message's key, plus one term for each message
//! that reached its consumer after a later message of its own producer (an *inversion*): the
//! term mixes the message's key with the sequence number its producer had reached. So the digest
//! says what was delivered and whether each producer's order survived, and not how producers
//! interleaved (which differs from run to run of any correct transport): two transports that
//! delivered the same messages intact, each producer's in its order, show the same digest.
//!
//! Only set mode (a transport that promises no order) can pass with an inversion; in the other
//! modes an inversion is a violation, so their digest needs no term, and their common path stays
//! a sum. The digest is what [`crate::consensus`] compares between transports: an unordered
//! transport that reorders passes its own verification but does not deliver the stream a FIFO
//! transport delivers, and consensus says so.

use crate::consecutive;
use crate::message::{self, Message, MAX_SEQ, NO_HEADER};
use crate::outcome::{Violation, ViolationKind};
use crate::semantics::{Delivery, Ordering};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Contiguous,
    Increasing,
    Set,
    Latest,
}

/// One consumer's verifier.
#[derive(Clone, Debug)]
pub struct Verifier {
    mode: Mode,
    producers: u32,
    /// The longest producer's stream: the stride of `seen`, one row per producer.
    per_producer: u64,
    /// Each producer's stream length (all `per_producer` unless built with
    /// [`Verifier::with_lengths`]).
    lens: Vec<u64>,
    /// Contiguous: next expected seq. Increasing: last seen seq + 1 (0 = none yet).
    next: Vec<u64>,
    /// One bit per (producer, seq), in increasing and set modes.
    seen: Vec<u64>,
    count: u64,
    digest: u64,
    /// The inversion terms of the digest (set mode; see the module docs).
    order: u64,
    violation: Option<Violation>,
    /// What the transport promises about duplicates and losses.
    delivery: Delivery,
    /// Messages delivered again (at-least-once), and the sum of their digest terms: both are
    /// taken out of the count and the digest when the stream ends.
    redelivered: u64,
    redelivered_keys: u64,
    /// The packed header ([`message::header`]) the next message must carry to take the common
    /// path, which checks it with one comparison.
    ///
    /// Contiguous mode: the producer seen last and its next sequence number; that producer's
    /// entry of `next` is stale until [`Verifier::sync`] writes it back. It starts at producer 0,
    /// whose first expected message is seq 0. The common path does not compare against
    /// `per_producer`: a run past the end of a stream is caught by `sync`, which every producer
    /// switch and the end of the stream call.
    ///
    /// Other modes: [`NO_HEADER`], which only an out-of-range message carries; if one takes the
    /// common path anyway, `expect` moves off `NO_HEADER` and `sync` reports it.
    expect: u64,
}

/// What a verifier concluded.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Verdict {
    /// Messages delivered.
    pub count: u64,
    /// Sum of delivered keys, plus a term per inversion (see the module docs).
    pub digest: u64,
    /// The first violation, if any.
    pub violation: Option<Violation>,
    /// Messages an at-least-once transport delivered again (not in `count`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub redelivered: u64,
    /// Messages an at-most-once transport never delivered.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Verifier {
    /// A verifier for `producers` streams of `per_producer` messages each, delivered with
    /// `ordering` to `consumers` consumers (this verifier sees one consumer's share).
    pub fn new(
        producers: usize,
        per_producer: u64,
        ordering: Ordering,
        consumers: usize,
    ) -> Verifier {
        Verifier::with_lengths(&vec![per_producer; producers], ordering, consumers)
    }

    /// A verifier for one stream per entry of `lens`, of that many messages each (producers
    /// whose streams differ in length: a pipeline's injectors and an event source merging into
    /// a middle hop at its own rate), delivered with `ordering` to `consumers` consumers.
    pub fn with_lengths(lens: &[u64], ordering: Ordering, consumers: usize) -> Verifier {
        let producers = lens.len();
        let per_producer = lens.iter().copied().max().unwrap_or(0);
        let mode = match (ordering.is_fifo(), consumers) {
            _ if ordering.is_conflating() => Mode::Latest,
            (true, 1) => Mode::Contiguous,
            (true, _) => Mode::Increasing,
            (false, _) => Mode::Set,
        };
        debug_assert!(per_producer <= MAX_SEQ, "sequence numbers are 48 bits");
        let bits = if matches!(mode, Mode::Contiguous | Mode::Latest) {
            0
        } else {
            producers as u64 * per_producer
        };
        Verifier {
            mode,
            producers: producers as u32,
            per_producer,
            lens: lens.to_vec(),
            next: vec![0; producers],
            seen: vec![0; bits.div_ceil(64) as usize],
            count: 0,
            digest: 0,
            order: 0,
            violation: None,
            delivery: Delivery::ExactlyOnce,
            redelivered: 0,
            redelivered_keys: 0,
            expect: if mode == Mode::Contiguous {
                message::header(0, 0)
            } else {
                NO_HEADER
            },
        }
    }

    /// This verifier for a transport that delivers as `delivery` promises (see the module
    /// docs). A transport that does not promise exactly-once delivery is checked with the bitmap
    /// of what was seen: one bit per message, allocated here, outside the timed region.
    pub fn delivering(mut self, delivery: Delivery) -> Verifier {
        self.delivery = delivery;
        if delivery != Delivery::ExactlyOnce && self.mode == Mode::Contiguous {
            self.mode = Mode::Increasing;
            self.expect = NO_HEADER;
            let bits = self.producers as u64 * self.per_producer;
            self.seen = vec![0; bits.div_ceil(64) as usize];
        }
        self
    }

    /// The length of producer `p`'s stream (0 for a producer that does not exist).
    #[inline]
    fn len_of(&self, p: u32) -> u64 {
        self.lens.get(p as usize).copied().unwrap_or(0)
    }

    /// Checks one delivered message.
    ///
    /// For a consumer loop, [`Verifier::stream`] is faster: it keeps the hot state in registers.
    #[inline]
    pub fn observe<M: Message>(&mut self, msg: &M) {
        let mut s = self.stream();
        s.observe(msg);
    }

    /// A view for a consumer loop that keeps the verifier's hot state in locals (registers):
    /// count, digest and the header expected next. The common case (in contiguous mode, the next
    /// message of the producer seen last) then costs one comparison and a few register
    /// operations, with no memory dependency from one message to the next. Dropping the view
    /// writes back.
    #[inline]
    pub fn stream(&mut self) -> Stream<'_> {
        Stream {
            count: self.count,
            digest: self.digest,
            expect: self.expect,
            v: self,
        }
    }

    /// Brings the table up to date with `expect` (which stays as it is), and reports what the
    /// common path accepted without checking: a stream run past its last sequence number
    /// (contiguous mode), or an out-of-range message (other modes).
    #[inline]
    fn sync(&mut self) {
        if self.mode == Mode::Contiguous {
            let p = (self.expect >> 48) as u32;
            let next = self.expect & MAX_SEQ;
            self.next[p as usize] = next;
            if next > self.len_of(p) {
                // Messages len..next were delivered in order: the first is unknown.
                let first = self.len_of(p);
                self.violate(ViolationKind::Unknown, p, first, first);
            }
        } else if self.expect != NO_HEADER {
            self.expect = NO_HEADER;
            self.violate(
                ViolationKind::Unknown,
                u16::MAX as u32,
                self.per_producer,
                MAX_SEQ,
            );
        }
    }

    #[cold]
    #[inline(never)]
    fn corrupt(&mut self, p: u32, seq: u64) {
        self.violate(ViolationKind::Corrupt, p, seq, seq);
    }

    #[inline(never)]
    fn observe_slow(&mut self, p: u32, seq: u64, key: u64) {
        self.sync();
        if p >= self.producers || seq >= self.len_of(p) {
            return self.violate(ViolationKind::Unknown, p, self.len_of(p), seq);
        }
        let expected = self.next[p as usize];
        match self.mode {
            Mode::Contiguous => {
                if seq == expected {
                    self.next[p as usize] = expected + 1;
                } else {
                    // Keep following the stream so one skip is reported once, not forever.
                    self.next[p as usize] = expected.max(seq + 1);
                    let kind = if seq < expected {
                        ViolationKind::Duplicate
                    } else {
                        ViolationKind::Order
                    };
                    self.violate(kind, p, expected, seq);
                }
                self.expect = message::header(p, self.next[p as usize]);
            }
            Mode::Increasing | Mode::Set
                if self.delivery == Delivery::AtLeastOnce && self.was_seen(p, seq) =>
            {
                // A redelivery: allowed, counted, and taken out of the count and digest.
                self.redelivered += 1;
                self.redelivered_keys = self.redelivered_keys.wrapping_add(key);
            }
            Mode::Increasing => {
                // A message seen before is a duplicate, whatever its place; only a new one
                // below the last seen is out of order.
                if self.was_seen(p, seq) {
                    self.violate(ViolationKind::Duplicate, p, seq, seq);
                } else if seq < expected {
                    self.violate(ViolationKind::Order, p, expected, seq);
                }
                self.next[p as usize] = expected.max(seq + 1);
                self.mark(p, seq);
            }
            Mode::Set => {
                // No order is promised, so an inversion is no violation; it changes the digest.
                if seq < expected {
                    self.order = self
                        .order
                        .wrapping_add(message::mix(message::key(p, seq) ^ expected));
                }
                self.next[p as usize] = expected.max(seq + 1);
                self.mark(p, seq);
            }
            Mode::Latest => {
                if seq < expected {
                    let kind = if seq + 1 == expected {
                        ViolationKind::Duplicate
                    } else {
                        ViolationKind::Stale
                    };
                    self.violate(kind, p, expected, seq);
                }
                self.next[p as usize] = expected.max(seq + 1);
            }
        }
    }

    /// Whether message `seq` of producer `p` was delivered before (increasing and set modes).
    #[inline(always)]
    fn was_seen(&self, p: u32, seq: u64) -> bool {
        let bit = p as u64 * self.per_producer + seq;
        self.seen[(bit / 64) as usize] & (1u64 << (bit % 64)) != 0
    }

    #[inline(always)]
    fn mark(&mut self, p: u32, seq: u64) {
        let bit = p as u64 * self.per_producer + seq;
        let idx = (bit / 64) as usize;
        let mask = 1u64 << (bit % 64);
        let word = self.seen[idx];
        if word & mask != 0 {
            self.violate(ViolationKind::Duplicate, p, seq, seq);
        }
        self.seen[idx] = word | mask;
    }

    #[cold]
    #[inline(never)]
    fn violate(&mut self, kind: ViolationKind, producer: u32, expected: u64, got: u64) {
        if self.violation.is_none() {
            self.violation = Some(Violation {
                kind,
                producer,
                expected,
                got,
                consumer: None,
            });
        }
    }

    /// Messages seen so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Records that the stream ended early because the transport refused a send (every consumer
    /// gone) — a fault unless a violation was already found.
    pub(crate) fn note_disconnect(&mut self, producer: u32, sent: u64) {
        self.violate(
            ViolationKind::Disconnected,
            producer,
            self.len_of(producer),
            sent,
        );
    }

    /// Records that the transport overwrote `lost` messages before this consumer received them
    /// (a lagging broadcast receiver): a fault unless a violation was already found. The
    /// violation names the first producer whose stream is incomplete and the sequence number
    /// this consumer was waiting for.
    pub(crate) fn note_lagged(&mut self, lost: u64) {
        self.sync();
        let p = (0..self.producers)
            .find(|&p| self.next[p as usize] < self.len_of(p))
            .unwrap_or(0);
        let waiting = self.next.get(p as usize).copied().unwrap_or(0);
        self.violate(ViolationKind::Lagged, p, waiting, lost);
    }

    /// Ends the stream of a single consumer: anything not delivered is reported missing.
    pub fn finish(self) -> Verdict {
        merge(vec![self])
    }
}

/// A consumer loop's view of a [`Verifier`] (see [`Verifier::stream`]).
pub struct Stream<'a> {
    count: u64,
    digest: u64,
    expect: u64,
    v: &'a mut Verifier,
}

impl Stream<'_> {
    /// Checks one delivered message.
    #[inline(always)]
    pub fn observe<M: Message>(&mut self, msg: &M) {
        self.count += 1;
        let key = match msg.check() {
            Some(k) => k,
            None => return self.v.corrupt(msg.producer(), msg.seq()),
        };
        self.digest = self.digest.wrapping_add(key);
        let h = msg.header();
        if h == self.expect {
            self.expect = h.wrapping_add(1);
        } else {
            // Values in and out, never `&mut self`: a pointer to this view must not escape, or
            // its fields could not stay in registers.
            self.expect = slow(self.v, self.expect, msg.producer(), msg.seq(), key);
        }
    }

    /// Checks a run of delivered messages, oldest first.
    ///
    /// The common case (every body intact, the headers consecutive from the one expected) is
    /// checked over the whole run with no branch per message, so the compiler can check several
    /// messages per instruction; a run that fails it is checked again one message at a time,
    /// which reports exactly what [`observe`](Stream::observe) would have.
    #[inline(always)]
    pub fn observe_run<M: Message>(&mut self, run: &[M]) {
        // The digest of the run if it is clean, `None` if it needs a second look.
        let clean = match M::headers_only(run) {
            // Nothing but headers: the check is one vectorized pass over the words, and the
            // digest of a run that passes it (the sum of its headers) needs no adding up.
            Some(words) => (consecutive::deviation(words, self.expect) == 0)
                .then(|| consecutive::sum(self.expect, words.len() as u64)),
            None => {
                let mut intact = true;
                let mut digest = 0u64;
                let mut off = 0u64;
                for (i, m) in run.iter().enumerate() {
                    let key = m.check();
                    intact &= key.is_some();
                    digest = digest.wrapping_add(key.unwrap_or(0));
                    off |= m.header() ^ self.expect.wrapping_add(i as u64);
                }
                (intact && off == 0).then_some(digest)
            }
        };
        if let Some(digest) = clean {
            let n = run.len() as u64;
            self.count += n;
            self.digest = self.digest.wrapping_add(digest);
            self.expect = self.expect.wrapping_add(n);
        } else {
            for m in run {
                self.observe(m);
            }
        }
    }

    /// Messages seen so far.
    #[inline(always)]
    pub fn count(&self) -> u64 {
        self.count
    }
}

#[inline(never)]
fn slow(v: &mut Verifier, expect: u64, p: u32, seq: u64, key: u64) -> u64 {
    v.expect = expect;
    v.observe_slow(p, seq, key);
    v.expect
}

impl Drop for Stream<'_> {
    #[inline]
    fn drop(&mut self) {
        self.v.count = self.count;
        self.v.digest = self.digest;
        self.v.expect = self.expect;
    }
}

/// Ends the stream seen by several consumers together: checks that no message was delivered to
/// two of them and that none is missing. The first violation any of them saw wins.
pub(crate) fn merge(verifiers: Vec<Verifier>) -> Verdict {
    let mut count = 0u64;
    let mut digest = 0u64;
    let mut violation: Option<Violation> = None;
    let mut iter = verifiers.into_iter().map(|mut v| {
        v.sync();
        v
    });
    let Some(mut first) = iter.next() else {
        return Verdict {
            count: 0,
            digest: 0,
            violation: None,
            redelivered: 0,
            lost: 0,
        };
    };
    let mut redelivered = 0u64;
    // What each consumer adds: its messages and its digest, each redelivery taken out (so
    // consensus compares the stream, not how often the broker repeated it).
    let mut add = |v: &Verifier| {
        count += v.count - v.redelivered;
        redelivered += v.redelivered;
        digest = digest
            .wrapping_add(v.digest)
            .wrapping_add(v.order)
            .wrapping_sub(v.redelivered_keys);
    };
    add(&first);
    violation = violation.or(first.violation.take());
    for v in iter {
        add(&v);
        violation = violation.or(v.violation.clone());
        for (i, (a, b)) in first.seen.iter_mut().zip(&v.seen).enumerate() {
            let both = *a & *b;
            if both != 0 && violation.is_none() {
                let bit = i as u64 * 64 + both.trailing_zeros() as u64;
                let (p, seq) = ((bit / first.per_producer) as u32, bit % first.per_producer);
                violation = Some(Violation {
                    kind: ViolationKind::Duplicate,
                    producer: p,
                    expected: seq,
                    got: seq,
                    consumer: None,
                });
            }
            *a |= *b;
        }
    }
    let mut lost = 0;
    if first.delivery == Delivery::AtMostOnce && first.mode != Mode::Latest {
        // Losses are allowed: counted, not failed.
        lost = count_missing(&first);
    } else if violation.is_none() {
        violation = first_missing(&first);
    }
    Verdict {
        count,
        digest,
        violation,
        redelivered,
        lost,
    }
}

/// Messages never seen, over every producer's stream (bitmap modes).
fn count_missing(v: &Verifier) -> u64 {
    (0..v.producers)
        .map(|p| {
            (0..v.len_of(p))
                .filter(|seq| {
                    let bit = p as u64 * v.per_producer + seq;
                    v.seen[(bit / 64) as usize] & (1 << (bit % 64)) == 0
                })
                .count() as u64
        })
        .sum()
}

fn first_missing(v: &Verifier) -> Option<Violation> {
    if v.mode == Mode::Latest {
        // Skipped values are the point of conflation; only the final one must arrive.
        return (0..v.producers)
            .find(|&p| v.next[p as usize] < v.len_of(p))
            .map(|p| Violation {
                kind: ViolationKind::FinalMissing,
                producer: p,
                expected: v.len_of(p) - 1,
                got: v.next[p as usize],
                consumer: None,
            });
    }
    for p in 0..v.producers {
        let len = v.len_of(p);
        let missing_from = if v.mode == Mode::Contiguous {
            let next = v.next[p as usize];
            (next < len).then_some(next)
        } else {
            (0..len).find(|seq| {
                let bit = p as u64 * v.per_producer + seq;
                v.seen[(bit / 64) as usize] & (1 << (bit % 64)) == 0
            })
        };
        if let Some(seq) = missing_from {
            let missing = if v.mode == Mode::Contiguous {
                len - seq
            } else {
                (seq..len)
                    .filter(|s| {
                        let bit = p as u64 * v.per_producer + s;
                        v.seen[(bit / 64) as usize] & (1 << (bit % 64)) == 0
                    })
                    .count() as u64
            };
            return Some(Violation {
                kind: ViolationKind::Missing,
                producer: p,
                expected: seq,
                got: missing,
                consumer: None,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::Word;

    fn feed(v: &mut Verifier, msgs: &[(u32, u64)]) {
        for &(p, s) in msgs {
            v.observe(&Word::build(p, s));
        }
    }

    #[test]
    fn at_least_once_counts_redeliveries_and_keeps_count_and_digest() {
        // A consumer that fell back to its last commit: 3..6 come again after 7.
        let order: Vec<(u32, u64)> = (0..8).chain(3..6).chain(8..10).map(|s| (0, s)).collect();
        let mut v = Verifier::new(1, 10, Ordering::GlobalFifo, 1).delivering(Delivery::AtLeastOnce);
        feed(&mut v, &order);
        let d = v.finish();
        let mut clean = Verifier::new(1, 10, Ordering::GlobalFifo, 1);
        feed(&mut clean, &(0..10).map(|s| (0, s)).collect::<Vec<_>>());
        let c = clean.finish();
        assert_eq!(
            (d.count, d.redelivered, d.lost, d.violation),
            (10, 3, 0, None)
        );
        assert_eq!(d.digest, c.digest, "redeliveries leave the digest alone");

        // A loss still fails an at-least-once transport, and so does a new message out of order.
        let mut v = Verifier::new(1, 10, Ordering::GlobalFifo, 1).delivering(Delivery::AtLeastOnce);
        feed(&mut v, &(0..9).map(|s| (0, s)).collect::<Vec<_>>());
        assert_eq!(v.finish().violation.unwrap().kind, ViolationKind::Missing);
        let mut v = Verifier::new(1, 10, Ordering::GlobalFifo, 1).delivering(Delivery::AtLeastOnce);
        feed(&mut v, &[(0, 0), (0, 2), (0, 1)]);
        assert_eq!(v.finish().violation.unwrap().kind, ViolationKind::Order);
    }

    #[test]
    fn at_most_once_counts_losses_but_fails_a_duplicate() {
        let mut v =
            Verifier::new(2, 10, Ordering::PerProducerFifo, 1).delivering(Delivery::AtMostOnce);
        let order: Vec<(u32, u64)> = (0..10)
            .filter(|s| s % 4 != 1)
            .flat_map(|s| [(0, s), (1, s)])
            .collect();
        feed(&mut v, &order);
        let d = v.finish();
        assert_eq!(
            (d.count, d.lost, d.redelivered, d.violation),
            (14, 6, 0, None)
        );

        let mut v = Verifier::new(1, 10, Ordering::GlobalFifo, 1).delivering(Delivery::AtMostOnce);
        feed(&mut v, &[(0, 0), (0, 1), (0, 1)]);
        assert_eq!(v.finish().violation.unwrap().kind, ViolationKind::Duplicate);
    }

    #[test]
    fn latest_mode_allows_skips_but_not_stale_values_or_a_lost_final() {
        let mut v = Verifier::new(1, 10, Ordering::Latest, 1);
        feed(&mut v, &[(0, 0), (0, 3), (0, 7), (0, 9)]);
        let d = v.finish();
        assert_eq!((d.count, d.violation), (4, None));

        let mut v = Verifier::new(1, 10, Ordering::Latest, 1);
        feed(&mut v, &[(0, 2), (0, 5), (0, 4), (0, 9)]);
        let bad = v.finish().violation.unwrap();
        assert_eq!(bad.kind, ViolationKind::Stale);
        assert_eq!(
            bad.to_string(),
            "producer 0: stale value seq 4 delivered after seq 5"
        );

        let mut v = Verifier::new(1, 10, Ordering::Latest, 1);
        feed(&mut v, &[(0, 2), (0, 8)]);
        let bad = v.finish().violation.unwrap();
        assert_eq!(bad.kind, ViolationKind::FinalMissing);
        assert_eq!(
            bad.to_string(),
            "producer 0: final value seq 9 never delivered (newest delivered: 8)"
        );
    }

    /// Streams of different lengths (injectors and a slower merge source): each is checked
    /// against its own length, in every mode, and the digest is that of the same streams fed to
    /// one verifier of equal lengths.
    #[test]
    fn streams_of_different_lengths_are_each_checked_against_their_own() {
        let whole: Vec<(u32, u64)> = vec![(0, 0), (1, 0), (0, 1), (0, 2), (1, 1), (0, 3)];
        for (ordering, consumers) in [
            (Ordering::PerProducerFifo, 1),
            (Ordering::PerProducerFifo, 2),
            (Ordering::None, 1),
        ] {
            let mut v = Verifier::with_lengths(&[4, 2], ordering, consumers);
            feed(&mut v, &whole);
            let d = v.finish();
            assert_eq!(
                (d.count, d.violation),
                (6, None),
                "{ordering:?}/{consumers}"
            );

            // The short stream's last message missing: named with its own length.
            let mut v = Verifier::with_lengths(&[4, 2], ordering, consumers);
            feed(&mut v, &[whole[0], whole[1], whole[2], whole[3], whole[5]]);
            let bad = v.finish().violation.unwrap();
            assert_eq!(
                (bad.kind, bad.producer, bad.expected, bad.got),
                (ViolationKind::Missing, 1, 1, 1),
                "{ordering:?}/{consumers}"
            );

            // A message past the short stream's end is unknown, though the long one has it.
            let mut v = Verifier::with_lengths(&[4, 2], ordering, consumers);
            feed(&mut v, &[(1, 0), (1, 1), (1, 2)]);
            let bad = v.finish().violation.unwrap();
            assert_eq!(
                (bad.kind, bad.producer),
                (ViolationKind::Unknown, 1),
                "{ordering:?}/{consumers}"
            );
        }
    }

    #[test]
    fn clean_stream_passes_with_digest() {
        let mut v = Verifier::new(2, 3, Ordering::PerProducerFifo, 1);
        feed(&mut v, &[(0, 0), (1, 0), (0, 1), (1, 1), (1, 2), (0, 2)]);
        let r = v.finish();
        assert_eq!(r.violation, None);
        assert_eq!(r.count, 6);
        // Another interleaving of the producers, each in its order: the same stream.
        let mut u = Verifier::new(2, 3, Ordering::None, 1);
        feed(&mut u, &[(1, 0), (1, 1), (0, 0), (1, 2), (0, 1), (0, 2)]);
        assert_eq!(
            u.finish().digest,
            r.digest,
            "interleaving is not in the digest"
        );
    }

    #[test]
    fn an_unordered_stream_that_reorders_passes_with_another_digest() {
        let in_order = |ordering| {
            let mut v = Verifier::new(2, 3, ordering, 1);
            feed(&mut v, &[(0, 0), (1, 0), (0, 1), (1, 1), (1, 2), (0, 2)]);
            v.finish()
        };
        let fifo = in_order(Ordering::PerProducerFifo);
        assert_eq!(in_order(Ordering::None), fifo);
        // Producer 1's seq 2 overtakes its seq 1: every message once and intact, no order
        // promised, so no violation; but not the stream a FIFO transport delivers.
        let mut v = Verifier::new(2, 3, Ordering::None, 1);
        feed(&mut v, &[(0, 0), (1, 0), (0, 1), (1, 2), (1, 1), (0, 2)]);
        let swapped = v.finish();
        assert_eq!((swapped.count, swapped.violation), (6, None));
        assert_ne!(swapped.digest, fifo.digest);
        // Another swap gives another digest again.
        let mut v = Verifier::new(2, 3, Ordering::None, 1);
        feed(&mut v, &[(0, 1), (0, 0), (1, 0), (1, 1), (1, 2), (0, 2)]);
        let other = v.finish();
        assert_eq!(other.violation, None);
        assert_ne!(other.digest, fifo.digest);
        assert_ne!(other.digest, swapped.digest);
        // With several consumers the inversions of each consumer count.
        let mut a = Verifier::new(1, 4, Ordering::None, 2);
        let mut b = Verifier::new(1, 4, Ordering::None, 2);
        feed(&mut a, &[(0, 2), (0, 0)]);
        feed(&mut b, &[(0, 1), (0, 3)]);
        let split = merge(vec![a, b]);
        assert_eq!(split.violation, None);
        let mut a = Verifier::new(1, 4, Ordering::None, 2);
        let mut b = Verifier::new(1, 4, Ordering::None, 2);
        feed(&mut a, &[(0, 0), (0, 2)]);
        feed(&mut b, &[(0, 1), (0, 3)]);
        assert_ne!(merge(vec![a, b]).digest, split.digest);
    }

    #[test]
    fn skip_is_an_order_violation_with_the_expected_seq() {
        let mut v = Verifier::new(4, 2000, Ordering::PerProducerFifo, 1);
        for s in 0..1041 {
            v.observe(&Word::build(3, s));
        }
        v.observe(&Word::build(3, 1043));
        let r = v.finish();
        let viol = r.violation.unwrap();
        assert_eq!(viol.to_string(), "producer 3: expected seq 1041, got 1043");
    }

    #[test]
    fn duplicate_and_missing_are_found() {
        let mut v = Verifier::new(1, 4, Ordering::PerProducerFifo, 1);
        feed(&mut v, &[(0, 0), (0, 1), (0, 1)]);
        assert_eq!(v.finish().violation.unwrap().kind, ViolationKind::Duplicate);

        let mut v = Verifier::new(1, 4, Ordering::PerProducerFifo, 1);
        feed(&mut v, &[(0, 0), (0, 1)]);
        let viol = v.finish().violation.unwrap();
        assert_eq!(
            (viol.kind, viol.expected, viol.got),
            (ViolationKind::Missing, 2, 2)
        );

        let mut v = Verifier::new(1, 4, Ordering::None, 1);
        feed(&mut v, &[(0, 3), (0, 0), (0, 3)]);
        assert_eq!(v.finish().violation.unwrap().kind, ViolationKind::Duplicate);
    }

    #[test]
    fn duplicates_across_consumers_are_found_at_merge() {
        let mut a = Verifier::new(1, 4, Ordering::PerProducerFifo, 2);
        let mut b = Verifier::new(1, 4, Ordering::PerProducerFifo, 2);
        feed(&mut a, &[(0, 0), (0, 2), (0, 3)]);
        feed(&mut b, &[(0, 1), (0, 2)]);
        let viol = merge(vec![a, b]).violation.unwrap();
        assert_eq!((viol.kind, viol.got), (ViolationKind::Duplicate, 2));
    }

    /// The first violation of `msgs` fed to one verifier of `consumers` with `ordering`.
    fn first(ordering: Ordering, consumers: usize, msgs: &[(u32, u64)]) -> Option<Violation> {
        let mut v = Verifier::new(2, 10_000, ordering, consumers);
        feed(&mut v, msgs);
        v.violation.clone()
    }

    #[test]
    fn a_duplicate_is_named_as_such_in_every_mode() {
        let twice = |v: Option<Violation>| {
            let v = v.expect("a violation");
            assert_eq!(v.kind, ViolationKind::Duplicate, "{v}");
            v.to_string()
        };
        let run: Vec<(u32, u64)> = (8370..=8376).map(|s| (0, s)).collect();
        let again = |extra: &[(u32, u64)]| [run.as_slice(), extra].concat();
        for (ordering, consumers, mode) in [
            (Ordering::PerProducerFifo, 1, "contiguous"),
            (Ordering::PerProducerFifo, 2, "increasing"),
            (Ordering::GlobalFifo, 3, "increasing"),
            (Ordering::None, 1, "set"),
            (Ordering::None, 2, "set"),
            (Ordering::Latest, 1, "latest"),
        ] {
            // The message just delivered, delivered again: once reported as `expected seq
            // 8377, got 8376` with several consumers.
            let msgs = again(&[(0, 8376)]);
            let got = if mode == "contiguous" || mode == "latest" {
                // These modes start at seq 0: give them the whole stream up to 8376.
                let whole: Vec<(u32, u64)> =
                    (0..=8376).map(|s| (0, s)).chain([(0, 8376)]).collect();
                first(ordering, consumers, &whole)
            } else {
                first(ordering, consumers, &msgs)
            };
            assert_eq!(
                twice(got),
                "producer 0: seq 8376 delivered twice",
                "{mode} ({ordering:?}, {consumers} consumers)"
            );
        }
        // An older message delivered again, after later ones: still a duplicate where the
        // verifier can tell (a bitmap, or a count that has passed it).
        for (ordering, consumers) in [
            (Ordering::PerProducerFifo, 1),
            (Ordering::PerProducerFifo, 2),
            (Ordering::None, 1),
        ] {
            let msgs: Vec<(u32, u64)> = (0..=20).map(|s| (1, s)).chain([(1, 3)]).collect();
            assert_eq!(
                twice(first(ordering, consumers, &msgs)),
                "producer 1: seq 3 delivered twice",
                "{ordering:?}, {consumers} consumers"
            );
        }
    }

    #[test]
    fn a_reordering_is_still_an_order_violation() {
        // One consumer, FIFO: a message skipped ahead.
        let v = first(Ordering::PerProducerFifo, 1, &[(0, 0), (0, 2), (0, 1)]).unwrap();
        assert_eq!(
            (v.kind, v.to_string().as_str()),
            (ViolationKind::Order, "producer 0: expected seq 1, got 2")
        );
        // Several consumers, FIFO: a message that arrives after a later one, for the first time.
        let v = first(Ordering::PerProducerFifo, 2, &[(0, 5), (0, 7), (0, 6)]).unwrap();
        assert_eq!(
            (v.kind, v.to_string().as_str()),
            (ViolationKind::Order, "producer 0: expected seq 8, got 6")
        );
        // No order promised: no violation (the digest records it).
        assert_eq!(first(Ordering::None, 1, &[(0, 5), (0, 7), (0, 6)]), None);
        // Conflating: an older value is stale, not a duplicate.
        let v = first(Ordering::Latest, 1, &[(0, 5), (0, 7), (0, 6)]).unwrap();
        assert_eq!(v.kind, ViolationKind::Stale);
    }

    #[test]
    fn reorder_within_one_consumer_of_several_is_found() {
        let mut a = Verifier::new(1, 4, Ordering::PerProducerFifo, 2);
        feed(&mut a, &[(0, 2), (0, 1)]);
        assert_eq!(a.finish().violation.unwrap().kind, ViolationKind::Order);
    }

    #[test]
    fn latest_mode_allows_skips_but_not_going_back() {
        let mut v = Verifier::new(1, 10, Ordering::Latest, 1);
        feed(&mut v, &[(0, 0), (0, 4), (0, 9)]);
        let r = v.finish();
        assert_eq!((r.violation, r.count), (None, 3));

        let mut v = Verifier::new(1, 10, Ordering::Latest, 1);
        feed(&mut v, &[(0, 4), (0, 2), (0, 9)]);
        assert_eq!(v.finish().violation.unwrap().kind, ViolationKind::Stale);

        let mut v = Verifier::new(1, 10, Ordering::Latest, 1);
        feed(&mut v, &[(0, 4), (0, 4), (0, 9)]);
        assert_eq!(v.finish().violation.unwrap().kind, ViolationKind::Duplicate);

        // The final value of a lone producer must be seen.
        let mut v = Verifier::new(1, 10, Ordering::Latest, 1);
        feed(&mut v, &[(0, 4)]);
        let viol = v.finish().violation.unwrap();
        assert_eq!((viol.kind, viol.expected), (ViolationKind::FinalMissing, 9));
    }

    /// The verdict of a stream observed one message at a time.
    fn one_by_one<M: Message>(msgs: &[M], ordering: Ordering) -> Verdict {
        let mut v = Verifier::new(2, 6, ordering, 1);
        {
            let mut s = v.stream();
            msgs.iter().for_each(|m| s.observe(m));
        }
        v.finish()
    }

    /// The verdict of the same stream observed in runs of `len`.
    fn in_runs<M: Message>(msgs: &[M], ordering: Ordering, len: usize) -> Verdict {
        let mut v = Verifier::new(2, 6, ordering, 1);
        {
            let mut s = v.stream();
            msgs.chunks(len).for_each(|run| s.observe_run(run));
        }
        v.finish()
    }

    #[test]
    fn runs_give_the_verdict_single_messages_give() {
        let streams: [&[(u32, u64)]; 7] = [
            &[(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5)],
            &[
                (0, 0),
                (1, 0),
                (1, 1),
                (0, 1),
                (1, 2),
                (0, 2),
                (0, 3),
                (1, 3),
            ],
            &[(0, 0), (0, 1), (0, 3), (0, 4), (0, 5)],
            &[(0, 0), (0, 1), (0, 2), (0, 2), (0, 3)],
            &[(1, 0), (1, 2), (1, 1), (1, 3)],
            &[
                (1, 0),
                (1, 1),
                (1, 2),
                (1, 3),
                (1, 4),
                (1, 5),
                (1, 6),
                (1, 7),
            ],
            &[(0, 0), (2, 0), (0, 1)],
        ];
        for ordering in [Ordering::PerProducerFifo, Ordering::None] {
            for stream in streams {
                let words: Vec<Word> = stream.iter().map(|&(p, s)| Word::build(p, s)).collect();
                let single = one_by_one(&words, ordering);
                for len in [1, 2, 3, 5, words.len()] {
                    assert_eq!(
                        in_runs(&words, ordering, len),
                        single,
                        "{ordering:?}, runs of {len}: {stream:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn long_runs_of_words_give_the_verdict_single_messages_give() {
        // Runs long enough for the vectorized check of `u64` words, with the fault deep inside
        // a run, past its first vector, and in the last, partial vector.
        const N: u64 = 300;
        let verdict = |words: &[Word], len: usize| {
            let mut v = Verifier::new(2, N, Ordering::PerProducerFifo, 1);
            {
                let mut s = v.stream();
                words.chunks(len).for_each(|run| s.observe_run(run));
            }
            v.finish()
        };
        let clean: Vec<Word> = (0..2)
            .flat_map(|p| (0..N).map(move |s| Word::build(p, s)))
            .collect();
        let mut faults: Vec<(&str, Vec<Word>)> = vec![("clean", clean.clone())];
        for at in [37, 250, 299, 301] {
            let mut skipped = clean.clone();
            skipped.remove(at);
            let mut duplicated = clean.clone();
            duplicated.insert(at, clean[at]);
            let mut swapped = clean.clone();
            // Across the producers' boundary (299, 300) a swap is a legal interleaving.
            swapped.swap(at, at + 2);
            let mut foreign = clean.clone();
            foreign[at] = Word::build(5, 3);
            faults.extend([
                ("skipped", skipped),
                ("duplicated", duplicated),
                ("swapped", swapped),
                ("foreign", foreign),
            ]);
        }
        for (what, words) in &faults {
            let single = verdict(words, 1);
            assert_eq!(single.violation.is_none(), *what == "clean", "{what}");
            for len in [7, 8, 9, 64, 256, words.len()] {
                assert_eq!(verdict(words, len), single, "{what}, runs of {len}");
            }
        }
    }

    #[test]
    fn a_corrupt_body_in_a_run_is_reported_as_alone() {
        use crate::payload::Report64;
        let mut msgs: Vec<Report64> = (0..6).map(|s| Report64::build(0, s)).collect();
        // SAFETY: `Report64` is `repr(C)`, 64 bytes of plain integers with no padding; byte 40
        // lies inside its body (after the header words), and any value is a valid integer.
        unsafe { *(&mut msgs[3] as *mut Report64).cast::<u8>().add(40) ^= 1 };
        let single = one_by_one(&msgs, Ordering::PerProducerFifo);
        assert_eq!(
            single.violation.as_ref().unwrap().kind,
            ViolationKind::Corrupt
        );
        for len in [1, 2, 4, 6] {
            assert_eq!(
                in_runs(&msgs, Ordering::PerProducerFifo, len),
                single,
                "runs of {len}"
            );
        }
    }

    #[test]
    fn a_stream_run_past_its_end_is_unknown() {
        // The common path does not compare with the stream's length; the end of the stream does.
        let mut v = Verifier::new(2, 3, Ordering::PerProducerFifo, 1);
        {
            let mut s = v.stream();
            for seq in 0..5 {
                s.observe(&Word::build(1, seq));
            }
        }
        let viol = v.finish().violation.unwrap();
        assert_eq!(
            (viol.kind, viol.producer, viol.got),
            (ViolationKind::Unknown, 1, 3)
        );

        // Also when another producer's message comes first.
        let mut v = Verifier::new(2, 3, Ordering::PerProducerFifo, 1);
        feed(&mut v, &[(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)]);
        let viol = v.finish().violation.unwrap();
        assert_eq!((viol.kind, viol.producer), (ViolationKind::Unknown, 0));
    }

    #[test]
    fn an_unpackable_header_is_unknown_in_every_mode() {
        for (ordering, consumers) in [
            (Ordering::PerProducerFifo, 1),
            (Ordering::PerProducerFifo, 2),
            (Ordering::None, 1),
            (Ordering::Latest, 1),
        ] {
            let mut v = Verifier::new(1, 4, ordering, consumers);
            v.observe(&Word::build(0, 0));
            // Producer 65535, seq MAX_SEQ: the one header the common path could mistake for
            // `NO_HEADER`.
            v.observe(&Word(u64::MAX));
            let viol = v.finish().violation.unwrap();
            assert_eq!(
                viol.kind,
                ViolationKind::Unknown,
                "{ordering:?}/{consumers}"
            );
        }
    }

    #[test]
    fn out_of_range_is_unknown() {
        let mut v = Verifier::new(1, 4, Ordering::PerProducerFifo, 1);
        feed(&mut v, &[(5, 0)]);
        assert_eq!(v.finish().violation.unwrap().kind, ViolationKind::Unknown);
    }
}
