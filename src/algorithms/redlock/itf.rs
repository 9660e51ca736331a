//! The TLA+ mapping of `redlock`: the state as `specs/mirror/Redlock.tla`'s
//! variables (`trace.itf.json`), and the spec's links.

use super::{Client, Master, Node, State};
use crate::algorithms::prelude::*;

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/Redlock.tla's variables: each master's key, the counter
    /// service's value, the clients' attempts, the resource's maxima.
    fn tla_vars(_world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let master = |f: fn(&Master) -> Tla| {
            tla::per_node(s, move |st| match st {
                State::Master(m) => Some(f(m)),
                _ => None,
            })
        };
        let client = |f: fn(&Client) -> Tla| tla::per_node(s, move |st| st.client().map(f));
        let issued = s.nodes.iter().find_map(|n| match n.state {
            State::Counter(v) => Some(v),
            _ => None,
        });
        let r = tla::resource(s, State::resource);
        Some(vec![
            ("key", master(|m| Tla::or_none(m.key, Tla::int))),
            ("recovering", master(|m| Tla::Bool(m.recovering))),
            ("issued", Tla::int(issued.unwrap_or(0))),
            ("phase", client(|c| tla::phase(c.script.phase))),
            ("left", client(|c| Tla::int(c.script.left))),
            ("value", client(|c| Tla::int(c.value))),
            ("answered", client(|c| Tla::mask(u64::from(c.answered)))),
            ("yes", client(|c| Tla::mask(u64::from(c.yes)))),
            ("checked", client(|c| Tla::Bool(c.checked))),
            ("token", client(|c| Tla::or_none(c.token, Tla::int))),
            ("acquired", client(|c| Tla::int(c.ghost))),
            ("drawing", client(|c| Tla::Bool(c.drawing))),
            ("max_token", Tla::int(r.max_token)),
            ("max_ghost", Tla::int(r.max_ghost)),
        ])
    }

    /// Masters and clients both ways, clients and the resource both ways,
    /// clients and the counter service both ways (the spec's `Links`).
    fn tla_links(world: &World<Self>) -> Vec<(Id, Id)> {
        let ids =
            |f: fn(&Node) -> bool| -> Vec<Id> { (0..world.actors.len()).filter(|&i| f(&world.actors[i])).collect() };
        let masters = ids(|n| matches!(n, Node::Master(_)));
        let clients = ids(|n| matches!(n, Node::Client(_)));
        let others = ids(|n| matches!(n, Node::Counter | Node::Resource(_)));
        let mut links = Vec::new();
        for &c in &clients {
            for &o in masters.iter().chain(&others) {
                links.push((c, o));
                links.push((o, c));
            }
        }
        links.sort();
        links
    }
}
