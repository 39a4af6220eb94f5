//! Mapping a new ring's memory in at creation, so that its first lap takes no page faults.
//!
//! A large allocation comes from the kernel as address space only: each page is mapped (found,
//! zeroed and entered in the page table) by a page fault the first time it is written. Left to
//! itself, a new ring's first lap would take those faults inside pushes, about two microseconds
//! each on a virtual machine, once per page (every 64 messages of 64 bytes with 4 KiB pages):
//! the latency spike a hot path wants least, and, in a stream through a ring of a million
//! slots, most of the producer's time. [`touch`] writes one byte in every page while the ring
//! is created instead, so that "pushes and pops never allocate" holds for the kernel's
//! allocation too.
//!
//! The cost moves to [`channel`](crate::channel): about one fault per 4 KiB of ring, taken
//! once. The bytes written are inside slots that hold no message yet, whose contents are never
//! read before a push writes them.

/// The stride of [`touch`]: the smallest page size of the platforms the crate runs on. Writing
/// every 4 KiB reaches every page of any larger size as well.
const STRIDE: usize = 4096;

/// Writes a zero byte at every [`STRIDE`] bytes of `bytes` bytes from `base`, and at its last
/// byte, so that the kernel maps every page of the range now.
///
/// The writes are volatile: a plain store of zeros into memory just allocated could be folded
/// into the allocation by the compiler (an allocation that is already zeroed), which maps no
/// page.
///
/// # Safety
/// `base..base + bytes` must be valid for writes, and must hold no value a zero byte could
/// break: memory nobody reads before writing it again (uninitialized slots).
pub(crate) unsafe fn touch(base: *mut u8, bytes: usize) {
    if bytes == 0 {
        return;
    }
    let mut offset = 0;
    while offset < bytes {
        // SAFETY: `offset < bytes`, so the byte is inside the range the caller vouches for.
        unsafe { base.add(offset).write_volatile(0) };
        offset += STRIDE;
    }
    // SAFETY: `bytes > 0`, so `bytes - 1` is the range's last byte.
    unsafe { base.add(bytes - 1).write_volatile(0) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_and_the_last_byte_are_written_and_nothing_outside() {
        let mut buffer = vec![1u8; 3 * STRIDE + 10];
        let inner = buffer.len() - 2;
        // SAFETY: byte 1 onwards, `inner` bytes, all inside the vector.
        unsafe { touch(buffer.as_mut_ptr().add(1), inner) };
        let zeros: Vec<usize> = (0..buffer.len()).filter(|&i| buffer[i] == 0).collect();
        assert_eq!(
            zeros,
            vec![1, 1 + STRIDE, 1 + 2 * STRIDE, 1 + 3 * STRIDE, inner]
        );
    }

    #[test]
    fn an_empty_range_is_left_alone() {
        let mut byte = 1u8;
        // SAFETY: zero bytes: nothing is written.
        unsafe { touch(&mut byte, 0) };
        assert_eq!(byte, 1);
    }
}
