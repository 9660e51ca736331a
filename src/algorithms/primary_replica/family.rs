//! The family's registration: what the registry in
//! `algorithms/family.rs` knows of it.

use crate::algorithms::prelude::*;
use crate::algorithms::real::{Fence, Keep, Part, Real, RedisFamily, Setup};

/// The family of `algorithm = "primary-replica"` (specs/PrimaryReplica.tla).
pub struct PrimaryReplica;

impl Family for PrimaryReplica {
    names!("primary-replica", "PrimaryReplica");

    fn row(p: &super::Params) -> Row {
        use super::{ClientKind, Replication};
        let replication = match p.replication {
            Replication::Async => "async replication".to_string(),
            Replication::Wait if p.pipeline => format!("SET; WAIT {} {} pipelined", p.wait_replicas, p.wait_timeout),
            Replication::Wait => format!("SET + WAIT {} {}", p.wait_replicas, p.wait_timeout),
        };
        let name = join(&[
            Some(replication),
            on(p.replicas != 1, &format!("{} replicas", p.replicas)),
            on(p.client == ClientKind::Validity, "validity check"),
            on(
                p.sentinels != 1,
                &format!("{} Sentinels, quorum {}", p.sentinels, p.quorum),
            ),
            on(p.min_replicas > 0, &format!("min-replicas-to-write {}", p.min_replicas)),
        ]);
        // A crashed Redis restarts empty but serves nothing until Sentinel has
        // made it a replica: what a crash costs here is the failover.
        Row::new(name)
    }

    fn tla_constants(sc: &Scenario, p: &super::Params, set: Set) -> Extra {
        // The spec has one Sentinel, ships at once, has no
        // min-replicas-to-write, and restarts a crashed primary as it was.
        if p.sentinels != 1 || p.lag || p.min_replicas > 0 || !p.auto_restart || p.pipeline {
            return Err(format!(
                "{}: specs/PrimaryReplica.tla has one Sentinel, no replication lag, no min-replicas-to-write, a primary restarted as it was and a client that sends WAIT after SET's reply, and does not model it",
                sc.name
            ));
        }
        set("Clients", p.clients.to_string());
        set("Replicas", p.replicas.to_string());
        set("Ttl", p.ttl.to_string());
        set("Replication", quoted(p.replication.word()));
        set("WaitReplicas", p.wait_replicas.to_string());
        set("WaitTimeout", p.wait_timeout.to_string());
        set("Ping", p.ping.to_string());
        set("DownAfter", p.down_after.to_string());
        set("Retry", p.retry.to_string());
        set("Timeout", p.timeout.to_string());
        set("Client", quoted(p.client.word()));
        set("Drift", p.drift.to_string());
        set("Margin", p.margin.to_string());
        Ok(&[])
    }

    fn real(p: &super::Params) -> Real {
                        let (r, clients) = (p.replicas as usize, p.clients as usize);
        let mut cast: Vec<Part> = (0..=r).map(Part::Redis).collect();
        cast.push(Part::Sentinel);
        cast.extend((0..clients).map(Part::Client));
        cast.push(Part::Resource);
        Real::Redis(Setup {
            family: RedisFamily::PrimaryReplica,
            cast,
            servers: r + 1,
            clients,
            ttl: p.ttl,
            keep: Keep::Nothing,
            fence: Fence::None,
            need: 1,
            validity: p.client == super::ClientKind::Validity,
            drift: p.drift,
            margin: p.margin,
            wait: (p.replication == super::Replication::Wait)
                .then_some((p.wait_replicas, p.wait_timeout)),
            down_after: p.down_after,
        })
    }
}
