//! The etcd family's TLA+ mapping: specs/mirror/EtcdLease.tla's variables
//! and timer names in `trace.itf.json`.

use super::{Client, Node, State, Timer};
use crate::algorithms::prelude::*;

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/EtcdLease.tla's variables: the store's revision, lease slots,
    /// keys and watches (as sets), the clients' attempts, the resource's
    /// maxima.
    fn tla_vars(world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let client = |f: fn(&Client) -> Tla| tla::per_node(s, move |st| st.client().map(f));
        let sv = s.nodes.iter().find_map(|n| match &n.state {
            State::Server(sv) => Some(sv),
            _ => None,
        })?;
        let clients = world.actors.iter().filter(|a| matches!(a, Node::Client(_))).count();
        let slots = clients + usize::from(world.faults.crashes);
        let r = tla::resource(s, State::resource);
        let int = |v: u32| Tla::int(v);
        Some(vec![
            ("revision", int(sv.revision)),
            (
                "leases",
                Tla::fun((0..slots).map(|slot| {
                    let id = sv
                        .leases
                        .iter()
                        .find(|l| usize::from(l.slot) == slot)
                        .map_or(0, |l| l.id);
                    (Tla::int(slot as i64), int(id))
                })),
            ),
            (
                "keys",
                Tla::set(sv.keys.iter().map(|k| {
                    Tla::rec([
                        ("create", int(k.create)),
                        ("lease", int(k.lease)),
                        ("ghost", int(k.ghost)),
                    ])
                })),
            ),
            (
                "keyWatches",
                Tla::set(sv.watches.iter().map(|w| {
                    Tla::rec([
                        ("watcher", Tla::int(w.watcher as i64)),
                        ("id", int(w.id)),
                        ("key", int(w.key)),
                    ])
                })),
            ),
            ("phase", client(|c| tla::phase(c.script.phase))),
            ("left", client(|c| Tla::int(c.script.left))),
            ("stage", client(|c| Tla::str(format!("{:?}", c.stage)))),
            ("lease", client(|c| Tla::int(c.lease))),
            ("rev", client(|c| Tla::int(c.rev))),
            ("checked", client(|c| Tla::Bool(c.checked))),
            ("acquired", client(|c| Tla::int(c.ghost))),
            ("max_token", int(r.max_token)),
            ("max_ghost", int(r.max_ghost)),
        ])
    }

    /// The server's lease expiries are named by their slots.
    fn tla_timer(&self, timer: &Timer) -> Tla {
        match timer {
            Timer::LeaseExpiry { slot } => Tla::int(*slot),
            other => Tla::Str(format!("{other:?}")),
        }
    }
}
