//! Reports (docs/design.md §8): `reports/<scenario>/summary.json`, and for each
//! violated property a `trace.json` to replay, a `trace.md` to read and a
//! `trace.svg` to look at.
//! The headline violation (the first expected one, else the first) is
//! `trace.json` / `.md` / `.svg`; any other is `<property>.trace.json` /
//! `.md` / `.svg`.

pub mod diff;
pub mod index;
pub mod itf;
pub(crate) mod markdown;
pub mod sim;
pub mod story;
pub mod svg;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::catalog;
use crate::check::Outcome;
use crate::properties::{Lock, Prop};
use crate::scenario::{Scenario, Verdict};
use crate::trace::TraceFile;
use crate::world::World;

/// One property in `summary.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PropSummary {
    pub name: String,
    pub verdict: String,
    pub expected: Option<String>,
    /// Steps in the counterexample, when violated.
    pub trace_steps: Option<usize>,
    /// The trace file (beside `summary.json`), when violated.
    pub trace: Option<String>,
}

/// `summary.json`, and one line of `--format json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub scenario: String,
    pub algorithm: String,
    pub summary: String,
    pub properties: Vec<PropSummary>,
    pub unique_states: usize,
    pub states: usize,
    pub max_depth: usize,
    /// TLC's optimistic estimate of the chance that two distinct states
    /// shared a fingerprint (so one was never explored): `n * (g - n) /
    /// 2^64` for `n` unique states and `g` generated. Deterministic, unlike
    /// `seconds`.
    #[serde(default)]
    pub fingerprint_collision_probability: f64,
    /// Wall time of the check: printed and in `--format json`, never in
    /// the committed summary.json, whose bytes a rerun reproduces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// "bfs" or "dfs".
    pub search: String,
    /// Whether the search ran to the end (no bound or timeout stopped it).
    pub complete: bool,
    /// Whether states were reduced by symmetry (liveness then runs on lifts
    /// of the quotient, src/check/quotient.rs).
    pub symmetry: bool,
    /// Anything a reader of the verdicts should know.
    pub notes: Vec<String>,
    /// Transitions explored per fault and recovery kind the budget allows.
    pub faults_fired: BTreeMap<String, u64>,
    /// Messages sent per acquisition in fault-free seeded runs, measured
    /// (`sim::messages`), to two decimals; `None` when no such run
    /// acquires the lock.
    #[serde(default)]
    pub messages_per_acquisition: Option<f64>,
    pub version: String,
}

impl Summary {
    pub fn new<A: Lock>(sc: &Scenario, outcome: &Outcome<A>, dfs: bool) -> Summary {
        let headline = headline(sc, outcome);
        let properties = outcome
            .props
            .iter()
            .map(|p| PropSummary {
                name: p.prop.name().into(),
                verdict: p.verdict.as_str().into(),
                expected: sc.expected(p.prop).map(|v| v.as_str().into()),
                trace_steps: p.trace.as_ref().map(|t| t.len()),
                trace: p.trace.as_ref().map(|_| trace_name(p.prop, headline) + ".json"),
            })
            .collect();
        let f = &sc.faults;
        let allowed = |kind: &str| match kind {
            "crash" | "restart" => f.crashes > 0,
            "pause" => f.pauses > 0,
            "partition" | "heal" => f.partitions > 0,
            "loss" => f.loss,
            "duplicate" => f.duplicate,
            "clock_jump" => f.clock_jumps > 0,
            "drift" => f.max_drift > 0,
            _ => false,
        };
        Summary {
            scenario: sc.name.clone(),
            algorithm: sc.algorithm.clone(),
            summary: sc.summary.clone(),
            properties,
            unique_states: outcome.unique_states,
            states: outcome.states,
            max_depth: outcome.max_depth,
            fingerprint_collision_probability: outcome.fingerprint_collision_probability,
            seconds: Some((outcome.seconds * 1000.0).round() / 1000.0),
            search: if dfs { "dfs" } else { "bfs" }.into(),
            complete: outcome.stopped.is_none(),
            symmetry: outcome.symmetric,
            notes: outcome
                .stopped
                .iter()
                .chain(&outcome.liveness_skipped)
                .cloned()
                .collect(),
            faults_fired: outcome
                .events
                .iter()
                .filter(|(k, n)| **n > 0 || allowed(k))
                .map(|(k, n)| (k.to_string(), *n))
                .collect(),
            messages_per_acquisition: None,
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }

    /// Whether every verdict is what the scenario expects (a violation
    /// where it expects nothing counts as a difference).
    pub fn as_expected(&self) -> bool {
        self.properties.iter().all(|p| match &p.expected {
            Some(e) => *e == p.verdict,
            None => p.verdict != "violated",
        })
    }

    /// Whether a definite verdict (`holds` or `violated`, never `unknown`)
    /// differs from what the scenario expects, or is a violation where it
    /// expects nothing. A bound that left another property open does not
    /// make this any less of a difference (docs/design.md §9: exit 1, not 3).
    pub fn differs(&self) -> bool {
        self.properties.iter().any(|p| {
            p.verdict != "unknown"
                && match &p.expected {
                    Some(e) => *e != p.verdict,
                    None => p.verdict == "violated",
                }
        })
    }

    /// Whether a bound or timeout left a verdict open that matters: any,
    /// when the search stopped early, else one the scenario expects.
    pub fn has_unknown(&self) -> bool {
        self.properties
            .iter()
            .any(|p| p.verdict == "unknown" && (!self.complete || p.expected.is_some()))
    }
}

/// The property whose trace is `trace.json`: the first expected violation,
/// else the first violation.
fn headline<A: Lock>(sc: &Scenario, outcome: &Outcome<A>) -> Option<Prop> {
    let violated = |p: &&crate::check::PropOutcome<A>| p.verdict == Verdict::Violated;
    let mut v = outcome.props.iter().filter(violated);
    let expected = outcome
        .props
        .iter()
        .filter(violated)
        .find(|p| sc.expected(p.prop) == Some(Verdict::Violated));
    expected.or_else(|| v.next()).map(|p| p.prop)
}

fn trace_name(prop: Prop, headline: Option<Prop>) -> String {
    if Some(prop) == headline {
        "trace".into()
    } else {
        format!("{}.trace", prop.name())
    }
}

/// Writes `root/<scenario>/` (`catalog::report_key`): the summary and every trace, as bytes a
/// rerun reproduces (no wall time). The report is written whole into a
/// temporary folder beside it and then swapped into place, so an
/// interrupted or failed run leaves the previous report intact.
pub fn write<A: Lock>(
    root: &Path,
    sc: &Scenario,
    world: &World<A>,
    outcome: &Outcome<A>,
    summary: &Summary,
) -> std::io::Result<PathBuf> {
    let dir = root.join(catalog::report_key(sc));
    let parent = dir.parent().unwrap_or(root);
    std::fs::create_dir_all(parent)?;
    let partial = partial_dir(parent, &sc.name)?;
    write_files(partial.path(), &dir, sc, world, outcome, summary)?;
    swap_into_place(partial.path(), &dir)?;
    Ok(dir)
}

/// A new folder `.NAME.partial-PID.XXXXXX` in `parent` to write a report
/// into before it is swapped into place. It is removed when dropped, so
/// no early return leaves it behind (after the swap it is gone already);
/// the PID in its name lets a later run sweep away one that a killed
/// process left ([`sweep_stale`], called here first).
pub(crate) fn partial_dir(parent: &Path, name: &str) -> std::io::Result<tempfile::TempDir> {
    sweep_stale(parent);
    tempfile::Builder::new()
        .prefix(&format!(".{name}.partial-{}.", std::process::id()))
        .tempdir_in(parent)
}

/// Removes the temporary report files and folders (`.NAME.partial-PID...`)
/// in `dir` whose process is no longer running: a run killed while it
/// wrote (a second Ctrl-C, SIGKILL, a power cut) leaves one, and no later
/// run would otherwise ever remove it. Where a process's liveness cannot be
/// read (no `/proc`), nothing is removed.
pub(crate) fn sweep_stale(dir: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = stale_pid(&name.to_string_lossy()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            let path = entry.path();
            let _ = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}

/// The PID in the name of a temporary report file or folder:
/// `.NAME.partial-PID`, optionally followed by `.` and anything.
fn stale_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (_, after) = rest.rsplit_once(".partial-")?;
    let digits = after.split('.').next()?;
    digits.parse().ok()
}

/// Whether reports can be written under `root`, asked before a search so
/// that a long run does not end in a write error: `Err` is one sentence
/// naming the path and why. Creates `root` when it is missing.
pub fn writable(root: &Path) -> Result<(), String> {
    writable_as(root, "reports")
}

/// [`writable`] for files of another kind (`what`, such as
/// "checkpoints"), in the sentence it says.
pub fn writable_as(root: &Path, what: &str) -> Result<(), String> {
    let shown = root.display();
    if let Some(file) = root.ancestors().find(|a| a.is_file()) {
        return Err(if file == root {
            format!("cannot write {what} under {shown}: it is a file, not a folder")
        } else {
            format!(
                "cannot write {what} under {shown}: {} is a file, not a folder",
                file.display()
            )
        });
    }
    std::fs::create_dir_all(root).map_err(|e| format!("cannot create the {what} folder {shown}: {e}"))?;
    tempfile::tempfile_in(root)
        .map(drop)
        .map_err(|e| format!("cannot write {what} under {shown}: {e}"))
}

/// Writes the report's files into `into`; paths inside them name `dir`,
/// where the report will live.
pub(crate) fn write_files<A: Lock>(
    into: &Path,
    dir: &Path,
    sc: &Scenario,
    world: &World<A>,
    outcome: &Outcome<A>,
    summary: &Summary,
) -> std::io::Result<()> {
    let headline = headline(sc, outcome);
    for p in &outcome.props {
        let Some(cx) = &p.trace else { continue };
        let name = trace_name(p.prop, headline);
        let trace = TraceFile::new(sc, world, p.prop, cx);
        let json = serde_json::to_string_pretty(&trace).map_err(std::io::Error::other)? + "\n";
        write_synced(&into.join(format!("{name}.json")), &json)?;
        let md = markdown::trace_md(sc, world, p.prop, cx, &dir.join(format!("{name}.json")));
        write_synced(&into.join(format!("{name}.md")), &md)?;
        if let Some(itf) = itf::trace_itf(sc, world, p.prop, cx) {
            write_synced(&into.join(format!("{name}.itf.json")), &itf)?;
        }
        write_synced(
            &into.join(format!("{name}.svg")),
            &svg::trace_svg(sc, world, p.prop, cx),
        )?;
    }
    let committed = Summary {
        seconds: None,
        ..summary.clone()
    };
    let json = serde_json::to_string_pretty(&committed).map_err(std::io::Error::other)? + "\n";
    write_synced(&into.join("summary.json"), &json)
}

/// Replaces folder `dir` by `partial`: the old report is moved aside
/// first and removed only once the new one is in place. Simulation
/// reports (`sim-*` folders) inside the old one move into the new one: a
/// check does not erase them.
pub(crate) fn swap_into_place(partial: &Path, dir: &Path) -> std::io::Result<()> {
    let old = partial.with_extension("old");
    let _ = std::fs::remove_dir_all(&old);
    let had_old = match std::fs::rename(dir, &old) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => return Err(e),
    };
    if let Err(e) = std::fs::rename(partial, dir) {
        if had_old {
            let _ = std::fs::rename(&old, dir);
        }
        return Err(e);
    }
    if had_old {
        for entry in std::fs::read_dir(&old)?.flatten() {
            let name = entry.file_name();
            let kept = dir.join(&name);
            if name.to_string_lossy().starts_with("sim-") && entry.path().is_dir() && !kept.exists() {
                std::fs::rename(entry.path(), kept)?;
            }
        }
        std::fs::remove_dir_all(&old)?;
    }
    Ok(())
}

pub(crate) fn write_synced(path: &Path, text: &str) -> std::io::Result<()> {
    let mut f = std::fs::File::create(path)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::{partial_dir, stale_pid, swap_into_place, sweep_stale, writable};
    use std::fs;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("locksmith-swap-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("a temp dir");
        dir
    }

    #[test]
    fn a_new_report_replaces_the_old_one_whole() {
        let root = temp("replace");
        let (dir, partial) = (root.join("s"), root.join(".s.partial-1"));
        fs::create_dir_all(&dir).expect("old");
        fs::write(dir.join("trace.md"), "old").expect("old file");
        fs::create_dir_all(&partial).expect("new");
        fs::write(partial.join("summary.json"), "new").expect("new file");
        swap_into_place(&partial, &dir).expect("swaps");
        assert_eq!(fs::read_to_string(dir.join("summary.json")).expect("new file"), "new");
        assert!(!dir.join("trace.md").exists(), "the old report's files are gone");
        assert_eq!(fs::read_dir(&root).expect("root").count(), 1, "nothing left beside it");
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn a_new_report_keeps_the_simulation_reports() {
        let root = temp("keep-sim");
        let (dir, partial) = (root.join("s"), root.join(".s.partial-1"));
        fs::create_dir_all(dir.join("sim-7")).expect("old");
        fs::write(dir.join("sim-7").join("summary.json"), "sim").expect("old sim file");
        fs::create_dir_all(&partial).expect("new");
        swap_into_place(&partial, &dir).expect("swaps");
        assert_eq!(
            fs::read_to_string(dir.join("sim-7").join("summary.json")).expect("kept"),
            "sim"
        );
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn a_failed_swap_puts_the_old_report_back() {
        let root = temp("rollback");
        let dir = root.join("s");
        fs::create_dir_all(&dir).expect("old");
        fs::write(dir.join("trace.md"), "old").expect("old file");
        // The new report is missing: moving it into place fails.
        let err = swap_into_place(&root.join(".s.partial-1"), &dir);
        assert!(err.is_err());
        assert_eq!(fs::read_to_string(dir.join("trace.md")).expect("old file"), "old");
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn the_pid_of_a_temporary_report_is_read_from_its_name() {
        assert_eq!(stale_pid(".redis-fencing.partial-123"), Some(123));
        assert_eq!(stale_pid(".redis-fencing.partial-123.Ab3xYz"), Some(123));
        assert_eq!(stale_pid(".sim-1..5.partial-77.old"), Some(77));
        assert_eq!(stale_pid(".README.md.partial-9"), Some(9));
        for other in [
            "redis-fencing",
            ".partial",
            ".x.partial-",
            ".x.partial-abc",
            "x.partial-1",
        ] {
            assert_eq!(stale_pid(other), None, "{other}");
        }
    }

    /// A folder a dead process left is swept; a live process's, and
    /// anything else, stays.
    #[test]
    fn stale_temporary_reports_of_dead_processes_are_swept() {
        let root = temp("sweep");
        let mut child = std::process::Command::new("true").spawn().expect("run true");
        let dead = child.id();
        child.wait().expect("true ends");
        let stale = root.join(format!(".s.partial-{dead}"));
        fs::create_dir_all(stale.join("inner")).expect("stale");
        fs::write(root.join(format!(".README.md.partial-{dead}")), "x").expect("stale file");
        let live = root.join(".s.partial-1");
        fs::create_dir_all(&live).expect("pid 1 lives");
        fs::create_dir_all(root.join("s")).expect("a report");
        sweep_stale(&root);
        let mut left: Vec<String> = fs::read_dir(&root)
            .expect("root")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [".s.partial-1", "s"]);
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn a_partial_folder_is_removed_when_dropped() {
        let root = temp("drop");
        let partial = partial_dir(&root, "s").expect("made");
        let name = partial
            .path()
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        assert!(
            name.starts_with(&format!(".s.partial-{}.", std::process::id())),
            "{name}"
        );
        fs::write(partial.path().join("summary.json"), "x").expect("write");
        drop(partial);
        assert_eq!(fs::read_dir(&root).expect("root").count(), 0);
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn a_reports_path_that_is_a_file_is_refused_in_one_sentence() {
        let root = temp("writable");
        let file = root.join("taken");
        fs::write(&file, "x").expect("a file");
        let said = writable(&file).expect_err("a file");
        assert_eq!(
            said,
            format!(
                "cannot write reports under {}: it is a file, not a folder",
                file.display()
            )
        );
        let below = file.join("reports");
        let said = writable(&below).expect_err("below a file");
        assert!(
            said.ends_with(&format!("{} is a file, not a folder", file.display())),
            "{said}"
        );
        let fresh = root.join("new").join("reports");
        assert_eq!(writable(&fresh), Ok(()));
        assert_eq!(fs::read_dir(&fresh).expect("created").count(), 0, "the probe is gone");
        let _ = fs::remove_dir_all(&root);
    }
}
