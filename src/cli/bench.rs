//! `locksmith bench`: the exhaustive checker's benchmark. It
//! checks a fixed set of configurations, each in a child process of its
//! own (so that the peak resident memory, Linux's `VmHWM`, is that
//! configuration's alone), and prints per configuration: unique states,
//! states generated, depth, wall seconds, unique states per second, peak
//! resident memory and bytes per unique state. With `--repeat N` every
//! figure is the median of N runs. Where `TLA2TOOLS_JAR` names TLC, a
//! second table gives TLC's distinct states per second (2 workers, one
//! run) on the configurations whose TLA+ twin in specs/mirror/ has the same state
//! space (`--no-tlc` skips it).
//!
//! The configurations are bundled scenarios, plus bench-only files in
//! `bench/` (larger sizes of the classic families) that `check --all`
//! does not run.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use crate::algorithms::{dispatch, Job};
use crate::catalog;
use crate::check::{check, Options};
use crate::properties::Lock;
use crate::scenario::Scenario;
use crate::world::World;

use super::failure::{Exit, Failure};
use super::{json, Format};

/// One configuration: a label, a bundled scenario name or a file under
/// `bench/`, and whether symmetry reduction is switched off.
struct Config {
    label: &'static str,
    scenario: &'static str,
    /// The text of a file under `bench/`, inside the binary so that an
    /// installed `locksmith bench` needs no checkout; `None` for a bundled
    /// scenario.
    text: Option<&'static str>,
    no_symmetry: bool,
    /// The `.cfg` in specs/mirror/ that describes the same state space (TLC
    /// finds as many distinct states: specs/mirror/README.md's table), if
    /// one does.
    twin: Option<&'static str>,
}

const fn config(label: &'static str, scenario: &'static str, no_symmetry: bool) -> Config {
    Config {
        label,
        scenario,
        text: None,
        no_symmetry,
        twin: None,
    }
}

const fn twin(label: &'static str, scenario: &'static str, cfg: &'static str) -> Config {
    Config {
        label,
        scenario,
        text: None,
        no_symmetry: true,
        twin: Some(cfg),
    }
}

/// A file under `bench/`, its text inside the binary, without symmetry.
macro_rules! bench_file {
    ($label:literal) => {
        Config {
            label: $label,
            scenario: concat!("bench/", $label, ".toml"),
            text: Some(include_str!(concat!("../../bench/", $label, ".toml"))),
            no_symmetry: true,
            twin: None,
        }
    };
}

/// The fixed set: Redlock 3 x 2 (with and without symmetry), 5 x 2, one
/// single Redis, and the classic families at N = 3 and 4.
const CONFIGS: &[Config] = &[
    config("redlock-fsync", "redlock-fsync", false),
    twin("redlock-no-faults --no-symmetry", "redlock-no-faults", "Redlock.cfg"),
    config("redlock-five-masters", "redlock-five-masters", false),
    config("redis-ttl-gc-pause --no-symmetry", "redis-ttl-gc-pause", true),
    twin("ricart-agrawala-3", "ricart-agrawala-no-faults", "RicartAgrawala.cfg"),
    bench_file!("ricart-agrawala-4"),
    twin("token-ring-3", "token-ring-no-faults", "TokenRing.cfg"),
    bench_file!("token-ring-4"),
    bench_file!("coordinator-3"),
    bench_file!("coordinator-4"),
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
pub(super) struct BenchArgs {
    pub repeat: usize,
    pub only: Vec<String>,
    pub threads: usize,
    /// Skip TLC even where `TLA2TOOLS_JAR` names it.
    pub no_tlc: bool,
    pub format: Format,
    /// Hidden: run this one configuration here and print its figures.
    pub child: Option<String>,
}

pub(super) fn bench_cmd(args: BenchArgs) -> Exit {
    // --repeat and --threads are in range (cli/args.rs).
    if let Some(label) = &args.child {
        return child(label, args.threads);
    }
    let labels: Vec<&str> = CONFIGS.iter().map(|c| c.label).collect();
    if let Some(bad) = args.only.iter().find(|o| !labels.contains(&o.as_str())) {
        return Err(Failure::bad(format!(
            "--only {bad:?} is not a bench configuration; allowed: {}",
            labels.join(", ")
        )));
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the locksmith executable to run the bench: {e}"))?;
    let chosen = |c: &&Config| args.only.is_empty() || args.only.iter().any(|o| o == c.label);
    if args.format == Format::Text {
        println!(
            "| configuration | unique states | generated | depth | wall s | unique states/s | peak RSS | bytes/state |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    }
    for c in CONFIGS.iter().filter(chosen) {
        let runs = (0..args.repeat)
            .map(|_| run_child(&exe, c, args.threads))
            .collect::<Result<Vec<Run>, String>>()?;
        let m = median(&runs);
        match args.format {
            Format::Text => println!(
                "| {} | {} | {} | {} | {:.2} | {:.0} | {:.1} MiB | {:.0} |",
                c.label,
                m.unique,
                m.generated,
                m.depth,
                m.seconds,
                m.per_second(),
                m.peak as f64 / (1 << 20) as f64,
                m.bytes_per_state()
            ),
            Format::Json => println!(
                "{}",
                json::bench(&json::Bench {
                    kind: "bench",
                    configuration: c.label,
                    unique_states: m.unique,
                    generated: m.generated,
                    depth: m.depth,
                    seconds: m.seconds,
                    unique_states_per_second: m.per_second().round(),
                    peak_rss_bytes: m.peak,
                    bytes_per_state: m.bytes_per_state().round(),
                    runs: args.repeat,
                    threads: args.threads,
                })
            ),
        }
        let _ = std::io::stdout().flush();
    }
    if args.format == Format::Text {
        println!(
            "\nmedians of {} runs, each configuration in a process of its own, {} thread(s)",
            args.repeat, args.threads
        );
    }
    let twins: Vec<&Config> = CONFIGS.iter().filter(chosen).filter(|c| c.twin.is_some()).collect();
    if args.no_tlc || twins.is_empty() {
        return Ok(0);
    }
    let Some(jar) = std::env::var_os("TLA2TOOLS_JAR").filter(|j| !j.is_empty()) else {
        if args.format == Format::Text {
            println!("\nTLC: not measured (set TLA2TOOLS_JAR to tla2tools.jar; specs/README.md, \"Running TLC\")");
        }
        return Ok(0);
    };
    tlc_table(&PathBuf::from(&jar), &twins, args.format)
}

/// One run of configuration `c` in a child process of its own.
fn run_child(exe: &std::path::Path, c: &Config, threads: usize) -> Result<Run, String> {
    let out = Command::new(exe)
        .args(["bench", "--child", c.label, "--threads", &threads.to_string()])
        .output()
        .map_err(|e| format!("cannot run the bench child for {}: {e}", c.label))?;
    if !out.status.success() {
        return Err(format!(
            "bench {} failed: {}",
            c.label,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    parse(&String::from_utf8_lossy(&out.stdout)).ok_or_else(|| format!("bench {}: unreadable child output", c.label))
}

/// The second table: TLC on each configuration's TLA+ twin.
fn tlc_table(jar: &std::path::Path, twins: &[&Config], format: Format) -> Exit {
    if format == Format::Text {
        println!("\n| configuration | TLC on | TLC distinct states | TLC wall s | TLC distinct states/s |");
        println!("|---|---|---:|---:|---:|");
    }
    for c in twins {
        let cfg = c.twin.unwrap_or_default();
        let (distinct, seconds) =
            tlc::run(jar, cfg).map_err(|e| format!("bench {}: TLC on specs/mirror/{cfg}: {e}", c.label))?;
        let per_second = distinct as f64 / seconds.max(1e-9);
        match format {
            Format::Text => println!(
                "| {} | specs/mirror/{cfg} | {distinct} | {seconds:.2} | {per_second:.0} |",
                c.label
            ),
            Format::Json => println!(
                "{}",
                json::bench(&json::BenchTlc {
                    kind: "bench_tlc",
                    configuration: c.label,
                    spec: format!("specs/mirror/{cfg}"),
                    distinct_states: distinct,
                    seconds,
                    distinct_states_per_second: per_second.round(),
                    workers: tlc::WORKERS,
                })
            ),
        }
        let _ = std::io::stdout().flush();
    }
    if format == Format::Text {
        println!(
            "\nTLC: one run each, {} workers, wall time from start to exit (the JVM's start included)",
            tlc::WORKERS
        );
    }
    Ok(0)
}

/// TLC on a configuration's twin, for the second table.
mod tlc {
    use std::path::Path;
    use std::process::Command;
    use std::time::Instant;

    /// TLC's workers: one per core of the machine the figures are for.
    pub const WORKERS: usize = 2;

    /// Runs TLC on `specs/mirror/<cfg>` (its module is the `.cfg`'s stem) with
    /// the options tests/e2e/specs.rs uses, in a temporary directory of its
    /// own, and returns the distinct states of the complete search and the
    /// wall seconds.
    pub fn run(jar: &Path, cfg: &str) -> Result<(u64, f64), String> {
        // The mirror specs have the Rust model's state spaces; they extend
        // specs/World.tla.
        let world = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
        let specs = world.join("mirror");
        let module = cfg.trim_end_matches(".cfg");
        let work = std::env::temp_dir().join(format!("locksmith-bench-tlc-{}-{module}", std::process::id()));
        std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
        let start = Instant::now();
        let out = Command::new("java")
            .arg(format!("-Djava.io.tmpdir={}", work.display()))
            .arg(format!("-DTLA-Library={}", world.display()))
            .args(["-XX:+UseParallelGC", "-cp"])
            .arg(jar)
            .args(["tlc2.TLC", "-tool", "-deadlock", "-lncheck", "final", "-workers"])
            .arg(WORKERS.to_string())
            .arg("-metadir")
            .arg(work.join("meta"))
            .args(["-config", cfg, module])
            .current_dir(&specs)
            .output()
            .map_err(|e| format!("java does not run: {e}"));
        let seconds = start.elapsed().as_secs_f64();
        let _ = std::fs::remove_dir_all(&work);
        let out = out?;
        let text = String::from_utf8_lossy(&out.stdout);
        // Message 2199: "N states generated, M distinct states found, ...".
        let distinct = text
            .lines()
            .rev()
            .filter_map(|l| l.find(" distinct states found").map(|at| &l[..at]))
            .find_map(|head| head.rsplit(' ').next()?.replace(',', "").parse::<u64>().ok())
            .ok_or_else(|| {
                let tail: Vec<&str> = text.lines().rev().take(5).collect();
                format!(
                    "no distinct-state count in TLC's output (exit {:?}): {}",
                    out.status.code(),
                    tail.join(" / ")
                )
            })?;
        Ok((distinct, seconds))
    }
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

fn child(label: &str, threads: usize) -> Exit {
    let Some(c) = CONFIGS.iter().find(|c| c.label == label) else {
        return Err(Failure::bad(format!("{label:?} is not a bench configuration")));
    };
    let loaded = match c.text {
        Some(text) => catalog::parse(std::path::Path::new(c.scenario), text),
        None => catalog::open(c.scenario),
    };
    let mut sc = loaded?;
    if c.no_symmetry {
        sc.symmetry = false;
    }
    let r = dispatch(&sc, Measure { threads })?;
    println!(
        "{}",
        serde_json::json!({
            "unique": r.unique, "generated": r.generated, "depth": r.depth,
            "seconds": r.seconds, "peak": r.peak, "base": r.base,
        })
    );
    Ok(0)
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
