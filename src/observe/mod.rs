//! The trace view: what a state shows of the lock and of the faults, in
//! the same words on both sides of the comparison between the Rust model
//! and the clean-room TLA+ specs (`specs/`), so that a counterexample of
//! one side can be followed by the other.
//!
//! The two sides do not share their variables: a clean-room spec keeps a
//! lease or a session its own way and takes its own steps. What they share
//! is the world (`specs/World.tla`: node status, pauses, clock skew, cut
//! links, faults spent, the history flags the resource and the lock service
//! raise) and the lock view (which clients hold the lock). The view is the
//! refinement mapping of both sides onto that common abstract state; each
//! `specs/MC<Family>.tla` defines it for its spec as `TraceView`. A step of
//! either side that does not change the view is a stutter of the other.
//!
//! - Rust to TLA+: tests/e2e/traces_both_ways.rs has TLC walk the clean-room
//!   spec along a Rust counterexample's views ([`trace_views`]).
//! - TLA+ to Rust: `locksmith replay TRACE --scenario NAME` reads a TLC
//!   counterexample (TLC's printed error trace, [`tlc_text`], or an ITF
//!   file) whose states carry the view as the variable `tv`, and searches
//!   the Rust model for a run showing the same views ([`follow`]).

pub mod follow;
pub mod replay;
pub mod tlc_text;

use serde_json::Value;

use crate::algorithms::{dispatch, Job};
use crate::properties::{view as lock_view, Lock};
use crate::report::itf::FLAGS;
use crate::scenario::Scenario;
use crate::trace::read_trace;
use crate::world::{fault_vars, Tla, World, WorldState};

/// The variable a recorded TLC or ITF trace carries the view in.
pub const VIEW_VAR: &str = "tv";

/// The view of `s`: `[holders, status, pause, skew, cut, spent, history]`,
/// each as `specs/World.tla` writes it, `holders` the running clients that
/// believe they hold the lock.
pub fn view<A: Lock>(world: &World<A>, s: &WorldState<A>) -> Tla {
    let mut fields = fault_vars(s, &FLAGS);
    fields.push(("holders", Tla::mask(lock_view(world, s).holding)));
    Tla::rec(fields)
}

/// `v` in the one form both sides' printers agree on: a sequence or tuple
/// is the function over 1..n it is in TLA+, and an empty function, sequence
/// or set is the empty set (TLC prints `<<>>` and `{}` for the same value).
pub fn canon(v: &Tla) -> Tla {
    match v {
        Tla::Seq(xs) | Tla::Tup(xs) if xs.is_empty() => Tla::Set(Vec::new()),
        Tla::Fun(g) if g.is_empty() => Tla::Set(Vec::new()),
        Tla::Seq(xs) | Tla::Tup(xs) => Tla::fun(xs.iter().enumerate().map(|(i, x)| (Tla::int(i as i64 + 1), canon(x)))),
        Tla::Set(xs) => Tla::set(xs.iter().map(canon)),
        Tla::Fun(g) => Tla::fun(g.iter().map(|(k, x)| (canon(k), canon(x)))),
        Tla::Rec(fs) => Tla::rec(fs.iter().map(|(k, x)| (k.clone(), canon(x)))),
        other => other.clone(),
    }
}

/// An ITF value (ADR-015) as a TLA+ value; `None` when it is not one.
pub fn from_itf(v: &Value) -> Option<Tla> {
    Some(match v {
        Value::Bool(b) => Tla::Bool(*b),
        Value::String(s) => Tla::Str(s.clone()),
        Value::Number(n) => Tla::Int(n.as_i64()?),
        Value::Array(xs) => Tla::Seq(xs.iter().map(from_itf).collect::<Option<_>>()?),
        Value::Object(o) => {
            if let Some(Value::String(n)) = o.get("#bigint") {
                return n.parse().ok().map(Tla::Int);
            }
            if let Some(Value::Array(xs)) = o.get("#set") {
                return Some(Tla::set(xs.iter().map(from_itf).collect::<Option<Vec<_>>>()?));
            }
            if let Some(Value::Array(xs)) = o.get("#tup") {
                return Some(Tla::Tup(xs.iter().map(from_itf).collect::<Option<_>>()?));
            }
            if let Some(Value::Array(pairs)) = o.get("#map") {
                let graph = pairs
                    .iter()
                    .map(|p| Some((from_itf(p.get(0)?)?, from_itf(p.get(1)?)?)))
                    .collect::<Option<Vec<_>>>()?;
                return Some(Tla::fun(graph));
            }
            if o.contains_key("#unserializable") {
                return None;
            }
            Tla::rec(
                o.iter()
                    .filter(|(k, _)| !k.starts_with('#'))
                    .map(|(k, x)| Some((k.clone(), from_itf(x)?)))
                    .collect::<Option<Vec<_>>>()?,
            )
        }
        Value::Null => return None,
    })
}

/// A TLA+ value as TLA+ text, for a module TLC reads.
pub fn tla_text(v: &Tla) -> String {
    let list = |xs: &[Tla]| xs.iter().map(tla_text).collect::<Vec<_>>().join(", ");
    match v {
        Tla::Bool(true) => "TRUE".into(),
        Tla::Bool(false) => "FALSE".into(),
        Tla::Int(n) => n.to_string(),
        Tla::Str(s) => format!("{s:?}"),
        Tla::Model(m) => m.clone(),
        Tla::Seq(xs) | Tla::Tup(xs) => format!("<<{}>>", list(xs)),
        Tla::Set(xs) => format!("{{{}}}", list(xs)),
        Tla::Fun(g) if g.is_empty() => "<<>>".into(),
        Tla::Fun(g) => {
            let parts: Vec<String> = g
                .iter()
                .map(|(k, x)| format!("{} :> {}", tla_text(k), tla_text(x)))
                .collect();
            format!("({})", parts.join(" @@ "))
        }
        Tla::Rec(fs) => {
            let parts: Vec<String> = fs.iter().map(|(k, x)| format!("{k} |-> {}", tla_text(x))).collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// The views of a locksmith trace file's states, from its initial state to
/// its last, and where its loop starts (a lasso's `loop_start`).
pub struct TraceViews {
    pub views: Vec<Tla>,
    pub loop_start: Option<usize>,
}

/// Replays the locksmith trace at `path` and returns its states' views.
pub fn trace_views(path: &std::path::Path) -> Result<TraceViews, String> {
    let (trace, _, sc) = read_trace(path)?;
    struct Views<'a>(&'a crate::trace::TraceFile);
    impl Job for Views<'_> {
        type Output = Result<Vec<Tla>, String>;
        fn run<A: Lock>(self, _sc: &Scenario, world: World<A>) -> Self::Output {
            let actions = crate::trace::actions(&world, self.0)?;
            let states = crate::trace::states(&world, &actions)?;
            Ok(states.iter().map(|s| view(&world, s)).collect())
        }
    }
    let views = dispatch(&sc, Views(&trace))
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(TraceViews {
        views,
        loop_start: trace.loop_start,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canon_makes_sequences_functions_and_empties_one() {
        let seq = Tla::Seq(vec![Tla::str("Up"), Tla::str("Down")]);
        let fun = Tla::fun([(Tla::int(1), Tla::str("Up")), (Tla::int(2), Tla::str("Down"))]);
        assert_eq!(canon(&seq), canon(&fun));
        assert_eq!(canon(&Tla::Seq(vec![])), canon(&Tla::set([])));
        assert_ne!(canon(&seq), canon(&Tla::fun([(Tla::int(0), Tla::str("Up"))])));
    }

    #[test]
    fn itf_values_read_back() {
        let v: Value = serde_json::json!({"a": {"#set": [{"#bigint": "2"}, {"#bigint": "1"}]},
                                          "b": {"#map": [[{"#bigint": "0"}, "Up"]]}});
        let t = from_itf(&v).expect("an ITF value");
        assert_eq!(tla_text(&t), "[a |-> {1, 2}, b |-> (0 :> \"Up\")]");
        assert_eq!(from_itf(&serde_json::json!({"#bigint": "x"})), None);
    }
}
