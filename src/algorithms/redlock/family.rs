//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::prelude::*;

/// The family of `algorithm = "redlock"` (specs/Redlock.tla).
pub struct Redlock;

impl Family for Redlock {
    names!("redlock", "Redlock");

    fn row(p: &super::Params) -> Row {
        use super::{Fencing, Restart};
        let name = join(&[
            Some(format!("{} master{}", p.masters, if p.masters == 1 { "" } else { "s" })),
            match p.restart {
                Restart::Empty => None,
                Restart::Fsync => Some("fsync".into()),
                Restart::Delayed => Some("delayed restart".into()),
            },
            match p.fencing {
                Fencing::None => None,
                Fencing::LockValue => Some("lock value as fencing token".into()),
                Fencing::Counter => Some("fencing counter".into()),
            },
            on(p.retry_max == p.retry, "fixed back-off"),
        ]);
        // A delayed restart comes back empty too; it answers nothing until the
        // keys it forgot have expired.
        Row {
            restarts_empty: p.restart != Restart::Fsync,
            pause_window: p.pause_window,
            ..Row::new(name)
        }
    }

    fn tla_constants(_sc: &Scenario, p: &super::Params, set: Set) -> Extra {
        set("Masters", p.masters.to_string());
        set("Clients", p.clients.to_string());
        set("Ttl", p.ttl.to_string());
        set("Timeout", p.timeout.to_string());
        set("Drift", p.drift.to_string());
        set("Margin", p.margin.to_string());
        set("Retry", p.retry.to_string());
        set("RetryMax", p.retry_max.to_string());
        set("RestartMode", quoted(p.restart.word()));
        set("Fencing", quoted(p.fencing.word()));
        set("PauseWindow", quoted(p.pause_window.word()));
        Ok(&WORLD_FAULTS)
    }
}
