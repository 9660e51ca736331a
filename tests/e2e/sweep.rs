//! `locksmith sweep` (docs/sweep.md): the bundled sweep reruns to the
//! bytes committed under reports/sweep-redis-ttl-gc-pause/, from a folder
//! without the checkout (the scenario is inside the binary); the output is
//! the same whatever --jobs; bad input is one sentence, exit 2, nothing
//! written; a bound that leaves a cell unknown exits 3.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{locksmith, locksmith_in, TempDir};

/// The bundled sweep, as docs/sweep.md shows it.
const BUNDLED: [&str; 6] = [
    "sweep",
    "redis-ttl-gc-pause",
    "--vary",
    "system.ttl=4..7",
    "--vary",
    "faults.max_pause=1..3",
];

/// Every file under `root`, by path relative to it.
fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let rel = path.strip_prefix(root).expect("under the root").to_path_buf();
                found.insert(rel, fs::read(&path).expect("read a file"));
            }
        }
    }
    found
}

#[test]
fn the_bundled_sweep_reruns_to_its_committed_bytes_from_an_empty_folder() {
    let tmp = TempDir::new("sweep-bundled");
    let mut args = BUNDLED.to_vec();
    args.extend(["--jobs", "2"]);
    let run = locksmith_in(tmp.path(), &args);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("mutual_exclusion holds iff ttl > max_pause + 3."),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .trim_end()
            .ends_with("reports/sweep-redis-ttl-gc-pause/SWEEP.md"),
        "{}",
        run.stdout
    );
    let have = files(&tmp.join("reports/sweep-redis-ttl-gc-pause"));
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/sweep-redis-ttl-gc-pause");
    let want = files(&committed);
    assert!(want.contains_key(Path::new("SWEEP.md")), "nothing committed");
    let mut stale = Vec::new();
    for (file, bytes) in &want {
        match have.get(file) {
            None => stale.push(format!("{} is not written", file.display())),
            Some(b) if b != bytes => stale.push(format!("{} differs", file.display())),
            Some(_) => {}
        }
    }
    for file in have.keys().filter(|f| !want.contains_key(*f)) {
        stale.push(format!("{} is not committed", file.display()));
    }
    assert!(
        stale.is_empty(),
        "reports/sweep-redis-ttl-gc-pause/ is stale; rerun `locksmith {}`:\n{}",
        BUNDLED.join(" "),
        stale.join("\n")
    );
    // Exactly the violated combinations have a folder, and the table
    // links each of their traces.
    let md = String::from_utf8_lossy(&have[Path::new("SWEEP.md")]).into_owned();
    assert!(
        md.contains("| 5 | holds | [violated](ttl=5,max_pause=2/trace.md) |"),
        "{md}"
    );
    assert!(have.contains_key(Path::new("ttl=5,max_pause=2/trace.json")));
    assert!(
        !have.keys().any(|f| f.starts_with("ttl=7,max_pause=1")),
        "all holds there"
    );
}

#[test]
fn a_sweep_is_the_same_bytes_whatever_the_jobs() {
    let tmp = TempDir::new("sweep-jobs");
    let outputs: Vec<(String, BTreeMap<PathBuf, Vec<u8>>)> = ["1", "2"]
        .iter()
        .map(|jobs| {
            let dir = tmp.join(format!("jobs-{jobs}"));
            fs::create_dir_all(&dir).expect("a folder");
            let run = locksmith_in(
                &dir,
                &[
                    "sweep",
                    "redis-ttl-gc-pause",
                    "--vary",
                    "system.ttl=4..5",
                    "--jobs",
                    jobs,
                ],
            );
            assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
            (run.stdout, files(&dir.join("reports")))
        })
        .collect();
    assert_eq!(outputs[0].0, outputs[1].0, "the same printed output");
    assert!(
        outputs[0]
            .0
            .contains("mutual_exclusion is violated for every ttl in 4..5."),
        "{}",
        outputs[0].0
    );
    assert_eq!(
        outputs[0].1.keys().collect::<Vec<_>>(),
        outputs[1].1.keys().collect::<Vec<_>>()
    );
    assert!(outputs[0]
        .1
        .contains_key(Path::new("sweep-redis-ttl-gc-pause/ttl=5/trace.md")));
    for (file, bytes) in &outputs[0].1 {
        assert!(
            outputs[1].1[file] == *bytes,
            "{} differs between --jobs 1 and 2",
            file.display()
        );
    }
}

#[test]
fn bad_sweeps_are_one_sentence_exit_2_and_write_nothing() {
    let tmp = TempDir::new("sweep-bad");
    let reports = tmp.join("reports");
    let cases: &[(&[&str], &str)] = &[
        (
            &["--vary", "system.nope=1..2"],
            "--vary system.nope=1..2: scenarios/redis-ttl-gc-pause.toml: [system] has no key \"nope\"; allowed keys: ",
        ),
        (
            &["--vary", "system.command=1..2"],
            "sets [system] command = \"set-nx-px\", not a whole number",
        ),
        (&["--vary", "system.ttl=6..4"], "--vary system.ttl=6..4: LO 6 is above HI 4"),
        (&["--vary", "system.ttl=4"], "--vary system.ttl=4: \"4\" is not a range"),
        (&["--vary", "ttl=4..6"], "the key \"ttl\" names no table"),
        (
            &["--vary", "system.ttl=1..30", "--vary", "faults.max_pause=1..30"],
            "makes 900 combinations; allowed: at most 400",
        ),
        (
            &["--vary", "system.ttl=4..5", "--vary", "faults.max_pause=1..2", "--vary", "system.clients=2..3"],
            "3 --vary flags given; allowed: at most 2",
        ),
        (
            &["--vary", "system.ttl=29..31"],
            "[system] ttl = 31 is not allowed; allowed: a whole number from 1 to 30 (in the sweep's combination ttl=31)",
        ),
        (&[], "sweep needs --vary KEY=LO..HI"),
    ];
    for (flags, says) in cases {
        let mut args = vec![
            "sweep",
            "redis-ttl-gc-pause",
            "--reports",
            reports.to_str().expect("utf-8"),
        ];
        args.extend_from_slice(flags);
        let run = locksmith(&args);
        assert_eq!(run.code, 2, "{flags:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(says), "{flags:?}: {}", run.stderr);
        assert_eq!(run.stderr.trim_end().lines().count(), 1, "{flags:?}: {}", run.stderr);
        assert!(!reports.exists(), "{flags:?} wrote {}", reports.display());
    }
}

#[test]
fn a_bound_that_leaves_cells_unknown_exits_3_and_says_so() {
    let tmp = TempDir::new("sweep-bound");
    let reports = tmp.join("reports");
    let run = locksmith([
        "sweep",
        "redis-ttl-gc-pause",
        "--vary",
        "system.ttl=4..5",
        "--max-states",
        "20",
        "--format",
        "json",
        "--reports",
        reports.to_str().expect("utf-8"),
    ]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("one JSON object");
    assert_eq!(v["cells"].as_array().map(Vec::len), Some(2), "{v}");
    assert_eq!(v["cells"][0]["values"]["ttl"], 4, "{v}");
    assert_eq!(v["cells"][0]["verdicts"]["deadlock_freedom"], "unknown", "{v}");
    let md = fs::read_to_string(reports.join("sweep-redis-ttl-gc-pause/SWEEP.md")).expect("written");
    assert!(md.contains("| 4 | unknown |"), "{md}");
}
