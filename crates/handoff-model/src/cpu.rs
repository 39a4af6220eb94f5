//! The CPU cost of a trial, as a result records it: the CPU time the harness's producer and
//! consumer threads spent over each timed sample, and its medians over a trial.
//!
//! Each thread's CPU time (user + system) is read on its own clock at the start line and once
//! its work ends, so it counts what the thread ran between the two: the transport's code on
//! that thread, its spinning or blocking, and the harness's own per-message work (building and
//! verifying messages). A transport's own background threads are not counted.
//!
//! Under a tokio driver the producer and consumer tasks move between the runtime's threads, so
//! no thread belongs to one side: the CPU time of the runtime's threads over the sample is kept
//! whole, as [`SampleCpu::runtime_ns`], and shown as the runtime's cores rather than per side.

use crate::stats::median;
use serde::{Deserialize, Serialize};

/// The CPU time of one sample's threads, per side, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleCpu {
    /// The producers' CPU time, summed over them (ping-pong: the pinger's; open loop: the
    /// injectors').
    pub producer_ns: u64,
    /// The consumers' CPU time, summed over them (ping-pong: the ponger's; open loop: the
    /// stages' and sinks').
    pub consumer_ns: u64,
    /// The CPU time of an async runtime's threads, which ran both sides' tasks (tokio
    /// drivers); 0 where the members are threads of their own.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub runtime_ns: u64,
    /// The page faults the process took while the sample ran (minor and major, all its
    /// threads): the kernel mapping memory touched for the first time, such as a new ring's
    /// first lap. `None` where not measured (a sample across two processes, older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_faults: Option<u64>,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

impl SampleCpu {
    /// Both sides' CPU time, ns (the runtime's, under an async runtime).
    pub fn total_ns(&self) -> u64 {
        self.producer_ns
            .saturating_add(self.consumer_ns)
            .saturating_add(self.runtime_ns)
    }

    /// Cores busy on each side over a sample of `elapsed_ns`: CPU-seconds per second,
    /// `(producers, consumers)`. `None` for an empty sample.
    pub fn cores(&self, elapsed_ns: u64) -> Option<(f64, f64)> {
        (elapsed_ns > 0).then(|| {
            let wall = elapsed_ns as f64;
            (
                self.producer_ns as f64 / wall,
                self.consumer_ns as f64 / wall,
            )
        })
    }

    /// Both sides' CPU time per message delivered, ns; `None` if none was.
    pub fn ns_per_msg(&self, messages: u64) -> Option<f64> {
        (messages > 0).then(|| self.total_ns() as f64 / messages as f64)
    }
}

/// A trial's CPU cost: medians over its timed samples that measured it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CpuFigures {
    /// Cores busy on the producer side: its CPU-seconds per second of the sample (≈ 1 per
    /// producer thread that never sleeps).
    pub producer_cores: f64,
    /// Cores busy on the consumer side, likewise.
    pub consumer_cores: f64,
    /// Both sides' CPU time per message delivered, ns.
    pub ns_per_msg: f64,
    /// Cores busy running an async runtime's threads, both sides' tasks together (tokio
    /// drivers; 0 elsewhere and in older reports).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub runtime_cores: f64,
    /// Page faults per message delivered, over the samples that counted them (see
    /// [`SampleCpu::page_faults`]); `None` where none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_faults_per_msg: Option<f64>,
    /// Timed samples the medians are over.
    pub samples: usize,
}

fn is_zero_f64(x: &f64) -> bool {
    *x == 0.0
}

impl CpuFigures {
    /// The medians of `samples`: each timed sample's CPU record, its elapsed time (ns) and the
    /// messages it delivered. Samples without a record, elapsed time or messages are left out;
    /// `None` when none is left.
    pub fn of(samples: &[(SampleCpu, u64, u64)]) -> Option<CpuFigures> {
        let (mut producers, mut consumers, mut per_msg) = (Vec::new(), Vec::new(), Vec::new());
        let (mut runtime, mut faults) = (Vec::new(), Vec::new());
        for (cpu, elapsed_ns, messages) in samples {
            if let (Some((p, c)), Some(n)) = (cpu.cores(*elapsed_ns), cpu.ns_per_msg(*messages)) {
                producers.push(p);
                consumers.push(c);
                per_msg.push(n);
                runtime.push(cpu.runtime_ns as f64 / *elapsed_ns as f64);
                faults.extend(cpu.page_faults.map(|f| f as f64 / *messages as f64));
            }
        }
        if per_msg.is_empty() {
            return None;
        }
        Some(CpuFigures {
            producer_cores: median(&producers),
            consumer_cores: median(&consumers),
            ns_per_msg: median(&per_msg),
            runtime_cores: median(&runtime),
            page_faults_per_msg: (!faults.is_empty()).then(|| median(&faults)),
            samples: per_msg.len(),
        })
    }

    /// Cores busy as a table shows it: producers `+` consumers, e.g. `0.98+1.00`; an async
    /// runtime's threads as `rt 1.96`.
    pub fn cores_label(&self) -> String {
        if self.runtime_cores > 0.0 && self.producer_cores + self.consumer_cores == 0.0 {
            format!("rt {:.2}", self.runtime_cores)
        } else if self.runtime_cores > 0.0 {
            format!(
                "{:.2}+{:.2}+rt {:.2}",
                self.producer_cores, self.consumer_cores, self.runtime_cores
            )
        } else {
            format!("{:.2}+{:.2}", self.producer_cores, self.consumer_cores)
        }
    }

    /// All cores busy: both sides and the runtime's threads.
    pub fn total_cores(&self) -> f64 {
        self.producer_cores + self.consumer_cores + self.runtime_cores
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_s_cores_and_cost_per_message() {
        let cpu = SampleCpu {
            producer_ns: 50_000_000,
            consumer_ns: 100_000_000,
            ..SampleCpu::default()
        };
        assert_eq!(cpu.cores(100_000_000), Some((0.5, 1.0)));
        assert_eq!(cpu.ns_per_msg(1_000_000), Some(150.0));
        assert_eq!(cpu.cores(0), None);
        assert_eq!(cpu.ns_per_msg(0), None);
    }

    #[test]
    fn figures_are_medians_over_the_samples_that_measured() {
        let at = |p: u64, c: u64| SampleCpu {
            producer_ns: p,
            consumer_ns: c,
            ..SampleCpu::default()
        };
        let f = CpuFigures::of(&[
            (at(10, 100), 100, 10),
            (at(30, 90), 100, 10),
            (at(20, 80), 100, 10),
            // Nothing delivered: left out.
            (at(1_000, 1_000), 100, 0),
        ])
        .expect("three samples measured");
        assert_eq!(f.samples, 3);
        assert!((f.producer_cores - 0.2).abs() < 1e-12);
        assert!((f.consumer_cores - 0.9).abs() < 1e-12);
        assert!((f.ns_per_msg - 11.0).abs() < 1e-12);
        assert_eq!(f.cores_label(), "0.20+0.90");
        assert_eq!(f.page_faults_per_msg, None);
        assert_eq!(CpuFigures::of(&[]), None);
    }

    #[test]
    fn page_faults_are_a_median_per_message_over_the_samples_that_counted_them() {
        let at = |faults: Option<u64>| SampleCpu {
            producer_ns: 10,
            consumer_ns: 10,
            page_faults: faults,
            ..SampleCpu::default()
        };
        let f = CpuFigures::of(&[
            (at(Some(40)), 100, 1_000),
            (at(None), 100, 1_000),
            (at(Some(10)), 100, 1_000),
            (at(Some(20)), 100, 1_000),
        ])
        .expect("measured");
        assert_eq!(f.samples, 4);
        assert_eq!(f.page_faults_per_msg, Some(0.02));
    }

    #[test]
    fn records_without_page_faults_read_as_not_counted() {
        let old = r#"{"producer_ns":5,"consumer_ns":6}"#;
        let cpu: SampleCpu = serde_json::from_str(old).expect("an older sample record");
        assert_eq!(cpu.page_faults, None);
        assert!(!serde_json::to_string(&cpu).unwrap().contains("page_faults"));
    }
}
