//! The verifier's run-wise kernel for payloads that are nothing but their packed header (the
//! `u64` payload): does a run of words count up by one from the word expected next?
//!
//! A batch consumer that reads runs in place checks every message it receives, so this loop is
//! on the consumer's hot path, next to the transport's own work. It is written as a plain loop
//! that the compiler vectorizes, and compiled twice on x86-64: once for the baseline the crate is
//! built for (two words per SSE2 instruction) and once with AVX2 enabled (four per
//! instruction), chosen at run time by what the CPU reports. The two versions compute the same
//! value; only their speed differs.

/// Returns 0 if and only if `words[i] == first + i` (wrapping) for every `i`; otherwise some
/// non-zero value (which bits are set says nothing useful).
#[inline]
pub(crate) fn deviation(words: &[u64], first: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU reports AVX2, the only feature `deviation_avx2` is compiled for.
            return unsafe { deviation_avx2(words, first) };
        }
    }
    deviation_portable(words, first)
}

/// [`deviation`] compiled with AVX2 enabled.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn deviation_avx2(words: &[u64], first: u64) -> u64 {
    deviation_portable(words, first)
}

/// [`deviation`] for the features the crate is compiled with; inlined into
/// [`deviation_avx2`] so that it is vectorized again there, with wider registers.
#[inline(always)]
fn deviation_portable(words: &[u64], first: u64) -> u64 {
    // One compare and one merge per word; the compiler keeps `first + i` for a vector of words
    // in a register and steps it, and no branch depends on the data.
    words
        .iter()
        .enumerate()
        .fold(0, |off, (i, w)| off | (w ^ first.wrapping_add(i as u64)))
}

/// `first + (first + 1) + … + (first + n - 1)`, wrapping: what the words of a run that passes
/// [`deviation`] add up to.
#[inline]
pub(crate) fn sum(first: u64, n: u64) -> u64 {
    // n(n-1)/2 without losing the top bit: halve whichever factor is even first.
    let triangle = if n % 2 == 0 {
        (n / 2).wrapping_mul(n.wrapping_sub(1))
    } else {
        n.wrapping_mul(n.wrapping_sub(1) / 2)
    };
    first.wrapping_mul(n).wrapping_add(triangle)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, one word at a time.
    fn reference(words: &[u64], first: u64) -> bool {
        words
            .iter()
            .enumerate()
            .all(|(i, &w)| w == first.wrapping_add(i as u64))
    }

    #[test]
    fn every_length_and_every_single_corruption_is_seen() {
        for first in [0, 41, (7 << 48) | 1000, u64::MAX - 5] {
            for n in 0..40usize {
                let clean: Vec<u64> = (0..n as u64).map(|i| first.wrapping_add(i)).collect();
                assert_eq!(deviation(&clean, first), 0, "first {first}, n {n}");
                assert_eq!(deviation_portable(&clean, first), 0);
                if n > 0 {
                    // A run that starts one early or one late is not the one expected.
                    assert_ne!(deviation(&clean, first.wrapping_add(1)), 0);
                    assert_ne!(deviation(&clean, first.wrapping_sub(1)), 0);
                }
                for at in 0..n {
                    for bit in [0, 1, 13, 47, 48, 63] {
                        let mut bad = clean.clone();
                        bad[at] ^= 1 << bit;
                        assert!(!reference(&bad, first));
                        assert_ne!(deviation(&bad, first), 0, "n {n}, at {at}, bit {bit}");
                        assert_ne!(deviation_portable(&bad, first), 0);
                    }
                }
                if n >= 2 {
                    // Two neighbours swapped.
                    let mut swapped = clean.clone();
                    swapped.swap(n / 2 - 1, n / 2);
                    assert_ne!(deviation(&swapped, first), 0, "n {n}");
                }
            }
        }
    }

    #[test]
    fn sums_match_adding_one_by_one() {
        for first in [0, 3, 1 << 48, u64::MAX - 2] {
            for n in [0u64, 1, 2, 3, 255, 256, 1 << 20] {
                let slow = (0..n).fold(0u64, |s, i| s.wrapping_add(first.wrapping_add(i)));
                assert_eq!(sum(first, n), slow, "first {first}, n {n}");
            }
        }
        // Where n(n-1) itself overflows 64 bits.
        let n = (1u64 << 33) + 1;
        let expect = ((n as u128 * (n as u128 - 1) / 2) as u64).wrapping_add(5u64.wrapping_mul(n));
        assert_eq!(sum(5, n), expect);
    }
}
