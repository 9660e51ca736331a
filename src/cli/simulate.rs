//! `locksmith simulate`: seeded random walks, shrinking, the sim report
//! and its replay line (DESIGN.md §6). Exit codes: 0 no violation the
//! scenario does not expect and every expected safety violation found;
//! 1 a violation it does not expect; 2 bad input or usage; 3 an expected
//! violation not found in the runs, or a run that is not deterministic.

use std::io::Write;
use std::path::Path;

use crate::algorithms::{dispatch, Job};
use crate::check::Counterexample;
use crate::properties::{Lock, Prop};
use crate::report::sim::{self, Found, SimSummary};
use crate::scenario::{self, Scenario};
use crate::sim::{check_determinism, shrink, simulate, trace_of, Options, Rates};
use crate::world::World;

pub struct SimJob<'a> {
    pub seed: u64,
    pub runs: u64,
    pub max_steps: u32,
    pub threads: usize,
    /// `--rate KIND=P` flags.
    pub rates: Vec<String>,
    pub check_determinism: bool,
    pub json: bool,
    pub reports: Option<&'a Path>,
}

pub fn simulate_cmd(name: &str, job: SimJob<'_>) -> i32 {
    let usage = if job.runs == 0 {
        Some("--runs 0 is not allowed; allowed: a whole number of runs, at least 1".to_string())
    } else if job.max_steps == 0 {
        Some("--max-steps 0 is not allowed; allowed: a whole number of actions, at least 1".to_string())
    } else if !(1..=256).contains(&job.threads) {
        Some(format!(
            "--threads {} is not allowed; allowed: a whole number from 1 to 256",
            job.threads
        ))
    } else {
        None
    };
    if let Some(e) = usage {
        eprintln!("locksmith: {e}");
        return 2;
    }
    let sc = match scenario::find(name).and_then(|p| scenario::load(&p)) {
        Ok(sc) => sc,
        Err(e) => {
            eprintln!("locksmith: {e}");
            return 2;
        }
    };
    match dispatch(&sc, job) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("locksmith: {e}");
            2
        }
    }
}

impl Job for SimJob<'_> {
    type Output = i32;

    fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> i32 {
        let mut rates = match Rates::read(sc) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("locksmith: {e}");
                return 2;
            }
        };
        for flag in &self.rates {
            if let Err(e) = rates.set(flag, &sc.faults) {
                eprintln!("locksmith: {e}");
                return 2;
            }
        }
        let opts = Options {
            seed: self.seed,
            runs: self.runs,
            max_steps: self.max_steps,
            threads: self.threads,
            rates,
        };
        if self.check_determinism {
            if let Err(e) = check_determinism(&world, &opts) {
                eprintln!("locksmith: {e}");
                return 3;
            }
        }
        let out = simulate(&world, &opts);
        let found: Vec<Found<A>> = Prop::SAFETY
            .iter()
            .filter_map(|&prop| {
                let run = out.first(prop)?;
                let (r, trace) = trace_of(&world, &opts, run);
                let original = r.first_at[Prop::SAFETY.iter().position(|p| *p == prop)?] as usize;
                let shrunk = shrink::shrink(&world, &trace[..original], prop);
                Some(Found {
                    prop,
                    original,
                    shrunk: Counterexample {
                        prefix: shrunk,
                        cycle: None,
                    },
                })
            })
            .collect();
        let summary = SimSummary::new(sc, &opts, &out, &found);
        let dir = match self.reports {
            Some(root) => match sim::write(root, sc, &world, &summary, &found) {
                Ok(dir) => Some(dir),
                Err(e) => {
                    eprintln!(
                        "locksmith: cannot write the simulation report for {} under {}: {e}",
                        sc.name,
                        root.display()
                    );
                    return 2;
                }
            },
            None => None,
        };
        if self.json {
            match serde_json::to_string(&summary) {
                Ok(line) => say!("{line}"),
                Err(e) => {
                    eprintln!("locksmith: {e}");
                    return 2;
                }
            }
        } else {
            print_text(&summary, dir.as_deref(), self.check_determinism);
        }
        if !summary.unexpected().is_empty() {
            1
        } else if !summary.missed().is_empty() {
            3
        } else {
            0
        }
    }
}

fn print_text(s: &SimSummary, dir: Option<&Path>, determinism: bool) {
    say!(
        "{}  ({})  seed {}, {} runs, {} steps (longest {}), {:.2} s",
        s.scenario,
        s.algorithm,
        s.seed,
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
