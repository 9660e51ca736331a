//! `locksmith explore`: stateright's web explorer over a scenario's world
//! (docs/design.md §6, §12), in the words of `trace.md`.
//!
//! The explorer is stateright's own (its page, its HTTP API, its on-demand
//! checker); this module is the `stateright::Model` it is served: the
//! scenario's [`World`] wrapped so that
//! - actions read as the traces write them ([`World::describe`]), and each
//!   step shows what it changed and the whole state in the families'
//!   `show_*` words, never Rust's `Debug`;
//! - the current path is drawn as a sequence diagram ([`diagram`]);
//! - states are canonical under symmetry reduction: stateright's explorer
//!   ignores `.symmetry()`, so, as `check` does, the model returns every
//!   state in its representative form, and "Run to completion" counts the
//!   same unique states as `check`;
//! - the properties are the world's own stateright properties (the safety
//!   ones; liveness needs locksmith's own pass over the whole graph, which
//!   [`liveness`] runs as `check` does, for the page);
//! - the page is locksmith's ([`front`]): titled with the scenario, opened
//!   on its initial state, with the liveness verdicts beside the safety
//!   properties.

pub mod diagram;
pub mod front;
pub mod liveness;

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use stateright::{Model, Path, Property};

use crate::properties::{view, Lock};
use crate::report::story::{changed, fields};
use crate::world::{Action, Status, World, WorldState};

/// The scenario's world as the explorer serves it.
pub struct Explorer<A: Lock> {
    world: Arc<World<A>>,
}

impl<A: Lock> Explorer<A> {
    /// The explorer over `world`, which it may share (with [`liveness`]'s
    /// check).
    pub fn new(world: Arc<World<A>>) -> Self {
        Explorer { world }
    }

    pub fn world(&self) -> &World<A> {
        &self.world
    }

    fn shown(&self, state: WorldState<A>) -> Shown<A> {
        Shown {
            state,
            world: Arc::clone(&self.world),
        }
    }
}

/// A world state that prints itself in plain words. The explorer shows a
/// state through `Debug` (the initial state, and "Complete State?"), so
/// `Debug` here is the words; the world rides along only to name things,
/// and equality and hashing (the explorer's fingerprints) see the state
/// alone.
#[derive(Clone)]
pub struct Shown<A: Lock> {
    pub state: WorldState<A>,
    world: Arc<World<A>>,
}

impl<A: Lock> PartialEq for Shown<A> {
    fn eq(&self, other: &Self) -> bool {
        self.state == other.state
    }
}

impl<A: Lock> Eq for Shown<A> {}

impl<A: Lock> Hash for Shown<A> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.state.hash(h);
    }
}

impl<A: Lock> fmt::Debug for Shown<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&state_words(&self.world, &self.state))
    }
}

/// The whole state in words, one line per node, then the network, the
/// faults spent and who holds and wants the lock.
pub fn state_words<A: Lock>(world: &World<A>, s: &WorldState<A>) -> String {
    let mut lines: Vec<String> = (0..s.nodes.len()).map(|i| node_words(world, s, i)).collect();
    network_words(world, s, &mut lines);
    fault_words(world, s, &mut lines);
    let v = view(world, s);
    let who = |mask: u64| -> String {
        let names: Vec<&str> = (0..world.names.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| world.name(i))
            .collect();
        if names.is_empty() {
            "nobody".into()
        } else {
            names.join(", ")
        }
    };
    lines.push(format!("believe they hold the lock: {}", who(v.holding)));
    lines.push(format!("want the lock: {}", who(v.wanting)));
    lines.join("\n")
}

/// One node's line: its status, variables, timers, stopwatches and clock.
fn node_words<A: Lock>(world: &World<A>, s: &WorldState<A>, i: usize) -> String {
    let n = &s.nodes[i];
    let status = match n.status {
        Status::Up => "up".to_string(),
        Status::Paused(k) => format!("paused, {k} tick{} left", plural(k as i64)),
        Status::Down => "down".to_string(),
    };
    let mut parts: Vec<String> = fields(world, i, &n.state)
        .0
        .into_iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    for (t, v) in &n.timers {
        parts.push(format!("{} {v}", world.show_timer(i, t)));
    }
    for (w, v) in &n.watches {
        parts.push(format!("stopwatch {} at {v}", format!("{w:?}").to_lowercase()));
    }
    if n.skew != 0 {
        let ahead = if n.skew > 0 { "ahead" } else { "behind" };
        parts.push(format!(
            "clock {} tick{} {ahead}",
            n.skew.unsigned_abs(),
            plural(n.skew as i64)
        ));
    }
    format!("{} ({status}): {}", world.name(i), parts.join(", "))
}

/// The network's lines: the messages in flight, the links cut and the
/// connections broken.
fn network_words<A: Lock>(world: &World<A>, s: &WorldState<A>, lines: &mut Vec<String>) {
    if s.net.is_empty() {
        lines.push("in flight: nothing".into());
    } else {
        lines.push("in flight:".into());
        for e in &s.net {
            let age = if world.faults.max_delay.is_some() {
                format!(" ({} tick{} old)", e.age, plural(e.age as i64))
            } else {
                String::new()
            };
            lines.push(format!(
                "  {} to {}: {}{age}{}",
                world.name(e.src),
                world.name(e.dst),
                world.show_msg(e.src, &e.msg),
                if e.copied { ", duplicated" } else { "" }
            ));
        }
    }
    let links = |label: &str, sep: &str, pairs: &[(usize, usize)]| {
        let shown: Vec<String> = pairs
            .iter()
            .map(|(a, b)| format!("{}{sep}{}", world.name(*a), world.name(*b)))
            .collect();
        format!("{label}: {}", shown.join(", "))
    };
    if !s.cut.is_empty() {
        lines.push(links("cut links", "-", &s.cut));
    }
    if !s.one_way.is_empty() {
        lines.push(links("links cut one way", "->", &s.one_way));
    }
    if !s.broken.is_empty() {
        let broken: Vec<String> = s
            .broken
            .iter()
            .map(|c| {
                format!(
                    "{}-{}{}",
                    world.name(c.node),
                    world.name(c.peer),
                    if c.noticed { "" } else { " (not yet noticed)" }
                )
            })
            .collect();
        lines.push(format!("broken connections: {}", broken.join(", ")));
    }
}

/// The fault budgets spent so far, where the scenario gives any.
fn fault_words<A: Lock>(world: &World<A>, s: &WorldState<A>, lines: &mut Vec<String>) {
    let f = &world.faults;
    let spent: Vec<String> = [
        ("crashes", s.spent.crashes, f.crashes),
        ("pauses", s.spent.pauses, f.pauses),
        ("partitions", s.spent.partitions, f.partitions),
        ("clock jumps", s.spent.clock_jumps, f.clock_jumps),
    ]
    .into_iter()
    .filter(|(_, _, budget)| *budget > 0)
    .map(|(what, used, budget)| format!("{what} {used} of {budget}"))
    .collect();
    if !spent.is_empty() {
        lines.push(format!("faults spent: {}", spent.join(", ")));
    }
}

fn plural(n: i64) -> &'static str {
    if n.abs() == 1 {
        ""
    } else {
        "s"
    }
}

/// The world's property number `K`, lifted to the explorer's model: a
/// property is a plain `fn`, so each index needs its own.
fn lifted<A: Lock, const K: usize>(m: &Explorer<A>, s: &Shown<A>) -> bool {
    (m.world.properties[K].condition)(&m.world, &s.state)
}

/// A property's condition over the explorer's model.
type Condition<A> = fn(&Explorer<A>, &Shown<A>) -> bool;

/// Up to this many of the world's properties show in the explorer (a
/// world declares four at most).
const MAX_PROPERTIES: usize = 8;

impl<A: Lock> Model for Explorer<A> {
    type State = Shown<A>;
    type Action = Action<A>;

    fn init_states(&self) -> Vec<Self::State> {
        vec![self.shown(self.world.canonical(self.world.init()).0)]
    }

    fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>) {
        self.world.enabled(&state.state, actions);
    }

    fn next_state(&self, last: &Self::State, action: Self::Action) -> Option<Self::State> {
        let next = self.world.after(&last.state, &action)?;
        Some(self.shown(self.world.canonical(next).0))
    }

    fn format_action(&self, action: &Self::Action) -> String {
        self.world.describe(action)
    }

    /// What the step changed, in trace.md's words, then the whole state
    /// it leads to. Under symmetry the state is shown in its canonical
    /// form, which may rename interchangeable nodes: said when it does.
    fn format_step(&self, last: &Self::State, action: Self::Action) -> Option<String> {
        let w = &*self.world;
        let next = w.after(&last.state, &action)?;
        let what = changed(w, &action, (&last.state, &next), (&last.state, &next));
        let (canonical, perm) = w.canonical(next);
        let mut text = format!("{}\n", w.describe(&action));
        if !what.is_empty() {
            text += &format!("changed: {}\n", what.replace("**", ""));
        }
        let renamed: Vec<String> = perm
            .iter()
            .enumerate()
            .filter(|(old, new)| old != *new)
            .map(|(old, new)| format!("{} as {}", w.name(old), w.name(*new)))
            .collect();
        if !renamed.is_empty() {
            text += &format!("shown in canonical form (symmetry reduction): {}\n", renamed.join(", "));
        }
        text += "\n";
        text += &state_words(w, &canonical);
        Some(text)
    }

    /// The path's diagram, in the names of the run it describes: under
    /// symmetry each state and action is mapped back from its canonical
    /// form (as `check` maps its traces), so a node keeps its lane.
    fn as_svg(&self, path: Path<Self::State, Self::Action>) -> Option<String> {
        let w = &*self.world;
        let mut steps: Vec<(WorldState<A>, Option<Action<A>>)> = Vec::new();
        let (_, perm) = w.canonical(w.init());
        let mut back = vec![0; perm.len()];
        for (old, new) in perm.iter().enumerate() {
            back[*new] = old;
        }
        for (s, a) in path.into_vec() {
            steps.push((
                w.rename_state(&s.state, &back),
                a.as_ref().map(|a| w.rename_action(a, &back)),
            ));
            let Some(next) = a.and_then(|a| w.after(&s.state, &a)) else {
                continue;
            };
            let (_, perm) = w.canonical(next);
            let mut next_back = vec![0; back.len()];
            for (old, new) in perm.iter().enumerate() {
                next_back[*new] = back[old];
            }
            back = next_back;
        }
        Some(diagram::svg(w, &steps))
    }

    fn properties(&self) -> Vec<Property<Self>> {
        let lifted: [Condition<A>; MAX_PROPERTIES] = [
            lifted::<A, 0>,
            lifted::<A, 1>,
            lifted::<A, 2>,
            lifted::<A, 3>,
            lifted::<A, 4>,
            lifted::<A, 5>,
            lifted::<A, 6>,
            lifted::<A, 7>,
        ];
        self.world
            .properties
            .iter()
            .zip(lifted)
            .map(|(p, condition)| Property {
                expectation: p.expectation.clone(),
                name: p.name,
                condition,
            })
            .collect()
    }
}
