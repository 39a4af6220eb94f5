//! Messages over a byte channel: each message crosses as its fixed-size wire form
//! ([`Message::WIRE_SIZE`]), so a reader needs no length prefix and the bytes are exactly what a
//! process on the other side would read.
//!
//! * [`WireTx`] writes one message with one `write` call, and a batch as one `write` of the
//!   whole run (cut into pieces of at most `chunk` bytes where the mechanism needs it: a pipe
//!   with several writers, a seqpacket socket's packet).
//! * [`WireRx`] reads whatever the kernel has (up to its buffer) with one `read`, then hands out
//!   whole messages from it; the stream ends at end of file (every writer closed). Bytes left
//!   over at the end, less than one message, mean the stream was cut: they are dropped and the
//!   verifier reports what is missing.
//!
//! A write or read interrupted by a signal is retried; any other I/O error ends the stream for
//! that side (a send returns its message, a receive returns `None`), which the verifier then
//! reports as what it is.

use handoff::message::Message;
use handoff::transport::{BuildError, Receiver, Sender};
use std::io::{ErrorKind, Read, Write};
use std::marker::PhantomData;

/// The wire size of `M`, or why a message of this payload cannot cross a byte channel.
pub(super) fn wire_size<M: Message>() -> Result<usize, BuildError> {
    M::WIRE_SIZE.ok_or_else(|| {
        BuildError::Unsupported(
            "the payload owns heap memory, which has no form outside this process".into(),
        )
    })
}

/// The producer side: a writer of wire blocks.
pub struct WireTx<W, M> {
    out: W,
    /// A batch's blocks, written with one call.
    buf: Vec<u8>,
    size: usize,
    /// The most bytes one `write` may carry (whole messages).
    chunk: usize,
    _m: PhantomData<fn(M)>,
}

impl<W: Write, M: Message> WireTx<W, M> {
    /// A sender writing to `out`, at most `chunk` bytes per write (at least one message).
    pub fn new(out: W, chunk: usize) -> Result<Self, BuildError> {
        let size = wire_size::<M>()?;
        let chunk = (chunk / size).max(1) * size;
        Ok(WireTx {
            out,
            buf: Vec::with_capacity(chunk),
            size,
            chunk,
            _m: PhantomData,
        })
    }

    /// Writes `buf` whole, retrying short writes and interruptions.
    fn flush_buf(&mut self) -> bool {
        let mut done = 0;
        while done < self.buf.len() {
            match self.out.write(&self.buf[done..]) {
                Ok(0) => return false,
                Ok(n) => done += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
        self.buf.clear();
        true
    }

    /// Appends `msg`'s wire block to the batch buffer, written straight into its spare room
    /// (no zero-filling first: a 4 KiB body would be written twice).
    #[inline(always)]
    fn encode(&mut self, msg: &M) {
        let at = self.buf.len();
        self.buf.reserve(self.size);
        // SAFETY: `size` is `M::WIRE_SIZE` (checked in `new`) and `reserve` gave room for
        // `size` more bytes at `at`; `write_wire` writes every one of the `WIRE_SIZE` bytes of
        // its block, so the new length covers written bytes only.
        unsafe {
            msg.write_wire(self.buf.as_mut_ptr().add(at));
            self.buf.set_len(at + self.size);
        }
    }
}

impl<W: Write + Send + 'static, M: Message> Sender<M> for WireTx<W, M> {
    #[inline(always)]
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.encode(&msg);
        if self.flush_buf() {
            Ok(())
        } else {
            self.buf.clear();
            Err(msg)
        }
    }

    #[inline(always)]
    fn send_batch<I: Iterator<Item = M>>(&mut self, msgs: &mut I) -> Result<(), M> {
        for m in msgs {
            self.encode(&m);
            if self.buf.len() >= self.chunk && !self.flush_buf() {
                self.buf.clear();
                return Err(m);
            }
        }
        if self.buf.is_empty() || self.flush_buf() {
            return Ok(());
        }
        // The consumer is gone: give back the run's last message, read from its block.
        // SAFETY: the buffer holds whole blocks of `size` bytes, at least one.
        let last = unsafe { M::read_wire(self.buf.as_ptr().add(self.buf.len() - self.size)) };
        self.buf.clear();
        Err(last)
    }
}

/// The consumer side: a reader of wire blocks.
pub struct WireRx<R, M> {
    input: R,
    buf: Box<[u8]>,
    /// Unread bytes are `buf[at..end]`.
    at: usize,
    end: usize,
    size: usize,
    _m: PhantomData<fn() -> M>,
}

impl<R: Read, M: Message> WireRx<R, M> {
    /// A receiver reading from `input` into a buffer of `buffer` bytes (at least one message;
    /// for a packet socket, at least the largest packet).
    pub fn new(input: R, buffer: usize) -> Result<Self, BuildError> {
        let size = wire_size::<M>()?;
        Ok(WireRx {
            input,
            buf: vec![0; buffer.max(size)].into_boxed_slice(),
            at: 0,
            end: 0,
            size,
            _m: PhantomData,
        })
    }

    /// Reads more bytes after those left; false at the end of the stream.
    fn fill(&mut self) -> bool {
        // Move a partial message to the front.
        self.buf.copy_within(self.at..self.end, 0);
        self.end -= self.at;
        self.at = 0;
        loop {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => return false,
                Ok(n) => {
                    self.end += n;
                    return true;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
    }

    /// The next message from the buffer, if a whole one is there.
    #[inline(always)]
    fn take(&mut self) -> Option<M> {
        if self.end - self.at < self.size {
            return None;
        }
        // SAFETY: `size` is `M::WIRE_SIZE` and `buf[at..at + size]` is in bounds (checked
        // above); any bytes give a value (`read_wire`'s contract).
        let m = unsafe { M::read_wire(self.buf.as_ptr().add(self.at)) };
        self.at += self.size;
        Some(m)
    }
}

impl<R: Read + Send + 'static, M: Message> Receiver<M> for WireRx<R, M> {
    #[inline(always)]
    fn recv(&mut self) -> Option<M> {
        loop {
            if let Some(m) = self.take() {
                return Some(m);
            }
            if !self.fill() {
                return None;
            }
        }
    }

    #[inline(always)]
    fn recv_batch<F: FnMut(M)>(&mut self, max: usize, mut f: F) -> usize {
        if self.end - self.at < self.size && !self.fill_whole() {
            return 0;
        }
        let mut n = 0;
        while n < max {
            match self.take() {
                Some(m) => {
                    f(m);
                    n += 1;
                }
                None => break,
            }
        }
        n
    }
}

impl<R: Read, M: Message> WireRx<R, M> {
    /// Reads until at least one whole message is buffered; false at the end of the stream.
    fn fill_whole(&mut self) -> bool {
        while self.end - self.at < self.size {
            if !self.fill() {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handoff::payload::{Report64, Word};

    /// A reader that hands out its bytes a few at a time, as a socket may.
    struct Dribble(Vec<u8>, usize);

    impl Read for Dribble {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(out.len()).min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0.drain(..n);
            Ok(n)
        }
    }

    fn round_trip<M: Message>(n: u64, chunk: usize, dribble: usize) -> Vec<M> {
        let mut tx = WireTx::<Vec<u8>, M>::new(Vec::new(), chunk).unwrap();
        assert!(tx.send(M::build(0, 0)).is_ok());
        assert!(tx.send_batch(&mut (1..n).map(|s| M::build(0, s))).is_ok());
        let bytes = tx.out;
        let mut rx = WireRx::<_, M>::new(Dribble(bytes, dribble), 100).unwrap();
        let mut out = Vec::new();
        while rx.recv_batch(7, |m| out.push(m)) > 0 {}
        out
    }

    /// Whole messages come back in order whatever sizes the reads return, and a cut stream
    /// drops only its partial last message.
    #[test]
    fn messages_survive_any_read_sizes() {
        for dribble in [1, 3, 64, 1000] {
            let got = round_trip::<Word>(50, 24, dribble);
            assert_eq!(got.len(), 50);
            assert!(got
                .iter()
                .enumerate()
                .all(|(i, m)| m.seq() == i as u64 && m.check().is_some()));
            let got = round_trip::<Report64>(20, 4096, dribble);
            assert_eq!(got.len(), 20);
            assert!(got.iter().all(|m| m.check().is_some()));
        }
        let mut tx = WireTx::<Vec<u8>, Word>::new(Vec::new(), 64).unwrap();
        tx.send(Word::build(0, 0)).unwrap();
        tx.send(Word::build(0, 1)).unwrap();
        let mut cut = tx.out;
        cut.pop();
        let mut rx = WireRx::<_, Word>::new(Dribble(cut, 5), 64).unwrap();
        assert_eq!(rx.recv().map(|m| m.seq()), Some(0));
        assert!(rx.recv().is_none());
    }

    #[test]
    fn a_payload_with_heap_parts_is_refused() {
        assert!(matches!(
            wire_size::<handoff::payload::Boxed>(),
            Err(BuildError::Unsupported(_))
        ));
    }
}
