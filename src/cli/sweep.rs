//! `sweep`: one scenario checked at every combination of one or two
//! whole-number keys (`crate::sweep` reads the ranges, states the
//! boundary and draws the tables). Every combination is loaded and
//! validated before anything is checked, so bad input exits 2 with nothing
//! written; the combinations are checked side by side as `check --all`
//! checks scenarios (`check::in_order`), so the output is the same bytes
//! whatever `--jobs`; and the folder `reports/sweep-NAME/` is written
//! whole beside its old self and swapped into place, as a check's report
//! is, so Ctrl-C or a failure keeps the previous sweep.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::thread;

use serde_json::json;

use crate::algorithms::{dispatch, Job};
use crate::catalog;
use crate::check::{check, Options};
use crate::interrupt;
use crate::progress::{self, Progress};
use crate::properties::Lock;
use crate::report::{self, Summary};
use crate::scenario::{self, Scenario, ScenarioError, Verdict};
use crate::sim::messages::messages_per_acquisition;
use crate::sweep::render::{sweep_md, sweep_svg};
use crate::sweep::{self, Axis, Cell, Sweep};
use crate::world::World;

use super::args::{Format, SweepArgs};
use super::check::{in_order, Labels};
use super::failure::{self, Exit, Failure};

/// Runs a sweep: exit 0 done (a sweep expects nothing), 2 bad input or a
/// folder that cannot be written, 3 a bound left some verdict unknown,
/// 130 Ctrl-C (nothing written, the previous sweep kept).
pub(super) fn sweep_cmd(args: &SweepArgs) -> Exit {
    progress::interval()?;
    let (axes, combos, base) = load(args)?;
    let root = args.reports.clone().unwrap_or_else(|| PathBuf::from("reports"));
    report::writable(&root)?;
    let folder = format!("sweep-{}", base.name);
    let dir = root.join(&folder);
    let partial = report::partial_dir(&root, &folder)
        .map_err(|e| Failure::bad(format!("cannot write the sweep under {}: {e}", root.display())))?;
    let opts = Options {
        dfs: false,
        max_states: args.max_states,
        max_depth: None,
        stop_at: None,
        timeout: None,
        max_memory: Some(super::default_memory()),
        progress: Some(Progress::search("sweep")),
        threads: 1,
        interrupt: interrupt::on_ctrl_c(),
        no_symmetry: args.no_symmetry,
        checkpoint: None,
        drop_queue_at: None,
        spill_every: None,
    };
    let done = check_combinations(&axes, &combos, args.jobs, &opts, partial.path(), &dir)?;
    let finished = done.iter().filter(|d| !d.interrupted).count();
    if finished < combos.len() {
        return Err(Failure::new(
            interrupt::EXIT_CODE,
            format!(
                "interrupted: {finished} of {} combinations checked; the sweep was not written",
                combos.len()
            ),
            failure::Shown::Stdout,
        ));
    }
    let sweep = Sweep {
        scenario: base.name.clone(),
        command: command_line(args, &axes),
        axes,
        cells: done.into_iter().map(|d| d.cell).collect(),
    };
    let written = report::write_synced(&partial.path().join("SWEEP.md"), &sweep_md(&sweep))
        .and_then(|()| report::write_synced(&partial.path().join("sweep.svg"), &sweep_svg(&sweep)))
        .and_then(|()| report::swap_into_place(partial.path(), &dir));
    written.map_err(|e| Failure::bad(format!("cannot write the sweep {}: {e}", dir.display())))?;
    match args.format {
        Format::Text => print_text(&sweep, &dir),
        Format::Json => say!("{}", as_json(&sweep, &dir)),
    }
    Ok(if sweep.has_unknown() { 3 } else { 0 })
}

/// Checks every combination on up to `jobs` threads, in order, writing
/// the report of each violated one into `partial` (the folder that
/// becomes `dir`). `Err` is a report that could not be written.
fn check_combinations(
    axes: &[Axis],
    combos: &[(Vec<i64>, Scenario)],
    jobs: Option<usize>,
    opts: &Options,
    partial: &Path,
    dir: &Path,
) -> Result<Vec<Done>, String> {
    let names = sweep::names(axes);
    let labels: Vec<String> = combos.iter().map(|(values, _)| sweep::label(&names, values)).collect();
    let scenarios: Vec<Scenario> = combos.iter().map(|(_, sc)| sc.clone()).collect();
    let jobs = jobs.unwrap_or_else(|| thread::available_parallelism().map_or(1, |n| n.get()));
    let run = |sc: &Scenario, quiet: &Options| {
        // Each combination's text is its own: it finds its label.
        let i = scenarios.iter().position(|s| s.source == sc.source).unwrap_or(0);
        let job = SweepJob {
            opts: quiet,
            label: &labels[i],
            into: partial.join(&labels[i]),
            dir: dir.join(&labels[i]),
        };
        dispatch(sc, job).unwrap_or_else(|ScenarioError(e)| Err(e))
    };
    let shown = Labels {
        command: "sweep",
        noun: "combinations",
        labels: &labels,
    };
    let mut done: Vec<Done> = Vec::new();
    let mut failed = None;
    in_order(&scenarios, &shown, jobs, opts, run, |result| match result {
        Ok(mut d) => {
            d.cell.values = combos.get(done.len()).map(|c| c.0.clone()).unwrap_or_default();
            done.push(d);
            true
        }
        Err(e) => {
            failed = Some(e);
            false
        }
    });
    failed.map_or(Ok(done), Err)
}

/// The axes, every combination's scenario (validated as a scenario file
/// is), and the scenario as written; an error is one sentence.
#[allow(clippy::type_complexity)]
fn load(args: &SweepArgs) -> Result<(Vec<Axis>, Vec<(Vec<i64>, Scenario)>, Scenario), String> {
    let axes = sweep::parse_axes(&args.vary)?;
    let base = scenario::find(&args.scenario)
        .and_then(|p| catalog::load(&p))
        .map_err(|e| e.0)?;
    sweep::check_types(&base.path, &base.source, &axes)?;
    let names = sweep::names(&axes);
    let mut combos = Vec::new();
    for values in sweep::combinations(&axes) {
        let source =
            sweep::substitute(&base.source, &axes, &values).map_err(|e| format!("{}: {e}", base.path.display()))?;
        let sc = catalog::parse(&base.path, &source).map_err(|ScenarioError(e)| {
            match axes.iter().find(|a| sweep::unknown_key(&e, a)) {
                Some(a) => format!("--vary {}: {e}", a.flag()),
                None => format!("{e} (in the sweep's combination {})", sweep::label(&names, &values)),
            }
        })?;
        combos.push((values, sc));
    }
    Ok((axes, combos, base))
}

/// The command that makes this sweep again, for SWEEP.md and sweep.svg
/// (without `--jobs` and `--reports`, which do not change the bytes).
fn command_line(args: &SweepArgs, axes: &[Axis]) -> String {
    let mut out = format!("locksmith sweep {}", args.scenario);
    for a in axes {
        let _ = write!(out, " --vary {}", a.flag());
    }
    if args.no_symmetry {
        out.push_str(" --no-symmetry");
    }
    if let Some(n) = args.max_states {
        let _ = write!(out, " --max-states {n}");
    }
    out
}

/// One combination, checked.
struct Done {
    cell: Cell,
    /// Ctrl-C stopped its search.
    interrupted: bool,
}

/// Checks one combination and, when it violates a property, writes its
/// report (the files `check` writes) into `into`, the folder that becomes
/// `dir` when the sweep is swapped into place.
struct SweepJob<'a> {
    opts: &'a Options,
    label: &'a str,
    into: PathBuf,
    dir: PathBuf,
}

impl Job for SweepJob<'_> {
    type Output = Result<Done, String>;

    fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> Self::Output {
        if let Some(p) = &self.opts.progress {
            p.restart(&format!("{} {}", sc.name, self.label));
        }
        let outcome = check(&world, self.opts);
        if let Some(p) = &self.opts.progress {
            p.finish();
        }
        let mut summary = Summary::new(sc, &outcome, false);
        summary.messages_per_acquisition = messages_per_acquisition(&world, sc.acquisitions);
        let violated = outcome.props.iter().any(|p| p.verdict == Verdict::Violated);
        if violated && !outcome.interrupted {
            std::fs::create_dir_all(&self.into)
                .and_then(|()| report::write_files(&self.into, &self.dir, sc, &world, &outcome, &summary))
                .map_err(|e| format!("cannot write the report of {} {}: {e}", sc.name, self.label))?;
        }
        let verdicts = outcome
            .props
            .iter()
            .zip(&summary.properties)
            .map(|(p, s)| {
                let trace = s
                    .trace
                    .as_ref()
                    .filter(|_| p.verdict == Verdict::Violated)
                    .map(|t| format!("{}/{}", self.label, t.replace(".json", ".md")));
                (p.prop.name().to_string(), p.verdict, trace)
            })
            .collect();
        Ok(Done {
            // The caller knows the combination's values.
            cell: Cell {
                values: Vec::new(),
                verdicts,
            },
            interrupted: outcome.interrupted,
        })
    }
}

/// The boundaries and a small grid per property (`+` holds, `x`
/// violated, `?` unknown), then where SWEEP.md is.
fn print_text(s: &Sweep, dir: &Path) {
    let names = s.names();
    let flags: Vec<String> = s.axes.iter().map(Axis::flag).collect();
    say!(
        "{}: {} combinations of {}",
        s.scenario,
        s.cells.len(),
        flags.join(" by ")
    );
    let cols = s.axes.get(1).map_or(1, Axis::count);
    for (p, _) in s.properties().iter().enumerate() {
        say!("  {}", s.boundary(p));
        if let Some(y) = s.axes.get(1) {
            let head: Vec<String> = y.values().map(|v| format!("{v:>3}")).collect();
            say!("    {:>10} \\ {:<10}{}", names[0], names[1], head.join(""));
        }
        for (row, cells) in s.verdicts(p).chunks(cols).enumerate() {
            let x = s.cells[row * cols].values[0];
            let marks: String = cells
                .iter()
                .map(|v| match v {
                    Verdict::Holds => "  +",
                    Verdict::Violated => "  x",
                    Verdict::Unknown => "  ?",
                })
                .collect();
            let x_label = if s.axes.len() == 1 {
                format!("{}={x}", names[0])
            } else {
                x.to_string()
            };
            say!("    {x_label:>10}   {:<10}{marks}", "");
        }
    }
    say!("  (+ holds, x violated, ? unknown)");
    say!("{}", dir.join("SWEEP.md").display());
}

fn as_json(s: &Sweep, dir: &Path) -> String {
    let names = s.names();
    let props = s.properties();
    let cells: Vec<serde_json::Value> = s
        .cells
        .iter()
        .map(|c| {
            let values: serde_json::Map<String, serde_json::Value> = names
                .iter()
                .zip(&c.values)
                .map(|(n, v)| (n.clone(), json!(v)))
                .collect();
            let verdicts: serde_json::Map<String, serde_json::Value> = c
                .verdicts
                .iter()
                .map(|(p, v, _)| (p.clone(), json!(v.as_str())))
                .collect();
            // Every property, null where no trace was written (docs/json.md:
            // optional fields are always present).
            let traces: serde_json::Map<String, serde_json::Value> = c
                .verdicts
                .iter()
                .map(|(p, _, t)| (p.clone(), t.as_ref().map_or(json!(null), |t| json!(dir.join(t)))))
                .collect();
            json!({"values": values, "verdicts": verdicts, "traces": traces})
        })
        .collect();
    let boundaries: serde_json::Map<String, serde_json::Value> = props
        .iter()
        .enumerate()
        .map(|(i, p)| (p.clone(), json!(s.boundary(i))))
        .collect();
    let axes: Vec<serde_json::Value> = s
        .axes
        .iter()
        .map(|a| json!({"key": a.dotted(), "lo": a.lo, "hi": a.hi}))
        .collect();
    json!({
        "kind": "sweep",
        "scenario": s.scenario,
        "axes": axes,
        "cells": cells,
        "boundaries": boundaries,
        "report": dir.join("SWEEP.md"),
    })
    .to_string()
}
