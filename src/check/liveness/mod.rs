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
//!   without letting it pass (TLC's `SF_vars(Tick)`; docs/properties.md,
//!   "Time is strongly fair").
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
use super::slots::Slots;
use crate::properties::acquired;
use sets::{Bits, Nodes};
use trim::trimmed;

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
    find_among(g, who, &Suspects::of(g, 1))
}

/// [`find`], looking only at `suspects`.
fn find_among(g: &Graph, who: Waiting, suspects: &Suspects) -> Option<Lasso> {
    let depth = |l: &Lasso| g.facts.depth(l.entry);
    let stuck = shallowest_stuck(g, who, suspects.stuck.iter().copied());
    let found = match loop_among(g, who, suspects.nodes()) {
        (found, false) => found,
        (_, true) if suspects.looping.is_some() => find_loop(g, who),
        (found, true) => found,
    };
    match (stuck, found) {
        (Some(a), Some(b)) => Some(if depth(&b) < depth(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// The states where a violation of any pass can lie, found once for all of
/// them. Each pass's subgraph (its waiting states, its edges that are no
/// fault and grant nobody it is about) is a subgraph of the one where
/// someone waits at both ends of an edge that is no fault; so each loop a
/// pass can find lies in a component of that one that holds a loop. Those
/// components are few: on `redlock-fsync --no-symmetry`, 13,716 states of
/// 2,959,948, where a pass over the whole graph read every waiting state's
/// edges (most states wait). One trimming of the whole graph ([`trimmed`]),
/// one search of what it leaves and one small search a pass replace a
/// whole search a pass.
struct Suspects {
    /// The states of those components, sorted; `None` where they are more
    /// than half the graph, and a pass looks at every state.
    looping: Option<Vec<u32>>,
    n: u32,
    /// The states where someone waits and no action but a fault is
    /// enabled, sorted.
    stuck: Vec<u32>,
}

impl Suspects {
    fn of(g: &Graph, threads: usize) -> Suspects {
        let n = g.facts.len() as u32;
        // A bit a state, read for both ends of every edge: a few hundred
        // kilobytes, where the facts it is read from are bytes a state.
        let mut waiting = Bits::new(n as usize);
        for s in 0..n {
            waiting.set(s as usize, g.facts.wanting(s) != 0);
        }
        let (kept, stuck) = trimmed(g, &waiting, threads);
        let member = |s: u32| kept.get(s as usize);
        let inside = |s: u32, e: &Edge| e.class != FAULT && member(s) && member(e.to);
        let mut looping: Vec<u32> = components_in(g, Nodes::All(n), &member, &inside)
            .into_iter()
            .flatten()
            .collect();
        looping.sort_unstable();
        Suspects {
            looping: (looping.len() <= n as usize / 2).then_some(looping),
            n,
            stuck,
        }
    }

    fn nodes(&self) -> Nodes<'_> {
        self.looping.as_deref().map_or(Nodes::All(self.n), Nodes::Listed)
    }
}

/// [`find`] for each of `whom`, in order, the [`Suspects`] found once for
/// all (their trimming's count of edges spread over `threads`, trim.rs).
/// The passes only read the sealed graph, so with `threads` above one
/// they run side by side, each thread taking the next pass as it finishes
/// one; the answers are the same.
/// A graph moved to disk runs them one at a time: each pass maps its own
/// arrays, and memory is what is short then.
pub fn find_each(g: &Graph, whom: &[Waiting], threads: usize) -> Vec<Option<Lasso>> {
    if whom.is_empty() {
        return Vec::new();
    }
    let suspects = Suspects::of(g, threads);
    let find = |g: &Graph, who: Waiting| find_among(g, who, &suspects);
    if threads <= 1 || whom.len() < 2 || g.on_disk() {
        return whom.iter().map(|&who| find(g, who)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(&who) = whom.get(k) else { return done };
            done.push((k, find(g, who)));
        }
    };
    let mut found: Vec<(usize, Option<Lasso>)> = crate::threads::each(threads.min(whom.len()), |_| work())
        .into_iter()
        .flatten()
        .collect();
    found.sort_by_key(|(k, _)| *k);
    found.into_iter().map(|(_, l)| l).collect()
}

/// Whether state `s` waits for the lock, as `who` means it.
fn waits(g: &Graph, who: Waiting, s: u32) -> bool {
    let wanting = g.facts.wanting(s);
    match who {
        Waiting::Anyone => wanting != 0,
        Waiting::Client(c) => wanting & (1 << c) != 0,
    }
}

/// The shallowest stuck state: waiting, and no fair action can change
/// anything (an empty loop).
pub fn stuck(g: &Graph, who: Waiting) -> Option<Lasso> {
    shallowest_stuck(g, who, 0..g.facts.len() as u32)
}

/// [`stuck`] among `states`.
fn shallowest_stuck(g: &Graph, who: Waiting, states: impl Iterator<Item = u32>) -> Option<Lasso> {
    states
        .filter(|&s| waits(g, who, s) && g.out(s).all(|e| e.class == FAULT))
        .min_by_key(|&s| (g.facts.depth(s), s))
        .map(|entry| Lasso {
            entry,
            cycle: Vec::new(),
        })
}

/// The fair waiting loop reached soonest, stuck states aside (of those
/// reached equally soon, the first the search over every state finds).
pub fn find_loop(g: &Graph, who: Waiting) -> Option<Lasso> {
    loop_among(g, who, Nodes::All(g.facts.len() as u32)).0
}

/// [`find_loop`] in the subgraph on `nodes`, which must hold every state
/// of every loop in the pass's subgraph, and whether another loop may be
/// reached as soon. Only then can the answer differ from
/// [`find_loop`]'s: without all the states, the components are found in
/// another order, and the first found of two loops reached equally soon
/// can be the other one (a trace would change).
fn loop_among(g: &Graph, who: Waiting, nodes: Nodes<'_>) -> (Option<Lasso>, bool) {
    // An edge stays inside the subgraph when it is no fault, both ends
    // wait, and nobody (the client, for starvation) is granted the lock.
    let member = |s: u32| waits(g, who, s);
    let inside = |s: u32, e: &Edge| {
        if e.class == FAULT || !member(s) || !member(e.to) {
            return false;
        }
        let granted = acquired(g.facts.wanting(s), g.facts.wanting(e.to));
        match who {
            Waiting::Anyone => granted == 0,
            Waiting::Client(c) => granted & (1 << c) == 0,
        }
    };
    let mut best: Option<Lasso> = None;
    let depth = |s: u32| g.facts.depth(s);
    let better = |best: &Option<Lasso>, s: u32| best.as_ref().is_none_or(|b| depth(s) < depth(b.entry));
    // A depth at which something passed over may hold a loop reached as
    // soon as the best.
    let mut tie = None;
    let mut passed = |best: &Option<Lasso>, s: u32| {
        if best.as_ref().is_some_and(|b| depth(s) == depth(b.entry)) {
            tie = Some(depth(s));
        }
    };
    for candidate in components_in(g, nodes, &member, &inside)
        .into_iter()
        .map(|scc| with_loop(g, scc))
    {
        if !better(&best, candidate.entry) {
            passed(&best, candidate.entry);
            continue;
        }
        for Looping { members, entry, .. } in fair_parts(g, candidate, &inside) {
            if !better(&best, entry) {
                passed(&best, entry);
                continue;
            }
            let internal = |s: u32, e: &Edge| inside(s, e) && members.contains(&{ e.to });
            best = Some(Lasso {
                entry,
                cycle: fair_cycle(g, entry, &members, &internal),
            });
        }
    }
    let tied = tie.is_some() && tie == best.as_ref().map(|b| depth(b.entry));
    (best, tied)
}

/// The parts of a component that hold a fair cycle (the decomposition in
/// the module comment), each a component of the subgraph in its own right.
fn fair_parts(g: &Graph, component: Looping, inside: &impl Fn(u32, &Edge) -> bool) -> Vec<Looping> {
    let mut fair = Vec::new();
    let mut work = vec![component];
    while let Some(Looping { scc, members, entry }) = work.pop() {
        let internal = |s: u32, e: &Edge| inside(s, e) && members.contains(&{ e.to });
        if !weakly_fair(g, &scc, &internal) {
            continue;
        }
        let taken: BTreeSet<Class> = scc
            .iter()
            .flat_map(|&s| g.out(s).filter(move |e| e.strong() && internal(s, e)).map(|e| e.class))
            .collect();
        // A strong class enabled here and never taken in the part; or an
        // outcome of a random choice from here that leaves the part.
        let refused = |s: u32| {
            g.out(s)
                .any(|e| (e.strong() && !taken.contains(&{ e.class })) || (e.random() && !internal(s, &e)))
        };
        let mut keep: Vec<u32> = scc.iter().copied().filter(|&s| !refused(s)).collect();
        if keep.len() == scc.len() {
            fair.push(Looping { scc, members, entry });
            continue;
        }
        keep.sort_unstable();
        let kept: BTreeSet<u32> = keep.iter().copied().collect();
        let sub = |s: u32, e: &Edge| internal(s, e) && kept.contains(&{ e.to });
        // Pushed in reverse so that parts are decided in discovery order.
        let mut parts: Vec<Looping> = components_in(g, Nodes::Listed(&keep), &|_| true, &sub)
            .into_iter()
            .map(|scc| with_loop(g, scc))
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
/// components are single states without a self-loop, which
/// [`components_in`] leaves out as it finds them. `waits` holds at both
/// ends of every edge `inside`: the search starts from no other state.
pub(super) fn looping<'g>(
    g: &'g Graph,
    n: u32,
    waits: &'g impl Fn(u32) -> bool,
    inside: &'g impl Fn(u32, &Edge) -> bool,
) -> impl Iterator<Item = Looping> + 'g {
    components_in(g, Nodes::All(n), waits, inside)
        .into_iter()
        .map(move |scc| with_loop(g, scc))
}

/// `scc` as a [`Looping`]: [`components_in`] gives only components a
/// loop can stay in.
fn with_loop(g: &Graph, scc: Vec<u32>) -> Looping {
    let members: BTreeSet<u32> = scc.iter().copied().collect();
    let entry = *scc
        .iter()
        .min_by_key(|&&s| (g.facts.depth(s), s))
        .expect("a component has a state");
    Looping { scc, members, entry }
}

/// Fair classes enabled in state `s`.
fn enabled(g: &Graph, s: u32) -> BTreeSet<Class> {
    g.out(s).map(|e| e.class).filter(|c| *c != FAULT).collect()
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
        .flat_map(|&s| g.out(s).filter(move |e| internal(s, e)).map(|e| e.class))
        .collect();
    always.iter().all(|c| taken.contains(c))
}

/// Strong classes enabled in state `s`.
fn enabled_strong(g: &Graph, s: u32) -> impl Iterator<Item = Class> + '_ {
    g.out(s).filter(|e| e.strong()).map(|e| e.class)
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
                e.is_some_and(|e| e.strong() && e.class == missing)
            })
        } else if let Some((from, missing)) = states.iter().find_map(|&s| {
            g.out(s)
                .find(|e| e.random() && !cycle.iter().any(|(t, f)| *t == s && f.ordinal() == e.ordinal()))
                .map(|e| (s, e))
        }) {
            detour(g, &states, members, internal, |s, e| {
                s == from && e.is_some_and(|e| e.ordinal() == missing.ordinal())
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
        for e in g.out(s).filter(|e| internal(s, e)) {
            if goal(s, Some(&e)) || goal(e.to, None) {
                reached = Some((s, e));
                break 'bfs;
            }
            if seen.insert(e.to) {
                prev.insert(e.to, (s, e));
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
    debug_assert!(members.contains(&{ last_edge.to }));
    // Phase 2: home to the origin, shortest.
    let mut at = last_edge.to;
    if at != origin {
        let mut prev: std::collections::HashMap<u32, (u32, Edge)> = Default::default();
        let mut queue = VecDeque::from([at]);
        let mut seen = BTreeSet::from([at]);
        'home: while let Some(s) = queue.pop_front() {
            for e in g.out(s).filter(|e| internal(s, e)) {
                if seen.insert(e.to) {
                    prev.insert(e.to, (s, e));
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
/// (edges `inside` that land on one of them) that may hold a loop,
/// iteratively (state graphs are deep). Each component lists its states.
/// A single state without an edge to itself holds no
/// loop and is left out as soon as it is found: nearly every state of a
/// graph is one, and a list for each made this pass the peak of a
/// check's memory. A state where `member` fails is not looked at: every
/// edge `inside` must have `member` at both ends, so such a state is a
/// component of its own without a loop, and the states the search starts
/// from elsewhere never reach it. In a liveness pass most states do not
/// wait, and reading their edges was most of the pass.
fn components_in(
    g: &Graph,
    nodes: Nodes<'_>,
    member: &impl Fn(u32) -> bool,
    inside: &impl Fn(u32, &Edge) -> bool,
) -> Vec<Vec<u32>> {
    // Discovery numbers start at 1: a zeroed array means none, so that a
    // mapped one needs no filling.
    const NONE: u32 = 0;
    let slot = |s: u32| nodes.slot(s);
    let k = nodes.len();
    let (mut index, mut low) = match (Slots::new(k, g.on_disk()), Slots::new(k, g.on_disk())) {
        (Ok(i), Ok(l)) => (i, l),
        // No room for the files: in memory, as for a graph kept there.
        _ => (
            Slots::new(k, false).expect("memory"),
            Slots::new(k, false).expect("memory"),
        ),
    };
    let mut on_stack = Bits::new(k);
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 1u32;
    for (r, root) in nodes.iter().enumerate() {
        if index[r] != NONE || !member(root) {
            continue;
        }
        // Frames: (state, its slot, how far into its edges): 12 bytes,
        // where an edge reader would take 32 (the frames of a long path
        // are a peak of their own).
        let mut frames = vec![(root, r as u32, 0u32)];
        index[r] = next;
        low[r] = next;
        next += 1;
        stack.push((root, r as u32));
        on_stack.set(r, true);
        while let Some(&mut (s, i, ref mut pos)) = frames.last_mut() {
            let i = i as usize;
            let mut edges = g.out_at(s, *pos);
            if let Some(e) = edges.next() {
                *pos = edges.offset();
                if !inside(s, &e) {
                    continue;
                }
                let t = e.to;
                let Some(j) = slot(t) else { continue };
                if index[j] == NONE {
                    index[j] = next;
                    low[j] = next;
                    next += 1;
                    stack.push((t, j as u32));
                    on_stack.set(j, true);
                    frames.push((t, j as u32, 0));
                } else if on_stack.get(j) {
                    low[i] = low[i].min(index[j]);
                }
            } else {
                frames.pop();
                if let Some(&(_, p, _)) = frames.last() {
                    low[p as usize] = low[p as usize].min(low[i]);
                }
                if low[i] == index[i] && stack.last().is_some_and(|&(t, _)| t == s) {
                    // A component of one state.
                    stack.pop();
                    on_stack.set(i, false);
                    if g.out(s).any(|e| e.to == s && inside(s, &e)) {
                        out.push(vec![s]);
                    }
                } else if low[i] == index[i] {
                    let mut scc = Vec::new();
                    loop {
                        let (t, j) = stack.pop().unwrap_or((s, i as u32));
                        on_stack.set(j as usize, false);
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

mod sets;
mod trim;

#[cfg(test)]
mod tests;
