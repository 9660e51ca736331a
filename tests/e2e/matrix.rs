//! `locksmith matrix` end to end, on a few small scenarios (the full
//! matrix's staleness is checked in tests/e2e/bundled.rs, from its one run of
//! every scenario): the table's cells come from the check, a violation
//! links to a trace that exists, an empty cell says so, the output is the
//! same bytes on a rerun, and bad input writes nothing.

use std::fs;

use crate::common::{locksmith, TempDir};

const SCENARIOS: [&str; 4] = [
    "token-ring-crash",
    "token-ring-no-faults",
    "redis-crash-empty",
    "redis-crash-fsync",
];

fn matrix(dir: &TempDir, extra: &[&str]) -> crate::common::Run {
    let mut args = vec![
        "matrix".to_string(),
        "--reports".into(),
        dir.path().display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    locksmith(args)
}

#[test]
fn the_matrix_holds_the_checkers_verdicts_and_links_its_traces() {
    let dir = TempDir::new("matrix");
    let run = matrix(&dir, &SCENARIOS);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let text = fs::read_to_string(dir.join("MATRIX.md")).expect("MATRIX.md written");
    let row = |start: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no row {start} in\n{text}"));
        line.split(" | ")
            .map(|c| c.trim_matches(['|', ' ']).to_string())
            .collect()
    };
    // algorithm, variant, then none, crash, restart without persistence, pause...
    let ring = row("| **token-ring** | single ring |");
    assert_eq!(ring.len(), 11);
    assert!(ring[2]
        .starts_with("[token-ring-no-faults](../scenarios/token-ring-no-faults.toml): mutex ✓ stale ✓ deadlock ✓"));
    assert!(
        ring[3].contains("deadlock [✗](token-ring-crash/trace.md)"),
        "{}",
        ring[3]
    );
    assert!(
        dir.join("token-ring-crash/trace.md").is_file(),
        "the link leads to the trace"
    );
    assert!(ring[4..].iter().all(|c| c == "—"), "no scenario, no claim: {ring:?}");
    // A crash of Redis without fsync is its own column; with fsync (and
    // fencing) it is a plain crash, in the row that names those switches.
    let empty = row("| **single-redis** | SET NX PX + compare-and-delete |");
    assert!(empty[4].starts_with("[redis-crash-empty]"), "{empty:?}");
    assert!(empty[4].contains("mutex [✗](redis-crash-empty/trace.md)"));
    let fsync = row("| **single-redis** | SET NX PX + compare-and-delete, fencing token, fsync |");
    assert!(
        fsync[3].contains("mutex ✓ stale ✓ deadlock ✓, 5.11 msg/acq"),
        "{fsync:?}"
    );

    // The same scenarios in another order, on one job: the same bytes.
    let again = TempDir::new("matrix-again");
    let mut reversed = SCENARIOS;
    reversed.reverse();
    let args: Vec<&str> = reversed.iter().copied().chain(["--jobs", "1"]).collect();
    let run = matrix(&again, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(again.join("MATRIX.md")).expect("written"),
        text,
        "the matrix does not depend on the order or the jobs"
    );
}

#[test]
fn bad_input_writes_no_matrix() {
    let dir = TempDir::new("matrix-bad");
    let run = matrix(&dir, &["token-ring-crash", "no-such-scenario"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no-such-scenario"), "{}", run.stderr);
    assert!(!dir.join("MATRIX.md").exists());
    let run = matrix(&dir, &["token-ring-crash", "--jobs", "0"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--jobs 0"), "{}", run.stderr);
    assert!(!dir.join("MATRIX.md").exists() && !dir.join("token-ring-crash").exists());
}
