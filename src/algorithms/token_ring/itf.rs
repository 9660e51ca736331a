//! The TLA+ mapping: the variables and values of
//! `specs/mirror/TokenRing.tla` (`trace.itf.json`).

use super::{Msg, Node, RingNode, State};
use crate::algorithms::prelude::*;

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/TokenRing.tla's variables: each ring node's script, token
    /// and ghost number, the resource's maximum.
    fn tla_vars(_world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let ring = |f: fn(&RingNode) -> Tla| {
            tla::per_node(s, move |st| match st {
                State::Node(n) => Some(f(n)),
                _ => None,
            })
        };
        let max_ghost = tla::resource(s, State::resource).max_ghost;
        Some(vec![
            ("phase", ring(|n| tla::phase(n.script.phase))),
            ("left", ring(|n| Tla::int(n.script.left))),
            ("token", ring(|n| Tla::Bool(n.tokens > 0))),
            ("acquired", ring(|n| Tla::int(n.ghost))),
            ("max_ghost", Tla::int(max_ghost)),
        ])
    }

    /// As the spec writes messages: a write carries no token (this family
    /// has none).
    fn tla_msg(&self, msg: &Msg) -> Tla {
        tla_tokenless(msg, msg.resource())
    }
}
