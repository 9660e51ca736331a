//! Simulation reports: `reports/<scenario>/sim-<seed>/` holds the same
//! files as a check's report (summary.json, and trace.json / trace.md per
//! violated property, the headline one plain), written the same way
//! (whole, then swapped into place), and the same bytes on every run with
//! the same seed and flags: no wall time, no thread count.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{markdown, swap_into_place, trace_name, write_synced};
use crate::catalog;
use crate::check::Counterexample;
use crate::properties::{Lock, Prop};
use crate::scenario::{Scenario, Verdict};
use crate::sim::{Options, Outcome};
use crate::trace::TraceFile;
use crate::world::{World, EVENT_KINDS};

/// One property in a simulation's summary.json.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimProp {
    pub name: String,
    /// `violated`, or `unknown`: a simulation that did not see a
    /// violation proves nothing, and liveness it does not check at all.
    pub verdict: String,
    pub expected: Option<String>,
    /// How many runs violated it.
    pub runs_violated: u64,
    /// The first run (its index) that violated it: the one shrunk.
    pub first_run: Option<u64>,
    /// That run's steps up to the violation, before shrinking.
    pub original_steps: Option<usize>,
    /// Steps in the shrunk trace.
    pub trace_steps: Option<usize>,
    /// The trace file beside summary.json.
    pub trace: Option<String>,
    /// With `--seed-range` (or after `merge`): the seed of `first_run`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_seed: Option<u64>,
}

/// summary.json of a simulation, and its `--format json` line (which adds
/// the wall time and throughput).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimSummary {
    pub scenario: String,
    pub algorithm: String,
    pub summary: String,
    /// Always "simulate".
    pub search: String,
    pub seed: u64,
    /// With `--seed-range A..B` (or after `merge`): the seeds run, `[A, B)`,
    /// each with `runs_per_seed` runs; `runs` counts them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_range: Option<[u64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_per_seed: Option<u64>,
    pub runs: u64,
    pub max_steps: u32,
    /// The fault rates used, for the kinds the budget allows.
    pub rates: BTreeMap<String, f64>,
    pub properties: Vec<SimProp>,
    /// Actions taken in all runs (states visited, repeats included).
    pub states: u64,
    /// The longest run, in actions.
    pub max_depth: u32,
    /// Runs that `max_steps` cut short.
    pub runs_cut: u64,
    /// Actions taken per fault and recovery kind the budget allows, over
    /// all runs: a fault that never fired shows as 0.
    pub faults_fired: BTreeMap<String, u64>,
    pub notes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_per_second: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_per_second: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    pub version: String,
}

/// A violation found and shrunk: the trace of one property.
pub struct Found<A: Lock> {
    pub prop: Prop,
    pub original: usize,
    pub shrunk: Counterexample<A>,
}

impl SimSummary {
    pub fn new<A: Lock>(sc: &Scenario, opts: &Options, out: &Outcome, found: &[Found<A>]) -> SimSummary {
        let headline = headline(sc, found);
        let properties = Prop::ALL
            .iter()
            .map(|&p| {
                let f = found.iter().find(|f| f.prop == p);
                SimProp {
                    name: p.name().into(),
                    verdict: if f.is_some() { "violated" } else { "unknown" }.into(),
                    expected: sc.expected(p).map(|v| v.as_str().into()),
                    runs_violated: out.count(p),
                    first_run: out.first(p),
                    original_steps: f.map(|f| f.original),
                    trace_steps: f.map(|f| f.shrunk.len()),
                    trace: f.map(|_| trace_name(p, headline) + ".json"),
                    first_seed: None,
                }
            })
            .collect();
        let allowed = |kind: &str| match kind {
            "restart" => crate::sim::allowed(&sc.faults, "crash"),
            "heal" => crate::sim::allowed(&sc.faults, "partition"),
            k => crate::sim::allowed(&sc.faults, k),
        };
        let mut notes = vec![
            "simulation checks the safety properties only; a property no run violated is unknown, not proved"
                .to_string(),
        ];
        if out.cut > 0 {
            notes.push(format!(
                "{} runs reached max_steps = {} before coming to rest",
                out.cut, opts.max_steps
            ));
        }
        SimSummary {
            scenario: sc.name.clone(),
            algorithm: sc.algorithm.clone(),
            summary: sc.summary.clone(),
            search: "simulate".into(),
            seed: opts.seed,
            seed_range: None,
            runs_per_seed: None,
            runs: out.runs,
            max_steps: opts.max_steps,
            rates: opts
                .rates
                .shown(&sc.faults)
                .into_iter()
                .map(|(k, r)| (k.to_string(), r))
                .collect(),
            properties,
            states: out.steps,
            max_depth: out.longest,
            runs_cut: out.cut,
            faults_fired: EVENT_KINDS
                .iter()
                .zip(out.events)
                .filter(|(k, n)| *n > 0 || allowed(k))
                .map(|(k, n)| (k.to_string(), n))
                .collect(),
            notes,
            seconds: Some((out.seconds * 1000.0).round() / 1000.0),
            steps_per_second: Some((out.steps as f64 / out.seconds.max(1e-9)).round()),
            runs_per_second: Some((out.runs as f64 / out.seconds.max(1e-9)).round()),
            threads: Some(opts.threads),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }

    /// Violations the scenario does not expect (it expects the property to
    /// hold, or says nothing).
    pub fn unexpected(&self) -> Vec<&SimProp> {
        self.properties
            .iter()
            .filter(|p| p.verdict == "violated" && p.expected.as_deref() != Some("violated"))
            .collect()
    }

    /// Violations the scenario expects that no run showed.
    pub fn missed(&self) -> Vec<&SimProp> {
        let safety = |name: &str| Prop::from_name(name).is_some_and(Prop::is_safety);
        self.properties
            .iter()
            .filter(|p| safety(&p.name) && p.expected.as_deref() == Some("violated") && p.verdict != "violated")
            .collect()
    }
}

/// The property whose trace is `trace.json`: the first expected violation
/// found, else the first found.
fn headline<A: Lock>(sc: &Scenario, found: &[Found<A>]) -> Option<Prop> {
    found
        .iter()
        .find(|f| sc.expected(f.prop) == Some(Verdict::Violated))
        .or(found.first())
        .map(|f| f.prop)
}

/// The folder of a simulation's report: `sim-<seed>` inside the
/// scenario's report folder.
pub fn sim_dir(root: &Path, sc: &Scenario, seed: u64) -> PathBuf {
    root.join(catalog::report_key(sc)).join(format!("sim-{seed}"))
}

/// The folder name of a summary's report: `sim-<seed>`, or `sim-<A>..<B>`
/// for a seed range.
pub fn dir_name(summary: &SimSummary) -> String {
    match summary.seed_range {
        Some([a, b]) => format!("sim-{a}..{b}"),
        None => format!("sim-{}", summary.seed),
    }
}

/// Writes `root/<scenario>/sim-<seed>/`: summary.json (without wall time)
/// and every trace, whole into a temporary folder, then swapped into place.
pub fn write<A: Lock>(
    root: &Path,
    sc: &Scenario,
    world: &World<A>,
    summary: &SimSummary,
    found: &[Found<A>],
) -> std::io::Result<PathBuf> {
    let dir = root.join(catalog::report_key(sc)).join(dir_name(summary));
    let parent = dir.parent().unwrap_or(root);
    std::fs::create_dir_all(parent)?;
    let temp = super::partial_dir(parent, &dir_name(summary))?;
    let partial = temp.path();
    let headline = headline(sc, found);
    for f in found {
        let name = trace_name(f.prop, headline);
        let trace = TraceFile::new(sc, world, f.prop, &f.shrunk);
        let json = serde_json::to_string_pretty(&trace).map_err(std::io::Error::other)? + "\n";
        write_synced(&partial.join(format!("{name}.json")), &json)?;
        let md = markdown::trace_md(sc, world, f.prop, &f.shrunk, &dir.join(format!("{name}.json")));
        write_synced(&partial.join(format!("{name}.md")), &md)?;
        if let Some(itf) = super::itf::trace_itf(sc, world, f.prop, &f.shrunk) {
            write_synced(&partial.join(format!("{name}.itf.json")), &itf)?;
        }
        let svg = super::svg::trace_svg(sc, world, f.prop, &f.shrunk);
        write_synced(&partial.join(format!("{name}.svg")), &svg)?;
    }
    let committed = SimSummary {
        seconds: None,
        steps_per_second: None,
        runs_per_second: None,
        threads: None,
        ..summary.clone()
    };
    let json = serde_json::to_string_pretty(&committed).map_err(std::io::Error::other)? + "\n";
    write_synced(&partial.join("summary.json"), &json)?;
    swap_into_place(partial, &dir)?;
    Ok(dir)
}
