//! What two cores can stream through rings of several sizes and run lengths: the streaming
//! limit probe run with other geometries than the limit's (64 KiB, published 2 KiB at a time).
//!
//! A batch transport cannot stream faster than the probe does through a ring of the
//! transport's own size, published in the transport's own runs: with 1024 slots of 8 bytes
//! and runs of 256, that is an 8 KiB ring published 2 KiB at a time.
//!
//! Run: `cargo run -p handoff --release --example stream_geometry [repetitions]`. Prints, for
//! each geometry, every repetition's figure in GB/s, best first, and what the best is in
//! `u64` messages per second. Geometries are interleaved repetition by repetition, so a
//! change in the host's state touches all of them alike.

use handoff::probes::{stream_with, StreamGeometry};

/// Bytes streamed per repetition.
const BYTES: u64 = 256 << 20;

fn main() {
    let repetitions: usize = match std::env::args().nth(1).map(|a| a.parse()) {
        None => 5,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("usage: stream_geometry [repetitions (a positive integer)]");
            std::process::exit(2);
        }
    };
    let geometries: Vec<StreamGeometry> = [(8, 2), (8, 8), (64, 2), (64, 8), (256, 8), (1024, 32)]
        .into_iter()
        .map(|(ring_kib, block_kib)| StreamGeometry {
            ring_bytes: ring_kib * 1024,
            block_bytes: block_kib * 1024,
        })
        .collect();
    let mut figures = vec![Vec::new(); geometries.len()];
    for _ in 0..repetitions {
        for (g, out) in geometries.iter().zip(&mut figures) {
            out.push(stream_with(*g, BYTES).expect("valid geometry") / 1e9);
        }
    }
    println!("ring      block   GB/s (best first)                    best as u64 msgs/s");
    for (g, mut out) in geometries.into_iter().zip(figures) {
        out.sort_by(|a, b| b.total_cmp(a));
        let list: Vec<String> = out.iter().map(|v| format!("{v:.1}")).collect();
        println!(
            "{:>5} KiB {:>3} KiB  {:<36} {:.2} G",
            g.ring_bytes / 1024,
            g.block_bytes / 1024,
            list.join(" "),
            out[0] / 8.0
        );
    }
}
