//! The handles own whole cache-line pairs, so that no placement of the two can make them share a
//! line (see `Producer`'s docs, Placement; `examples/handle_placement.rs` measures the cost it
//! prevents).

use handoff_spsc::{channel, Consumer, Producer, Wait};
use std::mem::{align_of, size_of};

/// The unit the handles are aligned to: crossbeam's `CachePadded`, which is 128 bytes on x86-64
/// and aarch64 (a line pair, for the adjacent-line prefetcher) and one line elsewhere.
const UNIT: usize = align_of::<crossbeam_utils::CachePadded<()>>();
const _: () = assert!(UNIT >= 32, "a cache line is at least 32 bytes");

fn assert_owns_lines<H>(name: &str) {
    assert_eq!(align_of::<H>(), UNIT, "{name} alignment");
    assert_eq!(
        size_of::<H>() % UNIT,
        0,
        "{name} size {} fills whole units",
        size_of::<H>()
    );
}

#[test]
fn handles_are_aligned_to_whole_line_pairs() {
    assert_owns_lines::<Producer<u8>>("Producer<u8>");
    assert_owns_lines::<Consumer<u8>>("Consumer<u8>");
    assert_owns_lines::<Producer<[u64; 40]>>("Producer<[u64; 40]>");
    assert_owns_lines::<Consumer<[u64; 40]>>("Consumer<[u64; 40]>");
}

#[test]
fn two_handles_side_by_side_never_share_a_line() {
    #[repr(C)]
    struct Both {
        producer: Producer<u64>,
        consumer: Consumer<u64>,
    }
    let (producer, consumer) = channel::<u64>(8, Wait::Spin).unwrap();
    let both = Box::new(Both { producer, consumer });
    let p = &both.producer as *const _ as usize;
    let c = &both.consumer as *const _ as usize;
    let (p_end, c_start) = (p + size_of::<Producer<u64>>() - 1, c);
    assert!(
        p_end / UNIT < c_start / UNIT,
        "producer {p:#x}..={p_end:#x} and consumer {c:#x} share a {UNIT}-byte unit"
    );
}
