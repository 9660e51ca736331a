//! The command line (docs/design.md §9). Exit codes: 0 every verdict as
//! expected, 1 a verdict differs from the expectation, 2 bad input or
//! usage, 3 a bound or timeout stopped a check before a verdict. A definite
//! verdict that differs from the expectation is 1 even when another
//! property is still unknown.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::thread;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use crate::algorithms::{dispatch, Job};
use crate::catalog;
use crate::check::{check, Options};
use crate::matrix;
use crate::memory;
use crate::progress::{self, Progress};
use crate::properties::Lock;
use crate::report::{self, Summary};
use crate::scenario::{self, Scenario, ScenarioError};
use crate::sim::messages::messages_per_acquisition;
use crate::trace::replay_file;
use crate::world::World;

/// Prints a line on stdout. A closed stdout (`locksmith ... | head`) is not
/// an error worth a panic: the check goes on, its reports are written and
/// its exit code still tells the verdict.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod bench;
mod explore;
mod simulate;

#[derive(Parser)]
#[command(
    name = "locksmith",
    version,
    about = "Model-check distributed locks in a deterministic, faulty world",
    after_help = "Examples:
  locksmith list                          # the bundled scenarios, and yours in ./scenarios/
  locksmith check redlock-no-fsync        # check one; read reports/redlock-no-fsync/trace.md
  locksmith check my-lock.toml            # your own scenario file
  locksmith check --all                   # every bundled scenario against its expectations
  locksmith simulate redis-ttl-gc-pause --seed 7 --runs 10000   # seeded random walks
  locksmith replay reports/redlock-no-fsync/trace.json
  locksmith matrix                        # every scenario -> reports/MATRIX.md
  locksmith explore redlock-no-fsync      # stateright's web explorer on 127.0.0.1:3000

Exit codes: 0 as expected, 1 a verdict differs, 2 bad input or usage,
3 a bound stopped a check before a verdict (see each command's --help)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// List the bundled scenarios, and your own in ./scenarios/.
    #[command(
        after_help = "Exit codes: 0 listed; 2 a file in ./scenarios/ is not a valid scenario (named on stderr)."
    )]
    List {
        /// `json` prints one JSON object per scenario and line.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Model-check scenarios (by name or path) and write reports/<scenario>/.
    #[command(after_help = "Examples:
  locksmith check redis-ttl-gc-pause
  locksmith check redlock-no-fsync --no-symmetry --format json
  locksmith check ./my-lock.toml --reports /tmp/reports

Exit codes: 0 every verdict as expected; 1 a verdict differs from the
expectation; 2 bad input or usage (nothing written); 3 a bound, timeout or
the memory bound stopped a check before a verdict.")]
    Check {
        /// Bundled scenario names, names of files in ./scenarios/, or paths
        /// to scenario files.
        scenarios: Vec<String>,
        /// Check every bundled scenario.
        #[arg(long)]
        all: bool,
        /// Depth-first search (counterexamples need not be the shortest).
        #[arg(long)]
        dfs: bool,
        /// `json` prints each scenario's summary as one JSON line.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Stop after N unique states, N at least 1 (open verdicts become
        /// unknown).
        #[arg(long, value_name = "N")]
        max_states: Option<usize>,
        /// Stop after this many seconds (open verdicts become unknown).
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
        /// Stop when the resident memory exceeds SIZE (open verdicts become
        /// unknown): a whole number of MiB, or one with a suffix K, M, G or
        /// T (powers of 1024), such as 512M or 8G. Default: 3/4 of the
        /// machine's memory (MemTotal in /proc/meminfo), or 8G where that
        /// cannot be read.
        #[arg(long, value_name = "SIZE")]
        max_memory: Option<String>,
        /// Where to write reports [default: reports].
        #[arg(long, value_name = "DIR")]
        reports: Option<PathBuf>,
        /// Write no reports.
        #[arg(long, conflicts_with = "reports")]
        no_reports: bool,
        /// Explore without symmetry reduction even where a scenario asks
        /// for it (to measure the reduction, or to compare its verdicts).
        #[arg(long)]
        no_symmetry: bool,
        /// Check up to N scenarios at once, N at least 1 [default: the
        /// number of cores]. Output is the same in any case; --max-memory
        /// bounds the whole process.
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
        /// Threads that expand the states of one breadth-first search, 1 to
        /// 256 (--dfs uses one). Counts, verdicts and traces are the same
        /// bytes whatever T.
        #[arg(long, value_name = "T", default_value_t = 1)]
        threads: usize,
    },
    /// Check every bundled scenario (or the ones named) and write the
    /// algorithms-by-faults table reports/MATRIX.md from their verdicts.
    #[command(after_help = "Examples:
  locksmith matrix                        # every bundled scenario; read reports/MATRIX.md
  locksmith matrix --jobs 1
  locksmith matrix token-ring-crash token-ring-no-faults --reports /tmp/reports
  locksmith matrix --full                 # and a generated scenario for every empty cell

Each scenario is checked as `check` checks it, and its reports are written
too, so the table's links lead to its traces. Exit codes as `check`'s: 0
every verdict as expected; 1 a verdict differs (the table is still
written, with what the checker found); 2 bad input or usage (nothing
written); 3 a bound stopped a check before a verdict.")]
    Matrix {
        /// Bundled scenario names, names of files in ./scenarios/, or paths
        /// to scenario files [default: every bundled scenario].
        scenarios: Vec<String>,
        /// Fill every cell: for each one no bundled scenario fills, write a
        /// scenario from the row's plainest bundled one with the column's
        /// standard budget under DIR/generated/, check it (bounded by
        /// --max-states) and show it, marked generated; a cell that cannot
        /// exist says why in a footnote. With scenarios named, only their
        /// rows (the bundled ones among them).
        #[arg(long)]
        full: bool,
        /// With --full: stop each generated check after N unique states, N
        /// at least 1 (its open verdicts show ?).
        #[arg(long, value_name = "N", requires = "full", default_value_t = matrix::DEFAULT_MAX_STATES)]
        max_states: usize,
        /// Where to write MATRIX.md and the reports [default: reports].
        #[arg(long, value_name = "DIR")]
        reports: Option<PathBuf>,
        /// Check up to N scenarios at once, N at least 1 [default: the
        /// number of cores]. The table is the same in any case.
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
    },
    /// Random walks through the scenario's world under its fault budget;
    /// a safety violation is shrunk and written to
    /// reports/<scenario>/sim-<seed>/.
    #[command(after_help = "Examples:
  locksmith simulate redis-ttl-gc-pause --seed 7 --runs 10000
  locksmith simulate redlock-gc-pause --seed 1 --runs 100000 --threads 2 --rate pause=0.1
  locksmith simulate redis-ttl-gc-pause --seed 7 --runs 100 --check-determinism

Run i of seed S is fully determined by (S, i), whatever the machine or
--threads. Fault rates (per step, when such a fault is enabled and the
budget allows it) come from the scenario's [simulate] table (crash_rate,
pause_rate, partition_rate, loss_rate, duplicate_rate, clock_jump_rate,
drift_rate), else the defaults crash 0.1, pause 0.05, partition 0.05,
loss 0.02, duplicate 0.02, clock_jump 0.05, drift 0.5; --rate overrides.
Simulation checks the safety properties only.

Exit codes: 0 no violation the scenario does not expect, and every
expected safety violation found; 1 a violation the scenario does not
expect; 2 bad input or usage (nothing written); 3 an expected violation
was not found in the runs, or --check-determinism saw a run differ.")]
    Simulate {
        /// A bundled scenario name, the name of a file in ./scenarios/, or
        /// a path to a scenario file.
        scenario: String,
        /// The seed S: run i draws from stream i of ChaCha8 keyed by S.
        #[arg(long, default_value_t = 1, conflicts_with = "seed_range")]
        seed: u64,
        /// Seeds A..B (A included, B not), each with --runs runs: disjoint
        /// ranges run as independent jobs, and `merge` adds up their
        /// summary.json files.
        #[arg(long, value_name = "A..B")]
        seed_range: Option<String>,
        /// How many runs (at least 1).
        #[arg(long, default_value_t = 1000)]
        runs: u64,
        /// The longest run, in actions (at least 1).
        #[arg(long, value_name = "M", default_value_t = crate::sim::MAX_STEPS)]
        max_steps: u32,
        /// Threads that share out the runs (1 to 256; results do not
        /// depend on it).
        #[arg(long, value_name = "T", default_value_t = 1)]
        threads: usize,
        /// A fault rate, KIND=P (repeatable): KIND one of crash, pause,
        /// partition, loss, duplicate, clock_jump, drift; P from 0 to 1.
        #[arg(long, value_name = "KIND=P")]
        rate: Vec<String>,
        /// Run every run twice and compare the traces byte for byte
        /// (exit 3 at the first difference).
        #[arg(long)]
        check_determinism: bool,
        /// `json` prints the summary as one JSON line.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Where to write reports [default: reports].
        #[arg(long, value_name = "DIR")]
        reports: Option<PathBuf>,
        /// Write no reports.
        #[arg(long, conflicts_with = "reports")]
        no_reports: bool,
    },
    /// Merge the summary.json files of simulations of one scenario over
    /// disjoint seed ranges into one summary (printed as JSON).
    #[command(after_help = "Example:
  locksmith simulate redlock-gc-pause --seed-range 1..5 --reports job-a
  locksmith simulate redlock-gc-pause --seed-range 5..9 --reports job-b
  locksmith merge job-a/redlock-gc-pause/sim-1..5 job-b/redlock-gc-pause/sim-5..9

Each DIR is a simulation's report folder or its summary.json. Exit codes:
0 as expected; 1 a violation the scenario does not expect; 2 bad input
(not a simulation summary, different scenarios or settings, overlapping
seeds); 3 an expected violation no job found.")]
    Merge {
        /// Simulation report folders (or their summary.json files).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
    /// Benchmark the exhaustive checker on a fixed set of configurations
    /// (each in a process of its own) and print a table of its figures.
    #[command(after_help = "Examples:
  locksmith bench                       # every configuration once
  locksmith bench --repeat 5            # medians of five runs
  locksmith bench --only redlock-fsync --repeat 3

Run it from the repository (bench-only scenarios live in bench/). Peak
resident memory is Linux's VmHWM; bytes per state count what the check
added to the process's resident memory at its peak. With TLA2TOOLS_JAR
set, a second table gives TLC's figures (2 workers, one run) where a
configuration has a TLA+ twin in specs/ (--no-tlc skips it). Exit codes: 0 done;
2 bad usage or a configuration that could not be run.")]
    Bench {
        /// Run every configuration N times and print the medians.
        #[arg(long, value_name = "N", default_value_t = 1)]
        repeat: usize,
        /// Only this configuration (repeatable), by its label in the table.
        #[arg(long, value_name = "LABEL")]
        only: Vec<String>,
        /// Threads for each check's breadth-first search (1 to 256).
        #[arg(long, value_name = "T", default_value_t = 1)]
        threads: usize,
        /// Do not run TLC on the configurations' TLA+ twins, even where
        /// TLA2TOOLS_JAR names it.
        #[arg(long)]
        no_tlc: bool,
        #[arg(long, hide = true)]
        child: Option<String>,
    },
    /// Re-run a saved trace and confirm its violation (exit 0), or say that
    /// it no longer occurs (1) or that the trace is not valid (2).
    #[command(after_help = "Example:
  locksmith replay reports/redlock-no-fsync/trace.json
  locksmith replay tlc-output.txt --scenario specs/redis-crash-empty-ci.toml

Exit codes: 0 the violation occurs again; 1 it no longer does; 2 the file
is not a valid trace or a step is not enabled.")]
    Replay {
        /// A trace.json written by `check`; or a TLA+ tool's counterexample
        /// (TLC's printed output, or an ITF file) whose states record the
        /// trace view as `tv`, with --scenario.
        trace: PathBuf,
        /// For a TLA+ tool's counterexample: the scenario (a bundled name or
        /// a .toml path) whose Rust model must show the same run.
        #[arg(long)]
        scenario: Option<String>,
    },
    /// Serve stateright's web explorer for a scenario: step through its
    /// world by hand, in the words of trace.md, with a sequence diagram of
    /// the path. Runs until stopped (Ctrl-C).
    #[command(after_help = "Examples:
  locksmith explore redis-ttl-gc-pause                 # then open http://127.0.0.1:3000/
  locksmith explore redlock-no-fsync --addr 127.0.0.1:8080 --no-symmetry

The page lists the actions enabled in the current state; follow one to
step. \"Run to completion\" searches the whole state space for the safety
properties (liveness is `locksmith check`'s). The explorer runs in an
empty directory of its own, so a ./ui/ folder here is never served.

Exit codes: 2 bad input, or the address is taken or cannot be bound (the
explorer otherwise runs until stopped).")]
    Explore {
        /// A bundled scenario name, the name of a file in ./scenarios/, or
        /// a path to a scenario file.
        scenario: String,
        /// Where to listen: HOST:PORT.
        #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:3000")]
        addr: String,
        /// Show states with their own node names even where the scenario
        /// asks for symmetry reduction (the explorer otherwise shows each
        /// state's canonical form, as `check` explores it).
        #[arg(long)]
        no_symmetry: bool,
    },
    /// Execute a counterexample on real servers (redis-server for
    /// single-redis, primary-replica and redlock traces; ZooKeeper for
    /// zookeeper traces; etcd for etcd-lease traces, with the `etcd` feature)
    /// and say whether the violation happens on them.
    #[command(after_help = "Examples:
  locksmith reenact reports/redlock-no-fsync/trace.json
  locksmith reenact reports/redlock-no-fsync/trace.json --scenario redlock-fsync
  locksmith reenact reports/redis-ttl-gc-pause/trace.json --tick-ms 200
  locksmith reenact reports/zk-session-expiry-pause/trace.json
  locksmith reenact reports/etcd-partition/trace.json

Needs redis-server (Debian's package) on PATH, or REDIS_SERVER; for zookeeper
traces ZooKeeper (Debian's zookeeper package, on Java), or ZOOKEEPER_JAR; for
etcd-lease traces etcd (Debian's etcd-server) on PATH, or ETCD_SERVER. Writes a log
beside the trace (reenact.log; git-ignored: it holds real ports and times).

Exit codes: 0 the real run reproduces the violation; 1 it does not; 2 the
trace cannot be enacted (not a trace, a liveness trace, another family, a
step with no real counterpart, the real server missing).")]
    Reenact {
        /// A trace.json (or PROPERTY.trace.json) written by `check`.
        trace: PathBuf,
        /// Real milliseconds per tick: a TTL of N ticks is PX N x this
        /// [default: 100 on Redis, 300 on ZooKeeper, 4000 on etcd, whose
        /// leases are whole seconds].
        #[arg(long)]
        tick_ms: Option<u64>,
        /// Run the real servers with this scenario's configuration (same
        /// algorithm and nodes), e.g. redlock-fsync for a redlock-no-fsync
        /// trace.
        #[arg(long)]
        scenario: Option<String>,
    },
}

pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            // One sentence with locksmith's own prefix, like every other
            // error (clap's adds a usage block and its own `error:`).
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            let sentence = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("locksmith: {sentence}; see `locksmith --help`");
            return 2;
        }
        Err(e) => {
            let _ = e.print();
            return 0;
        }
    };
    match cli.command {
        Command::List { format } => list(format),
        Command::Check {
            scenarios,
            all,
            dfs,
            format,
            max_states,
            timeout,
            max_memory,
            reports,
            no_reports,
            no_symmetry,
            jobs,
            threads,
        } => {
            if let Err(e) = progress::interval() {
                eprintln!("locksmith: {e}");
                return 2;
            }
            if !(1..=256).contains(&threads) {
                eprintln!(
                    "locksmith: --threads {threads} is not allowed; allowed: a whole number of threads from 1 to 256"
                );
                return 2;
            }
            if jobs == Some(0) {
                eprintln!("locksmith: --jobs 0 is not allowed; allowed: a whole number of scenarios to check at once, at least 1");
                return 2;
            }
            if max_states == Some(0) {
                eprintln!("locksmith: --max-states 0 is not allowed; allowed: a whole number of states, at least 1");
                return 2;
            }
            let timeout = match timeout.map(|t| (t, Duration::try_from_secs_f64(t))) {
                None => None,
                Some((t, Ok(d))) if t > 0.0 => Some(d),
                Some((t, _)) => {
                    eprintln!(
                        "locksmith: --timeout {t} is not allowed; allowed: a number of seconds above 0 and below 1e19"
                    );
                    return 2;
                }
            };
            let max_memory = match max_memory.as_deref().map(|m| (m, parse_size(m))) {
                None => memory::total().map_or(DEFAULT_MEMORY, |t| t / 4 * 3),
                Some((_, Some(bytes))) => bytes,
                Some((m, None)) => {
                    eprintln!(
                        "locksmith: --max-memory {m:?} is not allowed; allowed: a whole number of MiB above 0, or one with a suffix K, M, G or T (powers of 1024), such as 512M or 8G"
                    );
                    return 2;
                }
            };
            let opts = Options {
                dfs,
                max_states,
                timeout,
                max_memory: Some(max_memory),
                progress: Some(Progress::search("check")),
                threads,
            };
            let reports = reports.unwrap_or_else(|| PathBuf::from("reports"));
            let out = (!no_reports).then_some(reports.as_path());
            check_cmd(&scenarios, all, &opts, format, out, no_symmetry, jobs)
        }
        Command::Matrix {
            scenarios,
            full,
            max_states,
            reports,
            jobs,
        } => {
            if max_states == 0 {
                eprintln!(
                    "locksmith: --max-states 0 is not allowed; allowed: a whole number of unique states, at least 1"
                );
                return 2;
            }
            if let Err(e) = progress::interval() {
                eprintln!("locksmith: {e}");
                return 2;
            }
            if jobs == Some(0) {
                eprintln!("locksmith: --jobs 0 is not allowed; allowed: a whole number of scenarios to check at once, at least 1");
                return 2;
            }
            let opts = Options {
                dfs: false,
                max_states: None,
                timeout: None,
                max_memory: Some(memory::total().map_or(DEFAULT_MEMORY, |t| t / 4 * 3)),
                progress: Some(Progress::search("matrix")),
                threads: 1,
            };
            let reports = reports.unwrap_or_else(|| PathBuf::from("reports"));
            matrix_cmd(&scenarios, &opts, &reports, jobs, full.then_some(max_states))
        }
        Command::Simulate {
            scenario,
            seed,
            seed_range,
            runs,
            max_steps,
            threads,
            rate,
            check_determinism,
            format,
            reports,
            no_reports,
        } => {
            let reports = reports.unwrap_or_else(|| PathBuf::from("reports"));
            let job = simulate::SimJob {
                seed,
                seed_range,
                runs,
                max_steps,
                threads,
                rates: rate,
                check_determinism,
                json: format == Format::Json,
                reports: (!no_reports).then_some(reports.as_path()),
            };
            simulate::simulate_cmd(&scenario, job)
        }
        Command::Bench {
            repeat,
            only,
            threads,
            no_tlc,
            child,
        } => bench::bench_cmd(bench::BenchArgs {
            repeat,
            only,
            threads,
            no_tlc,
            child,
        }),
        Command::Merge { dirs } => simulate::merge_cmd(&dirs),
        Command::Explore {
            scenario,
            addr,
            no_symmetry,
        } => explore::explore_cmd(&scenario, &addr, no_symmetry),
        Command::Reenact {
            trace,
            tick_ms,
            scenario,
        } => {
            let r = crate::real::reenact::reenact_file(&trace, &crate::real::reenact::Options { tick_ms, scenario });
            if r.exit_code() == 0 {
                say!("{r}");
            } else {
                eprintln!("locksmith: {r}");
            }
            r.exit_code()
        }
        Command::Replay { trace, scenario } => {
            let r =
                crate::observe::replay::replay_path(&trace, scenario.as_deref()).unwrap_or_else(|| replay_file(&trace));
            if r.exit_code() == 0 {
                say!("{r}");
            } else {
                eprintln!("locksmith: {r}");
            }
            r.exit_code()
        }
    }
}

/// The memory bound where /proc/meminfo cannot be read: 8 GiB.
const DEFAULT_MEMORY: u64 = 8 << 30;

/// A `--max-memory` size in bytes: a whole number of MiB, or one with a
/// suffix K, M, G or T (KiB, MiB, GiB, TiB; `KB`, `KiB` and lower case
/// too). `None` for anything else, for 0 and for sizes beyond 2^64 bytes.
fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, suffix) = text.split_at(digits);
    let shift = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "m" | "mb" | "mib" => 20,
        "k" | "kb" | "kib" => 10,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    let n: u64 = number.parse().ok()?;
    n.checked_mul(1 << shift).filter(|b| *b > 0)
}

/// The bundled scenarios, then the user's own in ./scenarios/ (files that
/// are not a bundled one's exact text), each marked as which it is. A
/// local file that does not load is listed too; its error goes to stderr
/// and the exit code is 2.
fn list(format: Format) -> i32 {
    let mut code = 0;
    let bundled = scenario::all().into_iter().map(|p| ("bundled", p));
    let local = scenario::local().into_iter().map(|p| ("local", p));
    for (origin, path) in bundled.chain(local) {
        let sc = match catalog::load(&path) {
            Ok(sc) => sc,
            Err(e) => {
                eprintln!("locksmith: {e}");
                code = 2;
                continue;
            }
        };
        let file = (origin == "local").then(|| path.display().to_string());
        match format {
            Format::Json => {
                let line = serde_json::json!({
                    "name": sc.name,
                    "origin": origin,
                    "algorithm": sc.algorithm,
                    "summary": sc.summary,
                    "path": file,
                });
                say!("{line}");
            }
            Format::Text => {
                let line = format!("{:32} {:8} {:16} {}", sc.name, origin, sc.algorithm, sc.summary);
                match file {
                    Some(f) => say!("{line}  [{f}]"),
                    None => say!("{line}"),
                }
            }
        }
    }
    code
}

fn check_cmd(
    names: &[String],
    all: bool,
    opts: &Options,
    format: Format,
    reports: Option<&Path>,
    no_symmetry: bool,
    jobs: Option<usize>,
) -> i32 {
    let paths: Result<Vec<PathBuf>, ScenarioError> = match (all, names.is_empty()) {
        (true, true) => Ok(scenario::all()),
        (false, false) => names.iter().map(|n| scenario::find(n)).collect(),
        (true, false) => Err(ScenarioError("give scenario names or --all, not both".into())),
        (false, true) => Err(ScenarioError(
            "name a scenario to check (`locksmith list` shows them), or pass --all".into(),
        )),
    };
    check_paths(paths, opts, format, reports, no_symmetry, jobs, all).1
}

/// `matrix`: checks the named scenarios (every bundled one when none is
/// named) as `check` does, writing their reports, then writes
/// `MATRIX.md` under the reports root from the summaries of that check.
/// The matrix is written even when a verdict differs from its scenario's
/// expectation (it shows what the checker found; the exit code is 1), but
/// not when a scenario could not be checked at all (exit 2).
fn matrix_cmd(names: &[String], opts: &Options, reports: &Path, jobs: Option<usize>, full: Option<usize>) -> i32 {
    let paths = if names.is_empty() {
        Ok(scenario::all())
    } else {
        names.iter().map(|n| scenario::find(n)).collect()
    };
    let (checked, code) = check_paths(paths, opts, Format::Text, Some(reports), false, jobs, names.is_empty());
    if code == 2 {
        return 2;
    }
    let bundled: Vec<&Scenario> = checked.iter().map(|(sc, _)| sc).filter(|sc| sc.bundled).collect();
    let full = match full {
        // Every bundled scenario was checked: the generated cells of the
        // last `--full` run whose scenarios are still what it would write.
        None if names.is_empty() => matrix::full_from_disk(reports, &bundled),
        None => None,
        Some(max_states) => {
            let (generated, absent) = match matrix::write_generated(reports, &bundled, max_states) {
                Ok(g) => g,
                Err(e) => {
                    eprintln!("locksmith: {e}");
                    return 2;
                }
            };
            let mut bounded = opts.clone();
            bounded.max_states = Some(max_states);
            say!(
                "checking {} generated scenarios (at most {max_states} states each)",
                generated.len()
            );
            let (checked, gcode) = check_loaded(generated, &bounded, Format::Text, Some(reports), jobs, false);
            if gcode == 2 {
                return 2;
            }
            Some(matrix::Full {
                generated: checked,
                absent,
                max_states,
            })
        }
    };
    let written = matrix::render(&checked, full.as_ref())
        .map_err(|e| e.to_string())
        .and_then(|text| {
            matrix::write(reports, &text)
                .map_err(|e| format!("cannot write {}: {e}", reports.join(matrix::FILE).display()))
        });
    match written {
        Ok(()) => {
            say!("wrote {}", reports.join(matrix::FILE).display());
            code
        }
        Err(e) => {
            eprintln!("locksmith: {e}");
            2
        }
    }
}

/// What `check` and `matrix` share: loads every scenario first (bad input
/// exits 2 with nothing written), checks them side by side, prints each
/// one's text in order, writes the index reports/README.md when `index`
/// (every bundled scenario was checked), and returns the scenarios with
/// their summaries and the exit code (docs/design.md §9).
fn check_paths(
    paths: Result<Vec<PathBuf>, ScenarioError>,
    opts: &Options,
    format: Format,
    reports: Option<&Path>,
    no_symmetry: bool,
    jobs: Option<usize>,
    index: bool,
) -> (Vec<(Scenario, Summary)>, i32) {
    // Load and validate everything before checking anything, so bad input
    // exits 2 with nothing written.
    let loaded: Result<Vec<Scenario>, ScenarioError> =
        paths.and_then(|ps| ps.iter().map(|p| catalog::load(p)).collect());
    let loaded = loaded.map(|mut all: Vec<Scenario>| {
        for sc in all.iter_mut().filter(|_| no_symmetry) {
            sc.symmetry = false;
        }
        all
    });
    let scenarios = match loaded {
        Ok(s) if s.is_empty() => {
            eprintln!("locksmith: no scenarios to check");
            return (Vec::new(), 2);
        }
        Ok(s) => s,
        Err(e) => {
            eprintln!("locksmith: {e}");
            return (Vec::new(), 2);
        }
    };
    check_loaded(scenarios, opts, format, reports, jobs, index)
}

/// [`check_paths`] on scenarios already loaded.
fn check_loaded(
    scenarios: Vec<Scenario>,
    opts: &Options,
    format: Format,
    reports: Option<&Path>,
    jobs: Option<usize>,
    index: bool,
) -> (Vec<(Scenario, Summary)>, i32) {
    let (mut differ, mut unknown, mut agree) = (0, 0, 0);
    let jobs = jobs.unwrap_or_else(|| thread::available_parallelism().map_or(1, |n| n.get()));
    let mut failed = false;
    let mut summaries = Vec::new();
    in_order(&scenarios, jobs, opts, format, reports, |text, result| {
        let _ = std::io::stdout().write_all(text.as_bytes());
        match result {
            // A definite verdict against the expectation outweighs any
            // verdict a bound left open (docs/design.md §9).
            Ok(summary) => {
                if summary.differs() {
                    differ += 1;
                } else if summary.has_unknown() {
                    unknown += 1;
                } else {
                    agree += 1;
                }
                summaries.push(summary);
            }
            Err(e) => {
                eprintln!("locksmith: {e}");
                failed = true;
            }
        }
        !failed
    });
    if failed {
        return (Vec::new(), 2);
    }
    // Every bundled scenario was checked: index them beside their reports.
    if let (true, Some(root)) = (index, reports) {
        if let Err(e) = report::index::write(root, &summaries) {
            eprintln!(
                "locksmith: cannot write {} under {}: {e}",
                report::index::FILE,
                root.display()
            );
            return (Vec::new(), 2);
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
    (scenarios.into_iter().zip(summaries).collect(), code)
}

/// Checks `scenarios` on up to `jobs` threads and hands `emit` each one's
/// printed text and summary in the scenarios' order, as soon as it and
/// every scenario before it are done, so the output is the same bytes
/// whatever the number of jobs. Scenarios are independent checks: this is
/// where a second core pays off first (`check --all`). `emit` returns
/// false to stop: scenarios not yet started are skipped. With more than one
/// job, the per-check progress gives way to one display counting the
/// scenarios done and naming those still running.
fn in_order(
    scenarios: &[Scenario],
    jobs: usize,
    opts: &Options,
    format: Format,
    reports: Option<&Path>,
    mut emit: impl FnMut(String, Result<Summary, String>) -> bool,
) {
    let jobs = jobs.clamp(1, scenarios.len().max(1));
    let mut quiet = opts.clone();
    quiet.progress = opts.progress.clone().filter(|_| jobs == 1);
    let overall =
        (opts.progress.is_some() && jobs > 1).then(|| Progress::count("check", scenarios.len() as u64, "scenarios"));
    // Whichever display is on, hidden while a result is printed.
    let display = overall.clone().or_else(|| quiet.progress.clone());
    let quiet = &quiet;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let running = Mutex::new(BTreeSet::new());
    let (tx, rx) = mpsc::channel::<(usize, String, Result<Summary, String>)>();
    thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, stop, running) = (&next, &stop, &running);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= scenarios.len() || stop.load(Ordering::SeqCst) {
                    break;
                }
                lock(running).insert(i);
                let mut text = String::new();
                let job = CheckJob {
                    opts: quiet,
                    format,
                    reports,
                    text: &mut text,
                };
                let result = dispatch(&scenarios[i], job).unwrap_or_else(|ScenarioError(e)| Err(e));
                lock(running).remove(&i);
                if tx.send((i, text, result)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut done = BTreeMap::new();
        let mut emitted = 0;
        loop {
            if let Some((text, result)) = done.remove(&emitted) {
                emitted += 1;
                let go_on = match &display {
                    Some(p) => p.suspend(|| emit(text, result)),
                    None => emit(text, result),
                };
                if !go_on {
                    stop.store(true, Ordering::SeqCst);
                    return;
                }
                continue;
            }
            match rx.recv_timeout(Duration::from_secs(1)) {
                Ok((i, text, result)) => {
                    done.insert(i, (text, result));
                    if let Some(p) = &overall {
                        p.add(1, 0);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(p) = &overall {
                        let now: Vec<&str> = lock(&running).iter().map(|&i| scenarios[i].name.as_str()).collect();
                        p.note(&format!("checking {}", now.join(", ")));
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        }
    });
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
    type Output = Result<Summary, String>;

    fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> Self::Output {
        if let Some(p) = &self.opts.progress {
            p.restart(&sc.name);
        }
        let outcome = check(&world, self.opts);
        if let Some(p) = &self.opts.progress {
            p.finish();
        }
        let mut summary = Summary::new(sc, &outcome, self.opts.dfs);
        summary.messages_per_acquisition = messages_per_acquisition(&world, sc.acquisitions);
        if self.reports.is_none() {
            // No file to name: the trace was never written.
            summary.properties.iter_mut().for_each(|p| p.trace = None);
        }
        let dir = match self.reports {
            Some(root) => Some(
                report::write(root, sc, &world, &outcome, &summary)
                    .map_err(|e| format!("cannot write the report for {} under {}: {e}", sc.name, root.display()))?,
            ),
            None => None,
        };
        match self.format {
            Format::Json => {
                let _ = writeln!(
                    self.text,
                    "{}",
                    serde_json::to_string(&summary).map_err(|e| e.to_string())?
                );
            }
            Format::Text => print_text(self.text, &summary, dir.as_deref()),
        }
        Ok(summary)
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
