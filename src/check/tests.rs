//! The checker on small cases: fairness classes, interrupts.

use std::path::Path;

use super::{check, random, strongly_fair, Options, Outcome};
use crate::algorithms::single_redis;
use crate::interrupt::Interrupt;
use crate::scenario::Verdict;
use crate::world::Action;

/// Ctrl-C stops the search where a timeout would, and says so.
#[test]
fn an_interrupt_stops_the_search_with_open_verdicts_unknown() {
    let sc = crate::catalog::open("redis-ttl-gc-pause").expect("bundled");
    let world = single_redis::world(&sc).expect("builds");
    let interrupt = Interrupt::default();
    interrupt.request();
    let out = check(
        &world,
        &Options {
            interrupt,
            ..Options::default()
        },
    );
    assert!(out.interrupted);
    assert_eq!(
        out.stopped.as_deref(),
        Some("interrupted after 1 states; open verdicts are unknown")
    );
    assert!(
        out.props.iter().all(|p| p.verdict == Verdict::Unknown),
        "{:?}",
        out.props
    );
    let whole = check(&world, &Options::default());
    assert!(!whole.interrupted && whole.stopped.is_none());
}

/// Time is strongly fair (docs/properties.md, "Time is strongly fair"); a message's
/// delivery is only weakly fair, and so is a client's own step.
#[test]
fn a_tick_is_strongly_fair_and_a_delivery_is_not() {
    let text = "summary = \"s\"\nalgorithm = \"single-redis\"\n[system]\n[faults]\nmax_delay = 1\n[bounds]\n";
    let sc = crate::scenario::parse(Path::new("tick.toml"), text).expect("parses");
    let world = single_redis::world(&sc).expect("builds");
    // The first state, breadth first, where time may pass.
    let mut queue = std::collections::VecDeque::from([world.init()]);
    let mut actions = Vec::new();
    let mut seen = 0;
    while let Some(s) = queue.pop_front() {
        actions.clear();
        world.enabled(&s, &mut actions);
        if actions.iter().any(|a| matches!(a, Action::Tick)) {
            break;
        }
        queue.extend(actions.iter().filter_map(|a| world.after(&s, a)));
        seen += 1;
        assert!(seen < 1000, "no tick within 1000 states");
    }
    for a in &actions {
        assert_eq!(strongly_fair(a), matches!(a, Action::Tick), "{a:?}");
        assert!(!random(&world, a), "{a:?}");
    }
}

/// Stopping at a safety property's first violation finds the trace the
/// whole search finds, in fewer states, and leaves every other open
/// verdict unknown (threads change none of it).
#[test]
fn stopping_at_the_first_violation_keeps_its_trace() {
    use crate::properties::Prop;
    let sc = crate::catalog::open("redis-ttl-gc-pause").expect("bundled");
    let world = single_redis::world(&sc).expect("builds");
    let whole = check(&world, &Options::default());
    for threads in [1, 2] {
        let early = check(
            &world,
            &Options {
                stop_at: Some(Prop::MutualExclusion),
                threads,
                ..Options::default()
            },
        );
        let (a, b) = (whole.get(Prop::MutualExclusion), early.get(Prop::MutualExclusion));
        assert_eq!(b.verdict, Verdict::Violated);
        assert_eq!(a.trace, b.trace, "the same shortest trace");
        assert!(early.unique_states < whole.unique_states);
        assert_eq!(
            early.stopped.as_deref(),
            Some("stopped at the first violation of mutual_exclusion")
        );
        for p in early.props.iter().filter(|p| p.prop != Prop::MutualExclusion) {
            assert!(
                p.verdict == Verdict::Unknown || p.trace.is_some(),
                "{:?} is decided only by a trace of its own",
                p.prop
            );
        }
    }
}

/// `--no-symmetry` is an option of the search, not a change to the
/// scenario: on a world with interchangeable nodes it searches what the
/// same scenario with `symmetry = false` builds, state for state, and the
/// outcome says which search ran.
#[test]
fn no_symmetry_searches_the_full_space_of_the_same_world() {
    let text = std::fs::read_to_string("specs/redlock-pause-ci.toml").expect("kept in specs/");
    let symmetric = text.replacen("[bounds]\n", "[bounds]\nsymmetry = true\n", 1);
    let sc = crate::catalog::parse(Path::new("specs/redlock-pause-ci.toml"), &symmetric).expect("valid");
    let world = crate::algorithms::redlock::world(&sc).expect("builds");
    let groups = world.symmetry.clone();
    assert!(!groups.is_empty(), "interchangeable clients");
    let reduced = check(&world, &Options::default());
    let opts = Options {
        no_symmetry: true,
        ..Options::default()
    };
    let full = check(&world, &opts);
    let mut plain = sc.clone();
    plain.symmetry = false;
    let without = check(
        &crate::algorithms::redlock::world(&plain).expect("builds"),
        &Options::default(),
    );
    assert!(reduced.symmetric && !full.symmetric && !without.symmetric);
    assert!(
        reduced.unique_states < full.unique_states,
        "{} states",
        reduced.unique_states
    );
    assert_eq!(full.unique_states, without.unique_states);
    assert_eq!(full.states, without.states);
    for (a, b) in full.props.iter().zip(&without.props) {
        assert_eq!((a.prop, a.verdict, &a.trace), (b.prop, b.verdict, &b.trace));
    }
    assert_eq!(world.symmetry, groups, "the world itself is left as it was");
}

/// With more than one thread the search merges a batch while the workers
/// expand the next (search.rs, `Ahead`): the states are numbered as one
/// thread numbers them, under symmetry or not, and a bound that stops the
/// merge ahead of the workers stops it where one thread stops.
#[test]
fn a_merge_ahead_of_the_workers_numbers_states_as_one_thread() {
    // Kleppmann's pause on three masters: 14,387 states under symmetry,
    // 131,729 without, in batches of 4,096 states a thread.
    let text = std::fs::read_to_string("specs/redlock-pause-ci.toml").expect("kept in specs/");
    let text =
        text.replacen("masters = 1\n", "masters = 3\n", 1)
            .replacen("[bounds]\n", "[bounds]\nsymmetry = true\n", 1);
    let sc = crate::catalog::parse(Path::new("specs/redlock-pause-ci.toml"), &text).expect("valid");
    let world = crate::algorithms::redlock::world(&sc).expect("builds");
    assert!(!world.symmetry.is_empty(), "interchangeable clients");
    let outline = |o: &Outcome<_>| {
        let props: Vec<_> = o.props.iter().map(|p| (p.prop, p.verdict, p.trace.clone())).collect();
        (o.unique_states, o.states, o.max_depth, o.stopped.clone(), props)
    };
    for no_symmetry in [false, true] {
        let whole = check(
            &world,
            &Options {
                no_symmetry,
                ..Options::default()
            },
        );
        assert!(whole.unique_states > 4 * super::expand::BATCH, "batches to merge ahead");
        for bound in [None, Some(whole.unique_states / 3)] {
            let run = |threads| {
                let opts = Options {
                    no_symmetry,
                    threads,
                    max_states: bound,
                    ..Options::default()
                };
                outline(&check(&world, &opts))
            };
            let one = run(1);
            assert_eq!(one.3.is_some(), bound.is_some(), "{:?}", one.3);
            for threads in [2, 3] {
                assert_eq!(
                    run(threads),
                    one,
                    "{threads} threads, no_symmetry {no_symmetry}, bound {bound:?}"
                );
            }
        }
    }
}
