//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::prelude::*;

/// The family of `algorithm = "lock-table"` (specs/LockTable.tla).
pub struct LockTable;

impl Family for LockTable {
    names!("lock-table", "LockTable");

    fn row(p: &super::Params) -> Row {
        let name = join(&[
            Some(if p.expiry { "expiry column" } else { "no expiry" }.into()),
            on(p.client == super::ClientKind::Validity, "validity check"),
        ]);
        // The database is durable: its rows survive its crashes.
        Row {
            pause_window: p.pause_window,
            ..Row::new(name)
        }
    }

    fn tla_constants(_sc: &Scenario, p: &super::Params, set: Set) -> Extra {
        set("Clients", p.clients.to_string());
        set("Expiry", boolean(p.expiry));
        set("Ttl", p.ttl.to_string());
        set("Timeout", p.timeout.to_string());
        set("Client", quoted(p.client.word()));
        set("Drift", p.drift.to_string());
        set("Margin", p.margin.to_string());
        set("Retry", p.retry.to_string());
        set("PauseWindow", quoted(p.pause_window.word()));
        Ok(&WORLD_FAULTS)
    }
}
