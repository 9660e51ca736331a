//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::prelude::*;
use crate::algorithms::real::{Fence, Keep, Part, Real, RedisFamily, Setup};

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
            on(p.requests == super::Requests::Sequential, "requests in sequence"),
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
        set("Requests", quoted(p.requests.word()));
        Ok(&WORLD_FAULTS)
    }

    fn real(p: &super::Params) -> Real {
                        let (m, clients) = (p.masters as usize, p.clients as usize);
        let mut cast: Vec<Part> = (0..m).map(Part::Redis).collect();
        cast.extend((0..clients).map(Part::Client));
        if p.fencing == super::Fencing::Counter {
            cast.push(Part::Counter(m));
        }
        cast.push(Part::Resource);
        Real::Redis(Setup {
            family: RedisFamily::Redlock,
            cast,
            servers: m,
            clients,
            ttl: p.ttl,
            keep: match p.restart {
                super::Restart::Empty => Keep::Nothing,
                super::Restart::Fsync => Keep::Fsync,
                super::Restart::Delayed => Keep::Delayed,
            },
            fence: match p.fencing {
                super::Fencing::None => Fence::None,
                super::Fencing::Counter => Fence::CounterService,
                super::Fencing::LockValue => Fence::LockValue,
            },
            need: p.quorum(),
            validity: true,
            drift: p.drift,
            margin: p.margin,
            wait: None,
            down_after: 0,
        })
    }
}
