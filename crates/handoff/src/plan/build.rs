//! The one plan builder: a suite (from a file or from flags) plus what the command line adds
//! on top of it → the checked list of trials.
//!
//! # Layers
//! A trial's parameter comes from the first of: the command line's overrides ([`Overlay`]),
//! the benchmark's own key, the suite's `[defaults]`, and [`super::defaults`]. A key a
//! benchmark writes itself must apply to each of its workloads (a `rate` on `spsc` is an error,
//! since it would be silently ignored); a key from `[defaults]` or an override applies where it
//! can, and an override that applies to no benchmark at all is an error.
//!
//! # Expansion
//! Each `[[benchmark]]` expands to the cartesian product of its lists, in this order, the last
//! varying fastest: workload, transport, payload, capacity, producers, consumers, batch,
//! messages, each option (by option name), pacing, pipeline, driver (so the drivers of one
//! transport and setting sit side by side and their samples interleave). Benchmarks follow each
//! other in file order. Names are checked here; whether a transport supports a workload or a
//! capacity is left to the engine, which reports such a trial `unsupported` or `invalid`.

use super::defaults;
use super::error::Broken;
use super::schema::{Benchmark, Params, SuiteFile};
use super::value::{At, Count, Int, List, OptValue, Origin, Rate};
use super::Plan;
use crate::catalog::Catalog;
use crate::semantics::Ordering;
use crate::transport::OptionSpec;
use crate::workload::{
    Delivery, Driver, Hop, Messages, Pacing, PipelineSpec, RampSpec, TrialSpec, WorkloadKind,
};
use std::collections::BTreeMap;

/// What the command line adds on top of a suite file: filters that keep part of it, and
/// parameters that override it.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    /// Keep only trials of these transports (a pipeline's first hop).
    pub transports: Vec<String>,
    /// Keep only trials of these workloads.
    pub workloads: Vec<WorkloadKind>,
    /// Keep only trials under these drivers.
    pub drivers: Vec<Driver>,
    /// Parameters that override the suite's, where they apply.
    pub params: Params,
    /// Ask for consensus whatever the suite says (`--consensus`).
    pub consensus: bool,
}

impl Overlay {
    fn filters(&self) -> bool {
        !(self.transports.is_empty() && self.workloads.is_empty() && self.drivers.is_empty())
    }

    fn keeps(&self, t: &TrialSpec) -> bool {
        (self.transports.is_empty() || self.transports.contains(&t.transport))
            && (self.workloads.is_empty() || self.workloads.contains(&t.workload))
            && (self.drivers.is_empty() || self.drivers.contains(&t.driver))
    }
}

/// Builds the plan of `suite` (`stem` names it when it has no `name`) with `overlay` on top.
pub fn build(
    suite: &SuiteFile,
    stem: &str,
    catalog: &Catalog,
    overlay: &Overlay,
) -> Result<Plan, Broken> {
    for t in &overlay.transports {
        catalog
            .lookup(t)
            .map_err(|e| Broken::at(&Origin::Flag("--transport"), e))?;
    }
    let Some(benches) = &suite.benchmark else {
        return Err(Broken::nowhere(
            "no [[benchmark]]: a suite needs at least one, e.g.\n  [[benchmark]]\n  workload = \"spsc\"\n  transports = [\"crossbeam-bounded\"]",
        ));
    };
    let mut trials = Vec::new();
    // Where each trial's message count was written, for a consensus conflict.
    let mut counts_at: Vec<Origin> = Vec::new();
    let mut applied: Vec<&str> = Vec::new();
    for (i, b) in benches.value.0.iter().enumerate() {
        let bench = Bench {
            catalog,
            index: i + 1,
            at: &b.origin,
            b: &b.value,
            own: b.value.params(),
            s: overlay.params.over(&b.value.params().over(&suite.defaults)),
        };
        let workloads = bench.workloads()?;
        for &w in &workloads {
            applied.extend(applying(&overlay.params, w));
            bench.expand(w, &mut trials)?;
            let at = bench.s.messages.as_ref().map_or(&b.origin, |m| &m.origin);
            counts_at.resize(trials.len(), at.clone());
        }
    }
    if let Some((key, origin)) = overlay
        .params
        .set_keys()
        .into_iter()
        .find(|(k, _)| !applied.contains(k))
    {
        return Err(Broken::at(
            origin,
            format!("`{key}` applies to none of the suite's workloads"),
        ));
    }
    if overlay.filters() {
        let kept: Vec<bool> = trials.iter().map(|t| overlay.keeps(t)).collect();
        let mut keep = kept.iter();
        trials.retain(|_| *keep.next().unwrap_or(&false));
        let mut keep = kept.iter();
        counts_at.retain(|_| *keep.next().unwrap_or(&false));
        if trials.is_empty() {
            return Err(Broken::nowhere(
                "the filters leave no trial of the suite to run",
            ));
        }
    }
    let asked = match &suite.consensus {
        _ if overlay.consensus => Some(Origin::Flag("--consensus")),
        Some(c) if c.value => Some(c.origin.clone()),
        _ => None,
    };
    if let Some(at) = &asked {
        consensus_applies(at, &trials, &counts_at)?;
    }
    Ok(Plan {
        name: suite.name.clone().unwrap_or_else(|| stem.to_string()),
        description: suite.description.clone(),
        probes: suite.probes.unwrap_or(defaults::PROBES),
        trials,
        consensus: asked.is_some(),
        gates: super::gates::check(&suite.gate, catalog)?,
    })
}

/// Consensus needs trials that can be compared, and one count per stream (see
/// [`crate::consensus::count`]). `asked`: where consensus was asked for.
fn consensus_applies(
    asked: &Origin,
    trials: &[TrialSpec],
    counts_at: &[Origin],
) -> Result<(), Broken> {
    use crate::consensus::StreamKey;
    if trials.iter().all(|t| StreamKey::of_spec(t).is_err()) {
        let why = trials
            .iter()
            .find_map(|t| StreamKey::of_spec(t).err())
            .unwrap_or("there is no trial");
        return Err(Broken::at(
            asked,
            format!("consensus compares the digests of transports that deliver one stream, but no trial here delivers a stream that can be compared: {why}"),
        ));
    }
    match crate::consensus::count::conflict(trials) {
        Some(c) => Err(Broken::at(&counts_at[c.second], c.message)),
        None => Ok(()),
    }
}

/// The keys of `p` that apply to `workload` when they come from `[defaults]` or an override.
fn applying(p: &Params, workload: WorkloadKind) -> Vec<&'static str> {
    p.set_keys()
        .into_iter()
        .map(|(k, _)| k)
        .filter(|k| applies(k, workload))
        .collect()
}

/// Whether a key applies to workload `w`, and if not, why. `own`: the benchmark writes the key
/// itself (its `consumers` make an open-loop fan-out; inherited ones are meant for `mpmc`).
fn scope(key: &str, w: WorkloadKind, own: bool) -> Result<(), &'static str> {
    use WorkloadKind::*;
    match key {
        "producers" if matches!(w, Spsc | PingPong) => Err("it always runs 1 producer"),
        "consumers" if matches!(w, Spsc | PingPong | Mpsc) => Err("it always runs 1 consumer"),
        "consumers" if !own && w != Mpmc => Err("an inherited `consumers` is for mpmc"),
        "rate" | "pacer" | "ramp" if !w.is_open_loop() => {
            Err("closed loop; it applies to paced, ramp and pipeline")
        }
        "hop_capacity" | "stage_work_ns" | "delivery" if w != Pipeline => {
            Err("it applies only to workload `pipeline`")
        }
        "capacity" if w == Pipeline => Err("give one capacity per hop with `hop_capacity`"),
        "batch" if w == Pipeline => Err("events move one at a time"),
        _ => Ok(()),
    }
}

/// Whether a key inherited from `[defaults]` or the command line applies to `workload`.
fn applies(key: &str, w: WorkloadKind) -> bool {
    scope(key, w, false).is_ok()
}

/// The value of an optional setting, or `default`.
fn or<T: Clone, U>(x: &Option<At<T>>, f: impl FnOnce(&T) -> U, default: U) -> U {
    x.as_ref().map_or(default, |a| f(&a.value))
}

/// One `[[benchmark]]` being expanded.
struct Bench<'a> {
    catalog: &'a Catalog,
    index: usize,
    at: &'a Origin,
    b: &'a Benchmark,
    /// The keys the benchmark writes itself.
    own: Params,
    /// Every layer merged.
    s: Params,
}

impl Bench<'_> {
    fn workloads(&self) -> Result<Vec<WorkloadKind>, Broken> {
        match &self.b.workload {
            Some(w) => Ok(w.value.0.iter().map(|p| p.0).collect()),
            None => Err(Broken::at(
                self.at,
                format!(
                    "[[benchmark]] #{} names no workload: add e.g. `workload = \"spsc\"` (one of {})",
                    self.index,
                    WorkloadKind::ALL.map(|w| w.name()).join(", ")
                ),
            )),
        }
    }

    /// Checked transport names: each on every hop, or (for `hops`) the first hop's.
    fn transports(&self) -> Result<Vec<String>, Broken> {
        let names = match (&self.b.transports, &self.b.hops) {
            (Some(_), Some(h)) => {
                return Err(Broken::at(
                    &h.origin,
                    "give either `hops` (one transport per hop) or `transports` (each on every hop), not both",
                ))
            }
            (Some(t), None) => &t.value.0,
            (None, Some(h)) => &h.value.0,
            (None, None) => {
                return Err(Broken::at(
                    self.at,
                    format!(
                        "[[benchmark]] #{} names no transport: add e.g. `transports = [\"crossbeam-bounded\"]`",
                        self.index
                    ),
                ))
            }
        };
        let at = match (&self.b.transports, &self.b.hops) {
            (Some(t), _) => &t.origin,
            (_, Some(h)) => &h.origin,
            _ => self.at,
        };
        for n in names {
            self.catalog
                .lookup(n)
                .map_err(|e| Broken::at_word(at, n, e))?;
        }
        Ok(names.clone())
    }

    /// Appends the trials of `workload`.
    fn expand(&self, workload: WorkloadKind, trials: &mut Vec<TrialSpec>) -> Result<(), Broken> {
        let s = &self.s;
        let pipeline = workload == WorkloadKind::Pipeline;
        if let Some(h) = &self.b.hops {
            if !pipeline {
                return Err(Broken::at(
                    &h.origin,
                    format!("`hops` applies only to workload `pipeline`, not `{workload}`"),
                ));
            }
        }
        let transports = self.transports()?;
        let options = self.options(&transports)?;
        self.own_keys_apply(workload)?;
        let (producers, consumers) = self.topology(workload);
        let pacings = self.pacings(workload)?;
        let (transports, pipelines) = if pipeline {
            // The chains name every hop's transport; the first hop's is the trial's.
            (vec![String::new()], self.pipelines(&transports)?)
        } else {
            (transports, vec![None])
        };
        let capacities = if pipeline {
            vec![0]
        } else {
            or(
                &s.capacity,
                |c| c.0.iter().map(|c| c.size()).collect(),
                vec![defaults::CAPACITY],
            )
        };
        let template = TrialSpec {
            transport: String::new(),
            workload,
            driver: Driver::Threads,
            payload: defaults::PAYLOAD,
            capacity: defaults::CAPACITY,
            producers: 1,
            consumers: 1,
            messages: Messages::Fixed(1),
            batch: None,
            options: BTreeMap::new(),
            samples: or(&s.samples, |n| n.size(), defaults::SAMPLES),
            warmup: or(&s.warmup, |n| n.size(), defaults::WARMUP),
            timeout_ms: or(&s.timeout_ms, |n| n.0, defaults::TIMEOUT_MS),
            pin: or(&s.pin, |b| *b, defaults::PIN),
            pacing: Pacing::Closed,
            pacer: or(&s.pacer, |p| p.0, Default::default()),
            pipeline: None,
            layout: None,
        };
        let mut out = vec![template];
        out = product(out, &transports, |t, v| t.transport.clone_from(v));
        out = product(
            out,
            &or(
                &s.payload,
                |p| p.0.iter().map(|x| x.0).collect(),
                vec![defaults::PAYLOAD],
            ),
            |t, v| t.payload = *v,
        );
        out = product(out, &capacities, |t, v| t.capacity = *v);
        out = product(out, &producers, |t, v| t.producers = *v);
        out = product(out, &consumers, |t, v| t.consumers = *v);
        out = product(
            out,
            &or(&s.batch, |b| b.0.iter().map(|x| x.0).collect(), vec![None]),
            |t, v| t.batch = *v,
        );
        out = product(out, &self.counts()?, |t, v| t.messages = *v);
        out = product(out, &options, |t, v| t.options.clone_from(v));
        out = product(out, &pacings, |t, v| t.pacing = v.clone());
        out = product(out, &pipelines, |t, v| {
            if let Some(p) = v {
                t.transport.clone_from(&p.hops[0].transport);
                t.capacity = p.hops[0].capacity;
                t.pipeline = Some(p.clone());
            }
        });
        let drivers = or(
            &s.driver,
            |d| d.0.iter().map(|x| x.0).collect(),
            vec![Driver::Threads],
        );
        out = product(out, &drivers, |t, v| t.driver = *v);
        trials.extend(out);
        Ok(())
    }

    /// The message counts, with the `auto` bounds checked.
    fn counts(&self) -> Result<Vec<Messages>, Broken> {
        let s = &self.s;
        let target_ms = or(&s.target_ms, |n| n.0, defaults::TARGET_MS);
        let min = or(&s.min_messages, |n| n.0, defaults::MIN_MESSAGES);
        let max = or(&s.max_messages, |n| n.0, defaults::MAX_MESSAGES);
        if min > max {
            let at = s.min_messages.as_ref().map(|a| &a.origin);
            return Err(Broken {
                origin: at.or(s.max_messages.as_ref().map(|a| &a.origin)).cloned(),
                message: format!("`min_messages` ({min}) is larger than `max_messages` ({max})"),
                word: None,
            });
        }
        Ok(or(&s.messages, |m| m.0.clone(), vec![Count::Auto])
            .into_iter()
            .map(|c| match c {
                Count::Auto => Messages::Auto {
                    target_ms,
                    min,
                    max,
                },
                Count::Fixed(n) => Messages::Fixed(n),
            })
            .collect())
    }

    /// Producer and consumer counts for `workload` (its own keys already checked).
    fn topology(&self, workload: WorkloadKind) -> (Vec<usize>, Vec<usize>) {
        use WorkloadKind::*;
        let producers = match workload {
            Spsc | PingPong => vec![1],
            _ => sizes(&self.s.producers).unwrap_or_else(|| defaults::producers(workload)),
        };
        let consumers = match workload {
            Spsc | PingPong | Mpsc => vec![1],
            Mpmc => sizes(&self.s.consumers).unwrap_or(vec![defaults::consumers(workload)]),
            // An open-loop trial's consumers are its sinks: more than one is a fan-out from a
            // broadcast last hop, which only a benchmark's own `consumers` asks for.
            Paced | Ramp | Pipeline => sizes(&self.own.consumers).unwrap_or(vec![1]),
        };
        (producers, consumers)
    }

    /// The pacings: closed loop for the streaming workloads, the `rate` list otherwise.
    fn pacings(&self, workload: WorkloadKind) -> Result<Vec<Pacing>, Broken> {
        let ramp = or(&self.s.ramp, |r| r.0.clone(), RampSpec::default());
        if !workload.is_open_loop() {
            return Ok(vec![Pacing::Closed]);
        }
        if workload == WorkloadKind::Ramp {
            if let Some(r) = &self.own.rate {
                if r.value.0.iter().any(|e| matches!(e, Rate::Fixed(_))) {
                    return Err(Broken::at(
                        &r.origin,
                        "workload `ramp` searches the rate itself: set its steps with `ramp = { start = …, factor = … }`, or use workload `paced` for a fixed rate",
                    ));
                }
            }
            return Ok(vec![Pacing::Ramp(ramp)]);
        }
        let rates = or(
            &self.s.rate,
            |r| r.0.clone(),
            vec![Rate::Fixed(defaults::rate(workload))],
        );
        Ok(rates
            .into_iter()
            .map(|e| match e {
                Rate::Fixed(r) => Pacing::Rate(r),
                Rate::Ramp => Pacing::Ramp(ramp.clone()),
            })
            .collect())
    }

    /// Every key the benchmark writes itself must apply to `workload` (a count of 1 producer or
    /// consumer always does): it would otherwise be silently ignored.
    fn own_keys_apply(&self, workload: WorkloadKind) -> Result<(), Broken> {
        let ones = |k: &str| match k {
            "producers" => not_one(&self.own.producers).is_none(),
            "consumers" => not_one(&self.own.consumers).is_none(),
            _ => false,
        };
        for (key, at) in self.own.set_keys() {
            if let Err(why) = scope(key, workload, true) {
                if !ones(key) {
                    return Err(Broken::at(
                        at,
                        format!("`{key}` does not apply to workload `{workload}` ({why}); put `{workload}` in a [[benchmark]] of its own"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The hops of a pipeline benchmark: `hops` (one transport per hop) or each transport on
    /// every hop, with `hop_capacity` (one per hop), checked against the delivery modes.
    fn pipelines(&self, transports: &[String]) -> Result<Vec<Option<PipelineSpec>>, Broken> {
        let s = &self.s;
        let capacities: Vec<usize> = or(
            &s.hop_capacity,
            |c| c.0.iter().map(|n| n.size()).collect(),
            defaults::HOP_CAPACITIES.to_vec(),
        );
        let chains: Vec<Vec<String>> = match &self.b.hops {
            Some(h) => {
                if h.value.0.len() != capacities.len() {
                    let (at, msg) = match &s.hop_capacity {
                        Some(c) => (&c.origin, format!(
                            "`hop_capacity` has {} values but `hops` names {} hops: give one capacity per hop",
                            capacities.len(), h.value.0.len())),
                        None => (&h.origin, format!(
                            "{} hops but the default `hop_capacity` has {}: give `hop_capacity` with one capacity per hop",
                            h.value.0.len(), capacities.len())),
                    };
                    return Err(Broken::at(at, msg));
                }
                vec![transports.to_vec()]
            }
            None => transports
                .iter()
                .map(|t| vec![t.clone(); capacities.len()])
                .collect(),
        };
        let deliveries = or(
            &s.delivery,
            |d| d.0.iter().map(|x| x.0).collect(),
            vec![Delivery::Sequential],
        );
        let at = s.delivery.as_ref().map_or(self.at, |d| &d.origin);
        let mut out = Vec::new();
        for chain in chains {
            let conflating = chain.iter().find(|t| {
                self.catalog
                    .get(t)
                    .is_some_and(|e| e.info().semantics.ordering == Ordering::Latest)
            });
            for &delivery in &deliveries {
                match (delivery, conflating) {
                    (Delivery::Latest, None) => return Err(Broken::at(at, format!(
                        "delivery \"latest\" needs a conflating hop (a transport with `latest` ordering, e.g. `latest-cell`) among the hops ({})",
                        chain.join(", ")))),
                    (Delivery::Sequential, Some(t)) => return Err(Broken::at(at, format!(
                        "hop `{t}` conflates (keeps only the newest value), so not every event can reach the sink: use delivery = \"latest\""))),
                    _ => {}
                }
                out.push(Some(PipelineSpec {
                    hops: chain
                        .iter()
                        .zip(&capacities)
                        .map(|(t, &capacity)| Hop {
                            transport: t.clone(),
                            capacity,
                        })
                        .collect(),
                    stage_work_ns: or(&s.stage_work_ns, |n| n.0, defaults::STAGE_WORK_NS),
                    delivery,
                }));
            }
        }
        Ok(out)
    }

    /// Every combination of the benchmark's option values, the last option varying fastest.
    ///
    /// Each option must be declared by every transport of the benchmark, and each value be one
    /// they list (an option declared without values takes any): a misspelt option would
    /// otherwise be ignored by every adapter while the report echoed it as if applied.
    fn options(&self, transports: &[String]) -> Result<Vec<BTreeMap<String, String>>, Broken> {
        let mut sets = vec![BTreeMap::new()];
        let Some(table) = &self.b.options else {
            return Ok(sets);
        };
        let declared: Vec<&OptionSpec> = transports
            .iter()
            .filter_map(|n| self.catalog.get(n))
            .flat_map(|e| e.info().options.iter())
            .collect();
        for (name, values) in &table.value {
            let specs: Vec<&&OptionSpec> = declared.iter().filter(|o| &o.name == name).collect();
            if specs.is_empty() {
                let mut names: Vec<&str> = declared.iter().map(|o| o.name.as_str()).collect();
                names.sort_unstable();
                names.dedup();
                let known = if names.is_empty() {
                    "these transports take no options".to_string()
                } else {
                    format!("these transports take {}", names.join(", "))
                };
                return Err(Broken::at(
                    &table.origin,
                    format!(
                        "{} ({known})",
                        crate::suggest::unknown("option", name, names.iter().copied())
                    ),
                ));
            }
            if let Some(t) = transports.iter().find(|t| {
                self.catalog
                    .get(t)
                    .is_some_and(|e| !e.info().options.iter().any(|o| &o.name == name))
            }) {
                return Err(Broken::at(&table.origin, format!(
                    "transport `{t}` does not take option `{name}`; put the transports that do in a [[benchmark]] of their own"
                )));
            }
            let mut allowed: Vec<&str> = specs
                .iter()
                .flat_map(|o| o.values.iter().map(String::as_str))
                .collect();
            allowed.sort_unstable();
            allowed.dedup();
            let open = specs.iter().any(|o| o.values.is_empty());
            let values: Vec<String> = values.value.0.iter().map(|v| v.0.clone()).collect();
            if let Some(bad) = values
                .iter()
                .find(|v| !open && !allowed.contains(&v.as_str()))
            {
                return Err(Broken::at_word(
                    &values_origin(table, name),
                    bad,
                    format!(
                        "{} (it takes {})",
                        crate::suggest::unknown(
                            &format!("value for option `{name}`:"),
                            bad,
                            allowed.iter().copied()
                        ),
                        allowed.join(", ")
                    ),
                ));
            }
            sets = product(sets, &values, |set, v| {
                set.insert(name.clone(), v.clone());
            });
        }
        Ok(sets)
    }
}

fn values_origin(table: &At<BTreeMap<String, At<List<OptValue>>>>, name: &str) -> Origin {
    table
        .value
        .get(name)
        .map_or(table.origin.clone(), |v| v.origin.clone())
}

/// The counts of a list of integers, if set.
fn sizes<const A: u64, const B: u64>(x: &Option<At<List<Int<A, B>>>>) -> Option<Vec<usize>> {
    x.as_ref()
        .map(|a| a.value.0.iter().map(|n| n.size()).collect())
}

/// Where a list of counts holding something other than 1 was written.
fn not_one<const A: u64, const B: u64>(x: &Option<At<List<Int<A, B>>>>) -> Option<&Origin> {
    x.as_ref()
        .filter(|a| a.value.0.iter().any(|n| n.0 != 1))
        .map(|a| &a.origin)
}

/// Each item of `items` once per value, the values varying fastest.
fn product<T: Clone, V>(items: Vec<T>, values: &[V], set: impl Fn(&mut T, &V)) -> Vec<T> {
    items
        .into_iter()
        .flat_map(|item| {
            values
                .iter()
                .map(|v| {
                    let mut x = item.clone();
                    set(&mut x, v);
                    x
                })
                .collect::<Vec<_>>()
        })
        .collect()
}
