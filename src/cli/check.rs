//! `check`: loads scenarios, checks them side by side on `--jobs`
//! threads, prints each one's verdicts in order and writes its reports.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::thread;
use std::time::Duration;

use crate::algorithms::{dispatch, Job};
use crate::catalog;
use crate::check::checkpoint::{self, Checkpoint};
use crate::check::{check, resume, Options};
use crate::interrupt;
use crate::progress::{self, Progress};
use crate::properties::Lock;
use crate::report::{self, Summary};
use crate::scenario::{self, Scenario, ScenarioError};
use crate::sim::messages::messages_per_acquisition;
use crate::world::World;

use super::args::CheckArgs;
use super::failure::{Exit, Failure, Shown};
use super::{default_memory, json, Format};

/// `locksmith check` with its flags: the search's options from them, then
/// [`check_cmd`].
pub(super) fn run(args: CheckArgs) -> Exit {
    progress::interval()?;
    // Asked before any search, as the reports folder is.
    if let Some(dir) = &args.checkpoint {
        report::writable_as(dir, "checkpoints").map_err(Failure::bad)?;
    }
    let opts = Options {
        dfs: args.dfs,
        max_states: args.max_states,
        max_depth: args.max_depth,
        stop_at: None,
        timeout: args.timeout,
        max_memory: Some(args.max_memory.unwrap_or_else(default_memory)),
        progress: Some(Progress::search("check")),
        threads: args.threads,
        interrupt: interrupt::on_ctrl_c(),
        no_symmetry: args.no_symmetry,
        // The folder; each scenario's file in it is named in `CheckJob`.
        checkpoint: args.checkpoint.map(|dir| Checkpoint {
            file: dir,
            every: args.checkpoint_every,
            resume: args.resume,
        }),
        drop_queue_at: None,
        spill_every: None,
    };
    let out = args.out.folder();
    check_cmd(&args.scenarios, args.all, &opts, args.format, out, args.jobs)
}

/// `check`: the named scenarios, or every bundled one with `--all`.
pub(super) fn check_cmd(
    names: &[String],
    all: bool,
    opts: &Options,
    format: Format,
    reports: Option<&Path>,
    jobs: Option<usize>,
) -> Exit {
    let paths: Result<Vec<PathBuf>, ScenarioError> = match (all, names.is_empty()) {
        (true, true) => Ok(scenario::all()),
        (false, false) => names.iter().map(|n| scenario::find(n)).collect(),
        (true, false) => Err(ScenarioError("give scenario names or --all, not both".into())),
        (false, true) => Err(ScenarioError(
            "name a scenario to check (`locksmith list` shows them), or pass --all".into(),
        )),
    };
    check_paths(paths, opts, format, reports, jobs, all).map(|(_, code)| code)
}

/// What `check` and `matrix` share: loads every scenario first (bad input
/// exits 2 with nothing written), checks them side by side, prints each
/// one's text in order, writes the index reports/README.md when `index`
/// (every bundled scenario was checked), and returns the scenarios with
/// their summaries and the exit code their verdicts give (docs/design.md
/// §9), or the failure.
pub(super) fn check_paths(
    paths: Result<Vec<PathBuf>, ScenarioError>,
    opts: &Options,
    format: Format,
    reports: Option<&Path>,
    jobs: Option<usize>,
    index: bool,
) -> Result<Checks, Failure> {
    // Load and validate everything before checking anything, so bad input
    // exits 2 with nothing written.
    let loaded: Result<Vec<Scenario>, ScenarioError> =
        paths.and_then(|ps| ps.iter().map(|p| catalog::load(p)).collect());
    let scenarios = loaded?;
    if scenarios.is_empty() {
        return Err(Failure::bad("no scenarios to check"));
    }
    check_loaded(scenarios, opts, format, reports, jobs, index)
}

/// [`check_paths`] on scenarios already loaded. The reports folder is
/// tried first, so that a long search does not end in a write error; one
/// that fails later anyway still prints its verdicts, then the error, and
/// exits 2 (the first such error). Ctrl-C stops the running checks (their verdicts so far are
/// printed, their reports not written) and skips the rest: exit 130.
pub(super) fn check_loaded(
    scenarios: Vec<Scenario>,
    opts: &Options,
    format: Format,
    reports: Option<&Path>,
    jobs: Option<usize>,
    index: bool,
) -> Result<Checks, Failure> {
    if let Some(Err(e)) = reports.map(report::writable) {
        return Err(Failure::bad(e.to_string()));
    }
    let (mut differ, mut unknown, mut agree, mut interrupted) = (0, 0, 0, 0);
    let jobs = jobs.unwrap_or_else(|| thread::available_parallelism().map_or(1, |n| n.get()));
    let mut failed: Option<String> = None;
    let mut summaries = Vec::new();
    let run = |sc: &Scenario, quiet: &Options| {
        let mut text = String::new();
        let job = CheckJob {
            opts: quiet,
            format,
            reports,
            text: &mut text,
        };
        let result = dispatch(sc, job).unwrap_or_else(|ScenarioError(e)| Err(e));
        (text, result)
    };
    let labels: Vec<String> = scenarios.iter().map(|sc| sc.name.clone()).collect();
    let shown = Labels {
        command: "check",
        noun: "scenarios",
        labels: &labels,
    };
    in_order(&scenarios, &shown, jobs, opts, run, |(text, result)| {
        let _ = std::io::stdout().write_all(text.as_bytes());
        match result {
            // A definite verdict against the expectation outweighs any
            // verdict a bound left open (docs/design.md §9).
            Ok(checked) => {
                let summary = checked.summary;
                if summary.differs() {
                    differ += 1;
                } else if summary.has_unknown() {
                    unknown += 1;
                } else {
                    agree += 1;
                }
                interrupted += usize::from(checked.interrupted);
                summaries.push(summary);
                failed = checked.write_error;
            }
            Err(e) => failed = Some(e),
        }
        failed.is_none()
    });
    if let Some(e) = failed {
        return Err(Failure::bad(e));
    }
    // Interrupted, or scenarios skipped: no index, and exit 130 whatever
    // the verdicts (docs/design.md §9).
    let finished = summaries.len() - interrupted;
    if finished < scenarios.len() {
        let said = format!(
            "interrupted: {finished} of {} scenarios checked ({agree} as expected, {differ} differ); reports of the interrupted ones not written",
            scenarios.len()
        );
        return Err(Failure::new(interrupt::EXIT_CODE, said, Shown::Stdout));
    }
    // Every bundled scenario was checked: index them beside their reports.
    if let (true, Some(root)) = (index, reports) {
        if let Err(e) = report::index::write(root, &summaries) {
            return Err(Failure::bad(format!(
                "cannot write {} under {}: {e}",
                report::index::FILE,
                root.display()
            )));
        }
    }
    if format == Format::Text && scenarios.len() > 1 {
        say!(
            "{} scenarios: {agree} as expected, {differ} differ, {unknown} stopped early",
            scenarios.len()
        );
    }
    let code = if differ > 0 {
        1
    } else if unknown > 0 {
        3
    } else {
        0
    };
    Ok((scenarios.into_iter().zip(summaries).collect(), code))
}

/// The scenarios checked with their summaries, and the exit code their
/// verdicts give.
pub(super) type Checks = (Vec<(Scenario, Summary)>, i32);

/// One scenario's check as [`in_order`] hands it on.
struct Checked {
    summary: Summary,
    /// Ctrl-C stopped the search (its report was not written).
    interrupted: bool,
    /// Why its report could not be written; its verdicts are printed all
    /// the same.
    write_error: Option<String>,
}

/// Runs `run` on each of `scenarios` on up to `jobs` threads (with `opts`
/// made quiet when several run at once) and hands `emit` each one's
/// result in the scenarios' order, as soon as it and every scenario
/// before it are done, so the output is the same bytes whatever the
/// number of jobs (`check` hands on printed text and a summary, `sweep`
/// one combination's verdicts). Scenarios are independent checks: this is
/// where a second core pays off first (`check --all`). `emit` returns
/// false to stop: scenarios not yet started are skipped. With more than one
/// job, the per-check progress gives way to one display counting the
/// scenarios done and naming those still running.
pub(super) fn in_order<R: Send>(
    scenarios: &[Scenario],
    shown: &Labels,
    jobs: usize,
    opts: &Options,
    run: impl Fn(&Scenario, &Options) -> R + Sync,
    mut emit: impl FnMut(R) -> bool,
) {
    let jobs = jobs.clamp(1, scenarios.len().max(1));
    let mut quiet = opts.clone();
    quiet.progress = opts.progress.clone().filter(|_| jobs == 1);
    let overall = (opts.progress.is_some() && jobs > 1)
        .then(|| Progress::count(shown.command, scenarios.len() as u64, shown.noun));
    // Whichever display is on, hidden while a result is printed.
    let display = overall.clone().or_else(|| quiet.progress.clone());
    let quiet = &quiet;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let running = Mutex::new(BTreeSet::new());
    let (tx, rx) = mpsc::channel::<(usize, R)>();
    thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, stop, running, run) = (&next, &stop, &running, &run);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= scenarios.len() || stop.load(Ordering::SeqCst) || quiet.interrupt.requested() {
                    break;
                }
                lock(running).insert(i);
                let result = run(&scenarios[i], quiet);
                lock(running).remove(&i);
                if tx.send((i, result)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut done = BTreeMap::new();
        let mut emitted = 0;
        loop {
            if let Some(result) = done.remove(&emitted) {
                emitted += 1;
                let go_on = match &display {
                    Some(p) => p.suspend(|| emit(result)),
                    None => emit(result),
                };
                if !go_on {
                    stop.store(true, Ordering::SeqCst);
                    return;
                }
                continue;
            }
            match rx.recv_timeout(Duration::from_secs(1)) {
                Ok((i, result)) => {
                    done.insert(i, result);
                    if let Some(p) = &overall {
                        p.add(1, 0);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(p) = &overall {
                        let now: Vec<&str> = lock(&running).iter().map(|&i| shown.labels[i].as_str()).collect();
                        p.note(&format!("checking {}", now.join(", ")));
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    // Ctrl-C skipped a scenario that a later one overtook:
                    // what did run is still shown, in order.
                    for result in std::mem::take(&mut done).into_values() {
                        let go_on = match &display {
                            Some(p) => p.suspend(|| emit(result)),
                            None => emit(result),
                        };
                        if !go_on {
                            break;
                        }
                    }
                    return;
                }
            }
        }
    });
}

/// How [`in_order`]'s display names its work when several jobs run: the
/// command, what it counts, and each scenario's label.
pub(super) struct Labels<'a> {
    pub command: &'static str,
    pub noun: &'static str,
    pub labels: &'a [String],
}

/// A poisoned lock only means another worker panicked; its set is still
/// usable for a progress line.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

struct CheckJob<'a> {
    opts: &'a Options,
    format: Format,
    reports: Option<&'a Path>,
    /// What the check prints, kept until the scenarios before it are out.
    text: &'a mut String,
}

impl Job for CheckJob<'_> {
    type Output = Result<Checked, String>;

    fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> Self::Output {
        if let Some(p) = &self.opts.progress {
            p.restart(&sc.name);
        }
        // A checkpoint folder holds one file per scenario.
        let opts = Options {
            checkpoint: self.opts.checkpoint.as_ref().map(|c| Checkpoint {
                file: checkpoint::file_in(&c.file, &sc.name),
                ..c.clone()
            }),
            ..self.opts.clone()
        };
        let outcome = if opts.checkpoint.as_ref().is_some_and(|c| c.resume) {
            resume(&world, &opts)?
        } else {
            check(&world, &opts)
        };
        if let Some(p) = &self.opts.progress {
            p.finish();
        }
        if let (Some(n), Some(bound)) = (outcome.queue_dropped_at, opts.max_memory) {
            // Said on stderr: the outcome, its text and its reports are those
            // of a search that kept every state.
            eprintln!(
                "locksmith: {}: the memory bound of {} was reached with {n} states found; the queue kept state numbers from there, and rebuilt the states it expanded",
                sc.name,
                crate::memory::human(bound)
            );
        }
        if let (Some(n), Some(bound)) = (outcome.spilled_at.last(), opts.max_memory) {
            eprintln!(
                "locksmith: {}: to stay within the memory bound of {}, the search moved its seen set, edges and queue to disk {} time(s), the last with {n} states found",
                sc.name,
                crate::memory::human(bound),
                outcome.spilled_at.len()
            );
        }
        let mut summary = Summary::new(sc, &outcome, self.opts.dfs);
        summary.messages_per_acquisition = messages_per_acquisition(&world, sc.acquisitions);
        // An interrupted check keeps the previous report: a half-done
        // search is no replacement for a finished one.
        let root = self.reports.filter(|_| !outcome.interrupted);
        if root.is_none() {
            // No file to name: the trace was never written.
            summary.properties.iter_mut().for_each(|p| p.trace = None);
        }
        let written = root.map(|root| {
            report::write(root, sc, &world, &outcome, &summary)
                .map_err(|e| format!("cannot write the report for {} under {}: {e}", sc.name, root.display()))
        });
        let (dir, write_error) = match written {
            Some(Ok(dir)) => (Some(dir), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        match self.format {
            Format::Json => {
                let _ = writeln!(self.text, "{}", json::check(&summary, dir.as_deref()));
            }
            Format::Text => print_text(self.text, &summary, dir.as_deref()),
        }
        Ok(Checked {
            summary,
            interrupted: outcome.interrupted,
            write_error,
        })
    }
}

fn print_text(out: &mut String, s: &Summary, dir: Option<&Path>) {
    let _ = writeln!(
        out,
        "{}  ({})  {} states ({} generated), depth {}, {:.2} s, fingerprint collision probability {}",
        s.scenario,
        s.algorithm,
        s.unique_states,
        s.states,
        s.max_depth,
        s.seconds.unwrap_or(0.0),
        probability(s.fingerprint_collision_probability)
    );
    if let Some(m) = s.messages_per_acquisition {
        let _ = writeln!(out, "  {m:.2} messages per acquisition in fault-free runs");
    }
    for note in &s.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    for p in &s.properties {
        let expectation = match &p.expected {
            Some(e) if *e == p.verdict => "as expected".to_string(),
            Some(e) => format!("expected {e}"),
            None if p.verdict == "violated" => "unexpected".to_string(),
            None => String::new(),
        };
        let trace = match (&p.trace, dir) {
            (Some(t), Some(d)) => format!(
                "{} steps  {}",
                p.trace_steps.unwrap_or(0),
                d.join(t.replace(".json", ".md")).display()
            ),
            (Some(_), None) => format!("{} steps", p.trace_steps.unwrap_or(0)),
            _ => String::new(),
        };
        let line = format!("  {:20} {:9} {:14} {}", p.name, p.verdict, expectation, trace);
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// A probability in short scientific notation (`3.2e-11`), and 0 as `0`.
fn probability(p: f64) -> String {
    if p == 0.0 {
        "0".into()
    } else {
        format!("{p:.1e}")
    }
}
