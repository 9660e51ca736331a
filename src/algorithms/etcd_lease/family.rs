//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::prelude::*;
use crate::algorithms::real::Real;

/// The family of `algorithm = "etcd-lease"` (specs/EtcdLease.tla).
pub struct EtcdLease;

impl Family for EtcdLease {
    names!("etcd-lease", "EtcdLease");

    fn row(p: &super::Params) -> Row {
        let name = join(&[
            Some("lease lock".into()),
            on(p.client == super::ClientKind::Validity, "validity check"),
            on(p.fencing, "revision fencing"),
            on(!p.key_check, "Lock without its own-key check"),
            on(p.unlock == super::Unlock::Delete, "plain Delete unlock"),
        ]);
        Row::new(name)
    }

    fn tla_constants(_sc: &Scenario, p: &super::Params, set: Set) -> Extra {
        set("Clients", p.clients.to_string());
        set("Ttl", p.ttl.to_string());
        set("Fencing", boolean(p.fencing));
        set("Retry", p.retry.to_string());
        set("Timeout", p.timeout.to_string());
        set("Client", quoted(p.client.word()));
        set("Drift", p.drift.to_string());
        set("Margin", p.margin.to_string());
        Ok(&["min_pause"])
    }

    fn real(_: &super::Params) -> Real {
        Real::Etcd
    }
}
