//! Liveness as TLC checks it (DESIGN.md §5): a violation is a reachable
//! lasso whose loop has no fault, is fair, and in which a running client
//! wants the lock and is never granted it. Stateright's `eventually` only
//! looks at acyclic paths, so this is a pass over the whole state graph:
//! strongly connected components of the "still waiting" subgraph, kept
//! when they are fair under weak fairness.
//!
//! Under weak fairness alone an SCC `C` contains a fair cycle exactly when
//! every class enabled in all states of `C` is taken by an edge inside `C`
//! (the cycle through every state and edge of `C` is then fair, and if a
//! class is enabled throughout `C` but never taken inside it, no cycle in
//! `C` is fair). No recursive decomposition is needed, as it would be for
//! strong fairness.

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
    for Looping { scc, members, entry } in looping(g, n, &inside) {
        let internal = |s: u32, e: &Edge| inside(s, e) && members.contains(&e.to);
        if !better(&best, entry) || !fair_somewhere(g, &scc, &internal) {
            continue;
        }
        best = Some(Lasso {
            entry,
            cycle: fair_cycle(g, entry, &members, &internal),
        });
    }
    best
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
    components(g, n, inside).into_iter().filter_map(move |scc| {
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
    })
}

/// Fair classes enabled in state `s`.
fn enabled(g: &Graph, s: u32) -> BTreeSet<Class> {
    g.out(s).iter().map(|e| e.class).filter(|c| *c != FAULT).collect()
}

/// Whether every class enabled throughout `scc` is taken inside it.
fn fair_somewhere(g: &Graph, scc: &[u32], internal: &impl Fn(u32, &Edge) -> bool) -> bool {
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

/// A fair cycle through `entry` inside the component: start with the
/// shortest cycle, then, while some class is enabled in every state of the
/// cycle and never taken, add a detour that takes it or visits a state
/// where it is disabled (one exists because the component is fair).
fn fair_cycle(
    g: &Graph,
    entry: u32,
    members: &BTreeSet<u32>,
    internal: &impl Fn(u32, &Edge) -> bool,
) -> Vec<(u32, Edge)> {
    let mut cycle = detour(g, entry, members, internal, |s, e| e.is_none() && s == entry);
    loop {
        let states: Vec<u32> = cycle.iter().map(|(s, _)| *s).collect();
        let mut always = enabled(g, states[0]);
        for &s in &states[1..] {
            let here = enabled(g, s);
            always.retain(|c| here.contains(c));
        }
        let taken: BTreeSet<Class> = cycle.iter().map(|(_, e)| e.class).collect();
        let Some(&missing) = always.iter().find(|c| !taken.contains(c)) else {
            return cycle;
        };
        let extra = detour(g, entry, members, internal, |s, e| {
            e.is_some_and(|e| e.class == missing) || !enabled(g, s).contains(&missing)
        });
        cycle.splice(0..0, extra);
    }
}

/// A shortest walk inside the component from `entry` back to `entry` that
/// takes an edge or lands on a state satisfying `goal`. Breadth-first,
/// twice: to the goal, then home.
fn detour(
    g: &Graph,
    entry: u32,
    members: &BTreeSet<u32>,
    internal: &impl Fn(u32, &Edge) -> bool,
    goal: impl Fn(u32, Option<&Edge>) -> bool,
) -> Vec<(u32, Edge)> {
    // Phase 1: from entry, the first edge that is a goal edge or lands on a
    // goal state.
    let mut prev: std::collections::HashMap<u32, (u32, Edge)> = Default::default();
    let mut queue = VecDeque::from([entry]);
    let mut seen = BTreeSet::from([entry]);
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
        return Vec::new();
    };
    let mut walk = vec![(last_from, last_edge)];
    let mut at = last_from;
    while at != entry {
        let (p, e) = prev[&at];
        walk.push((p, e));
        at = p;
    }
    walk.reverse();
    debug_assert!(members.contains(&last_edge.to));
    // Phase 2: home again, shortest.
    let mut at = last_edge.to;
    if at != entry {
        let mut prev: std::collections::HashMap<u32, (u32, Edge)> = Default::default();
        let mut queue = VecDeque::from([at]);
        let mut seen = BTreeSet::from([at]);
        'home: while let Some(s) = queue.pop_front() {
            for e in g.out(s).iter().filter(|e| internal(s, e)) {
                if seen.insert(e.to) {
                    prev.insert(e.to, (s, *e));
                    if e.to == entry {
                        break 'home;
                    }
                    queue.push_back(e.to);
                }
            }
        }
        let mut back = Vec::new();
        at = entry;
        while at != last_edge.to {
            let (p, e) = prev[&at];
            back.push((p, e));
            at = p;
        }
        back.reverse();
        walk.extend(back);
    }
    walk
}

/// Tarjan's strongly connected components over the subgraph, iteratively
/// (state graphs are deep). Each component lists its states.
fn components(g: &Graph, n: u32, inside: &impl Fn(u32, &Edge) -> bool) -> Vec<Vec<u32>> {
    const NONE: u32 = u32::MAX;
    let mut index = vec![NONE; n as usize];
    let mut low = vec![0u32; n as usize];
    let mut on_stack = vec![false; n as usize];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 0u32;
    for root in 0..n {
        if index[root as usize] != NONE {
            continue;
        }
        // Frames: (state, position in its edge list).
        let mut frames = vec![(root, 0usize)];
        index[root as usize] = next;
        low[root as usize] = next;
        next += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (s, ref mut pos)) = frames.last_mut() {
            let edges = g.out(s);
            if let Some(e) = edges.get(*pos) {
                *pos += 1;
                if !inside(s, e) {
                    continue;
                }
                let t = e.to;
                if index[t as usize] == NONE {
                    index[t as usize] = next;
                    low[t as usize] = next;
                    next += 1;
                    stack.push(t);
                    on_stack[t as usize] = true;
                    frames.push((t, 0));
                } else if on_stack[t as usize] {
                    low[s as usize] = low[s as usize].min(index[t as usize]);
                }
            } else {
                frames.pop();
                if let Some(&(p, _)) = frames.last() {
                    low[p as usize] = low[p as usize].min(low[s as usize]);
                }
                if low[s as usize] == index[s as usize] {
                    let mut scc = Vec::new();
                    loop {
                        let t = stack.pop().unwrap_or(s);
                        on_stack[t as usize] = false;
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
}
