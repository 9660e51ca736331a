//! The messages, timers and steps of `primary-replica`: Redis commands
//! and replies, the replication stream, Sentinel's commands.

use super::Key;
use crate::algorithms::prelude::*;

parts!(Msg { Resource(ResourceMsg) => resource });

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub enum Msg {
    /// `SET lock value NX PX ttl` (with `wait` and `pipeline`: then `WAIT
    /// k timeout`, in the same request).
    SetNxPx {
        #[rewrite(value)]
        value: u32,
    },
    /// `OK` to a `SET` whose client sends its `WAIT` once this arrives
    /// (`wait` without `pipeline`).
    SetOk {
        #[rewrite(value)]
        value: u32,
    },
    /// `WAIT k timeout`, sent on `SET`'s `OK`; `value` is the `SET`'s,
    /// which names the write it waits for (Redis keeps the connection's
    /// last write offset).
    Wait {
        #[rewrite(value)]
        value: u32,
    },
    /// `if GET lock == value then DEL lock`.
    CompareAndDelete {
        #[rewrite(value)]
        value: u32,
    },
    /// The key was set (with `wait`: and replicated); `token` is 0, as this
    /// family has no fencing. Every answer carries the value of the request
    /// it answers, as a client matches an answer to its request.
    Granted {
        token: u32,
        #[rewrite(ghost)]
        ghost: u32,
        #[rewrite(value)]
        value: u32,
    },
    /// The key exists: not set.
    Refused {
        #[rewrite(value)]
        value: u32,
    },
    /// The key was set, but `WAIT` timed out first (it returned fewer
    /// than `k`).
    WaitTimedOut {
        #[rewrite(value)]
        value: u32,
    },
    /// Answer to a release.
    Released {
        #[rewrite(value)]
        value: u32,
    },
    /// The replication stream: the key as the primary has it now, with
    /// the TTL left on its clock when sent (Redis sends the absolute
    /// `PXAT`; see `redis::apply`), followed by `REPLCONF
    /// GETACK *` when `getack`.
    Replicate {
        #[rewrite]
        key: Option<Key>,
        px: u8,
        getack: bool,
    },
    /// `REPLCONF GETACK *` on the replication stream, with no write before
    /// it to ship: the replica answers `Ack`.
    GetAck,
    /// `PSYNC`: a replica asks for a full resynchronisation.
    Sync,
    /// The primary's dataset, for a replica that asked with `Sync`.
    FullSync {
        #[rewrite]
        key: Option<Key>,
        px: u8,
    },
    /// `REPLCONF ACK`: the replica's answer to `GETACK` (and to a full
    /// resynchronisation); it acknowledges all the stream it has applied
    /// (`wait` only).
    Ack,
    /// A primary's heartbeat to the Sentinel, with the configuration epoch
    /// it was promoted in (what Sentinel's `INFO` and hello messages tell
    /// it).
    Ping {
        epoch: u32,
    },
    /// A former primary is back, empty, and asks the Sentinel whom to
    /// follow.
    Restarted,
    /// Sentinel's `REPLICAOF primary`.
    ReplicaOf {
        primary: Id,
    },
    /// Sentinel's `REPLICAOF NO ONE` to the replica it promotes, in the
    /// failover's epoch.
    Promote {
        epoch: u32,
    },
    /// The replica now acts as primary (Sentinel reads `role:master`).
    Promoted {
        epoch: u32,
    },
    /// Sentinel's `+switch-master`, to clients.
    NewPrimary {
        id: Id,
    },
    /// A Sentinel's view of the primary changed (SDOWN or back), as the
    /// others read it with `SENTINEL is-master-down-by-addr`.
    SDown {
        down: bool,
    },
    /// `SENTINEL is-master-down-by-addr ... epoch runid`: a Sentinel that
    /// started a failover in `epoch` asks for a vote.
    VoteRequest {
        epoch: u32,
    },
    /// The answer: whom this Sentinel voted for, in which epoch (its
    /// `leader` and `leader_epoch`); one vote per epoch, to the first to ask.
    Vote {
        epoch: u32,
        leader: Id,
    },
    /// The leader's new configuration (hello messages): `primary` since
    /// `epoch`. A Sentinel adopts a newer configuration epoch than its own.
    Config {
        epoch: u32,
        primary: Id,
    },
    /// `min-replicas-to-write`: `-NOREPLICAS Not enough good replicas to
    /// write.`
    NoReplicas {
        #[rewrite(value)]
        value: u32,
    },
    /// A replica's periodic `REPLCONF ACK` (every `ping` ticks), by which
    /// the primary measures its lag (with `min_replicas` only).
    Heartbeat,
    Resource(#[rewrite] ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Timer {
    /// Redis: the key's TTL.
    KeyExpiry,
    /// Primary: the next ping to the Sentinel.
    Ping,
    /// Primary: `client`'s `WAIT` gives up.
    WaitTimeout { client: Id },
    /// Sentinel: the primary is down when this fires (down-after); while
    /// promoting, the failover timed out.
    DownAfter,
    /// Client: wait before asking again.
    Retry,
    /// Client: the request timeout.
    Timeout,
    /// Validity client: what is left of the lock's validity.
    Validity,
    /// Replica: the next `REPLCONF ACK` (with `min_replicas` only).
    Heartbeat,
    /// Primary: `replica` acknowledged within `max_lag` while this runs
    /// (with `min_replicas` only).
    Lag { replica: Id },
}


#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Step {
    Acquire,
    /// Validity client: is there validity left for the write?
    Check,
    Write,
    Replicate,
    /// Sentinel: promote `replica` (`+selected-slave`).
    SelectReplica {
        replica: Id,
    },
}
