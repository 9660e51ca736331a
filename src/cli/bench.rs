//! `locksmith bench`: the exhaustive checker's benchmark. It
//! checks a fixed set of configurations, each in a child process of its
//! own (child.rs), and prints per configuration: unique states, states
//! generated, depth, wall seconds, unique and generated states per
//! second, peak resident memory and bytes per unique state. These figures
//! depend on no other tool's spec, so they lead. With `--repeat N` every
//! figure is the median of N runs. `--baseline PATH` runs another
//! locksmith binary's child (the previous release's) alternately with
//! this one's and adds its unique states per second and the speed-up.
//! Where `TLA2TOOLS_JAR` names TLC, a second table (tlc.rs) gives TLC's
//! figures on the configurations whose TLA+ twin in specs/mirror/ has the
//! same state space (`--no-tlc` skips it).
//!
//! The configurations are bundled scenarios, plus bench-only files in
//! `bench/` (larger sizes of the classic families) that `check --all`
//! does not run.

mod child;
mod tlc;

use std::io::Write;
use std::path::{Path, PathBuf};

use child::{median, median_of, spawn, Run};

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

/// The fixed set: Redlock 3 x 2 (with and without symmetry), 5 x 2, two
/// single Redis ones, and the classic families at N = 3 and 4. The
/// first, Redlock with fsync restarts and no symmetry, is the headline:
/// the size class of the independent Redlock spec TLC is compared on in
/// docs/performance.md. redis-duplicate is the smallest that takes over
/// 0.2 s in a release build, for tests/e2e/bench.rs's guard.
const CONFIGS: &[Config] = &[
    config("redlock-fsync --no-symmetry", "redlock-fsync", true),
    config("redlock-fsync", "redlock-fsync", false),
    twin("redlock-no-faults --no-symmetry", "redlock-no-faults", "Redlock.cfg"),
    config("redlock-five-masters", "redlock-five-masters", false),
    config("redis-ttl-gc-pause --no-symmetry", "redis-ttl-gc-pause", true),
    config("redis-duplicate", "redis-duplicate", false),
    twin("ricart-agrawala-3", "ricart-agrawala-no-faults", "RicartAgrawala.cfg"),
    bench_file!("ricart-agrawala-4"),
    twin("token-ring-3", "token-ring-no-faults", "TokenRing.cfg"),
    bench_file!("token-ring-4"),
    bench_file!("coordinator-3"),
    bench_file!("coordinator-4"),
];

/// Arguments of `locksmith bench`.
pub(super) struct BenchArgs {
    pub repeat: usize,
    pub only: Vec<String>,
    pub threads: usize,
    /// Skip TLC even where `TLA2TOOLS_JAR` names it.
    pub no_tlc: bool,
    /// Another locksmith executable to compare with, run alternately.
    pub baseline: Option<PathBuf>,
    pub format: Format,
    /// Hidden: run this one configuration here and print its figures.
    pub child: Option<String>,
}

/// What `--baseline` measured on one configuration it knows.
#[derive(Clone, Copy, Debug)]
struct Versus {
    /// The baseline's median unique states per second.
    per_second: f64,
    /// The median of the per-pair ratios, this binary's unique states per
    /// second over the baseline's.
    speedup: f64,
    /// The baseline's unique states: a speed-up over a binary that
    /// explores another state space is flagged under the table.
    unique: u64,
}

pub(super) fn bench_cmd(args: BenchArgs) -> Exit {
    // --repeat and --threads are in range (cli/args.rs).
    if let Some(label) = &args.child {
        return child::child(label, args.threads);
    }
    let labels: Vec<&str> = CONFIGS.iter().map(|c| c.label).collect();
    if let Some(bad) = args.only.iter().find(|o| !labels.contains(&o.as_str())) {
        return Err(Failure::bad(format!(
            "--only {bad:?} is not a bench configuration; allowed: {}",
            labels.join(", ")
        )));
    }
    let baseline = args.baseline.as_deref().map(executable).transpose()?;
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the locksmith executable to run the bench: {e}"))?;
    let chosen = |c: &&Config| args.only.is_empty() || args.only.iter().any(|o| o == c.label);
    if args.format == Format::Text {
        header(baseline.is_some());
    }
    let mut measured = Vec::new();
    let mut elsewhere = Vec::new();
    for c in CONFIGS.iter().filter(chosen) {
        let (m, versus) = measure(&exe, baseline.as_deref(), c, args.repeat, args.threads)?;
        match args.format {
            Format::Text => row(c.label, &m, baseline.is_some().then_some(versus)),
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
                    generated_per_second: m.generated_per_second().round(),
                    peak_rss_bytes: m.peak,
                    bytes_per_state: m.bytes_per_state().round(),
                    baseline: baseline.as_ref().map(|b| b.display().to_string()),
                    baseline_unique_states_per_second: versus.map(|v| v.per_second.round()),
                    speedup: versus.map(|v| (v.speedup * 1000.0).round() / 1000.0),
                    runs: args.repeat,
                    threads: args.threads,
                })
            ),
        }
        let _ = std::io::stdout().flush();
        if let Some(v) = versus.filter(|v| v.unique != m.unique) {
            elsewhere.push(format!(
                "{} ({} unique states, this binary {})",
                c.label, v.unique, m.unique
            ));
        }
        measured.push((c, m.per_second()));
    }
    if args.format == Format::Text {
        footer(args.repeat, args.threads, baseline.as_deref(), &elsewhere);
    }
    let twins: Vec<(&Config, f64)> = measured.into_iter().filter(|(c, _)| c.twin.is_some()).collect();
    if args.no_tlc || twins.is_empty() {
        return Ok(0);
    }
    let Some(jar) = std::env::var_os("TLA2TOOLS_JAR").filter(|j| !j.is_empty()) else {
        if args.format == Format::Text {
            println!("\nTLC: not measured (set TLA2TOOLS_JAR to tla2tools.jar; specs/README.md, \"Running TLC\")");
        }
        return Ok(0);
    };
    tlc::table(&PathBuf::from(&jar), &twins, args.threads, args.format)
}

/// `--baseline`'s path, if it names an executable file, made absolute (so
/// that a bare name is not looked up in `PATH`).
fn executable(path: &Path) -> Result<PathBuf, Failure> {
    let file = std::fs::metadata(path).ok().filter(std::fs::Metadata::is_file);
    #[cfg(unix)]
    let file = file.filter(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0);
    file.and_then(|_| std::fs::canonicalize(path).ok()).ok_or_else(|| {
        Failure::bad(format!(
            "--baseline {:?} is not an executable file: give the path of another locksmith binary, such as the previous release's",
            path.display().to_string()
        ))
    })
}

/// Runs configuration `c` `repeat` times in child processes, alternating
/// with the baseline's child where there is one (baseline, this, baseline,
/// this...), so that both sides see the machine in the same moods; the
/// medians, and what the baseline measured if it knows `c`. A baseline
/// child that fails or prints no line this version reads does not know
/// `c` (an older release without it): no figures, not a failure.
fn measure(
    exe: &Path,
    baseline: Option<&Path>,
    c: &Config,
    repeat: usize,
    threads: usize,
) -> Result<(Run, Option<Versus>), String> {
    let mut ours = Vec::with_capacity(repeat);
    let mut theirs = Vec::with_capacity(repeat);
    let mut known = baseline.is_some();
    for _ in 0..repeat {
        if let Some(b) = baseline.filter(|_| known) {
            match spawn(b, c.label, threads) {
                Ok(run) => theirs.push(run),
                Err(_) => known = false,
            }
        }
        ours.push(spawn(exe, c.label, threads)?);
    }
    let versus = known.then(|| Versus {
        per_second: median(&theirs).per_second(),
        speedup: median_of(ours.iter().zip(&theirs).map(|(o, t)| speedup(o, t, threads)).collect()),
        unique: theirs[0].unique,
    });
    Ok((median(&ours), versus))
}

/// One pair's speed-up, `ours` over `theirs`: on CPU time where both
/// children report it and searched on one thread (a busy machine, such as
/// CI running other tests beside the bench, takes wall time from both
/// sides unevenly but barely changes the CPU time a search needs), else on
/// wall time, which is also what shows the gain of more threads.
fn speedup(ours: &Run, theirs: &Run, threads: usize) -> f64 {
    match (ours.per_cpu_second(threads), theirs.per_cpu_second(threads)) {
        (Some(o), Some(t)) => o / t,
        _ => ours.per_second() / theirs.per_second().max(1e-9),
    }
}

/// The first table's header; with `--baseline`, two more columns.
fn header(baseline: bool) {
    let (more, align) = if baseline {
        (" baseline unique states/s | speed-up |", "---:|---:|")
    } else {
        ("", "")
    };
    println!(
        "| configuration | unique states | generated | depth | wall s | unique states/s | generated/s | peak RSS | bytes/state |{more}"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|{align}");
}

/// One configuration's row; `versus` is `Some` under `--baseline` (and
/// `Some(None)`, a dash, where the baseline does not know it).
fn row(label: &str, m: &Run, versus: Option<Option<Versus>>) {
    let more = match versus {
        None => String::new(),
        Some(None) => " \u{2014} | \u{2014} |".to_string(),
        Some(Some(v)) => format!(" {:.0} | {:.2}x |", v.per_second, v.speedup),
    };
    println!(
        "| {label} | {} | {} | {} | {:.2} | {:.0} | {:.0} | {:.1} MiB | {:.0} |{more}",
        m.unique,
        m.generated,
        m.depth,
        m.seconds,
        m.per_second(),
        m.generated_per_second(),
        m.peak as f64 / (1 << 20) as f64,
        m.bytes_per_state()
    );
}

/// The lines under the first table: how its figures were taken, and
/// `elsewhere`, the configurations on which the baseline found another
/// number of states.
fn footer(repeat: usize, threads: usize, baseline: Option<&Path>, elsewhere: &[String]) {
    println!("\nmedians of {repeat} runs, each configuration in a process of its own, {threads} thread(s)");
    if let Some(b) = baseline {
        println!(
            "baseline: {}, its run and this binary's in turn for each of the {repeat} runs; speed-up: the \
             median of the per-pair ratios of unique states per {} (this / baseline); \u{2014} where the \
             baseline does not know the configuration",
            b.display(),
            if threads <= 1 {
                "CPU second of the search (wall second where a child does not report its CPU time)"
            } else {
                "wall second"
            }
        );
    }
    if !elsewhere.is_empty() {
        println!(
            "the baseline explores another state space on {}: its speed-up compares unlike searches",
            elsewhere.join(", ")
        );
    }
}
