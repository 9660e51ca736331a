//! The command line's grammar: every command, flag and help text, and the
//! parsers that say which values a flag allows, so that a bad value is
//! refused by clap in one place, in the words of
//! [`usage_error`](super::usage::usage_error).

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use crate::matrix;

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
3 a bound stopped a check before a verdict, 130 Ctrl-C stopped a check or
a simulation (see each command's --help)."
)]
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) command: Command,
}

/// `--format`: the words of each command's help, or one JSON object per
/// line (docs/json.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum Format {
    Text,
    Json,
}

#[derive(Subcommand)]
pub(super) enum Command {
    /// List the bundled scenarios, and your own in ./scenarios/.
    #[command(
        after_help = "Exit codes: 0 listed; 2 a file in ./scenarios/ is not a valid scenario (named on stderr)."
    )]
    List {
        /// `json` prints one JSON object per scenario and line.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Print a completion script for your shell (from the same definitions
    /// as this command line).
    #[command(after_help = "Examples:
  locksmith completions bash > ~/.local/share/bash-completion/completions/locksmith
  locksmith completions zsh > ~/.zfunc/_locksmith")]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), from the same definitions as this command
    /// line: `locksmith man > locksmith.1; man ./locksmith.1`.
    Man,
    /// Print a scenario's TOML (bundled or your own), to copy and edit; with
    /// --spec, its family's TLA+ spec.
    #[command(after_help = "Examples:
  locksmith show redis-ttl-gc-pause > my-lock.toml
  locksmith show redlock-no-fsync --spec

Exit codes: 0 printed; 2 no such scenario.")]
    Show {
        /// A bundled scenario's name, a name in ./scenarios/, or a path.
        name: String,
        /// Print the TLA+ module of the scenario's algorithm (specs/<Family>.tla) instead.
        #[arg(long)]
        spec: bool,
    },
    /// Model-check scenarios (by name or path) and write reports/<scenario>/.
    #[command(after_help = "Examples:
  locksmith check redis-ttl-gc-pause
  locksmith check redlock-no-fsync --no-symmetry --format json
  locksmith check ./my-lock.toml --reports /tmp/reports
  locksmith check redlock-fsync --no-symmetry --checkpoint /tmp/ckpt
  locksmith check redlock-fsync --no-symmetry --checkpoint /tmp/ckpt --resume

A search with --checkpoint DIR saves itself to DIR/<scenario>.checkpoint
every --checkpoint-every states, and when Ctrl-C, --timeout or
--max-memory stops it; --resume goes on from there, to the same counts,
verdicts and traces as one run from the start.

Exit codes: 0 every verdict as expected; 1 a verdict differs from the
expectation; 2 bad input or usage, or a reports folder that cannot be
written (nothing written), or a report that failed to be written after
the search (the verdicts are printed first); 3 a bound, timeout or the
memory bound stopped a check before a verdict; 130 Ctrl-C stopped it (the
verdicts so far are printed, the previous report is kept).")]
    Check(CheckArgs),
    /// Check one scenario at every combination of one or two whole-number
    /// keys and write reports/sweep-<scenario>/: a table and a heat map of
    /// verdict per property, and where each verdict changes, in words.
    #[command(after_help = "Examples:
  locksmith sweep redis-ttl-gc-pause --vary system.ttl=4..7 --vary faults.max_pause=1..3
  locksmith sweep redis-ttl-gc-pause --vary system.ttl=4..12 --jobs 2 --reports /tmp/reports

Each combination is the scenario with those values, loaded and validated
as a scenario file is (a value its family refuses is bad input), then
checked as `check` checks it. reports/sweep-<scenario>/ holds SWEEP.md (a
table per property: rows the first key, columns the second; each violated
cell linked to its trace), sweep.svg (the same as a heat map) and the
usual report of each violated combination. Exit codes: 0 done (a sweep
expects nothing); 2 bad input or usage, or a reports folder that cannot be
written (nothing written); 3 a bound left some verdict unknown; 130
Ctrl-C stopped it (nothing written, the previous sweep kept).")]
    Sweep(SweepArgs),
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
written); 3 a bound stopped a check before a verdict; 130 Ctrl-C stopped
it (no table written).")]
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
        #[arg(long, value_name = "N", requires = "full", default_value_t = matrix::DEFAULT_MAX_STATES,
              value_parser = at_least_one::<usize>("unique states"))]
        max_states: usize,
        /// Where to write MATRIX.md and the reports [default: reports].
        #[arg(long, value_name = "DIR")]
        reports: Option<PathBuf>,
        /// Check up to N scenarios at once, N at least 1 [default: the
        /// number of cores]. The table is the same in any case.
        #[arg(long, value_name = "N", value_parser = at_least_one::<usize>("scenarios to check at once"))]
        jobs: Option<usize>,
        /// `json` prints each scenario's summary as one JSON line, then the table's path (docs/json.md).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
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
expect; 2 bad input or usage, or a reports folder that cannot be written
(nothing written), or a report that failed to be written after the runs
(the results are printed first); 3 an expected violation was not found in
the runs, or --check-determinism saw a run differ; 130 Ctrl-C stopped the
runs (what they found is printed and written).")]
    Simulate(SimulateArgs),
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
        /// `text` prints the merged summary as indented JSON; `json` as one line of kind `merge` (docs/json.md).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Benchmark the exhaustive checker on a fixed set of configurations
    /// (each in a process of its own) and print a table of its figures.
    #[command(after_help = "Examples:
  locksmith bench                       # every configuration once
  locksmith bench --repeat 5            # medians of five runs
  locksmith bench --only redlock-fsync --repeat 3
  locksmith bench --repeat 3 --baseline ./locksmith-0.1.0 --no-tlc

The configurations are inside the binary: it runs from any folder. Peak
resident memory is Linux's VmHWM; bytes per state count what the check
added to the process's resident memory at its peak. --baseline runs
another locksmith binary on each configuration too, alternating with
this one, and adds its unique states/s and the speed-up (a dash where it
does not know the configuration). With TLA2TOOLS_JAR set, a second table
gives TLC's figures (2 workers, one run) beside locksmith's where a
configuration has a TLA+ twin in the checkout's specs/mirror/ (run from
the repository for that; --no-tlc skips it). Exit codes: 0 done; 2 bad
usage, a --baseline that is not an executable file, or a configuration
that could not be run.")]
    Bench {
        /// Run every configuration N times and print the medians.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = at_least_one::<usize>("runs"))]
        repeat: usize,
        /// Only this configuration (repeatable), by its label in the table.
        #[arg(long, value_name = "LABEL")]
        only: Vec<String>,
        /// Threads for each check's breadth-first search (1 to 256).
        #[arg(long, value_name = "T", default_value_t = 1, value_parser = threads)]
        threads: usize,
        /// Do not run TLC on the configurations' TLA+ twins, even where
        /// TLA2TOOLS_JAR names it.
        #[arg(long)]
        no_tlc: bool,
        /// Another locksmith executable, such as the previous release's:
        /// run it alternately with this one, --repeat times each, and add
        /// its median unique states/s and the speed-up over it.
        #[arg(long, value_name = "PATH")]
        baseline: Option<PathBuf>,
        /// `json` prints one JSON line per configuration (docs/json.md).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[arg(long, hide = true)]
        child: Option<String>,
    },
    /// Re-run a saved trace and confirm its violation (exit 0), or say that
    /// it no longer occurs (1) or that the trace is not valid (2).
    #[command(after_help = "Example:
  locksmith replay reports/redlock-no-fsync/trace.json
  locksmith replay tlc-output.txt --scenario specs/redis-crash-empty-ci.toml

Exit codes: 0 the violation occurs again; 1 it no longer does; 2 the file
is not a valid trace (no steps, an algorithm that is not its scenario's, a
step naming a node the scenario does not have) or a step is not enabled.")]
    Replay {
        /// A trace.json written by `check`; or a TLA+ tool's counterexample
        /// (TLC's printed output, or an ITF file) whose states record the
        /// trace view as `tv`, with --scenario.
        trace: PathBuf,
        /// For a TLA+ tool's counterexample: the scenario (a bundled name or
        /// a .toml path) whose Rust model must show the same run.
        #[arg(long)]
        scenario: Option<String>,
        /// `json` prints the verdict as one JSON line (docs/json.md).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Serve stateright's web explorer for a scenario: step through its
    /// world by hand, in the words of trace.md, with a sequence diagram of
    /// the path. Runs until stopped (Ctrl-C).
    #[command(after_help = "Examples:
  locksmith explore redis-ttl-gc-pause                 # then open http://127.0.0.1:3000/
  locksmith explore redlock-no-fsync --addr 127.0.0.1:8080 --no-symmetry

The page opens on the scenario's initial state (\"start\") and lists the
actions enabled in the current state; follow one to step. \"Run to
completion\" searches the whole state space for the safety properties.
The liveness properties show as `locksmith check` decides them, from its
search, which starts with the explorer (with check's bounds: a verdict a
bound left open says which). The explorer runs in an empty directory of
its own, so a ./ui/ folder here is never served.

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
  locksmith reenact reports/redlock-no-fsync/trace.json --log /tmp/redlock.log

Needs redis-server (Debian's package) on PATH, or REDIS_SERVER; for zookeeper
traces ZooKeeper (Debian's zookeeper package, on Java), or ZOOKEEPER_JAR; for
etcd-lease traces etcd (Debian's etcd-server) on PATH, or ETCD_SERVER. Writes a log
beside the trace (reenact.log; git-ignored: it holds real ports and times), or
where --log says.

Exit codes: 0 the real run reproduces the violation; 1 it does not; 2 the
trace cannot be enacted (not a trace, a liveness trace, another family, a
step with no real counterpart: also a clock jump or drift Redis skipped in a
run that stayed safe; the real server missing or failing to start, with what
it wrote).")]
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
        /// Write the log here instead of beside the trace (where a
        /// read-only or shared reports folder may not take it).
        #[arg(long, value_name = "PATH")]
        log: Option<PathBuf>,
        /// `json` prints the verdict as one JSON line (docs/json.md).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
}

/// Where `check` and `simulate` write their reports.
#[derive(clap::Args)]
pub(super) struct ReportArgs {
    /// Where to write reports [default: reports].
    #[arg(long, value_name = "DIR")]
    pub(super) reports: Option<PathBuf>,
    /// Write no reports.
    #[arg(long, conflicts_with = "reports")]
    pub(super) no_reports: bool,
}

impl ReportArgs {
    /// The reports folder (`reports` by default), or `None` with
    /// `--no-reports`.
    pub(super) fn folder(&self) -> Option<&Path> {
        (!self.no_reports).then(|| self.reports.as_deref().unwrap_or(Path::new("reports")))
    }
}

/// The flags of `locksmith check`.
#[derive(clap::Args)]
pub(super) struct CheckArgs {
    /// Bundled scenario names, names of files in ./scenarios/, or paths
    /// to scenario files.
    pub(super) scenarios: Vec<String>,
    /// Check every bundled scenario.
    #[arg(long)]
    pub(super) all: bool,
    /// Depth-first search (counterexamples need not be the shortest).
    #[arg(long)]
    pub(super) dfs: bool,
    /// `json` prints each scenario's summary as one JSON line.
    #[arg(long, value_enum, default_value = "text")]
    pub(super) format: Format,
    /// Stop after N unique states, N at least 1 (open verdicts become
    /// unknown).
    #[arg(long, value_name = "N", value_parser = at_least_one::<usize>("unique states"))]
    pub(super) max_states: Option<usize>,
    /// Explore only the states within N steps of the start, N at least 1
    /// (open verdicts become unknown when any state lies beyond).
    #[arg(long, value_name = "N", value_parser = at_least_one::<u32>("steps"))]
    pub(super) max_depth: Option<u32>,
    /// Stop after this many seconds (open verdicts become unknown).
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    pub(super) timeout: Option<Duration>,
    /// Keep the process's own resident memory within SIZE: breadth-first,
    /// the search first drops its queued states, then moves its seen set,
    /// graph and queue to files in TMPDIR and goes on from disk; it stops
    /// (open verdicts become unknown) only when even that leaves too
    /// little room. A whole number of MiB, or one with a suffix K, M, G or
    /// T (powers of 1024), such as 512M or 8G. Default: 3/4 of the
    /// machine's memory (MemTotal in /proc/meminfo), or 8G where that
    /// cannot be read.
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub(super) max_memory: Option<u64>,
    #[command(flatten)]
    pub(super) out: ReportArgs,
    /// Explore without symmetry reduction even where a scenario asks
    /// for it (to measure the reduction, or to compare its verdicts).
    #[arg(long)]
    pub(super) no_symmetry: bool,
    /// Check up to N scenarios at once, N at least 1 [default: the
    /// number of cores]. Output is the same in any case; --max-memory
    /// bounds the whole process.
    #[arg(long, value_name = "N", value_parser = at_least_one::<usize>("scenarios to check at once"))]
    pub(super) jobs: Option<usize>,
    /// Threads that expand the states of one breadth-first search, 1 to
    /// 256 (--dfs uses one). Counts, verdicts and traces are the same
    /// bytes whatever T.
    #[arg(long, value_name = "T", default_value_t = 1, value_parser = threads)]
    pub(super) threads: usize,
    /// Save each search to DIR/<scenario>.checkpoint as it goes, and
    /// when a bound or Ctrl-C stops it (the file is replaced whole).
    #[arg(long, value_name = "DIR")]
    pub(super) checkpoint: Option<PathBuf>,
    /// Save the checkpoint after every N states expanded, N at least 1.
    #[arg(long, value_name = "N", requires = "checkpoint", default_value_t = crate::check::checkpoint::EVERY,
          value_parser = at_least_one::<usize>("states between checkpoints"))]
    pub(super) checkpoint_every: usize,
    /// Go on from the checkpoint in --checkpoint DIR instead of starting
    /// afresh (same scenario, search options and locksmith version).
    #[arg(long, requires = "checkpoint")]
    pub(super) resume: bool,
}

/// The flags of `locksmith simulate`.
#[derive(clap::Args)]
pub(super) struct SimulateArgs {
    /// A bundled scenario name, the name of a file in ./scenarios/, or
    /// a path to a scenario file.
    pub(super) scenario: String,
    /// The seed S: run i draws from stream i of ChaCha8 keyed by S.
    #[arg(long, default_value_t = 1, conflicts_with = "seed_range")]
    pub(super) seed: u64,
    /// Seeds A..B (A included, B not), each with --runs runs: disjoint
    /// ranges run as independent jobs, and `merge` adds up their
    /// summary.json files.
    #[arg(long, value_name = "A..B")]
    pub(super) seed_range: Option<String>,
    /// How many runs (at least 1).
    #[arg(long, default_value_t = 1000, value_parser = at_least_one::<u64>("runs"))]
    pub(super) runs: u64,
    /// The longest run, in actions (at least 1).
    #[arg(long, value_name = "M", default_value_t = crate::sim::MAX_STEPS, value_parser = at_least_one::<u32>("actions"))]
    pub(super) max_steps: u32,
    /// Threads that share out the runs (1 to 256; results do not
    /// depend on it).
    #[arg(long, value_name = "T", default_value_t = 1, value_parser = threads)]
    pub(super) threads: usize,
    /// A fault rate, KIND=P (repeatable): KIND one of crash, pause,
    /// partition, loss, duplicate, clock_jump, drift; P from 0 to 1.
    #[arg(long, value_name = "KIND=P")]
    pub(super) rate: Vec<String>,
    /// Run every run twice and compare the traces byte for byte
    /// (exit 3 at the first difference).
    #[arg(long)]
    pub(super) check_determinism: bool,
    /// `json` prints the summary as one JSON line.
    #[arg(long, value_enum, default_value = "text")]
    pub(super) format: Format,
    #[command(flatten)]
    pub(super) out: ReportArgs,
}

/// The flags of `locksmith sweep`.
#[derive(clap::Args)]
pub(super) struct SweepArgs {
    /// A bundled scenario name, the name of a file in ./scenarios/, or a
    /// path to a scenario file.
    pub(super) scenario: String,
    /// SECTION.KEY=LO..HI: a key of the scenario file that holds a whole
    /// number (system.ttl, faults.max_pause, ...), set to every value from
    /// LO to HI; once or twice (rows and columns), at most 400
    /// combinations.
    #[arg(long, value_name = "KEY=LO..HI")]
    pub(super) vary: Vec<String>,
    /// Check up to N combinations at once, N at least 1 [default: the
    /// number of cores]. Output is the same in any case.
    #[arg(long, value_name = "N", value_parser = at_least_one::<usize>("combinations to check at once"))]
    pub(super) jobs: Option<usize>,
    /// Write the sweep under DIR/sweep-<scenario>/ [default: reports].
    #[arg(long, value_name = "DIR")]
    pub(super) reports: Option<PathBuf>,
    /// Explore without symmetry reduction even where the scenario asks
    /// for it.
    #[arg(long)]
    pub(super) no_symmetry: bool,
    /// Stop each combination's check after N unique states, N at least 1
    /// (its open verdicts become unknown, and the sweep exits 3).
    #[arg(long, value_name = "N", value_parser = at_least_one::<usize>("unique states"))]
    pub(super) max_states: Option<usize>,
    /// `json` prints the sweep (cells, verdicts, boundaries) as one JSON
    /// object.
    #[arg(long, value_enum, default_value = "text")]
    pub(super) format: Format,
}

impl Command {
    /// The format the command reports in: `show`, `completions`, `man`
    /// and `explore` print documents or serve a page, always as text.
    pub(super) fn format(&self) -> Format {
        match self {
            Command::List { format }
            | Command::Matrix { format, .. }
            | Command::Merge { format, .. }
            | Command::Bench { format, .. }
            | Command::Replay { format, .. }
            | Command::Reenact { format, .. } => *format,
            Command::Check(args) => args.format,
            Command::Simulate(args) => args.format,
            Command::Sweep(sweep) => sweep.format,
            Command::Completions { .. } | Command::Man | Command::Show { .. } | Command::Explore { .. } => Format::Text,
        }
    }
}

/// `--threads`: a whole number from 1 to 256.
fn threads(text: &str) -> Result<usize, String> {
    text.trim()
        .parse()
        .ok()
        .filter(|t| (1..=256).contains(t))
        .ok_or_else(|| "a whole number of threads from 1 to 256".to_string())
}

/// A count that must be at least 1: `--jobs`, `--max-states`, `--runs`...
fn at_least_one<T: FromStr + PartialOrd + From<u8>>(what: &'static str) -> impl Fn(&str) -> Result<T, String> + Clone {
    move |text| {
        text.trim()
            .parse::<T>()
            .ok()
            .filter(|n| *n >= T::from(1))
            .ok_or_else(|| format!("a whole number of {what}, at least 1"))
    }
}

/// `--timeout`: seconds above 0 that a `Duration` holds.
fn seconds(text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|t| *t > 0.0)
        .and_then(|t| Duration::try_from_secs_f64(t).ok())
        .ok_or_else(|| "a number of seconds above 0 and below 1e19".to_string())
}

/// `--max-memory`: a size in bytes ([`parse_size`]).
fn size(text: &str) -> Result<u64, String> {
    parse_size(text).ok_or_else(|| {
        "a whole number of MiB above 0, or one with a suffix K, M, G or T (powers of 1024), such as 512M or 8G"
            .to_string()
    })
}

/// The memory bound where /proc/meminfo cannot be read: 8 GiB.
pub(super) const DEFAULT_MEMORY: u64 = 8 << 30;

/// A `--max-memory` size in bytes: a whole number of MiB, or one with a
/// suffix K, M, G or T (KiB, MiB, GiB, TiB; `KB`, `KiB` and lower case
/// too). `None` for anything else, for 0 and for sizes beyond 2^64 bytes.
pub(super) fn parse_size(text: &str) -> Option<u64> {
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

#[cfg(test)]
mod tests;
