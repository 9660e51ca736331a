//! `trace.md`: what a person reads first. The violated property, a
//! numbered table of steps (time, clocks, action, what changed) and a
//! Mermaid sequence diagram.

use std::fmt::Write;
use std::path::Path;

use super::diff::{self, changes, leaves};
use super::story::Story;
use crate::check::Counterexample;
use crate::properties::{view, Lock, Prop, FOREIGN_RELEASE, STALE_WRITE};
use crate::scenario::Scenario;
use crate::world::{Action, Envelope, Status, World, WorldState};

pub fn trace_md<A: Lock>(sc: &Scenario, world: &World<A>, prop: Prop, cx: &Counterexample<A>, json: &Path) -> String {
    let story = Story::new(world, cx);
    let (actions, states, shown, loop_at) = (&story.shown_actions, &story.states, &story.shown, story.loop_at);
    let mut md = String::new();
    let _ = writeln!(md, "# {}: {} violated\n", sc.name, prop.name());
    let _ = writeln!(md, "> **{}**: {}.\n", prop.name(), prop.meaning());
    let _ = writeln!(md, "{}\n", sc.summary);
    let faults: Vec<String> = actions
        .iter()
        .filter(|a| a.is_fault())
        .map(|a| world.describe(a))
        .collect();
    let _ = writeln!(
        md,
        "Algorithm `{}`; {} steps{}; faults in this trace: {}.\n",
        sc.algorithm,
        actions.len(),
        match (&cx.cycle, loop_at) {
            (Some(c), Some(k)) if c.is_empty() => format!(", stuck after step {k} with nothing fair left to do"),
            (Some(_), Some(k)) => format!(", a fair loop from step {} on that repeats forever", k + 1),
            _ => String::new(),
        },
        if faults.is_empty() {
            "none".into()
        } else {
            faults.join("; ")
        }
    );
    let _ = writeln!(md, "Replay it: `locksmith replay {}`\n", json.display());
    let svg = super::svg::file_name(json);
    let _ = writeln!(md, "Timeline: [{svg}]({svg})\n");
    if let Some(module) = super::itf::spec_module(&sc.algorithm).filter(|_| A::tla_vars(world, &states[0]).is_some()) {
        let itf = json.with_extension("itf.json");
        let _ = writeln!(
            md,
            "For TLA+ tools: [{}]({}), this trace as a behaviour of `specs/mirror/{module}.tla` (the Rust state written in TLA+) in the Informal Trace Format.\n",
            itf.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            itf.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        );
    }
    let _ = writeln!(md, "{}\n", verdict_line(world, prop, states, loop_at));
    let debug_shown = (0..world.actors.len()).any(|i| fields(world, i, &states[0].nodes[i].state).1);
    if debug_shown {
        let legend: Vec<String> = world
            .names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{i} = {n}"))
            .collect();
        let _ = writeln!(md, "States refer to nodes by number: {}.\n", legend.join(", "));
    }

    let _ = writeln!(md, "## Steps\n");
    let _ = writeln!(
        md,
        "Time is real time in ticks; clocks lists only the nodes whose local clock differs from it. \
         Lock values are named v1, v2... in the order they were drawn, and #1, #2... number the \
         acquisitions in the order the lock was granted (a ghost the model keeps to check \
         no_stale_write; the real system has no such number).\n"
    );
    let _ = writeln!(md, "| # | time | clocks | action | what changed |");
    let _ = writeln!(md, "|---|---|---|---|---|");
    let mut clock = Clocks::new(states[0].nodes.len());
    let _ = writeln!(md, "| 0 | 0 | | initial state | {} |", cell(&initial(world, &shown[0])));
    for (i, a) in actions.iter().enumerate() {
        if loop_at == Some(i) {
            let _ = writeln!(md, "| | | | **the loop below repeats forever** | |");
        }
        clock.step(a);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            i + 1,
            clock.real,
            clock.show(world),
            cell(&world.describe(a)),
            cell(&changed(
                world,
                a,
                (&states[i], &states[i + 1]),
                (&shown[i], &shown[i + 1])
            ))
        );
    }
    if loop_at == Some(actions.len()) {
        let _ = writeln!(md, "| | | | **stuck: no fair action is enabled** | |");
    }
    let _ = writeln!(md, "\n## Sequence\n");
    md.push_str(&mermaid(world, prop, &story));
    let _ = writeln!(md, "\n## The scenario\n");
    let _ = writeln!(md, "{}\n", sc.description.trim());
    for r in &sc.references {
        let _ = writeln!(md, "- {r}");
    }
    md
}

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
            format!(
                "**From step {} on, {} want{} the lock and the run goes on forever, fairly and without faults, with no acquisition.**",
                k,
                names(view(world, &states[k]).wanting),
                if view(world, &states[k]).wanting.count_ones() == 1 { "s" } else { "" }
            )
        }
    }
}

/// Real time and each node's local clock, followed along the trace.
struct Clocks {
    real: i64,
    local: Vec<i64>,
}

impl Clocks {
    fn new(n: usize) -> Self {
        Clocks {
            real: 0,
            local: vec![0; n],
        }
    }

    fn step<A: Lock>(&mut self, a: &Action<A>) {
        match a {
            // A crashed machine's clock runs on, like its durable timers.
            Action::Tick => {
                self.real += 1;
                self.local.iter_mut().for_each(|l| *l += 1);
            }
            Action::Drift { fast, slow } => {
                self.real += 1;
                for (i, l) in self.local.iter_mut().enumerate() {
                    *l += 1 + i64::from(fast.contains(&i)) - i64::from(slow.contains(&i));
                }
            }
            Action::ClockJump { node, by } => self.local[*node] += *by as i64,
            _ => {}
        }
    }

    fn show<A: Lock>(&self, world: &World<A>) -> String {
        let off: Vec<String> = (0..self.local.len())
            .filter(|i| self.local[*i] != self.real)
            .map(|i| format!("{} {}", world.name(i), self.local[i]))
            .collect();
        off.join(", ")
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

fn initial<A: Lock>(world: &World<A>, s: &WorldState<A>) -> String {
    let mut out = Vec::new();
    for (i, n) in s.nodes.iter().enumerate() {
        let shown: Vec<String> = fields(world, i, &n.state)
            .0
            .into_iter()
            .map(|(p, v)| format!("{p} {v}"))
            .collect();
        if !shown.is_empty() {
            out.push(format!("{}: {}", world.name(i), shown.join(", ")));
        }
    }
    out.join("; ")
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

/// Escapes a table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Mermaid ends a statement at `;` and reads `#` as the start of an entity
/// code: both are written as entity codes.
fn label(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '#' => "#35;".to_string(),
            ';' => "#59;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// The ids of `mask`, in order.
fn ids(mask: u64, n: usize) -> Vec<usize> {
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

/// `Note over` one node, or a span of nodes.
fn over<A: Lock>(world: &World<A>, ids: &[usize]) -> String {
    match ids {
        [] => String::new(),
        [one] => world.name(*one).to_string(),
        [first, .., last] => format!("{},{}", world.name(*first), world.name(*last)),
    }
}

fn mermaid<A: Lock>(world: &World<A>, prop: Prop, story: &Story<A>) -> String {
    let mut m = String::from("```mermaid\nsequenceDiagram\n");
    let shown = participants(world, story, prop);
    for id in &shown {
        let _ = writeln!(m, "    participant {}", world.name(*id));
    }
    let all = over(world, &shown);
    let mut ticks = 0;
    let mut time = 0;
    let flush = |m: &mut String, ticks: &mut usize, time: usize| {
        if *ticks > 0 {
            let _ = writeln!(m, "    Note over {all}: time passes to t={time}");
            *ticks = 0;
        }
    };
    let n = world.names.len();
    let stuck = story.loop_at == Some(story.actions.len());
    for (i, a) in story.shown_actions.iter().enumerate() {
        if story.loop_at == Some(i) {
            flush(&mut m, &mut ticks, time);
            m.push_str("    loop forever, fair and fault-free\n");
        }
        let (before, after) = (&story.states[i], &story.states[i + 1]);
        match a {
            Action::Tick | Action::Drift { .. } => {
                ticks += 1;
                time += 1;
                if let Action::Drift { fast, slow } = a {
                    flush(&mut m, &mut ticks, time);
                    for (ids, what) in [(fast, "moves two ticks"), (slow, "stands still")] {
                        for id in ids {
                            let _ = writeln!(m, "    Note over {}: clock {what}", world.name(*id));
                        }
                    }
                }
            }
            Action::Deliver { src, dst, msg } => {
                flush(&mut m, &mut ticks, time);
                let text = label(&world.show_msg(*src, msg));
                let _ = writeln!(m, "    {}->>{}: {text}", world.name(*src), world.name(*dst));
            }
            Action::Lose { src, dst, msg } => {
                flush(&mut m, &mut ticks, time);
                let text = label(&world.show_msg(*src, msg));
                let _ = writeln!(m, "    {}-x{}: {text} (lost)", world.name(*src), world.name(*dst));
            }
            _ => {
                flush(&mut m, &mut ticks, time);
                let (who, text) = match a {
                    Action::Step { node, step } => (vec![*node], world.show_step(*node, step)),
                    Action::Fire { node, timer } => {
                        (vec![*node], format!("{} runs out", world.show_timer(*node, timer)))
                    }
                    Action::Partition { a, b } => (vec![*a, *b], "link cut".to_string()),
                    Action::Cut { src, dst } => (vec![*src, *dst], "link cut one way".to_string()),
                    _ => match a.node() {
                        Some(node) => {
                            let text = world.describe(a);
                            let text = text.strip_prefix(&format!("{} ", world.name(node))).unwrap_or(&text);
                            (vec![node], text.to_string())
                        }
                        None => (shown.clone(), world.describe(a)),
                    },
                };
                let _ = writeln!(m, "    Note over {}: {}", over(world, &who), label(&text));
            }
        }
        for (id, (b, t)) in before.nodes.iter().zip(&after.nodes).enumerate() {
            if matches!(b.status, Status::Paused(_)) && t.status == Status::Up {
                flush(&mut m, &mut ticks, time);
                let _ = writeln!(m, "    Note over {}: pause ends", world.name(id));
            }
        }
        let newly = view(world, after).holding & !view(world, before).holding;
        for id in ids(newly, n) {
            flush(&mut m, &mut ticks, time);
            let _ = writeln!(m, "    Note over {}: believes it holds the lock", world.name(id));
        }
    }
    flush(&mut m, &mut ticks, time);
    if stuck {
        let _ = writeln!(m, "    Note over {all}: stuck, nothing fair left to do");
    } else if story.loop_at.is_some() {
        m.push_str("    end\n");
    }
    let what = match prop {
        Prop::MutualExclusion => "two clients hold the lock",
        Prop::RwExclusion => "a writer holds the lock with another holder",
        Prop::NoStaleWrite => "a stale write is accepted",
        Prop::NoForeignRelease => "another client's lock is released",
        Prop::DeadlockFreedom => "nobody ever gets the lock",
        Prop::StarvationFreedom => "a client waits for ever",
    };
    let who = violators(world, story, prop);
    let _ = writeln!(
        m,
        "    Note over {}: {} violated, {what}",
        over(world, &who),
        prop.name()
    );
    m.push_str("```\n");
    m
}
