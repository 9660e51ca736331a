//! `[system] work = N` (docs/design.md §3's critical section takes time): a
//! holder works any number of ticks from 0 to N before it writes, in every
//! family. The scenarios in `tests/work/` each show what the work alone
//! makes reachable, with no fault but the one it names: a TTL, a session
//! timeout or a regeneration timeout shorter than the work.

use std::collections::BTreeSet;

use crate::common::{meets_expectations, run, toml_files};
use locksmith::algorithms::NAMES;
use locksmith::catalog::load;
use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::{Scenario, Verdict};

fn work_scenarios() -> Vec<Scenario> {
    toml_files("tests/work")
        .iter()
        .map(|p| load(p).expect("a valid scenario"))
        .collect()
}

/// The scenario with `[system] work` set to `work`.
fn with_work(sc: &Scenario, work: u8) -> Scenario {
    let mut sc = sc.clone();
    sc.system.insert("work".into(), toml::Value::Integer(work.into()));
    sc
}

/// Every family has a work scenario, and each meets its expectations.
#[test]
fn every_work_scenario_meets_its_expectations() {
    let scenarios = work_scenarios();
    let families: BTreeSet<&str> = scenarios.iter().map(|sc| sc.algorithm.as_str()).collect();
    let all: BTreeSet<&str> = NAMES.iter().copied().collect();
    assert_eq!(families, all, "one work scenario per family at least");
    for sc in &scenarios {
        meets_expectations(sc);
    }
}

/// The work is what breaks each violated one: with `work = 0` (the holder
/// writes at once) the same scenario keeps mutual exclusion. So the TTL
/// that "covers the critical section" (Kleppmann's and antirez's seed of
/// the whole debate) is a normal run here, not a pause.
#[test]
fn without_the_work_the_violations_go() {
    let mut seen = 0;
    for sc in work_scenarios() {
        if sc.expected(Prop::MutualExclusion) != Some(Verdict::Violated) {
            continue;
        }
        let r = run(&with_work(&sc, 0), Options::default());
        assert_eq!(
            r.verdict(Prop::MutualExclusion),
            Verdict::Holds,
            "{} with work = 0",
            sc.name
        );
        seen += 1;
    }
    assert!(seen >= 6, "only {seen} violated work scenarios");
}

/// A holder that cannot work longer than the TTL allows stays safe: the
/// same single-Redis scenario with one tick of work.
#[test]
fn work_within_the_ttl_is_safe() {
    let sc = work_scenarios()
        .into_iter()
        .find(|sc| sc.name == "redis-ttl-shorter-than-work")
        .expect("the scenario");
    let r = run(&with_work(&sc, 1), Options::default());
    assert_eq!(r.verdict(Prop::MutualExclusion), Verdict::Holds);
}
