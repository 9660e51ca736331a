//! Every committed Rust counterexample (`reports/<scenario>/*trace.json`,
//! with its `trace.itf.json` beside it, for the bundled scenarios) is a
//! behaviour of the clean-room spec under the refinement mapping that its
//! `specs/MC<Family>.tla` writes as `TraceView`: TLC walks the spec along
//! the counterexample's views, as `traces_both_ways.rs` does for one CI row
//! per family, and evaluates the violated property false on its last view
//! (or, for a lasso, on a fair behaviour that follows its loop for ever).
//!
//! The `.cfg` of a walk is the scenario's: the constants
//! `common::tla_constants::expected_constants` gives for it (for a
//! scenario checked with symmetry reduction, those of the same scenario
//! without it: its counterexample is a concrete path), with the model-value
//! substitutions, CONSTRAINT and VIEW of the family's first row in
//! specs/README.md's table, and the property under the name the family's
//! `.cfg`s list it by. A scenario no `.cfg` can mirror is in [`REFUSED`];
//! a counterexample TLC does not walk is a finding, in [`DISAGREE`]. The
//! walks CI runs are those of [`CHEAP`]; `LOCKSMITH_TLC_SLOW=1` runs them all.

use std::fs;
use std::path::{Path, PathBuf};

use locksmith::properties::Prop;
use locksmith::scenario;

use crate::common::tla_constants::expected_constants;
use crate::common::{files_under, TempDir};
use crate::specs::{table, Suite, Tlc};
use crate::traces_both_ways::{listed_as, sections, walk_trace, WalkCfg};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Set (to anything) to walk every committed counterexample, not only [`CHEAP`].
const SLOW_VAR: &str = "LOCKSMITH_TLC_SLOW";

/// The bundled scenarios with committed counterexamples that no clean-room
/// `.cfg` can mirror (`expected_constants` refuses them), and why.
const REFUSED: [(&str, &str); 8] = [
    (
        "coordinator-client-restart-notice",
        "client_restart = \"notice\": specs/Coordinator.tla has no client tell the coordinator of its restart",
    ),
    (
        "coordinator-loss",
        "[faults] loss: specs/Coordinator.tla takes only World.tla's crashes and restarts",
    ),
    (
        "etcd-lock-no-key-check",
        "[faults] partitions: specs/EtcdLease.tla does not model partitions",
    ),
    (
        "etcd-partition",
        "[faults] partitions: specs/EtcdLease.tla does not model partitions",
    ),
    (
        "replica-failover-async",
        "auto_restart = false: specs/PrimaryReplica.tla restarts a crashed primary as it was",
    ),
    (
        "replica-split-brain",
        "[faults] partitions: specs/PrimaryReplica.tla takes none of World.tla's network faults",
    ),
    (
        "token-ring-loss",
        "[faults] loss: specs/TokenRing.tla takes only World.tla's crashes, restarts and time",
    ),
    (
        "zk-no-protection",
        "protection = false: specs/ZooKeeperLock.tla always creates with Curator's protection prefix",
    ),
];

/// The committed counterexamples (`<scenario>/<file>`) TLC does not walk to
/// the violation, with the reason: findings, kept out of the walks asserted.
/// With `LOCKSMITH_TLC_SLOW=1` they are walked, and must still fail.
const DISAGREE: [(&str, &str); 0] = [];

/// The committed counterexamples (`<scenario>/<file>`) CI walks: cheap
/// ones, about 50 s of TLC on one core in all, at least one of every
/// family (specs/README.md, "Traces both ways", has the times). The others
/// are walked only with `LOCKSMITH_TLC_SLOW=1`: a walk of Redlock's spec
/// with three masters to a safety violation takes minutes to an hour.
const CHEAP: [&str; 19] = [
    "coordinator-crash/deadlock_freedom.trace.json",
    "coordinator-crash/trace.json",
    "coordinator-standby-no-state/trace.json",
    "etcd-lease-pause/trace.json",
    "etcd-revision-fencing/trace.json",
    "lock-table-validity-pause/trace.json",
    "redis-clock-jump/trace.json",
    "redis-crash-empty/trace.json",
    "redis-del-foreign-release/trace.json",
    "redlock-drift-within-allowance/trace.json",
    "replica-restart-empty/trace.json",
    "ricart-agrawala-duplicate/trace.json",
    "ricart-agrawala-loss/trace.json",
    "token-ring-crash/trace.json",
    "token-ring-regenerate/no_stale_write.trace.json",
    "zk-curator-pause/no_stale_write.trace.json",
    "zk-fencing-zxid/trace.json",
    "zk-rwlock/trace.json",
    "zk-session-expiry-pause/trace.json",
];

/// A committed counterexample: its scenario's name, its file, the property
/// it violates.
struct Committed {
    scenario: String,
    trace: PathBuf,
    prop: Prop,
}

impl Committed {
    /// `<scenario>/<file>`, as [`DISAGREE`] and [`CHEAP`] name it.
    fn key(&self) -> String {
        let file = self.trace.file_name().expect("a file").to_string_lossy();
        format!("{}/{file}", self.scenario)
    }
}

/// Every committed counterexample of a bundled scenario, sorted: the
/// `*trace.json` under `reports/<scenario>/` (not `generated/` nor `own/`,
/// nor a sweep's `sweep-<scenario>/`, whose combinations are no bundled
/// scenario's text).
fn committed() -> Vec<Committed> {
    let reports = root().join("reports");
    let sweep = |p: &Path| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("sweep-"));
    let mut dirs: Vec<PathBuf> = fs::read_dir(&reports)
        .expect("reports/ lists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir() && !p.ends_with("generated") && !p.ends_with("own") && !sweep(p))
        .collect();
    dirs.sort();
    let mut all = Vec::new();
    for dir in dirs {
        let scenario = dir.file_name().expect("a folder").to_string_lossy().into_owned();
        for trace in files_under(&dir, "trace.json") {
            let (file, prop, _) = locksmith::trace::read_trace(&trace).unwrap_or_else(|e| panic!("{e}"));
            let source = root().join("scenarios").join(format!("{scenario}.toml"));
            let text = fs::read_to_string(&source)
                .unwrap_or_else(|e| panic!("{}: no bundled scenario for it: {e}", trace.display()));
            assert_eq!(
                file.scenario_source,
                text,
                "{}: its scenario is not {}'s text: run `cargo run --release -- check --all`",
                trace.display(),
                source.display()
            );
            let name = trace.file_name().expect("a file").to_string_lossy().into_owned();
            let itf = trace.with_file_name(name.replace("trace.json", "trace.itf.json"));
            assert!(itf.is_file(), "{}: no {} beside it", trace.display(), itf.display());
            all.push(Committed {
                scenario: scenario.clone(),
                trace,
                prop,
            });
        }
    }
    assert!(
        !all.is_empty(),
        "no committed counterexample under {}",
        reports.display()
    );
    all
}

/// How TLC walks the clean-room spec along `c`, or why no `.cfg` can
/// mirror its scenario (`expected_constants`'s refusal).
fn walk_cfg(c: &Committed) -> Result<WalkCfg, String> {
    let path = scenario::find(
        &root()
            .join("scenarios")
            .join(format!("{}.toml", c.scenario))
            .to_string_lossy(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", c.scenario));
    let mut sc = scenario::load(&path).unwrap_or_else(|e| panic!("{}: {e}", c.scenario));
    // The counterexample is a concrete path, whatever the search reduced.
    sc.symmetry = false;
    let (spec, constants) = expected_constants(&sc)?;
    let mc = format!("MC{spec}");
    let rows: Vec<_> = table(Suite::CleanRoom).into_iter().filter(|r| r.spec == mc).collect();
    let cfgs: Vec<String> = rows
        .iter()
        .map(|r| fs::read_to_string(root().join("specs").join(&r.cfg)).expect("the row's cfg"))
        .collect();
    let first = cfgs
        .first()
        .unwrap_or_else(|| panic!("specs/README.md has no row for {mc}"));
    let kinds: &[&str] = if c.prop.is_safety() {
        &["INVARIANT", "INVARIANTS"]
    } else {
        &["PROPERTY", "PROPERTIES"]
    };
    let listed = cfgs
        .iter()
        .find_map(|cfg| listed_as(cfg, kinds, c.prop))
        .unwrap_or_else(|| panic!("no .cfg of {mc} lists {}", c.prop.name()));
    let mut text = String::from("CONSTANTS\n");
    for (k, v) in &constants {
        text.push_str(&format!("    {k} = {v}\n"));
    }
    // The model-value substitutions (`Fencing <- NoFencing`) are the MC
    // module's, not the scenario's: the family's first .cfg has them.
    for line in sections(first, &["CONSTANT", "CONSTANTS"]).lines() {
        if line.contains("<-") {
            text.push_str(&format!("    {}\n", line.trim()));
        }
    }
    text.push_str(&sections(first, &["CONSTRAINT", "CONSTRAINTS"]));
    Ok(WalkCfg {
        mc: mc.trim_end_matches(".tla").to_string(),
        listed,
        constants: text,
        view: sections(first, &["VIEW"]).split_whitespace().nth(1).map(str::to_string),
    })
}

/// Every name a list names is one of `known`.
fn assert_named(list: &[&str], known: &[String], what: &str) {
    let stale: Vec<&&str> = list.iter().filter(|k| !known.iter().any(|n| n == *k)).collect();
    assert!(
        stale.is_empty(),
        "{what} names {stale:?}, which are no committed counterexample"
    );
}

#[test]
fn the_refused_scenarios_are_exactly_those_listed() {
    let mut refused: Vec<(String, String)> = Vec::new();
    for c in committed() {
        if let Err(why) = walk_cfg(&c) {
            if !refused.iter().any(|(s, _)| *s == c.scenario) {
                refused.push((c.scenario.clone(), why));
            }
        }
    }
    let listed: Vec<&str> = REFUSED.iter().map(|(s, _)| *s).collect();
    let unlisted: Vec<String> = refused
        .iter()
        .filter(|(s, _)| !listed.contains(&s.as_str()))
        .map(|(s, why)| format!("{s}: {why}"))
        .collect();
    assert!(
        unlisted.is_empty(),
        "no .cfg can mirror these scenarios, and REFUSED does not list them:\n{}",
        unlisted.join("\n")
    );
    let walkable: Vec<&&str> = listed
        .iter()
        .filter(|s| !refused.iter().any(|(r, _)| r == *s))
        .collect();
    assert!(
        walkable.is_empty(),
        "REFUSED lists {walkable:?}, whose counterexamples a .cfg now mirrors (or which have none): walk them"
    );
}

/// Set to walk only the counterexamples whose `<scenario>/<file>` contains
/// it (to rerun one by hand).
const ONLY_VAR: &str = "LOCKSMITH_WALK_ONLY";

/// One walk's outcome: its key, whether [`DISAGREE`] lists it, TLC's
/// seconds, and `walk_trace`'s answer.
type Walked = (String, bool, f64, Result<String, String>);

#[test]
fn tlc_walks_the_clean_room_spec_along_every_committed_counterexample() {
    let Some(tlc_) = Tlc::for_test("the committed counterexamples as clean-room behaviours") else {
        return;
    };
    let all = committed();
    let keys: Vec<String> = all.iter().map(Committed::key).collect();
    let disagree: Vec<&str> = DISAGREE.iter().map(|(k, _)| *k).collect();
    assert_named(&disagree, &keys, "DISAGREE");
    assert_named(&CHEAP, &keys, "CHEAP");
    let cheap_disagree: Vec<&&str> = CHEAP.iter().filter(|k| disagree.contains(k)).collect();
    assert!(
        cheap_disagree.is_empty(),
        "CHEAP lists {cheap_disagree:?}, which DISAGREE lists"
    );
    let slow_too = std::env::var_os(SLOW_VAR).is_some();
    let only = std::env::var(ONLY_VAR).unwrap_or_default();
    let mut todo = Vec::new();
    let mut left = Vec::new();
    for c in &all {
        let key = c.key();
        let Ok(w) = walk_cfg(c) else {
            continue; // REFUSED, asserted exact by the test above
        };
        if !key.contains(&only) {
            continue;
        }
        let disagrees = disagree.contains(&key.as_str());
        if !slow_too && !CHEAP.contains(&key.as_str()) {
            left.push(key);
        } else {
            todo.push((c, w, key, disagrees));
        }
    }
    if !left.is_empty() {
        eprintln!(
            "\n*** NOT WALKED: {} committed counterexamples out of CI's time budget (set {SLOW_VAR}=1 to walk them): {}\n",
            left.len(),
            left.join(", ")
        );
    }
    let tmp = TempDir::new("committed-walks");
    let start_all = std::time::Instant::now();
    // One TLC (one worker) per core, on the walks in turn.
    let jobs = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(todo.len())
        .max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: std::sync::Mutex<Vec<Walked>> = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((c, w, key, disagrees)) = todo.get(i) else {
                    break;
                };
                let name = key.replace('/', "-");
                let what = format!("reports/{key}: the Rust counterexample to {}", c.prop.name());
                let start = std::time::Instant::now();
                let result = walk_trace(&tlc_, &tmp.join(&name), &name, &what, &c.trace, w);
                let secs = start.elapsed().as_secs_f64();
                match (&result, disagrees) {
                    (Ok(line), false) => eprintln!("{line} ({secs:.1} s)"),
                    (Err(_), true) => eprintln!("{key}: TLC does not walk it, as DISAGREE records ({secs:.1} s)"),
                    _ => eprintln!("{key}: see below ({secs:.1} s)"),
                }
                let walked = (key.clone(), *disagrees, secs, result);
                done.lock().expect("no thread panicked holding it").push(walked);
            });
        }
    });
    let mut done = done.into_inner().expect("no thread panicked holding it");
    done.sort_by(|a, b| b.2.total_cmp(&a.2));
    eprintln!(
        "{} walks, {:.1} s of TLC in {:.1} s on {jobs} threads; the longest: {}",
        done.len(),
        done.iter().map(|d| d.2).sum::<f64>(),
        start_all.elapsed().as_secs_f64(),
        done.iter()
            .take(10)
            .map(|d| format!("{} {:.1} s", d.0, d.2))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let failures: Vec<String> = done
        .into_iter()
        .filter_map(|(key, disagrees, _, result)| match (result, disagrees) {
            (Err(e), false) => Some(e),
            (Ok(line), true) => Some(format!("{line}: remove {key} from DISAGREE")),
            _ => None,
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
