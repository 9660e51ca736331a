//! `locksmith bench`: the exhaustive checker's benchmark (issue 13). It
//! checks a fixed set of configurations, each in a child process of its
//! own (so that the peak resident memory, Linux's `VmHWM`, is that
//! configuration's alone), and prints per configuration: unique states,
//! states generated, depth, wall seconds, unique states per second, peak
//! resident memory and bytes per unique state. With `--repeat N` every
//! figure is the median of N runs.
//!
//! The configurations are bundled scenarios, plus bench-only files in
//! `bench/` (larger sizes of the classic families) that `check --all`
//! does not run.

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use crate::algorithms::{dispatch, Job};
use crate::check::{check, Options};
use crate::properties::Lock;
use crate::scenario::{self, Scenario};
use crate::world::World;

/// One configuration: a label, a bundled scenario name or a file under
/// `bench/`, and whether symmetry reduction is switched off.
struct Config {
    label: &'static str,
    scenario: &'static str,
    no_symmetry: bool,
}

const fn config(label: &'static str, scenario: &'static str, no_symmetry: bool) -> Config {
    Config {
        label,
        scenario,
        no_symmetry,
    }
}

/// The fixed set: Redlock 3 x 2 (with and without symmetry), 5 x 2, one
/// single Redis, and the classic families at N = 3 and 4.
const CONFIGS: &[Config] = &[
    config("redlock-fsync", "redlock-fsync", false),
    config("redlock-no-faults --no-symmetry", "redlock-no-faults", true),
    config("redlock-five-masters", "redlock-five-masters", false),
    config("redis-ttl-gc-pause --no-symmetry", "redis-ttl-gc-pause", true),
    config("ricart-agrawala-3", "ricart-agrawala-no-faults", true),
    config("ricart-agrawala-4", "bench/ricart-agrawala-4.toml", true),
    config("token-ring-3", "token-ring-no-faults", true),
    config("token-ring-4", "bench/token-ring-4.toml", true),
    config("coordinator-3", "bench/coordinator-3.toml", true),
    config("coordinator-4", "bench/coordinator-4.toml", true),
];

/// What one run of one configuration measured.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    unique: u64,
    generated: u64,
    depth: u64,
    seconds: f64,
    /// Peak resident memory of the whole child process, in bytes.
    peak: u64,
    /// Resident memory just before the check started, in bytes.
    base: u64,
}

impl Run {
    fn per_second(&self) -> f64 {
        self.unique as f64 / self.seconds.max(1e-9)
    }

    /// Bytes the check itself retained at its peak, per unique state.
    fn bytes_per_state(&self) -> f64 {
        self.peak.saturating_sub(self.base) as f64 / self.unique.max(1) as f64
    }
}

/// Arguments of `locksmith bench`.
pub struct BenchArgs {
    pub repeat: usize,
    pub only: Vec<String>,
    pub threads: usize,
    /// Hidden: run this one configuration here and print its figures.
    pub child: Option<String>,
}

pub fn bench_cmd(args: BenchArgs) -> i32 {
    if args.repeat == 0 {
        eprintln!("locksmith: --repeat 0 is not allowed; allowed: a whole number of runs, at least 1");
        return 2;
    }
    if !(1..=256).contains(&args.threads) {
        eprintln!(
            "locksmith: --threads {} is not allowed; allowed: a whole number of threads from 1 to 256",
            args.threads
        );
        return 2;
    }
    if let Some(label) = args.child {
        return child(&label, args.threads);
    }
    let labels: Vec<&str> = CONFIGS.iter().map(|c| c.label).collect();
    if let Some(bad) = args.only.iter().find(|o| !labels.contains(&o.as_str())) {
        eprintln!(
            "locksmith: --only {bad:?} is not a bench configuration; allowed: {}",
            labels.join(", ")
        );
        return 2;
    }
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("locksmith: cannot find the locksmith executable to run the bench: {e}");
            return 2;
        }
    };
    println!(
        "| configuration | unique states | generated | depth | wall s | unique states/s | peak RSS | bytes/state |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for c in CONFIGS
        .iter()
        .filter(|c| args.only.is_empty() || args.only.iter().any(|o| o == c.label))
    {
        let mut runs = Vec::new();
        for _ in 0..args.repeat {
            let out = Command::new(&exe)
                .args(["bench", "--child", c.label, "--threads", &args.threads.to_string()])
                .output();
            match out.map(|o| (o.status.success(), o)) {
                Ok((true, o)) => match parse(&String::from_utf8_lossy(&o.stdout)) {
                    Some(r) => runs.push(r),
                    None => {
                        eprintln!("locksmith: bench {}: unreadable child output", c.label);
                        return 2;
                    }
                },
                Ok((false, o)) => {
                    eprintln!(
                        "locksmith: bench {} failed: {}",
                        c.label,
                        String::from_utf8_lossy(&o.stderr).trim()
                    );
                    return 2;
                }
                Err(e) => {
                    eprintln!("locksmith: cannot run the bench child for {}: {e}", c.label);
                    return 2;
                }
            }
        }
        let m = median(&runs);
        let mut line = String::new();
        let _ = write!(
            line,
            "| {} | {} | {} | {} | {:.2} | {:.0} | {:.1} MiB | {:.0} |",
            c.label,
            m.unique,
            m.generated,
            m.depth,
            m.seconds,
            m.per_second(),
            m.peak as f64 / (1 << 20) as f64,
            m.bytes_per_state()
        );
        println!("{line}");
        let _ = std::io::stdout().flush();
    }
    {
        println!(
            "\nmedians of {} runs, each configuration in a process of its own, {} thread(s)",
            args.repeat, args.threads
        );
    }
    0
}

/// The median of each figure on its own (counts are the same every run).
fn median(runs: &[Run]) -> Run {
    let mid = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let first = runs[0];
    Run {
        seconds: mid(runs.iter().map(|r| r.seconds).collect()),
        peak: mid(runs.iter().map(|r| r.peak as f64).collect()) as u64,
        base: mid(runs.iter().map(|r| r.base as f64).collect()) as u64,
        ..first
    }
}

fn parse(line: &str) -> Option<Run> {
    let v: serde_json::Value = serde_json::from_str(line.trim()).ok()?;
    let u = |k: &str| v.get(k).and_then(serde_json::Value::as_u64);
    Some(Run {
        unique: u("unique")?,
        generated: u("generated")?,
        depth: u("depth")?,
        seconds: v.get("seconds")?.as_f64()?,
        peak: u("peak")?,
        base: u("base")?,
    })
}

/// A bench file's path: relative to the working directory, else to the
/// crate's own directory (a bench run from elsewhere in a clone).
fn locate(name: &str) -> PathBuf {
    let here = PathBuf::from(name);
    if !name.ends_with(".toml") || here.exists() {
        return here;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn child(label: &str, threads: usize) -> i32 {
    let Some(c) = CONFIGS.iter().find(|c| c.label == label) else {
        eprintln!("locksmith: {label:?} is not a bench configuration");
        return 2;
    };
    let loaded = scenario::find(&locate(c.scenario).to_string_lossy()).and_then(|p| scenario::load(&p));
    let mut sc = match loaded {
        Ok(sc) => sc,
        Err(e) => {
            eprintln!("locksmith: {e}");
            return 2;
        }
    };
    if c.no_symmetry {
        sc.symmetry = false;
    }
    match dispatch(&sc, Measure { threads }) {
        Ok(r) => {
            println!(
                "{}",
                serde_json::json!({
                    "unique": r.unique, "generated": r.generated, "depth": r.depth,
                    "seconds": r.seconds, "peak": r.peak, "base": r.base,
                })
            );
            0
        }
        Err(e) => {
            eprintln!("locksmith: {e}");
            2
        }
    }
}

struct Measure {
    threads: usize,
}

impl Job for Measure {
    type Output = Run;

    fn run<A: Lock>(self, _: &Scenario, world: World<A>) -> Run {
        let base = status_kib("VmRSS").unwrap_or(0) << 10;
        let start = Instant::now();
        let opts = Options {
            threads: self.threads,
            ..Options::default()
        };
        let out = check(&world, &opts);
        let seconds = start.elapsed().as_secs_f64();
        Run {
            unique: out.unique_states as u64,
            generated: out.states as u64,
            depth: out.max_depth as u64,
            seconds,
            peak: status_kib("VmHWM").unwrap_or(0) << 10,
            base,
        }
    }
}

/// A `kB` field of `/proc/self/status` (0 where there is none).
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status
        .lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
