//! The TLA+ mapping of `ricart-agrawala`: the state as
//! `specs/mirror/RicartAgrawala.tla`'s variables (`trace.itf.json`) and
//! its messages.

use super::{Msg, Node, Peer, State};
use crate::algorithms::prelude::*;

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/RicartAgrawala.tla's variables: each node's script, the
    /// paper's variables (the deferred replies as a set of node ids) and
    /// its acquisition's ghost number, the resource's maximum.
    fn tla_vars(_world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let node = |f: fn(&Peer) -> Tla| tla::per_node(s, move |st| st.peer().map(f));
        let max_ghost = tla::resource(s, State::resource).max_ghost;
        Some(vec![
            ("phase", node(|n| tla::phase(n.script.phase))),
            ("left", node(|n| Tla::int(n.script.left))),
            ("highest", node(|n| Tla::int(n.highest))),
            ("request", node(|n| Tla::or_none(n.request, Tla::int))),
            ("outstanding", node(|n| Tla::int(n.outstanding))),
            ("deferred", node(|n| Tla::mask(n.deferred))),
            ("acquired", node(|n| Tla::int(n.ghost))),
            ("max_ghost", Tla::int(max_ghost)),
        ])
    }

    /// As the spec writes messages: a write carries no token (this family
    /// has none).
    fn tla_msg(&self, msg: &Msg) -> Tla {
        tla_tokenless(msg, msg.resource())
    }
}
