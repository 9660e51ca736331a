//! The TLA+ mapping: the variables and values of
//! `specs/mirror/ZooKeeperLock.tla` (`trace.itf.json`).

use super::{Client, Msg, Node, State, Timer};
use crate::algorithms::prelude::*;

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/ZooKeeperLock.tla's variables: the ensemble's zxid, session
    /// slots, children of /lock and watches (as sets), the clients'
    /// recipe state, the resource's maxima.
    fn tla_vars(_world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let client = |f: fn(&Client) -> Tla| tla::per_node(s, move |st| st.client().map(f));
        let e = s.nodes.iter().find_map(|n| match &n.state {
            State::Ensemble(e) => Some(e),
            _ => None,
        })?;
        let r = tla::resource(s, State::resource);
        let int = |v: u32| Tla::int(v);
        Some(vec![
            ("zxid", int(e.zxid)),
            (
                "sessions",
                Tla::fun(
                    e.sessions
                        .iter()
                        .enumerate()
                        .map(|(slot, v)| (Tla::int(slot as i64), int(*v))),
                ),
            ),
            (
                "children",
                Tla::set(e.children.iter().map(|z| {
                    Tla::rec([
                        ("czxid", int(z.child.czxid)),
                        ("mode", Tla::str(format!("{:?}", z.child.mode))),
                        ("guid", int(z.child.guid)),
                        ("session", int(z.session)),
                        ("ghost", int(z.ghost)),
                    ])
                })),
            ),
            (
                "dwatches",
                Tla::set(e.data_watches.iter().map(|&(z, sn)| Tla::Tup(vec![int(z), int(sn)]))),
            ),
            ("cwatches", Tla::set(e.child_watches.iter().map(|&sn| int(sn)))),
            ("phase", client(|c| tla::phase(c.script.phase))),
            ("left", client(|c| Tla::int(c.script.left))),
            ("session", client(|c| Tla::int(c.session))),
            ("value", client(|c| Tla::int(c.value))),
            ("node", client(|c| Tla::int(c.node))),
            ("wait", client(|c| Tla::str(format!("{:?}", c.wait)))),
            ("target", client(|c| Tla::int(c.target))),
            ("checked", client(|c| Tla::Bool(c.checked))),
            ("acquired", client(|c| Tla::int(c.ghost))),
            ("max_token", int(r.max_token)),
            ("max_ghost", int(r.max_ghost)),
        ])
    }

    /// As the spec writes messages: a listing of children is a set.
    fn tla_msg(&self, msg: &Msg) -> Tla {
        match msg {
            Msg::Children {
                value, children, ghost, ..
            } => Tla::rec([
                ("type", Tla::str("Children")),
                ("value", Tla::int(*value)),
                (
                    "children",
                    Tla::set(children.iter().map(|c| {
                        Tla::rec([
                            ("czxid", Tla::int(c.czxid)),
                            ("mode", Tla::str(format!("{:?}", c.mode))),
                            ("guid", Tla::int(c.guid)),
                        ])
                    })),
                ),
                ("ghost", Tla::int(*ghost)),
            ]),
            other => Tla::message(&serde_json::to_value(other).unwrap_or(serde_json::Value::Null)),
        }
    }

    /// The ensemble's session expiries are named by their slots.
    fn tla_timer(&self, timer: &Timer) -> Tla {
        match timer {
            Timer::SessionExpiry { slot } => Tla::int(*slot),
            other => Tla::Str(format!("{other:?}")),
        }
    }
}
