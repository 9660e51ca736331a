//! An etcd-lease trace read as the model's own actions, each with the
//! model's state before it: the driver needs that state to know which
//! lease a `LeaseExpiry { slot }` names (slots are the model's
//! bookkeeping) and whether an answer reaches the attempt that asked for
//! it (the client ignores answers to older attempts). Actions and states
//! are the trace story's ([`Story`]): the model renumbers lease IDs and
//! revisions by rank after every step, so the ID 2 of one step may be the
//! ID 3 of an earlier one; the story names each value once for the whole
//! trace, and the driver maps those names to real lease IDs. A step with no real
//! counterpart is refused here, before any process starts, so a trace is
//! either enacted whole or not at all (exit 2, never a quiet "not
//! violated").

use crate::algorithms::etcd_lease::{Msg, Node, State, Timer};
use crate::check::Counterexample;
use crate::report::story::Story;
use crate::trace::TraceFile;
use crate::world::{Action, Id, World, WorldState};

/// The etcd server's node id; clients are 1..=n, the resource n + 1.
pub(super) const SERVER: Id = 0;

/// The trace's actions, and the model's state before each and after the
/// last (`states[k]` is before step k + 1, `states[k + 1]` after it),
/// every lease ID and revision under its name for the whole trace.
pub(super) struct Plan {
    pub actions: Vec<Action<Node>>,
    pub states: Vec<WorldState<Node>>,
}

/// Reads every step as an action of `world`, runs it in the model, and
/// refuses the first one that has no real counterpart: one sentence
/// naming the step.
pub(super) fn read(world: &World<Node>, trace: &TraceFile) -> Result<Plan, String> {
    let mut s = world.init();
    let mut actions = Vec::new();
    for (i, step) in trace.steps.iter().enumerate() {
        let at = || format!("step {} ({})", i + 1, step.does);
        let a: Action<Node> = serde_json::from_value(step.action.clone())
            .map_err(|e| format!("{} is not an action of this model: {e}", at()))?;
        if let Some(why) = unsupported(world, &a) {
            return Err(format!("{}: {why}", at()));
        }
        s = world
            .is_enabled(&s, &a)
            .then(|| world.after(&s, &a))
            .flatten()
            .ok_or_else(|| format!("{} is not enabled in the model", at()))?;
        actions.push(a);
    }
    let story = Story::new(
        world,
        &Counterexample {
            prefix: actions,
            cycle: None,
        },
    );
    Ok(Plan {
        actions: story.shown_actions,
        states: story.shown,
    })
}

/// Why `a` cannot happen on a real etcd and real clients, if it cannot.
fn unsupported(world: &World<Node>, a: &Action<Node>) -> Option<String> {
    let name = |id: Id| world.names.get(id).cloned().unwrap_or_else(|| format!("node {id}"));
    let is_client = |id: Id| matches!(world.actors.get(id), Some(Node::Client(_)));
    Some(match a {
        Action::Tick | Action::Heal | Action::Step { .. } | Action::Lose { .. } => return None,
        Action::Disconnected { node, peer } | Action::Reconnect { node, peer }
            if is_client(*node) && *peer == SERVER =>
        {
            return None
        }
        Action::Partition { .. } => return None,
        Action::Fire { node, timer } => match (*node == SERVER, timer) {
            (true, Timer::LeaseExpiry { .. }) | (false, _) => return None,
            (true, t) => format!("the server's timer {t:?} has no real counterpart in reenact"),
        },
        Action::Deliver { src, dst, msg } => {
            let request = is_client(*src) && *dst == SERVER && is_request(msg);
            let answer = *src == SERVER && is_client(*dst) && !is_request(msg);
            let resource = matches!(msg, Msg::Resource(_));
            if request || answer || resource {
                return None;
            }
            format!(
                "a delivery of {msg:?} from {} to {} has no real counterpart in reenact",
                name(*src),
                name(*dst)
            )
        }
        Action::Crash { node } | Action::Restart { node } | Action::Pause { node, .. } if is_client(*node) => {
            return None
        }
        Action::Crash { node } | Action::Restart { node } | Action::Pause { node, .. } => format!(
            "a crash, restart or pause of {} has no real counterpart in reenact (the etcd cluster is modelled as always available)",
            name(*node)
        ),
        Action::Disconnected { node, .. } | Action::Reconnect { node, .. } => format!(
            "a connection of {} that is not a client's to etcd has no real counterpart in reenact",
            name(*node)
        ),
        Action::Cut { src, dst } => format!(
            "a one-way cut from {} to {} has no real counterpart in reenact: the driver's proxy drops a TCP connection both ways",
            name(*src),
            name(*dst)
        ),
        Action::Duplicate { .. } => {
            "a duplicated message has no real counterpart in reenact: gRPC runs over TCP, which delivers each message once"
                .into()
        }
        Action::ClockJump { node, .. } => format!(
            "a clock jump of {} has no real counterpart in reenact: the driver cannot step one process's clock",
            name(*node)
        ),
        Action::Drift { .. } => {
            "clock drift has no real counterpart in reenact: the driver cannot speed up or slow down one process's clock"
                .into()
        }
    })
}

/// Whether `msg` is a client's request to etcd (else etcd's answer, or a
/// message of the resource).
pub(super) fn is_request(msg: &Msg) -> bool {
    matches!(
        msg,
        Msg::LeaseGrant { .. }
            | Msg::LeaseKeepAlive { .. }
            | Msg::LeaseRevoke { .. }
            | Msg::Lock { .. }
            | Msg::Watch { .. }
            | Msg::Range { .. }
            | Msg::Unlock { .. }
    )
}

/// The model's client `node` in `s`, if it is one.
pub(super) fn client(s: &WorldState<Node>, node: Id) -> Option<&crate::algorithms::etcd_lease::Client> {
    match &s.nodes.get(node)?.state {
        State::Client(c) => Some(c),
        _ => None,
    }
}

/// The lease the model's server keeps in `slot` in `s` (0: none).
pub(super) fn lease_in_slot(s: &WorldState<Node>, slot: u8) -> u32 {
    match &s.nodes[SERVER].state {
        State::Server(sv) => sv.leases.iter().find(|l| l.slot == slot).map_or(0, |l| l.id),
        _ => 0,
    }
}
