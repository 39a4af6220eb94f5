//! [`Stamped`]: a message carrying its intended and actual send times.

use crate::message::Message;

/// A message of any payload shape with two send stamps (nanoseconds on the sample's shared
/// [`super::Clock`]). The header and body checks are the wrapped message's, so the verifier
/// treats a stamped message exactly like a bare one.
#[derive(Clone, Debug)]
pub struct Stamped<M> {
    /// When the schedule said the message should be sent.
    pub intended_ns: u64,
    /// When the producer actually offered it to the transport.
    pub sent_ns: u64,
    /// The message itself.
    pub msg: M,
}

impl<M: Message> Message for Stamped<M> {
    fn build(producer: u32, seq: u64) -> Self {
        Stamped {
            intended_ns: 0,
            sent_ns: 0,
            msg: M::build(producer, seq),
        }
    }

    #[inline(always)]
    fn producer(&self) -> u32 {
        self.msg.producer()
    }

    #[inline(always)]
    fn seq(&self) -> u64 {
        self.msg.seq()
    }

    #[inline(always)]
    fn check(&self) -> Option<u64> {
        self.msg.check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::Word;

    #[test]
    fn delegates_header_and_body() {
        let s = Stamped::<Word>::build(3, 41);
        assert_eq!((s.producer(), s.seq()), (3, 41));
        assert_eq!(s.check(), Word::build(3, 41).check());
        assert!(s.check().is_some());
    }
}
