//! Steps with a deadline ([`Actor::within`]): a step that may wait while
//! time passes, up to a bound in the node's local ticks, and is urgent
//! from then on. A holder's work in its critical section (`[system] work`)
//! is one: it writes after any time from 0 to the bound. Each node counts
//! the ticks its pending deadline has waited (`Node::waited`); the count
//! follows the node's clock (drift moves it, a pause stops it, a crash
//! forgets it) and is forgotten once no step with a deadline is enabled.

use super::{Id, Program, World, WorldState};

impl<A: Program> World<A> {
    /// Whether node `id` has an enabled step with a deadline.
    pub(super) fn has_deadline(&self, s: &WorldState<A>, id: Id) -> bool {
        self.node_steps(s, id)
            .into_iter()
            .any(|st| self.actors[id].within(st).is_some())
    }

    /// After node `id` acted: a deadline it no longer has forgets the
    /// time waited (the holder wrote, or lost its lock).
    pub(super) fn settle_deadline(&self, s: &mut WorldState<A>, id: Id) {
        if s.nodes[id].waited > 0 && !self.has_deadline(s, id) {
            s.nodes[id].waited = 0;
        }
    }

    /// One tick of node `id`'s clock, `rate` local ticks: a running node's
    /// pending deadline counts them, up to its bound (a paused node does
    /// no work, so its count waits).
    pub(super) fn count_waited(&self, s: &mut WorldState<A>, id: Id, rate: u8) {
        if !s.nodes[id].is_up() {
            return;
        }
        let bound = self
            .node_steps(s, id)
            .into_iter()
            .filter_map(|st| self.actors[id].within(st))
            .max();
        let n = &mut s.nodes[id];
        n.waited = bound.map_or(0, |d| n.waited.saturating_add(rate).min(d));
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    use crate::world::{
        Action, Actor, Ctx, Describe, Faults, Id, Out, Pack, Renumber, Rewrite, Role, World, WorldState,
    };

    /// A worker (node 0) that starts working at once and is done after its
    /// `Finish` step, which may wait up to `WORK` ticks; a timer of 2 ticks
    /// makes time matter.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Worker;

    const WORK: u8 = 3;

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
    enum Step {
        Finish,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
    enum Never {}

    impl Describe for Worker {}

    impl Renumber for Worker {}

    impl Actor for Worker {
        /// Whether the work is done.
        type State = bool;
        type Msg = Never;
        type Timer = Never;
        type Watch = Never;
        type Step = Step;

        fn init(&self, _: &Ctx<'_, Self>, _: &mut Out<Self>) -> bool {
            false
        }

        fn steps(&self, _: &Ctx<'_, Self>, done: &bool, steps: &mut Vec<Step>) {
            if !done {
                steps.push(Step::Finish);
            }
        }

        fn within(&self, _: Step) -> Option<u8> {
            Some(WORK)
        }

        fn on_step(&self, _: &Ctx<'_, Self>, done: &mut bool, _: Step, _: &mut Out<Self>) {
            *done = true;
        }

        fn on_msg(&self, _: &Ctx<'_, Self>, _: &mut bool, _: Id, msg: Never, _: &mut Out<Self>) {
            match msg {}
        }
    }

    fn world(faults: Faults) -> World<Worker> {
        World {
            actors: vec![Worker],
            names: vec!["w".into()],
            roles: vec![Role::Client],
            faults,
            properties: Vec::new(),
            symmetry: Vec::new(),
        }
    }

    fn enabled(w: &World<Worker>, s: &WorldState<Worker>) -> Vec<Action<Worker>> {
        let mut a = Vec::new();
        w.enabled(s, &mut a);
        a
    }

    fn step(w: &World<Worker>, s: &WorldState<Worker>, a: Action<Worker>) -> WorldState<Worker> {
        assert!(w.is_enabled(s, &a), "{a:?} is not enabled in {s:?}");
        w.after_unranked(s, &a).expect("enabled")
    }

    const FINISH: Action<Worker> = Action::Step {
        node: 0,
        step: Step::Finish,
    };

    #[test]
    fn time_passes_while_the_step_waits_then_it_is_urgent() {
        let w = world(Faults::default());
        let mut s = w.init();
        for waited in 0..WORK {
            assert_eq!(s.nodes[0].waited, waited);
            assert_eq!(enabled(&w, &s), vec![Action::Tick, FINISH]);
            s = step(&w, &s, Action::Tick);
        }
        assert_eq!(s.nodes[0].waited, WORK);
        assert_eq!(enabled(&w, &s), vec![FINISH], "the deadline blocks time");
        let s = step(&w, &s, FINISH);
        assert_eq!(s.nodes[0].waited, 0, "done: the count is forgotten");
        assert!(enabled(&w, &s).is_empty(), "nothing timed: no tick");
    }

    #[test]
    fn a_pause_stops_the_count_and_a_crash_forgets_it() {
        let w = world(Faults {
            pauses: 1,
            max_pause: 2,
            crashes: 1,
            ..Faults::default()
        });
        let s = step(&w, &w.init(), Action::Tick);
        let s = step(&w, &s, Action::Pause { node: 0, ticks: 2 });
        let s = step(&w, &s, Action::Tick);
        assert_eq!(s.nodes[0].waited, 1, "a paused process does no work");
        let s = step(&w, &s, Action::Crash { node: 0 });
        assert_eq!(s.nodes[0].waited, 0);
    }

    #[test]
    fn a_fast_clock_counts_two_ticks() {
        let w = world(Faults {
            max_drift: 2,
            ..Faults::default()
        });
        let s = step(
            &w,
            &w.init(),
            Action::Drift {
                fast: vec![0],
                slow: vec![],
            },
        );
        assert_eq!(s.nodes[0].waited, 2);
    }
}
