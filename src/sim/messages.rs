//! Messages per acquisition, measured from runs, not computed: `check`
//! reports it in summary.json (`messages_per_acquisition`), so that a
//! herd effect or Ricart–Agrawala's 2(N − 1) is a number the model
//! produced.
//!
//! The measurement: [`RUNS`] seeded random walks of the scenario's world
//! with the fault budget set to zero (its network stays as it is: delay
//! bound, reordering), every step drawn uniformly among the enabled
//! actions. A message counts when a node sends it to another node of the
//! lock (a client or a server: requests, answers, releases, heartbeats,
//! renewals, replication, Sentinel's pings); the critical section's writes
//! to the protected resource and their answers do not count, being the
//! lock user's work, not the lock's. An acquisition is a client of the
//! lock view going from wanting to holding the lock. A run ends when no
//! action is enabled; or, once it has seen every acquisition the scenario
//! asks for (`clients × acquisitions`, or `2 × clients` when clients loop
//! forever), at the first state where nobody holds the lock, no message of
//! the lock is in flight (so the last release is counted) and no node's own
//! step would make it a holder at once; or after
//! [`MAX_STEPS`] actions. The figure is the messages of all runs over
//! their acquisitions, rounded to two decimals.

use super::walk::{below, stream};
use crate::properties::{acquired, view, Lock};
use crate::world::{Action, Faults, Role, World, WorldState};

/// Runs per measurement.
pub const RUNS: u64 = 64;
/// The measurement's seed, fixed so that the figure is the same bytes on
/// every run of `check`.
pub const SEED: u64 = 1;
/// The longest run, in actions.
pub const MAX_STEPS: u32 = 4000;

/// Messages sent per acquisition in fault-free runs of `world`, whose
/// clients each make `acquisitions` acquisitions (0: loop forever); `None`
/// when no run acquires the lock at all.
pub fn messages_per_acquisition<A: Lock>(world: &World<A>, acquisitions: u8) -> Option<f64> {
    let mut w = world.clone();
    w.faults = Faults {
        max_delay: world.faults.max_delay,
        reorder: world.faults.reorder,
        targets: world.faults.targets,
        recovery: world.faults.recovery,
        ..Faults::default()
    };
    let clients = w.roles.iter().filter(|r| **r == Role::Client).count() as u64;
    let target = clients * if acquisitions == 0 { 2 } else { u64::from(acquisitions) };
    let (mut sent, mut acquired_total) = (0u64, 0u64);
    let mut actions = Vec::new();
    for run in 0..RUNS {
        let (s, a) = measure_run(&w, run, target, &mut actions);
        sent += s;
        acquired_total += a;
    }
    (acquired_total > 0).then(|| (sent as f64 / acquired_total as f64 * 100.0).round() / 100.0)
}

/// One run: (messages sent, acquisitions).
fn measure_run<A: Lock>(w: &World<A>, run: u64, target: u64, actions: &mut Vec<Action<A>>) -> (u64, u64) {
    let mut rng = stream(SEED, run);
    let mut s = w.init();
    let (mut sent, mut acquisitions) = (0u64, 0u64);
    for _ in 0..MAX_STEPS {
        actions.clear();
        w.enabled(&s, actions);
        let next = loop {
            if actions.is_empty() {
                break None;
            }
            let i = below(&mut rng, actions.len());
            match w.after(&s, &actions[i]) {
                Some(t) => break Some((actions.swap_remove(i), t)),
                None => {
                    actions.swap_remove(i);
                }
            }
        };
        let Some((a, t)) = next else { break };
        // What entered the network: its growth, plus the message delivered
        // (the only action of a fault-free run that takes one out).
        let delivered = matches!(a, Action::Deliver { src, dst, .. } if lock_link(w, src, dst));
        sent += (in_flight(w, &t) + usize::from(delivered)).saturating_sub(in_flight(w, &s)) as u64;
        let (before, after) = (view(w, &s), view(w, &t));
        acquisitions += u64::from((acquired(before.wanting, after.wanting) & after.holding).count_ones());
        s = t;
        if acquisitions >= target && after.holding == 0 && in_flight(w, &s) == 0 && !about_to_hold(w, &s, actions) {
            break;
        }
    }
    (sent, acquisitions)
}

/// Whether a node's own step would make it hold the lock at once: the
/// lock is not idle yet, though nobody holds it and none of its messages
/// is in flight (a Ricart–Agrawala node whose REPLYs are all counted, and
/// whose `Enter` is next). Ending the run there would count the node's
/// messages but not its acquisition.
fn about_to_hold<A: Lock>(w: &World<A>, s: &WorldState<A>, actions: &mut Vec<Action<A>>) -> bool {
    actions.clear();
    w.enabled(s, actions);
    actions
        .iter()
        .any(|a| matches!(a, Action::Step { .. }) && w.after(s, a).is_some_and(|t| view(w, &t).holding != 0))
}

/// Whether a message from `src` to `dst` is one of the lock's.
fn lock_link<A: Lock>(w: &World<A>, src: usize, dst: usize) -> bool {
    w.roles[src] != Role::Observer && w.roles[dst] != Role::Observer
}

/// The lock's messages in flight.
fn in_flight<A: Lock>(w: &World<A>, s: &WorldState<A>) -> usize {
    s.net.iter().filter(|e| lock_link(w, e.src, e.dst)).count()
}
