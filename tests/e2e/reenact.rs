//! `locksmith reenact` on real redis-server processes: three
//! counterexamples the model found happen on real Redis, and
//! the same Redlock steps against the fsync configuration do not break it.
//!
//! Each test starts its own servers on free loopback ports (the harness in
//! src/real/server.rs removes them even when a test fails). Ticks are
//! 200 ms here, twice the default, so that a loaded CI machine (a restart
//! taking a few hundred milliseconds) still leaves Redlock's validity
//! (ttl − drift = 7 ticks) well above the steps' own time; each test takes
//! one to three seconds. Without redis-server the tests print a loud
//! `*** REAL REDIS NOT RUN` line and pass, except under `CI=true`, where
//! they fail.
use std::path::Path;
use std::process::Command;

use crate::common::{assert_reenact_refuses, reenact, reenact_text as text};

const TICK_MS: &str = "200";

/// Reenacts `trace` and asserts exit 0 and the real violation on stdout.
fn reproduces(trace: &str, property: &str) {
    if locksmith::real::require_redis().is_none() {
        return;
    }
    let out = reenact(&[trace, "--tick-ms", TICK_MS]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("{property} is violated on real Redis")),
        "{shown}"
    );
    let log = locksmith::real::reenact::log_path(Path::new(trace), None);
    let log = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(log)).expect("the log is written");
    assert!(log.contains("verdict: "), "{log}");
}

#[test]
fn redlock_without_fsync_gives_two_holders_on_real_masters() {
    reproduces("reports/redlock-no-fsync/trace.json", "mutual_exclusion");
}

#[test]
fn a_pause_past_the_ttl_gives_two_holders_on_real_redis() {
    reproduces("reports/redis-ttl-gc-pause/trace.json", "mutual_exclusion");
}

#[test]
fn a_failover_before_replication_gives_two_holders_with_a_real_sentinel() {
    reproduces("reports/replica-failover-async/trace.json", "mutual_exclusion");
}

/// The same steps as redlock-no-fsync, on masters that fsync every write
/// to their AOF: the restarted master still holds c1's key, answers c2
/// with nil, and c2 never gets a majority.
#[test]
fn the_same_steps_against_fsynced_masters_keep_the_lock_safe() {
    if locksmith::real::require_redis().is_none() {
        return;
    }
    let out = reenact(&[
        "reports/redlock-no-fsync/trace.json",
        "--scenario",
        "redlock-fsync",
        "--tick-ms",
        TICK_MS,
    ]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("mutual_exclusion is not violated on real Redis (redlock-fsync configuration)"),
        "{shown}"
    );
    let log = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/redlock-no-fsync/reenact.redlock-fsync.log"),
    )
    .expect("the log is written");
    assert!(log.contains("with its AOF (appendfsync always); DBSIZE 1"), "{log}");
    assert!(log.contains("DIFFERS: the trace says OK"), "{log}");
}

/// Traces that cannot be enacted exit 2 with one sentence saying why, and
/// need no redis-server to say it.
#[test]
fn traces_it_cannot_enact_exit_2_with_the_reason() {
    for (args, says) in [
        (
            vec!["reports/coordinator-standby-no-state/trace.json"],
            "algorithm \"coordinator\" has no real counterpart here",
        ),
        (
            vec!["reports/redlock-no-fsync/trace.json", "--tick-ms", "0"],
            "--tick-ms 0 is out of range",
        ),
        (
            vec![
                "reports/redlock-no-fsync/trace.json",
                "--scenario",
                "redis-ttl-gc-pause",
            ],
            "is not the trace's \"redlock\"",
        ),
        (vec!["Cargo.toml"], "not a locksmith trace"),
    ] {
        assert_reenact_refuses(&args, says);
    }
}

/// The log holds real ports and times, so it is git-ignored: a run leaves
/// the repository unchanged.
#[test]
fn reenact_logs_are_git_ignored() {
    let root = env!("CARGO_MANIFEST_DIR");
    for log in [
        "reports/redlock-no-fsync/reenact.log",
        "reports/redlock-no-fsync/reenact.redlock-fsync.log",
        "reports/redlock-no-fsync/no_stale_write.reenact.log",
    ] {
        let status = Command::new("git")
            .args(["check-ignore", "-q", log])
            .current_dir(root)
            .status();
        match status {
            Ok(s) => assert!(s.success(), "{log} is not git-ignored"),
            Err(e) => eprintln!("*** GIT NOT RUN: cannot check .gitignore ({e})"),
        }
    }
}
