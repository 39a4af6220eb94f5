//! Two rings in a row: a source sends raw readings, a stage converts them to volts, a sink sums
//! them per sensor.
//!
//! ```text
//! cargo run -p handoff-spsc --example pipeline
//! ```

use handoff_spsc::{channel, Wait};
use std::thread;

#[derive(Debug)]
struct Reading {
    sensor: u32,
    millivolts: u32,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    const READINGS: u32 = 1_000_000;

    // The stage sleeps when there is nothing to do: `Block` wakes it only when its input goes
    // from empty to non-empty.
    let (mut readings_tx, mut readings_rx) = channel::<Reading>(256, Wait::Block)?;
    let (mut volts_tx, mut volts_rx) = channel::<(u32, f64)>(1024, Wait::Block)?;

    let source = thread::spawn(move || {
        for i in 0..READINGS {
            let reading = Reading {
                sensor: i % 4,
                millivolts: i % 5000,
            };
            if readings_tx.push(reading).is_err() {
                break; // the stage is gone
            }
        }
    });

    let stage = thread::spawn(move || {
        // Drain in batches: one index publication per run of readings.
        let mut converted = Vec::with_capacity(64);
        loop {
            let n = readings_rx.pop_batch(64, |r| {
                converted.push((r.sensor, f64::from(r.millivolts) / 1000.0))
            });
            if n == 0 {
                break; // the source is done and the ring is empty
            }
            if volts_tx.push_batch(&mut converted.drain(..)).is_err() {
                break; // the sink is gone
            }
        }
    });

    let mut count = 0u64;
    let mut per_sensor = [0.0f64; 4];
    while let Some((sensor, volts)) = volts_rx.pop() {
        count += 1;
        per_sensor[sensor as usize] += volts;
    }
    source.join().expect("source panicked");
    stage.join().expect("stage panicked");

    let total: f64 = per_sensor.iter().sum();
    let expected: f64 = (0..READINGS).map(|i| f64::from(i % 5000) / 1000.0).sum();
    assert_eq!(count, u64::from(READINGS));
    assert!((total - expected).abs() < 1e-6 * expected);
    println!("{count} readings");
    for (sensor, volts) in per_sensor.iter().enumerate() {
        println!("  sensor {sensor}: {volts:.3} V in total");
    }
    Ok(())
}
