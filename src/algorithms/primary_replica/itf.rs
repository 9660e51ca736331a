//! The TLA+ mapping of `primary-replica`: the variables and values of
//! specs/mirror/PrimaryReplica.tla, for `trace.itf.json`.

use super::{Client, Failover, Key, Msg, Node, Redis, Standing, State, Timer, Waiting};
use crate::algorithms::prelude::*;

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/PrimaryReplica.tla's variables: each Redis node's standing,
    /// epoch, key, attached replicas and blocked WAITs, the Sentinel's
    /// record, the clients' attempts, the resource's maximum.
    fn tla_vars(_world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let redis_ids: Vec<Id> = (0..s.nodes.len())
            .filter(|&i| matches!(s.nodes[i].state, State::Redis(_)))
            .collect();
        let redis = |f: &dyn Fn(&Redis) -> Tla| {
            tla::per_node(s, |st| match st {
                State::Redis(r) => Some(f(r)),
                _ => None,
            })
        };
        let client = |f: fn(&Client) -> Tla| tla::per_node(s, move |st| st.client().map(f));
        let standing = |st: &Standing| {
            let (kind, peer) = match *st {
                Standing::Primary => ("Primary", None),
                Standing::Detached => ("Detached", None),
                Standing::Syncing { primary } => ("Syncing", Some(primary)),
                Standing::Streaming { primary } => ("Streaming", Some(primary)),
            };
            Tla::rec([
                ("kind", Tla::str(kind)),
                ("peer", Tla::or_none(peer, |p| Tla::int(p as i64))),
            ])
        };
        let waiting = |w: &Waiting| {
            Tla::rec([
                ("client", Tla::int(w.client as i64)),
                ("value", Tla::int(w.value)),
                (
                    "shipment",
                    Tla::by_id(redis_ids.iter().map(|&r| (r, Tla::int(w.shipment[r])))),
                ),
                ("acked", Tla::mask(u64::from(w.acked))),
                ("blocked", Tla::Bool(w.blocked)),
            ])
        };
        let sentinel = s
            .nodes
            .iter()
            .find_map(|n| match n.state {
                State::Sentinel(x) => Some(x),
                _ => None,
            })
            .map_or_else(Tla::none, |x| {
                let (kind, replica) = match x.failover {
                    Failover::Monitoring => ("Monitoring", None),
                    Failover::Voting { .. } => ("Voting", None),
                    Failover::Electing => ("Electing", None),
                    Failover::Promoting { replica } => ("Promoting", Some(replica)),
                };
                Tla::rec([
                    ("epoch", Tla::int(x.epoch)),
                    ("primary", Tla::int(x.primary as i64)),
                    (
                        "failover",
                        Tla::rec([
                            ("kind", Tla::str(kind)),
                            ("replica", Tla::or_none(replica, |r| Tla::int(r as i64))),
                        ]),
                    ),
                    ("returned", Tla::mask(u64::from(x.returned))),
                ])
            });
        let max_ghost = tla::resource(s, State::resource).max_ghost;
        Some(vec![
            ("standing", redis(&|r| standing(&r.standing))),
            ("epoch", redis(&|r| Tla::int(r.epoch))),
            ("key", redis(&|r| Tla::or_none(r.key, |k| Tla::int(k.value)))),
            (
                "attached",
                redis(&|r| {
                    Tla::by_id(r.replicas.iter().map(|a| {
                        (
                            a.id,
                            Tla::rec([
                                ("unshipped", Tla::Bool(a.unshipped)),
                                ("getack", Tla::Bool(a.getack)),
                                ("unacked", Tla::int(a.unacked)),
                            ]),
                        )
                    }))
                }),
            ),
            ("waiting", redis(&|r| Tla::Seq(r.waiting.iter().map(waiting).collect()))),
            ("sentinel", sentinel),
            ("phase", client(|c| tla::phase(c.script.phase))),
            ("left", client(|c| Tla::int(c.script.left))),
            ("primary", client(|c| Tla::int(c.primary as i64))),
            ("value", client(|c| Tla::int(c.value))),
            ("waited", client(|c| Tla::Bool(c.waiting))),
            ("checked", client(|c| Tla::Bool(c.checked))),
            ("acquired", client(|c| Tla::int(c.ghost))),
            ("max_ghost", Tla::int(max_ghost)),
            // The replication connections a crash closed (src/world/connections.rs).
            (
                "broken",
                Tla::set(s.broken.iter().map(|c| {
                    Tla::rec([
                        ("node", Tla::int(c.node as i64)),
                        ("peer", Tla::int(c.peer as i64)),
                        ("noticed", Tla::Bool(c.noticed)),
                    ])
                })),
            ),
        ])
    }

    /// As the spec writes messages: a grant and a write carry no token
    /// (this family has none), a shipped key is its value or `None`.
    fn tla_msg(&self, msg: &Msg) -> Tla {
        let ty = |t: &str| ("type", Tla::str(t));
        let key = |k: &Option<Key>| Tla::or_none(*k, |k| Tla::int(k.value));
        match msg {
            Msg::Granted { ghost, value, .. } => {
                Tla::rec([ty("Granted"), ("ghost", Tla::int(*ghost)), ("value", Tla::int(*value))])
            }
            Msg::Replicate { key: k, px, getack } => Tla::rec([
                ty("Replicate"),
                ("key", key(k)),
                ("px", Tla::int(*px)),
                ("getack", Tla::Bool(*getack)),
            ]),
            Msg::FullSync { key: k, px } => Tla::rec([ty("FullSync"), ("key", key(k)), ("px", Tla::int(*px))]),
            other => tla_tokenless(other, other.resource()),
        }
    }

    /// `WaitTimeout` per client is the spec's `WaitTimer(c)`, a name.
    fn tla_timer(&self, timer: &Timer) -> Tla {
        match timer {
            Timer::WaitTimeout { client } => Tla::Str(format!("WaitTimeout{client}")),
            other => Tla::Str(format!("{other:?}")),
        }
    }
}
