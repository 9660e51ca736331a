//! The TLA+ mapping of `lock-table`: the state as
//! `specs/mirror/LockTable.tla`'s variables (`trace.itf.json`).

use super::{Client, Node, State};
use crate::algorithms::prelude::*;

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/LockTable.tla's variables: the lock's row, the clients'
    /// attempts, the resource's maxima.
    fn tla_vars(_world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let client = |f: fn(&Client) -> Tla| tla::per_node(s, move |st| st.client().map(f));
        let row = tla::the(s, |st| match st {
            State::Database(d) => Some(Tla::or_none(d.row, |r| {
                Tla::rec([
                    ("owner", Tla::int(r.owner)),
                    ("expired", Tla::Bool(r.expired)),
                    ("holder", Tla::int(r.holder as i64)),
                    ("ghost", Tla::int(r.ghost)),
                ])
            })),
            _ => None,
        });
        let r = tla::resource(s, State::resource);
        Some(vec![
            ("row", row),
            ("phase", client(|c| tla::phase(c.script.phase))),
            ("left", client(|c| Tla::int(c.script.left))),
            ("value", client(|c| Tla::int(c.value))),
            ("checked", client(|c| Tla::Bool(c.checked))),
            ("acquired", client(|c| Tla::int(c.ghost))),
            ("max_token", Tla::int(r.max_token)),
            ("max_ghost", Tla::int(r.max_ghost)),
        ])
    }
}
