//! Exhaustive checking (docs/design.md §6). locksmith walks the world's
//! `stateright::Model` itself, single-threaded and in a fixed order, so
//! that BFS counterexamples are the shortest and the same bytes on every
//! run; it keeps the labelled state graph, which the liveness pass needs and
//! stateright's checkers do not expose. A test cross-checks the state
//! counts and safety verdicts against stateright's own BFS.

pub mod graph;
pub mod liveness;
pub mod quotient;

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use graph::{fingerprint, Edge, Facts, FingerprintMap, Graph, FAULT};
use liveness::Waiting;

use crate::interrupt::Interrupt;
use crate::memory;
use crate::progress::Progress;
use crate::properties::{safe, view, Lock, Prop};
use crate::scenario::Verdict;
use crate::world::{Action, Program, Role, World, WorldState, EVENT_KINDS};

/// How to search.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Depth-first instead of breadth-first (counterexamples then need not
    /// be the shortest).
    pub dfs: bool,
    /// Stop after this many unique states; open verdicts become `unknown`.
    pub max_states: Option<usize>,
    /// Expand no state deeper than this many steps from the start: the
    /// states within it are all explored, and when any lies beyond it,
    /// open verdicts become `unknown`.
    pub max_depth: Option<u32>,
    /// Stop at the first state that violates this safety property, as TLC
    /// does by default: its counterexample is the one the whole search
    /// finds (breadth-first, states are numbered in the same order up to
    /// it), and every other open verdict becomes `unknown`.
    pub stop_at: Option<Prop>,
    /// Stop after this long; open verdicts become `unknown`.
    pub timeout: Option<Duration>,
    /// Stop when the process's resident memory exceeds this many bytes
    /// (checked every few thousand states; Linux only, elsewhere it never
    /// stops the search); open verdicts become `unknown`.
    pub max_memory: Option<u64>,
    /// Where to report the search's progress (stderr only); `None`: silent.
    pub progress: Option<Progress>,
    /// Threads that expand states (0 or 1: one). Breadth-first search
    /// only; verdicts, counts, state numbers and traces are the same bytes
    /// whatever the number.
    pub threads: usize,
    /// Raised by Ctrl-C (`interrupt::on_ctrl_c`): stops the search like a
    /// timeout, and the outcome says it was [`Outcome::interrupted`].
    pub interrupt: Interrupt,
    /// Search every state, even where the world has interchangeable nodes
    /// (`--no-symmetry`): a way to see the quotient's verdicts confirmed
    /// on the full space, or to measure what the reduction saves. The
    /// scenario is not changed; [`Outcome::symmetric`] says which search ran.
    pub no_symmetry: bool,
}

/// A counterexample as actions from the initial state. For liveness,
/// `cycle` is the fair loop (empty: the run is stuck after `prefix`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample<A: Program> {
    pub prefix: Vec<Action<A>>,
    pub cycle: Option<Vec<Action<A>>>,
}

impl<A: Program> Counterexample<A> {
    pub fn len(&self) -> usize {
        self.prefix.len() + self.cycle.as_ref().map_or(0, Vec::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One property's result.
#[derive(Clone, Debug)]
pub struct PropOutcome<A: Program> {
    pub prop: Prop,
    pub verdict: Verdict,
    pub trace: Option<Counterexample<A>>,
}

/// The result of a check.
#[derive(Clone, Debug)]
pub struct Outcome<A: Program> {
    pub props: Vec<PropOutcome<A>>,
    pub unique_states: usize,
    /// Successor states computed, repeats included.
    pub states: usize,
    pub max_depth: usize,
    pub seconds: f64,
    /// The chance that two distinct states shared a 64-bit fingerprint, so
    /// that one of them was never explored: TLC's "optimistic" estimate
    /// `n * (g - n) / 2^64` for `n` unique states out of `g` generated.
    pub fingerprint_collision_probability: f64,
    /// Transitions explored per fault (and recovery) kind: a fault that
    /// never fired shows as 0.
    pub events: BTreeMap<&'static str, u64>,
    /// Why the search stopped before the end, if it did.
    pub stopped: Option<String>,
    /// Why liveness was not checked, if it was not.
    pub liveness_skipped: Option<String>,
    /// Whether the interrupt flag stopped the search, or the liveness pass
    /// under symmetry (then `stopped`, or `liveness_skipped`, says so):
    /// the command exits 130 and keeps the previous report.
    pub interrupted: bool,
    /// Whether states were reduced under symmetry (the world has
    /// interchangeable nodes and [`Options::no_symmetry`] was not set).
    pub symmetric: bool,
}

impl<A: Program> Outcome<A> {
    pub fn get(&self, prop: Prop) -> &PropOutcome<A> {
        self.props.iter().find(|p| p.prop == prop).unwrap_or(&self.props[0])
    }
}

/// A successor as a worker computed it: everything the merge needs, and
/// the state itself only when it may be new.
struct Succ<A: Program> {
    /// The action's position in the source state's enabled list.
    ordinal: u16,
    kind: Option<&'static str>,
    /// The action's fingerprint, or `None` for a fault.
    class: Option<u64>,
    /// Whether the action's class is strongly fair (a tick).
    strong: bool,
    /// Whether the action is one outcome of a random choice.
    random: bool,
    /// The fingerprint of the state under its own names.
    raw: u64,
    /// The canonical state's fingerprint (equal to `raw` without symmetry).
    fp: u64,
    /// The canonical state, its lock view and its failed safety
    /// properties (bit `i` for `safety[i]`), when the worker did not find
    /// it among the states known before the batch.
    fresh: Option<(WorldState<A>, Facts, u64)>,
}

/// States popped and expanded together. Expansion (successors, renumbering,
/// canonicalisation, fingerprints, lock views) is pure, so a batch spreads
/// over the threads; the merge then numbers states in exactly the order a
/// single thread does.
const BATCH: usize = 2048;

/// The read-only part of the search the workers share.
struct Expand<'a, A: Lock> {
    world: &'a World<A>,
    seen: &'a FingerprintMap<u32>,
    raw_seen: &'a FingerprintMap<u32>,
    symmetric: bool,
    safety: &'a [Prop],
}

impl<A: Lock> Expand<'_, A> {
    fn state(&self, s: &WorldState<A>, actions: &mut Vec<Action<A>>, out: &mut Vec<Succ<A>>) {
        let world = self.world;
        actions.clear();
        world.enabled(s, actions);
        out.reserve_exact(actions.len());
        for (k, a) in actions.drain(..).enumerate() {
            let Some(t) = world.after(s, &a) else { continue };
            let class = (!world.is_fault(&a)).then(|| fingerprint(&a));
            let strong = strongly_fair(&a);
            let random = random(world, &a);
            let raw = fingerprint(&t);
            // Under symmetry, a state met before under its own names needs
            // no second canonicalisation: most successors are repeats.
            let (fp, t) = if self.symmetric && self.raw_seen.contains_key(&raw) {
                (0, None)
            } else if self.symmetric {
                // A state that is its own representative keeps its
                // fingerprint: it is not hashed twice.
                let (t, perm) = world.canonical(t);
                let fp = if perm.iter().enumerate().all(|(i, &p)| i == p) {
                    raw
                } else {
                    fingerprint(&t)
                };
                (fp, Some(t))
            } else {
                (raw, Some(t))
            };
            let fresh = t.filter(|_| !self.seen.contains_key(&fp)).map(|t| {
                let facts = facts(world, &t, 0);
                let bad = self
                    .safety
                    .iter()
                    .enumerate()
                    .filter(|(_, &p)| !safe(p, world, &t))
                    .fold(0u64, |m, (i, _)| m | 1 << i);
                (t, facts, bad)
            });
            out.push(Succ {
                ordinal: k as u16,
                kind: a.event_kind(),
                class,
                strong,
                random,
                raw,
                fp,
                fresh,
            });
        }
    }

    /// Every state's successors, in order, on up to `threads` threads.
    fn batch(&self, states: &[(WorldState<A>, u32)], threads: usize) -> Vec<Vec<Succ<A>>> {
        let part = |chunk: &[(WorldState<A>, u32)]| -> Vec<Vec<Succ<A>>> {
            let mut actions = Vec::new();
            chunk
                .iter()
                .map(|(s, _)| {
                    let mut out = Vec::new();
                    self.state(s, &mut actions, &mut out);
                    out
                })
                .collect()
        };
        if threads <= 1 || states.len() < 2 {
            return part(states);
        }
        let size = states.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let handles: Vec<_> = states.chunks(size).map(|c| scope.spawn(move || part(c))).collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    }
}

/// Model-checks every property of `world`.
pub fn check<A: Lock>(world: &World<A>, opts: &Options) -> Outcome<A> {
    if opts.no_symmetry && !world.symmetry.is_empty() {
        // The world without its groups canonicalises nothing: every
        // action, trace and report is in the run's own names already.
        let mut full = world.clone();
        full.symmetry.clear();
        return search(&full, opts);
    }
    search(world, opts)
}

/// [`check`] on the world's own symmetry groups.
fn search<A: Lock>(world: &World<A>, opts: &Options) -> Outcome<A> {
    let start = Instant::now();
    let mut g = Graph::default();
    let mut seen: FingerprintMap<u32> = FingerprintMap::default();
    // Raw fingerprint to state index, for symmetry reduction only.
    let symmetric = !world.symmetry.is_empty();
    let mut raw_seen: FingerprintMap<u32> = FingerprintMap::default();
    let mut classes: FingerprintMap<u32> = FingerprintMap::default();
    let mut events: BTreeMap<&'static str, u64> = EVENT_KINDS.iter().map(|k| (*k, 0)).collect();
    let mut first_bad: BTreeMap<Prop, u32> = BTreeMap::new();
    let mut generated = 0usize;
    let mut expanded = 0usize;
    let mut stopped = None;
    // A successor lay beyond `--max-depth` and was not explored.
    let mut beyond_depth = false;
    let mut interrupted = false;
    // Depth-first search pops one state at a time: its next state depends
    // on what the last one discovered.
    let threads = if opts.dfs { 1 } else { opts.threads.max(1) };
    let batch_size = if opts.dfs { 1 } else { BATCH * threads };

    let checked = Prop::checked(world);
    let safety: Vec<Prop> = checked.iter().copied().filter(|p| p.is_safety()).collect();
    let init = world.canonical(world.init()).0;
    let mut frontier: VecDeque<(WorldState<A>, u32)> = VecDeque::new();
    {
        g.facts.push(facts(world, &init, 0));
        for &p in &safety {
            if !safe(p, world, &init) {
                first_bad.insert(p, 0);
            }
        }
    }
    seen.insert(fingerprint(&init), 0);
    g.parent.push((0, 0));
    frontier.push_back((init, 0));

    let mut batch: Vec<(WorldState<A>, u32)> = Vec::with_capacity(batch_size);
    'search: while !frontier.is_empty() {
        batch.clear();
        while batch.len() < batch_size {
            let Some(next) = (if opts.dfs {
                frontier.pop_back()
            } else {
                frontier.pop_front()
            }) else {
                break;
            };
            batch.push(next);
        }
        let expand = Expand {
            world,
            seen: &seen,
            raw_seen: &raw_seen,
            symmetric,
            safety: &safety,
        };
        let successors = expand.batch(&batch, threads);
        for (&(_, i), succs) in batch.iter().zip(successors) {
            if opts.interrupt.requested() {
                interrupted = true;
                stopped = Some(format!(
                    "interrupted after {} states; open verdicts are unknown",
                    seen.len()
                ));
                break 'search;
            }
            if let Some(t) = opts.timeout.filter(|t| start.elapsed() >= *t) {
                stopped = Some(format!("the timeout of {} s was reached", t.as_secs_f64()));
                break 'search;
            }
            if let Some(m) = opts.max_memory.filter(|_| expanded.is_multiple_of(MEMORY_EVERY)) {
                if memory::resident().is_some_and(|r| r > m) {
                    stopped = Some(format!(
                        "the memory bound of {} was reached; `locksmith simulate` explores a space this size by seeded random runs",
                        memory::human(m)
                    ));
                    break 'search;
                }
            }
            expanded += 1;
            if let Some(p) = opts
                .progress
                .as_ref()
                .filter(|_| expanded.is_multiple_of(PROGRESS_EVERY))
            {
                p.search_at(seen.len(), g.facts[i as usize].depth, frontier.len());
            }
            let depth = g.facts[i as usize].depth + 1;
            for succ in succs {
                generated += 1;
                if let Some(kind) = succ.kind {
                    *events.entry(kind).or_default() += 1;
                }
                let class = match succ.class {
                    None => FAULT,
                    Some(fp) => {
                        let next = classes.len() as u32;
                        *classes.get_or_insert(fp, next)
                    }
                };
                let known = if symmetric { raw_seen.get(&succ.raw) } else { None };
                let to = match known {
                    Some(&to) => to,
                    None => {
                        let to = match seen.get(&succ.fp) {
                            Some(&to) => to,
                            None if opts.max_states.is_some_and(|m| seen.len() >= m) => {
                                stopped = Some(format!("the state bound of {} was reached", seen.len()));
                                break 'search;
                            }
                            None if opts.max_depth.is_some_and(|d| depth > d) => {
                                beyond_depth = true;
                                continue;
                            }
                            None => {
                                // Not known before the batch either, so the
                                // worker kept the state.
                                let Some((t, mut facts, bad)) = succ.fresh else {
                                    unreachable!("a state unknown to the merge was unknown to its worker")
                                };
                                let to = seen.len() as u32;
                                seen.insert(succ.fp, to);
                                g.parent.push((i, succ.ordinal));
                                facts.depth = depth;
                                g.facts.push(facts);
                                for (b, &p) in safety.iter().enumerate() {
                                    if bad & (1 << b) != 0 {
                                        first_bad.entry(p).or_insert(to);
                                    }
                                }
                                if let Some(p) = opts.stop_at.filter(|p| first_bad.contains_key(p)) {
                                    stopped = Some(format!("stopped at the first violation of {}", p.name()));
                                    break 'search;
                                }
                                frontier.push_back((t, to));
                                to
                            }
                        };
                        if symmetric {
                            raw_seen.insert(succ.raw, to);
                        }
                        to
                    }
                };
                let edge = Edge::new(to, class, succ.ordinal, succ.strong, succ.random);
                if opts.dfs {
                    g.raw.push((i, edge));
                } else {
                    g.push_in_order(i, edge);
                }
            }
        }
    }
    drop(frontier);
    g.seal();
    if let Some(d) = opts.max_depth.filter(|_| beyond_depth && stopped.is_none()) {
        stopped = Some(format!("the depth bound of {d} was reached"));
    }

    let complete = stopped.is_none();
    // Under symmetry, liveness runs on lifts of the quotient's candidate
    // components back into the full graph (quotient.rs): exact, but it
    // stores the lifted states, so it has a budget.
    let lifted = (symmetric && complete).then(|| {
        let budget = opts.max_states.unwrap_or(LIFT_BUDGET);
        quotient::lifts(world, &g, &seen, budget, &opts.interrupt)
    });
    let liveness_skipped = match &lifted {
        Some(Err(why)) => Some(why.clone()),
        _ => None,
    };
    interrupted |= liveness_skipped.as_deref() == Some(quotient::INTERRUPTED);
    let mut props = Vec::new();
    for prop in checked {
        let found = match prop {
            _ if prop.is_safety() => first_bad.get(&prop).map(|&s| Counterexample {
                prefix: replay_ordinals(world, &g.path_to(s)),
                cycle: None,
            }),
            // Liveness needs the whole graph.
            _ if !complete || liveness_skipped.is_some() => None,
            _ => match &lifted {
                Some(Ok(lifts)) => symmetric_lasso(world, &g, lifts, prop == Prop::DeadlockFreedom),
                _ if prop == Prop::DeadlockFreedom => liveness::find(&g, Waiting::Anyone).map(|l| lasso(world, &g, &l)),
                _ => starvation(world, &g),
            },
        };
        let skipped = !prop.is_safety() && liveness_skipped.is_some();
        let verdict = match (&found, complete && !skipped) {
            (Some(_), _) => Verdict::Violated,
            (None, true) => Verdict::Holds,
            (None, false) => Verdict::Unknown,
        };
        props.push(PropOutcome {
            prop,
            verdict,
            trace: found,
        });
    }
    Outcome {
        props,
        unique_states: seen.len(),
        states: generated,
        fingerprint_collision_probability: collision_probability(seen.len(), generated),
        max_depth: g.facts.iter().map(|f| f.depth as usize).max().unwrap_or(0),
        seconds: start.elapsed().as_secs_f64(),
        events,
        stopped,
        liveness_skipped,
        interrupted,
        symmetric,
    }
}

/// What the liveness pass keeps of a state: who wants the lock, and its
/// depth.
fn facts<A: Lock>(world: &World<A>, s: &WorldState<A>, depth: u32) -> Facts {
    Facts {
        wanting: view(world, s).wanting,
        depth,
    }
}

/// TLC's optimistic fingerprint collision estimate, `n * (g - n) / 2^64`:
/// each of the `g - n` successors that matched a known fingerprint could
/// have been a new state colliding with one of the `n` known ones.
fn collision_probability(unique: usize, generated: usize) -> f64 {
    let (n, g) = (unique as f64, generated.saturating_sub(unique) as f64);
    (n * g / 2f64.powi(64)).min(1.0)
}

/// States expanded between two reads of the resident memory.
const MEMORY_EVERY: usize = 4096;

/// States expanded between two progress reports (the display decides when
/// to draw).
const PROGRESS_EVERY: usize = 256;

/// Full states the liveness pass may lift under symmetry when no state
/// bound is given: about a gigabyte of states kept whole.
const LIFT_BUDGET: usize = 2_000_000;

/// Deadlock (`anyone`) or starvation under symmetry: a stuck quotient
/// state (which does not depend on names) or a fair loop in a lift,
/// whichever is reached sooner.
fn symmetric_lasso<A: Lock>(
    world: &World<A>,
    g: &Graph,
    lifts: &[quotient::Lift<A>],
    anyone: bool,
) -> Option<Counterexample<A>> {
    let stuck = liveness::stuck(g, Waiting::Anyone).map(|l| (g.facts[l.entry as usize].depth, lasso(world, g, &l)));
    let whom: Vec<Waiting> = if anyone {
        vec![Waiting::Anyone]
    } else {
        (0..world.roles.len())
            .filter(|&i| world.roles[i] == Role::Client)
            .map(|c| Waiting::Client(c as u32))
            .collect()
    };
    let looped = whom
        .into_iter()
        .filter_map(|who| quotient::find(lifts, who))
        .min_by_key(|(lift, l)| lift.graph.facts[l.entry as usize].depth)
        .map(|(lift, l)| {
            (
                lift.graph.facts[l.entry as usize].depth,
                lifted_lasso(world, g, lift, &l),
            )
        });
    match (stuck, looped) {
        (Some(a), Some(b)) => Some(if b.0 < a.0 { b.1 } else { a.1 }),
        (a, b) => a.or(b).map(|(_, c)| c),
    }
}

/// A loop found in a lift, as a run from the initial state: the quotient's
/// shortest path to the loop's first state, which reaches a renaming of
/// it, then the loop's actions renamed the same way (so the run returns to
/// exactly the state where its loop began).
fn lifted_lasso<A: Lock>(
    world: &World<A>,
    g: &Graph,
    lift: &quotient::Lift<A>,
    l: &liveness::Lasso,
) -> Counterexample<A> {
    let entry = &lift.states[l.entry as usize];
    let (canon, to_canon) = world.canonical(entry.clone());
    let (s, back) = start(world);
    let (prefix, at, back) = walk(world, s, back, &g.path_to(lift.proj[l.entry as usize]));
    debug_assert!(at == canon, "the quotient path reaches the loop's orbit");
    let to_run: Vec<usize> = to_canon.iter().map(|&c| back[c]).collect();
    let mut enabled = Vec::new();
    let cycle = l
        .cycle
        .iter()
        .map(|(from, e)| {
            enabled.clear();
            world.enabled(&lift.states[*from as usize], &mut enabled);
            world.rename_action(&enabled.swap_remove(e.ordinal() as usize), &to_run)
        })
        .collect();
    Counterexample {
        prefix,
        cycle: Some(cycle),
    }
}

/// The canonical state at the end of a path of action positions.
fn replay_state<A: Program>(world: &World<A>, ords: &[u16]) -> WorldState<A> {
    let (s, back) = start(world);
    walk(world, s, back, ords).1
}

/// Whether `a`'s class is strongly fair in the liveness pass: a tick.
/// Time is strongly fair (docs/design.md §5 says weakly; see README "Time is
/// strongly fair"): a run that comes back for ever to states where a tick
/// may happen lets time pass. Under weak fairness a loop of urgent steps
/// with a non-urgent step between them (a whole acquisition over links
/// with `max_delay = 0`) could repeat for ever in no time at all, starving
/// a client whose timer needs one tick: a Zeno run, which no real system
/// has.
fn strongly_fair<A: Program>(a: &Action<A>) -> bool {
    matches!(a, Action::Tick)
}

/// Whether `a` is one outcome of a random choice ([`Actor::random`]):
/// fair per state in the liveness pass (docs/properties.md, "Random
/// choices are fair per state").
fn random<A: Program>(world: &World<A>, a: &Action<A>) -> bool {
    matches!(a, Action::Step { node, step } if world.actors[*node].random(*step))
}

/// The earliest starvation lasso over all clients.
fn starvation<A: Lock>(world: &World<A>, g: &Graph) -> Option<Counterexample<A>> {
    let clients = (0..world.roles.len()).filter(|&i| world.roles[i] == Role::Client);
    clients
        .filter_map(|c| liveness::find(g, Waiting::Client(c as u32)))
        .min_by_key(|l| g.facts[l.entry as usize].depth)
        .map(|l| lasso(world, g, &l))
}

fn lasso<A: Lock>(world: &World<A>, g: &Graph, l: &liveness::Lasso) -> Counterexample<A> {
    let prefix = g.path_to(l.entry);
    let cycle: Vec<u16> = l.cycle.iter().map(|(_, e)| e.ordinal()).collect();
    let (prefix, cycle) = replay_lasso(world, &prefix, &cycle);
    Counterexample {
        prefix,
        cycle: Some(cycle),
    }
}

/// Turns action positions back into actions by replaying from the start.
/// The graph's states are canonical (with symmetry on, each in its own
/// naming), so each action is renamed back to the names of the run that
/// started from the initial state.
fn replay_ordinals<A: Program>(world: &World<A>, ords: &[u16]) -> Vec<Action<A>> {
    let (s, back) = start(world);
    walk(world, s, back, ords).0
}

/// A lasso's prefix and loop, in the run's names. Under symmetry the loop
/// returns to the same canonical state, possibly with nodes renamed: it is
/// repeated until the run's own state returns too.
fn replay_lasso<A: Program>(world: &World<A>, prefix: &[u16], cycle: &[u16]) -> (Vec<Action<A>>, Vec<Action<A>>) {
    let (s, back) = start(world);
    let (prefix, s, back) = walk(world, s, back, prefix);
    let mut actions = Vec::new();
    let (mut at, mut names) = (s, back.clone());
    // A renaming of at most 8 nodes per group returns within 8! rounds; the
    // groups here are small, and 840 covers every order up to 8 elements.
    for _ in 0..840 {
        let (more, next, next_back) = walk(world, at, names, cycle);
        actions.extend(more);
        if next_back == back || cycle.is_empty() {
            break;
        }
        at = next;
        names = next_back;
    }
    (prefix, actions)
}

/// The canonical initial state and the map from its names to the run's.
fn start<A: Program>(world: &World<A>) -> (WorldState<A>, Vec<usize>) {
    let (s, perm) = world.canonical(world.init());
    (s, invert(&perm))
}

fn invert(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (old, new) in perm.iter().enumerate() {
        inv[*new] = old;
    }
    inv
}

/// Follows `ords` from canonical state `s`, whose names map to the run's
/// through `back`; returns the actions in the run's names, the canonical
/// state reached and its map.
fn walk<A: Program>(
    world: &World<A>,
    mut s: WorldState<A>,
    mut back: Vec<usize>,
    ords: &[u16],
) -> (Vec<Action<A>>, WorldState<A>, Vec<usize>) {
    let mut out = Vec::with_capacity(ords.len());
    let mut enabled = Vec::new();
    for &k in ords {
        enabled.clear();
        world.enabled(&s, &mut enabled);
        let a = enabled.swap_remove(k as usize);
        // The graph recorded this edge from this very state.
        let t = world.after(&s, &a).expect("a recorded edge changes the state");
        out.push(world.rename_action(&a, &back));
        let (t, perm) = world.canonical(t);
        let mut next_back = vec![0; back.len()];
        for (old, new) in perm.iter().enumerate() {
            next_back[*new] = back[old];
        }
        s = t;
        back = next_back;
    }
    (out, s, back)
}

#[cfg(test)]
mod tests;
