//! `--format json`: the objects each command prints, one per line on
//! stdout. docs/json.md is their contract (it holds a JSON Schema per
//! kind, and tests/e2e/json.rs validates real output against it), so a
//! field is added here and there together.
//!
//! These are views built for stdout, not the summary.json a report holds:
//! a report's bytes stay what a rerun reproduces (no wall time), while a
//! line here has every field always present (`null` when absent), paths
//! with their folder so that a script can open them from the working
//! directory, and a `kind` naming the object.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::report::sim::SimSummary;
use crate::report::Summary;

/// Serializes one line. The types here hold strings, numbers, maps with
/// string keys and options only, which serde_json always serializes.
fn line(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\",\"exit\":2}}"))
}

/// `trace.json` (or `<property>.trace.json`) inside `dir`, and its
/// `trace.md` beside it, as the working directory reaches them.
fn trace_paths(dir: &Path, file: &str) -> (String, String) {
    let md = file.replace(".json", ".md");
    (dir.join(file).display().to_string(), dir.join(md).display().to_string())
}

/// The error line: the sentence text mode prints after `locksmith: `,
/// and the exit code.
pub(super) fn error(message: &str, exit: i32) -> String {
    #[derive(Serialize)]
    struct Error<'a> {
        error: &'a str,
        exit: i32,
    }
    line(&Error { error: message, exit })
}

/// `list`: one scenario.
pub(super) fn scenario(name: &str, origin: &str, algorithm: &str, summary: &str, path: Option<&str>) -> String {
    #[derive(Serialize)]
    struct Scenario<'a> {
        kind: &'static str,
        name: &'a str,
        origin: &'a str,
        algorithm: &'a str,
        summary: &'a str,
        path: Option<&'a str>,
    }
    line(&Scenario {
        kind: "scenario",
        name,
        origin,
        algorithm,
        summary,
        path,
    })
}

/// A property's counterexample, where one was written: its length and
/// its two files as the working directory reaches them.
#[derive(Serialize)]
struct TraceRef {
    trace_steps: Option<usize>,
    trace: Option<String>,
    trace_md: Option<String>,
}

impl TraceRef {
    fn new(trace_steps: Option<usize>, paths: Option<(String, String)>) -> TraceRef {
        let (trace, trace_md) = paths.unzip();
        TraceRef {
            trace_steps,
            trace,
            trace_md,
        }
    }
}

#[derive(Serialize)]
struct CheckProp<'a> {
    name: &'a str,
    verdict: &'a str,
    expected: Option<&'a str>,
    #[serde(flatten)]
    trace: TraceRef,
}

#[derive(Serialize)]
struct Check<'a> {
    kind: &'static str,
    scenario: &'a str,
    algorithm: &'a str,
    summary: &'a str,
    search: &'a str,
    complete: bool,
    symmetry: bool,
    unique_states: usize,
    states: usize,
    max_depth: usize,
    fingerprint_collision_probability: f64,
    seconds: Option<f64>,
    messages_per_acquisition: Option<f64>,
    faults_fired: &'a BTreeMap<String, u64>,
    notes: &'a [String],
    report: Option<String>,
    properties: Vec<CheckProp<'a>>,
    version: &'a str,
}

/// `check` (and `matrix`): one scenario's summary; `dir` is its report
/// folder when one was written.
pub(super) fn check(s: &Summary, dir: Option<&Path>) -> String {
    let properties = s
        .properties
        .iter()
        .map(|p| {
            let paths = p.trace.as_deref().zip(dir).map(|(t, d)| trace_paths(d, t));
            CheckProp {
                name: &p.name,
                verdict: &p.verdict,
                expected: p.expected.as_deref(),
                trace: TraceRef::new(p.trace_steps, paths),
            }
        })
        .collect();
    line(&Check {
        kind: "check",
        scenario: &s.scenario,
        algorithm: &s.algorithm,
        summary: &s.summary,
        search: &s.search,
        complete: s.complete,
        symmetry: s.symmetry,
        unique_states: s.unique_states,
        states: s.states,
        max_depth: s.max_depth,
        fingerprint_collision_probability: s.fingerprint_collision_probability,
        seconds: s.seconds,
        messages_per_acquisition: s.messages_per_acquisition,
        faults_fired: &s.faults_fired,
        notes: &s.notes,
        report: dir.map(|d| d.display().to_string()),
        properties,
        version: &s.version,
    })
}

#[derive(Serialize)]
struct SimProp<'a> {
    name: &'a str,
    verdict: &'a str,
    expected: Option<&'a str>,
    runs_violated: u64,
    first_run: Option<u64>,
    first_seed: Option<u64>,
    original_steps: Option<usize>,
    #[serde(flatten)]
    trace: TraceRef,
}

#[derive(Serialize)]
struct Sim<'a> {
    kind: &'static str,
    scenario: &'a str,
    algorithm: &'a str,
    summary: &'a str,
    seed: u64,
    seed_range: Option<[u64; 2]>,
    runs_per_seed: Option<u64>,
    runs: u64,
    max_steps: u32,
    rates: &'a BTreeMap<String, f64>,
    steps: u64,
    max_depth: u32,
    runs_cut: u64,
    faults_fired: &'a BTreeMap<String, u64>,
    notes: &'a [String],
    seconds: Option<f64>,
    steps_per_second: Option<f64>,
    runs_per_second: Option<f64>,
    threads: Option<usize>,
    determinism_checked: bool,
    report: Option<String>,
    properties: Vec<SimProp<'a>>,
    version: &'a str,
}

/// Where a simulation's trace files are, as the working directory reaches
/// them.
pub(super) enum SimPaths<'a> {
    /// `simulate`: inside the report folder written, if one was.
    Report(Option<&'a Path>),
    /// `merge`: the summary already names each trace with the folder it
    /// was read from.
    Merged,
}

/// `simulate` (kind `simulate`) and `merge` (kind `merge`): the summary of
/// the runs. `determinism` is whether every run was run twice and gave the
/// same trace.
pub(super) fn sim(kind: &'static str, s: &SimSummary, paths: SimPaths<'_>, determinism: bool) -> String {
    let dir = match paths {
        SimPaths::Report(dir) => dir,
        SimPaths::Merged => None,
    };
    let locate = |t: &str| match paths {
        SimPaths::Report(dir) => dir.map(|d| trace_paths(d, t)),
        SimPaths::Merged => Some((t.to_string(), t.replace(".json", ".md"))),
    };
    let properties = s
        .properties
        .iter()
        .map(|p| {
            let paths = p.trace.as_deref().and_then(locate);
            SimProp {
                name: &p.name,
                verdict: &p.verdict,
                expected: p.expected.as_deref(),
                runs_violated: p.runs_violated,
                first_run: p.first_run,
                first_seed: p.first_seed,
                original_steps: p.original_steps,
                trace: TraceRef::new(p.trace_steps, paths),
            }
        })
        .collect();
    line(&Sim {
        kind,
        scenario: &s.scenario,
        algorithm: &s.algorithm,
        summary: &s.summary,
        seed: s.seed,
        seed_range: s.seed_range,
        runs_per_seed: s.runs_per_seed,
        runs: s.runs,
        max_steps: s.max_steps,
        rates: &s.rates,
        steps: s.states,
        max_depth: s.max_depth,
        runs_cut: s.runs_cut,
        faults_fired: &s.faults_fired,
        notes: &s.notes,
        seconds: s.seconds,
        steps_per_second: s.steps_per_second,
        runs_per_second: s.runs_per_second,
        threads: s.threads,
        determinism_checked: determinism,
        report: dir.map(|d| d.display().to_string()),
        properties,
        version: &s.version,
    })
}

/// `matrix`: the table written, after the scenarios' `check` lines.
pub(super) fn matrix(table: &Path, scenarios: usize, generated: usize) -> String {
    #[derive(Serialize)]
    struct Matrix {
        kind: &'static str,
        table: String,
        scenarios: usize,
        generated: usize,
    }
    line(&Matrix {
        kind: "matrix",
        table: table.display().to_string(),
        scenarios,
        generated,
    })
}

/// `replay` (kind `replay`) and `reenact` (kind `reenact`, with the log
/// it wrote): the verdict on the trace. A trace that is not valid is an
/// error line instead.
pub(super) fn verdict(kind: &'static str, trace: &Path, reproduced: bool, message: &str, log: Option<&Path>) -> String {
    #[derive(Serialize)]
    struct Verdict<'a> {
        kind: &'static str,
        trace: String,
        reproduced: bool,
        message: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        log: Option<String>,
    }
    line(&Verdict {
        kind,
        trace: trace.display().to_string(),
        reproduced,
        message,
        log: log.map(|l| l.display().to_string()),
    })
}

/// `bench`: one configuration's figures (medians of `runs` runs).
#[derive(Serialize)]
pub(super) struct Bench<'a> {
    pub kind: &'static str,
    pub configuration: &'a str,
    pub unique_states: u64,
    pub generated: u64,
    pub depth: u64,
    pub seconds: f64,
    pub unique_states_per_second: f64,
    pub generated_per_second: f64,
    pub peak_rss_bytes: u64,
    pub bytes_per_state: f64,
    /// `--baseline`'s path, absolute; `None` without it.
    pub baseline: Option<String>,
    /// `None` without `--baseline`, or where the baseline does not know
    /// the configuration.
    pub baseline_unique_states_per_second: Option<f64>,
    /// Likewise.
    pub speedup: Option<f64>,
    pub runs: usize,
    pub threads: usize,
}

/// `bench`: TLC on one configuration's TLA+ twin.
#[derive(Serialize)]
pub(super) struct BenchTlc<'a> {
    pub kind: &'static str,
    pub configuration: &'a str,
    pub spec: String,
    pub distinct_states: u64,
    pub seconds: f64,
    pub distinct_states_per_second: f64,
    pub workers: usize,
    /// The operator the twin's `.cfg` declares as its `VIEW`, if any.
    pub view: Option<String>,
    /// locksmith's figure on the same state space (the `bench` line's).
    pub locksmith_unique_states_per_second: f64,
}

/// A bench object as its line.
pub(super) fn bench(value: &impl Serialize) -> String {
    line(value)
}
