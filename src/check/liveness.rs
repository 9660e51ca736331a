//! Liveness as TLC checks it (docs/design.md §5): a violation is a reachable
//! lasso whose loop has no fault, is fair, and in which a running client
//! wants the lock and is never granted it. Stateright's `eventually` only
//! looks at acyclic paths, so this is a pass over the whole state graph:
//! strongly connected components of the "still waiting" subgraph, kept
//! when they hold a fair cycle.
//!
//! Three kinds of fairness.
//! * Every non-fault action is *weakly* fair in its own class: a fair run
//!   does not keep a class enabled forever without taking it.
//! * A tick (an edge marked [`Edge::strong`]) is *strongly* fair as well: a
//!   fair run does not keep returning to states where time may pass
//!   without letting it pass (TLC's `SF_vars(Tick)`; README, "Time is
//!   strongly fair").
//! * An outcome of a random choice (an edge marked [`Edge::random`]) is
//!   fair *per state* (Pnueli's extreme fairness): a fair run that visits a
//!   state infinitely often takes each random outcome from that state
//!   infinitely often. That is what "with probability one" means for a
//!   finite system whose random choices have fixed positive probabilities
//!   and whose other choices are the adversary's (Pnueli 1983; Vardi 1985):
//!   a livelock that needs two clients to draw the same back-off as each
//!   other every round is not reported, as it has probability zero
//!   (`specs/redlock-backoff-random.toml`). Strong fairness per class,
//!   which TLC can state (`SF_vars(Backoff(c, d))`), allows it: every
//!   outcome is drawn infinitely often there, just never the one that
//!   differs from the other client's.
//!
//! The argument (Emerson and Lei's decomposition for Streett conditions,
//! as TLC checks `SF`). An infinite run that stays in the subgraph ends
//! in one strongly connected component `C`: the states it visits
//! infinitely often and the edges it takes infinitely often form a
//! strongly connected part of `C`. Call a component fair when
//!
//! * (weak) every class enabled in *all* its states is taken by an edge
//!   inside it,
//! * (strong) every strong class enabled in *some* of its states is taken
//!   by an edge inside it, and
//! * (per state) every random outcome from each of its states is an edge
//!   inside it.
//!
//! If `C` is fair, the cycle through every state and edge of `C` is a
//! fair run: a class it keeps enabled throughout is enabled in all of
//! `C`, a strong class it keeps enabled now and then is enabled somewhere
//! in `C`, each random outcome of a state it visits is an edge of `C`, and
//! the cycle takes every edge of `C`. If `C` fails the weak condition, no
//! cycle inside `C` is fair: such a cycle also has the class enabled
//! throughout and never takes it. If `C` fails the strong condition for a
//! class `k`, a fair cycle inside `C` never visits a state where `k` is
//! enabled (it would have to take `k`, and no edge of `C` does); if it
//! fails the per-state condition at a state `s`, a fair cycle never visits
//! `s` (it would have to take an outcome that leaves `C`). So remove those
//! states, split the rest into its components and decide each the same
//! way. Every round removes at least one state, so the recursion ends, and
//! what it keeps are exactly the parts of `C` that hold a fair cycle. With
//! no strong or random edge this is the plain weak-fairness test (one look
//! per component).

use std::collections::{BTreeSet, VecDeque};

use super::graph::{Class, Edge, Graph, FAULT};
use crate::properties::acquired;

/// A lasso: the state where the loop starts and the loop's edges as
/// (from, edge). An empty loop means the run is stuck in that state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasso {
    pub entry: u32,
    pub cycle: Vec<(u32, Edge)>,
}

/// Whom the property is about: any waiting client (deadlock freedom) or
/// each client on its own (starvation freedom).
#[derive(Clone, Copy, Debug)]
pub enum Waiting {
    Anyone,
    Client(u32),
}

/// Finds the lasso whose loop is reached soonest from the initial state,
/// or `None` when the property holds. `g` must be sealed.
pub fn find(g: &Graph, who: Waiting) -> Option<Lasso> {
    let depth = |l: &Lasso| g.facts[l.entry as usize].depth;
    match (stuck(g, who), find_loop(g, who)) {
        (Some(a), Some(b)) => Some(if depth(&b) < depth(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// Whether state `s` waits for the lock, as `who` means it.
fn waits(g: &Graph, who: Waiting, s: u32) -> bool {
    let f = g.facts[s as usize];
    match who {
        Waiting::Anyone => f.wanting != 0,
        Waiting::Client(c) => f.wanting & (1 << c) != 0,
    }
}

/// The shallowest stuck state: waiting, and no fair action can change
/// anything (an empty loop).
pub fn stuck(g: &Graph, who: Waiting) -> Option<Lasso> {
    (0..g.facts.len() as u32)
        .filter(|&s| waits(g, who, s) && g.out(s).iter().all(|e| e.class == FAULT))
        .min_by_key(|&s| (g.facts[s as usize].depth, s))
        .map(|entry| Lasso {
            entry,
            cycle: Vec::new(),
        })
}

/// The fair waiting loop reached soonest, stuck states aside.
pub fn find_loop(g: &Graph, who: Waiting) -> Option<Lasso> {
    let n = g.facts.len() as u32;
    // An edge stays inside the subgraph when it is no fault, both ends
    // wait, and nobody (the client, for starvation) is granted the lock.
    let inside = |s: u32, e: &Edge| {
        if e.class == FAULT || !waits(g, who, s) || !waits(g, who, e.to) {
            return false;
        }
        let (a, b) = (g.facts[s as usize], g.facts[e.to as usize]);
        let granted = acquired(a.wanting, b.wanting);
        match who {
            Waiting::Anyone => granted == 0,
            Waiting::Client(c) => granted & (1 << c) == 0,
        }
    };
    let mut best: Option<Lasso> = None;
    let better = |best: &Option<Lasso>, s: u32| {
        best.as_ref()
            .is_none_or(|b| g.facts[s as usize].depth < g.facts[b.entry as usize].depth)
    };
    for candidate in looping(g, n, &inside) {
        if !better(&best, candidate.entry) {
            continue;
        }
        for Looping { members, entry, .. } in fair_parts(g, candidate, &inside) {
            if !better(&best, entry) {
                continue;
            }
            let internal = |s: u32, e: &Edge| inside(s, e) && members.contains(&e.to);
            best = Some(Lasso {
                entry,
                cycle: fair_cycle(g, entry, &members, &internal),
            });
        }
    }
    best
}

/// The parts of a component that hold a fair cycle (the decomposition in
/// the module comment), each a component of the subgraph in its own right.
fn fair_parts(g: &Graph, component: Looping, inside: &impl Fn(u32, &Edge) -> bool) -> Vec<Looping> {
    let mut fair = Vec::new();
    let mut work = vec![component];
    while let Some(Looping { scc, members, entry }) = work.pop() {
        let internal = |s: u32, e: &Edge| inside(s, e) && members.contains(&e.to);
        if !weakly_fair(g, &scc, &internal) {
            continue;
        }
        let taken: BTreeSet<Class> = scc
            .iter()
            .flat_map(|&s| {
                g.out(s)
                    .iter()
                    .filter(move |e| e.strong && internal(s, e))
                    .map(|e| e.class)
            })
            .collect();
        // A strong class enabled here and never taken in the part; or an
        // outcome of a random choice from here that leaves the part.
        let refused = |s: u32| {
            g.out(s)
                .iter()
                .any(|e| (e.strong && !taken.contains(&e.class)) || (e.random && !internal(s, e)))
        };
        let mut keep: Vec<u32> = scc.iter().copied().filter(|&s| !refused(s)).collect();
        if keep.len() == scc.len() {
            fair.push(Looping { scc, members, entry });
            continue;
        }
        keep.sort_unstable();
        let kept: BTreeSet<u32> = keep.iter().copied().collect();
        let sub = |s: u32, e: &Edge| internal(s, e) && kept.contains(&e.to);
        // Pushed in reverse so that parts are decided in discovery order.
        let mut parts: Vec<Looping> = components_in(g, &keep, &sub)
            .into_iter()
            .filter_map(|scc| with_loop(g, scc, &sub))
            .collect();
        parts.reverse();
        work.extend(parts);
    }
    fair
}

/// A strongly connected component of a subgraph with an edge inside it
/// (a loop can stay in it), and its state nearest the initial state.
pub(super) struct Looping {
    pub scc: Vec<u32>,
    pub members: BTreeSet<u32>,
    pub entry: u32,
}

/// The components of the subgraph `inside` that hold a loop. Most
/// components are single states without a self-loop, skipped before any
/// set is built.
pub(super) fn looping<'g>(
    g: &'g Graph,
    n: u32,
    inside: &'g impl Fn(u32, &Edge) -> bool,
) -> impl Iterator<Item = Looping> + 'g {
    let all: Vec<u32> = (0..n).collect();
    components_in(g, &all, inside)
        .into_iter()
        .filter_map(move |scc| with_loop(g, scc, inside))
}

/// `scc` as a [`Looping`], if a loop can stay in it.
fn with_loop(g: &Graph, scc: Vec<u32>, inside: &impl Fn(u32, &Edge) -> bool) -> Option<Looping> {
    if let [s] = scc[..] {
        if !g.out(s).iter().any(|e| e.to == s && inside(s, e)) {
            return None;
        }
    }
    let members: BTreeSet<u32> = scc.iter().copied().collect();
    let has_edge = scc
        .iter()
        .any(|&s| g.out(s).iter().any(|e| inside(s, e) && members.contains(&e.to)));
    let entry = *scc.iter().min_by_key(|&&s| (g.facts[s as usize].depth, s))?;
    has_edge.then_some(Looping { scc, members, entry })
}

/// Fair classes enabled in state `s`.
fn enabled(g: &Graph, s: u32) -> BTreeSet<Class> {
    g.out(s).iter().map(|e| e.class).filter(|c| *c != FAULT).collect()
}

/// Whether every class enabled throughout `scc` is taken inside it.
fn weakly_fair(g: &Graph, scc: &[u32], internal: &impl Fn(u32, &Edge) -> bool) -> bool {
    let mut always = enabled(g, scc[0]);
    for &s in &scc[1..] {
        let here = enabled(g, s);
        always.retain(|c| here.contains(c));
    }
    let taken: BTreeSet<Class> = scc
        .iter()
        .flat_map(|&s| g.out(s).iter().filter(move |e| internal(s, e)).map(|e| e.class))
        .collect();
    always.iter().all(|c| taken.contains(c))
}

/// Strong classes enabled in state `s`.
fn enabled_strong(g: &Graph, s: u32) -> impl Iterator<Item = Class> + '_ {
    g.out(s).iter().filter(|e| e.strong).map(|e| e.class)
}

/// A fair cycle through `entry` inside a fair part: start with the
/// shortest cycle, then, while some class is enabled in every state of the
/// cycle and never taken, add a detour that takes it or visits a state
/// where it is disabled; and while some strong class is enabled in a state
/// of the cycle and never taken, add a detour that takes it. Both exist
/// because the part is fair, and each detour takes a class for good or
/// shrinks the set enabled throughout, so this ends.
fn fair_cycle(
    g: &Graph,
    entry: u32,
    members: &BTreeSet<u32>,
    internal: &impl Fn(u32, &Edge) -> bool,
) -> Vec<(u32, Edge)> {
    let mut cycle = detour(g, &[entry], members, internal, |s, e| e.is_none() && s == entry).1;
    loop {
        let states: Vec<u32> = cycle.iter().map(|(s, _)| *s).collect();
        let mut always = enabled(g, states[0]);
        for &s in &states[1..] {
            let here = enabled(g, s);
            always.retain(|c| here.contains(c));
        }
        let taken: BTreeSet<Class> = cycle.iter().map(|(_, e)| e.class).collect();
        let extra = if let Some(&missing) = always.iter().find(|c| !taken.contains(c)) {
            detour(g, &states, members, internal, |s, e| {
                e.is_some_and(|e| e.class == missing) || !enabled(g, s).contains(&missing)
            })
        } else if let Some(missing) = states
            .iter()
            .flat_map(|&s| enabled_strong(g, s))
            .find(|c| !taken.contains(c))
        {
            detour(g, &states, members, internal, |_, e| {
                e.is_some_and(|e| e.strong && e.class == missing)
            })
        } else if let Some((from, missing)) = states.iter().find_map(|&s| {
            g.out(s)
                .iter()
                .find(|e| e.random && !cycle.iter().any(|(t, f)| *t == s && f.ordinal == e.ordinal))
                .map(|e| (s, *e))
        }) {
            detour(g, &states, members, internal, |s, e| {
                s == from && e.is_some_and(|e| e.ordinal == missing.ordinal)
            })
        } else {
            return cycle;
        };
        let (origin, extra) = extra;
        let at = states.iter().position(|&s| s == origin).unwrap_or(0);
        cycle.splice(at..at, extra);
    }
}

/// A shortest walk inside the component from one of `sources` (the
/// states of the cycle built so far, in its order) back to the same state,
/// that takes an edge or lands on a state satisfying `goal`: breadth-first
/// from all sources at once to the goal, then home to the source it
/// started from. Returns that source and the walk (empty when the goal
/// cannot be reached). Starting from the nearest state of the cycle, not
/// always from its entry, keeps each detour local and the loop short.
fn detour(
    g: &Graph,
    sources: &[u32],
    members: &BTreeSet<u32>,
    internal: &impl Fn(u32, &Edge) -> bool,
    goal: impl Fn(u32, Option<&Edge>) -> bool,
) -> (u32, Vec<(u32, Edge)>) {
    // Phase 1: from the sources, the first edge that is a goal edge or
    // lands on a goal state.
    let mut prev: std::collections::HashMap<u32, (u32, Edge)> = Default::default();
    let mut queue: VecDeque<u32> = VecDeque::new();
    let mut seen = BTreeSet::new();
    for &s in sources {
        if seen.insert(s) {
            queue.push_back(s);
        }
    }
    let mut reached = None;
    'bfs: while let Some(s) = queue.pop_front() {
        for e in g.out(s).iter().filter(|e| internal(s, e)) {
            if goal(s, Some(e)) || goal(e.to, None) {
                reached = Some((s, *e));
                break 'bfs;
            }
            if seen.insert(e.to) {
                prev.insert(e.to, (s, *e));
                queue.push_back(e.to);
            }
        }
    }
    let Some((last_from, last_edge)) = reached else {
        return (sources[0], Vec::new());
    };
    let mut walk = vec![(last_from, last_edge)];
    let mut at = last_from;
    while let Some(&(p, e)) = prev.get(&at) {
        walk.push((p, e));
        at = p;
    }
    let origin = at;
    walk.reverse();
    debug_assert!(members.contains(&last_edge.to));
    // Phase 2: home to the origin, shortest.
    let mut at = last_edge.to;
    if at != origin {
        let mut prev: std::collections::HashMap<u32, (u32, Edge)> = Default::default();
        let mut queue = VecDeque::from([at]);
        let mut seen = BTreeSet::from([at]);
        'home: while let Some(s) = queue.pop_front() {
            for e in g.out(s).iter().filter(|e| internal(s, e)) {
                if seen.insert(e.to) {
                    prev.insert(e.to, (s, *e));
                    if e.to == origin {
                        break 'home;
                    }
                    queue.push_back(e.to);
                }
            }
        }
        let mut back = Vec::new();
        at = origin;
        while at != last_edge.to {
            let (p, e) = prev[&at];
            back.push((p, e));
            at = p;
        }
        back.reverse();
        walk.extend(back);
    }
    (origin, walk)
}

/// Tarjan's strongly connected components of the subgraph on `nodes`
/// (edges `inside` that land on one of them), iteratively (state graphs
/// are deep). Each component lists its states. `nodes` is sorted.
fn components_in(g: &Graph, nodes: &[u32], inside: &impl Fn(u32, &Edge) -> bool) -> Vec<Vec<u32>> {
    const NONE: u32 = u32::MAX;
    debug_assert!(nodes.is_sorted());
    // Slot of a state among `nodes`: the state itself when `nodes` is the
    // whole graph, else its position.
    let whole = nodes.last().is_none_or(|&l| l as usize + 1 == nodes.len());
    let slot = |s: u32| -> Option<usize> {
        if whole {
            ((s as usize) < nodes.len()).then_some(s as usize)
        } else {
            nodes.binary_search(&s).ok()
        }
    };
    let k = nodes.len();
    let mut index = vec![NONE; k];
    let mut low = vec![0u32; k];
    let mut on_stack = vec![false; k];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 0u32;
    for (r, &root) in nodes.iter().enumerate() {
        if index[r] != NONE {
            continue;
        }
        // Frames: (state, its slot, position in its edge list).
        let mut frames = vec![(root, r, 0usize)];
        index[r] = next;
        low[r] = next;
        next += 1;
        stack.push((root, r));
        on_stack[r] = true;
        while let Some(&mut (s, i, ref mut pos)) = frames.last_mut() {
            let edges = g.out(s);
            if let Some(e) = edges.get(*pos) {
                *pos += 1;
                if !inside(s, e) {
                    continue;
                }
                let t = e.to;
                let Some(j) = slot(t) else { continue };
                if index[j] == NONE {
                    index[j] = next;
                    low[j] = next;
                    next += 1;
                    stack.push((t, j));
                    on_stack[j] = true;
                    frames.push((t, j, 0));
                } else if on_stack[j] {
                    low[i] = low[i].min(index[j]);
                }
            } else {
                frames.pop();
                if let Some(&(_, p, _)) = frames.last() {
                    low[p] = low[p].min(low[i]);
                }
                if low[i] == index[i] {
                    let mut scc = Vec::new();
                    loop {
                        let (t, j) = stack.pop().unwrap_or((s, i));
                        on_stack[j] = false;
                        scc.push(t);
                        if t == s {
                            break;
                        }
                    }
                    out.push(scc);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::graph::Facts;

    const WANTS: u64 = 1 << 1;
    const HOLDS: u64 = 1 << 1;

    /// A graph from (from, to, class) edges; `holding` states hold, the rest want.
    fn graph(n: u32, edges: &[(u32, u32, Class)], holding: &[u32]) -> Graph {
        graph_sf(n, edges, holding, &[])
    }

    /// As [`graph`], with the classes in `strong` strongly fair.
    fn graph_sf(n: u32, edges: &[(u32, u32, Class)], holding: &[u32], strong: &[Class]) -> Graph {
        graph_fair(n, edges, holding, strong, &[])
    }

    /// As [`graph_sf`], with the edges of the classes in `random` outcomes
    /// of a random choice (fair per state).
    fn graph_fair(n: u32, edges: &[(u32, u32, Class)], holding: &[u32], strong: &[Class], random: &[Class]) -> Graph {
        let mut g = Graph::default();
        for s in 0..n {
            let holds = holding.contains(&s);
            g.facts.push(Facts {
                holding: if holds { HOLDS } else { 0 },
                wanting: if holds { 0 } else { WANTS },
                depth: s,
            });
            g.parent.push((0, 0));
        }
        for (i, &(from, to, class)) in edges.iter().enumerate() {
            g.raw.push((
                from,
                Edge {
                    to,
                    class,
                    ordinal: i as u16,
                    strong: strong.contains(&class),
                    random: random.contains(&class),
                },
            ));
        }
        g.seal();
        g
    }

    #[test]
    fn a_waiting_cycle_is_a_violation() {
        // 0 -> 1 -> 2 -> 1: the client waits forever, on a cycle only.
        let g = graph(3, &[(0, 1, 0), (1, 2, 1), (2, 1, 2)], &[]);
        let l = find(&g, Waiting::Anyone).expect("the cycle is found");
        assert_eq!(l.entry, 1);
        let classes: Vec<Class> = l.cycle.iter().map(|(_, e)| e.class).collect();
        assert_eq!(classes, vec![1, 2]);
    }

    #[test]
    fn a_cycle_that_ignores_an_action_enabled_throughout_is_unfair() {
        // As above, but from both 1 and 2 a grant (class 9) is enabled.
        let g = graph(4, &[(0, 1, 0), (1, 2, 1), (2, 1, 2), (1, 3, 9), (2, 3, 9)], &[3]);
        assert_eq!(find(&g, Waiting::Anyone), None);
    }

    #[test]
    fn weak_fairness_allows_ignoring_an_action_enabled_only_sometimes() {
        // The grant is enabled in state 1 only: the loop may skip it forever.
        let g = graph(4, &[(0, 1, 0), (1, 2, 1), (2, 1, 2), (1, 3, 9)], &[3]);
        assert!(find(&g, Waiting::Anyone).is_some());
    }

    #[test]
    fn faults_are_never_part_of_the_loop() {
        let g = graph(3, &[(0, 1, 0), (1, 2, 1), (2, 1, FAULT), (1, 0, 5)], &[]);
        // 1 -> 2 is a dead end once the fault is excluded, and 0 <-> 1 is fair.
        let l = find(&g, Waiting::Anyone).expect("0 <-> 1 waits forever");
        assert!(l.cycle.iter().all(|(_, e)| e.class != FAULT));
        assert_eq!(l.entry, 0);
    }

    #[test]
    fn a_stuck_waiting_state_is_a_violation_with_an_empty_loop() {
        // State 0 has a fair action; state 1 has only a fault left.
        let g = graph(2, &[(0, 1, 0), (1, 1, FAULT)], &[]);
        let l = find(&g, Waiting::Anyone).expect("state 1 is stuck");
        assert_eq!((l.entry, l.cycle.len()), (1, 0));
    }

    #[test]
    fn acquisitions_leave_the_waiting_subgraph() {
        // 1 -> 2 grants the lock and 2 -> 1 releases it: no lasso.
        let g = graph(3, &[(0, 1, 0), (1, 2, 1), (2, 1, 2)], &[2]);
        assert_eq!(find(&g, Waiting::Anyone), None);
    }

    #[test]
    fn the_fair_loop_takes_every_class_enabled_along_it() {
        // Two ways round from 1: via 2 (class 1, 2) and via 3 (class 3, 4).
        // Class 5 (a self-contained detour) is enabled in 1 and 2 and 3 and
        // only taken from 3 to 4 and back; a fair loop must include it.
        let edges = [
            (0, 1, 0),
            (1, 2, 1),
            (2, 1, 2),
            (1, 3, 3),
            (3, 1, 4),
            (1, 4, 5),
            (2, 4, 5),
            (3, 4, 5),
            (4, 1, 6),
        ];
        let g = graph(5, &edges, &[]);
        let l = find(&g, Waiting::Anyone).expect("waits forever");
        let taken: BTreeSet<Class> = l.cycle.iter().map(|(_, e)| e.class).collect();
        assert!(taken.contains(&5), "{:?}", l.cycle);
        assert_eq!(l.cycle.first().map(|(s, _)| *s), Some(l.entry));
        assert_eq!(l.cycle.last().map(|(_, e)| e.to), Some(l.entry));
    }

    /// The random choice of a back-off, in miniature: in state 1 the client
    /// draws outcome 5 (back to waiting, via 2) or outcome 6 (which leads
    /// to the grant in 3 -> 4). Each outcome is enabled in state 1 only.
    const DRAW: [(u32, u32, Class); 5] = [(0, 1, 0), (1, 2, 5), (2, 1, 2), (1, 3, 6), (3, 4, 7)];

    #[test]
    fn a_loop_that_refuses_an_outcome_is_fair_only_under_weak_fairness() {
        // Weakly fair only: outcome 6 is not enabled throughout the loop
        // 1 -> 2 -> 1, so the loop may skip it for ever.
        let weak = graph(5, &DRAW, &[4]);
        let l = find(&weak, Waiting::Anyone).expect("under weak fairness the loop is fair");
        let classes: Vec<Class> = l.cycle.iter().map(|(_, e)| e.class).collect();
        assert_eq!(classes, vec![5, 2]);
        // Strongly fair outcomes: the loop returns to state 1, where 6 is
        // enabled, infinitely often, and never takes it: not fair.
        let strong = graph_sf(5, &DRAW, &[4], &[5, 6]);
        assert_eq!(find(&strong, Waiting::Anyone), None);
    }

    #[test]
    fn a_loop_that_takes_every_outcome_is_fair_under_strong_fairness() {
        // Both outcomes lead back to waiting: the fair loop takes both.
        let edges = [(0, 1, 0), (1, 2, 5), (2, 1, 2), (1, 3, 6), (3, 1, 3)];
        let g = graph_sf(4, &edges, &[], &[5, 6]);
        let l = find(&g, Waiting::Anyone).expect("waits forever, drawing both outcomes");
        let taken: BTreeSet<Class> = l.cycle.iter().map(|(_, e)| e.class).collect();
        assert!(taken.contains(&5) && taken.contains(&6), "{:?}", l.cycle);
        assert_eq!(l.cycle.first().map(|(s, _)| *s), Some(l.entry));
        assert_eq!(l.cycle.last().map(|(_, e)| e.to), Some(l.entry));
    }

    #[test]
    fn the_decomposition_keeps_the_fair_part_of_an_unfair_component() {
        // Component {1, 2, 3}; in 3 the strong outcome 9 leads out to a
        // grant, and no edge inside takes it. Removing 3 leaves the loop
        // 1 <-> 2, which is fair (class 3 is enabled in 2 only), so the
        // violation is that loop, and it never visits 3.
        let edges = [(0, 1, 0), (1, 2, 1), (2, 1, 2), (2, 3, 3), (3, 2, 4), (3, 4, 9)];
        let g = graph_sf(5, &edges, &[4], &[9]);
        let l = find(&g, Waiting::Anyone).expect("1 <-> 2 waits forever");
        assert!(l.cycle.iter().all(|(s, e)| *s != 3 && e.to != 3), "{:?}", l.cycle);
        // With 9 only weakly fair the whole component is fair, and its
        // state nearest the start is the same.
        assert_eq!(find(&graph(5, &edges, &[4]), Waiting::Anyone).map(|l| l.entry), Some(1));
    }

    #[test]
    fn the_decomposition_recurses_until_nothing_fair_is_left() {
        // Two rounds: removing 3 (outcome 9 refused) leaves {1, 2}, where
        // outcome 8, enabled in 2, is still refused; removing 2 leaves 1
        // with no loop.
        let edges = [
            (0, 1, 0),
            (1, 2, 1),
            (2, 1, 2),
            (2, 3, 3),
            (3, 2, 4),
            (3, 4, 9),
            (2, 4, 8),
        ];
        let g = graph_sf(5, &edges, &[4], &[8, 9]);
        assert_eq!(find(&g, Waiting::Anyone), None);
    }

    /// Two clients draw a back-off each (classes 5 and 6 for the first,
    /// 7 and 8 for the second); equal draws (5 then 7, or 6 then 8) lead
    /// back to the collision in 1, different ones to a grant in 4. A run
    /// that always draws equal delays takes every outcome infinitely often
    /// (fair when outcomes are strongly fair by class), but in states 3
    /// and 4 it never takes the outcome that differs: fair per state, it
    /// cannot last, as it has probability zero.
    const EQUAL_DRAWS: [(u32, u32, Class); 9] = [
        (0, 1, 0),
        (1, 2, 5),
        (1, 3, 6),
        (2, 1, 7),
        (2, 4, 8),
        (3, 4, 7),
        (3, 1, 8),
        (4, 5, 1),
        (5, 4, 2),
    ];

    #[test]
    fn a_livelock_of_equal_draws_is_fair_by_class_but_not_per_state() {
        let by_class = graph_sf(6, &EQUAL_DRAWS, &[4, 5], &[5, 6, 7, 8]);
        let l = find(&by_class, Waiting::Anyone).expect("strong fairness by class allows equal draws for ever");
        let taken: BTreeSet<Class> = l.cycle.iter().map(|(_, e)| e.class).collect();
        assert_eq!(taken, BTreeSet::from([5, 6, 7, 8]), "{:?}", l.cycle);
        let per_state = graph_fair(6, &EQUAL_DRAWS, &[4, 5], &[], &[5, 6, 7, 8]);
        assert_eq!(find(&per_state, Waiting::Anyone), None);
    }

    #[test]
    fn a_fair_loop_takes_every_outcome_of_every_state_it_visits() {
        // 1 draws 5 (to 2) or 6 (to 3); 2 draws 7 or 8, both back to 1; 3
        // goes back to 1. Nothing is granted: the violation's loop takes
        // all four outcomes.
        let edges = [(0, 1, 0), (1, 2, 5), (1, 3, 6), (2, 1, 7), (2, 1, 8), (3, 1, 2)];
        let g = graph_fair(4, &edges, &[], &[], &[5, 6, 7, 8]);
        let l = find(&g, Waiting::Anyone).expect("waits forever");
        let taken: BTreeSet<Class> = l.cycle.iter().map(|(_, e)| e.class).collect();
        assert!([5, 6, 7, 8].iter().all(|c| taken.contains(c)), "{:?}", l.cycle);
    }
}
