//! Progress on standard error: a bar on a terminal, one line per finished trial otherwise.

use handoff::outcome::SampleStatus;
use handoff::session::Event;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Tracks and shows progress.
pub struct Progress {
    bar: Option<ProgressBar>,
    lines: bool,
    samples_per_trial: Vec<usize>,
    timed_done: Vec<usize>,
    total: usize,
}

impl Progress {
    /// A progress display for trials taking `samples_per_trial` timed samples each.
    pub fn new(quiet: bool, samples_per_trial: Vec<usize>) -> Progress {
        let total = samples_per_trial.iter().sum::<usize>();
        let tty = std::io::stderr().is_terminal();
        let bar = (!quiet && tty).then(|| {
            let b = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} samples  {msg}",
                )
                .expect("valid template"),
            );
            b
        });
        let n = samples_per_trial.len();
        Progress {
            bar,
            lines: !quiet && !tty,
            samples_per_trial,
            timed_done: vec![0; n],
            total,
        }
    }

    /// Handles one session event.
    pub fn on(&mut self, ev: Event) {
        match ev {
            Event::ProbesStarted => {
                self.say("measuring limits (cache-line round trip, streaming bandwidth)")
            }
            Event::ProbesDone(l) => self.say(&format!(
                "limits: cache-line round trip {:.0} ns ({}), streaming {:.1} GB/s",
                l.rtt_ns(),
                match (l.rtt_stamped_ns(), l.clock_step_ns) {
                    (Some(p50), Some(step)) => {
                        format!("stamped per trip {p50:.0} ns, timer step {step:.1} ns")
                    }
                    (Some(p50), None) => format!("stamped per trip {p50:.0} ns"),
                    _ => "bulk-timed".to_string(),
                },
                l.stream_bytes() / 1e9
            )),
            Event::Planned { .. } | Event::RoundDone { .. } => {}
            Event::CountFixed {
                stream,
                messages,
                trials,
            } => self.say(&format!(
                "consensus: {stream}: {trials} trials run {messages} messages per sample"
            )),
            Event::Preparing { label, .. } => {
                if let Some(b) = &self.bar {
                    b.set_message(format!("warming up {label}"));
                }
            }
            Event::Sample {
                trial,
                label,
                timed,
                outcome,
            } => {
                if timed {
                    self.timed_done[trial] += 1;
                    if let Some(b) = &self.bar {
                        b.inc(1);
                        b.set_message(label.to_string());
                    }
                }
                let finished = !outcome.status.is_pass()
                    || self.timed_done[trial] == self.samples_per_trial[trial];
                if finished && (timed || !outcome.status.is_pass()) {
                    if !outcome.status.is_pass() {
                        // The trial stops here; its remaining samples will not run.
                        let left =
                            self.samples_per_trial[trial].saturating_sub(self.timed_done[trial]);
                        if let Some(b) = &self.bar {
                            b.inc(left as u64);
                        }
                        self.timed_done[trial] = self.samples_per_trial[trial];
                    }
                    let done = self.timed_done.iter().filter(|&&d| d > 0).count();
                    let status = match &outcome.status {
                        SampleStatus::Pass => "pass".to_string(),
                        SampleStatus::Fail(v) => format!("FAIL: {v}"),
                        SampleStatus::Hung(s) => format!("HUNG: {s}"),
                        SampleStatus::Crashed(s) => format!("CRASHED: {s}"),
                        SampleStatus::Unsupported(s) => format!("unsupported: {s}"),
                        SampleStatus::Invalid(s) => format!("invalid: {s}"),
                    };
                    if self.lines {
                        eprintln!(
                            "[{done}/{}] {label}: {status}",
                            self.samples_per_trial.len()
                        );
                    } else if !outcome.status.is_pass() {
                        self.say(&format!("{label}: {status}"));
                    }
                }
            }
        }
    }

    fn say(&self, msg: &str) {
        if let Some(b) = &self.bar {
            b.println(msg);
        } else if self.lines {
            eprintln!("{msg}");
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
        let _ = self.total;
    }
}
