//! Every bundled scenario's verdicts, as `check --all` judges them, plus
//! pinned state counts and shortest-trace lengths (as stateright's paxos
//! example pins its own): a change to the world or an algorithm that moves
//! them must be a deliberate one.

mod common;

use common::{run, scenario};
use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::{all, load, Verdict};

/// (scenario, unique states, mutual_exclusion steps, deadlock_freedom
/// steps): every bundled scenario is pinned.
const PINNED: &[(&str, usize, Option<usize>, Option<usize>)] = &[
    ("lock-table-crash", 3437, None, Some(13)),
    ("lock-table-expiry", 7793, None, None),
    ("redis-cas-release", 7272, Some(16), None),
    ("redis-del-foreign-release", 785, Some(14), None),
    ("redis-fencing", 7108, Some(16), None),
    ("redis-setnx-crash", 3437, None, Some(13)),
    ("redis-setnx-expire-crash", 8682, None, Some(13)),
    ("redis-ttl-gc-pause", 7924, Some(16), None),
    ("redis-ttl-no-faults", 459, None, None),
    ("redis-watchdog-long-pause", 18464, Some(29), None),
    ("redis-watchdog-short-pause", 8622, None, None),
    ("redlock-clock-jump", 364636, Some(16), None),
    ("redlock-delayed-restart", 184851, None, None),
    ("redlock-five-masters", 340976, None, None),
    ("redlock-fsync", 128287, None, None),
    ("redlock-gc-pause-fencing", 622350, Some(49), None),
    ("redlock-gc-pause-value-fencing", 776786, Some(47), None),
    ("redlock-gc-pause", 389148, Some(47), None),
    ("redlock-no-faults", 142900, None, None),
    ("redlock-no-fsync", 116951, Some(16), None),
    ("redlock-pause-during-acquire", 644676, None, None),
    ("replica-failover-async", 684653, Some(15), None),
    ("replica-failover-wait", 703239, None, None),
];

/// One check of every bundled scenario: its verdicts as `check --all`
/// judges them, and its pinned counts.
#[test]
fn every_scenario_meets_its_expectations_and_its_pins() {
    let files = all();
    assert_eq!(files.len(), PINNED.len(), "every bundled scenario is pinned");
    for path in files {
        let sc = load(&path).expect("bundled scenarios are valid");
        let r = run(&sc, Options::default());
        for (prop, verdict, steps) in &r.verdicts {
            if let Some(expected) = sc.expected(*prop) {
                assert_eq!(*verdict, expected, "{}: {}", sc.name, prop.name());
            } else {
                assert_ne!(
                    *verdict,
                    Verdict::Violated,
                    "{}: {} violated unexpectedly",
                    sc.name,
                    prop.name()
                );
            }
            assert_eq!(
                steps.is_some(),
                *verdict == Verdict::Violated,
                "{}: a violation has a trace",
                sc.name
            );
        }
        let &(_, states, me, df) = PINNED.iter().find(|p| p.0 == sc.name).expect("pinned");
        assert_eq!(r.unique_states, states, "{}: unique states", sc.name);
        assert_eq!(
            r.steps(Prop::MutualExclusion),
            me,
            "{}: mutual_exclusion trace length",
            sc.name
        );
        assert_eq!(
            r.steps(Prop::DeadlockFreedom),
            df,
            "{}: deadlock_freedom trace length",
            sc.name
        );
    }
}

#[test]
fn depth_first_search_reaches_the_same_verdicts_and_states() {
    for name in ["redis-ttl-gc-pause", "redis-setnx-crash", "lock-table-expiry"] {
        let sc = scenario(name);
        let bfs = run(&sc, Options::default());
        let dfs = run(
            &sc,
            Options {
                dfs: true,
                ..Options::default()
            },
        );
        assert_eq!(bfs.unique_states, dfs.unique_states, "{name}");
        for p in Prop::ALL {
            assert_eq!(bfs.verdict(p), dfs.verdict(p), "{name}: {}", p.name());
            // BFS finds the shortest counterexample.
            if let (Some(b), Some(d)) = (bfs.steps(p), dfs.steps(p)) {
                assert!(b <= d, "{name}: {} BFS {b} > DFS {d}", p.name());
            }
        }
    }
}

/// Run `name` with its pause bound set to `max_pause` (and TTL `ttl`, if
/// given): the verdict on mutual exclusion.
fn mutual_exclusion_with(name: &str, ttl: Option<u8>, watchdog: Option<bool>, max_pause: u8) -> Verdict {
    let mut sc = scenario(name);
    sc.faults.max_pause = max_pause;
    if let Some(ttl) = ttl {
        sc.system.insert("ttl".into(), toml::Value::Integer(ttl.into()));
    }
    if let Some(w) = watchdog {
        sc.system.insert("watchdog".into(), toml::Value::Boolean(w));
    }
    run(&sc, Options::default()).verdict(Prop::MutualExclusion)
}

/// A pause can begin as late as 3 ticks after the server set the key
/// (grant, write, answer), so the lock breaks exactly when 3 + pause >= TTL.
/// A model one tick off in its timing fails one side of these brackets.
#[test]
fn a_pause_breaks_a_ttl_lock_exactly_when_it_outlasts_the_ttl_left() {
    assert_eq!(
        mutual_exclusion_with("redis-ttl-gc-pause", Some(6), None, 2),
        Verdict::Holds
    );
    assert_eq!(
        mutual_exclusion_with("redis-ttl-gc-pause", Some(6), None, 3),
        Verdict::Violated
    );
    assert_eq!(
        mutual_exclusion_with("redis-ttl-gc-pause", Some(4), None, 1),
        Verdict::Violated
    );
}

/// The watchdog does not move that boundary: a paused process renews
/// nothing. TTL 9: pauses of 5 are safe and 6 are not, with or without it.
#[test]
fn the_watchdog_does_not_protect_against_pauses() {
    for watchdog in [true, false] {
        let w = Some(watchdog);
        assert_eq!(
            mutual_exclusion_with("redis-watchdog-short-pause", None, w, 5),
            Verdict::Holds,
            "{w:?}"
        );
        assert_eq!(
            mutual_exclusion_with("redis-watchdog-short-pause", None, w, 6),
            Verdict::Violated,
            "{w:?}"
        );
    }
}

/// With no pause at all the gc-pause configuration is safe: its violation
/// comes from the pause.
#[test]
fn the_gc_pause_scenario_is_safe_without_its_pause() {
    let mut sc = scenario("redis-ttl-gc-pause");
    sc.faults.pauses = 0;
    sc.faults.max_pause = 0;
    assert_eq!(
        run(&sc, Options::default()).verdict(Prop::MutualExclusion),
        Verdict::Holds
    );
}

#[test]
fn a_state_bound_leaves_open_verdicts_unknown() {
    let sc = scenario("redis-watchdog-long-pause");
    let r = run(
        &sc,
        Options {
            max_states: Some(50),
            ..Options::default()
        },
    );
    assert!(r.unique_states <= 50, "{} states", r.unique_states);
    assert_eq!(r.verdict(Prop::DeadlockFreedom), Verdict::Unknown);
    assert_eq!(r.verdict(Prop::NoForeignRelease), Verdict::Unknown);
}
