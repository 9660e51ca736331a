//! The coordinator family's TLA+ mapping: specs/mirror/Coordinator.tla's
//! variables and messages in `trace.itf.json`.

use super::{Client, Msg, Node, Request, Server, State};
use crate::algorithms::prelude::*;

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/Coordinator.tla's variables: each server's mode, queue,
    /// holder and replication flag, the clients' requests, the resource's
    /// maximum.
    fn tla_vars(_world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let server = |f: &dyn Fn(&Server) -> Tla| {
            tla::per_node(s, |st| match st {
                State::Server(sv) => Some(f(sv)),
                _ => None,
            })
        };
        let client = |f: fn(&Client) -> Tla| tla::per_node(s, move |st| st.client().map(f));
        let max_ghost = tla::resource(s, State::resource).max_ghost;
        Some(vec![
            ("mode", server(&|sv| Tla::str(format!("{:?}", sv.mode)))),
            ("queue", server(&|sv| tla_queue(&sv.queue))),
            ("holder", server(&|sv| tla_holder(sv.holder))),
            ("replicating", server(&|sv| Tla::Bool(sv.replicating))),
            ("phase", client(|c| tla::phase(c.script.phase))),
            ("left", client(|c| Tla::int(c.script.left))),
            ("request", client(|c| Tla::int(c.id))),
            ("acquired", client(|c| Tla::int(c.ghost))),
            ("coord", client(|c| Tla::int(c.coordinator as i64))),
            ("max_ghost", Tla::int(max_ghost)),
        ])
    }

    /// As the spec writes messages: a replicated holder is a record or
    /// `None`, the queue a sequence of records.
    fn tla_msg(&self, msg: &Msg) -> Tla {
        match msg {
            Msg::Replicate { holder, queue } => Tla::rec([
                ("type", Tla::str("Replicate")),
                ("holder", tla_holder(*holder)),
                ("queue", tla_queue(queue)),
            ]),
            // The spec's write carries no token: this family has none.
            other => tla_tokenless(other, other.resource()),
        }
    }
}

/// A waiting request as the spec writes it: `[client, id]`.
fn tla_queue(queue: &[Request]) -> Tla {
    Tla::Seq(
        queue
            .iter()
            .map(|r| Tla::rec([("client", Tla::int(r.client as i64)), ("id", Tla::int(r.id))]))
            .collect(),
    )
}

/// The granted request as the spec writes it: `[client, id, ghost]`, or
/// `None`.
fn tla_holder(holder: Option<(Request, u32)>) -> Tla {
    Tla::or_none(holder, |(r, g)| {
        Tla::rec([
            ("client", Tla::int(r.client as i64)),
            ("id", Tla::int(r.id)),
            ("ghost", Tla::int(g)),
        ])
    })
}
