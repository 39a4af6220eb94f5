//! Latency histograms: HdrHistogram with 3 significant digits from 1 ns to 1 hour, kept whole and
//! carried between processes in the standard V2 + deflate interchange format (base64).

use base64::Engine as _;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;

/// Highest value tracked: one hour in nanoseconds.
const HIGHEST_NS: u64 = 3_600_000_000_000;

/// An empty histogram; allocated once, outside the timed region.
pub(crate) fn new() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIGHEST_NS, 3).expect("valid histogram bounds")
}

/// Records one value, saturating at the highest trackable value (never allocates).
#[inline]
pub(crate) fn record(h: &mut Histogram<u64>, ns: u64) {
    h.saturating_record(ns.clamp(1, HIGHEST_NS));
}

/// Adds every value of `from` into `into` (both made by [`new`], so the bounds agree and nothing
/// can fail).
pub(crate) fn merge(into: &mut Histogram<u64>, from: &Histogram<u64>) {
    into.add(from)
        .expect("histograms made by new() share their bounds");
}

/// Encodes a histogram (V2 + deflate, base64).
pub(crate) fn encode(h: &Histogram<u64>) -> String {
    let mut buf = Vec::new();
    V2DeflateSerializer::new()
        .serialize(h, &mut buf)
        .expect("serialising to memory cannot fail");
    base64::engine::general_purpose::STANDARD.encode(buf)
}

/// Why an encoded histogram could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// Not base64.
    #[error("histogram: not base64: {0}")]
    Base64(#[from] base64::DecodeError),
    /// Base64, but not a serialised histogram.
    #[error("histogram: not a serialised histogram: {0:?}")]
    Histogram(hdrhistogram::serialization::DeserializeError),
}

/// Decodes a histogram produced by `encode`.
pub fn decode(s: &str) -> Result<Histogram<u64>, DecodeError> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(s)?;
    Deserializer::new()
        .deserialize(&mut &bytes[..])
        .map_err(DecodeError::Histogram)
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trips_through_the_interchange_format() {
        let mut h = super::new();
        for v in [100, 200, 300, 5_000_000] {
            super::record(&mut h, v);
        }
        let back = super::decode(&super::encode(&h)).unwrap();
        assert_eq!(back.len(), 4);
        assert_eq!(back.max(), h.max());
    }
}
