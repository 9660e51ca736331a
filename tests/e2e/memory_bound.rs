//! The memory bound drops the queued states and the search goes on,
//! rebuilding each batch's states along their discoverers' paths: the
//! outcome is the one of a search that kept them, breadth-first, under
//! symmetry, on two threads, with liveness. (The bound itself is the
//! process's resident memory, which a test cannot reach on cue: these
//! runs drop the queue at a state count instead, `Options::drop_queue_at`,
//! through the same code.)

use locksmith::algorithms::{dispatch, Job};
use locksmith::check::{check, Options};
use locksmith::properties::Lock;
use locksmith::scenario::Scenario;
use locksmith::world::World;

use crate::common::scenario;

/// Every verdict with its counterexample's actions (as text), the counts,
/// and where the queue dropped its states.
struct Full(Options);

type Seen = (Vec<String>, usize, usize, usize, Option<usize>);

impl Job for Full {
    type Output = Seen;
    fn run<A: Lock>(self, _: &Scenario, world: World<A>) -> Seen {
        let o = check(&world, &self.0);
        let props = o
            .props
            .iter()
            .map(|p| format!("{:?} {:?} {:?}", p.prop, p.verdict, p.trace))
            .collect();
        (props, o.unique_states, o.states, o.max_depth, o.queue_dropped_at)
    }
}

#[test]
fn a_search_that_drops_its_queued_states_ends_as_one_that_kept_them() {
    for (name, threads, no_symmetry) in [
        ("redlock-no-fsync", 1, false),
        ("coordinator-standby-no-state", 2, true),
        ("etcd-partition", 1, false),
    ] {
        let sc = scenario(name);
        let kept = dispatch(
            &sc,
            Full(Options {
                threads,
                no_symmetry,
                ..Options::default()
            }),
        )
        .expect("builds");
        assert_eq!(kept.4, None, "{name}: nothing asked the queue to drop its states");
        let at = kept.1 / 3;
        let dropped = dispatch(
            &sc,
            Full(Options {
                threads,
                no_symmetry,
                drop_queue_at: Some(at),
                ..Options::default()
            }),
        )
        .expect("builds");
        assert!(
            dropped.4.is_some_and(|n| n >= at && n < kept.1),
            "{name}: the queue dropped its states at {:?}, asked at {at}",
            dropped.4
        );
        assert_eq!(dropped.0, kept.0, "{name}: verdicts and traces");
        assert_eq!(
            (dropped.1, dropped.2, dropped.3),
            (kept.1, kept.2, kept.3),
            "{name}: unique states, generated, depth"
        );
    }
}
