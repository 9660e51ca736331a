//! A counterexample as traces tell it: its states, and every lock value,
//! token and ghost number under a name that stays the same for the whole
//! trace.
//!
//! The world renumbers growing values by rank after every step (DESIGN.md
//! §2), so the value a client drew as 2 may read 1 a step later, when an
//! older value is forgotten. Printed as it is, a pure renumbering would look
//! like a change ("value 2 → 1"). So the story follows each value through
//! the renumbering: it replays each step without renumbering
//! ([`World::after_unranked`]), where values kept keep their numbers and the
//! new ones lie above them, names each new value by the order in which it
//! appeared (the n-th value drawn in the trace is `v{n}`), and carries the
//! names over to the renumbered state by position. Shown states and actions
//! hold these names in place of the values, so `show_*` prints them as they
//! are.

use std::collections::HashMap;

use crate::check::Counterexample;
use crate::world::{Action, Actor, Seq, World, WorldState};

/// Names of the values present in one state: `(sequence, value)` → name.
type Names = HashMap<(Seq, u32), u32>;

/// A counterexample replayed from the initial state.
pub struct Story<A: Actor> {
    /// The actions, prefix then loop, as the counterexample holds them.
    pub actions: Vec<Action<A>>,
    /// Index in `actions` where the fair loop begins (liveness only).
    pub loop_at: Option<usize>,
    /// `states[i]` is the state before `actions[i]`; one more at the end.
    pub states: Vec<WorldState<A>>,
    /// `states` with every growing value replaced by its name.
    pub shown: Vec<WorldState<A>>,
    /// `actions` with the values in their messages replaced by their names.
    pub shown_actions: Vec<Action<A>>,
}

impl<A: Actor> Story<A> {
    pub fn new(world: &World<A>, cx: &Counterexample<A>) -> Story<A> {
        let actions: Vec<Action<A>> = cx.prefix.iter().chain(cx.cycle.iter().flatten()).cloned().collect();
        let loop_at = cx.cycle.as_ref().map(|_| cx.prefix.len());
        let init = world.init();
        let mut next = [0u32; 4];
        let mut names = carry(world, &init, &init, &Names::new(), &mut next);
        let mut states = vec![init];
        let mut shown = Vec::new();
        let mut shown_actions = Vec::new();
        for a in &actions {
            let s = &states[states.len() - 1];
            shown.push(rename_state(world, s, &names));
            shown_actions.push(rename_action(world, a, &names));
            // A counterexample only holds enabled steps that change the state.
            let raw = world.after_unranked(s, a).unwrap_or_else(|| s.clone());
            let ranked = world.after(s, a).unwrap_or_else(|| s.clone());
            names = carry(world, &raw, &ranked, &names, &mut next);
            states.push(ranked);
        }
        shown.push(rename_state(world, &states[states.len() - 1], &names));
        Story {
            actions,
            loop_at,
            states,
            shown,
            shown_actions,
        }
    }
}

/// Every growing value in `s` that is renumbered by rank, in the world's
/// visiting order. Lamport clocks ([`Seq::Clock`]) are shifted, not ranked:
/// their differences are what a reader compares, so they are shown as the
/// state holds them.
fn values<A: Actor>(world: &World<A>, s: &WorldState<A>) -> Vec<(Seq, u32)> {
    let mut s = s.clone();
    let mut out = Vec::new();
    visit(world, &mut s, &mut |seq, v| {
        if seq != Seq::Clock {
            out.push((seq, *v));
        }
    });
    out
}

/// Visits the values of `s` as the world's renumbering does: each node's
/// state, then each message in flight through its receiver's program.
fn visit<A: Actor>(world: &World<A>, s: &mut WorldState<A>, f: &mut dyn FnMut(Seq, &mut u32)) {
    for (id, n) in s.nodes.iter_mut().enumerate() {
        world.actors[id].numbers(&mut n.state, f);
    }
    for e in s.net.iter_mut() {
        world.actors[e.dst].numbers_msg(&mut e.msg, f);
    }
}

/// The names of the values in `ranked`, the renumbering of `raw`: a value
/// of `raw` named in `old` keeps its name, a new one gets the next name of
/// its sequence (in the order drawn), and the names move to `ranked` by
/// position. Zero means "none" and is never named.
fn carry<A: Actor>(
    world: &World<A>,
    raw: &WorldState<A>,
    ranked: &WorldState<A>,
    old: &Names,
    next: &mut [u32; 4],
) -> Names {
    let before = values(world, raw);
    let mut fresh: Vec<(Seq, u32)> = before
        .iter()
        .filter(|(seq, v)| *v != 0 && !old.contains_key(&(*seq, *v)))
        .copied()
        .collect();
    fresh.sort();
    fresh.dedup();
    let mut named = old.clone();
    for (seq, v) in fresh {
        next[seq as usize] += 1;
        named.insert((seq, v), next[seq as usize]);
    }
    let after = values(world, ranked);
    before
        .iter()
        .zip(&after)
        .filter(|((_, v), _)| *v != 0)
        .map(|(b, a)| (*a, named[b]))
        .collect()
}

fn rename(names: &Names) -> impl FnMut(Seq, &mut u32) + '_ {
    move |seq, v| {
        if seq == Seq::Clock {
            return;
        }
        if let Some(n) = names.get(&(seq, *v)) {
            *v = *n;
        }
    }
}

fn rename_state<A: Actor>(world: &World<A>, s: &WorldState<A>, names: &Names) -> WorldState<A> {
    let mut s = s.clone();
    visit(world, &mut s, &mut rename(names));
    s
}

fn rename_action<A: Actor>(world: &World<A>, a: &Action<A>, names: &Names) -> Action<A> {
    let mut a = a.clone();
    if let Action::Deliver { dst, msg, .. } | Action::Lose { dst, msg, .. } | Action::Duplicate { dst, msg, .. } =
        &mut a
    {
        world.actors[*dst].numbers_msg(msg, &mut rename(names));
    }
    a
}
