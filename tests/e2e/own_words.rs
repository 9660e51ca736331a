//! Every family's trace in its own words: each step says what the client
//! sends in the real system's API, and the field words are the same across
//! families. Each test checks a bundled scenario with the binary, as a user
//! would, and reads the trace it writes (not the committed reports, which
//! are regenerated only at release).

use std::fs;

use crate::common::{files_under, locksmith, TempDir};

/// The `trace.md` that `locksmith check <scenario>` writes.
fn trace(scenario: &str) -> String {
    let dir = TempDir::new(&format!("own-words-{scenario}"));
    let run = locksmith(
        ["check", scenario, "--jobs", "1", "--reports"]
            .map(str::to_string)
            .into_iter()
            .chain([dir.path().display().to_string()]),
    );
    assert_eq!(run.code, 0, "{scenario}: {}", run.stderr);
    fs::read_to_string(dir.join(scenario).join("trace.md")).expect("check writes trace.md")
}

/// Asserts that every phrase is in the scenario's trace.
fn says(scenario: &str, phrases: &[&str]) {
    let md = trace(scenario);
    for p in phrases {
        assert!(md.contains(p), "{scenario}: trace.md does not say {p:?}:\n{md}");
    }
}

/// No family speaks of a step by the spec's action name, nor writes a
/// boolean field as Rust does.
fn speaks_no_rust(scenario: &str) {
    let md = trace(scenario);
    for bad in [
        " Acquire |",
        " Request |",
        " Write |",
        " Enter (",
        "checked false",
        "checked true",
    ] {
        assert!(!md.contains(bad), "{scenario}: trace.md still says {bad:?}");
    }
}

#[test]
fn zookeeper_creates_an_ephemeral_sequential_node() {
    says(
        "zk-session-expiry-pause",
        &[
            "c1 asks for the lock: create /lock/_c_…-lock- EPHEMERAL_SEQUENTIAL",
            "getChildren /lock",
        ],
    );
    speaks_no_rust("zk-session-expiry-pause");
}

#[test]
fn etcd_grants_a_lease_then_puts_its_key_in_a_txn() {
    says(
        "etcd-lease-pause",
        &[
            "c1 asks for the lock: LeaseGrant TTL 6",
            "Txn If(CreateRevision(/lock/1) = 0) Then(Put(/lock/1, WithLease(1))) Else(Get(/lock/1))",
        ],
    );
}

#[test]
fn the_coordinator_is_sent_its_own_requests() {
    says(
        "coordinator-crash",
        &["c1 asks for the lock: REQUEST", "GRANT(r1, acquisition #1)"],
    );
    speaks_no_rust("coordinator-crash");
}

#[test]
fn ricart_agrawala_requests_carry_the_sequence_number_and_the_node() {
    says(
        "ricart-agrawala-loss",
        &[
            "n1 asks for the critical section: REQUEST to every other node",
            "REQUEST(ts 1, n1)",
        ],
    );
    speaks_no_rust("ricart-agrawala-loss");
}

#[test]
fn the_token_ring_passes_its_token() {
    says(
        "token-ring-loss",
        &["n1 enters the critical section with the TOKEN", "n1 sends TOKEN to n2"],
    );
}

#[test]
fn the_lock_table_writes_sql_statements() {
    says(
        "lock-table-pause",
        &[
            "c1 asks for the lock: INSERT INTO locks",
            "ON CONFLICT (name) DO UPDATE SET owner = 'v1', expires_at = now() + 6 WHERE locks.expires_at < now()",
        ],
    );
}

#[test]
fn primary_replica_clients_send_set_nx_px() {
    says(
        "replica-restart-empty",
        &["c1 asks for the lock: SET lock … NX PX", "SET lock v1 NX PX"],
    );
}

/// The `trace.md` that `locksmith check` writes for a scenario of our
/// own, one Redlock master and client with the given `[system]` lines and
/// `[faults]` lines besides a delay bound.
fn redlock_trace(test: &str, system: &str, faults: &str) -> String {
    let dir = TempDir::new(test);
    let file = dir.join(format!("{test}.toml"));
    let text = format!(
        "summary = \"Redlock: {test}\"\nalgorithm = \"redlock\"\n\n[system]\nmasters = 1\nclients = 1\n{system}\n\n\
         [faults]\nmax_delay = 1\n{faults}\n\n[bounds]\nacquisitions = 1\n"
    );
    fs::write(&file, text).expect("write the scenario");
    let reports = dir.join("reports");
    let run = locksmith([
        "check".into(),
        file.display().to_string(),
        "--reports".into(),
        reports.display().to_string(),
    ]);
    assert!(run.code <= 1, "{test}: {}", run.stderr);
    let md = files_under(&reports, "trace.md")
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == "trace.md"))
        .expect("check writes a trace.md");
    fs::read_to_string(md).expect("read trace.md")
}

/// A majority won with no validity left says so with `validity_left`'s
/// arithmetic on the model's numbers: ttl 5, the stopwatch, drift 3.
#[test]
fn a_redlock_win_without_validity_shows_the_arithmetic() {
    let md = redlock_trace("redlock-short-key", "ttl = 5\ntimeout = 3\ndrift = 3", "");
    assert!(
        md.contains("c1 has OK from 1 of 1 masters, but validity 5 − 2 − 3 = 0 ≤ 0: gives up"),
        "{md}"
    );
}

/// A win whose validity is not above the margin when the client checks
/// says so with the timer's value and the margin.
#[test]
fn a_redlock_check_below_the_margin_shows_both_numbers() {
    let md = redlock_trace("redlock-big-margin", "ttl = 8\ntimeout = 3\ndrift = 1\nmargin = 7", "");
    assert!(md.contains("c1 has OK from 1 of 1 masters and validity 8 − "), "{md}");
    assert!(md.contains("≤ margin 7: gives up"), "{md}");
}

/// A scenario whose clocks drift says so among the trace's faults, even
/// when no step of its trace moves a clock: drift is the run's condition.
#[test]
fn a_drift_scenario_lists_its_drift_among_the_faults() {
    let md = redlock_trace("redlock-drifting", "ttl = 5\ntimeout = 3\ndrift = 3", "max_drift = 1");
    assert!(
        md.contains("faults in this trace: clocks may drift by up to 1 tick (max_drift = 1)"),
        "{md}"
    );
    assert!(!md.contains("faults in this trace: none"), "{md}");
    let md = redlock_trace("redlock-still-clocks", "ttl = 5\ntimeout = 3\ndrift = 3", "");
    assert!(md.contains("faults in this trace: none."), "{md}");
}
