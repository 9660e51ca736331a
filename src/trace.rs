//! Trace files (docs/design.md §8) and `replay`. A trace is the list of actions
//! from the initial state, in locksmith's own serde form (never stateright's
//! action indices), with the scenario's text embedded so it replays alone.
//! Replay re-executes it against the current model, checks that every step
//! is enabled, and checks that the recorded violation happens again.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::algorithms::{dispatch, Job};
use crate::catalog;
use crate::check::graph::fingerprint;
use crate::check::Counterexample;
use crate::properties::{acquired, safe, view, Lock, Prop};
use crate::report::story::Story;
use crate::scenario::Scenario;
use crate::world::{Action, Id, Program, World, WorldState};

pub const FORMAT: &str = "locksmith-trace/1";

/// One step of a trace file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// What happened, in plain words (for people; replay ignores it).
    pub does: String,
    pub action: serde_json::Value,
}

/// The `trace.json` file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceFile {
    pub format: String,
    pub scenario: String,
    pub algorithm: String,
    pub property: String,
    /// For liveness: the index in `steps` where the fair loop begins; the
    /// loop runs to the end and returns to the state it started in. Equal
    /// to `steps.len()` when the run is stuck with nothing fair to do.
    pub loop_start: Option<usize>,
    pub steps: Vec<StepRecord>,
    /// The scenario file's text, so the trace replays on its own.
    pub scenario_source: String,
}

impl TraceFile {
    pub fn new<A: Program>(sc: &Scenario, world: &World<A>, prop: Prop, cx: &Counterexample<A>) -> TraceFile {
        // `does` names values as trace.md does (see `Story`); `action` is
        // what replay reads, the values as the model numbers them.
        let story = Story::new(world, cx);
        let steps: Vec<StepRecord> = story
            .actions
            .iter()
            .zip(&story.shown_actions)
            .map(|(a, shown)| StepRecord {
                does: world.describe(shown),
                action: serde_json::to_value(a).unwrap_or(serde_json::Value::Null),
            })
            .collect();
        let loop_start = story.loop_at;
        TraceFile {
            format: FORMAT.into(),
            scenario: sc.name.clone(),
            algorithm: sc.algorithm.clone(),
            property: prop.name().into(),
            loop_start,
            steps,
            scenario_source: sc.source.clone(),
        }
    }
}

/// How a replay ended (exit codes 0, 1, 2 of docs/design.md §9).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replay {
    /// Every step was enabled and the violation happened again.
    Reproduced(String),
    /// Every step was enabled but the violation did not happen.
    NotReproduced(String),
    /// Not a trace, or a step was not enabled.
    Invalid(String),
}

impl Replay {
    pub fn exit_code(&self) -> i32 {
        match self {
            Replay::Reproduced(_) => 0,
            Replay::NotReproduced(_) => 1,
            Replay::Invalid(_) => 2,
        }
    }
}

impl fmt::Display for Replay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Replay::Reproduced(s) | Replay::NotReproduced(s) | Replay::Invalid(s) => f.write_str(s),
        }
    }
}

/// Reads a trace file: the trace, its property and its embedded scenario,
/// or why it is not a valid trace (one sentence naming the file).
pub fn read_trace(path: &Path) -> Result<(TraceFile, Prop, Scenario), String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot be read: {e}"))?;
    let trace: TraceFile = serde_json::from_str(&text).map_err(|e| format!("{shown}: not a locksmith trace: {e}"))?;
    if trace.format != FORMAT {
        return Err(format!("{shown}: format \"{}\" is not \"{FORMAT}\"", trace.format));
    }
    let Some(prop) = Prop::from_name(&trace.property) else {
        return Err(format!(
            "{shown}: property \"{}\" is not one locksmith checks",
            trace.property
        ));
    };
    // A counterexample starts from the initial state, which no property
    // forbids (every client starts wanting nothing), so it has a step.
    if trace.steps.is_empty() {
        return Err(format!(
            "{shown}: steps is empty, and a counterexample has at least one step"
        ));
    }
    let scenario_path = Path::new(&trace.scenario).with_extension("toml");
    let sc = catalog::parse(&scenario_path, &trace.scenario_source)
        .map_err(|e| format!("{shown}: its embedded scenario is not valid: {e}"))?;
    // The scenario decides the model the steps run on; a trace whose own
    // label says otherwise was edited or mixed up, and replaying it as the
    // scenario's algorithm would vouch for a claim it does not make.
    if trace.algorithm != sc.algorithm {
        return Err(format!(
            "{shown}: algorithm \"{}\" is not its embedded scenario's algorithm \"{}\"",
            trace.algorithm, sc.algorithm
        ));
    }
    Ok((trace, prop, sc))
}

/// Replays a trace file.
pub fn replay_file(path: &Path) -> Replay {
    let shown = path.display();
    let (trace, prop, sc) = match read_trace(path) {
        Ok(t) => t,
        Err(e) => return Replay::Invalid(e),
    };
    dispatch(
        &sc,
        Replayer {
            trace: &trace,
            prop,
            shown: shown.to_string(),
        },
    )
    .unwrap_or_else(|e| Replay::Invalid(format!("{shown}: {e}")))
}

struct Replayer<'a> {
    trace: &'a TraceFile,
    prop: Prop,
    shown: String,
}

impl Job for Replayer<'_> {
    type Output = Replay;
    fn run<A: Lock>(self, _sc: &Scenario, world: World<A>) -> Replay {
        let actions = match actions(&world, self.trace) {
            Ok(a) => a,
            Err(e) => return Replay::Invalid(format!("{}: {e}", self.shown)),
        };
        let loop_start = self.trace.loop_start;
        if loop_start.is_some_and(|k| k > actions.len()) {
            return Replay::Invalid(format!("{}: loop_start is past the last step", self.shown));
        }
        match replay(&world, &actions, self.prop, loop_start) {
            Err(msg) => Replay::Invalid(format!("{}: {msg}", self.shown)),
            Ok(None) => Replay::Reproduced(format!(
                "{}: {} steps replayed; {} is violated again",
                self.shown,
                actions.len(),
                self.prop.name()
            )),
            Ok(Some(why)) => Replay::NotReproduced(format!(
                "{}: {} steps replayed, but {} is no longer violated: {why}",
                self.shown,
                actions.len(),
                self.prop.name()
            )),
        }
    }
}

/// The trace's steps as actions of `world`; `Err` names the first step
/// that is not one, or that names a node the scenario does not have. The
/// world indexes its nodes by the ids an action holds, so a trace file
/// (read from outside) is checked here, before any step runs or is
/// described.
pub fn actions<A: Program>(world: &World<A>, trace: &TraceFile) -> Result<Vec<Action<A>>, String> {
    let n = world.actors.len();
    trace
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let a = serde_json::from_value::<Action<A>>(step.action.clone())
                .map_err(|e| format!("step {} is not an action of this model: {e}", i + 1))?;
            match named_nodes(world, &a).into_iter().find(|(_, id)| *id >= n) {
                None => Ok(a),
                Some((field, id)) => Err(format!(
                    "step {} (steps[{i}]) names node {id} (its \"{field}\" field), but scenario {} has {n} nodes, numbered 0 to {}: {}",
                    i + 1,
                    trace.scenario,
                    n.saturating_sub(1),
                    world.names.join(", ")
                )),
            }
        })
        .collect()
}

/// Every node id `a` names, with the field that names it: the action's
/// own ([`Action::nodes`]) and then those inside its message (through the
/// receiver's [`Renumber::rename_msg`](crate::world::Renumber), which
/// visits every id a message holds), since describing a message looks its
/// ids up too.
fn named_nodes<A: Program>(world: &World<A>, a: &Action<A>) -> Vec<(&'static str, Id)> {
    let mut ids = a.nodes();
    if let Action::Deliver { dst, msg, .. } | Action::Lose { dst, msg, .. } | Action::Duplicate { dst, msg, .. } = a {
        if let Some(receiver) = world.actors.get(*dst) {
            let held = RefCell::new(Vec::new());
            receiver.rename_msg(&mut msg.clone(), &|id| {
                held.borrow_mut().push(id);
                id
            });
            ids.extend(held.into_inner().into_iter().map(|id| ("msg", id)));
        }
    }
    ids
}

/// The states `actions` pass through from the initial state, that state
/// first; `Err` names the first step that is not enabled.
pub fn states<A: Program>(world: &World<A>, actions: &[Action<A>]) -> Result<Vec<WorldState<A>>, String> {
    let mut states = vec![world.init()];
    for (i, a) in actions.iter().enumerate() {
        let s = &states[i];
        let next = world.is_enabled(s, a).then(|| world.after(s, a)).flatten();
        match next {
            Some(t) => states.push(t),
            None => return Err(format!("step {} ({}) is not enabled", i + 1, world.describe(a))),
        }
    }
    Ok(states)
}

/// Replays `actions` from the initial state. `Err` when a step is not
/// enabled; `Ok(None)` when the violation happens; `Ok(Some(why))` when it
/// does not.
pub fn replay<A: Lock>(
    world: &World<A>,
    actions: &[Action<A>],
    prop: Prop,
    loop_start: Option<usize>,
) -> Result<Option<String>, String> {
    let states = states(world, actions)?;
    if prop.is_safety() {
        let last = &states[states.len() - 1];
        return Ok(if safe(prop, world, last) {
            Some("the last state satisfies it".into())
        } else {
            None
        });
    }
    let Some(k) = loop_start else {
        return Ok(Some("a liveness trace needs a loop".into()));
    };
    Ok(lasso_violates(world, &states[k..], &actions[k..], prop).err())
}

/// Checks that `states` (the loop's states, first to last, the last equal
/// to the first when there are actions) form a fair lasso in which someone
/// (for starvation: one client) waits and is never granted the lock.
pub(crate) fn lasso_violates<A: Lock>(
    world: &World<A>,
    states: &[WorldState<A>],
    actions: &[Action<A>],
    prop: Prop,
) -> Result<(), String> {
    let views: Vec<_> = states.iter().map(|s| view(world, s)).collect();
    if let Some(a) = actions.iter().find(|a| world.is_fault(a)) {
        return Err(format!("the loop contains a fault ({})", world.describe(a)));
    }
    let fair = |s: &WorldState<A>| -> BTreeSet<u64> {
        let mut enabled = Vec::new();
        world.enabled(s, &mut enabled);
        enabled
            .iter()
            .filter(|a| !world.is_fault(a) && world.after(s, a).is_some())
            .map(fingerprint)
            .collect()
    };
    if actions.is_empty() {
        let s = &states[0];
        if !fair(s).is_empty() {
            return Err("the run is not stuck: a fair action is still enabled".into());
        }
        return if views[0].wanting != 0 {
            Ok(())
        } else {
            Err("nobody wants the lock".into())
        };
    }
    if fingerprint(&states[0]) != fingerprint(&states[states.len() - 1]) {
        return Err("the loop does not return to the state it started in".into());
    }
    let granted = views
        .windows(2)
        .fold(0u64, |m, w| m | acquired(w[0].wanting, w[1].wanting));
    let always_wanting = views.iter().fold(u64::MAX, |m, v| m & v.wanting);
    let starving = always_wanting & !granted;
    match prop {
        Prop::DeadlockFreedom if granted != 0 => return Err("someone acquires the lock in the loop".into()),
        Prop::DeadlockFreedom if views.iter().any(|v| v.wanting == 0) => {
            return Err("in some state of the loop nobody wants the lock".into())
        }
        Prop::StarvationFreedom if starving == 0 => {
            return Err("no client waits through the whole loop unserved".into())
        }
        _ => {}
    }
    let loop_states = &states[..states.len() - 1];
    let mut always = fair(&loop_states[0]);
    for s in &loop_states[1..] {
        let here = fair(s);
        always.retain(|c| here.contains(c));
    }
    let taken: BTreeSet<u64> = actions.iter().map(fingerprint).collect();
    if let Some(c) = always.iter().find(|c| !taken.contains(c)) {
        let mut enabled = Vec::new();
        world.enabled(&loop_states[0], &mut enabled);
        let name = enabled
            .iter()
            .find(|a| fingerprint(a) == *c)
            .map(|a| world.describe(a))
            .unwrap_or_default();
        return Err(format!(
            "the loop is unfair: \"{name}\" is enabled throughout and never taken"
        ));
    }
    Ok(())
}
