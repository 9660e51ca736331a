//! Values that only grow are renumbered by rank (docs/design.md §2). Ghost
//! acquisition numbers, fencing counters and tokens, and the resource's
//! maxima are only ever compared, so only their order among the values
//! present in a state matters; renumbering them 1, 2, 3... in that order
//! keeps every comparison and makes a client that loops forever
//! (`acquisitions = 0`) revisit states instead of counting for ever.
//! Logical clocks ([`Seq::Clock`]) are incremented as well as compared, so
//! they are shifted down by the smallest present instead.

use std::cell::RefCell;

use super::{Program, Seq, World, WorldState};

thread_local! {
    /// The values of each sequence present in the state being renumbered.
    static PRESENT: RefCell<[Vec<u32>; 3]> = const { RefCell::new([Vec::new(), Vec::new(), Vec::new()]) };
}

impl<A: Program> World<A> {
    /// Rewrites every growing value in `s` to its rank among the values of
    /// its sequence present in `s` (zero, "none", stays zero). Whether it
    /// may have changed any node (it changes none where every sequence is
    /// already ranked and the least clock is 0).
    pub(super) fn renumber(&self, s: &mut WorldState<A>) -> bool {
        // Called for every successor, so it allocates nothing (the value
        // lists below are kept per thread and reused). First, without
        // collecting: the values of each sequence as a bit
        // set (below 64), and the least clock. A state whose values are
        // already 0, 1, 2... in each sequence (the usual case: a new value
        // is the next rank) needs no sorting and no rewriting.
        //
        // Per value, as few instructions as may be (it is most of the
        // walk): whether any is 64 or more is whether all of them or'd are;
        // below that, the bits are exact (above, the state is ranked by
        // sorting whatever its bits say), and a fourth set of bits takes
        // the clocks' place so that no index is checked.
        let mut least = u32::MAX;
        let mut seen = [1u64 | 1 << (s.ghost & 63), 1, 1 | 1 << (s.value & 63), 0];
        let mut ored = s.ghost | s.value;
        self.visit_numbers(s, &mut |seq, v| {
            if seq == Seq::Clock {
                least = least.min(*v)
            } else {
                ored |= *v;
                seen[seq as usize] |= 1 << (*v & 63);
            }
        });
        let shifted = self.shift_clocks(s, least);
        if ored < 64 && seen[..3].iter().all(|m| m & (m + 1) == 0) {
            return shifted;
        }
        PRESENT.with_borrow_mut(|present| {
            present[0].clear();
            present[0].extend([0, s.ghost]);
            present[1].clear();
            present[1].push(0);
            present[2].clear();
            present[2].extend([0, s.value]);
            self.visit_numbers(s, &mut |seq, v| {
                if seq != Seq::Clock {
                    present[seq as usize].push(*v)
                }
            });
            for values in present.iter_mut() {
                values.sort_unstable();
                values.dedup();
            }
            // Every value visited is in `present`, so the search finds it.
            let rank = |seq: Seq, v: &mut u32| *v = present[seq as usize].binary_search(v).unwrap_or(0) as u32;
            rank(Seq::Ghost, &mut s.ghost);
            rank(Seq::Value, &mut s.value);
            self.visit_numbers(s, &mut |seq, v| {
                if seq != Seq::Clock {
                    rank(seq, v)
                }
            });
        });
        true
    }

    /// `s` renumbered as every state the checker stores is.
    pub fn renumbered(&self, s: &WorldState<A>) -> WorldState<A> {
        let mut t = s.clone();
        self.renumber(&mut t);
        t
    }

    /// Shifts every [`Seq::Clock`] value in `s` down by `least`, the
    /// smallest one present (`u32::MAX` for none), so the smallest becomes 0: every comparison and every
    /// increment keeps its outcome, and clocks that run forever revisit
    /// states.
    /// Whether it shifted any.
    fn shift_clocks(&self, s: &mut WorldState<A>, least: u32) -> bool {
        if least == 0 || least == u32::MAX {
            return false;
        }
        self.visit_numbers(s, &mut |seq, v| {
            if seq == Seq::Clock {
                *v -= least
            }
        });
        true
    }

    fn visit_numbers(&self, s: &mut WorldState<A>, visit: &mut impl FnMut(Seq, &mut u32)) {
        // A program a node, so the zip walks every node.
        debug_assert_eq!(s.nodes.len(), self.actors.len());
        for (n, actor) in s.nodes.iter_mut().zip(&self.actors) {
            actor.numbers(&mut n.state, visit);
        }
        for e in s.net.iter_mut() {
            self.actors[e.dst].numbers_msg(&mut e.msg, visit);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::algorithms::resource::Resource;
    use crate::algorithms::single_redis::{self, Msg, State, Step};
    use crate::algorithms::{dispatch, Job};
    use crate::properties::Lock;
    use crate::scenario::{self, bundled_names, Scenario};
    use crate::world::state::tests::first_states;
    use crate::world::{Action, Seq, World, WorldState};

    fn world(system: &str, faults: &str) -> World<single_redis::Node> {
        let text = format!(
            "summary = \"s\"\nalgorithm = \"single-redis\"\n[system]\n{system}\n[faults]\nmax_delay = 1\n{faults}\n[bounds]\nacquisitions = 0\n"
        );
        let sc = scenario::parse(std::path::Path::new("ranks.toml"), &text).expect("a valid scenario");
        single_redis::world(&sc).expect("builds")
    }

    /// Spreads every growing value of `s` but clocks (zero stays zero)
    /// and checks that renumbering gives `s` back: the order is kept, so
    /// the ranks are.
    fn spread_and_ranked<A: Lock>(world: &World<A>, s: &WorldState<A>, spread: impl Fn(u32) -> u32) -> bool {
        let mut t = s.clone();
        let mut grow = |seq: Seq, v: &mut u32| {
            if seq != Seq::Clock && *v != 0 {
                *v = spread(*v)
            }
        };
        grow(Seq::Ghost, &mut t.ghost);
        grow(Seq::Value, &mut t.value);
        world.visit_numbers(&mut t, &mut grow);
        let changed = t != *s;
        world.renumber(&mut t);
        assert_eq!(t, *s, "renumbering undoes a spread that keeps the order");
        changed
    }

    /// Walks each bundled scenario's first states and spreads their values
    /// apart (gaps in every sequence) and up by 64 (past the bits the quick
    /// test of a ranked state reads, whose low six bits then look ranked):
    /// renumbering gives each state back.
    struct Spread;

    impl Job for Spread {
        type Output = usize;
        fn run<A: Lock>(self, _: &Scenario, world: World<A>) -> usize {
            first_states(&world, 400)
                .iter()
                .filter(|s| spread_and_ranked(&world, s, |v| 2 * v + 1) | spread_and_ranked(&world, s, |v| v + 64))
                .count()
        }
    }

    #[test]
    fn values_spread_apart_or_past_63_are_ranked_again() {
        let spread: usize = bundled_names()
            .map(|name| dispatch(&crate::catalog::open(name).expect("bundled"), Spread).expect("builds"))
            .sum();
        assert!(spread > 1000, "states with values to spread: {spread}");
    }

    /// A client looping forever draws ghost numbers for ever, but they stay
    /// ranks: at most the two the state can hold at once.
    #[test]
    fn a_forgotten_number_leaves_no_gap() {
        let world = world("clients = 1", "");
        let mut s = world.init();
        for _ in 0..60 {
            let mut actions = Vec::new();
            world.enabled(&s, &mut actions);
            let a = actions
                .iter()
                .find(|a| !matches!(a, Action::Tick))
                .unwrap_or(&actions[0])
                .clone();
            s = world.after(&s, &a).expect("changes the state");
            assert!(s.ghost <= 2, "ghost numbers stay ranks: {}", s.ghost);
        }
    }

    /// A fencing counter that a restart without persistence can reset is
    /// compared with older tokens by its distance to them (the next tokens
    /// up to the resource's highest are rejected), so its tokens are not
    /// renumbered.
    #[test]
    fn a_counter_behind_keeps_its_distance() {
        let world = world(
            "clients = 1\nfencing = true\nrestart = \"empty\"",
            "crashes = 1\ntargets = \"servers\"",
        );
        let mut s = world.init();
        let resource = 2;
        s.nodes[resource].state = State::Resource(Resource {
            max_token: 2,
            max_ghost: 0,
        });
        let acquire = Action::Step {
            node: 1,
            step: Step::Acquire,
        };
        let s = world.after(&s, &acquire).expect("c1 asks");
        let deliver = Action::Deliver {
            src: 1,
            dst: 0,
            msg: Msg::SetNxPx { value: 1 },
        };
        let s = world.after(&s, &deliver).expect("the server grants");
        assert_eq!(
            s.nodes[resource].state,
            State::Resource(Resource {
                max_token: 2,
                max_ghost: 0
            })
        );
        let tokens: Vec<Msg> = s.net.iter().map(|e| e.msg).collect();
        assert_eq!(
            tokens,
            vec![Msg::Granted {
                value: 1,
                token: 1,
                ghost: 1
            }],
            "token 1 is still below 2"
        );
    }
}
