//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::prelude::*;
use crate::algorithms::real::Real;

/// The family of `algorithm = "zookeeper"` (specs/ZooKeeperLock.tla).
pub struct ZooKeeper;

impl Family for ZooKeeper {
    names!("zookeeper", "ZooKeeperLock");

    fn row(p: &super::Params) -> Row {
        use super::{ClientKind, Recipe, Watch};
        let name = join(&[
            Some(
                match p.recipe {
                    Recipe::Lock => "lock recipe",
                    Recipe::RwLock => "read-write recipe",
                }
                .into(),
            ),
            Some(
                match p.watch {
                    Watch::Predecessor => "watch predecessor",
                    Watch::All => "watch all children",
                }
                .into(),
            ),
            on(p.client == ClientKind::Curator, "Curator SUSPENDED check"),
            on(p.fencing, "zxid fencing"),
            on(!p.protection, "no protection prefix"),
        ]);
        Row::new(name)
    }

    fn tla_constants(sc: &Scenario, p: &super::Params, set: Set) -> Extra {
        // The spec's creates carry Curator's protection prefix.
        if !p.protection {
            return Err(format!(
                "{}: specs/ZooKeeperLock.tla creates with the protection prefix and does not model protection = false",
                sc.name
            ));
        }
        set("Clients", p.clients.to_string());
        set("Recipe", quoted(p.recipe.word()));
        set("Readers", p.readers.to_string());
        set("Watch", quoted(p.watch.word()));
        set("SessionTimeout", p.session_timeout.to_string());
        set("PingEvery", p.ping.to_string());
        set("Client", quoted(p.client.word()));
        set("SuspendAfter", p.suspend_after.to_string());
        set("Fencing", boolean(p.fencing));
        set("Timeout", p.timeout.to_string());
        set("Retry", p.retry.to_string());
        Ok(&["min_pause"])
    }

    fn real(_: &super::Params) -> Real {
        Real::ZooKeeper
    }
}
