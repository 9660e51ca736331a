//! Seeded simulation (docs/design.md §6): random walks through the same world
//! and actions as `check`, for configurations exhaustive search cannot
//! finish. Every choice of run `i` of seed `S` comes from its own ChaCha
//! stream ([`walk::stream`]), so a run is fully determined by `(S, i)` on
//! every machine and with any number of threads: threads only share out
//! the runs, and the results are merged as if in run order.
//!
//! Simulation checks the safety properties only: a finite run can break a
//! safety property, but no finite run shows that a lock is never granted,
//! so liveness verdicts are `unknown` here (`check` decides them). A
//! violating run is shrunk ([`shrink`]) and written as a trace that
//! `replay` reproduces.

pub mod messages;
mod rates;
pub mod shrink;
pub mod walk;

pub use rates::{allowed, kind_of, Rates, DEFAULTS, KINDS, RATE_KEYS};
pub use walk::{Run, Walker};

use std::time::Instant;

use crate::interrupt::Interrupt;
use crate::progress::Progress;
use crate::properties::{Lock, Prop};
use crate::world::{Action, World, EVENT_KINDS};

/// How to simulate.
#[derive(Clone, Debug)]
pub struct Options {
    /// The seed `S`: run `i` draws from stream `i` of ChaCha8 keyed by `S`.
    pub seed: u64,
    /// How many runs (run indices `0..runs`).
    pub runs: u64,
    /// The longest run, in actions (default 1000).
    pub max_steps: u32,
    /// Threads sharing out the runs (the result does not depend on it).
    pub threads: usize,
    pub rates: Rates,
}

/// The longest run by default, in actions.
pub const MAX_STEPS: u32 = 1000;

/// What the runs found, merged in run order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub runs: u64,
    /// Actions taken in all runs.
    pub steps: u64,
    /// The longest run, in actions.
    pub longest: u32,
    /// Runs that `max_steps` cut short.
    pub cut: u64,
    /// Actions taken per kind of [`EVENT_KINDS`] (faults and recoveries).
    pub events: [u64; EVENT_KINDS.len()],
    /// Per property of [`Prop::SAFETY`]: how many runs violated it, and
    /// the first that did.
    pub found: [(u64, Option<u64>); 3],
    /// Wall time (not part of any report file).
    pub seconds: f64,
}

impl Outcome {
    fn add(&mut self, run: u64, r: &Run, max_steps: u32) {
        self.runs += 1;
        self.steps += u64::from(r.steps);
        self.longest = self.longest.max(r.steps);
        self.cut += u64::from(r.steps >= max_steps);
        for (total, n) in self.events.iter_mut().zip(r.events) {
            *total += u64::from(n);
        }
        for (i, f) in self.found.iter_mut().enumerate() {
            if r.violated & 1 << i != 0 {
                f.0 += 1;
                f.1 = Some(f.1.map_or(run, |first| first.min(run)));
            }
        }
    }

    pub fn merge(&mut self, other: &Outcome) {
        self.runs += other.runs;
        self.steps += other.steps;
        self.longest = self.longest.max(other.longest);
        self.cut += other.cut;
        for (a, b) in self.events.iter_mut().zip(other.events) {
            *a += b;
        }
        for (a, b) in self.found.iter_mut().zip(other.found) {
            a.0 += b.0;
            a.1 = match (a.1, b.1) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            };
        }
    }

    /// The first run that violated `prop` (a safety property), if any.
    pub fn first(&self, prop: Prop) -> Option<u64> {
        let i = Prop::SAFETY.iter().position(|p| *p == prop)?;
        self.found[i].1
    }

    /// How many runs violated `prop`.
    pub fn count(&self, prop: Prop) -> u64 {
        Prop::SAFETY
            .iter()
            .position(|p| *p == prop)
            .map_or(0, |i| self.found[i].0)
    }
}

/// Runs `opts.runs` runs of `world`.
pub fn simulate<A: Lock>(world: &World<A>, opts: &Options) -> Outcome {
    simulate_with(world, opts, None, &Interrupt::default())
}

/// [`simulate`], counting each run done on `progress` (stderr only; the
/// outcome does not depend on it). Once `interrupt` is raised no run
/// starts, and the outcome holds the runs done (`Outcome::runs`): with
/// several threads they need not be the first ones.
pub fn simulate_with<A: Lock>(
    world: &World<A>,
    opts: &Options,
    progress: Option<&Progress>,
    interrupt: &Interrupt,
) -> Outcome {
    let start = Instant::now();
    let threads = opts.threads.max(1) as u64;
    let part = |t: u64| {
        let mut walker = Walker::new(world, &opts.rates, opts.max_steps);
        let mut out = Outcome::default();
        let mut run = t;
        while run < opts.runs && !interrupt.requested() {
            let r = walker.run(opts.seed, run, None);
            out.add(run, &r, opts.max_steps);
            if let Some(p) = progress {
                p.add(1, u64::from(r.steps));
            }
            run += threads;
        }
        out
    };
    let mut total = Outcome::default();
    if threads == 1 {
        total = part(0);
    } else {
        // A walk panics only on a bug in the model; `each` passes it on.
        for out in crate::threads::each(threads as usize, |t| part(t as u64)) {
            total.merge(&out);
        }
    }
    total.seconds = start.elapsed().as_secs_f64();
    total
}

/// The actions of run `run` of seed `seed`, up to its end.
pub fn trace_of<A: Lock>(world: &World<A>, opts: &Options, run: u64) -> (Run, Vec<Action<A>>) {
    let mut trace = Vec::new();
    let r = Walker::new(world, &opts.rates, opts.max_steps).run(opts.seed, run, Some(&mut trace));
    (r, trace)
}

/// `--check-determinism`: runs every run twice and compares the two
/// traces' bytes (each action as trace.json writes it). `Err` names the
/// first run and step that differ. Once `interrupt` is raised no run
/// starts (`Ok`: no difference seen in the runs done).
pub fn check_determinism<A: Lock>(world: &World<A>, opts: &Options, interrupt: &Interrupt) -> Result<(), String> {
    let mut walker = Walker::new(world, &opts.rates, opts.max_steps);
    let bytes = |trace: &[Action<A>]| -> Vec<String> {
        trace
            .iter()
            .map(|a| serde_json::to_string(a).unwrap_or_default())
            .collect()
    };
    for run in (0..opts.runs).take_while(|_| !interrupt.requested()) {
        let (mut first, mut second) = (Vec::new(), Vec::new());
        walker.run(opts.seed, run, Some(&mut first));
        walker.run(opts.seed, run, Some(&mut second));
        let (a, b) = (bytes(&first), bytes(&second));
        if a != b {
            let step = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            let show = |t: &[String]| t.get(step).cloned().unwrap_or_else(|| "the end of the run".into());
            return Err(format!(
                "run {run} of seed {} is not deterministic: step {} differs (first {}, then {})",
                opts.seed,
                step + 1,
                show(&a),
                show(&b)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::single_redis;
    use crate::scenario;

    fn world(name: &str) -> (scenario::Scenario, World<single_redis::Node>) {
        let sc = scenario::load(&scenario::find(name).expect("bundled")).expect("valid");
        let w = single_redis::world(&sc).expect("builds");
        (sc, w)
    }

    fn opts(threads: usize) -> Options {
        Options {
            seed: 7,
            runs: 400,
            max_steps: MAX_STEPS,
            threads,
            rates: Rates::default(),
        }
    }

    #[test]
    fn a_run_is_its_seed_whatever_the_threads() {
        let (_, w) = world("redis-ttl-gc-pause");
        let one = simulate(&w, &opts(1));
        let three = simulate(&w, &opts(3));
        assert_eq!(
            Outcome {
                seconds: 0.0,
                ..one.clone()
            },
            Outcome { seconds: 0.0, ..three }
        );
        assert!(one.first(Prop::MutualExclusion).is_some(), "400 runs break it");
        let (a, ta) = trace_of(&w, &opts(1), 5);
        let (b, tb) = trace_of(&w, &opts(2), 5);
        assert_eq!((a, ta), (b, tb));
        assert!(check_determinism(&w, &opts(1), &Interrupt::default()).is_ok());
    }

    /// Ctrl-C stops the runs; what was found until then is kept.
    #[test]
    fn an_interrupt_stops_the_runs() {
        let (_, w) = world("redis-ttl-gc-pause");
        let raised = Interrupt::default();
        raised.request();
        let none = simulate_with(&w, &opts(2), None, &raised);
        assert_eq!(none.runs, 0, "no run starts once interrupted");
        assert_eq!(none.first(Prop::MutualExclusion), None);
    }

    #[test]
    fn shrinking_keeps_the_violation_and_never_lengthens() {
        let (_, w) = world("redis-ttl-gc-pause");
        let o = opts(1);
        let out = simulate(&w, &o);
        for prop in Prop::SAFETY {
            let Some(run) = out.first(prop) else { continue };
            let (r, trace) = trace_of(&w, &o, run);
            let at = r.first_at[Prop::SAFETY.iter().position(|p| *p == prop).expect("safety")] as usize;
            let shrunk = shrink::shrink(&w, &trace[..at], prop);
            assert!(shrunk.len() <= at, "{prop:?}: {} > {at}", shrunk.len());
            let replayed = crate::trace::replay(&w, &shrunk, prop, None);
            assert_eq!(
                replayed,
                Ok(None),
                "{prop:?}: the shrunk trace replays to the violation"
            );
        }
    }

    #[test]
    fn messages_are_measured_the_same_every_time() {
        let (sc, w) = world("redis-ttl-no-faults");
        let m = messages::messages_per_acquisition(&w, sc.acquisitions);
        assert_eq!(m, messages::messages_per_acquisition(&w, sc.acquisitions));
        // SET NX PX and its answer, DEL and its answer: 4, plus refusals.
        assert!(m.is_some_and(|m| (4.0..6.0).contains(&m)), "{m:?}");
        // Faults in the scenario's budget do not enter the measurement.
        let (sc, paused) = world("redis-ttl-gc-pause");
        let m2 = messages::messages_per_acquisition(&paused, sc.acquisitions);
        assert!(m2.is_some_and(|m| (4.0..6.0).contains(&m)), "{m2:?}");
    }
}
