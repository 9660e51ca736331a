//! locksmith walks the world's `stateright::Model` with its own BFS (it
//! needs the labelled graph). Stateright's own BFS checker must agree with
//! it on the same model: the same unique states, the same safety verdicts,
//! and shortest counterexamples of the same length.
//!
//! Lengths are compared one property at a time: while any other property
//! is still open, stateright 0.31's BFS replaces an `always` discovery with
//! each later violating state it meets (`checker/bfs.rs`, no `contains_key`
//! guard for `Always`), so with several properties its path need not be the
//! shortest. locksmith keeps the first, which is.

use crate::common::scenario;
use locksmith::algorithms::{dispatch, Job};
use locksmith::check::{check, Options};
use locksmith::properties::{Lock, Prop};
use locksmith::scenario::{Scenario, Verdict};
use locksmith::world::World;
use stateright::{Checker, Model};

struct Compare;

impl Job for Compare {
    type Output = ();
    fn run<A: Lock>(self, sc: &Scenario, world: World<A>) {
        let ours = check(&world, &Options::default());
        let theirs = world.clone().checker().spawn_bfs().join();
        assert!(theirs.is_done());
        let all_hold = Prop::SAFETY.iter().all(|p| ours.get(*p).verdict == Verdict::Holds);
        if all_hold {
            // Stateright explores everything only when nothing is found.
            assert_eq!(theirs.unique_state_count(), ours.unique_states, "{}", sc.name);
        }
        for (i, p) in Prop::SAFETY.into_iter().enumerate() {
            let mine = ours.get(p);
            assert_eq!(
                theirs.discovery(p.name()).is_some(),
                mine.verdict == Verdict::Violated,
                "{}: {}",
                sc.name,
                p.name()
            );
            let mut alone = world.clone();
            alone.properties = vec![world.properties[i].clone()];
            let found = alone.checker().spawn_bfs().join().discovery(p.name());
            if let (Some(path), Some(trace)) = (found, &mine.trace) {
                assert_eq!(
                    path.into_actions().len(),
                    trace.len(),
                    "{}: {} shortest length",
                    sc.name,
                    p.name()
                );
            }
        }
    }
}

#[test]
fn stateright_bfs_agrees_with_locksmith() {
    for name in [
        "redis-ttl-no-faults",
        "lock-table-expiry",
        "redis-ttl-gc-pause",
        "redis-fencing",
        "redis-setnx-crash",
    ] {
        dispatch(&scenario(name), Compare).expect("builds");
    }
}
