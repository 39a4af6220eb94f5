//! Human-readable numbers shared by the output formats: three significant digits and a unit.
//!
//! | helper        | example                  |
//! |---------------|--------------------------|
//! | [`rate`]      | `12.3 M/s`, `1.00 k/s`, `950/s` |
//! | [`si`]        | `12.3 M`, `4.56 k`, `17` |
//! | [`duration`]  | `81.2 ns`, `1.25 µs`     |
//! | [`percent`]   | `4.2%`, `117%`           |
//! | [`bandwidth`] | `12.3 GB/s`              |
//! | [`count`]     | `100 k`, `1.2 M`, `1.234567 M` (always exact) |
//!
//! One rule for the tables: every rate is written by [`rate`] and every count (messages per
//! sample, sent, fired, refused, in flight) by [`si`], both with three significant digits and
//! the same units (`1.00 k/s`, `63.5 k/s`, `453 k`), whether a row measured it or a plan set it.
//! One exception keeps tables apart: a table's title names its requested rate exactly where three
//! digits would round it (`1.0004 M/s` beside `1.00 M/s`), since two rates are two tables. The
//! exact figures are in the JSON and CSV reports; [`count`] quotes a count exactly where a
//! reader needs every digit.

/// The share of a unit from which three significant digits of the unit below round up to a
/// thousand of it (999.5): such a figure is written in the unit above (`1.00 M`, `1.00 ms`).
const ROUNDS_UP: f64 = 0.9995;

/// `x` with three significant digits (fewer trailing digits for large mantissas).
fn sig3(x: f64) -> String {
    let a = x.abs();
    if a >= 99.95 {
        format!("{x:.0}")
    } else if a >= 9.995 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// A dimensionless quantity with an SI suffix: `17`, `4.56 k`, `12.3 M`, `1.05 G`.
pub fn si(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let a = x.abs();
    for (scale, suffix) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
        // Three digits round 999.5 up: 999_500 prints as `1.00 M`, not `1000 k`.
        if a >= scale * ROUNDS_UP {
            return format!("{} {suffix}", sig3(x / scale));
        }
    }
    if a >= 100.0 || a == a.trunc() {
        format!("{x:.0}")
    } else {
        sig3(x)
    }
}

/// A rate per second: `12.3 M/s`, `950/s`.
pub fn rate(per_s: f64) -> String {
    format!("{}/s", si(per_s))
}

/// A duration given in nanoseconds: `81.2 ns`, `1.25 µs`, `3.40 ms`, `1.20 s`.
pub fn duration(ns: f64) -> String {
    if !ns.is_finite() {
        return format!("{ns} ns");
    }
    let a = ns.abs();
    let (v, unit) = if a >= ROUNDS_UP * 1e9 {
        (ns / 1e9, "s")
    } else if a >= ROUNDS_UP * 1e6 {
        (ns / 1e6, "ms")
    } else if a >= ROUNDS_UP * 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    format!("{} {unit}", sig3(v))
}

/// A fraction as a percentage: `0.042` -> `4.2%`, `1.17` -> `117%`.
pub fn percent(ratio: f64) -> String {
    let p = ratio * 100.0;
    if p.abs() >= 99.95 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

/// Bytes per second in decimal units: `12.3 GB/s`, `512 B/s`.
pub fn bandwidth(bytes_per_s: f64) -> String {
    let s = si(bytes_per_s);
    if s.ends_with(|c: char| c.is_ascii_digit()) {
        format!("{s} B/s")
    } else {
        format!("{s}B/s")
    }
}

/// A count with its noun: `1 trial`, `3 trials`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The first `shown` items joined with `, `, and how many more: one line stays one line
/// (`a, b, c and 258 more`).
pub fn first_few(items: &[String], shown: usize) -> String {
    let mut text = items
        .iter()
        .take(shown)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > shown {
        text.push_str(&format!(" and {} more", items.len() - shown));
    }
    text
}

/// An exact count, always in one format: the largest unit it reaches (`k`, `M`, `G`) with as many
/// decimals as it takes to lose nothing: `999`, `12 k`, `1.2 M`, `1.25 M`, `101.024 k`,
/// `1.234567 M`. For a count quoted where every digit matters; the tables write counts with
/// [`si`] (see the module docs).
pub fn count(n: u64) -> String {
    for (scale, digits, suffix) in [
        (1_000_000_000u64, 9, "G"),
        (1_000_000, 6, "M"),
        (1_000, 3, "k"),
    ] {
        if n >= scale {
            let mut s = (n / scale).to_string();
            let frac = n % scale;
            if frac != 0 {
                let f = format!("{frac:0digits$}");
                s.push('.');
                s.push_str(f.trim_end_matches('0'));
            }
            return format!("{s} {suffix}");
        }
    }
    n.to_string()
}

/// A byte size: `8 B`, `488 B`, `4096 B`.
pub fn bytes(n: usize) -> String {
    format!("{n} B")
}

/// An amount of memory in binary units: `512 B`, `1.5 KiB`, `20.0 MiB`, `6.20 GiB`.
pub fn memory(n: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = n;
    let mut unit = 0;
    while x.abs() >= 1024.0 && unit + 1 < units.len() {
        x /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{x:.0} B"),
        _ if x.abs() >= 100.0 => format!("{x:.0} {}", units[unit]),
        _ if x.abs() >= 10.0 => format!("{x:.1} {}", units[unit]),
        _ => format!("{x:.2} {}", units[unit]),
    }
}

/// A ratio as a multiple: `4.2×`, `117×`.
pub fn times(ratio: f64) -> String {
    format!("{}×", sig3(ratio))
}

/// A span given in milliseconds as a suite writes it: `5m`, `90s`, `1h30m`, `500ms`.
pub fn span_ms(ms: u64) -> String {
    if ms == 0 || ms % 1000 != 0 {
        return format!("{ms}ms");
    }
    let s = ms / 1000;
    let (h, m, s) = (s / 3600, s / 60 % 60, s % 60);
    let mut out = String::new();
    if h > 0 {
        out += &format!("{h}h");
    }
    if m > 0 {
        out += &format!("{m}m");
    }
    if s > 0 {
        out += &format!("{s}s");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_humans_write_them() {
        assert_eq!(rate(12_345_678.0), "12.3 M/s");
        assert_eq!(rate(950.0), "950/s");
        assert_eq!(rate(1_500.0), "1.50 k/s");
        assert_eq!(rate(999_970.0), "1.00 M/s");
        assert_eq!(si(17.0), "17");
        assert_eq!(si(0.5), "0.50");
        assert_eq!(si(2.0e9), "2.00 G");
        assert_eq!(duration(81.23), "81.2 ns");
        assert_eq!(duration(1_250.0), "1.25 µs");
        assert_eq!(duration(3_400_000.0), "3.40 ms");
        assert_eq!(duration(1.2e9), "1.20 s");
        assert_eq!(duration(7.0), "7.00 ns");
        assert_eq!(percent(0.042), "4.2%");
        assert_eq!(percent(1.17), "117%");
        assert_eq!(percent(0.0), "0.0%");
        assert_eq!(bandwidth(12.3e9), "12.3 GB/s");
        assert_eq!(bandwidth(512.0), "512 B/s");
        assert_eq!(count(100_000), "100 k");
        assert_eq!(count(1_200_000), "1.2 M");
        assert_eq!(count(1_234_567), "1.234567 M");
        assert_eq!(count(999), "999");
        assert_eq!(count(0), "0");
        assert_eq!(count(20_000_000), "20 M");
        assert_eq!(count(1_250_000), "1.25 M");
        assert_eq!(count(101_024), "101.024 k");
        assert_eq!(count(12_000), "12 k");
        assert_eq!(count(1_000_001), "1.000001 M");
        assert_eq!(count(3_000_000_000), "3 G");
        assert_eq!(times(4.2), "4.20×");
    }

    /// The tables' rule: rates and counts alike, three significant digits in one set of units,
    /// whatever digits the figure had.
    #[test]
    fn rates_and_counts_take_three_significant_digits() {
        assert_eq!(rate(1_000.0), "1.00 k/s");
        assert_eq!(rate(63_488.0), "63.5 k/s");
        assert_eq!(rate(452_540.0), "453 k/s");
        assert_eq!(rate(22_627.0), "22.6 k/s");
        assert_eq!(rate(128_000.0), "128 k/s");
        assert_eq!(si(63_488.0), "63.5 k");
        assert_eq!(si(452_540.0), "453 k");
        assert_eq!(si(1_234_567.0), "1.23 M");
        assert_eq!(si(3_000.0), "3.00 k");
        assert_eq!(si(359.0), "359");
        assert_eq!(si(0.0), "0");
        // Where three digits round up to a thousand, the unit above.
        assert_eq!(si(999_499.0), "999 k");
        assert_eq!(si(999_500.0), "1.00 M");
        assert_eq!(si(999_700.0), "1.00 M");
        assert_eq!(rate(999.6), "1.00 k/s");
        assert_eq!(si(999.4), "999");
        assert_eq!(duration(999_600.0), "1.00 ms");
        assert_eq!(duration(999.4), "999 ns");
        assert_eq!(duration(999.6), "1.00 µs");
    }
}
