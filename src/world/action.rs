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

    /// Every node id the action names, with the field that names it, in
    /// the order of its fields. A trace file is read from outside, so
    /// `replay` checks these against the scenario's nodes before the world
    /// indexes its nodes by them (src/trace.rs).
    pub fn nodes(&self) -> Vec<(&'static str, Id)> {
        match self {
            Action::Tick | Action::Heal => Vec::new(),
            Action::Step { node, .. }
            | Action::Fire { node, .. }
            | Action::Restart { node }
            | Action::Crash { node }
            | Action::Pause { node, .. }
            | Action::ClockJump { node, .. } => vec![("node", *node)],
            Action::Deliver { src, dst, .. }
            | Action::Lose { src, dst, .. }
            | Action::Duplicate { src, dst, .. }
            | Action::Cut { src, dst } => vec![("src", *src), ("dst", *dst)],
            Action::Partition { a, b } => vec![("a", *a), ("b", *b)],
            Action::Disconnected { node, peer } | Action::Reconnect { node, peer } => {
                vec![("node", *node), ("peer", *peer)]
            }
            Action::Drift { fast, slow } => fast
                .iter()
                .map(|n| ("fast", *n))
                .chain(slow.iter().map(|n| ("slow", *n)))
                .collect(),
        }
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

#[cfg(test)]
mod tests {
    use super::Action;
    use crate::algorithms::redlock::Node;

    /// Every id-holding field is listed, by its name in the trace file:
    /// replay checks each one against the scenario's nodes.
    #[test]
    fn every_node_field_is_named() {
        let a = |json: &str| serde_json::from_str::<Action<Node>>(json).expect("an action");
        assert_eq!(a("\"tick\"").nodes(), vec![]);
        assert_eq!(
            a(r#"{"step": {"node": 3, "step": "Acquire"}}"#).nodes(),
            vec![("node", 3)]
        );
        assert_eq!(
            a(r#"{"deliver": {"src": 3, "dst": 0, "msg": {"Lock": {"value": 1}}}}"#).nodes(),
            vec![("src", 3), ("dst", 0)]
        );
        assert_eq!(a(r#"{"crash": {"node": 4}}"#).nodes(), vec![("node", 4)]);
        assert_eq!(a(r#"{"pause": {"node": 2, "ticks": 3}}"#).nodes(), vec![("node", 2)]);
        assert_eq!(
            a(r#"{"partition": {"a": 1, "b": 5}}"#).nodes(),
            vec![("a", 1), ("b", 5)]
        );
        assert_eq!(
            a(r#"{"cut": {"src": 1, "dst": 0}}"#).nodes(),
            vec![("src", 1), ("dst", 0)]
        );
        assert_eq!(
            a(r#"{"reconnect": {"node": 3, "peer": 0}}"#).nodes(),
            vec![("node", 3), ("peer", 0)]
        );
        assert_eq!(
            a(r#"{"drift": {"fast": [3], "slow": [0, 1]}}"#).nodes(),
            vec![("fast", 3), ("slow", 0), ("slow", 1)]
        );
    }
}
