//! The one plan builder: a suite (from a file or from flags) plus what the command line adds
//! on top of it → the checked list of trials.
//!
//! # Layers
//! A trial's parameter comes from the first of: the command line's overrides ([`Overlay`]),
//! the benchmark's own key, the suite's `[defaults]`, and [`super::defaults`]. A key a
//! benchmark writes itself must apply to each of its workloads (a `rate` on `spsc` is an error,
//! since it would be silently ignored); a key from `[defaults]` or an override applies where it
//! can, and an override that applies to none of the trials kept is an error.
//!
//! # Counting before expanding
//! Every benchmark is first checked and reduced to its dimensions (the values of each swept key,
//! with the command line's filters already applied to the transports, workloads and drivers),
//! whose product is how many trials it makes. No trial is made until the whole suite's count is
//! known to be within `Limits::max_trials`: a suite of a few lists of 60
//! values is refused in microseconds with the keys that multiply it, not expanded into millions
//! of trials. A list longer than the limit is refused as it is read.
//!
//! # Expansion
//! Each `[[benchmark]]` expands to the cartesian product of its lists, in this order, the last
//! varying fastest: workload, transport, payload, capacity, producers, consumers, batch,
//! messages, each option (by option name), pacing, pipeline, driver, placement (so the drivers of one
//! transport and setting sit side by side and their samples interleave). Benchmarks follow each
//! other in file order. Names are checked here; whether a transport supports a workload or a
//! capacity is left to the engine, which reports such a trial `unsupported` or `invalid`.

use super::bounds::{self, Limits};
use super::defaults;
use super::error::{Broken, PlanErrorKind as Kind};
use super::schema::{Benchmark, Params, SuiteFile};
use super::value::{At, Count, Int, List, OptValue, Origin, Rate, Values};
use super::Plan;
use crate::catalog::Catalog;
use crate::semantics::Ordering;
use crate::suggest::{LookupError, Thing};
use crate::transport::OptionSpec;
use crate::workload::{
    Boundary, Delivery, Driver, Hop, MergeSource, Messages, Pacing, PipelineSpec, RampSpec,
    Reactor, TrialSpec, WorkloadKind,
};
use std::collections::BTreeMap;

/// What the command line adds on top of a suite file: filters that keep part of it, parameters
/// that override it, and the limits the plan is built under.
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
    /// The most trials the plan may expand to (`--max-trials`; default
    /// `bounds::MAX_TRIALS`).
    pub max_trials: Option<u64>,
    /// The memory budget of one trial's ring and verifier, bytes (default: half of the
    /// machine's memory, see `bounds`).
    pub memory: Option<u64>,
}

impl Overlay {
    fn filters(&self) -> bool {
        !(self.transports.is_empty() && self.workloads.is_empty() && self.drivers.is_empty())
    }

    /// The limits the plan is built under.
    pub fn limits(&self) -> Limits {
        let mut limits = match self.memory {
            Some(m) => Limits::fixed(bounds::MAX_TRIALS, m),
            None => Limits::machine(),
        };
        if let Some(n) = self.max_trials {
            limits.max_trials = n;
        }
        limits
    }

    /// The filters' own lists: each name once.
    fn check(&self) -> Result<(), Broken> {
        let twice = |flag: &'static str, values: Vec<String>| match List(values).repeated() {
            Some(v) => Err(Broken::new(
                Kind::Duplicate,
                format!("`{v}` is listed twice: give each value once"),
            )
            .at(&Origin::Flag(flag))),
            None => Ok(()),
        };
        twice("--transport", self.transports.clone())?;
        twice(
            "--workload",
            self.workloads.iter().map(|w| w.to_string()).collect(),
        )?;
        twice(
            "--driver",
            self.drivers.iter().map(|d| d.to_string()).collect(),
        )
    }
}

/// Checks a driver against the catalog's: a registered driver's name must be known (else the
/// closest names), and its worker count written where it takes one.
fn known_driver(catalog: &Catalog, d: Driver) -> Result<(), Broken> {
    if let Driver::Registered { name, .. } = d {
        catalog.driver(name.as_str()).map_err(Broken::unknown)?;
    }
    catalog
        .drivers()
        .check(d)
        .map_err(|why| Broken::new(Kind::Invalid, why.to_string()))
}

/// Builds the plan of `suite` (`stem` names it when it has no `name`) with `overlay` on top.
pub(crate) fn build(
    suite: &SuiteFile,
    stem: &str,
    catalog: &Catalog,
    overlay: &Overlay,
) -> Result<Plan, Broken> {
    let limits = overlay.limits();
    overlay.check()?;
    for t in &overlay.transports {
        catalog
            .lookup(t)
            .map_err(|e| Broken::unknown(e).at(&Origin::Flag("--transport")))?;
    }
    for d in &overlay.drivers {
        known_driver(catalog, *d).map_err(|e| e.at(&Origin::Flag("--driver")))?;
    }
    check_values(&overlay.params, &limits)?;
    check_values(&suite.defaults, &limits)?;
    let Some(benches) = &suite.benchmark else {
        return Err(Broken::new(
            Kind::Missing,
            "no [[benchmark]]: a suite needs at least one, e.g.\n  [[benchmark]]\n  workload = \"spsc\"\n  transports = [\"crossbeam-bounded\"]",
        ));
    };
    let benches: Vec<Bench> = benches
        .value
        .0
        .iter()
        .enumerate()
        .map(|(i, b)| Bench {
            catalog,
            index: i + 1,
            at: &b.origin,
            b: &b.value,
            own: b.value.params(),
            s: overlay.params.over(&b.value.params().over(&suite.defaults)),
        })
        .collect();
    // Every benchmark checked and counted; nothing expanded yet.
    let mut counted: Vec<(&Bench, Vec<Dims>)> = Vec::new();
    let mut applied: Vec<&str> = Vec::new();
    for bench in &benches {
        bench.check_lists(&limits)?;
        let mut dims = Vec::new();
        for w in bench.workloads()? {
            let d = bench.dims(w, overlay, &limits)?;
            if d.count() > 0 {
                applied.extend(applying(&overlay.params, w));
                dims.push(d);
            }
        }
        counted.push((bench, dims));
    }
    let total: u128 = counted
        .iter()
        .flat_map(|(_, d)| d.iter().map(Dims::count))
        .sum();
    if total == 0 {
        return Err(Broken::new(
            Kind::Conflict,
            "the filters leave no trial of the suite to run",
        ));
    }
    if let Some((key, origin)) = overlay
        .params
        .set_keys()
        .into_iter()
        .find(|(k, _)| !applied.contains(k))
    {
        let none = if overlay.filters() {
            "none of the trials that --transport, --workload and --driver keep"
        } else {
            "none of the suite's workloads"
        };
        return Err(
            Broken::new(Kind::Conflict, format!("`{key}` applies to {none}"))
                .at(origin)
                .key(key),
        );
    }
    if total > u128::from(limits.max_trials) {
        return Err(too_many(&counted, total, &limits));
    }
    let mut trials = Vec::with_capacity(total as usize);
    // Where each trial's message count was written, for a consensus conflict.
    let mut counts_at: Vec<Origin> = Vec::with_capacity(total as usize);
    for (bench, dims) in counted {
        for d in dims {
            d.expand(&mut trials);
            let at = bench.s.messages.as_ref().map_or(bench.at, |m| &m.origin);
            counts_at.resize(trials.len(), at.clone());
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
        name: suite
            .name
            .as_ref()
            .map_or_else(|| stem.to_string(), |n| n.0.clone()),
        description: suite.description.as_ref().map(|d| d.0.clone()),
        probes: suite.probes.unwrap_or(defaults::PROBES),
        trials,
        consensus: asked.is_some(),
        gates: super::gates::check(&suite.gate, catalog)?,
    })
}

/// The error of a plan over the trial limit: the largest benchmark's count and the keys that
/// multiply it.
fn too_many(counted: &[(&Bench, Vec<Dims>)], total: u128, limits: &Limits) -> Broken {
    let per: Vec<(&Bench, u128, String)> = counted
        .iter()
        .map(|(b, d)| (*b, d.iter().map(Dims::count).sum(), describe(d)))
        .collect();
    let limit = format!(
        "the limit is {} (--max-trials to raise it)",
        bounds::thousands(limits.max_trials.into())
    );
    // The first of the largest.
    let Some((bench, largest, why)) = per.iter().rev().max_by_key(|(_, n, _)| *n) else {
        return Broken::new(Kind::Limit, limit);
    };
    let what = |b: &Bench| format!("benchmark {}", b.index);
    let message = if *largest > u128::from(limits.max_trials) {
        let who = match bench.at {
            Origin::Flag(_) => "the flags expand".to_string(),
            Origin::File(_) => format!("{} expands", what(bench)),
        };
        format!(
            "{who} to {} trials: {why}; {limit}",
            bounds::thousands(*largest)
        )
    } else {
        let mut parts: Vec<String> = per
            .iter()
            .filter(|(_, n, _)| *n > 0)
            .map(|(b, n, why)| format!("{}: {} ({why})", what(b), bounds::thousands(*n)))
            .collect();
        if parts.len() > 4 {
            let more = parts.len() - 3;
            parts.truncate(3);
            parts.push(format!("{more} more"));
        }
        format!(
            "the suite expands to {} trials: {}; {limit}",
            bounds::thousands(total),
            parts.join(", ")
        )
    };
    match bench.at {
        Origin::File(_) if *largest > u128::from(limits.max_trials) => {
            Broken::new(Kind::Limit, message).at(bench.at)
        }
        _ => Broken::new(Kind::Limit, message),
    }
}

/// "capacity (60) × producers (60)", per workload where they differ.
fn describe(dims: &[Dims]) -> String {
    let show = |f: &[(String, usize)]| -> String {
        let parts: Vec<String> = f
            .iter()
            .filter(|(_, n)| *n > 1)
            .map(|(k, n)| format!("{k} ({n})"))
            .collect();
        if parts.is_empty() {
            "one trial".into()
        } else {
            parts.join(" × ")
        }
    };
    let factors: Vec<Vec<(String, usize)>> = dims.iter().map(Dims::factors).collect();
    match factors.as_slice() {
        [] => "no trial kept".into(),
        [one] => show(one),
        [first, rest @ ..] if rest.iter().all(|f| f == first) => {
            let mut all = vec![("workload".to_string(), factors.len())];
            all.extend(first.iter().cloned());
            show(&all)
        }
        _ => dims
            .iter()
            .zip(&factors)
            .map(|(d, f)| format!("{}: {}", d.template.workload, show(f)))
            .collect::<Vec<_>>()
            .join(" + "),
    }
}

/// Every list of `p` is within the trial limit and names each value once (a pipeline's
/// `hop_capacity` is one value per hop, not a sweep: it may repeat, and holds at most
/// [`bounds::MAX_HOPS`]).
fn check_values(p: &Params, limits: &Limits) -> Result<(), Broken> {
    for (key, at, v) in p.set_values() {
        check_list(key, at, v, limits)?;
    }
    Ok(())
}

/// One list: within the trial limit, each value once (`hops` and `hop_capacity`: a value per hop).
fn check_list(key: &str, at: &Origin, v: &dyn Values, limits: &Limits) -> Result<(), Broken> {
    let per_hop = matches!(key, "hops" | "hop_capacity");
    let n = v.count();
    if per_hop && n > bounds::MAX_HOPS {
        return Err(Broken::new(
            Kind::Limit,
            format!(
                "`{key}` gives {n} hops; a pipeline has at most {}",
                bounds::MAX_HOPS
            ),
        )
        .at(at)
        .key(key));
    }
    if n as u64 > limits.max_trials {
        return Err(Broken::new(
            Kind::Limit,
            format!(
                "`{key}` lists {} values, more than the trial limit of {} allows (--max-trials to raise it)",
                bounds::thousands(n as u128),
                bounds::thousands(limits.max_trials.into())
            ),
        )
        .at(at)
        .key(key));
    }
    if !per_hop {
        if let Some(dup) = v.repeated() {
            return Err(Broken::new(
                Kind::Duplicate,
                format!("`{key}` lists `{dup}` twice: give each value once"),
            )
            .at_nth_word(at, &dup, 1)
            .key(key));
        }
    }
    Ok(())
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
        return Err(Broken::new(
            Kind::Conflict,
            format!("consensus compares the digests of transports that deliver one stream, but no trial here delivers a stream that can be compared: {why}"),
        )
        .at(asked));
    }
    match crate::consensus::count::conflict(trials) {
        Some(c) => Err(Broken::new(Kind::Conflict, c.message).at(&counts_at[c.second])),
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
        "duration" | "window" if !w.is_open_loop() => {
            Err("closed loop; a soak is an open-loop run (paced, ramp or pipeline)")
        }
        "hop_capacity" | "stage_work_ns" | "delivery" | "reactor" | "reactor_work_ns"
        | "merge_hop" | "merge_rate"
            if w != Pipeline =>
        {
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
            None => Err(Broken::new(
                Kind::Missing,
                format!(
                    "[[benchmark]] #{} names no workload: add e.g. `workload = \"spsc\"` (one of {})",
                    self.index,
                    WorkloadKind::ALL.map(|w| w.name()).join(", ")
                ),
            )
            .at(self.at)),
        }
    }

    /// Checked transport names: each on every hop, or (for `hops`) the first hop's.
    fn transports(&self) -> Result<Vec<String>, Broken> {
        let names = match (&self.b.transports, &self.b.hops) {
            (Some(_), Some(h)) => {
                return Err(Broken::new(
                    Kind::Conflict,
                    "give either `hops` (one transport per hop) or `transports` (each on every hop), not both",
                )
                .at(&h.origin))
            }
            (Some(t), None) => &t.value.0,
            (None, Some(h)) => &h.value.0,
            (None, None) => {
                return Err(Broken::new(
                    Kind::Missing,
                    format!(
                        "[[benchmark]] #{} names no transport: add e.g. `transports = [\"crossbeam-bounded\"]`",
                        self.index
                    ),
                )
                .at(self.at))
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
                .map_err(|e| Broken::unknown(e).at_word(at, n))?;
        }
        Ok(names.clone())
    }

    /// The benchmark's own lists (its parameters, workloads, transports, hops and option
    /// values): each within the trial limit, each value once.
    fn check_lists(&self, limits: &Limits) -> Result<(), Broken> {
        check_values(&self.own, limits)?;
        if let Some(w) = &self.b.workload {
            check_list("workload", &w.origin, &w.value, limits)?;
        }
        if let Some(t) = &self.b.transports {
            check_list("transports", &t.origin, &t.value, limits)?;
        }
        if let Some(h) = &self.b.hops {
            check_list("hops", &h.origin, &h.value, limits)?;
        }
        if let Some(table) = &self.b.options {
            for (name, values) in &table.value {
                check_list(name, &values.origin, &values.value, limits)?;
            }
        }
        Ok(())
    }

    /// The dimensions of `workload`'s trials, checked, with the overlay's filters applied.
    fn dims(
        &self,
        workload: WorkloadKind,
        overlay: &Overlay,
        limits: &Limits,
    ) -> Result<Dims, Broken> {
        let s = &self.s;
        let pipeline = workload == WorkloadKind::Pipeline;
        if let Some(h) = &self.b.hops {
            if !pipeline {
                return Err(Broken::new(
                    Kind::Conflict,
                    format!("`hops` applies only to workload `pipeline`, not `{workload}`"),
                )
                .at(&h.origin));
            }
        }
        let transports = self.transports()?;
        let options = self.options(&transports)?;
        self.own_keys_apply(workload)?;
        let (producers, consumers) = self.topology(workload);
        let pacings = self.pacings(workload)?;
        let keep = |t: &String| overlay.transports.is_empty() || overlay.transports.contains(t);
        let (transports, pipelines) = if pipeline {
            // The chains name every hop's transport; the first hop's is the trial's.
            let chains = self
                .pipelines(&transports)?
                .into_iter()
                .filter(|p| p.as_ref().is_some_and(|p| keep(&p.hops[0].transport)))
                .collect();
            (vec![String::new()], chains)
        } else {
            (transports.into_iter().filter(keep).collect(), vec![None])
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
        let drivers: Vec<Driver> = or(
            &s.driver,
            |d| d.0.iter().map(|x| x.0).collect(),
            vec![Driver::Threads],
        );
        if let Some(at) = &s.driver {
            for d in &drivers {
                known_driver(self.catalog, *d).map_err(|e| e.at(&at.origin))?;
            }
        }
        let drivers: Vec<Driver> = drivers
            .into_iter()
            .filter(|d| overlay.drivers.is_empty() || overlay.drivers.contains(d))
            .collect();
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
            fresh_process: or(&s.fresh_process, |b| *b, false),
            placement: Default::default(),
            pacing: Pacing::Closed,
            pacer: or(&s.pacer, |p| p.0, Default::default()),
            pipeline: None,
            layout: None,
        };
        let placements: Vec<Boundary> = or(
            &s.placement,
            |d| d.0.iter().map(|x| x.0).collect(),
            vec![Boundary::Threads],
        );
        let dims = Dims {
            kept: overlay.workloads.is_empty() || overlay.workloads.contains(&workload),
            template,
            transports,
            payloads: or(
                &s.payload,
                |p| p.0.iter().map(|x| x.0).collect(),
                vec![defaults::PAYLOAD],
            ),
            capacities,
            producers,
            consumers,
            batches: or(&s.batch, |b| b.0.iter().map(|x| x.0).collect(), vec![None]),
            counts: self.counts(workload)?,
            options,
            pacings,
            pipelines,
            drivers,
            placements,
        };
        if dims.count() > 0 {
            self.fits_memory(&dims, limits)?;
        }
        Ok(dims)
    }

    /// What a trial allocates before it runs fits the memory budget: its ring (capacity ×
    /// message size; a pipeline's hops together) and its verifier's bitmap (one bit per message
    /// per consumer, where order cannot be checked by counting).
    fn fits_memory(&self, d: &Dims, limits: &Limits) -> Result<(), Broken> {
        let s = &self.s;
        let Some(payload) = d.payloads.iter().copied().max_by_key(|p| p.touched_bytes()) else {
            return Ok(());
        };
        let size = payload.touched_bytes() as u128;
        let entry = |t: &str| self.catalog.get(t).map(|e| e.info());
        let budget = u128::from(limits.memory);
        let is_pipeline = d.template.workload == WorkloadKind::Pipeline;
        // The ring.
        let bounded = d
            .transports
            .iter()
            .any(|t| entry(t).is_some_and(|i| i.semantics.bound.has_capacity()));
        let capacity = d.capacities.iter().copied().max().unwrap_or(0) as u128;
        if !is_pipeline && bounded && capacity * size > budget {
            let at = s.capacity.as_ref().map_or(self.at, |c| &c.origin);
            return Err(Broken::new(
                Kind::Limit,
                format!(
                    "capacity {capacity} × {size}-byte messages (`{payload}`) is a {} ring; {}",
                    bounds::size(u64::try_from(capacity * size).unwrap_or(u64::MAX)),
                    limits.memory_budget()
                ),
            )
            .at(at));
        }
        if let Some(p) = d.pipelines.iter().flatten().next() {
            let ring: u128 = p.hops.iter().map(|h| h.capacity as u128 * size).sum();
            if ring > budget {
                let at = s.hop_capacity.as_ref().map_or(self.at, |c| &c.origin);
                return Err(Broken::new(
                    Kind::Limit,
                    format!(
                        "the hops hold {} {size}-byte messages (`{payload}`) together, {}; {}",
                        p.hops.iter().map(|h| h.capacity as u128).sum::<u128>(),
                        bounds::size(u64::try_from(ring).unwrap_or(u64::MAX)),
                        limits.memory_budget()
                    ),
                )
                .at(at));
            }
        }
        // The verifier's bitmap.
        let most = d
            .counts
            .iter()
            .map(|m| match m {
                Messages::Fixed(n) => *n,
                Messages::Auto { max, .. } => *max,
                // A soak sends rate × duration, at its highest rate.
                Messages::Soak { duration_ms, .. } => {
                    let fastest = d.pacings.iter().filter_map(|p| match p {
                        Pacing::Rate(r) => Some(*r),
                        Pacing::Ramp(r) => Some(r.max),
                        Pacing::Closed => None,
                    });
                    Messages::over(fastest.max().unwrap_or(1), *duration_ms)
                }
            })
            .chain(d.pacings.iter().filter_map(|p| match p {
                // A ramp's step runs rate × step_ms messages, up to its highest rate.
                Pacing::Ramp(r) => Some(r.max.saturating_mul(r.step_ms) / 1000),
                _ => None,
            }))
            .max()
            .unwrap_or(0);
        let consumers = d.consumers.iter().copied().max().unwrap_or(1) as u64;
        let unordered = |i: &crate::transport::TransportInfo| {
            let o = i.semantics.ordering;
            !o.is_fifo() && !o.is_conflating()
        };
        let why = match d.template.workload {
            WorkloadKind::PingPong => None,
            WorkloadKind::Pipeline => d.pipelines.iter().flatten().find_map(|p| {
                let hop = p.hops.iter().find(|h| entry(&h.transport).is_some_and(unordered))?;
                (p.delivery == Delivery::Sequential).then(|| {
                    format!(
                        "hop `{}` promises no order, so each sink checks every event off in a bitmap",
                        hop.transport
                    )
                })
            }),
            w if w.is_open_loop() => d.transports.iter().find_map(|t| {
                entry(t).filter(|i| unordered(i)).map(|_| {
                    format!("`{t}` promises no order, so every message is checked off in a bitmap")
                })
            }),
            _ => d.transports.iter().find_map(|t| {
                let i = entry(t)?;
                if i.semantics.ordering.is_conflating() {
                    None
                } else if unordered(i) {
                    Some(format!(
                        "`{t}` promises no order, so every message is checked off in a bitmap"
                    ))
                } else if consumers > 1 {
                    Some(format!(
                        "{consumers} consumers share `{t}`'s stream, so each checks messages off in a bitmap"
                    ))
                } else {
                    None
                }
            }),
        };
        let sinks = if d.template.workload.is_open_loop() || consumers > 1 {
            consumers
        } else {
            1
        };
        let bitmap = bounds::bitmap_bytes(most, sinks);
        if let Some(why) = why.filter(|_| bitmap > budget) {
            let at = match &s.messages {
                Some(m)
                    if m.value
                        .0
                        .iter()
                        .any(|c| matches!(c, Count::Fixed(n) if *n == most)) =>
                {
                    &m.origin
                }
                _ => s.max_messages.as_ref().map_or(self.at, |m| &m.origin),
            };
            return Err(Broken::new(
                Kind::Limit,
                format!(
                    "{most} messages need a {} verifier bitmap (one bit per message{}): {why}; {}; lower `messages` (or `max_messages`)",
                    bounds::size(u64::try_from(bitmap).unwrap_or(u64::MAX)),
                    if sinks > 1 { " per consumer" } else { "" },
                    limits.memory_budget()
                ),
            )
            .at(at));
        }
        Ok(())
    }

    /// The message counts, with the `auto` bounds checked; for an open-loop `workload` with a
    /// `duration`, the soak (unless the benchmark gives its own `messages`).
    fn counts(&self, workload: WorkloadKind) -> Result<Vec<Messages>, Broken> {
        let s = &self.s;
        if let Some(soak) = self.soak(workload)? {
            return Ok(vec![soak]);
        }
        let target_ms = or(&s.target_ms, |n| n.0, defaults::TARGET_MS);
        let min = or(&s.min_messages, |n| n.0, defaults::MIN_MESSAGES);
        let max = or(&s.max_messages, |n| n.0, defaults::MAX_MESSAGES);
        if min > max {
            let at = s.min_messages.as_ref().map(|a| &a.origin);
            let at = at.or(s.max_messages.as_ref().map(|a| &a.origin));
            let message = format!("`min_messages` ({min}) is larger than `max_messages` ({max})");
            let broken = Broken::new(Kind::Conflict, message);
            return Err(match at {
                Some(at) => broken.at(at),
                None => broken,
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

    /// The soak `duration` and `window` ask for, if they apply: `duration` set (here or
    /// inherited) on an open-loop workload whose benchmark does not give its own `messages`.
    fn soak(&self, workload: WorkloadKind) -> Result<Option<Messages>, Broken> {
        let (s, own) = (&self.s, &self.own);
        if let (Some(d), Some(_)) = (&own.duration, &own.messages) {
            return Err(Broken::new(
                Kind::Conflict,
                "give either `duration` (a soak) or `messages` (a count), not both",
            )
            .at(&d.origin));
        }
        if let (Some(w), None) = (&own.window, &s.duration) {
            return Err(Broken::new(
                Kind::Missing,
                "`window` divides a soak: give its `duration` too (e.g. `duration = \"5m\"`)",
            )
            .at(&w.origin));
        }
        let Some(d) = &s.duration else {
            return Ok(None);
        };
        if !workload.is_open_loop() || (own.messages.is_some() && own.duration.is_none()) {
            return Ok(None);
        }
        let window_ms = or(&s.window, |w| w.0, defaults::SOAK_WINDOW_MS);
        if d.value.0 < 2 * window_ms {
            let at = s.window.as_ref().map_or(&d.origin, |w| &w.origin);
            return Err(Broken::new(
                Kind::Conflict,
                format!(
                    "a soak of {} in windows of {} has fewer than two windows: shorten `window` or lengthen `duration`",
                    d.value, handoff_model::fmt::span_ms(window_ms)
                ),
            )
            .at(at));
        }
        Ok(Some(Messages::Soak {
            duration_ms: d.value.0,
            window_ms,
        }))
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
                    return Err(Broken::new(
                        Kind::Conflict,
                        "workload `ramp` searches the rate itself: set its steps with `ramp = { start = …, factor = … }`, or use workload `paced` for a fixed rate",
                    )
                    .at(&r.origin));
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
                    // Said as it was written: a flag is dropped or run apart, a key in a file
                    // goes with the workloads it applies to.
                    let message = match at {
                        super::value::Origin::Flag(flag) => format!(
                            "{flag} does not apply to workload `{workload}` ({why}); drop it, or run `{workload}` in a run of its own"
                        ),
                        super::value::Origin::File(_) => format!(
                            "`{key}` does not apply to workload `{workload}` ({why}); put `{workload}` in a [[benchmark]] of its own"
                        ),
                    };
                    return Err(Broken::new(Kind::Conflict, message).at(at).key(key));
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
                    return Err(Broken::new(Kind::Conflict, msg).at(at));
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
        let reactors = or(
            &s.reactor,
            |r| r.0.iter().map(|x| x.0).collect(),
            vec![Reactor::Sequential],
        );
        let merge = match (&s.merge_hop, &s.merge_rate) {
            (Some(h), Some(r)) => Some((
                MergeSource {
                    hop: h.value.0 as usize,
                    rate: r.value.0,
                },
                &h.origin,
            )),
            (None, None) => None,
            (Some(h), None) => {
                return Err(Broken::new(
                    Kind::Conflict,
                    "`merge_hop` names the hop a second source feeds, but no `merge_rate` gives its rate (events per second)",
                )
                .at(&h.origin))
            }
            (None, Some(r)) => {
                return Err(Broken::new(
                    Kind::Conflict,
                    "`merge_rate` gives a second source's rate, but no `merge_hop` names the hop it feeds",
                )
                .at(&r.origin))
            }
        };
        let at = s.delivery.as_ref().map_or(self.at, |d| &d.origin);
        let mut out = Vec::new();
        for chain in chains {
            let conflates = |t: &String| {
                self.catalog
                    .get(t)
                    .is_some_and(|e| e.info().semantics.ordering == Ordering::Latest)
            };
            let conflating = chain.iter().find(|t| conflates(t));
            for &delivery in &deliveries {
                match (delivery, conflating) {
                    (Delivery::Latest, None) => return Err(Broken::new(Kind::Conflict, format!(
                        "delivery \"latest\" needs a conflating hop (a transport with `latest` ordering, e.g. `latest-cell`) among the hops ({})",
                        chain.join(", "))).at(at)),
                    (Delivery::Sequential, Some(t)) => return Err(Broken::new(Kind::Conflict, format!(
                        "hop `{t}` conflates (keeps only the newest value), so not every event can reach the sink: use delivery = \"latest\"")).at(at)),
                    _ => {}
                }
                for &reactor in &reactors {
                    let spec = PipelineSpec {
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
                        reactor,
                        reactor_work_ns: or(&s.reactor_work_ns, |n| n.0, defaults::REACTOR_WORK_NS),
                        merge: merge.map(|(m, _)| m),
                    };
                    let problem = crate::engine::pipeline::shape_problem(&spec, |i| {
                        conflates(&spec.hops[i].transport)
                    });
                    if let Some(p) = problem {
                        let at = match (p.key, &merge, &s.reactor) {
                            ("merge_hop", Some((_, at)), _) => *at,
                            ("reactor", _, Some(r)) => &r.origin,
                            _ => self.at,
                        };
                        return Err(Broken::new(Kind::Conflict, p.why).at(at).key(p.key));
                    }
                    out.push(Some(spec));
                }
            }
        }
        Ok(out)
    }

    /// The benchmark's options, each with its values (swept in option-name order, the last
    /// option varying fastest).
    ///
    /// Each option must be declared by every transport of the benchmark, and each value be one
    /// they list (an option declared without values takes any): a misspelt option would
    /// otherwise be ignored by every adapter while the report echoed it as if applied.
    fn options(&self, transports: &[String]) -> Result<Vec<(String, Vec<String>)>, Broken> {
        let mut sets = Vec::new();
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
                let lookup = LookupError::new(Thing::Option, name, names.iter().copied());
                return Err(Broken::unknown(lookup.note(known)).at(&table.origin));
            }
            if let Some(t) = transports.iter().find(|t| {
                self.catalog
                    .get(t)
                    .is_some_and(|e| !e.info().options.iter().any(|o| &o.name == name))
            }) {
                return Err(Broken::new(Kind::Conflict, format!(
                    "transport `{t}` does not take option `{name}`; put the transports that do in a [[benchmark]] of their own"
                )).at(&table.origin));
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
                let lookup = LookupError::new(
                    Thing::OptionValue(name.clone()),
                    bad,
                    allowed.iter().copied(),
                )
                .note(format!("it takes {}", allowed.join(", ")));
                return Err(Broken::unknown(lookup).at_word(&values_origin(table, name), bad));
            }
            sets.push((name.clone(), values));
        }
        Ok(sets)
    }
}

/// The dimensions of one benchmark's trials of one workload: the values of each swept key, the
/// overlay's filters applied. Their product is the trials it makes ([`Dims::count`]), made only
/// once the whole plan is known to be within its limit ([`Dims::expand`]).
struct Dims {
    /// Whether the overlay's workload filter keeps this workload.
    kept: bool,
    /// Every parameter that is not swept.
    template: TrialSpec,
    transports: Vec<String>,
    payloads: Vec<crate::payload::PayloadKind>,
    capacities: Vec<usize>,
    producers: Vec<usize>,
    consumers: Vec<usize>,
    batches: Vec<Option<usize>>,
    counts: Vec<Messages>,
    /// Each option and its values.
    options: Vec<(String, Vec<String>)>,
    pacings: Vec<Pacing>,
    pipelines: Vec<Option<PipelineSpec>>,
    drivers: Vec<Driver>,
    placements: Vec<Boundary>,
}

impl Dims {
    /// Each swept key and how many values it has, in expansion order.
    fn factors(&self) -> Vec<(String, usize)> {
        let pipeline = self.template.workload == WorkloadKind::Pipeline;
        let mut f = Vec::new();
        if pipeline {
            let chains: Vec<&Vec<Hop>> = {
                let mut c: Vec<&Vec<Hop>> = Vec::new();
                for p in self.pipelines.iter().flatten() {
                    if !c.contains(&&p.hops) {
                        c.push(&p.hops);
                    }
                }
                c
            };
            f.push(("transports".to_string(), chains.len()));
        } else {
            f.push(("transports".to_string(), self.transports.len()));
        }
        f.push(("payload".into(), self.payloads.len()));
        f.push(("capacity".into(), self.capacities.len()));
        f.push(("producers".into(), self.producers.len()));
        f.push(("consumers".into(), self.consumers.len()));
        f.push(("batch".into(), self.batches.len()));
        f.push(("messages".into(), self.counts.len()));
        for (name, values) in &self.options {
            f.push((format!("option `{name}`"), values.len()));
        }
        f.push(("rate".into(), self.pacings.len()));
        if pipeline {
            let chains = f[0].1.max(1);
            f.push(("delivery × reactor".into(), self.pipelines.len() / chains));
        }
        f.push(("driver".into(), self.drivers.len()));
        f.push(("placement".into(), self.placements.len()));
        f
    }

    /// How many trials these dimensions make (0 when a filter keeps none).
    fn count(&self) -> u128 {
        if !self.kept {
            return 0;
        }
        let options: u128 = self.options.iter().map(|(_, v)| v.len() as u128).product();
        [
            self.transports.len(),
            self.payloads.len(),
            self.capacities.len(),
            self.producers.len(),
            self.consumers.len(),
            self.batches.len(),
            self.counts.len(),
            self.pacings.len(),
            self.pipelines.len(),
            self.drivers.len(),
            self.placements.len(),
        ]
        .iter()
        .map(|&n| n as u128)
        .product::<u128>()
            * options
    }

    /// Appends the trials, in expansion order (see the module docs).
    fn expand(self, trials: &mut Vec<TrialSpec>) {
        if self.count() == 0 {
            return;
        }
        let mut sets = vec![BTreeMap::new()];
        for (name, values) in &self.options {
            sets = product(sets, values, |set, v| {
                set.insert(name.clone(), v.clone());
            });
        }
        let mut out = vec![self.template];
        out = product(out, &self.transports, |t, v| t.transport.clone_from(v));
        out = product(out, &self.payloads, |t, v| t.payload = *v);
        out = product(out, &self.capacities, |t, v| t.capacity = *v);
        out = product(out, &self.producers, |t, v| t.producers = *v);
        out = product(out, &self.consumers, |t, v| t.consumers = *v);
        out = product(out, &self.batches, |t, v| t.batch = *v);
        out = product(out, &self.counts, |t, v| t.messages = *v);
        out = product(out, &sets, |t, v| t.options.clone_from(v));
        out = product(out, &self.pacings, |t, v| t.pacing = v.clone());
        out = product(out, &self.pipelines, |t, v| {
            if let Some(p) = v {
                t.transport.clone_from(&p.hops[0].transport);
                t.capacity = p.hops[0].capacity;
                t.pipeline = Some(p.clone());
            }
        });
        out = product(out, &self.drivers, |t, v| t.driver = *v);
        out = product(out, &self.placements, |t, v| t.placement = *v);
        trials.extend(out);
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
