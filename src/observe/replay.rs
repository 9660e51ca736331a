//! `locksmith replay TRACE --scenario NAME` on a counterexample found by a
//! TLA+ tool: TLC's printed error trace or an ITF file (Apalache's, or one
//! locksmith wrote from TLC's output), whose states carry the view as the
//! variable `tv` (`specs/MC<Family>.tla`'s `TraceView`, recorded by
//! `specs/README.md`'s recording module). The Rust model of the scenario
//! follows the views ([`super::follow`]); the replay succeeds when the run
//! it finds violates the property the trace names.

use std::path::Path;

use serde_json::Value;

use super::follow::{follow, follow_lasso};
use super::{from_itf, tlc_text, VIEW_VAR};
use crate::algorithms::{dispatch, Job};
use crate::properties::{safe, Lock, Prop};
use crate::scenario::Scenario;
use crate::trace::{lasso_violates, Replay};
use crate::world::{Tla, World};

/// How many (state, view) pairs the search may visit.
pub const SEARCH_LIMIT: usize = 4_000_000;

/// A TLA+ tool's trace: its states' views, the property it violates, and
/// the index of its loop for a lasso.
pub struct SpecTrace {
    pub views: Vec<Tla>,
    pub property: Option<Prop>,
    pub loop_at: Option<usize>,
}

/// Whether `text` is an ITF trace (JSON with `states`) rather than a
/// locksmith trace.
pub fn is_itf(text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|v| v.get("states").is_some() && v.get("#meta").is_some())
}

/// Whether `text` is TLC's printed output with an error trace.
pub fn is_tlc_output(text: &str) -> bool {
    text.lines().any(|l| l.starts_with("State 1: "))
}

/// `MutualExclusion` → `mutual_exclusion`, the property of that name.
fn prop_of(tla_name: &str) -> Option<Prop> {
    let mut snake = String::new();
    for (i, c) in tla_name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    Prop::from_name(&snake).or_else(|| Prop::from_name(tla_name))
}

/// Reads an ITF file's or TLC output's views; `Err` is one sentence.
pub fn read(shown: &str, text: &str) -> Result<SpecTrace, String> {
    let itf: Value = if is_itf(text) {
        serde_json::from_str(text).map_err(|e| format!("{shown}: not JSON: {e}"))?
    } else if is_tlc_output(text) {
        tlc_text::parse(text)
            .map_err(|e| format!("{shown}: TLC's trace cannot be read: {e}"))?
            .to_itf(shown)
    } else {
        return Err(format!(
            "{shown}: neither a locksmith trace, an ITF trace nor TLC's output with an error trace"
        ));
    };
    let states = itf["states"].as_array().cloned().unwrap_or_default();
    let mut views = Vec::with_capacity(states.len());
    for (i, s) in states.iter().enumerate() {
        let v = s.get(VIEW_VAR).ok_or_else(|| {
            format!(
                "{shown}: state {i} has no variable `{VIEW_VAR}` (the trace view): record the trace with the \
                 MC module's TraceView as `{VIEW_VAR}` (specs/README.md, \"Traces both ways\")"
            )
        })?;
        views.push(from_itf(v).ok_or_else(|| format!("{shown}: state {i}: `{VIEW_VAR}` is not an ITF value"))?);
    }
    if views.is_empty() {
        return Err(format!("{shown}: the trace has no state"));
    }
    let meta = &itf["#meta"];
    let named = meta["invariant"].as_str().or(meta["property"].as_str());
    let property = match named {
        None => None,
        Some(n) => {
            Some(prop_of(n).ok_or_else(|| format!("{shown}: #meta names {n:?}, not a property locksmith checks"))?)
        }
    };
    let loop_at = itf["loop"].as_u64().or(meta["loop"].as_u64()).map(|k| k as usize);
    Ok(SpecTrace {
        views,
        property,
        loop_at,
    })
}

/// Replays the spec trace at `path` on scenario `sc`.
pub fn replay_spec_trace(path: &Path, text: &str, sc: &Scenario) -> Replay {
    let shown = path.display().to_string();
    let trace = match read(&shown, text) {
        Ok(t) => t,
        Err(e) => return Replay::Invalid(e),
    };
    struct Follow<'a> {
        trace: &'a SpecTrace,
        shown: &'a str,
    }
    impl Job for Follow<'_> {
        type Output = Replay;
        fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> Replay {
            let shown = self.shown;
            if let Some(k) = self.trace.loop_at {
                return lasso(&world, sc, self.trace, k, shown);
            }
            let run = match follow(&world, &self.trace.views, SEARCH_LIMIT) {
                Ok(r) => r,
                Err(e) => return Replay::Invalid(format!("{shown}: not a behaviour of scenario {}: {e}", sc.name)),
            };
            let last = &run.states[run.states.len() - 1];
            let violated: Vec<Prop> = Prop::SAFETY.into_iter().filter(|p| !safe(*p, &world, last)).collect();
            let found = format!(
                "{shown}: scenario {} follows its {} states in {} steps:\n{}\n",
                sc.name,
                self.trace.views.len(),
                run.actions.len(),
                steps(&world, &run.actions, None)
            );
            verdict(found, self.trace.property, &violated, "in its last state")
        }
    }
    dispatch(
        sc,
        Follow {
            trace: &trace,
            shown: &shown,
        },
    )
    .unwrap_or_else(|e| Replay::Invalid(format!("{shown}: {e}")))
}

/// The steps of a run, numbered, the loop marked where there is one.
fn steps<A: Lock>(world: &World<A>, actions: &[crate::world::Action<A>], loop_at: Option<usize>) -> String {
    let mut out: Vec<String> = Vec::new();
    for (i, a) in actions.iter().enumerate() {
        if loop_at == Some(i) {
            out.push("  the loop, repeated for ever:".into());
        }
        out.push(format!("  {:>3}. {}", i + 1, world.describe(a)));
    }
    if loop_at == Some(actions.len()) {
        out.push("  then stuck for ever".into());
    }
    out.join("\n")
}

/// Reproduced when the property the trace names (or, if it names none, any
/// the run violates) is among `violated`.
fn verdict(found: String, named: Option<Prop>, violated: &[Prop], where_: &str) -> Replay {
    let names: Vec<&str> = violated.iter().map(|p| p.name()).collect();
    match named {
        Some(p) if violated.contains(&p) => Replay::Reproduced(format!("{found}{} is violated", p.name())),
        Some(p) => Replay::NotReproduced(format!(
            "{found}but {} holds {where_} (violated: {})",
            p.name(),
            if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            }
        )),
        None if !violated.is_empty() => Replay::Reproduced(format!("{found}violated: {}", names.join(", "))),
        None => Replay::NotReproduced(format!("{found}but no property is violated {where_}")),
    }
}

/// How many stem ends a lasso replay tries before it gives up.
const LASSO_TRIES: usize = 64;

/// A lasso from a TLA+ tool (a liveness counterexample): the model must
/// show its stem, then a loop back to the state the stem ended in, fair
/// and violating a liveness property as `replay` checks a locksmith lasso.
fn lasso<A: Lock>(world: &World<A>, sc: &Scenario, trace: &SpecTrace, loop_at: usize, shown: &str) -> Replay {
    let props: Vec<Prop> = match trace.property {
        Some(p) if !p.is_safety() => vec![p],
        Some(p) => {
            return Replay::Invalid(format!(
                "{shown}: a lasso, but the property it names ({}) is a safety property",
                p.name()
            ))
        }
        None => vec![Prop::DeadlockFreedom, Prop::StarvationFreedom],
    };
    let mut violated = Vec::new();
    let mut why = String::new();
    let mut fair = |run: &super::follow::Followed<A>, k: usize| {
        violated = props
            .iter()
            .copied()
            .filter(
                |p| match lasso_violates(world, &run.states[k..], &run.actions[k..], *p) {
                    Ok(()) => true,
                    Err(e) => {
                        why = e;
                        false
                    }
                },
            )
            .collect();
        !violated.is_empty()
    };
    match follow_lasso(world, &trace.views, loop_at, SEARCH_LIMIT, LASSO_TRIES, &mut fair) {
        Err(e) => Replay::Invalid(format!("{shown}: not a behaviour of scenario {}: {e}", sc.name)),
        Ok(None) => Replay::NotReproduced(format!(
            "{shown}: scenario {} shows its stem, but no loop back of the model (of the first {LASSO_TRIES} tried) \
             is a fair run that violates {}: {why}",
            sc.name,
            props.iter().map(|p| p.name()).collect::<Vec<_>>().join(" or ")
        )),
        Ok(Some((run, k))) => {
            let found = format!(
                "{shown}: scenario {} follows its {} states in a lasso of {} steps, its loop from step {}:\n{}\n",
                sc.name,
                trace.views.len(),
                run.actions.len(),
                k + 1,
                steps(world, &run.actions, Some(k))
            );
            verdict(found, trace.property, &violated, "on the loop")
        }
    }
}

/// `replay`'s reading of `path`: `None` for a locksmith trace without
/// `--scenario` (the trace embeds its scenario; `crate::trace` replays it),
/// else the replay of a TLA+ tool's trace on the scenario named.
pub fn replay_path(path: &Path, scenario: Option<&str>) -> Option<Replay> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).ok()?;
    let spec_trace = is_itf(&text) || is_tlc_output(&text);
    match (spec_trace, scenario) {
        (false, None) => None,
        (false, Some(_)) => Some(Replay::Invalid(format!(
            "{shown}: --scenario is for a TLA+ tool's trace (ITF or TLC's output); a locksmith trace embeds its scenario"
        ))),
        (true, None) => Some(Replay::Invalid(format!(
            "{shown}: a TLA+ tool's trace names no scenario: give the one its constants come from with --scenario NAME"
        ))),
        (true, Some(name)) => {
            let sc = crate::catalog::open(name);
            Some(match sc {
                Ok(sc) => replay_spec_trace(path, &text, &sc),
                Err(e) => Replay::Invalid(e.to_string()),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tla_names_are_property_names() {
        assert_eq!(prop_of("MutualExclusion"), Some(Prop::MutualExclusion));
        assert_eq!(prop_of("NoStaleWrite"), Some(Prop::NoStaleWrite));
        assert_eq!(prop_of("no_foreign_release"), Some(Prop::NoForeignRelease));
        assert_eq!(prop_of("TypeOK"), None);
    }

    #[test]
    fn a_trace_without_views_is_refused_in_one_sentence() {
        let itf = r##"{"#meta": {"format": "ITF"}, "vars": ["x"], "states": [{"#meta": {"index": 0}, "x": 1}]}"##;
        let e = read("t.itf.json", itf).err().expect("refused");
        assert!(e.starts_with("t.itf.json: state 0 has no variable `tv`"), "{e}");
        assert!(read("t", "hello").is_err());
    }
}
