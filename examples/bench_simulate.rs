//! The simulation benchmark: single-threaded simulated steps per second
//! on one scenario, repeated, with the median. Rerun it to check the
//! figure docs/simulate.md quotes:
//!
//!     cargo run --release --example bench_simulate -- redis-ttl-gc-pause --runs 100000 --repeat 5
//!
//! Arguments: a scenario name or path (default redis-ttl-gc-pause),
//! `--runs N` per repetition (default 100000), `--repeat K` (default 5),
//! `--seed S` (default 1). The runs are exactly `locksmith simulate NAME
//! --seed S --runs N --threads 1 --no-reports`.
//!
//! It prints two rates per repetition: steps per second of wall time, and
//! steps per second of the thread's own CPU time (from Linux's
//! `/proc/thread-self/schedstat`), which is the per-core figure on a
//! machine that other work shares.

use locksmith::algorithms::{dispatch, Job};
use locksmith::properties::Lock;
use locksmith::scenario::{self, Scenario};
use locksmith::sim::{simulate, Options, Rates, MAX_STEPS};
use locksmith::world::World;

struct Bench {
    runs: u64,
    repeat: usize,
    seed: u64,
}

impl Job for Bench {
    type Output = Result<(), String>;

    fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> Self::Output {
        let opts = Options {
            seed: self.seed,
            runs: self.runs,
            max_steps: MAX_STEPS,
            threads: 1,
            rates: Rates::read(sc).map_err(|e| e.to_string())?,
        };
        let (mut wall, mut cpu) = (Vec::new(), Vec::new());
        for i in 1..=self.repeat {
            let before = cpu_seconds();
            let out = simulate(&world, &opts);
            let used = cpu_seconds().zip(before).map(|(a, b)| a - b);
            let per_second = out.steps as f64 / out.seconds;
            let per_cpu = used.map(|u| out.steps as f64 / u);
            println!(
                "{} run {i}/{}: {} runs, {} steps in {:.3} s: {:.0} steps/s, {:.0} runs/s; {}",
                sc.name,
                self.repeat,
                out.runs,
                out.steps,
                out.seconds,
                per_second,
                out.runs as f64 / out.seconds,
                per_cpu.map_or("CPU time unknown".into(), |c| format!("{c:.0} steps per CPU second"))
            );
            wall.push(per_second);
            cpu.extend(per_cpu);
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied()
        };
        println!(
            "{}: median {:.0} steps/s of wall time, {} over {} repetitions (one thread)",
            sc.name,
            median(&mut wall).unwrap_or(0.0),
            median(&mut cpu).map_or("CPU time unknown".into(), |c| format!("{c:.0} steps per CPU second")),
            self.repeat
        );
        Ok(())
    }
}

/// The calling thread's CPU time in seconds (Linux), or `None`.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut name, mut bench) = (
        "redis-ttl-gc-pause".to_string(),
        Bench {
            runs: 100_000,
            repeat: 5,
            seed: 1,
        },
    );
    let number = |v: Option<String>, flag: &str| -> u64 {
        v.and_then(|v| v.parse().ok()).filter(|n| *n > 0).unwrap_or_else(|| {
            eprintln!("bench_simulate: {flag} needs a whole number above 0");
            std::process::exit(2)
        })
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => bench.runs = number(args.next(), "--runs"),
            "--repeat" => bench.repeat = number(args.next(), "--repeat") as usize,
            "--seed" => bench.seed = number(args.next(), "--seed"),
            _ => name = a,
        }
    }
    let sc = scenario::find(&name).and_then(|p| scenario::load(&p));
    let result = sc.map_err(|e| e.to_string()).and_then(|sc| {
        let sc2 = sc.clone();
        dispatch(&sc2, bench).map_err(|e| e.to_string())?
    });
    if let Err(e) = result {
        eprintln!("bench_simulate: {e}");
        std::process::exit(2);
    }
}
