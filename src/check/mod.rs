//! Exhaustive checking (docs/design.md §6). locksmith walks the world's
//! `stateright::Model` itself, single-threaded and in a fixed order, so
//! that BFS counterexamples are the shortest and the same bytes on every
//! run; it keeps the labelled state graph, which the liveness pass needs and
//! stateright's checkers do not expose. A test cross-checks the state
//! counts and safety verdicts against stateright's own BFS.

pub mod checkpoint;
mod classes;
mod expand;
mod facts;
mod fingerprints;
mod frontier;
pub mod graph;
mod known;
pub mod liveness;
mod numbers;
mod pages;
pub mod quotient;
mod rebuild;
mod search;
pub mod seen;
mod slots;
mod successors;
mod summary;

use search::search;
pub use summary::{check_scenario, resume_scenario, PropSummary, Summary};

use std::collections::BTreeMap;
use std::time::Duration;

use graph::{Facts, Graph};
use liveness::Waiting;

use crate::interrupt::Interrupt;
use crate::progress::Progress;
use crate::properties::{view, Lock, LockView, Prop};
use crate::scenario::Verdict;
use crate::world::{Action, Program, Role, World, WorldState};

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
    /// The process's own resident memory ([`crate::memory::anonymous`])
    /// may not exceed this many bytes (checked every few thousand states;
    /// Linux only). Breadth-first, the search first drops its queued
    /// states, then moves its seen set, edges and queue to disk as often
    /// as needed; it stops, with open verdicts `unknown`, only when what
    /// stays in memory fills the bound.
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
    /// Save the search to this checkpoint as it goes (`--checkpoint`).
    pub checkpoint: Option<checkpoint::Checkpoint>,
    /// Drop the queued states once this many states are found, as the
    /// memory bound does when it is reached (`frontier.rs`): for tests,
    /// which cannot make the process's memory reach a bound on cue.
    pub drop_queue_at: Option<usize>,
    /// Move the seen set, the edges and the queue to disk whenever this
    /// many fingerprints are in memory, as the memory bound does once the
    /// queue keeps numbers only (`seen.rs`): for tests, as `drop_queue_at`.
    pub spill_every: Option<usize>,
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
    /// The unique states found when the memory bound made the queue drop
    /// its states and keep their numbers (`frontier.rs`), if it did:
    /// nothing else of the outcome depends on it.
    pub queue_dropped_at: Option<usize>,
    /// The unique states found at each move of the search to disk
    /// (`seen.rs`), if the memory bound made it move: nothing else of the
    /// outcome depends on it.
    pub spilled_at: Vec<usize>,
}

impl<A: Program> Outcome<A> {
    pub fn get(&self, prop: Prop) -> &PropOutcome<A> {
        self.props.iter().find(|p| p.prop == prop).unwrap_or(&self.props[0])
    }
}

/// Model-checks every property of `world`.
pub fn check<A: Lock>(world: &World<A>, opts: &Options) -> Outcome<A> {
    search(&searched(world, opts), opts, None)
}

/// [`check`] from where the search saved in `opts.checkpoint` left off;
/// an error, one sentence naming the file, when there is none to resume
/// or it is of another search.
pub fn resume<A: Lock>(world: &World<A>, opts: &Options) -> Result<Outcome<A>, String> {
    let c = opts.checkpoint.as_ref().ok_or("no checkpoint to resume from")?;
    let world = searched(world, opts);
    let start = checkpoint::load(&world, opts, c)?;
    Ok(search(&world, opts, Some(start)))
}

/// The world the search walks: without its symmetry groups under
/// `--no-symmetry`, where it canonicalises nothing and every action,
/// trace and report is in the run's own names already.
fn searched<'a, A: Lock>(world: &'a World<A>, opts: &Options) -> std::borrow::Cow<'a, World<A>> {
    if opts.no_symmetry && !world.symmetry.is_empty() {
        let mut full = world.clone();
        full.symmetry.clear();
        return std::borrow::Cow::Owned(full);
    }
    std::borrow::Cow::Borrowed(world)
}

/// What the liveness pass keeps of a state: who wants the lock, and its
/// depth.
fn facts<A: Lock>(world: &World<A>, s: &WorldState<A>, depth: u32) -> Facts {
    facts_in(&view(world, s), depth)
}

/// [`facts`] from the state's lock view `v`.
fn facts_in(v: &LockView, depth: u32) -> Facts {
    Facts {
        wanting: v.wanting,
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
    let stuck = liveness::stuck(g, Waiting::Anyone).map(|l| (g.facts.depth(l.entry), lasso(world, g, &l)));
    let whom: Vec<Waiting> = if anyone {
        vec![Waiting::Anyone]
    } else {
        clients(world).collect()
    };
    let looped = whom
        .into_iter()
        .filter_map(|who| quotient::find(lifts, who))
        .min_by_key(|(lift, l)| lift.graph.facts.depth(l.entry))
        .map(|(lift, l)| (lift.graph.facts.depth(l.entry), lifted_lasso(world, g, lift, &l)));
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

/// The clients whose starvation the liveness pass looks for, in order.
fn clients<A: Program>(world: &World<A>) -> impl Iterator<Item = Waiting> + '_ {
    (0..world.roles.len())
        .filter(|&i| world.roles[i] == Role::Client)
        .map(|c| Waiting::Client(c as u32))
}

/// The earliest of the clients' starvation lassos (the first client's
/// where two are as early).
fn starvation<A: Lock>(world: &World<A>, g: &Graph, lassos: &[Option<liveness::Lasso>]) -> Option<Counterexample<A>> {
    lassos
        .iter()
        .flatten()
        .min_by_key(|l| g.facts.depth(l.entry))
        .map(|l| lasso(world, g, l))
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
