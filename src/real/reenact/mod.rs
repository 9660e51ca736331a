//! `locksmith reenact TRACE`: a counterexample executed on real servers: of
//! the single-redis, primary-replica or Redlock family on real
//! `redis-server` processes, of the zookeeper family on a real ZooKeeper
//! ([`zookeeper`]), of the etcd-lease family on a real etcd ([`etcd`], with
//! the `etcd` feature). The model found the bug exhaustively; this shows it
//! on the real thing, or says that the real servers do not reproduce it.
//!
//! How a Redis step becomes real is in [`plan`] (which operation) and
//! [`driver`] (how it runs). Whether the violation happened is judged from the real
//! servers' answers, never from the model: a client holds the lock when the
//! trace's client logic says it does *and* the real servers gave it the
//! answers that logic needs (Redlock: a real majority of `OK`s), within the
//! validity a validity client measures on its real clock. The model only
//! contributes the client's own decisions (when it writes, when it
//! releases), which do not depend on the servers.
//!
//! The log (`reenact.log` beside the trace, or where `--log` says) holds
//! real ports and milliseconds, so it differs between runs: it is
//! git-ignored, and a run leaves the repository unchanged.

pub mod driver;
#[cfg(feature = "etcd")]
pub mod etcd;
pub mod judge;
pub mod plan;
pub mod zookeeper;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::algorithms::real::Real;
use crate::algorithms::{dispatch, Job};
use crate::catalog;
use crate::properties::{view, Lock, Prop};
use crate::scenario::Scenario;
use crate::trace::{read_trace, Replay, TraceFile};
use crate::world::World;

use driver::Driver;
use judge::Witness;
use plan::{Op, Part, Setup};

/// The default length of one tick in real time on Redis (etcd's is
/// 4000 ms, `etcd::DEFAULT_TICK_MS`: its leases are whole seconds).
pub const DEFAULT_TICK_MS: u64 = 100;

/// How to reenact.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Real milliseconds per model tick (TTLs in `PX` are ticks × this);
    /// `None`: the family's default ([`DEFAULT_TICK_MS`] on Redis).
    pub tick_ms: Option<u64>,
    /// Run the real servers with another scenario's configuration (same
    /// algorithm and nodes), e.g. `redlock-fsync` for a `redlock-no-fsync`
    /// trace: the same steps against the safe configuration.
    pub scenario: Option<String>,
    /// Where the log goes (`--log`); `None`: beside the trace
    /// ([`log_path`]), which a read-only or shared reports folder rules out.
    pub log: Option<PathBuf>,
}

/// The model's view along the trace: which clients hold the lock after
/// each step, by the client logic alone (a bit per node), and the nodes'
/// names.
pub(crate) struct Shadow<'a> {
    pub(crate) trace: &'a TraceFile,
}

impl Job for Shadow<'_> {
    type Output = Result<(Vec<u64>, Vec<String>), String>;
    fn run<A: Lock>(self, _sc: &Scenario, world: World<A>) -> Self::Output {
        let actions = crate::trace::actions(&world, self.trace)?;
        let states = crate::trace::states(&world, &actions).map_err(|e| format!("{e} in the model"))?;
        let holding = states[1..].iter().map(|s| view(&world, s).holding).collect();
        Ok((holding, world.names.clone()))
    }
}

/// Where the log goes: `reenact.log` beside `trace.json`,
/// `no_stale_write.reenact.log` beside `no_stale_write.trace.json`, and
/// `reenact.SCENARIO.log` when run with another scenario's configuration.
pub fn log_path(trace: &Path, scenario: Option<&str>) -> PathBuf {
    let name = trace.file_name().and_then(|n| n.to_str()).unwrap_or("trace.json");
    let stem = name
        .strip_suffix("trace.json")
        .map(str::to_string)
        .unwrap_or_else(|| format!("{}.", name.strip_suffix(".json").unwrap_or(name)));
    // `--scenario` may be a path: the log is named after its file's stem.
    let scenario = scenario.map(|s| Path::new(s).file_stem().and_then(|f| f.to_str()).unwrap_or(s));
    let file = match scenario {
        Some(s) => format!("{stem}reenact.{s}.log"),
        None => format!("{stem}reenact.log"),
    };
    trace.with_file_name(file)
}

/// Reenacts a trace file; see the module's documentation.
pub fn reenact_file(path: &Path, opts: &Options) -> Replay {
    let shown = path.display().to_string();
    let invalid = |why: String| Replay::Invalid(format!("{shown}: cannot be enacted: {why}"));
    let (trace, prop, sc) = match read_enactable(path, opts) {
        Ok(t) => t,
        Err(refused) => return refused,
    };
    // Which real servers: the family's registration says (`Family::real`).
    let real = plan::real_of(&sc);
    match &real {
        Ok(Real::ZooKeeper) => {
            let (log, outcome) = zookeeper::reenact(&shown, &trace, prop, &sc, opts);
            return finish(path, opts, &log, outcome);
        }
        #[cfg(feature = "etcd")]
        Ok(Real::Etcd) => {
            let (log, outcome) = etcd::reenact(&shown, &trace, prop, &sc, opts);
            return finish(path, opts, &log, outcome);
        }
        #[cfg(not(feature = "etcd"))]
        Ok(Real::Etcd) => {
            return invalid(
                "this locksmith was built without the `etcd` feature, so it has no etcd client; build it with `cargo install --path . --features etcd` (which needs protoc)".into(),
            )
        }
        _ => {}
    }
    let model_setup = match Setup::from_real(&sc, real) {
        Ok(s) => s,
        Err(e) => return invalid(e),
    };
    let (real_sc, setup) = match redis_setup(&shown, &sc, model_setup, opts) {
        Ok(s) => s,
        Err(refused) => return refused,
    };
    let ops: Vec<Op> = trace.steps.iter().map(|s| plan::op(&setup, &s.action)).collect();
    if let Some((i, Op::Unsupported(why))) = ops.iter().enumerate().find(|(_, o)| matches!(o, Op::Unsupported(_))) {
        return invalid(format!("step {} ({}): {why}", i + 1, trace.steps[i].does));
    }
    let (holding, names) = match dispatch(&sc, Shadow { trace: &trace }) {
        Ok(Ok(h)) => h,
        Ok(Err(e)) | Err(crate::scenario::ScenarioError(e)) => return invalid(e),
    };
    let Some(bin) = crate::real::find_redis() else {
        return invalid("redis-server is not installed (Debian's redis-server package; or set REDIS_SERVER)".into());
    };
    let client_node: Vec<usize> = (0..setup.clients)
        .map(|c| setup.cast.iter().position(|p| *p == Part::Client(c)).unwrap_or(0))
        .collect();

    let tick_ms = opts.tick_ms.unwrap_or(DEFAULT_TICK_MS);
    let tick = Duration::from_millis(tick_ms);
    let mut log = String::new();
    log_header(&mut log, &shown, &trace, prop, &real_sc, tick_ms, "");
    let _ = writeln!(
        log,
        "how: one driver plays every client in the trace's order (a request is sent at its delivery step and its reply held until the trace delivers it; a paused client takes no step); servers are real redis-server processes; ticks are real sleeps; the resource is an in-process store"
    );
    let mut driver = match Driver::start(&setup, &bin, tick) {
        Ok(d) => d,
        Err(e) => return invalid(e),
    };
    driver.names = names;
    let mut failed = None;
    for (k, held) in holding.iter().enumerate() {
        let model: Vec<bool> = client_node.iter().map(|&n| held & (1 << n) != 0).collect();
        if let Err(e) = driver.step(&ops, k, &model, &trace.steps[k].does) {
            failed = Some(format!("step {} ({}): {e}", k + 1, trace.steps[k].does));
            break;
        }
    }
    for line in &driver.log {
        let _ = writeln!(log, "{line}");
    }
    let witness = std::mem::take(&mut driver.witness);
    driver.stop();
    let outcome = match failed {
        Some(e) => invalid(e),
        None => verdict(&shown, prop, &witness, &real_sc, "Redis"),
    };
    finish(path, opts, &log, outcome)
}

/// The trace at `path`, its property and scenario, if reenact can enact
/// it: a safety trace of a property judged on real servers, with a tick
/// in range; otherwise the refusal.
fn read_enactable(path: &Path, opts: &Options) -> Result<(TraceFile, Prop, Scenario), Replay> {
    let shown = path.display().to_string();
    let invalid = |why: String| Replay::Invalid(format!("{shown}: cannot be enacted: {why}"));
    if let Some(ms) = opts.tick_ms.filter(|ms| !(10..=10_000).contains(ms)) {
        return Err(Replay::Invalid(format!(
            "--tick-ms {ms} is out of range; allowed: 10 to 10000 (milliseconds per tick)"
        )));
    }
    let (trace, prop, sc) = read_trace(path).map_err(Replay::Invalid)?;
    if !prop.is_safety() || trace.loop_start.is_some() {
        return Err(invalid(format!(
            "{} is a liveness property, whose counterexample is an infinite run, which no finite real run can show; reenact takes safety traces",
            prop.name()
        )));
    }
    if !matches!(
        prop,
        Prop::MutualExclusion | Prop::NoStaleWrite | Prop::NoForeignRelease
    ) {
        return Err(invalid(format!("{} is not judged on real servers here", prop.name())));
    }
    Ok((trace, prop, sc))
}

/// The Redis families' real configuration: the trace's scenario with its
/// setup (`model_setup`), or the one `--scenario` names (with the same
/// servers and clients) with its own.
fn redis_setup(shown: &str, sc: &Scenario, model_setup: Setup, opts: &Options) -> Result<(Scenario, Setup), Replay> {
    let invalid = |why: String| Replay::Invalid(format!("{shown}: cannot be enacted: {why}"));
    Ok(match &opts.scenario {
        None => (sc.clone(), model_setup),
        Some(name) => {
            let other = other_configuration(name, sc).map_err(Replay::Invalid)?;
            let s = Setup::of(&other).map_err(invalid)?;
            if s.cast != model_setup.cast {
                return Err(Replay::Invalid(format!(
                    "--scenario {name}: its nodes differ from the trace's scenario {}; allowed: a scenario with the same servers and clients",
                    sc.name
                )));
            }
            (other, s)
        }
    })
}

/// The log's first lines, alike for every family: the command, and which
/// trace is enacted with which real configuration and tick; `more` adds a
/// family's own figures to the second line.
pub(crate) fn log_header(
    log: &mut String,
    shown: &str,
    trace: &TraceFile,
    prop: Prop,
    real_sc: &Scenario,
    tick_ms: u64,
    more: &str,
) {
    let _ = writeln!(log, "locksmith reenact {shown}");
    let _ = writeln!(
        log,
        "trace: scenario {}, property {}, {} steps; real configuration from scenario {}; 1 tick = {tick_ms} ms{more}",
        trace.scenario,
        prop.name(),
        trace.steps.len(),
        real_sc.name,
    );
}

/// The scenario `--scenario NAME` names, whose configuration the real
/// servers run with: it must be of the trace's algorithm (the caller checks
/// that its nodes are the trace's).
pub(crate) fn other_configuration(name: &str, sc: &Scenario) -> Result<Scenario, String> {
    let other = catalog::open(name).map_err(|e| format!("--scenario {name}: {e}"))?;
    if other.algorithm != sc.algorithm {
        return Err(format!(
            "--scenario {name}: its algorithm \"{}\" is not the trace's \"{}\"; allowed: a scenario of the same algorithm",
            other.algorithm, sc.algorithm
        ));
    }
    Ok(other)
}

/// Writes the log (with the verdict as its last line) where `--log` says,
/// else beside the trace, in one rename so that no half-written log is
/// left, and names it in the verdict; a run refused before it started (an
/// empty log) writes none.
fn finish(path: &Path, opts: &Options, log: &str, outcome: Replay) -> Replay {
    // Refused before anything ran: nothing to log, and an earlier run's
    // log beside the trace stays as it was.
    if log.is_empty() {
        return outcome;
    }
    let mut log = log.to_string();
    let _ = writeln!(log, "verdict: {outcome}");
    let log_file = opts
        .log
        .clone()
        .unwrap_or_else(|| log_path(path, opts.scenario.as_deref()));
    let mut tmp = log_file.clone().into_os_string();
    tmp.push(".part");
    let tmp = PathBuf::from(tmp);
    let written = std::fs::write(&tmp, &log).and_then(|()| std::fs::rename(&tmp, &log_file));
    match (written, outcome) {
        (Err(e), _) => {
            let _ = std::fs::remove_file(&tmp);
            Replay::Invalid(format!("{}: cannot be written: {e}", log_file.display()))
        }
        (Ok(()), Replay::Reproduced(s)) => Replay::Reproduced(format!("{s}; log: {}", log_file.display())),
        (Ok(()), Replay::NotReproduced(s)) => Replay::NotReproduced(format!("{s}; log: {}", log_file.display())),
        (Ok(()), Replay::Invalid(s)) => Replay::Invalid(format!("{s}; log: {}", log_file.display())),
    }
}

/// The verdict from what the real run showed (`system` names the real
/// servers: "Redis", "ZooKeeper", "etcd").
pub(crate) fn verdict(shown: &str, prop: Prop, w: &Witness, real: &Scenario, system: &str) -> Replay {
    let seen = match prop {
        Prop::MutualExclusion => w
            .two_holders
            .as_ref()
            .map(|(k, who)| format!("at step {k} two clients held the lock by the real servers' answers: {who}")),
        Prop::NoStaleWrite => w
            .stale_write
            .as_ref()
            .map(|(k, what)| format!("at step {k} the resource accepted a stale write: {what}")),
        _ => w
            .foreign_release
            .as_ref()
            .map(|(k, what)| format!("at step {k} a release removed another client's lock: {what}")),
    };
    let answers = match w.differences {
        0 => "every real answer was the trace's".to_string(),
        n => format!("{n} real answer(s) differed from the trace's"),
    };
    let skipped = format!(
        "{} fault step(s) were skipped (clock jumps or drift, which {system} offers no way to make)",
        w.skipped
    );
    let differences = match w.skipped {
        0 => answers.clone(),
        _ => format!("{answers}; {skipped}"),
    };
    match seen {
        // The real run was not the trace: that it stayed safe says nothing
        // about the trace's violation, so this is "cannot be enacted"
        // (exit 2), as the command's help says, and not "not reproduced".
        // A violation the real servers showed anyway is still shown.
        None if w.skipped > 0 => Replay::Invalid(format!(
            "{shown}: cannot be enacted: {skipped}, and without them {} is not violated on real {system} ({} configuration), which says nothing about the trace; {answers}",
            prop.name(),
            real.name,
        )),
        Some(s) => Replay::Reproduced(format!(
            "{shown}: {} is violated on real {system} ({} configuration): {s}; {differences}",
            prop.name(),
            real.name
        )),
        None => Replay::NotReproduced(format!(
            "{shown}: {} is not violated on real {system} ({} configuration); {differences}",
            prop.name(),
            real.name
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::{finish, log_path, verdict, Options};
    use crate::properties::Prop;
    use crate::real::reenact::judge::Witness;
    use crate::trace::Replay;
    use std::path::{Path, PathBuf};

    /// A run refused before it started leaves the log of an earlier run
    /// beside the trace as it was (two refusals raced a real run's log in
    /// the tests before); a run that happened replaces it in one rename.
    #[test]
    fn a_refused_run_leaves_the_earlier_log_alone() {
        let dir = std::env::temp_dir().join(format!("locksmith-finish-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp dir");
        let trace = dir.join("trace.json");
        let log = log_path(&trace, None);
        std::fs::write(&log, "an earlier run\n").expect("written");
        let refused = finish(&trace, &Options::default(), "", Replay::Invalid("refused".into()));
        assert!(matches!(refused, Replay::Invalid(ref s) if s == "refused"), "{refused}");
        assert_eq!(std::fs::read_to_string(&log).expect("kept"), "an earlier run\n");
        let ran = finish(
            &trace,
            &Options::default(),
            "step 1\n",
            Replay::NotReproduced("safe".into()),
        );
        assert!(ran.to_string().contains("log: "), "{ran}");
        let text = std::fs::read_to_string(&log).expect("written");
        assert!(text.starts_with("step 1\nverdict: "), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A run that skipped a fault step Redis cannot make and stayed safe
    /// was not the trace's run: exit 2, not "not reproduced" (exit 1). A
    /// violation the real servers showed anyway is still reproduced.
    #[test]
    fn a_safe_run_that_skipped_a_fault_is_not_a_verdict() {
        let sc = crate::catalog::open("redlock-clock-jump").expect("a bundled scenario");
        let skipped = Witness {
            skipped: 1,
            ..Witness::default()
        };
        let r = verdict("t.json", Prop::MutualExclusion, &skipped, &sc, "Redis");
        assert_eq!(r.exit_code(), 2, "{r}");
        assert!(
            r.to_string()
                .starts_with("t.json: cannot be enacted: 1 fault step(s) were skipped"),
            "{r}"
        );
        let shown = Witness {
            skipped: 1,
            two_holders: Some((7, "c1 and c2".into())),
            ..Witness::default()
        };
        let r = verdict("t.json", Prop::MutualExclusion, &shown, &sc, "Redis");
        assert_eq!(r.exit_code(), 0, "{r}");
        let safe = verdict("t.json", Prop::MutualExclusion, &Witness::default(), &sc, "Redis");
        assert_eq!(safe.exit_code(), 1, "{safe}");
    }

    /// `--log PATH` replaces the place beside the trace.
    #[test]
    fn the_log_goes_where_log_says() {
        let dir = std::env::temp_dir().join(format!("locksmith-log-flag-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp dir");
        let trace = dir.join("trace.json");
        let opts = Options {
            log: Some(dir.join("mine.txt")),
            ..Options::default()
        };
        let ran = finish(&trace, &opts, "step 1\n", Replay::NotReproduced("safe".into()));
        assert!(
            ran.to_string()
                .ends_with(&format!("log: {}", dir.join("mine.txt").display())),
            "{ran}"
        );
        assert!(dir.join("mine.txt").exists());
        assert!(!log_path(&trace, None).exists(), "nothing beside the trace");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_log_goes_beside_the_trace_named_after_it() {
        let p = |t: &str, s: Option<&str>| log_path(Path::new(t), s);
        assert_eq!(p("r/x/trace.json", None), PathBuf::from("r/x/reenact.log"));
        assert_eq!(
            p("r/x/no_stale_write.trace.json", None),
            PathBuf::from("r/x/no_stale_write.reenact.log")
        );
        assert_eq!(
            p("r/x/trace.json", Some("redlock-fsync")),
            PathBuf::from("r/x/reenact.redlock-fsync.log")
        );
        assert_eq!(p("mine.json", None), PathBuf::from("mine.reenact.log"));
        assert_eq!(
            p("r/x/trace.json", Some("tests/zookeeper/zk-long-session.toml")),
            PathBuf::from("r/x/reenact.zk-long-session.log")
        );
    }
}
