//! `trace.itf.json`: a counterexample in the Informal Trace Format
//! (Apalache ADR-015, apalache-mc.org/docs/adr/015adr-trace.html), with the
//! variable names and values of the paired mirror spec in `specs/mirror/`, so that
//! TLA+ tools can load it, and TLC can check that it is a behaviour of the
//! spec (tests/e2e/itf.rs does).
//!
//! The states are the spec's, not the checker's: the checker renumbers
//! growing values (ghost numbers, lock values, tokens, Lamport clocks) by
//! rank after every step (docs/design.md §2), which the spec does only in its
//! VIEW. So the trace is replayed without renumbering
//! ([`World::after_unranked`]) from the initial state, each action's
//! values translated to the unrenumbered ones, and every state written is
//! the one the spec's Next reaches: values keep the numbers they were
//! drawn with. A liveness lasso's last state is its loop state up to that
//! renumbering, which `#meta` says.

use std::collections::HashMap;
use std::fmt::Write;

use serde_json::{json, Map, Value};

use super::story::Story;
use crate::check::Counterexample;
use crate::properties::{Lock, Prop, FOREIGN_RELEASE, STALE_WRITE};
use crate::scenario::Scenario;
use crate::world::{Action, Program, Seq, Tla, World, WorldState};

/// The history flags as the specs name them.
pub const FLAGS: [(u32, &str); 2] = [(FOREIGN_RELEASE, "ForeignRelease"), (STALE_WRITE, "StaleWrite")];

/// The URL of the format's definition, as Apalache writes it in `#meta`.
pub const FORMAT_DESCRIPTION: &str = "https://apalache-mc.org/docs/adr/015adr-trace.html";

/// The counterexample's behaviour as the spec has it: the states of
/// [`Story::states`] before renumbering. `None` when a step cannot be
/// followed (which would be a bug: every checker state is the
/// renumbering of the spec's).
pub fn behaviour<A: Program>(world: &World<A>, story: &Story<A>) -> Option<Vec<WorldState<A>>> {
    let mut lifted = vec![story.states[0].clone()];
    for (i, a) in story.actions.iter().enumerate() {
        let (ranked, cur) = (&story.states[i], &lifted[i]);
        let from: HashMap<(Seq, u32), u32> = values(world, ranked)
            .into_iter()
            .zip(values(world, cur))
            .map(|((seq, r), (_, v))| ((seq, r), v))
            .collect();
        let mut action = a.clone();
        if let Action::Deliver { dst, msg, .. } | Action::Lose { dst, msg, .. } | Action::Duplicate { dst, msg, .. } =
            &mut action
        {
            world.actors[*dst].numbers_msg(msg, &mut |seq, v| {
                if let Some(x) = from.get(&(seq, *v)) {
                    *v = *x;
                }
            });
        }
        let next = world.after_unranked(cur, &action).unwrap_or_else(|| cur.clone());
        if world.renumbered(&next) != story.states[i + 1] {
            return None;
        }
        lifted.push(next);
    }
    Some(lifted)
}

/// Every growing value of `s` in the renumbering's visiting order.
fn values<A: Program>(world: &World<A>, s: &WorldState<A>) -> Vec<(Seq, u32)> {
    let mut s = s.clone();
    let mut out = Vec::new();
    let mut f = |seq: Seq, v: &mut u32| out.push((seq, *v));
    for (id, n) in s.nodes.iter_mut().enumerate() {
        world.actors[id].numbers(&mut n.state, &mut f);
    }
    for e in s.net.iter_mut() {
        world.actors[e.dst].numbers_msg(&mut e.msg, &mut f);
    }
    out
}

/// A TLA+ value in ITF: integers as `{"#bigint": "n"}`, sets, tuples and
/// functions tagged, sequences as arrays, records as objects, model values
/// (`None`) as their names.
pub fn value(v: &Tla) -> Value {
    match v {
        Tla::Bool(b) => Value::Bool(*b),
        Tla::Int(n) => json!({ "#bigint": n.to_string() }),
        Tla::Str(s) | Tla::Model(s) => Value::String(s.clone()),
        Tla::Seq(xs) => Value::Array(xs.iter().map(value).collect()),
        Tla::Tup(xs) => json!({ "#tup": xs.iter().map(value).collect::<Vec<_>>() }),
        Tla::Set(xs) => json!({ "#set": xs.iter().map(value).collect::<Vec<_>>() }),
        Tla::Fun(g) => json!({ "#map": g.iter().map(|(k, x)| json!([value(k), value(x)])).collect::<Vec<_>>() }),
        Tla::Rec(fields) => Value::Object(fields.iter().map(|(k, x)| (k.clone(), value(x))).collect()),
    }
}

/// `trace.itf.json` for counterexample `cx` of `prop`, or `None` when the
/// family has no mapping to its spec's variables.
pub fn trace_itf<A: Lock>(sc: &Scenario, world: &World<A>, prop: Prop, cx: &Counterexample<A>) -> Option<String> {
    let module = crate::algorithms::spec_module(&sc.algorithm)?;
    let story = Story::new(world, cx);
    let states = behaviour(world, &story)?;
    let mut rows = Vec::with_capacity(states.len());
    let mut vars: Option<Vec<String>> = None;
    for (i, s) in states.iter().enumerate() {
        let tla = world.tla_state(s, &FLAGS)?;
        let names: Vec<String> = tla.iter().map(|(k, _)| k.clone()).collect();
        if vars.as_ref().is_some_and(|v| *v != names) {
            return None;
        }
        vars = Some(names);
        let mut obj = Map::new();
        obj.insert("#meta".into(), json!({ "index": i }));
        for (k, v) in &tla {
            obj.insert(k.clone(), value(v));
        }
        rows.push(Value::Object(obj));
    }
    let mut vars = vars?;
    vars.sort();
    let mut meta = json!({
        "format": "ITF",
        "format-description": FORMAT_DESCRIPTION,
        "source": format!("specs/mirror/{module}.tla"),
        "scenario": sc.name,
        "property": prop.name(),
        "description": format!(
            "locksmith's counterexample to {} in scenario {}, as a behaviour of specs/mirror/{module}.tla \
             (values unrenumbered: each lock value, ghost number and token keeps the number it was drawn with)",
            prop.name(),
            sc.name
        ),
    });
    if let Some(k) = story.loop_at {
        meta["loop"] = json!(k);
        meta["loop-description"] = json!(
            "a liveness lasso: from the last state the behaviour returns to state `loop` \
             (equal up to the renumbering of growing values) and repeats forever"
        );
    }
    // One state per line: diffs stay readable and the files small.
    let mut out = String::new();
    let _ = write!(out, "{{\n\"#meta\": {},\n\"vars\": {},\n", meta, json!(vars));
    if let Some(k) = story.loop_at {
        let _ = writeln!(out, "\"loop\": {k},");
    }
    out.push_str("\"states\": [\n");
    for (i, r) in rows.iter().enumerate() {
        let sep = if i + 1 < rows.len() { "," } else { "" };
        let _ = writeln!(out, "{r}{sep}");
    }
    out.push_str("]\n}\n");
    Some(out)
}
