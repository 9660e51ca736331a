//! Harmless parameter changes (a verdict that flips on one is a modelling bug): one more
//! client, one more acquisition, every duration doubled (`max_delay` scaled
//! with the timeouts), or another back-off (tests/e2e/fidelity.rs) must not flip a
//! verdict without a reason of the algorithm. A safety violation found
//! with fewer clients or acquisitions stays reachable with more (the extra
//! client need not act before it, nor the extra acquisition happen), so
//! those never flip back to "holds"; a verdict that flips the other way,
//! or a liveness verdict that flips, is either a finding of the algorithm,
//! pinned below with its reason, or a modelling bug.
//!
//! Every bundled scenario whose check is small enough (the base and the
//! changed one within `BOUND` states) is tried; the rest are named in the
//! output and left to `locksmith check`.

use locksmith::algorithms::validate;
use locksmith::catalog::load;
use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::{all, Scenario, Verdict};

use crate::common::run;

/// Unique states beyond which a changed scenario is not checked here.
const BOUND: usize = 40_000;

/// A harmless change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    OneMoreClient,
    OneMoreAcquisition,
    /// Every duration twice as long: the network's `max_delay`, the
    /// pauses, jumps and drift the adversary may use, and every timeout,
    /// TTL, back-off and allowance of the algorithm. Each run of the
    /// scenario is a run of the doubled one with every wait twice as long,
    /// so a safety violation stays; the doubled one also has runs at
    /// half-tick offsets, so "holds" may become "violated" only by a race
    /// the coarser tick hid (pinned below with its reason, if any).
    DoubleTime,
}

/// The `[system]` keys that are durations.
const DURATIONS: &[&str] = &[
    "ttl",
    "timeout",
    "retry",
    "retry_max",
    "session_timeout",
    "ping",
    "suspend_after",
    "heartbeat",
    "suspect_after",
    "down_after",
    "wait_timeout",
    "max_lag",
    "drift",
    "margin",
    "work",
];

/// Each family's default for a duration above, where it is a plain
/// number (`None`: derived from other keys, so it doubles with them, or
/// allowed only in some variants, so it is doubled only where set).
fn default_duration(algorithm: &str, key: &str) -> Option<i64> {
    let d = match (algorithm, key) {
        ("single-redis" | "lock-table", "ttl") => 4,
        ("etcd-lease", "ttl") => 6,
        ("primary-replica", "ttl") => 7,
        ("redlock", "ttl") => 8,
        ("redlock", "timeout") => 2,
        ("single-redis" | "lock-table" | "primary-replica" | "etcd-lease" | "zookeeper", "timeout") => 3,
        ("redlock", "retry") => 3,
        ("single-redis" | "lock-table" | "primary-replica" | "etcd-lease" | "zookeeper", "retry") => 1,
        ("primary-replica", "ping") => 1,
        ("primary-replica", "down_after") => 3,
        ("zookeeper", "session_timeout") => 6,
        ("lock-table" | "redlock", "drift") => 1,
        ("lock-table" | "redlock", "margin") => 2,
        _ => return None,
    };
    Some(d)
}

/// `sc` with every duration doubled (see [`Change::DoubleTime`]).
fn doubled(sc: &mut Scenario) {
    for key in DURATIONS {
        let value = match sc.system.get(*key).and_then(toml::Value::as_integer) {
            Some(v) => Some(v),
            None => default_duration(&sc.algorithm, key),
        };
        if let Some(v) = value {
            sc.system.insert((*key).into(), toml::Value::Integer(2 * v));
        }
    }
    // Redlock's back-off range: `retry_max` defaults to `retry + 1`.
    if sc.algorithm == "redlock" && !sc.system.contains_key("retry_max") {
        let retry = sc.system.get("retry").and_then(toml::Value::as_integer).unwrap_or(6);
        sc.system.insert("retry_max".into(), toml::Value::Integer(retry + 2));
    }
    let f = &mut sc.faults;
    f.max_delay = f.max_delay.map(|d| 2 * d);
    if f.pauses > 0 {
        f.min_pause *= 2;
        f.max_pause *= 2;
    }
    f.max_jump *= 2;
    f.max_drift *= 2;
}

/// Verdicts that a change flips, with the reason: (scenario, change,
/// property, verdict before, verdict after, why).
const FLIPS: &[(&str, Change, Prop, Verdict, Verdict, &str)] = &[];

fn changed(sc: &Scenario, change: Change) -> Option<Scenario> {
    let mut sc = sc.clone();
    match change {
        Change::OneMoreClient => {
            let key = ["clients", "nodes"].into_iter().find(|k| sc.system.contains_key(*k))?;
            let n = sc.system.get(key)?.as_integer()?;
            sc.system.insert(key.into(), toml::Value::Integer(n + 1));
        }
        Change::OneMoreAcquisition => {
            if sc.acquisitions == 0 {
                return None;
            }
            sc.acquisitions += 1;
        }
        Change::DoubleTime => doubled(&mut sc),
    }
    validate(&sc).ok()?;
    Some(sc)
}

#[test]
fn no_verdict_flips_on_a_harmless_change() {
    let bounded = || Options {
        max_states: Some(BOUND),
        ..Options::default()
    };
    let mut flips = Vec::new();
    let mut tried = 0;
    let mut doubled_tried = Vec::new();
    for path in all() {
        let sc = load(&path).expect("bundled scenarios are valid");
        let base = run(&sc, bounded());
        if base.unique_states >= BOUND {
            eprintln!("harmless: {} is larger than {BOUND} states: not tried", sc.name);
            continue;
        }
        for change in [Change::OneMoreClient, Change::OneMoreAcquisition, Change::DoubleTime] {
            let Some(other) = changed(&sc, change) else { continue };
            let r = run(&other, bounded());
            if r.unique_states >= BOUND {
                eprintln!(
                    "harmless: {} with {change:?} is larger than {BOUND} states: not compared",
                    sc.name
                );
                continue;
            }
            tried += 1;
            if change == Change::DoubleTime {
                doubled_tried.push((sc.algorithm.clone(), sc.name.clone()));
            }
            for p in Prop::ALL {
                let (before, after) = (base.verdict(p), r.verdict(p));
                if after == Verdict::Unknown || before == after {
                    continue;
                }
                let pinned = FLIPS
                    .iter()
                    .any(|f| (f.0, f.1, f.2, f.3, f.4) == (sc.name.as_str(), change, p, before, after));
                if !pinned {
                    flips.push(format!(
                        "{}: {change:?}: {} {} -> {}",
                        sc.name,
                        p.name(),
                        before.as_str(),
                        after.as_str()
                    ));
                }
                assert!(
                    !(p.is_safety() && before == Verdict::Violated && after == Verdict::Holds),
                    "{}: {change:?} hides a safety violation of {}: the changed scenario allows every run of the first",
                    sc.name,
                    p.name()
                );
            }
        }
    }
    let names: Vec<&str> = doubled_tried.iter().map(|(_, n)| n.as_str()).collect();
    eprintln!(
        "harmless: {tried} changes compared; with every duration doubled: {}",
        names.join(", ")
    );
    assert!(tried >= 25, "the changes were compared in full ({tried})");
    let families: std::collections::BTreeSet<&str> = doubled_tried.iter().map(|(a, _)| a.as_str()).collect();
    assert!(
        families.len() >= 7,
        "durations doubled in too few families: {families:?}"
    );
    assert!(
        flips.is_empty(),
        "verdicts flipped without a pinned reason:\n{}",
        flips.join("\n")
    );
}
