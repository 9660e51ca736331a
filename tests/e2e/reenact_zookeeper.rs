//! `locksmith reenact` on a real ZooKeeper (src/real/reenact/zookeeper.rs):
//! the session-expiry counterexamples the model found happen on ZooKeeper
//! 3.8.0 with the real `zookeeper-client` library, the same schedule with a
//! session timeout longer than the pause does not break it, and a step with
//! no real counterpart is exit 2.
//!
//! Each run starts its own standalone server on a free loopback port (about
//! 0.7 s) and plays a schedule of about 1 to 2 s at the default tick of
//! 300 ms; the runs go three at a time. Without ZooKeeper the test prints a loud
//! `*** REAL ZOOKEEPER NOT RUN` line and passes, except under `CI=true`,
//! where it fails.

use std::path::Path;
use std::process::Command;

use crate::common::{reenact, reenact_text as text, TempDir};

/// Each case: the arguments, the exit code, and what the verdict says.
fn check(args: &[&str], code: i32, says: &str) -> Result<(), String> {
    let out = reenact(args);
    let shown = text(&out);
    if out.status.code() != Some(code) || !shown.contains(says) {
        return Err(format!(
            "reenact {args:?}: expected exit {code} and \"{says}\"; got {shown}"
        ));
    }
    if code != 2 {
        let scenario = args.iter().position(|a| *a == "--scenario").map(|i| args[i + 1]);
        let log = locksmith::real::reenact::log_path(Path::new(args[0]), scenario);
        let log = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&log))
            .map_err(|e| format!("{}: {e}", log.display()))?;
        // The real server's own answers are in the log.
        if !log.contains("verdict: ") || !log.contains("ZooKeeper: Zookeeper version: 3.") {
            return Err(format!("the log lacks the verdict or the server's version:\n{log}"));
        }
    }
    Ok(())
}

#[test]
fn zookeeper_counterexamples_happen_on_a_real_ensemble_and_the_safe_one_does_not() {
    if locksmith::real::require_zookeeper().is_none() {
        return;
    }
    let tmp = TempDir::new("reenact-zk");
    // The partition scenario (no pause: the holder is cut off past its
    // session while it works) has no committed report: check writes its
    // trace here.
    let scenario = "tests/work/zk-holder-cut-off-while-working.toml";
    let reports = tmp.path().to_str().expect("a UTF-8 temp path").to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .args(["check", scenario, "--reports", &reports])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("locksmith runs");
    let dir = std::fs::read_dir(tmp.join("own"))
        .ok()
        .and_then(|mut d| d.next())
        .and_then(|e| e.ok())
        .map(|e| e.path())
        .unwrap_or_else(|| panic!("check wrote no report: {}", text(&out)));
    let cut_off = dir.join("trace.json");
    let cut_off = cut_off.to_str().expect("a UTF-8 path").to_string();
    // A copy of a trace with a clock jump in it, which reenact cannot make.
    let jump = tmp.join("jump.json");
    let mut trace: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/zk-session-expiry-pause/trace.json"),
        )
        .expect("the committed trace"),
    )
    .expect("JSON");
    trace["steps"].as_array_mut().expect("steps").insert(
        1,
        serde_json::json!({"action": {"clock_jump": {"node": 1, "by": 1}}, "does": "c1's clock jumps"}),
    );
    std::fs::write(&jump, serde_json::to_string(&trace).expect("JSON")).expect("write the copy");
    let jump = jump.to_str().expect("a UTF-8 path").to_string();

    let violated = "is violated on real ZooKeeper";
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (vec!["reports/zk-session-expiry-pause/trace.json"], 0, violated),
        (
            vec!["reports/zk-session-expiry-pause/no_stale_write.trace.json"],
            0,
            violated,
        ),
        (vec!["reports/zk-fencing-zxid/trace.json"], 0, violated),
        (vec!["reports/zk-curator-pause/trace.json"], 0, violated),
        (vec![&cut_off], 0, violated),
        (
            vec![
                "reports/zk-session-expiry-pause/trace.json",
                "--scenario",
                "tests/zookeeper/zk-long-session.toml",
            ],
            1,
            "is not violated on real ZooKeeper",
        ),
        (vec![&jump], 2, "a clock jump has no real counterpart"),
    ];
    // Three at a time: each is a JVM and a real-time schedule, on 2 cores.
    let failures: Vec<String> = cases
        .chunks(3)
        .flat_map(|chunk| {
            std::thread::scope(|s| {
                let runs: Vec<_> = chunk
                    .iter()
                    .map(|(args, code, says)| s.spawn(move || check(args, *code, says)))
                    .collect();
                runs.into_iter()
                    .filter_map(|r| r.join().expect("a case").err())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
