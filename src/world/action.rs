//! Everything that can happen in the world, in one enum (as stateright's
//! actor model does): the nodes' steps, the environment's steps, and the
//! faults, each a named action the checker can choose.

use serde::{Deserialize, Serialize};

use super::actor::{Actor, Id};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(bound = "", rename_all = "snake_case")]
pub enum Action<A: Actor> {
    /// One tick of real time passes for every node.
    Tick,
    /// A node takes one of its own steps.
    Step { node: Id, step: A::Step },
    /// A node's timer, run down to zero, fires.
    Fire { node: Id, timer: A::Timer },
    /// The network delivers a message.
    Deliver { src: Id, dst: Id, msg: A::Msg },
    /// A crashed node comes back with what it persisted.
    Restart { node: Id },
    /// Every cut link is repaired.
    Heal,
    /// Fault: a node stops and loses its volatile state.
    Crash { node: Id },
    /// Fault: a node stops taking steps for `ticks` while its clock runs.
    Pause { node: Id, ticks: u8 },
    /// Fault: the link between two nodes is cut both ways.
    Partition { a: Id, b: Id },
    /// Fault: the link is cut one way: messages from `src` to `dst` are
    /// dropped, the other way still flows (`[faults] one_way`).
    Cut { src: Id, dst: Id },
    /// `node`'s client library notices that its connection to `peer`
    /// broke (docs/design.md §2 "Connections").
    Disconnected { node: Id, peer: Id },
    /// `node`'s client library opens a new connection to `peer`.
    Reconnect { node: Id, peer: Id },
    /// Fault: the network loses a message.
    Lose { src: Id, dst: Id, msg: A::Msg },
    /// Fault: the network duplicates a message.
    Duplicate { src: Id, dst: Id, msg: A::Msg },
    /// Fault: a node's clock steps by `by` local ticks at once (NTP step).
    ClockJump { node: Id, by: i8 },
    /// Fault: one tick of real time passes, in which the `fast` nodes'
    /// clocks move by 2 and the `slow` nodes' stand still (clock drift,
    /// each node's skew within `max_drift`; docs/design.md §2).
    Drift { fast: Vec<Id>, slow: Vec<Id> },
}

/// The kinds of action that the report counts.
pub const EVENT_KINDS: [&str; 9] = [
    "crash",
    "restart",
    "pause",
    "partition",
    "heal",
    "loss",
    "duplicate",
    "clock_jump",
    "drift",
];

impl<A: Actor> Action<A> {
    /// A fault is the adversary's choice: it is bounded by the budget and
    /// never part of the fair loop of a liveness counterexample. (With
    /// `recovery = "none"`, restarts and heals are too: see
    /// `World::is_fault`.)
    pub fn is_fault(&self) -> bool {
        matches!(
            self,
            Action::Crash { .. }
                | Action::Pause { .. }
                | Action::Partition { .. }
                | Action::Cut { .. }
                | Action::Lose { .. }
                | Action::Duplicate { .. }
                | Action::ClockJump { .. }
                | Action::Drift { .. }
        )
    }

    /// The name under which the report counts this action, for faults and
    /// the recoveries from them.
    pub fn event_kind(&self) -> Option<&'static str> {
        Some(match self {
            Action::Crash { .. } => "crash",
            Action::Restart { .. } => "restart",
            Action::Pause { .. } => "pause",
            Action::Partition { .. } | Action::Cut { .. } => "partition",
            Action::Heal => "heal",
            Action::Lose { .. } => "loss",
            Action::Duplicate { .. } => "duplicate",
            Action::ClockJump { .. } => "clock_jump",
            Action::Drift { .. } => "drift",
            _ => return None,
        })
    }

    /// The node whose step this is, if any (for sequence diagrams).
    pub fn node(&self) -> Option<Id> {
        match self {
            Action::Step { node, .. }
            | Action::Fire { node, .. }
            | Action::Restart { node }
            | Action::Crash { node }
            | Action::Pause { node, .. }
            | Action::ClockJump { node, .. }
            | Action::Disconnected { node, .. }
            | Action::Reconnect { node, .. } => Some(*node),
            Action::Deliver { dst, .. } => Some(*dst),
            _ => None,
        }
    }
}
