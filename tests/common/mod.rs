//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use locksmith::algorithms::{dispatch, Job};
use locksmith::check::{check, Options, Outcome};
use locksmith::properties::{Lock, Prop};
use locksmith::scenario::{self, Scenario, Verdict};
use locksmith::world::World;

/// A bundled scenario by name.
pub fn scenario(name: &str) -> Scenario {
    scenario::load(&scenario::find(name).expect("bundled scenario")).expect("valid scenario")
}

/// Verdicts, trace lengths and counts of one check, without the types.
#[derive(Debug, Clone, PartialEq)]
pub struct Result {
    pub verdicts: Vec<(Prop, Verdict, Option<usize>)>,
    pub unique_states: usize,
    pub max_depth: usize,
}

impl Result {
    pub fn verdict(&self, p: Prop) -> Verdict {
        self.verdicts
            .iter()
            .find(|v| v.0 == p)
            .map(|v| v.1)
            .expect("every property is checked")
    }
    pub fn steps(&self, p: Prop) -> Option<usize> {
        self.verdicts.iter().find(|v| v.0 == p).and_then(|v| v.2)
    }
}

struct Run(Options);

impl Job for Run {
    type Output = Result;
    fn run<A: Lock>(self, _: &Scenario, world: World<A>) -> Result {
        summarise(&check(&world, &self.0))
    }
}

pub fn summarise<A: locksmith::world::Actor>(o: &Outcome<A>) -> Result {
    Result {
        verdicts: o
            .props
            .iter()
            .map(|p| (p.prop, p.verdict, p.trace.as_ref().map(|t| t.len())))
            .collect(),
        unique_states: o.unique_states,
        max_depth: o.max_depth,
    }
}

pub fn run(sc: &Scenario, opts: Options) -> Result {
    dispatch(sc, Run(opts)).expect("the scenario builds")
}
