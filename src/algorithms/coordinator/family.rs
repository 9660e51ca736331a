//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::prelude::*;

/// The family of `algorithm = "coordinator"` (specs/Coordinator.tla).
pub struct Coordinator;

impl Family for Coordinator {
    names!("coordinator", "Coordinator");

    fn row(p: &super::Params) -> Row {
        let standby = match p.standby {
            super::Standby::None => "no standby",
            super::Standby::NoState => "standby without state",
            super::Standby::Replicated => "standby with replicated state",
        };
        let name = join(&[
            Some(standby.into()),
            on(
                p.standby != super::Standby::None && p.detector == super::Detector::Restart,
                "restart notice only",
            ),
            on(
                p.client_restart == super::ClientRestart::Notice,
                "client restart notice",
            ),
        ]);
        // The coordinator's queue is in memory, but what its crash costs is
        // decided by the standby: the row says which.
        Row::new(name)
    }

    fn tla_constants(sc: &Scenario, p: &super::Params, set: Set) -> Extra {
        let file = sc.path.display();
        // The spec's standby takes over when the coordinator says it
        // restarted; it has no heartbeat, and no client tells it of a
        // restart.
        if p.standby != super::Standby::None && p.detector != super::Detector::Restart {
            return Err(format!(
                "{file}: specs/Coordinator.tla models detector = \"restart\" only"
            ));
        }
        if p.client_restart != super::ClientRestart::None {
            return Err(format!(
                "{file}: specs/Coordinator.tla does not model client_restart = \"notice\""
            ));
        }
        set("Clients", p.clients.to_string());
        set("Standby", quoted(p.standby.word()));
        // Extends World.tla but takes only its crashes and restarts.
        Ok(&[])
    }
}
