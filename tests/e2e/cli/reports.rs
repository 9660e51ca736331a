//! The reports `check` writes: their paths and bytes, JSON without them, `--jobs`, own scenarios.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{bundled, locksmith, TempDir};

use super::{locksmith_in, run_dir_args};

/// A report names the folder it was written to, and holds no wall time:
/// checking again leaves every byte as it was.
#[test]
fn a_report_names_its_own_folder_and_a_rerun_changes_no_byte() {
    let tmp = TempDir::new("report_paths");
    let reports = tmp.join("elsewhere");
    let run = locksmith(run_dir_args(&["check", "redis-fencing"], &reports));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let dir = reports.join("redis-fencing");
    let md = fs::read_to_string(dir.join("trace.md")).expect("trace.md written");
    let replay = format!("replay {}", dir.join("trace.json").display());
    assert!(md.contains(&replay), "trace.md does not say `{replay}`:\n{md}");
    let before: Vec<(PathBuf, Vec<u8>)> = report_files(&dir);
    let again = locksmith(run_dir_args(&["check", "redis-fencing"], &reports));
    assert_eq!(again.code, 0);
    assert_eq!(report_files(&dir), before, "a rerun changed the report");
    let leftovers: Vec<_> = fs::read_dir(&reports)
        .expect("the reports folder")
        .map(|e| e.expect("an entry").file_name())
        .filter(|n| n != "redis-fencing")
        .collect();
    assert!(leftovers.is_empty(), "temporary folders left behind: {leftovers:?}");
}

fn report_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = fs::read_dir(dir)
        .expect("the report folder")
        .map(|e| e.expect("an entry").path())
        .map(|p| {
            let bytes = fs::read(&p).expect("a report file");
            (p, bytes)
        })
        .collect();
    files.sort();
    files
}

/// Without reports, `--format json` names no trace file (none was written).
#[test]
fn json_without_reports_names_no_trace() {
    let run = locksmith(["check", "redis-fencing", "--no-reports", "--format", "json"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let v: Value = serde_json::from_str(run.stdout.trim()).expect("one JSON line");
    for p in v["properties"].as_array().expect("properties") {
        assert!(p["trace"].is_null(), "a trace is named: {p}");
    }
    assert!(
        v["properties"]
            .as_array()
            .expect("properties")
            .iter()
            .any(|p| p["trace_steps"].is_u64()),
        "the violation's length is still given"
    );
}

/// The bundled scenarios live in the binary: it checks them from any
/// folder, and a `scenarios/` folder there adds the user's own. An own
/// file named like a bundled scenario replaces it by name (with a note),
/// and writes its reports elsewhere.
#[test]
fn bundled_scenarios_work_from_any_folder_beside_the_users_own() {
    let tmp = TempDir::new("anywhere");
    let run = locksmith_in(tmp.path(), &["check", "redis-fencing"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(tmp.join("reports/redis-fencing/summary.json").is_file());

    let own = tmp.join("scenarios");
    fs::create_dir_all(&own).expect("scenarios/");
    let bundled_text = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/redis-fencing.toml"))
        .expect("the bundled file");
    fs::write(
        own.join("redis-fencing.toml"),
        bundled_text.replace("ttl = 4", "ttl = 5"),
    )
    .expect("an own copy");
    fs::write(own.join("my-lock.toml"), &bundled_text).expect("an own scenario");
    let list = locksmith_in(tmp.path(), &["list", "--format", "json"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    let entries: Vec<Value> = list
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(
        entries.iter().filter(|e| e["origin"] == "bundled").count(),
        bundled().len() - 1,
        "every bundled scenario is listed but the one the local file replaces"
    );
    let local: Vec<&str> = entries
        .iter()
        .filter(|e| e["origin"] == "local")
        .map(|e| e["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(local, ["my-lock", "redis-fencing"]);

    let before = fs::read(tmp.join("reports/redis-fencing/summary.json")).expect("the bundled report");
    let run = locksmith_in(tmp.path(), &["check", "scenarios/redis-fencing.toml", "my-lock"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        fs::read(tmp.join("reports/redis-fencing/summary.json")).expect("still there"),
        before,
        "an own scenario overwrote the bundled one's report"
    );
    let own_reports: Vec<String> = fs::read_dir(tmp.join("reports/own"))
        .expect("reports/own")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(own_reports.len(), 2, "{own_reports:?}");
    // By name, the local file wins over the bundled scenario, and says so.
    let by_name = locksmith_in(
        tmp.path(),
        &["check", "redis-fencing", "--no-reports", "--format", "json"],
    );
    assert!(
        by_name
            .stderr
            .contains("note: scenarios/redis-fencing.toml is used, not the bundled scenario \"redis-fencing\""),
        "{}",
        by_name.stderr
    );
    let by_path = locksmith_in(
        tmp.path(),
        &[
            "check",
            "scenarios/redis-fencing.toml",
            "--no-reports",
            "--format",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(by_name.stdout.trim()).expect("one JSON line");
    let own: Value = serde_json::from_str(by_path.stdout.trim()).expect("one JSON line");
    assert_eq!(v["unique_states"], own["unique_states"]);
}

/// Scenarios checked on several threads print the same lines in the same
/// order and write the same bytes as one at a time (wall time aside).
#[test]
fn jobs_change_no_output_and_no_report() {
    let names = [
        "redis-ttl-gc-pause",
        "lock-table-crash",
        "redis-ttl-no-faults",
        "redis-fencing",
    ];
    let run_with = |jobs: &str, tmp: &TempDir| {
        let reports = tmp.join("reports");
        let mut args = vec!["check"];
        args.extend(names);
        args.extend(["--jobs", jobs]);
        let run = locksmith(run_dir_args(&args, &reports));
        assert_eq!(run.code, 0, "--jobs {jobs}: {}{}", run.stdout, run.stderr);
        let text: Vec<String> = run
            .stdout
            .replace(tmp.path().to_str().expect("a UTF-8 temp path"), "TMP")
            .lines()
            .map(|l| l.split(", depth").next().unwrap_or(l).to_string())
            .collect();
        let files: Vec<(String, Vec<u8>)> = names
            .iter()
            .flat_map(|n| report_files(&reports.join(n)))
            .map(|(p, b)| {
                (
                    p.strip_prefix(&reports).expect("under reports").display().to_string(),
                    b,
                )
            })
            .collect();
        (text, files)
    };
    let (one, two) = (TempDir::new("jobs_1"), TempDir::new("jobs_2"));
    let (text1, files1) = run_with("1", &one);
    let (text2, files2) = run_with("2", &two);
    assert_eq!(text1, text2);
    assert_eq!(files1.len(), files2.len());
    for ((p1, b1), (p2, b2)) in files1.iter().zip(&files2) {
        assert_eq!(p1, p2);
        let (s1, s2) = (String::from_utf8_lossy(b1), String::from_utf8_lossy(b2));
        let strip = |s: &str, t: &TempDir| s.replace(t.path().to_str().expect("UTF-8"), "TMP");
        assert_eq!(
            strip(&s1, &one),
            strip(&s2, &two),
            "{p1} differs between --jobs 1 and 2"
        );
    }
}
