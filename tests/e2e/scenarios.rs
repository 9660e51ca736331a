//! Checks of single bundled scenarios: BFS and DFS agree, and the exact
//! pause boundaries. Every scenario's verdicts, pinned counts and reports
//! are checked by the one full run in tests/e2e/bundled.rs.

use crate::common::{run, scenario};
use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::Verdict;

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
