//! The command-line contract of docs/design.md §9, end to end: exit codes,
//! `--format json`, `list`, and the `replay` round trip (after shuttle's
//! `check_replay_roundtrip`: check, take the trace it wrote, replay it).

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::{locksmith, Run, TempDir};

mod output;
mod replay;
mod reports;

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn run_dir_args<'a>(args: &[&'a str], reports: &'a Path) -> Vec<&'a OsStr> {
    let mut all: Vec<&OsStr> = args.iter().map(|a| OsStr::new(*a)).collect();
    all.push(OsStr::new("--reports"));
    all.push(reports.as_os_str());
    all
}

/// A few small scenarios of three families, for the tests that need not
/// check all of them (`check --all` runs once, in tests/e2e/bundled.rs; the
/// large ones cost CI minutes and add nothing here).
const SOME: [&str; 3] = ["redis-setnx-crash", "lock-table-expiry", "coordinator-crash"];

#[test]
fn check_of_several_scenarios_exits_0_and_sums_them_up() {
    let tmp = TempDir::new("check_several");
    let mut args = vec!["check"];
    args.extend(SOME);
    let run = locksmith(run_dir_args(&args, tmp.path()));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let n = SOME.len();
    let last = run.stdout.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!("{n} scenarios: {n} as expected, 0 differ, 0 stopped early")
    );
    for name in SOME {
        let summary = read_json(&tmp.join(name).join("summary.json"));
        assert_eq!(summary["scenario"], name);
    }
}

#[test]
fn check_exits_1_when_a_verdict_differs_from_the_expectation() {
    let tmp = TempDir::new("differs");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/redis-ttl-gc-pause.toml");
    let text = fs::read_to_string(source).expect("read redis-ttl-gc-pause.toml");
    let from = "mutual_exclusion = \"violated\"";
    assert_eq!(text.matches(from).count(), 1, "the scenario no longer says {from}");
    let file = tmp.join("redis-ttl-gc-pause.toml");
    fs::write(&file, text.replace(from, "mutual_exclusion = \"holds\"")).expect("write the scenario");
    let reports = tmp.join("reports");
    let run = locksmith(run_dir_args(&["check", file.to_str().expect("a UTF-8 path")], &reports));
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let line = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("mutual_exclusion"))
        .unwrap_or_else(|| panic!("no mutual_exclusion line in:\n{}", run.stdout));
    assert!(line.contains("expected holds"), "{line}");
}

/// The scenario of `check_exits_1_when_a_verdict_differs_from_the_expectation`,
/// as `<tmp>/<stem>.toml`, with `from` (which must occur once) replaced by `to`.
fn ttl_pause_scenario(tmp: &TempDir, stem: &str, from: &str, to: &str) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/redis-ttl-gc-pause.toml");
    let text = fs::read_to_string(source).expect("read redis-ttl-gc-pause.toml");
    assert_eq!(text.matches(from).count(), 1, "the scenario no longer says {from}");
    let file = tmp.join(format!("{stem}.toml"));
    fs::write(&file, text.replace(from, to)).expect("write the scenario");
    file
}

fn property<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["properties"]
        .as_array()
        .expect("properties is a list")
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {summary}"))
}

/// docs/design.md §9: a definite verdict that differs from the expectation is
/// exit 1 even when a bound left another property unknown (it was
/// exit 3, and `check --all` counted the scenario as stopped early).
#[test]
fn a_definite_wrong_verdict_exits_1_even_when_another_is_unknown() {
    let tmp = TempDir::new("differs_bounded");
    let from = "mutual_exclusion = \"violated\"";
    let wrong = ttl_pause_scenario(&tmp, "expects-holds", from, "mutual_exclusion = \"holds\"");
    let right = ttl_pause_scenario(&tmp, "expects-violated", from, from);
    let (wrong, right) = (
        wrong.to_str().expect("a UTF-8 path"),
        right.to_str().expect("a UTF-8 path"),
    );

    // Bound the search one state short of the whole space: the violation,
    // found at a small depth, is definite, and liveness stays unknown.
    let full = locksmith(["check", wrong, "--no-reports", "--format", "json"]);
    assert_eq!(full.code, 1, "{}{}", full.stdout, full.stderr);
    let full: Value = serde_json::from_str(full.stdout.trim()).expect("one JSON summary");
    let all = full["unique_states"].as_u64().expect("unique_states is a count");
    let bound = (all - 1).to_string();

    let reports = tmp.join("reports");
    let run = locksmith(run_dir_args(&["check", wrong, "--max-states", &bound], &reports));
    let summary = read_json(&own_report(&reports, "expects-holds").join("summary.json"));
    assert_eq!(summary["complete"], false, "the bound did not stop the search");
    assert_eq!(property(&summary, "mutual_exclusion")["verdict"], "violated");
    assert_eq!(property(&summary, "deadlock_freedom")["verdict"], "unknown");
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);

    // With a scenario that only stopped early beside it, the sum counts
    // one of each, and the contradiction still decides the exit code.
    let run = locksmith(run_dir_args(&["check", wrong, right, "--max-states", &bound], &reports));
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let last = run.stdout.lines().last().unwrap_or_default();
    assert_eq!(last, "2 scenarios: 0 as expected, 1 differ, 1 stopped early");
}

/// A search that needs about 170 MiB in memory (2,959,948 states)
/// completes under a bound of 32 MiB: it moves its seen set, edges and
/// queue to disk, and its summary is the one kept in memory. (One thread:
/// a second one's buffers take a third of so small a bound.)
#[test]
fn a_search_five_times_the_memory_bound_completes_from_disk() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "check",
            "redlock-fsync",
            "--no-symmetry",
            "--threads",
            "1",
            "--format",
            "json",
            "--no-reports",
        ];
        args.extend(extra);
        let run = locksmith(args);
        assert_eq!(run.code, 0, "{extra:?}: {}{}", run.stdout, run.stderr);
        let mut v: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("one JSON line");
        let o = v.as_object_mut().expect("an object");
        o.remove("seconds");
        o.remove("report");
        (v, run.stderr)
    };
    let (kept, _) = run(&[]);
    let (from_disk, said) = run(&["--max-memory", "32"]);
    assert!(
        said.contains(
            "to stay within the memory bound of 32 MiB, the search moved its seen set, edges and queue to disk"
        ),
        "{said}"
    );
    assert_eq!(from_disk, kept);
    assert_eq!(kept["unique_states"], 2_959_948);
}

#[test]
fn check_exits_3_when_the_memory_bound_is_reached() {
    let tmp = TempDir::new("memory");
    let run = locksmith(run_dir_args(
        &["check", "redlock-no-fsync", "--max-memory", "1"],
        tmp.path(),
    ));
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    // Breadth-first, the queue drops its states first, then the search
    // moves to disk; 1 MiB is short even so, and the search stops.
    assert!(
        run.stderr.contains("the memory bound of 1 MiB was reached with")
            && run.stderr.contains("the queue kept state numbers from there")
            && run
                .stderr
                .contains("moved its seen set, edges and queue to disk 1 time(s)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains(
            "the memory bound of 1 MiB was reached; even with the seen set, the edges and the queue on disk, what stays in memory leaves too little room; `locksmith simulate` explores a space this size by seeded random runs"
        ),
        "{}",
        run.stdout
    );
    let summary = read_json(&tmp.join("redlock-no-fsync/summary.json"));
    assert_eq!(summary["complete"], false);
    let notes = summary["notes"].as_array().expect("notes is a list");
    assert!(
        notes.iter().any(|n| n.as_str().is_some_and(|n| n.contains("memory"))),
        "no note on memory in {summary}"
    );
    for p in summary["properties"].as_array().expect("properties is a list") {
        assert_eq!(p["verdict"], "unknown", "{p}");
    }
}

/// TLC's optimistic estimate, n * (g - n) / 2^64, in summary.json, in
/// `--format json` and in the text output.
#[test]
fn check_reports_the_fingerprint_collision_probability() {
    let tmp = TempDir::new("collision");
    let run = locksmith(run_dir_args(
        &["check", "redis-ttl-gc-pause", "--format", "json"],
        tmp.path(),
    ));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let printed: Value = serde_json::from_str(run.stdout.trim()).expect("one JSON summary");
    let summary = read_json(&tmp.join("redis-ttl-gc-pause/summary.json"));
    for v in [&printed, &summary] {
        let p = v["fingerprint_collision_probability"]
            .as_f64()
            .unwrap_or_else(|| panic!("no fingerprint_collision_probability number in {v}"));
        assert!((0.0..=1.0).contains(&p), "{p} is not a probability");
        let n = v["unique_states"].as_u64().expect("unique_states is a count") as f64;
        let g = v["states"].as_u64().expect("states is a count") as f64;
        let want = n * (g - n) / 2f64.powi(64);
        assert!(want > 0.0, "the check met no state twice: {v}");
        assert!(
            (p - want).abs() <= want * 1e-9,
            "{p} is not n * (g - n) / 2^64 = {want}"
        );
    }
    let run = locksmith(["check", "redis-ttl-gc-pause", "--no-reports"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("fingerprint collision probability "),
        "{}",
        run.stdout
    );
}

#[test]
fn check_exits_3_when_a_bound_stops_the_search() {
    let tmp = TempDir::new("bound");
    let run = locksmith(run_dir_args(
        &["check", "redis-watchdog-long-pause", "--max-states", "50"],
        tmp.path(),
    ));
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let summary = read_json(&tmp.join("redis-watchdog-long-pause/summary.json"));
    assert_eq!(summary["complete"], false);
    let props = summary["properties"].as_array().expect("properties is a list");
    for name in ["deadlock_freedom", "starvation_freedom"] {
        let p = props
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in the summary"));
        assert_eq!(p["verdict"], "unknown", "{name}");
    }
}

fn assert_usage_error(args: &[&str]) -> Run {
    let tmp = TempDir::new(&format!("usage-{}", args.join("_").replace(['-', ' ', '/'], "")));
    let run = locksmith(run_dir_args(args, tmp.path()));
    assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
    // One sentence; a refusal of clap's then points at the command's help.
    let said = run.stderr.trim();
    let help = format!("\n\nsee `locksmith {} --help`", args[0]);
    assert!(
        said.lines().count() == 1 || (said.lines().count() == 3 && said.ends_with(&help)),
        "{args:?}: not one sentence: {}",
        run.stderr
    );
    assert!(
        run.stdout.trim().is_empty(),
        "{args:?} printed to stdout: {}",
        run.stdout
    );
    assert_eq!(
        fs::read_dir(tmp.path()).expect("read the temp dir").count(),
        0,
        "{args:?} wrote reports"
    );
    run
}

#[test]
fn check_without_a_scenario_exits_2() {
    assert_usage_error(&["check"]);
}

#[test]
fn check_of_an_unknown_scenario_exits_2() {
    let run = assert_usage_error(&["check", "no-such-scenario"]);
    assert!(run.stderr.contains("no-such-scenario"), "{}", run.stderr);
}

#[test]
fn check_all_with_a_name_exits_2() {
    assert_usage_error(&["check", "--all", "redis-fencing"]);
}

/// clap's refusal, whole: what conflicts, the usage line, and the help of
/// the command at fault; nothing written.
#[test]
fn reports_and_no_reports_together_exit_2() {
    let tmp = TempDir::new("usage-reports-no-reports");
    // run_dir_args adds `--reports DIR` itself.
    let run = locksmith(run_dir_args(&["check", "redis-fencing", "--no-reports"], tmp.path()));
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let said = run.stderr.trim_end();
    assert!(
        said.starts_with("locksmith: the argument '--no-reports' cannot be used with '--reports <DIR>'"),
        "{said}"
    );
    assert!(said.contains("Usage: locksmith check"), "{said}");
    assert!(said.ends_with("\n\nsee `locksmith check --help`"), "{said}");
    assert_eq!(
        fs::read_dir(tmp.path()).expect("read the temp dir").count(),
        0,
        "wrote reports"
    );
}

#[test]
fn check_with_a_zero_state_bound_exits_2() {
    let run = assert_usage_error(&["check", "redis-fencing", "--max-states", "0"]);
    assert!(run.stderr.contains("--max-states 0"), "{}", run.stderr);
}

#[test]
fn check_with_a_zero_timeout_exits_2() {
    let run = assert_usage_error(&["check", "redis-fencing", "--timeout", "0"]);
    assert!(run.stderr.contains("--timeout"), "{}", run.stderr);
}

#[test]
fn check_with_a_bad_memory_bound_exits_2() {
    for size in [
        "0",
        "0G",
        "abc",
        "1.5G",
        "8X",
        "G",
        "",
        "99999999999999999999",
        "99999999T",
    ] {
        let run = assert_usage_error(&["check", "redis-fencing", "--max-memory", size]);
        assert!(run.stderr.contains("--max-memory"), "{size:?}: {}", run.stderr);
        assert!(run.stderr.contains("such as 512M or 8G"), "{size:?}: {}", run.stderr);
    }
}

/// A timeout too large for a `Duration` is not a panic: either it is
/// refused as bad input (2) or it never stops the check (0).
#[test]

fn check_with_a_huge_timeout_does_not_panic() {
    let tmp = TempDir::new("huge_timeout");
    let out = Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .args(["check", "redis-fencing", "--timeout", "1e300", "--reports"])
        .arg(tmp.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run locksmith");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        matches!(out.status.code(), Some(0 | 2)),
        "exit {:?}: {stderr}",
        out.status.code()
    );
}

#[test]
fn an_unknown_subcommand_exits_2() {
    let run = locksmith(["frobnicate"]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("frobnicate"), "{}", run.stderr);
}

/// The report folder of own scenario `stem` under `reports` (`own/STEM-HASH`).
fn own_report(reports: &Path, stem: &str) -> PathBuf {
    let own = reports.join("own");
    let found: Vec<PathBuf> = fs::read_dir(&own)
        .unwrap_or_else(|e| panic!("read {}: {e}", own.display()))
        .map(|e| e.expect("an entry").path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&format!("{stem}-")))
        })
        .collect();
    assert_eq!(found.len(), 1, "one report folder for {stem}: {found:?}");
    found[0].clone()
}

/// Runs the binary in `dir` (not the checkout).
fn locksmith_in(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run locksmith");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn a_misspelled_name_gets_a_suggestion() {
    let run = assert_usage_error(&["check", "redis-fencng"]);
    assert!(run.stderr.contains("did you mean \"redis-fencing\"?"), "{}", run.stderr);
}

/// docs/design.md §9: "never a panic or a backtrace", including when stdout is
/// closed early (`locksmith check --all | head -1`).
#[test]

fn a_closed_stdout_is_not_a_panic() {
    let tmp = TempDir::new("closed_stdout");
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .arg("check")
        .args(SOME)
        .arg("--reports")
        .arg(tmp.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run locksmith");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("stack backtrace"),
        "{stderr}"
    );
    assert_ne!(out.status.code(), Some(101), "exit code 101 is a panic: {stderr}");
}

#[test]
fn check_with_zero_jobs_exits_2() {
    let run = assert_usage_error(&["check", "redis-fencing", "--jobs", "0"]);
    assert!(run.stderr.contains("--jobs 0"), "{}", run.stderr);
}

/// `--max-depth N` explores every state within N steps: a bound below the
/// shortest counterexample leaves the verdicts unknown (exit 3, the bound
/// named), one above it finds the violation, and one beyond the deepest
/// state changes nothing.
#[test]
fn max_depth_bounds_the_search_by_steps() {
    let json = |args: &[&str]| {
        let run = locksmith(args);
        let v: Value =
            serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr));
        (run.code, v)
    };
    let (code, full) = json(&["check", "redis-fencing", "--no-reports", "--format", "json"]);
    assert_eq!(code, 0);
    let (code, deep) = json(&[
        "check",
        "redis-fencing",
        "--no-reports",
        "--format",
        "json",
        "--max-depth",
        "1000",
    ]);
    assert_eq!(code, 0);
    assert_eq!(deep["unique_states"], full["unique_states"]);
    let shallow = locksmith(["check", "redis-fencing", "--no-reports", "--max-depth", "2"]);
    assert_eq!(shallow.code, 3, "{}{}", shallow.stdout, shallow.stderr);
    assert!(
        shallow.stdout.contains("the depth bound of 2 was reached"),
        "{}",
        shallow.stdout
    );
    let violated = locksmith(["check", "redis-ttl-gc-pause", "--no-reports", "--max-depth", "30"]);
    assert!(
        violated.stdout.contains("mutual_exclusion     violated"),
        "{}",
        violated.stdout
    );
    let bad = locksmith(["check", "redis-fencing", "--max-depth", "0"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}
