//! A counterexample as traces tell it: its states, and every lock value,
//! token and ghost number under a name that stays the same for the whole
//! trace.
//!
//! The world renumbers growing values by rank after every step (docs/design.md
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
//!
//! It also holds the narration that trace.md, trace.svg and the explorer
//! share: what a step changed, what it raised, whose belief changed, who
//! the diagram shows and who the violation is about, and the verdict line.

use std::collections::HashMap;

use super::diff::{self, changes, leaves};
use crate::check::Counterexample;
use crate::properties::{view, Lock, Prop, FOREIGN_RELEASE, STALE_WRITE};
use crate::world::{Action, Envelope, Program, Seq, Status, World, WorldState};

/// Names of the values present in one state: `(sequence, value)` → name.
type Names = HashMap<(Seq, u32), u32>;

/// A counterexample replayed from the initial state.
pub struct Story<A: Program> {
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

impl<A: Program> Story<A> {
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
fn values<A: Program>(world: &World<A>, s: &WorldState<A>) -> Vec<(Seq, u32)> {
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
fn visit<A: Program>(world: &World<A>, s: &mut WorldState<A>, f: &mut impl FnMut(Seq, &mut u32)) {
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
fn carry<A: Program>(
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

fn rename_state<A: Program>(world: &World<A>, s: &WorldState<A>, names: &Names) -> WorldState<A> {
    let mut s = s.clone();
    visit(world, &mut s, &mut rename(names));
    s
}

fn rename_action<A: Program>(world: &World<A>, a: &Action<A>, names: &Names) -> Action<A> {
    let mut a = a.clone();
    if let Action::Deliver { dst, msg, .. } | Action::Lose { dst, msg, .. } | Action::Duplicate { dst, msg, .. } =
        &mut a
    {
        world.actors[*dst].numbers_msg(msg, &mut rename(names));
    }
    a
}

/// The verdict in one bold sentence: who holds the lock at the last step,
/// or who waits from the loop on. trace.md and trace.svg both state it.
pub(super) fn verdict_line<A: Lock>(
    world: &World<A>,
    prop: Prop,
    states: &[WorldState<A>],
    loop_at: Option<usize>,
) -> String {
    let last = &states[states.len() - 1];
    let names = |mask: u64| -> String {
        let v: Vec<&str> = (0..world.names.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| world.name(i))
            .collect();
        v.join(" and ")
    };
    match prop {
        Prop::MutualExclusion => format!("**At the last step, {} both believe they hold the lock.**", names(view(world, last).holding))
            .replace(" both believe", if view(world, last).holding.count_ones() > 2 { " all believe" } else { " both believe" }),
        Prop::RwExclusion => format!("**At the last step, {} believe they hold the lock, and one of them is a writer.**", names(view(world, last).holding)),
        Prop::NoStaleWrite => "**At the last step, the resource accepts a write made under an earlier acquisition than one it already accepted.**".into(),
        Prop::NoForeignRelease => "**At the last step, a release removes a lock that another client acquired.**".into(),
        _ => {
            let k = loop_at.unwrap_or(states.len() - 1);
            let wanting = view(world, &states[k]).wanting;
            let (who, s) = (names(wanting), if wanting.count_ones() == 1 { "s" } else { "" });
            // A loop that starts after the last action is no loop: the run
            // is stuck there, and nothing fair is left to take.
            if k + 1 >= states.len() {
                format!("**After step {k}, {who} want{s} the lock and nothing fair is left to do: the run stops there, with no acquisition.**")
            } else {
                format!("**From step {k} on, {who} want{s} the lock and the run goes on forever, fairly and without faults, with no acquisition.**")
            }
        }
    }
}

fn status(before: Status, after: Status) -> Option<String> {
    Some(match (before, after) {
        (Status::Paused(_), Status::Paused(_)) => return None,
        (Status::Paused(_), Status::Up) => "resumes".into(),
        (Status::Up, Status::Up) | (Status::Down, Status::Down) => return None,
        (_, Status::Up) => "up".into(),
        (_, Status::Paused(k)) => format!("paused, {k} tick{} left", if k == 1 { "" } else { "s" }),
        (_, Status::Down) => "down".into(),
    })
}

/// A node's state as `(field, value)` pairs: the family's own words, or
/// (`true`) the leaves of its `Debug` text when it shows none.
pub(crate) fn fields<A: Lock>(world: &World<A>, id: usize, state: &A::State) -> (Vec<(String, String)>, bool) {
    match world.actors[id].show_state(state, &world.names) {
        Some(f) => (f, false),
        None => (leaves(&format!("{state:?}")), true),
    }
}

/// Messages in `after` that are not in `before`: the ones just sent.
fn sent<M: PartialEq>(before: &[Envelope<M>], after: &[Envelope<M>]) -> Vec<usize> {
    let mut pool: Vec<&Envelope<M>> = before.iter().collect();
    let mut out = Vec::new();
    for (i, e) in after.iter().enumerate() {
        match pool
            .iter()
            .position(|o| o.src == e.src && o.dst == e.dst && o.msg == e.msg)
        {
            Some(k) => {
                pool.remove(k);
            }
            None => out.push(i),
        }
    }
    out
}

/// What an action changed. `ranked`: the states as the world has them
/// (timers, the lock view); `shown`: the same with values named, for
/// states and messages.
pub(crate) fn changed<A: Lock>(
    world: &World<A>,
    a: &Action<A>,
    ranked: (&WorldState<A>, &WorldState<A>),
    shown: (&WorldState<A>, &WorldState<A>),
) -> String {
    let (before, after) = shown;
    let mut out = Vec::new();
    let ticking = matches!(a, Action::Tick | Action::Drift { .. });
    for (i, (b, n)) in before.nodes.iter().zip(&after.nodes).enumerate() {
        let name = world.name(i);
        if let Some(st) = status(b.status, n.status) {
            out.push(format!("{name} {st}"));
        }
        let diff = match (fields(world, i, &b.state), fields(world, i, &n.state)) {
            ((x, false), (y, false)) => diff::fields(&x, &y),
            _ => changes(&format!("{:?}", b.state), &format!("{:?}", n.state)),
        };
        if !diff.is_empty() {
            out.push(format!("{name}: {}", diff.join(", ")));
        }
        if let Some(why) = world.actors[i].decision(i, b, n, a) {
            out.push(format!("{name} {why}"));
        }
        for (t, v) in &n.timers {
            let set = b.timer(*t).is_none_or(|o| *v > o) && !ticking;
            if set {
                out.push(format!("{name} sets {} to {v}", world.show_timer(i, t)));
            }
        }
        for (t, _) in &b.timers {
            if n.timer(*t).is_none()
                && !matches!(a, Action::Fire { timer, .. } if timer == t)
                && n.status != Status::Down
            {
                out.push(format!("{name} cancels {}", world.show_timer(i, t)));
            }
        }
    }
    for i in sent(&before.net, &after.net) {
        let e = &after.net[i];
        out.push(format!(
            "{} sends {} to {}",
            world.name(e.src),
            world.show_msg(e.src, &e.msg),
            world.name(e.dst)
        ));
    }
    out.extend(alarms(before, after).into_iter().map(|a| format!("**{a}**")));
    if ticking {
        let running: Vec<String> = after
            .nodes
            .iter()
            .enumerate()
            .flat_map(|(i, n)| {
                n.timers
                    .iter()
                    .map(move |(t, v)| format!("{} {} {v}", world.name(i), world.show_timer(i, t)))
            })
            .collect();
        if !running.is_empty() {
            out.push(format!("timers: {}", running.join(", ")));
        }
        for (i, n) in after.nodes.iter().enumerate() {
            if n.waited > before.nodes[i].waited {
                let w = n.waited;
                out.push(format!(
                    "{} has worked {w} tick{}",
                    world.name(i),
                    if w == 1 { "" } else { "s" }
                ));
            }
        }
    }
    for (i, holds) in belief_changes(world, ranked.0, ranked.1) {
        if holds {
            out.push(format!("**{} now believes it holds the lock**", world.name(i)));
        } else {
            out.push(format!("{} no longer believes it holds the lock", world.name(i)));
        }
    }
    out.join("; ")
}

/// What a step raised that the safety properties forbid, in words.
pub(super) fn alarms<A: Lock>(before: &WorldState<A>, after: &WorldState<A>) -> Vec<&'static str> {
    let raised = after.history & !before.history;
    let mut out = Vec::new();
    if raised & FOREIGN_RELEASE != 0 {
        out.push("a lock another client acquired is released");
    }
    if raised & STALE_WRITE != 0 {
        out.push("the resource accepts a stale write");
    }
    out
}

/// The clients whose belief that they hold the lock changes between two
/// states as the world has them (the lock view), in id order, with
/// whether they now hold it. trace.md's notes and trace.svg's bars both
/// follow this.
pub(super) fn belief_changes<A: Lock>(
    world: &World<A>,
    before: &WorldState<A>,
    after: &WorldState<A>,
) -> Vec<(usize, bool)> {
    let (vb, va) = (view(world, before), view(world, after));
    (0..world.names.len())
        .filter(|i| (va.holding ^ vb.holding) & (1 << i) != 0)
        .map(|i| (i, va.holding & (1 << i) != 0))
        .collect()
}

/// The ids of `mask`, in order.
pub(super) fn ids(mask: u64, n: usize) -> Vec<usize> {
    (0..n).filter(|i| mask & (1 << i) != 0).collect()
}

/// The nodes a diagram shows: those that act, send or receive, come to hold
/// the lock, or take part in the violation.
pub(super) fn participants<A: Lock>(world: &World<A>, story: &Story<A>, prop: Prop) -> Vec<usize> {
    let n = world.names.len();
    let mut used = vec![false; n];
    for a in &story.actions {
        match a {
            Action::Deliver { src, dst, .. } | Action::Lose { src, dst, .. } | Action::Duplicate { src, dst, .. } => {
                used[*src] = true;
                used[*dst] = true;
            }
            Action::Partition { a, b } | Action::Cut { src: a, dst: b } => {
                used[*a] = true;
                used[*b] = true;
            }
            Action::Disconnected { peer, .. } | Action::Reconnect { peer, .. } => used[*peer] = true,
            Action::Drift { fast, slow } => fast.iter().chain(slow).for_each(|i| used[*i] = true),
            _ => {}
        }
        if let Some(node) = a.node() {
            used[node] = true;
        }
    }
    for s in &story.states {
        ids(view(world, s).holding, n).into_iter().for_each(|i| used[i] = true);
    }
    for i in violators(world, story, prop) {
        used[i] = true;
    }
    (0..n).filter(|i| used[*i]).collect()
}

/// Who the violation is about: the holders at the last step, the client
/// that waits for ever, or the node of the last step.
pub(super) fn violators<A: Lock>(world: &World<A>, story: &Story<A>, prop: Prop) -> Vec<usize> {
    let n = world.names.len();
    let last = &story.states[story.states.len() - 1];
    let who = match prop {
        Prop::MutualExclusion | Prop::RwExclusion => ids(view(world, last).holding, n),
        Prop::DeadlockFreedom | Prop::StarvationFreedom => {
            let k = story.loop_at.unwrap_or(story.states.len() - 1);
            ids(view(world, &story.states[k]).wanting, n)
        }
        _ => Vec::new(),
    };
    if who.is_empty() {
        story.actions.last().and_then(|a| a.node()).into_iter().collect()
    } else {
        who
    }
}
