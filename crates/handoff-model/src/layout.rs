//! How samples are placed in memory, as a run records it: the run's layout mode and seed, each
//! sample's seed and what it derives (heap pad, stack offsets), and the record a report keeps.
//! The harness applies these placements (`handoff::layout`); here they are pure functions of
//! their seeds, so a run's sequence of layouts is reproduced from its seed alone.

use serde::{Deserialize, Serialize};

/// Largest heap pad, bytes.
pub const MAX_HEAP_PAD: usize = 8192;
/// Most padding frames a thread descends.
pub const MAX_STACK_FRAMES: usize = 64;

/// How a run places its samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "mode")]
pub enum LayoutMode {
    /// Every sample under the same placement (whatever the build and allocator give).
    Fixed,
    /// Each sample under its own placement, drawn from the run's seed.
    Random {
        /// The run's seed; sample seeds derive from it, the trial and the sample's index.
        seed: u64,
    },
}

impl LayoutMode {
    /// Random layouts from a seed taken from the clock.
    pub fn random_from_clock() -> LayoutMode {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        LayoutMode::Random {
            seed: mix(nanos ^ u64::from(std::process::id())),
        }
    }

    /// The seeds of one trial's samples, in the order they run.
    pub fn sequence(&self, trial_key: &str) -> LayoutSequence {
        LayoutSequence {
            base: match self {
                LayoutMode::Fixed => None,
                LayoutMode::Random { seed } => Some(mix(seed ^ fnv1a(trial_key))),
            },
            next: 0,
        }
    }
}

/// The seeds of one trial's samples (calibration pilots, warm-up and timed samples alike): a
/// trial run again with the same run seed gets the same sequence, whatever else the run holds.
#[derive(Clone, Debug)]
pub struct LayoutSequence {
    base: Option<u64>,
    next: u64,
}

impl LayoutSequence {
    /// The seed of the next sample; `None` when layouts are fixed.
    pub fn next_seed(&mut self) -> Option<u64> {
        let base = self.base?;
        self.next += 1;
        Some(mix(base.wrapping_add(self.next.wrapping_mul(GOLDEN))))
    }
}

/// The placement of one sample, derived from its seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleLayout {
    /// The seed everything below derives from.
    pub seed: u64,
}

impl SampleLayout {
    /// The layout of seed `seed`.
    pub fn from_seed(seed: u64) -> SampleLayout {
        SampleLayout { seed }
    }

    /// Bytes of the heap pad: 16 to [`MAX_HEAP_PAD`], in steps of 16 (the allocator's
    /// granularity), so every alignment within a page is reachable for what follows.
    pub fn heap_pad(&self) -> usize {
        16 + (mix(self.seed ^ 0x4845_4150) as usize % (MAX_HEAP_PAD / 16)) * 16
    }

    /// Padding frames thread `thread` (in spawn order) descends before it starts.
    pub fn stack_frames(&self, thread: usize) -> usize {
        mix(self.seed ^ (thread as u64 + 1).wrapping_mul(GOLDEN)) as usize % (MAX_STACK_FRAMES + 1)
    }

    /// What the report records of this layout for a sample of `threads` harness threads, whose
    /// padding frames take `frame` bytes each.
    pub fn record(&self, threads: usize, frame: usize) -> LayoutRecord {
        LayoutRecord {
            seed: self.seed,
            heap_pad: self.heap_pad(),
            stack_offsets: (0..threads)
                .map(|t| (self.stack_frames(t) * frame) as u32)
                .collect(),
        }
    }
}

/// A sample's layout as the report keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutRecord {
    /// The sample's seed (`--layout-seed` reproduces the run's seeds; this one identifies the
    /// sample's placement).
    pub seed: u64,
    /// Bytes allocated before the channel was created.
    pub heap_pad: usize,
    /// Bytes each harness thread's stack was moved down, in spawn order.
    pub stack_offsets: Vec<u32>,
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's finaliser: a good 64-bit mix.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(GOLDEN);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a over a trial's key, so each trial gets its own sequence.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_always_gives_the_same_layout_and_seeds_differ() {
        let a = SampleLayout::from_seed(7);
        let b = SampleLayout::from_seed(7);
        assert_eq!(a.record(3, 96), b.record(3, 96));
        let pads: std::collections::BTreeSet<usize> = (0..200)
            .map(|s| SampleLayout::from_seed(s).heap_pad())
            .collect();
        assert!(pads.len() > 150, "heap pads should spread: {}", pads.len());
        assert!(pads
            .iter()
            .all(|p| (16..=MAX_HEAP_PAD).contains(p) && p % 16 == 0));
        let frames: std::collections::BTreeSet<usize> = (0..200)
            .map(|s| SampleLayout::from_seed(s).stack_frames(0))
            .collect();
        assert!(frames.len() > 50 && frames.iter().all(|f| *f <= MAX_STACK_FRAMES));
    }

    #[test]
    fn threads_of_one_sample_get_their_own_offsets() {
        let l = SampleLayout::from_seed(42);
        let distinct: std::collections::BTreeSet<usize> =
            (0..8).map(|t| l.stack_frames(t)).collect();
        assert!(distinct.len() > 1);
    }

    #[test]
    fn a_sequence_is_reproducible_per_trial_and_fixed_has_none() {
        let mode = LayoutMode::Random { seed: 5 };
        let run = |key| {
            let mut s = mode.sequence(key);
            (0..4).map(|_| s.next_seed().unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(run("rtrb spsc"), run("rtrb spsc"));
        assert_ne!(run("rtrb spsc"), run("handoff-spsc spsc"));
        let first = run("rtrb spsc");
        assert!(first.windows(2).all(|w| w[0] != w[1]));
        assert_eq!(LayoutMode::Fixed.sequence("x").next_seed(), None);
    }
}
