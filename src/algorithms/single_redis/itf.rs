//! The TLA+ mapping of `single-redis`: the state as
//! `specs/mirror/SingleRedis.tla`'s variables (`trace.itf.json`).

use super::{Client, Node, State};
use crate::algorithms::prelude::*;

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/SingleRedis.tla's variables: the server's `key` and `fence`,
    /// the clients' script and attempt, the resource's maxima.
    fn tla_vars(_world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let client = |f: fn(&Client) -> Tla| tla::per_node(s, move |st| st.client().map(f));
        let server = |st: &State| match st {
            State::Server(sv) => Some(*sv),
            _ => None,
        };
        let sv = s.nodes.iter().find_map(|n| server(&n.state)).unwrap_or_default();
        let r = tla::resource(s, State::resource);
        Some(vec![
            (
                "key",
                Tla::or_none(sv.key, |k| {
                    Tla::rec([("value", Tla::int(k.value)), ("ghost", Tla::int(k.ghost))])
                }),
            ),
            ("fence", Tla::int(sv.fence)),
            ("phase", client(|c| tla::phase(c.script.phase))),
            ("left", client(|c| Tla::int(c.script.left))),
            ("value", client(|c| Tla::int(c.value))),
            ("expire", client(|c| Tla::str(format!("{:?}", c.expire)))),
            ("checked", client(|c| Tla::Bool(c.checked))),
            ("token", client(|c| Tla::int(c.token))),
            ("acquired", client(|c| Tla::int(c.ghost))),
            ("max_token", Tla::int(r.max_token)),
            ("max_ghost", Tla::int(r.max_ghost)),
        ])
    }
}
