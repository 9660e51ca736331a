//! Shrinking a violating run: drop steps and faults, shorten pauses and
//! clock jumps, and turn drifting ticks into plain ones, for as long as
//! the violation remains. Every candidate is replay-validated: each step
//! must be enabled where it is taken and change the state, exactly as
//! `replay` demands, so a shrunk trace always replays.

use crate::properties::{safe, Lock, Prop};
use crate::world::{Action, World};

/// Replays `actions` from the initial state and returns the run up to the
/// first state that violates `prop` (a safety property), or `None` when
/// it never does. A step that cannot be taken where it comes (dropping an
/// earlier step disabled it: the request it answers was never sent) is
/// skipped, so the run returned holds only steps that are enabled where
/// they are taken and change the state, as `replay` demands.
///
/// Messages carry values renumbered by rank (lock values, ghost numbers),
/// so dropping an earlier step can rename the message a later delivery
/// names. A delivery, loss or duplication that is not enabled as written
/// is therefore matched to the enabled one on the same link whose message
/// is of the same kind (`SetNxPx`, `Granted`...), if there is one; the run
/// returned holds the actions actually taken.
pub fn violation_at<A: Lock>(world: &World<A>, actions: &[Action<A>], prop: Prop) -> Option<Vec<Action<A>>> {
    let mut s = world.init();
    let mut taken = Vec::new();
    if !safe(prop, world, &s) {
        return Some(taken);
    }
    let mut enabled = Vec::new();
    for a in actions {
        enabled.clear();
        world.enabled(&s, &mut enabled);
        let a = if enabled.contains(a) {
            a.clone()
        } else {
            match enabled.iter().find(|e| same_message(e, a)) {
                Some(e) => e.clone(),
                None => continue,
            }
        };
        let Some(t) = world.after(&s, &a) else { continue };
        s = t;
        taken.push(a);
        if !safe(prop, world, &s) {
            return Some(taken);
        }
    }
    None
}

/// Whether two network actions are of one kind, on one link, with
/// messages of one kind.
fn same_message<A: Lock>(x: &Action<A>, y: &Action<A>) -> bool {
    let kind = |m: &A::Msg| match serde_json::to_value(m) {
        Ok(serde_json::Value::Object(o)) => o.keys().next().cloned(),
        Ok(serde_json::Value::String(s)) => Some(s),
        _ => None,
    };
    let same = |s1: &usize, d1: &usize, m1: &A::Msg, s2: &usize, d2: &usize, m2: &A::Msg| {
        (s1, d1) == (s2, d2) && kind(m1).is_some() && kind(m1) == kind(m2)
    };
    match (x, y) {
        (
            Action::Deliver { src, dst, msg },
            Action::Deliver {
                src: s2,
                dst: d2,
                msg: m2,
            },
        )
        | (
            Action::Lose { src, dst, msg },
            Action::Lose {
                src: s2,
                dst: d2,
                msg: m2,
            },
        )
        | (
            Action::Duplicate { src, dst, msg },
            Action::Duplicate {
                src: s2,
                dst: d2,
                msg: m2,
            },
        ) => same(src, dst, msg, s2, d2, m2),
        _ => false,
    }
}

/// A shortest-found run that still violates `prop`, from `actions`, a run
/// that violates it. Removes chunks of steps (halving their size down to
/// single steps), then simplifies the faults that remain, and repeats
/// until neither changes anything.
pub fn shrink<A: Lock>(world: &World<A>, actions: &[Action<A>], prop: Prop) -> Vec<Action<A>> {
    let Some(mut best) = violation_at(world, actions, prop) else {
        return actions.to_vec();
    };
    loop {
        let before = best.clone();
        let mut chunk = (best.len() / 2).max(1);
        loop {
            let mut i = 0;
            while i < best.len() {
                let end = (i + chunk).min(best.len());
                let candidate: Vec<Action<A>> = best[..i].iter().chain(&best[end..]).cloned().collect();
                match violation_at(world, &candidate, prop) {
                    Some(run) if run.len() < best.len() => best = run,
                    _ => i += chunk,
                }
            }
            if chunk == 1 {
                break;
            }
            chunk /= 2;
        }
        let mut i = 0;
        while i < best.len() {
            for simpler in simpler(world, &best[i]) {
                let mut candidate = best.clone();
                candidate[i] = simpler;
                if let Some(run) = violation_at(world, &candidate, prop).filter(|r| r.len() <= best.len()) {
                    best = run;
                    break;
                }
            }
            i += 1;
        }
        if best == before {
            return best;
        }
    }
}

/// Simpler versions of a fault, simplest first: a shorter pause, a smaller
/// clock jump, a tick with fewer drifting clocks.
fn simpler<A: Lock>(world: &World<A>, a: &Action<A>) -> Vec<Action<A>> {
    match a {
        Action::Pause { node, ticks } => (world.faults.min_pause..*ticks)
            .map(|t| Action::Pause { node: *node, ticks: t })
            .collect(),
        Action::ClockJump { node, by } => (1..by.unsigned_abs() as i8)
            .map(|b| Action::ClockJump {
                node: *node,
                by: b * by.signum(),
            })
            .collect(),
        Action::Drift { fast, slow } => {
            let mut out = vec![Action::Tick];
            for i in 0..fast.len() {
                let mut f = fast.clone();
                f.remove(i);
                out.push(Action::Drift {
                    fast: f,
                    slow: slow.clone(),
                });
            }
            for i in 0..slow.len() {
                let mut s = slow.clone();
                s.remove(i);
                out.push(Action::Drift {
                    fast: fast.clone(),
                    slow: s,
                });
            }
            out.retain(|d| !matches!(d, Action::Drift { fast, slow } if fast.is_empty() && slow.is_empty()));
            out
        }
        _ => Vec::new(),
    }
}
