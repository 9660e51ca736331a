//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::prelude::*;
use crate::algorithms::real::{Fence, Keep, Part, Real, RedisFamily, Setup};

/// The family of `algorithm = "single-redis"` (specs/SingleRedis.tla).
pub struct SingleRedis;

impl Family for SingleRedis {
    names!("single-redis", "SingleRedis");

    fn row(p: &super::Params) -> Row {
        use super::{ClientKind, Command, Release, Restart};
        let command = match p.command {
            Command::Setnx => "SETNX",
            Command::SetnxExpire => "SETNX then EXPIRE",
            Command::SetNxPx => "SET NX PX",
        };
        let release = match p.release {
            Release::Del => "DEL",
            Release::CompareAndDelete => "compare-and-delete",
        };
        let name = join(&[
            Some(format!("{command} + {release}")),
            on(p.client == ClientKind::Validity, "validity check"),
            on(p.watchdog, "watchdog"),
            on(p.fencing, "fencing token"),
            on(p.restart == Restart::Fsync, "fsync"),
        ]);
        Row {
            restarts_empty: p.restart == Restart::Empty,
            ..Row::new(name)
        }
    }

    fn tla_constants(_sc: &Scenario, p: &super::Params, set: Set) -> Extra {
        set("Clients", p.clients.to_string());
        set("Ttl", p.ttl.to_string());
        set("Command", quoted(p.command.word()));
        set("ReleaseCommand", quoted(p.release.word()));
        set("Watchdog", boolean(p.watchdog));
        set("Fencing", boolean(p.fencing));
        set("Retry", p.retry.to_string());
        set("RestartMode", quoted(p.restart.word()));
        set("Timeout", p.timeout.to_string());
        set("Client", quoted(p.client.word()));
        set("Drift", p.drift.to_string());
        set("Margin", p.margin.to_string());
        Ok(&WORLD_FAULTS)
    }

    fn real(p: &super::Params) -> Real {
                        let clients = p.clients as usize;
        let mut cast = vec![Part::Redis(0)];
        cast.extend((0..clients).map(Part::Client));
        cast.push(Part::Resource);
        Real::Redis(Setup {
            family: RedisFamily::SingleRedis,
            cast,
            servers: 1,
            clients,
            ttl: p.ttl,
            keep: match p.restart {
                super::Restart::Empty => Keep::Nothing,
                super::Restart::Fsync => Keep::Fsync,
            },
            fence: if p.fencing { Fence::ServerCounter } else { Fence::None },
            need: 1,
            validity: p.client == super::ClientKind::Validity,
            drift: p.drift,
            margin: p.margin,
            wait: None,
            down_after: 0,
        })
    }
}
