//! `locksmith simulate`: seeded random walks, shrinking, the sim report
//! and its replay line (docs/design.md §6). Exit codes: 0 no violation the
//! scenario does not expect and every expected safety violation found;
//! 1 a violation it does not expect; 2 bad input or usage, or a report
//! that could not be written (the results are printed first); 3 an
//! expected violation not found in the runs, or a run that is not
//! deterministic; 130 Ctrl-C stopped the runs (what they found is printed
//! and written all the same).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::algorithms::{dispatch, Job};
use crate::catalog;
use crate::check::Counterexample;
use crate::interrupt::{self, Interrupt};
use crate::progress::{self, Progress};
use crate::properties::{Lock, Prop};
use crate::report::sim::{self, Found, SimSummary};
use crate::scenario::Scenario;
use crate::sim::{check_determinism, shrink, simulate_with, trace_of, Options, Outcome, Rates};
use crate::world::World;

use super::args::SimulateArgs;
use super::failure::{Exit, Failure, Shown};
use super::json::{self, SimPaths};
use super::Format;

pub(super) struct SimJob<'a> {
    pub seed: u64,
    /// `--seed-range A..B`, as typed.
    pub seed_range: Option<String>,
    pub runs: u64,
    pub max_steps: u32,
    pub threads: usize,
    /// `--rate KIND=P` flags.
    pub rates: Vec<String>,
    pub check_determinism: bool,
    pub format: Format,
    pub reports: Option<&'a Path>,
    /// Raised by Ctrl-C: no run starts after it.
    pub interrupt: Interrupt,
}

/// `locksmith simulate` with its flags: the job they describe, then
/// [`simulate_cmd`].
pub(super) fn run(args: SimulateArgs) -> Exit {
    let job = SimJob {
        seed: args.seed,
        seed_range: args.seed_range,
        runs: args.runs,
        max_steps: args.max_steps,
        threads: args.threads,
        rates: args.rate,
        check_determinism: args.check_determinism,
        format: args.format,
        reports: args.out.folder(),
        interrupt: interrupt::on_ctrl_c(),
    };
    simulate_cmd(&args.scenario, job)
}

pub(super) fn simulate_cmd(name: &str, job: SimJob<'_>) -> Exit {
    // --runs, --max-steps and --threads are in range (cli/args.rs).
    if let Some(range) = job.seed_range.as_deref() {
        parse_range(range)?;
    }
    progress::interval()?;
    let sc = catalog::open(name)?;
    dispatch(&sc, job)?
}

impl Job for SimJob<'_> {
    type Output = Exit;

    fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> Exit {
        let mut rates = Rates::read(sc).map_err(|e| Failure::bad(e.to_string()))?;
        for flag in &self.rates {
            rates.set(flag, &sc.faults).map_err(|e| Failure::bad(e.to_string()))?;
        }
        let seeds = match self.seed_range.as_deref() {
            Some(range) => parse_range(range)?,
            None => (self.seed, self.seed + 1),
        };
        // Before the runs, not after them: a folder that cannot take the
        // report is bad input.
        if let Some(Err(e)) = self.reports.map(crate::report::writable) {
            return Err(Failure::bad(e.to_string()));
        }
        let mut opts = Options {
            seed: seeds.0,
            runs: self.runs,
            max_steps: self.max_steps,
            threads: self.threads,
            rates,
        };
        let total = self.runs.saturating_mul(seeds.1.saturating_sub(seeds.0));
        let (out, firsts) = self.seeds(sc, &world, &mut opts, seeds, total)?;
        let found = shrunk(&world, &opts, firsts);
        opts.seed = seeds.0;
        let interrupted = out.runs < total;
        let mut summary = SimSummary::new(sc, &opts, &out, &found);
        if interrupted {
            // Said in summary.json too: its counts are of the runs done.
            summary
                .notes
                .push(format!("interrupted after {} of {total} runs", out.runs));
        }
        if self.seed_range.is_some() {
            summary.seed_range = Some([seeds.0, seeds.1]);
            summary.runs_per_seed = Some(self.runs);
            for p in &mut summary.properties {
                if let Some(i) = Prop::SAFETY.iter().position(|q| q.name() == p.name) {
                    p.first_seed = firsts[i].map(|x| x.0);
                }
            }
        }
        let written = self.reports.map(|root| {
            sim::write(root, sc, &world, &summary, &found).map_err(|e| {
                format!(
                    "cannot write the simulation report for {} under {}: {e}",
                    sc.name,
                    root.display()
                )
            })
        });
        let dir = written.as_ref().and_then(|w| w.as_ref().ok()).map(PathBuf::as_path);
        // Interrupted, not every run was compared.
        let determinism = self.check_determinism && !interrupted;
        match self.format {
            Format::Json => say!(
                "{}",
                json::sim("simulate", &summary, SimPaths::Report(dir), determinism)
            ),
            Format::Text => print_text(&summary, dir, determinism),
        }
        // The results are out; then the reason they are not on disk.
        if let Some(Err(e)) = written {
            return Err(Failure::bad(e));
        }
        if interrupted {
            let note = format!("interrupted after {} of {total} runs", out.runs);
            Err(Failure::new(interrupt::EXIT_CODE, note, Shown::InResults))
        } else if !summary.unexpected().is_empty() {
            Ok(1)
        } else if !summary.missed().is_empty() {
            Ok(3)
        } else {
            Ok(0)
        }
    }
}

/// Per safety property, the first seed with a violating run and that
/// seed's first violating run.
type Firsts = [Option<(u64, u64)>; 3];

impl SimJob<'_> {
    /// Seed by seed, in order: the runs' outcome and, per safety
    /// property, the first seed with a violating run and that seed's first
    /// violating run.
    fn seeds<A: Lock>(
        &self,
        sc: &Scenario,
        world: &World<A>,
        opts: &mut Options,
        seeds: (u64, u64),
        total: u64,
    ) -> Result<(Outcome, Firsts), Failure> {
        let mut out = Outcome::default();
        let mut firsts: Firsts = [None; 3];
        let progress = Progress::count(&sc.name, total, "runs");
        for seed in seeds.0..seeds.1 {
            if self.interrupt.requested() {
                break;
            }
            opts.seed = seed;
            if self.check_determinism {
                if let Err(e) = check_determinism(world, opts, &self.interrupt) {
                    return Err(Failure::new(3, e.to_string(), Shown::Stderr));
                }
            }
            let o = simulate_with(world, opts, Some(&progress), &self.interrupt);
            for (f, run) in firsts.iter_mut().zip(o.found.iter().map(|x| x.1)) {
                if let (None, Some(run)) = (*f, run) {
                    *f = Some((seed, run));
                }
            }
            out.merge(&o);
            out.seconds += o.seconds;
        }
        progress.finish();
        for (f, first) in out.found.iter_mut().zip(firsts) {
            f.1 = first.map(|x| x.1);
        }
        Ok((out, firsts))
    }
}

/// Each violated safety property's first violating run, replayed and
/// shrunk to a shortest path that still violates it.
fn shrunk<A: Lock>(world: &World<A>, opts: &Options, firsts: Firsts) -> Vec<Found<A>> {
    Prop::SAFETY
        .iter()
        .zip(firsts)
        .filter_map(|(&prop, first)| {
            let (seed, run) = first?;
            let opts = Options { seed, ..opts.clone() };
            let (r, trace) = trace_of(world, &opts, run);
            let original = r.first_at[Prop::SAFETY.iter().position(|p| *p == prop)?] as usize;
            let shrunk = shrink::shrink(world, &trace[..original], prop);
            Some(Found {
                prop,
                original,
                shrunk: Counterexample {
                    prefix: shrunk,
                    cycle: None,
                },
            })
        })
        .collect()
}

fn print_text(s: &SimSummary, dir: Option<&Path>, determinism: bool) {
    let seeds = match s.seed_range {
        Some([a, b]) => format!("seeds {a}..{b}"),
        None => format!("seed {}", s.seed),
    };
    say!(
        "{}  ({})  {seeds}, {} runs, {} steps (longest {}), {:.2} s",
        s.scenario,
        s.algorithm,
        s.runs,
        s.states,
        s.max_depth,
        s.seconds.unwrap_or(0.0)
    );
    if determinism {
        say!("  every run gave the same trace twice");
    }
    if !s.faults_fired.is_empty() {
        let fired: Vec<String> = s.faults_fired.iter().map(|(k, n)| format!("{k} {n}")).collect();
        say!("  faults fired: {}", fired.join(", "));
    }
    for p in &s.properties {
        let expectation = match &p.expected {
            Some(e) if *e == p.verdict => "as expected".to_string(),
            Some(e) if p.verdict == "unknown" && e == "holds" => String::new(),
            Some(e) => format!("expected {e}"),
            None if p.verdict == "violated" => "unexpected".to_string(),
            None => String::new(),
        };
        let detail = match (p.first_run, p.original_steps, p.trace_steps) {
            (Some(run), Some(orig), Some(steps)) => {
                let run = match p.first_seed {
                    Some(seed) => format!("{run} of seed {seed}"),
                    None => run.to_string(),
                };
                let file = match (&p.trace, dir) {
                    (Some(t), Some(d)) => format!("  {}", d.join(t.replace(".json", ".md")).display()),
                    _ => String::new(),
                };
                format!(
                    "in {} of {} runs, first run {run}: {orig} steps, shrunk to {steps}{file}",
                    p.runs_violated, s.runs
                )
            }
            _ if Prop::from_name(&p.name).is_some_and(|p| !p.is_safety()) => "not checked by simulation".into(),
            _ => format!("no violation in {} runs", s.runs),
        };
        let line = format!("  {:20} {:9} {:14} {}", p.name, p.verdict, expectation, detail);
        say!("{}", line.trim_end());
    }
    for note in s.notes.iter().skip(1) {
        say!("  note: {note}");
    }
    say!(
        "  throughput: {} steps/s, {} runs/s ({} thread{})",
        s.steps_per_second.unwrap_or(0.0),
        s.runs_per_second.unwrap_or(0.0),
        s.threads.unwrap_or(1),
        if s.threads == Some(1) { "" } else { "s" }
    );
    let headline = s.properties.iter().any(|p| p.trace.as_deref() == Some("trace.json"));
    if let (Some(d), true) = (dir, headline) {
        say!("replay: locksmith replay {}", d.join("trace.json").display());
    }
}

/// `--seed-range A..B`: seeds A (included) to B (not), A < B.
fn parse_range(text: &str) -> Result<(u64, u64), String> {
    let bad =
        || format!("--seed-range {text} is not allowed; allowed: A..B with whole numbers A < B (A included, B not)");
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let a: u64 = a.trim().parse().map_err(|_| bad())?;
    let b: u64 = b.trim().parse().map_err(|_| bad())?;
    if a < b {
        Ok((a, b))
    } else {
        Err(bad())
    }
}

/// `locksmith merge DIR...`: adds up simulation summaries of one scenario
/// over disjoint seed ranges, and prints the merged summary as indented
/// JSON (summary.json's fields), or with `--format json` as one line of
/// kind `merge` (docs/json.md). Exit codes as `simulate`'s: 0, 1
/// unexpected violation, 2 bad input, 3 an expected violation no job
/// found.
pub(super) fn merge_cmd(dirs: &[std::path::PathBuf], format: Format) -> Exit {
    let s = merge(dirs)?;
    match format {
        Format::Text => say!("{}", serde_json::to_string_pretty(&s).map_err(|e| e.to_string())?),
        Format::Json => say!("{}", json::sim("merge", &s, SimPaths::Merged, false)),
    }
    Ok(if !s.unexpected().is_empty() {
        1
    } else if !s.missed().is_empty() {
        3
    } else {
        0
    })
}

/// The merged summary, or the one sentence saying which input is wrong.
pub fn merge(dirs: &[std::path::PathBuf]) -> Result<SimSummary, String> {
    let mut all: Vec<(String, SimSummary)> = Vec::new();
    for d in dirs {
        let file = if d.is_dir() { d.join("summary.json") } else { d.clone() };
        let shown = file.display().to_string();
        let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {shown}: {e}"))?;
        let s: SimSummary = serde_json::from_str(&text)
            .ok()
            .filter(|s: &SimSummary| s.search == "simulate")
            .ok_or_else(|| format!("{shown} is not the summary.json of a simulation"))?;
        all.push((shown, s));
    }
    let range = |s: &SimSummary| s.seed_range.unwrap_or([s.seed, s.seed.saturating_add(1)]);
    let per_seed = |s: &SimSummary| s.runs_per_seed.unwrap_or(s.runs);
    all.sort_by_key(|(_, s)| range(s));
    let (first_name, first) = &all[0];
    for (name, s) in &all[1..] {
        let differ = if s.scenario != first.scenario || s.algorithm != first.algorithm {
            Some(format!(
                "scenario {} ({first_name} simulates {})",
                s.scenario, first.scenario
            ))
        } else if s.max_steps != first.max_steps {
            Some(format!(
                "max_steps {} ({first_name} has {})",
                s.max_steps, first.max_steps
            ))
        } else if s.rates != first.rates {
            Some(format!("fault rates ({first_name} has others)"))
        } else if per_seed(s) != per_seed(first) {
            Some(format!(
                "{} runs per seed ({first_name} has {})",
                per_seed(s),
                per_seed(first)
            ))
        } else {
            None
        };
        if let Some(d) = differ {
            return Err(format!("{name} cannot be merged: it has a different {d}"));
        }
    }
    for w in all.windows(2) {
        let ([a0, a1], [b0, b1]) = (range(&w[0].1), range(&w[1].1));
        if b0 < a1 {
            return Err(format!(
                "{} (seeds {a0}..{a1}) and {} (seeds {b0}..{b1}) overlap; allowed: disjoint seed ranges",
                w[0].0, w[1].0
            ));
        }
    }
    let mut m = first.clone();
    let lo = range(first)[0];
    let hi = range(&all[all.len() - 1].1)[1];
    m.seed = lo;
    m.seed_range = Some([lo, hi]);
    m.runs_per_seed = Some(per_seed(first));
    m.seconds = None;
    m.steps_per_second = None;
    m.runs_per_second = None;
    m.threads = None;
    for p in &mut m.properties {
        if p.first_run.is_some() && p.first_seed.is_none() {
            p.first_seed = Some(first.seed);
        }
        p.trace = p.trace.take().map(|t| format!("{}/{t}", dir_of(first_name)));
    }
    for (name, s) in &all[1..] {
        m.runs += s.runs;
        m.states += s.states;
        m.max_depth = m.max_depth.max(s.max_depth);
        m.runs_cut += s.runs_cut;
        for (k, n) in &s.faults_fired {
            *m.faults_fired.entry(k.clone()).or_insert(0) += n;
        }
        for (p, q) in m.properties.iter_mut().zip(&s.properties) {
            p.runs_violated += q.runs_violated;
            // Ranges are sorted, so the earliest seed is the first found.
            if p.first_run.is_none() && q.first_run.is_some() {
                p.first_run = q.first_run;
                p.first_seed = q.first_seed.or(Some(s.seed));
                p.original_steps = q.original_steps;
                p.trace_steps = q.trace_steps;
                p.trace = q.trace.as_ref().map(|t| format!("{}/{t}", dir_of(name)));
                p.verdict = q.verdict.clone();
            }
        }
    }
    m.notes.retain(|n| !n.contains("max_steps"));
    if m.runs_cut > 0 {
        m.notes.push(format!(
            "{} runs reached max_steps = {} before coming to rest",
            m.runs_cut, m.max_steps
        ));
    }
    Ok(m)
}

/// The folder a summary.json was read from, as given.
fn dir_of(shown: &str) -> String {
    shown.strip_suffix("/summary.json").unwrap_or(shown).to_string()
}
