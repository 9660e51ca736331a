//! Random fault schedules never break what a safe variant claims: seeded
//! random walks (ChaCha, one u64 seed each) over the world's actions, with
//! more acquisitions per client than the exhaustive checks use, assert
//! every safety property a scenario expects to hold, in every state.

use crate::common::scenario;
use locksmith::algorithms::{dispatch, Job};
use locksmith::properties::{safe, Lock, Prop};
use locksmith::scenario::{Scenario, Verdict};
use locksmith::world::World;
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Walk {
    seed: u64,
    steps: usize,
}

impl Job for Walk {
    /// The first broken claim, as (property, step, actions so far).
    type Output = Option<(Prop, usize, Vec<String>)>;

    fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> Self::Output {
        let claims: Vec<Prop> = Prop::SAFETY
            .into_iter()
            .filter(|p| sc.expected(*p) == Some(Verdict::Holds))
            .collect();
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let mut s = world.init();
        let mut done = Vec::new();
        let mut enabled = Vec::new();
        for step in 0..self.steps {
            enabled.clear();
            world.enabled(&s, &mut enabled);
            let next: Vec<_> = enabled
                .drain(..)
                .filter_map(|a| world.after(&s, &a).map(|t| (a, t)))
                .collect();
            if next.is_empty() {
                break;
            }
            let pick = rng.random_range(0..next.len());
            let (a, t) = next.into_iter().nth(pick)?;
            done.push(world.describe(&a));
            s = t;
            if let Some(p) = claims.iter().find(|p| !safe(**p, &world, &s)) {
                return Some((*p, step, done));
            }
        }
        None
    }
}

/// Scenarios that claim some safety property holds.
const SAFE_CLAIMS: &[&str] = &[
    "redis-ttl-no-faults",
    "redis-fencing",
    "redis-cas-release",
    "redis-watchdog-short-pause",
    "redis-setnx-crash",
    "redis-setnx-expire-crash",
    "lock-table-crash",
    "lock-table-expiry",
    "redlock-fsync",
    "redlock-delayed-restart",
    "redlock-pause-during-acquire",
    "redlock-gc-pause-fencing",
    "replica-failover-wait",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn safe_variants_stay_safe_under_random_faults(seed in any::<u64>(), which in 0..SAFE_CLAIMS.len()) {
        let mut sc = scenario(SAFE_CLAIMS[which]);
        sc.acquisitions = 3;
        let broken = dispatch(&sc, Walk { seed, steps: 400 }).expect("builds");
        prop_assert!(broken.is_none(), "{} with seed {seed}: {:?}", sc.name, broken);
    }
}

/// The walk is a real test: on an unsafe variant it does find violations.
#[test]
fn random_walks_do_find_violations_where_they_exist() {
    let mut sc = scenario("redis-ttl-gc-pause");
    sc.expect = vec![(Prop::MutualExclusion, Verdict::Holds)];
    sc.faults.pauses = 3;
    let found = (0..200).any(|seed| dispatch(&sc, Walk { seed, steps: 400 }).expect("builds").is_some());
    assert!(found, "200 random walks never saw two holders under repeated pauses");
}
