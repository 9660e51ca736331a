//! A check's outcome without the family's types, for callers that are not
//! generic over the family: the end-to-end tests. A caller that dispatches
//! a job of its own instantiates the whole checker again, for every
//! family, in its own crate (release builds share no generic code between
//! crates); the end-to-end tests did, and that was two thirds of their
//! build (205 s of it where 66 s remained without).

use super::{check, resume, Options, Outcome};
use crate::algorithms::{dispatch, Job};
use crate::properties::{Lock, Prop};
use crate::scenario::{Scenario, ScenarioError, Verdict};
use crate::world::{Program, World};

/// What a check found, its counterexamples as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub props: Vec<PropSummary>,
    pub unique_states: usize,
    /// Successor states computed, repeats included.
    pub states: usize,
    pub max_depth: usize,
    /// Where the search dropped its queued states (the memory bound).
    pub queue_dropped_at: Option<usize>,
    /// Where it moved to disk.
    pub spilled_at: Vec<usize>,
}

/// One property's verdict and counterexample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropSummary {
    pub prop: Prop,
    pub verdict: Verdict,
    /// The counterexample's steps.
    pub steps: Option<usize>,
    /// The counterexample as `{:?}` prints it (`None` for no trace).
    pub trace: String,
}

impl<A: Program> From<&Outcome<A>> for Summary {
    fn from(o: &Outcome<A>) -> Summary {
        Summary {
            props: o
                .props
                .iter()
                .map(|p| PropSummary {
                    prop: p.prop,
                    verdict: p.verdict,
                    steps: p.trace.as_ref().map(|t| t.len()),
                    trace: format!("{:?}", p.trace),
                })
                .collect(),
            unique_states: o.unique_states,
            states: o.states,
            max_depth: o.max_depth,
            queue_dropped_at: o.queue_dropped_at,
            spilled_at: o.spilled_at.clone(),
        }
    }
}

/// [`check`] of scenario `sc`; an error where its world does not build.
pub fn check_scenario(sc: &Scenario, opts: &Options) -> Result<Summary, ScenarioError> {
    struct Check<'a>(&'a Options);
    impl Job for Check<'_> {
        type Output = Summary;
        fn run<A: Lock>(self, _: &Scenario, world: World<A>) -> Summary {
            Summary::from(&check(&world, self.0))
        }
    }
    dispatch(sc, Check(opts))
}

/// [`resume`] of scenario `sc` from the checkpoint `opts` names.
pub fn resume_scenario(sc: &Scenario, opts: &Options) -> Result<Summary, String> {
    struct Resume<'a>(&'a Options);
    impl Job for Resume<'_> {
        type Output = Result<Summary, String>;
        fn run<A: Lock>(self, _: &Scenario, world: World<A>) -> Result<Summary, String> {
            resume(&world, self.0).map(|o| Summary::from(&o))
        }
    }
    dispatch(sc, Resume(opts)).map_err(|e| e.to_string())?
}
