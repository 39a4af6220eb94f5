//! Layout randomisation: every sample runs under a different, seeded placement of what the
//! harness controls.
//!
//! A spinning ring's throughput can change several-fold with nothing but where things sit in
//! memory: the offset of each thread's stack (and so of the endpoints it holds and the locals of
//! its loop) relative to the ring's slots and indices (4 KiB aliasing, cache-set conflicts, two
//! hot fields sharing a line), and where the allocator puts the ring. A benchmark that fixes
//! one placement for a whole run measures that placement, not the transport (Mytkowicz et al.,
//! "Producing wrong data without doing anything obviously wrong", ASPLOS 2009). So each sample
//! draws its own placement from a seed:
//!
//! * **heap**: before the transport's channel is created, a block of a seeded size (16 B to
//!   8 KiB) is allocated and held until the sample ends, so the allocations of the channel (its
//!   ring, shared indices, endpoint boxes) and of the harness land at different addresses and
//!   alignments from sample to sample;
//! * **stack**: every harness thread descends a seeded number of padding frames before it waits
//!   at the start line, so its loop, its endpoint and its locals sit at a different offset of
//!   its stack (0 to about 6 KiB; more than a page, so every 4 KiB alias relation is reached).
//!
//! What cannot be varied at run time is the code's own placement (function and loop
//! alignment), fixed when the binary is linked; `docs/methodology.md` says how to measure across
//! builds. Under the tokio drivers the tasks' futures are heap-allocated (the heap pad moves
//! them) but the runtime's worker threads are tokio's, so only the conductor's stack is padded.
//!
//! A sample's layout is a pure function of its seed: a run records the seed of every sample, and
//! `--layout-seed` reproduces a run's sequence of layouts.

pub use handoff_model::layout::{
    LayoutMode, LayoutRecord, LayoutSequence, SampleLayout, MAX_HEAP_PAD, MAX_STACK_FRAMES,
};
use std::hint::black_box;
use std::sync::OnceLock;

/// The heap pad of a sample: freed when dropped.
#[derive(Debug)]
pub(crate) struct HeapPad(#[allow(dead_code)] Vec<u8>);

/// Allocates the heap pad of `layout`; hold it until the sample ends.
pub(crate) fn allocate_pad(layout: &SampleLayout) -> HeapPad {
    let mut v = Vec::with_capacity(layout.heap_pad());
    // Touch the block so it is a real allocation, not one the optimiser may elide.
    v.push(0u8);
    HeapPad(black_box(v))
}

/// What the report records of `layout` for a sample of `threads` harness threads, on this build.
pub(crate) fn record(layout: &SampleLayout, threads: usize) -> LayoutRecord {
    layout.record(threads, frame_bytes())
}

/// Runs `f` after descending `frames` padding frames of this thread's stack.
pub(crate) fn with_stack_pad<R>(frames: usize, f: impl FnOnce() -> R) -> R {
    let mut f = Some(f);
    let mut out = None;
    descend(frames, &mut || {
        let f = f.take().expect("called once");
        out = Some(f());
    });
    out.expect("the innermost frame ran")
}

/// One padding frame per level; `black_box` keeps each frame's pad alive and the recursion
/// from being turned into a loop.
#[inline(never)]
fn descend(frames: usize, f: &mut dyn FnMut()) {
    let pad = [0u8; 64];
    black_box(&pad);
    if frames == 0 {
        f();
    } else {
        descend(frames - 1, f);
    }
    black_box(&pad);
}

/// Bytes one padding frame takes on this build, measured once.
pub(crate) fn frame_bytes() -> usize {
    static BYTES: OnceLock<usize> = OnceLock::new();
    *BYTES.get_or_init(|| {
        let depth = |frames| {
            with_stack_pad(frames, || {
                let here = 0u8;
                black_box(&here) as *const u8 as usize
            })
        };
        let (shallow, deep) = (depth(0), depth(16));
        shallow.abs_diff(deep) / 16
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stack_pad_moves_the_stack_by_whole_frames() {
        let frame = frame_bytes();
        assert!(frame >= 64, "a frame holds its 64-byte pad: {frame}");
        let at = |frames| {
            with_stack_pad(frames, || {
                let here = 0u8;
                black_box(&here) as *const u8 as usize
            })
        };
        assert_eq!(at(0).abs_diff(at(10)), 10 * frame);
        assert_eq!(with_stack_pad(3, || 41 + 1), 42);
    }
}
