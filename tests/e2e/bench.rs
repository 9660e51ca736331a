//! `locksmith bench`: each configuration runs in a child
//! process and its row carries the checker's own counts.

use crate::common::locksmith;

/// The two small configurations give their known counts (the same as
/// `check` finds), in a Markdown table with one row each.
#[test]
fn bench_prints_the_counts_of_each_configuration() {
    let run = locksmith([
        "bench",
        "--only",
        "token-ring-3",
        "--only",
        "coordinator-3",
        "--threads",
        "2",
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let rows: Vec<Vec<&str>> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("| token-ring-3 ") || l.starts_with("| coordinator-3 "))
        .filter(|l| !l.contains("| specs/"))
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    // Label, unique states, generated, depth: as tests/e2e/bundled.rs pins
    // token-ring-no-faults, and as `check bench/coordinator-3.toml` finds.
    assert_eq!(rows[0][1..5], ["token-ring-3", "18", "18", "17"]);
    assert_eq!(rows[1][1..5], ["coordinator-3", "1331", "2883", "15"]);
    assert!(run.stdout.contains("2 thread(s)"), "{}", run.stdout);
    // TLC on token-ring-3's twin, specs/mirror/TokenRing.cfg, finds the same 18
    // states; without TLC (never under CI) the table says why it is absent.
    let tlc: Vec<Vec<&str>> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("| token-ring-3 | specs/"))
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    if std::env::var_os("TLA2TOOLS_JAR").is_some() || std::env::var("CI").is_ok_and(|v| v == "true") {
        assert_eq!(tlc.len(), 1, "{}{}", run.stdout, run.stderr);
        assert_eq!(tlc[0][1..4], ["token-ring-3", "specs/mirror/TokenRing.cfg", "18"]);
    } else {
        assert!(run.stdout.contains("TLC: not measured"), "{}", run.stdout);
    }
}

#[test]
fn bench_rejects_an_unknown_configuration_and_zero_repeats() {
    let run = locksmith(["bench", "--only", "nope"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--only \"nope\" is not a bench configuration"),
        "{}",
        run.stderr
    );
    let run = locksmith(["bench", "--repeat", "0"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--repeat 0 is not allowed"), "{}", run.stderr);
}

/// The bench's own scenario files are inside the binary: it runs from a
/// folder without the checkout.
#[test]
fn bench_runs_from_a_folder_without_the_checkout() {
    let dir = std::env::temp_dir().join(format!("locksmith-bench-anywhere-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .args(["bench", "--only", "coordinator-3", "--no-tlc", "--repeat", "1"])
        .current_dir(&dir)
        .output()
        .expect("run locksmith");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("| coordinator-3 | 1331 | 2883 | 15 |"), "{stdout}");
}
