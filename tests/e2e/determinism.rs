//! docs/design.md §6: the same scenario gives the same verdicts and the same
//! trace, byte for byte, from one process to the next and whatever the
//! environment. Only the measured `seconds` may differ.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::TempDir;

/// Runs locksmith with `args` and the extra environment `env`, asserts it
/// exits 0 and returns its stdout.
fn locksmith(args: &[&OsStr], env: &[(&str, &OsStr)]) -> String {
    let run = crate::common::locksmith_env(args, env);
    assert_eq!(run.code, 0, "{args:?}: {}{}", run.stdout, run.stderr);
    run.stdout
}

/// Every file under `root`, by its path relative to `root`.
/// Every file under `root`, by relative path. A trace.md names the folder
/// it was written to in its replay line; that folder is written as
/// `reports` here, so that two folders can be compared.
fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let root_text = root.display().to_string();
    let mut found = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in fs::read_dir(&dir).expect("read a directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let rel = path.strip_prefix(root).expect("under the root").to_path_buf();
                let bytes = fs::read(&path).expect("read a file");
                let bytes = match String::from_utf8(bytes) {
                    Ok(text) => text.replace(&root_text, "reports").into_bytes(),
                    Err(e) => e.into_bytes(),
                };
                found.insert(rel, bytes);
            }
        }
    }
    found
}

/// A summary with its `seconds` blanked.
fn summary_without_seconds(bytes: &[u8], what: &Path) -> Value {
    let mut v: Value = serde_json::from_slice(bytes).unwrap_or_else(|e| panic!("{} is not JSON: {e}", what.display()));
    let seconds = v
        .as_object_mut()
        .unwrap_or_else(|| panic!("{} is not an object", what.display()))
        .insert("seconds".into(), Value::Null);
    assert!(seconds.is_some(), "{} has no seconds", what.display());
    v
}

/// Asserts that `a` and `b` hold the same files, byte for byte, with one
/// summary for each of `scenarios`.
fn assert_same_reports(a: &Path, b: &Path, scenarios: usize) {
    let (fa, fb) = (files(a), files(b));
    assert_eq!(
        fa.keys().collect::<Vec<_>>(),
        fb.keys().collect::<Vec<_>>(),
        "the two runs wrote different files"
    );
    let summaries = fa.keys().filter(|p| p.ends_with("summary.json")).count();
    assert_eq!(summaries, scenarios, "one summary.json per scenario");
    assert!(fa.keys().any(|p| p.ends_with("trace.json")), "no traces to compare");
    // Every file, summary.json included (it holds no wall time), is the
    // same bytes.
    for (path, bytes) in &fa {
        let other = &fb[path];
        assert!(
            bytes == other,
            "{} differs between the runs:\n--- first\n{}\n--- second\n{}",
            path.display(),
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(other)
        );
    }
}

/// Scenarios whose traces exercise every part of the trace writer: safety
/// and liveness counterexamples, symmetry reduction mapped back to the
/// run's names (safety paths and lifted lassos), and every family.
const SOME: [&str; 4] = [
    "redis-ttl-gc-pause",
    "lock-table-crash",
    // Symmetric: a safety path and a liveness lasso found in a lift of
    // the quotient (src/check/quotient.rs), renamed back to the run's
    // names (redlock-no-fsync adds nothing to it but 220,000 states).
    "redlock-drift-beyond-allowance",
    // A path, not a name: the bundled primary-replica scenarios have
    // millions of states; this one has WAIT and two holders in 89,973.
    "specs/replica-small.toml",
];

/// The second run also spreads its breadth-first searches over three
/// threads (`--threads 3`): the merge numbers states as one thread does, so
/// the reports are the same bytes.
#[test]
fn two_runs_write_the_same_reports_in_any_environment() {
    let tmp = TempDir::new("two_runs");
    let (a, b) = (tmp.join("a"), tmp.join("b"));
    let home = tmp.join("home");
    fs::create_dir_all(&home).expect("create a home");
    fn check<'a>(reports: &'a Path, extra: &'a [&'a str]) -> Vec<&'a OsStr> {
        let mut args = vec![OsStr::new("check")];
        args.extend(SOME.iter().map(OsStr::new));
        args.extend([OsStr::new("--reports"), reports.as_os_str()]);
        args.extend(extra.iter().map(OsStr::new));
        args
    }
    locksmith(&check(&a, &[]), &[]);
    locksmith(
        &check(&b, &["--threads", "3"]),
        &[
            ("HOME", home.as_os_str()),
            ("TZ", OsStr::new("Pacific/Chatham")),
            ("LANG", OsStr::new("tr_TR.UTF-8")),
            ("LC_ALL", OsStr::new("tr_TR.UTF-8")),
            ("RAYON_NUM_THREADS", OsStr::new("1")),
            ("RUST_BACKTRACE", OsStr::new("full")),
            ("COLUMNS", OsStr::new("20")),
        ],
    );
    assert_same_reports(&a, &b, SOME.len());
}

/// Depth-first search is deterministic as well, and `--format json` prints
/// the same summaries in the same order.
#[test]
fn depth_first_json_output_is_the_same_twice() {
    let tmp = TempDir::new("dfs");
    let (a, b) = (tmp.join("a"), tmp.join("b"));
    let run = |reports: &Path| {
        let mut args = vec![OsStr::new("check")];
        args.extend(SOME.iter().map(OsStr::new));
        args.extend(["--dfs", "--format", "json", "--reports"].map(OsStr::new));
        args.push(reports.as_os_str());
        locksmith(&args, &[])
    };
    let (out_a, out_b) = (run(&a), run(&b));
    // The lines name each run's own reports folder (docs/json.md): the
    // same once that is taken out.
    let lines = |out: &str, reports: &Path| -> Vec<Value> {
        let folder = reports.to_str().expect("a UTF-8 path");
        out.lines()
            .map(|l| {
                summary_without_seconds(
                    l.replace(folder, "REPORTS").as_bytes(),
                    Path::new("a --format json line"),
                )
            })
            .collect()
    };
    let (la, lb) = (lines(&out_a, &a), lines(&out_b, &b));
    assert_eq!(la.len(), SOME.len(), "one line per scenario");
    assert_eq!(la, lb, "the JSON lines differ");
    assert!(
        la.iter().all(|s| s.get("search").is_none_or(|v| v == "dfs")),
        "not a depth-first search"
    );
    assert_same_reports(&a, &b, SOME.len());
}

/// Without symmetry, the liveness passes (deadlock, each client's
/// starvation) run side by side on the search's threads: the lassos, and
/// so the reports, are those of one thread (lock-table-crash starves a
/// client).
#[test]
fn liveness_passes_on_two_threads_write_what_one_thread_writes() {
    let tmp = TempDir::new("liveness_threads");
    let (a, b) = (tmp.join("a"), tmp.join("b"));
    for (reports, threads) in [(&a, "1"), (&b, "2")] {
        let args = [
            "check",
            "lock-table-crash",
            "--no-symmetry",
            "--threads",
            threads,
            "--reports",
        ];
        let mut args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        args.push(reports.as_os_str());
        locksmith(&args, &[]);
    }
    assert!(
        a.join("lock-table-crash/starvation_freedom.trace.md").is_file(),
        "the starvation lasso is written"
    );
    assert_same_reports(&a, &b, 1);
}
