//! Gates a suite declares (`[[gate]]`), checked when the run ends; a failed gate makes the run
//! exit 4.
//!
//! ```toml
//! [[gate]]                    # the most producers that fit the cores reach 1.5x one producer
//! kind = "scaling"
//! transports = ["handoff-mpsc"]   # default: every transport swept over producer counts
//! min = 1.5
//! up_to = "cores"                 # default; "top" (the most swept) or a producer count
//! metric = "submit"               # the producers' submit rate; default "delivery"
//!
//! [[gate]]                    # handoff-mpsc at least matches the best other transport, per K
//! kind = "ratio"
//! transports = "handoff-mpsc"
//! options = { wake = "edge" }     # which of its results (default: its best at each point)
//! over = "best"                   # or one transport's name
//! min = 1.0
//!
//! [[gate]]                    # no result significantly slower than the named baseline's
//! kind = "regression"
//! baseline = "main"
//! max = "5%"
//! ```

use super::error::{Broken, PlanErrorKind as Kind};
use super::schema::GateSpec;
use super::value::{At, Origin};
use crate::catalog::Catalog;
use crate::suggest::{LookupError, Thing};
pub use handoff_model::gate::{Gate, Over, Rate, UpTo};

const KINDS: [&str; 3] = ["scaling", "ratio", "regression"];
const METRICS: [&str; 2] = ["delivery", "submit"];

/// Checks the gates as written.
pub(crate) fn check(specs: &[At<GateSpec>], catalog: &Catalog) -> Result<Vec<Gate>, Broken> {
    specs
        .iter()
        .map(|s| check_one(&s.value, &s.origin, catalog))
        .collect()
}

fn check_one(s: &GateSpec, at: &Origin, catalog: &Catalog) -> Result<Gate, Broken> {
    let Some(kind) = &s.kind else {
        return Err(Broken::new(
            Kind::Missing,
            format!(
                "a gate needs `kind`, e.g. `kind = \"scaling\"` (one of {})",
                KINDS.join(", ")
            ),
        )
        .at(at)
        .key("kind"));
    };
    let transports = match &s.transports {
        Some(t) => {
            for name in &t.value.0 {
                catalog
                    .lookup(name)
                    .map_err(|e| Broken::unknown(e).at_word(&t.origin, name))?;
            }
            t.value.0.clone()
        }
        None => Vec::new(),
    };
    let min = |what: &str| -> Result<f64, Broken> {
        let m = s.min.as_ref().ok_or_else(|| {
            Broken::new(
                Kind::Missing,
                format!("a {what} gate needs `min`, e.g. `min = 1.5`"),
            )
            .at(at)
        })?;
        if !(m.value.is_finite() && m.value > 0.0) {
            return Err(Broken::new(
                Kind::OutOfRange,
                "`min` must be a positive factor, e.g. 1.5",
            )
            .at(&m.origin));
        }
        Ok(m.value)
    };
    let unused = |key: &str, present: bool| -> Result<(), Broken> {
        if present {
            Err(Broken::new(
                Kind::Conflict,
                format!("`{key}` does not apply to a `{}` gate", kind.value),
            )
            .at(&kind.origin)
            .key(key))
        } else {
            Ok(())
        }
    };
    match kind.value.as_str() {
        "scaling" => {
            unused("over", s.over.is_some())?;
            unused("baseline", s.baseline.is_some())?;
            unused("max", s.max.is_some())?;
            unused("options", s.options.is_some())?;
            unused("allow_unjudged", s.allow_unjudged.is_some())?;
            let metric = match &s.metric {
                None => Rate::Delivery,
                Some(m) => match m.value.as_str() {
                    "delivery" => Rate::Delivery,
                    "submit" => Rate::Submit,
                    other => {
                        let e =
                            LookupError::new(Thing::Other("gate metric".into()), other, METRICS);
                        return Err(Broken::unknown(e).at(&m.origin));
                    }
                },
            };
            Ok(Gate::Scaling {
                transports,
                min: min("scaling")?,
                up_to: s.up_to.as_ref().map_or(UpTo::Cores, |u| u.value.0),
                metric,
            })
        }
        "ratio" => {
            unused("up_to", s.up_to.is_some())?;
            unused("metric", s.metric.is_some())?;
            unused("baseline", s.baseline.is_some())?;
            unused("max", s.max.is_some())?;
            unused("allow_unjudged", s.allow_unjudged.is_some())?;
            let [transport] = transports.as_slice() else {
                return Err(Broken::new(
                    Kind::Conflict,
                    "a ratio gate judges one transport: `transport = \"NAME\"`",
                )
                .at(s.transports.as_ref().map_or(at, |t| &t.origin)));
            };
            let over = match &s.over {
                None => Over::Best,
                Some(o) if o.value == "best" => Over::Best,
                Some(o) => {
                    catalog.lookup(&o.value).map_err(|e| {
                        let message = format!("{e} (or `best`)");
                        Broken::new(Kind::Unknown(Box::new(e)), message).at(&o.origin)
                    })?;
                    Over::Transport(o.value.clone())
                }
            };
            Ok(Gate::Ratio {
                transport: transport.clone(),
                options: s.options.clone().unwrap_or_default(),
                over,
                min: min("ratio")?,
            })
        }
        "regression" => {
            unused("up_to", s.up_to.is_some())?;
            unused("metric", s.metric.is_some())?;
            unused("transports", s.transports.is_some())?;
            unused("over", s.over.is_some())?;
            unused("min", s.min.is_some())?;
            let baseline = s.baseline.as_ref().ok_or_else(|| {
                Broken::new(
                    Kind::Missing,
                    "a regression gate needs `baseline`, e.g. `baseline = \"main\"`",
                )
                .at(at)
            })?;
            let max = s.max.as_ref().ok_or_else(|| {
                Broken::new(
                    Kind::Missing,
                    "a regression gate needs `max`, e.g. `max = \"5%\"`",
                )
                .at(at)
            })?;
            let text = max.value.trim();
            let v: f64 = text
                .strip_suffix('%')
                .unwrap_or(text)
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| (0.0..100.0).contains(v))
                .ok_or_else(|| {
                    Broken::new(
                        Kind::OutOfRange,
                        "`max` is a percentage below 100%, e.g. \"5%\"",
                    )
                    .at(&max.origin)
                })?;
            Ok(Gate::Regression {
                baseline: baseline.value.clone(),
                max: v / 100.0,
                allow_unjudged: s.allow_unjudged.as_ref().is_some_and(|a| a.value),
            })
        }
        other => {
            Err(Broken::unknown(LookupError::new(Thing::GateKind, other, KINDS)).at(&kind.origin))
        }
    }
}
