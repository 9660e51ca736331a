//! `trace.md`: what a person reads first. The violated property, a
//! numbered table of steps (time, clocks, action, what changed) and a
//! Mermaid sequence diagram.

use std::fmt::Write;
use std::path::Path;

use super::story::{changed, fields, ids, participants, verdict_line, violators, Story};
use crate::check::Counterexample;
use crate::properties::{view, Lock, Prop};
use crate::scenario::Scenario;
use crate::world::{Action, Id, Program, Status, World, WorldState};

pub fn trace_md<A: Lock>(sc: &Scenario, world: &World<A>, prop: Prop, cx: &Counterexample<A>, json: &Path) -> String {
    let story = Story::new(world, cx);
    let (actions, states, shown, loop_at) = (&story.shown_actions, &story.states, &story.shown, story.loop_at);
    let mut md = String::new();
    let _ = writeln!(md, "# {}: {} violated\n", sc.name, prop.name());
    let _ = writeln!(md, "> **{}**: {}.\n", prop.name(), prop.meaning());
    let _ = writeln!(md, "{}\n", sc.summary);
    let jumped = actions.iter().any(|a| matches!(a, Action::ClockJump { .. }));
    let faults: Vec<String> = clock_faults(sc, jumped)
        .into_iter()
        .chain(actions.iter().filter(|a| a.is_fault()).map(|a| world.describe(a)))
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
    if let Some(module) =
        crate::algorithms::spec_module(&sc.algorithm).filter(|_| A::tla_vars(world, &states[0]).is_some())
    {
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
        "Time is real time in ticks; clocks lists only the nodes whose local clock differs from it.{}\n",
        numbering(states)
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
                let (who, text) = note(world, a, &shown);
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
    m.push_str(&violation_note(world, story, prop));
    m.push_str("```\n");
    m
}

/// The note a diagram writes for an action other than time, a delivery
/// or a loss: over whom, and what.
fn note<A: Lock>(world: &World<A>, a: &Action<A>, shown: &[Id]) -> (Vec<Id>, String) {
    match a {
        Action::Step { node, step } => (vec![*node], world.show_step(*node, step)),
        Action::Fire { node, timer } => (vec![*node], format!("{} runs out", world.show_timer(*node, timer))),
        Action::Partition { a, b } => (vec![*a, *b], "link cut".to_string()),
        Action::Cut { src, dst } => (vec![*src, *dst], "link cut one way".to_string()),
        _ => match a.node() {
            Some(node) => {
                let text = world.describe(a);
                let text = text.strip_prefix(&format!("{} ", world.name(node))).unwrap_or(&text);
                (vec![node], text.to_string())
            }
            None => (shown.to_vec(), world.describe(a)),
        },
    }
}

/// The diagram's last note: the property violated, over the nodes that
/// violate it.
fn violation_note<A: Lock>(world: &World<A>, story: &Story<A>, prop: Prop) -> String {
    let what = match prop {
        Prop::MutualExclusion => "two clients hold the lock",
        Prop::RwExclusion => "a writer holds the lock with another holder",
        Prop::NoStaleWrite => "a stale write is accepted",
        Prop::NoForeignRelease => "another client's lock is released",
        Prop::DeadlockFreedom => "nobody ever gets the lock",
        Prop::StarvationFreedom => "a client waits for ever",
    };
    let who = violators(world, story, prop);
    format!(
        "    Note over {}: {} violated, {what}\n",
        over(world, &who),
        prop.name()
    )
}

/// The clock faults the scenario sets for the whole run, which no single
/// step of the trace shows: clocks drift within `max_drift` (the table's
/// clocks column shows where they stand), and `clock_jumps` NTP steps may
/// happen (said only when no step of the trace, `jumped`, shows a jump).
/// A trace of a drift scenario lists them among its faults, not "none".
fn clock_faults(sc: &Scenario, jumped: bool) -> Vec<String> {
    let f = &sc.faults;
    let ticks = |n: u8| format!("{n} tick{}", if n == 1 { "" } else { "s" });
    let mut out = Vec::new();
    if f.max_drift > 0 {
        out.push(format!(
            "clocks may drift by up to {} (max_drift = {})",
            ticks(f.max_drift),
            f.max_drift
        ));
    }
    if f.clock_jumps > 0 && !jumped {
        out.push(format!(
            "up to {} clock jump{} of up to {} (clock_jumps = {}, max_jump = {})",
            f.clock_jumps,
            if f.clock_jumps == 1 { "" } else { "s" },
            ticks(f.max_jump),
            f.clock_jumps,
            f.max_jump
        ));
    }
    out
}

/// What the names of drawn values and acquisitions mean, for the ones this
/// trace has: a family whose clients draw no lock value (a token ring) has
/// no v1, and one that grants nothing has no #1.
fn numbering<A: Program>(states: &[WorldState<A>]) -> &'static str {
    let values = states.iter().any(|s| s.value > 0);
    let ghosts = states.iter().any(|s| s.ghost > 0);
    match (values, ghosts) {
        (true, true) => {
            " Lock values are named v1, v2... in the order they were drawn, and #1, #2... number the \
             acquisitions in the order the lock was granted (a ghost the model keeps to check \
             no_stale_write; the real system has no such number)."
        }
        (true, false) => " Lock values are named v1, v2... in the order they were drawn.",
        (false, true) => {
            " #1, #2... number the acquisitions in the order the lock was granted (a ghost the model \
             keeps to check no_stale_write; the real system has no such number)."
        }
        (false, false) => "",
    }
}

#[cfg(test)]
mod tests {
    use super::numbering;

    #[test]
    fn the_steps_header_explains_only_the_names_the_trace_uses() {
        let sc = crate::catalog::open("token-ring-crash").expect("bundled");
        let world = crate::algorithms::token_ring::world(&sc).expect("builds");
        let none = world.init();
        let (mut value, mut ghost) = (none.clone(), none.clone());
        value.value = 1;
        ghost.ghost = 1;
        assert_eq!(numbering(std::slice::from_ref(&none)), "");
        let v = numbering(&[none.clone(), value.clone()]);
        assert!(v.contains("v1, v2") && !v.contains("#1"), "{v}");
        let g = numbering(&[none.clone(), ghost.clone()]);
        assert!(g.contains("#1, #2") && !g.contains("v1"), "{g}");
        let both = numbering(&[value, ghost]);
        assert!(both.contains("v1, v2") && both.contains("#1, #2"), "{both}");
    }
}
