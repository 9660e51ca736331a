//! The database: the lock's row in `locks(name PRIMARY KEY, owner,
//! expires_at)`, and the statements it runs, each as one transaction.

use super::{Msg, Node, Params, Timer};
use crate::algorithms::prelude::*;

/// The lock's row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Row {
    /// The `owner` column: the inserting attempt's random value.
    #[rewrite(value)]
    pub owner: u32,
    /// `expires_at < now()` on the database's clock.
    pub expired: bool,
    /// Ghost: the client that inserted it (for `no_foreign_release`).
    pub holder: Id,
    /// Ghost: numbers the acquisition in insert order.
    #[rewrite(ghost)]
    pub ghost: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Database {
    #[rewrite]
    pub row: Option<Row>,
}

/// The database runs each statement as one transaction.
pub(super) fn database_receive(p: &Params, d: &mut Database, src: Id, msg: Msg, out: &mut Out<Node>) {
    match msg {
        Msg::Insert { value } => {
            if d.row.is_some_and(|r| !(p.expiry && r.expired)) {
                out.send(src, Msg::Duplicate { value });
                return;
            }
            let ghost = out.next_ghost();
            d.row = Some(Row {
                owner: value,
                expired: false,
                holder: src,
                ghost,
            });
            if p.expiry {
                out.set_timer(Timer::RowExpiry, p.ttl);
            }
            out.send(src, Msg::Inserted { value, ghost });
        }
        Msg::Delete { value } => {
            if let Some(row) = d.row.filter(|r| r.owner == value) {
                if row.holder != src {
                    out.raise(FOREIGN_RELEASE);
                }
                d.row = None;
                out.cancel_timer(Timer::RowExpiry);
            }
            out.send(src, Msg::Deleted { value });
        }
        _ => {}
    }
}
