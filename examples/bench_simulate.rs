//! The simulation benchmark: single-threaded simulated steps per second
//! on one scenario, repeated, with the median. Rerun it to check the
//! figure the README quotes:
//!
//!     cargo run --release --example bench_simulate -- redis-ttl-gc-pause --runs 100000 --repeat 5
//!
//! Arguments: a scenario name or path (default redis-ttl-gc-pause),
//! `--runs N` per repetition (default 100000), `--repeat K` (default 5),
//! `--seed S` (default 1). The runs are exactly `locksmith simulate NAME
//! --seed S --runs N --threads 1 --no-reports`.

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
        let mut rates = Vec::new();
        for i in 1..=self.repeat {
            let out = simulate(&world, &opts);
            let per_second = out.steps as f64 / out.seconds;
            println!(
                "{} run {i}/{}: {} runs, {} steps in {:.3} s: {:.0} steps/s, {:.0} runs/s",
                sc.name,
                self.repeat,
                out.runs,
                out.steps,
                out.seconds,
                per_second,
                out.runs as f64 / out.seconds
            );
            rates.push(per_second);
        }
        rates.sort_by(f64::total_cmp);
        println!(
            "{}: median {:.0} steps/s over {} repetitions (one thread)",
            sc.name,
            rates[rates.len() / 2],
            self.repeat
        );
        Ok(())
    }
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
