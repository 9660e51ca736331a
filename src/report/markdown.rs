//! `trace.md`: what a person reads first. The violated property, a
//! numbered table of steps (time, clocks, action, what changed) and a
//! Mermaid sequence diagram.

use std::fmt::Write;
use std::path::Path;

use super::diff::{changes, leaves};
use crate::check::Counterexample;
use crate::properties::{view, Lock, Prop, FOREIGN_RELEASE, STALE_WRITE};
use crate::scenario::Scenario;
use crate::world::{Action, Envelope, Status, World, WorldState};

pub fn trace_md<A: Lock>(sc: &Scenario, world: &World<A>, prop: Prop, cx: &Counterexample<A>, json: &Path) -> String {
    let actions: Vec<&Action<A>> = cx.prefix.iter().chain(cx.cycle.iter().flatten()).collect();
    let loop_at = cx.cycle.as_ref().map(|_| cx.prefix.len());
    let mut states = vec![world.init()];
    for a in &actions {
        let next = world.after(&states[states.len() - 1], a);
        // A counterexample only holds steps that change the state.
        states.push(next.unwrap_or_else(|| states[states.len() - 1].clone()));
    }
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
    let _ = writeln!(md, "{}\n", verdict_line(world, prop, &states, loop_at));
    let legend: Vec<String> = world
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{i} = {n}"))
        .collect();
    let _ = writeln!(md, "States refer to nodes by number: {}.\n", legend.join(", "));

    let _ = writeln!(md, "## Steps\n");
    let _ = writeln!(
        md,
        "Time is real time in ticks; clocks lists only the nodes whose local clock differs from it.\n"
    );
    let _ = writeln!(md, "| # | time | clocks | action | what changed |");
    let _ = writeln!(md, "|---|---|---|---|---|");
    let mut clock = Clocks::new(states[0].nodes.len());
    let _ = writeln!(
        md,
        "| 0 | 0 | | initial state | {} |",
        cell(&initial(world, &states[0]))
    );
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
            cell(&changed(world, a, &states[i], &states[i + 1]))
        );
    }
    if loop_at == Some(actions.len()) {
        let _ = writeln!(md, "| | | | **stuck: no fair action is enabled** | |");
    }
    let _ = writeln!(md, "\n## Sequence\n");
    md.push_str(&mermaid(world, &actions, loop_at));
    let _ = writeln!(md, "\n## The scenario\n");
    let _ = writeln!(md, "{}\n", sc.description.trim());
    for r in &sc.references {
        let _ = writeln!(md, "- {r}");
    }
    md
}

fn verdict_line<A: Lock>(world: &World<A>, prop: Prop, states: &[WorldState<A>], loop_at: Option<usize>) -> String {
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

fn status(s: Status) -> String {
    match s {
        Status::Up => "up".into(),
        Status::Paused(k) => format!("paused, {k} ticks left"),
        Status::Down => "down".into(),
    }
}

fn initial<A: Lock>(world: &World<A>, s: &WorldState<A>) -> String {
    let mut out = Vec::new();
    for (i, n) in s.nodes.iter().enumerate() {
        let fields: Vec<String> = leaves(&format!("{:?}", n.state))
            .into_iter()
            .map(|(p, v)| format!("{p} {v}"))
            .collect();
        out.push(format!("{}: {}", world.name(i), fields.join(", ")));
    }
    out.join("; ")
}

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

fn changed<A: Lock>(world: &World<A>, a: &Action<A>, before: &WorldState<A>, after: &WorldState<A>) -> String {
    let mut out = Vec::new();
    for (i, (b, n)) in before.nodes.iter().zip(&after.nodes).enumerate() {
        let name = world.name(i);
        if b.status != n.status && !matches!((b.status, n.status), (Status::Paused(_), Status::Paused(_))) {
            out.push(format!("{name} {}", status(n.status)));
        }
        let diff = changes(&format!("{:?}", b.state), &format!("{:?}", n.state));
        if !diff.is_empty() {
            out.push(format!("{name}: {}", diff.join(", ")));
        }
        for (t, v) in &n.timers {
            let old = b.timer(*t);
            let set = old.is_none_or(|o| *v > o) && !matches!(a, Action::Tick | Action::Drift { .. });
            if set {
                out.push(format!("{name} sets {t:?} to {v}"));
            }
        }
        for (t, _) in &b.timers {
            if n.timer(*t).is_none()
                && !matches!(a, Action::Fire { timer, .. } if timer == t)
                && n.status != Status::Down
            {
                out.push(format!("{name} cancels {t:?}"));
            }
        }
    }
    for i in sent(&before.net, &after.net) {
        let e = &after.net[i];
        out.push(format!("{} → {}: {:?}", world.name(e.src), world.name(e.dst), e.msg));
    }
    let raised = after.history & !before.history;
    if raised & FOREIGN_RELEASE != 0 {
        out.push("**a lock another client acquired is released**".into());
    }
    if raised & STALE_WRITE != 0 {
        out.push("**the resource accepts a stale write**".into());
    }
    if matches!(a, Action::Tick | Action::Drift { .. }) {
        let running: Vec<String> = after
            .nodes
            .iter()
            .enumerate()
            .flat_map(|(i, n)| {
                n.timers
                    .iter()
                    .map(move |(t, v)| format!("{} {t:?} {v}", world.name(i)))
            })
            .collect();
        if !running.is_empty() {
            out.push(format!("timers: {}", running.join(", ")));
        }
    }
    let (vb, va) = (view(world, before), view(world, after));
    for i in 0..world.names.len() {
        let bit = 1u64 << i;
        if va.holding & bit != 0 && vb.holding & bit == 0 {
            out.push(format!("**{} now believes it holds the lock**", world.name(i)));
        }
        if vb.holding & bit != 0 && va.holding & bit == 0 {
            out.push(format!("{} no longer believes it holds the lock", world.name(i)));
        }
    }
    out.join("; ")
}

/// Escapes a table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Mermaid forbids `;` and `#` in message text.
fn label(s: &str) -> String {
    s.replace([';', '#'], ",")
}

fn mermaid<A: Lock>(world: &World<A>, actions: &[&Action<A>], loop_at: Option<usize>) -> String {
    let mut m = String::from("```mermaid\nsequenceDiagram\n");
    for name in &world.names {
        let _ = writeln!(m, "    participant {name}");
    }
    let first = &world.names[0];
    let last = &world.names[world.names.len() - 1];
    let mut ticks = 0;
    let mut time = 0;
    let flush = |m: &mut String, ticks: &mut usize, time: usize| {
        if *ticks > 0 {
            let _ = writeln!(m, "    Note over {first},{last}: time passes to t={time}");
            *ticks = 0;
        }
    };
    for (i, a) in actions.iter().enumerate() {
        if loop_at == Some(i) {
            flush(&mut m, &mut ticks, time);
            m.push_str("    loop forever, fair and fault-free\n");
        }
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
                continue;
            }
            _ => flush(&mut m, &mut ticks, time),
        }
        match a {
            Action::Deliver { src, dst, msg } => {
                let _ = writeln!(
                    m,
                    "    {}->>{}: {}",
                    world.name(*src),
                    world.name(*dst),
                    label(&format!("{msg:?}"))
                );
            }
            Action::Lose { src, dst, msg } => {
                let _ = writeln!(
                    m,
                    "    {}-x{}: {} (lost)",
                    world.name(*src),
                    world.name(*dst),
                    label(&format!("{msg:?}"))
                );
            }
            _ => {
                let node = a
                    .node()
                    .map(|n| world.name(n).to_string())
                    .unwrap_or_else(|| format!("{first},{last}"));
                let text = world.describe(a);
                let text = text.strip_prefix(&format!("{node} ")).unwrap_or(&text);
                let _ = writeln!(m, "    Note over {node}: {}", label(text));
            }
        }
    }
    flush(&mut m, &mut ticks, time);
    if loop_at.is_some() {
        m.push_str("    end\n");
    }
    m.push_str("```\n");
    m
}
