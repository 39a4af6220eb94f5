//! [`Stamped`]: a message carrying its intended and actual send times.

use crate::message::Message;

/// A message of any payload shape with two send stamps (nanoseconds on the sample's shared
/// `super::Clock`). The header and body checks are the wrapped message's, so the verifier
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
    type Form = M::Form;

    #[inline]
    fn form(kind: crate::payload::PayloadKind) -> M::Form {
        M::form(kind)
    }

    fn build(producer: u32, seq: u64) -> Self {
        Stamped::build_in(M::Form::default(), producer, seq)
    }

    #[inline(always)]
    fn build_in(form: M::Form, producer: u32, seq: u64) -> Self {
        Stamped {
            intended_ns: 0,
            sent_ns: 0,
            msg: M::build_in(form, producer, seq),
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

    /// The two stamps, then the message's own wire form.
    const WIRE_SIZE: Option<usize> = match M::WIRE_SIZE {
        Some(n) => Some(n + STAMPS),
        None => None,
    };

    #[inline(always)]
    unsafe fn write_wire(&self, out: *mut u8) {
        // SAFETY: the caller gives room for STAMPS bytes and the message's own wire size.
        unsafe {
            std::ptr::write_unaligned(out.cast::<u64>(), self.intended_ns);
            std::ptr::write_unaligned(out.add(8).cast::<u64>(), self.sent_ns);
            self.msg.write_wire(out.add(STAMPS));
        }
    }

    #[inline(always)]
    unsafe fn read_wire(block: *const u8) -> Self {
        // SAFETY: as for write_wire, with readable bytes.
        unsafe {
            Stamped {
                intended_ns: std::ptr::read_unaligned(block.cast::<u64>()),
                sent_ns: std::ptr::read_unaligned(block.add(8).cast::<u64>()),
                msg: M::read_wire(block.add(STAMPS)),
            }
        }
    }
}

/// Bytes the two stamps take in a stamped message's wire form.
const STAMPS: usize = 16;

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

    #[test]
    fn the_wire_form_carries_the_stamps_and_the_message() {
        let mut s = Stamped::<crate::payload::Report64>::build(2, 77);
        s.intended_ns = 5;
        s.sent_ns = 9;
        assert_eq!(Stamped::<crate::payload::Report64>::WIRE_SIZE, Some(80));
        let mut block = [0u8; 80];
        // SAFETY: the block holds the wire size.
        let back = unsafe {
            s.write_wire(block.as_mut_ptr());
            Stamped::<crate::payload::Report64>::read_wire(block.as_ptr())
        };
        assert_eq!((back.intended_ns, back.sent_ns), (5, 9));
        assert_eq!(back.msg, s.msg);
        assert_eq!(Stamped::<crate::payload::Boxed>::WIRE_SIZE, None);
    }
}
