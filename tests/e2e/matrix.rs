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
    // Outside the repository there is no ../scenarios/ to link to: the
    // name is plain (the committed reports/MATRIX.md links it, beside
    // scenarios/; tests/e2e/bundled.rs).
    assert!(
        ring[2].starts_with("`token-ring-no-faults`: mutex ✓ stale ✓ deadlock ✓"),
        "{}",
        ring[2]
    );
    assert!(!text.contains("../scenarios/"), "a link to a file that is not there");
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
    assert!(empty[4].starts_with("`redis-crash-empty`"), "{empty:?}");
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

/// `matrix --full` fills every cell of a row: a generated scenario, linked,
/// checked under the bound, or a footnote saying why the cell cannot exist;
/// a rerun writes the same bytes and leaves no stale generated file.
#[test]
fn the_full_matrix_fills_every_cell_of_a_row() {
    let dir = TempDir::new("matrix-full");
    let names = ["token-ring-crash", "token-ring-no-faults"];
    let args: Vec<&str> = names
        .iter()
        .copied()
        .chain(["--full", "--max-states", "20000"])
        .collect();
    let run = matrix(&dir, &args);
    assert!(run.code == 0 || run.code == 3, "{}{}", run.stdout, run.stderr);
    let text = fs::read_to_string(dir.join("MATRIX.md")).expect("MATRIX.md written");
    let line = text
        .lines()
        .find(|l| l.starts_with("| **token-ring** | single ring |"))
        .unwrap_or_else(|| panic!("no token-ring row in\n{text}"));
    let cells: Vec<&str> = line.split(" | ").map(|c| c.trim_matches(['|', ' '])).collect();
    assert_eq!(cells.len(), 11);
    for cell in &cells[2..] {
        assert!(*cell != "—", "every cell is checked or says why not: {line}");
        if cell.starts_with("— (") {
            assert!(text.contains("Cells that cannot exist:"), "{text}");
        }
    }
    let generated: Vec<&str> = cells[2..]
        .iter()
        .copied()
        .filter(|c| c.starts_with("*generated*"))
        .collect();
    assert!(generated.len() >= 5, "{line}");
    for cell in generated {
        // *generated* [NAME](generated/NAME.toml): mutex ...
        let file = cell
            .split("](")
            .nth(1)
            .and_then(|r| r.split(')').next())
            .expect("a link");
        assert!(dir.join(file).is_file(), "{file} exists");
        let name = file.trim_start_matches("generated/").trim_end_matches(".toml");
        assert!(
            dir.join("generated").join(name).join("summary.json").is_file(),
            "{name} was checked"
        );
        assert!(cell.contains("mutex "), "{cell}");
    }
    assert!(
        text.contains("with a bound of\n  20000 states"),
        "the legend gives the bound"
    );

    // A rerun: the same bytes, and nothing left over.
    let before: Vec<_> = fs::read_dir(dir.join("generated"))
        .expect("a folder")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    let run = matrix(&dir, &args);
    assert!(run.code == 0 || run.code == 3, "{}", run.stderr);
    assert_eq!(fs::read_to_string(dir.join("MATRIX.md")).expect("written"), text);
    let after: Vec<_> = fs::read_dir(dir.join("generated"))
        .expect("a folder")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(before.len(), after.len());
}

/// The committed generated cells are what `matrix --full` finds now: each
/// small one is checked again and its verdicts and counts compared with
/// its committed summary.json (the large ones are left to `matrix --full`).
#[test]
fn the_committed_generated_cells_are_current() {
    use locksmith::report::Summary;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/generated");
    let mut checked = 0;
    let mut stale = Vec::new();
    for entry in fs::read_dir(&root).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let name = path.file_stem().expect("a stem").to_string_lossy().into_owned();
        let committed: Summary = serde_json::from_str(
            &fs::read_to_string(root.join(&name).join("summary.json")).unwrap_or_else(|e| panic!("{name}: {e}")),
        )
        .expect("a summary");
        if committed.unique_states > 20_000 || !committed.complete {
            continue;
        }
        let sc = locksmith::catalog::load(&path).expect("a generated scenario loads");
        let now = crate::common::run(&sc, locksmith::check::Options::default());
        checked += 1;
        let verdicts: Vec<(String, String)> = committed
            .properties
            .iter()
            .map(|p| (p.name.clone(), p.verdict.clone()))
            .collect();
        let fresh: Vec<(String, String)> = locksmith::properties::Prop::ALL
            .iter()
            .map(|p| (p.name().to_string(), now.verdict(*p).as_str().to_string()))
            .collect();
        if now.unique_states != committed.unique_states || !fresh.iter().all(|f| verdicts.contains(f)) {
            stale.push(format!(
                "{name}: committed {} states {verdicts:?}, now {} {fresh:?}",
                committed.unique_states, now.unique_states
            ));
        }
    }
    assert!(
        checked > 20,
        "the committed generated cells are there ({checked} small ones)"
    );
    assert!(
        stale.is_empty(),
        "stale generated cells; run `cargo run --release -- matrix --full`:\n{}",
        stale.join("\n")
    );
}
