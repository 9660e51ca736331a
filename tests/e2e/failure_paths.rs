//! Bad input to `replay` and `reenact` is one sentence and exit 2, never a
//! panic nor a verdict: a step that names a node the scenario does not
//! have, a trace relabelled with another algorithm, a trace with no steps,
//! a Redis trace with a fault step Redis cannot make, and a redis-server
//! that fails at start (its own words kept). `reenact --log PATH` puts the
//! log there instead of beside the trace.
//!
//! Every edited trace is a copy in a temp dir, so the repository stays as
//! it was. The tests that run redis-server print `*** REAL REDIS NOT RUN`
//! and pass without it, except under `CI=true`, where they fail.
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{locksmith, locksmith_env, reenact, reenact_text, TempDir};

/// A committed trace, read (never written) from the repository.
fn committed(trace: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(trace);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).expect("a trace is JSON")
}

/// Writes `trace` as `name` in `dir`.
fn write(dir: &TempDir, name: &str, trace: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(trace).expect("JSON")).expect("written");
    path
}

/// `locksmith replay FILE` exits 2 with one line on stderr holding every
/// piece of `says`.
fn replay_refuses(file: &Path, says: &[&str]) {
    let run = locksmith([OsStr::new("replay"), file.as_os_str()]);
    let shown = format!("exit {}\nstdout: {}\nstderr: {}", run.code, run.stdout, run.stderr);
    assert_eq!(run.code, 2, "{shown}");
    assert_eq!(run.stderr.trim().lines().count(), 1, "one sentence: {shown}");
    for s in says {
        assert!(run.stderr.contains(s), "expected {s:?}: {shown}");
    }
}

/// Each edit of reports/redlock-no-fsync/trace.json makes one step name
/// node 99 of a scenario with six (s1, s2, s3, c1, c2, resource): in a
/// node's own step (`steps[0].action.step.node = 99`), a delivery's sender
/// and receiver, a crash, a restart, and steps put in a step's place: a
/// pause, a timer, a partition, a reconnect, a drift. The old code
/// indexed the world's nodes by it and panicked (exit 101).
#[test]
fn a_step_naming_a_node_out_of_range_exits_2_naming_the_step_and_the_nodes() {
    let tmp = TempDir::new("failure-node-range");
    let original = committed("reports/redlock-no-fsync/trace.json");
    // Step `i`'s action with the field at `pointer` set to 99.
    let at = |i: usize, pointer: &str| {
        let mut a = original["steps"][i]["action"].clone();
        *a.pointer_mut(pointer).expect("the trace has the field") = json!(99);
        a
    };
    let edits = [
        (0, "node", at(0, "/step/node")),
        (1, "src", at(1, "/deliver/src")),
        (1, "dst", at(1, "/deliver/dst")),
        (5, "node", at(5, "/crash/node")),
        (6, "node", at(6, "/restart/node")),
        (0, "node", json!({"pause": {"node": 99, "ticks": 1}})),
        (0, "node", json!({"fire": {"node": 99, "timer": "KeyExpiry"}})),
        (0, "b", json!({"partition": {"a": 0, "b": 99}})),
        (0, "peer", json!({"reconnect": {"node": 3, "peer": 99}})),
        (0, "slow", json!({"drift": {"fast": [3], "slow": [99]}})),
    ];
    for (k, (i, field, action)) in edits.into_iter().enumerate() {
        let mut trace = original.clone();
        trace["steps"][i]["action"] = action;
        let file = write(&tmp, &format!("node99-{k}.json"), &trace);
        replay_refuses(
            &file,
            &[
                file.to_str().expect("a UTF-8 path"),
                &format!("step {} (steps[{i}]) names node 99 (its \"{field}\" field)", i + 1),
                "scenario redlock-no-fsync has 6 nodes, numbered 0 to 5: s1, s2, s3, c1, c2, resource",
            ],
        );
    }
}

/// `"algorithm": "zookeeper"` on a Redlock trace: the old code replayed it
/// as Redlock and exited 0.
#[test]
fn a_trace_relabelled_with_another_algorithm_exits_2() {
    let tmp = TempDir::new("failure-algorithm");
    let mut trace = committed("reports/redlock-no-fsync/trace.json");
    trace["algorithm"] = json!("zookeeper");
    let file = write(&tmp, "trace.json", &trace);
    replay_refuses(
        &file,
        &[
            file.to_str().expect("a UTF-8 path"),
            "algorithm \"zookeeper\" is not its embedded scenario's algorithm \"redlock\"",
        ],
    );
}

/// `"steps": []`: the old code replayed nothing and exited 1 ("no longer
/// violated"), as if the model had changed.
#[test]
fn a_trace_with_no_steps_exits_2() {
    let tmp = TempDir::new("failure-no-steps");
    let mut trace = committed("reports/redlock-no-fsync/trace.json");
    trace["steps"] = json!([]);
    let file = write(&tmp, "trace.json", &trace);
    replay_refuses(
        &file,
        &[
            file.to_str().expect("a UTF-8 path"),
            "steps is empty, and a counterexample has at least one step",
        ],
    );
}

/// reports/redlock-clock-jump/trace.json has a clock jump, which Redis
/// cannot make: the run skips it and stays safe, which says nothing about
/// the trace, so exit 2 (the old code said "not violated … 1 fault
/// step(s) were skipped" with exit 1). With `--log`, the log is written
/// there and not beside the trace.
#[test]
fn reenact_of_a_trace_with_a_skipped_clock_jump_exits_2() {
    if locksmith::real::require_redis().is_none() {
        return;
    }
    let tmp = TempDir::new("failure-clock-jump");
    let trace = write(&tmp, "trace.json", &committed("reports/redlock-clock-jump/trace.json"));
    let logs = tmp.join("logs");
    std::fs::create_dir_all(&logs).expect("a logs dir");
    let log = logs.join("clock-jump.log");
    let out = reenact(&[
        trace.to_str().expect("a UTF-8 path"),
        "--tick-ms",
        "200",
        "--log",
        log.to_str().expect("a UTF-8 path"),
    ]);
    let shown = reenact_text(&out);
    assert_eq!(out.status.code(), Some(2), "{shown}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "one sentence: {shown}");
    assert!(
        stderr.contains(
            "cannot be enacted: 1 fault step(s) were skipped (clock jumps or drift, which Redis offers no way to make)"
        ),
        "{shown}"
    );
    assert!(stderr.contains(&format!("log: {}", log.display())), "{shown}");
    let written = std::fs::read_to_string(&log).expect("the log is written where --log says");
    assert!(written.contains("SKIPPED: node"), "{written}");
    assert!(!tmp.join("reenact.log").exists(), "no log beside the trace");
}

/// `--log PATH` on a run that reproduces: the verdict names the log, which
/// is there and not beside the trace.
#[test]
fn reenact_writes_its_log_where_log_says() {
    if locksmith::real::require_redis().is_none() {
        return;
    }
    let tmp = TempDir::new("failure-log-flag");
    let trace = write(&tmp, "trace.json", &committed("reports/redlock-no-fsync/trace.json"));
    let log = tmp.join("elsewhere.log");
    let out = reenact(&[
        trace.to_str().expect("a UTF-8 path"),
        "--tick-ms",
        "200",
        "--log",
        log.to_str().expect("a UTF-8 path"),
    ]);
    let shown = reenact_text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("log: {}", log.display())),
        "{shown}"
    );
    let written = std::fs::read_to_string(&log).expect("the log is written where --log says");
    assert!(written.contains("verdict: "), "{written}");
    assert!(!tmp.join("reenact.log").exists(), "no log beside the trace");
}

/// A redis-server that rejects its configuration at start (a wrapper
/// adding `--bogus-option yes` to the real one) says why on stderr before
/// it opens its log; the old code sent that stderr nowhere and printed an
/// empty "its log:" over several lines. Now the sentence quotes it.
#[test]
fn a_redis_server_that_fails_at_start_keeps_its_error() {
    let Some(bin) = locksmith::real::require_redis() else {
        return;
    };
    let tmp = TempDir::new("failure-bad-redis");
    let wrapper = tmp.join("redis-server");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec '{}' \"$@\" --bogus-option yes\n", bin.display()),
    )
    .expect("written");
    let chmod = std::process::Command::new("chmod")
        .arg("+x")
        .arg(&wrapper)
        .status()
        .expect("chmod runs");
    assert!(chmod.success());
    let trace = write(&tmp, "trace.json", &committed("reports/redlock-no-fsync/trace.json"));
    let run = locksmith_env(
        [OsStr::new("reenact"), trace.as_os_str()],
        &[("REDIS_SERVER", wrapper.as_os_str())],
    );
    let shown = format!("exit {}\nstdout: {}\nstderr: {}", run.code, run.stdout, run.stderr);
    assert_eq!(run.code, 2, "{shown}");
    assert_eq!(run.stderr.trim().lines().count(), 1, "one sentence: {shown}");
    for says in [
        "cannot be enacted: a server did not start:",
        "exited at start (exit status: 1)",
        "bogus-option",
        "Bad directive or wrong number of arguments",
    ] {
        assert!(run.stderr.contains(says), "expected {says:?}: {shown}");
    }
}
