//! `replay`: the round trip from `check`'s trace, tampered traces refused, every committed trace replayed.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{locksmith, TempDir};

use super::{read_json, run_dir_args};

fn write_json(path: &Path, v: &Value) {
    fs::write(path, serde_json::to_string_pretty(v).expect("serialize")).expect("write a trace");
}

/// Checks `scenario` into `tmp` and returns the path of the trace file the
/// text output points at for `property` (it shows the `.md`; the `.json`
/// sits beside it).
fn checked_trace(tmp: &TempDir, scenario: &str, property: &str) -> PathBuf {
    let run = locksmith(run_dir_args(&["check", scenario], tmp.path()));
    assert_eq!(run.code, 0, "check {scenario}: {}{}", run.stdout, run.stderr);
    let line = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with(property) && l.contains("violated"))
        .unwrap_or_else(|| panic!("no violated {property} line in:\n{}", run.stdout));
    let md = line
        .split_whitespace()
        .last()
        .filter(|w| w.ends_with(".md"))
        .unwrap_or_else(|| panic!("no trace path on the line {line:?}"));
    let json = PathBuf::from(md.strip_suffix(".md").expect("ends with .md").to_string() + ".json");
    assert!(
        json.starts_with(tmp.path()),
        "{} is not under --reports",
        json.display()
    );
    assert!(json.is_file(), "{} was not written", json.display());
    let trace = read_json(&json);
    assert_eq!(
        trace["property"],
        property,
        "{} records another property",
        json.display()
    );
    json
}

#[test]
fn replay_round_trip_reproduces_the_violation() {
    let tmp = TempDir::new("roundtrip");
    let trace = checked_trace(&tmp, "redis-ttl-gc-pause", "mutual_exclusion");
    let run = locksmith([OsStr::new("replay"), trace.as_os_str()]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("violated again"), "{}", run.stdout);
}

#[test]
fn replay_of_a_truncated_safety_trace_exits_1() {
    let tmp = TempDir::new("truncated");
    let path = checked_trace(&tmp, "redis-ttl-gc-pause", "mutual_exclusion");
    let mut trace = read_json(&path);
    assert!(trace["loop_start"].is_null(), "a safety trace has no loop");
    let steps = trace["steps"].as_array_mut().expect("steps is a list");
    assert!(steps.pop().is_some(), "the trace has no steps");
    let cut = tmp.join("truncated.json");
    write_json(&cut, &trace);
    let run = locksmith([OsStr::new("replay"), cut.as_os_str()]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
}

#[test]
fn replay_of_a_step_that_is_not_enabled_exits_2_naming_the_step() {
    let tmp = TempDir::new("not_enabled");
    let path = checked_trace(&tmp, "redis-ttl-gc-pause", "mutual_exclusion");
    let original = read_json(&path);

    // Step 1 delivers a message that nobody sent.
    let mut ghost = original.clone();
    ghost["steps"][0]["action"] = serde_json::json!({"deliver": {"src": 0, "dst": 2, "msg": "Refused"}});
    let file = tmp.join("ghost.json");
    write_json(&file, &ghost);
    let run = locksmith([OsStr::new("replay"), file.as_os_str()]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("step 1 "), "{}", run.stderr);

    // The first reply delivered before the request that causes it.
    let steps = original["steps"].as_array().expect("steps is a list");
    let request = steps
        .iter()
        .position(|s| s["action"]["deliver"]["dst"] == 0)
        .expect("a delivery to the server");
    let reply = steps
        .iter()
        .position(|s| s["action"]["deliver"]["src"] == 0)
        .expect("a delivery from the server");
    assert!(request < reply);
    let mut swapped = original.clone();
    swapped["steps"]
        .as_array_mut()
        .expect("steps is a list")
        .swap(request, reply);
    let file = tmp.join("swapped.json");
    write_json(&file, &swapped);
    let run = locksmith([OsStr::new("replay"), file.as_os_str()]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    let step = format!("step {} ", request + 1);
    assert!(run.stderr.contains(&step), "expected {step:?} in: {}", run.stderr);
}

#[test]
fn replay_of_a_file_that_is_not_json_exits_2() {
    let tmp = TempDir::new("not_json");
    let file = tmp.join("hello.json");
    fs::write(&file, "hello, world\n").expect("write");
    let run = locksmith([OsStr::new("replay"), file.as_os_str()]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(file.to_str().expect("a UTF-8 path")),
        "{}",
        run.stderr
    );
}

#[test]
fn replay_of_json_that_is_not_a_trace_exits_2() {
    let tmp = TempDir::new("not_trace");
    let file = tmp.join("summary.json");
    fs::write(&file, r#"{"scenario": "redis-fencing", "steps": [1, 2, 3]}"#).expect("write");
    let run = locksmith([OsStr::new("replay"), file.as_os_str()]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    let missing = tmp.join("missing.json");
    let run = locksmith([OsStr::new("replay"), missing.as_os_str()]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
}

#[test]
fn replay_of_a_liveness_trace_needs_its_whole_loop() {
    let tmp = TempDir::new("liveness");
    let path = checked_trace(&tmp, "redis-setnx-crash", "deadlock_freedom");
    assert_eq!(path.file_name(), Some(OsStr::new("trace.json")));
    let run = locksmith([OsStr::new("replay"), path.as_os_str()]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("violated again"), "{}", run.stdout);

    let mut trace = read_json(&path);
    let start = trace["loop_start"].as_u64().expect("a liveness trace has loop_start") as usize;
    let steps = trace["steps"].as_array_mut().expect("steps is a list");
    assert!(steps.len() > start, "the loop has no steps to cut");
    steps.pop();
    let cut = tmp.join("loop-cut.json");
    write_json(&cut, &trace);
    let run = locksmith([OsStr::new("replay"), cut.as_os_str()]);
    assert_ne!(run.code, 0, "a broken loop replayed: {}", run.stdout);
}

#[test]
fn every_committed_trace_replays() {
    let reports = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports");
    let mut traces = Vec::new();
    for dir in fs::read_dir(&reports).expect("read reports/") {
        let dir = dir.expect("a directory entry").path();
        if !dir.is_dir() {
            continue;
        }
        for file in fs::read_dir(&dir).expect("read a report") {
            let file = file.expect("a directory entry").path();
            let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
            if name == "trace.json" || name.ends_with(".trace.json") {
                traces.push(file);
            }
        }
    }
    assert!(!traces.is_empty(), "no traces under {}", reports.display());
    traces.sort();
    for trace in traces {
        let run = locksmith([OsStr::new("replay"), trace.as_os_str()]);
        assert_eq!(run.code, 0, "{}: {}{}", trace.display(), run.stdout, run.stderr);
    }
}
