//! `locksmith reenact` on a real etcd (Debian's etcd-server 3.4): the
//! etcd-lease counterexamples happen on the real thing, the same steps
//! against a fenced configuration keep the resource safe, and a step with
//! no real counterpart makes a trace not enactable (exit 2).
//!
//! Each run starts its own etcd on free loopback ports; ticks are the
//! default 4 s (etcd's TTLs are whole seconds), so a run takes as long as
//! its trace's ticks plus an expiry wait: 14 s (partition, 3 ticks) to
//! 26 s (the pauses, 6 ticks). The four runs go in parallel threads, so
//! the test takes about as long as the longest. Without etcd it prints
//! `*** REAL ETCD NOT RUN` and passes, except under `CI=true`.
use std::path::{Path, PathBuf};

use crate::common::{assert_reenact_refuses, reenact, reenact_text as text};

fn log_of(trace: &str, scenario: Option<&str>) -> String {
    let log = locksmith::real::reenact::log_path(Path::new(trace), scenario);
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&log))
        .unwrap_or_else(|e| panic!("{} is written: {e}", log.display()))
}

/// The three counterexamples reproduce (exit 0), with real answers in the
/// log; the pause's stale write does not happen with revision fencing
/// (exit 1).
#[test]
fn etcd_lease_counterexamples_happen_on_real_etcd() {
    if locksmith::real::etcd::require_etcd().is_none() {
        return;
    }
    let runs: Vec<(Vec<&str>, i32, &str)> = vec![
        (
            vec!["reports/etcd-lease-pause/trace.json"],
            0,
            "mutual_exclusion is violated on real etcd (etcd-lease-pause configuration)",
        ),
        (
            vec!["reports/etcd-revision-fencing/trace.json"],
            0,
            "mutual_exclusion is violated on real etcd (etcd-revision-fencing configuration)",
        ),
        (
            vec!["reports/etcd-partition/trace.json"],
            0,
            "mutual_exclusion is violated on real etcd (etcd-partition configuration)",
        ),
        (
            vec![
                "reports/etcd-lease-pause/no_stale_write.trace.json",
                "--scenario",
                "etcd-revision-fencing",
            ],
            1,
            "no_stale_write is not violated on real etcd (etcd-revision-fencing configuration)",
        ),
    ];
    let outs: Vec<std::process::Output> = std::thread::scope(|s| {
        let handles: Vec<_> = runs.iter().map(|(args, _, _)| s.spawn(|| reenact(args))).collect();
        handles.into_iter().map(|h| h.join().expect("a run")).collect()
    });
    for ((args, code, says), out) in runs.iter().zip(&outs) {
        let shown = text(out);
        assert_eq!(out.status.code(), Some(*code), "{args:?}: {shown}");
        assert!(shown.contains(says), "{args:?}: {shown}");
        assert!(shown.contains("every real answer was the trace's"), "{args:?}: {shown}");
        let scenario = args.get(2).copied();
        let log = log_of(args[0], scenario);
        assert!(log.contains("verdict: "), "{log}");
        assert!(log.contains("etcd Version: 3.4"), "{log}");
        assert!(log.contains("etcd's lessor revoked lease"), "{log}");
    }
    let partition = log_of("reports/etcd-partition/trace.json", None);
    assert!(
        partition.contains("c2's proxy drops its connection to etcd"),
        "{partition}"
    );
    assert!(partition.contains("holding by the real answers: c1, c2"), "{partition}");
    let fenced = log_of(
        "reports/etcd-lease-pause/no_stale_write.trace.json",
        Some("etcd-revision-fencing"),
    );
    assert!(fenced.contains("the resource rejects c1's write"), "{fenced}");
}

/// A trace edited to drift a client's clock (which no real process here
/// can do), a tick etcd's whole-second TTLs cannot time, and a safe
/// configuration with another TTL all exit 2, with one sentence naming
/// why, before any etcd starts.
#[test]
fn etcd_traces_it_cannot_enact_exit_2() {
    let dir = std::env::temp_dir().join(format!("locksmith-reenact-etcd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/etcd-partition/trace.json");
    let mut trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src).expect("the trace")).expect("json");
    // Step 25 is a tick: make it a tick in which c2's clock runs fast.
    let step = &mut trace["steps"][24];
    assert_eq!(step["action"], "tick", "{step}");
    step["action"] = serde_json::json!({"drift": {"fast": [2], "slow": []}});
    step["does"] = "c2's clock runs fast".into();
    let edited: PathBuf = dir.join("trace.json");
    std::fs::write(&edited, trace.to_string()).expect("written");
    let edited = edited.to_str().expect("utf-8");
    for (args, says) in [
        (
            vec![edited],
            "step 25 (c2's clock runs fast): clock drift has no real counterpart in reenact",
        ),
        (
            vec!["reports/etcd-partition/trace.json", "--tick-ms", "1500"],
            "--tick-ms 1500 cannot time an etcd trace",
        ),
        (
            vec!["reports/etcd-partition/trace.json", "--scenario", "etcd-lease-pause"],
            "differ from the trace's scenario etcd-partition",
        ),
    ] {
        assert_reenact_refuses(&args, says);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
