//! Liveness under symmetry reduction, exactly.
//!
//! The quotient graph cannot be checked as it stands: fairness names
//! actions, and the quotient renames nodes from state to state, so "the
//! same action" means different actions in different states (TLC refuses
//! liveness under symmetry for this reason). What the quotient does keep is
//! the shape of the full graph: every full edge projects to a quotient edge
//! and every quotient edge lifts from every state above its source. So
//! every strongly connected component of the full graph projects onto a
//! whole component of the quotient, and the full components above one
//! quotient component are renamings of each other.
//!
//! The pass therefore finds, on the quotient, the components a violating
//! loop could lie in (non-fault edges between states where some client
//! waits: a superset of every property's subgraph, in names that do not
//! matter), and lifts each one: a breadth-first search in the full graph,
//! in the names of one representative, over the states above the
//! component. The exact liveness pass then runs on each lift, with the
//! full graph's own fairness classes, weak and strong: a lift holds every
//! edge of its states (those leaving it go to a sink), so "enabled
//! somewhere in a component" means in the lift what it means in the full
//! graph, and the strongly fair decomposition (liveness.rs) applies as it
//! is. A lasso found there is a real lasso
//! of the full graph; a lift without one proves that no full component
//! above that quotient component is a fair violating loop, because each is
//! a renaming of one inside the lift. Stuck states are checked on the
//! quotient itself: "some client waits and only faults are enabled" does
//! not depend on names.

use std::collections::{BTreeSet, VecDeque};

use super::graph::{fingerprint, Edge, Facts, FingerprintMap, Graph, Parent, FAULT};
use super::liveness::{self, Lasso, Waiting};
use super::seen::Seen;
use crate::interrupt::Interrupt;
use crate::properties::Lock;
use crate::world::{identity, Action, World, WorldState};

/// One quotient component lifted into the full graph: `graph` numbers the
/// full states found (in the names of the component's first state) and
/// ends with one sink standing for everything outside the component.
pub struct Lift<A: Lock> {
    pub graph: Graph,
    pub states: Vec<WorldState<A>>,
    /// Each state's quotient state (its canonical form's number).
    pub proj: Vec<u32>,
}

/// Why liveness was not decided when Ctrl-C came during the lifts.
pub const INTERRUPTED: &str = "interrupted during the liveness pass; liveness verdicts are unknown";

/// Lifts every quotient component that could hold a violating loop, or
/// says why not: the lifts together would exceed `budget` full states, or
/// `interrupt` was raised (a lift can take as long as a search).
pub fn lifts<A: Lock>(
    world: &World<A>,
    g: &Graph,
    seen: &Seen,
    budget: usize,
    interrupt: &Interrupt,
) -> Result<Vec<Lift<A>>, String> {
    let n = g.facts.len() as u32;
    let waits = |s: u32| g.facts.wanting(s) != 0;
    let inside = |s: u32, e: &Edge| e.class != FAULT && waits(s) && waits(e.to);
    let mut out = Vec::new();
    let mut total = 0usize;
    for looping in liveness::looping(g, n, &waits, &inside) {
        let lift = lift(
            world,
            g,
            seen,
            &looping.members,
            looping.entry,
            budget - total,
            interrupt,
        )?;
        total += lift.states.len();
        out.push(lift);
    }
    Ok(out)
}

/// A lift's edge before the sink is numbered: from, the action's ordinal,
/// its fingerprint, whether its class is strongly fair and whether it is
/// random (`None` for a fault), and its target (`None`: outside the
/// component).
type Pending = (u32, u16, Option<(u64, bool, bool)>, Option<u32>);

/// The full states above `members` reachable from the representative of
/// `root` by non-fault actions that stay above `members`, with all their
/// edges (those leaving go to the sink, so fairness sees every enabled
/// action).
fn lift<A: Lock>(
    world: &World<A>,
    g: &Graph,
    seen: &Seen,
    members: &BTreeSet<u32>,
    root: u32,
    budget: usize,
    interrupt: &Interrupt,
) -> Result<Lift<A>, String> {
    let start = {
        let path = g.path_to(root);
        super::replay_state(world, &path)
    };
    let mut graph = Graph::default();
    let mut states: Vec<WorldState<A>> = Vec::new();
    let mut proj: Vec<u32> = vec![root];
    let mut index: FingerprintMap = FingerprintMap::default();
    let mut classes: FingerprintMap = FingerprintMap::default();
    let facts = |s: &WorldState<A>, q: u32| super::facts(world, s, g.facts.depth(q));
    index.insert(identity(&start), 0);
    graph.facts.push(facts(&start, root));
    graph.parent.push(Parent(0, 0));
    states.push(start);
    let mut queue = VecDeque::from([0u32]);
    let mut edges: Vec<Pending> = Vec::new();
    let mut actions: Vec<Action<A>> = Vec::new();
    while let Some(i) = queue.pop_front() {
        if interrupt.requested() {
            return Err(INTERRUPTED.to_string());
        }
        actions.clear();
        world.enabled(&states[i as usize], &mut actions);
        for (k, a) in actions.drain(..).enumerate() {
            let Some(t) = world.after(&states[i as usize], &a) else {
                continue;
            };
            if world.is_fault(&a) {
                edges.push((i, k as u16, None, None));
                continue;
            }
            let class = Some((fingerprint(&a), super::strongly_fair(&a), super::random(world, &a)));
            let raw = identity(&t);
            let to = match index.get(&raw) {
                Some(&to) => Some(to),
                None => {
                    let canon = world.canonical(t.clone()).0;
                    let q = seen
                        .get(&identity(&canon))
                        .expect("a complete search numbered every state");
                    members
                        .contains(&q)
                        .then(|| {
                            if states.len() >= budget {
                                return Err(format!(
                                    "liveness under symmetry lifts more than {budget} full states; \
                                     check without symmetry (--no-symmetry) or raise --max-states"
                                ));
                            }
                            let to = states.len() as u32;
                            index.insert(raw, to);
                            graph.facts.push(facts(&t, q));
                            graph.parent.push(Parent(0, 0));
                            states.push(t);
                            proj.push(q);
                            queue.push_back(to);
                            Ok(to)
                        })
                        .transpose()?
                }
            };
            edges.push((i, k as u16, class, to));
        }
    }
    let sink = states.len() as u32;
    graph.facts.push(Facts {
        wanting: 0,
        depth: u32::MAX,
    });
    graph.parent.push(Parent(0, 0));
    for (from, ordinal, class, to) in edges {
        let (class, strong, random) = match class {
            None => (FAULT, false, false),
            Some((fp, strong, random)) => {
                let next = classes.len() as u32;
                (*classes.get_or_insert(fp, next), strong, random)
            }
        };
        graph
            .raw
            .push((from, Edge::new(to.unwrap_or(sink), class, ordinal, strong, random)));
    }
    graph.seal();
    Ok(Lift { graph, states, proj })
}

/// The violating loop reached soonest over all lifts, with the lift it is
/// in. Stuck states are not looked for here (see the module comment).
pub fn find<A: Lock>(lifts: &[Lift<A>], who: Waiting) -> Option<(&Lift<A>, Lasso)> {
    lifts
        .iter()
        .filter_map(|l| liveness::find_loop(&l.graph, who).map(|lasso| (l, lasso)))
        .min_by_key(|(l, lasso)| l.graph.facts.depth(lasso.entry))
}
