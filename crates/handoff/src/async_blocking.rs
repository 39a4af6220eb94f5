//! Blocking endpoints over async ones, so that an async transport can be a hop of an open-loop
//! pipeline, whose injectors, stages and sinks are OS threads.
//!
//! Each `send` and `recv` drives the async operation to completion with one
//! `futures_lite::future::block_on` on the calling thread: it polls the operation, and while it
//! is pending parks the thread until the transport's waker unparks it. That is how a thread uses
//! an async channel from synchronous code (tokio's own `blocking_send` and `blocking_recv` work
//! the same way), and its cost, a poll and a thread-local waker per message, is part of what the
//! hop's figures show. `try_send` goes straight to the transport's own non-blocking send
//! ([`AsyncSender::try_send`]), so refusals are counted as on any other hop.
//!
//! The closed-loop async engine never does this: there each producer and consumer is one future
//! driven by one `block_on` (or a runtime) for the whole sample.

use crate::message::Message;
use crate::transport::{Endpoints, Receiver, Sender, TrySendError};
use crate::transport_async::{AsyncReceiver, AsyncSender};

/// An async sender used from a thread: one `block_on` per send.
pub(crate) struct BlockingTx<S>(pub S);

/// An async receiver used from a thread: one `block_on` per receive.
pub(crate) struct BlockingRx<R>(pub R);

impl<M: Message, S: AsyncSender<M>> Sender<M> for BlockingTx<S> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        futures_lite::future::block_on(self.0.send(msg))
    }

    fn try_send(&mut self, msg: M) -> Result<(), TrySendError<M>> {
        self.0.try_send(msg)
    }
}

impl<M: Message, R: AsyncReceiver<M>> Receiver<M> for BlockingRx<R> {
    fn recv(&mut self) -> Option<M> {
        futures_lite::future::block_on(self.0.recv())
    }
}

/// Wraps every endpoint of an async channel.
pub(crate) fn blocking<S, R>(e: Endpoints<S, R>) -> Endpoints<BlockingTx<S>, BlockingRx<R>> {
    Endpoints {
        senders: crate::transport::map_in_order(e.senders, BlockingTx),
        receivers: crate::transport::map_in_order(e.receivers, BlockingRx),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::Word;
    use crate::test_catalog::TokioMpscBounded;
    use crate::transport::ChannelConfig;
    use crate::transport_async::AsyncTransport;

    #[test]
    fn an_async_channel_moves_a_stream_between_threads() {
        let ends = TokioMpscBounded
            .channel::<Word>(&ChannelConfig::new(4, 1, 1))
            .unwrap();
        let Endpoints {
            mut senders,
            mut receivers,
        } = blocking(ends);
        let mut tx = senders.pop().unwrap();
        let mut rx = receivers.pop().unwrap();
        let producer = std::thread::spawn(move || {
            for s in 0..1_000 {
                assert!(tx.send(Word::build(0, s)).is_ok());
            }
        });
        let mut next = 0;
        while let Some(m) = rx.recv() {
            assert_eq!(m.seq(), next);
            next += 1;
        }
        producer.join().unwrap();
        assert_eq!(next, 1_000, "the stream ends once the sender is dropped");
    }
}
