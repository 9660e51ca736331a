//! The Redis nodes, primary and replicas alike: their state, the
//! primary's step (Replicate), their command handlers and their timers.

use super::{Key, Msg, Node, Params, Replication, Timer, MAX_REPLICAS, PRIMARY};
use crate::algorithms::prelude::*;

/// What a Redis node is to the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack)]
pub enum Standing {
    /// Serves clients, and streams its writes to the replicas attached
    /// (`Redis::replicas`).
    Primary,
    /// A former primary restarted with `auto_restart = false`: waits for
    /// the Sentinel to name the primary to follow.
    Detached,
    /// Has asked `primary` for a full resynchronisation.
    Syncing { primary: Id },
    /// Applies `primary`'s replication stream.
    Streaming { primary: Id },
}

/// The most `REPLCONF GETACK`s a `wait` primary has out unanswered, per
/// replica.
pub const MAX_UNACKED: u8 = 2;

/// A replica attached to a primary, as the primary sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub struct Attached {
    pub id: Id,
    /// The key changed since the last shipment to this replica (its part
    /// of the replication backlog, by its net effect).
    pub unshipped: bool,
    /// `wait` only: a `REPLCONF GETACK` is queued for it, behind the
    /// change not yet shipped if there is one (a `WAIT` blocked since the
    /// last one left).
    pub getack: bool,
    /// `wait` only: `GETACK`s to it not yet answered (a full
    /// resynchronisation counts as one: the replica acknowledges it).
    pub unacked: u8,
}

/// A granted `SET` whose `WAIT` has not returned: blocked, or (without
/// `pipeline`) still to come. Redis keeps the offset of each connection's
/// last write, and `WAIT` counts the replicas whose acknowledged offset has
/// reached it; this is that write, by client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub struct Waiting {
    pub client: Id,
    /// The value the `SET` wrote, which the answer carries.
    #[rewrite(value)]
    pub value: u32,
    /// Per Redis node (by id): which of the `GETACK`s not yet answered by
    /// that replica follows the write, oldest first from 1; 0 while none
    /// does (or once acknowledged).
    pub shipment: [u8; MAX_REPLICAS as usize + 1],
    /// The replicas (a bit per id) that have acknowledged the write.
    pub acked: u8,
    /// The client's `WAIT` has arrived and blocks; false while the `OK`
    /// to its `SET` is on its way and the `WAIT` still to come.
    pub blocked: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Redis {
    pub standing: Standing,
    /// Primary: the Sentinel's configuration epoch it was promoted in (0
    /// for the initial primary, and for every other node). Renumbered by
    /// the family's `Renumber`, as are all epochs.
    pub epoch: u32,
    #[rewrite]
    pub key: Option<Key>,
    /// Primary: its attached replicas, by id.
    pub replicas: Vec<Attached>,
    /// Primary, `wait` only: granted `SET`s whose `WAIT` is blocked, by
    /// client.
    #[rewrite]
    pub waiting: Vec<Waiting>,
}

impl Redis {
    pub(super) fn new(standing: Standing) -> Redis {
        Redis {
            standing,
            epoch: 0,
            key: None,
            replicas: Vec::new(),
            waiting: Vec::new(),
        }
    }

    /// The key changed: it is to be shipped to every attached replica (one
    /// that attaches later gets the whole dataset).
    fn wrote(&mut self) {
        for a in self.replicas.iter_mut() {
            a.unshipped = true;
        }
    }

    /// The replica the next `Replicate` ships to: the first with a change
    /// to ship, or a `GETACK` queued and room for another unanswered one.
    pub(super) fn next_shipment(&self) -> Option<usize> {
        self.replicas.iter().position(|a| a.unshipped || a.asks())
    }

    /// Keeps `client`'s write of `value` for its `WAIT`, acknowledged so
    /// far by the replicas in `acked`: its index in `waiting`.
    fn keep_write(&mut self, client: Id, value: u32, acked: u8) -> usize {
        let w = Waiting {
            client,
            value,
            shipment: [0; MAX_REPLICAS as usize + 1],
            acked,
            blocked: false,
        };
        let at = self.waiting.partition_point(|x| x.client < client);
        self.waiting.insert(at, w);
        at
    }

    /// A `WAIT` blocks: Redis asks every replica for its offset
    /// (`REPLCONF GETACK *`, in `beforeSleep`), after what the stream
    /// already holds.
    fn ask_for_acks(&mut self) {
        for a in self.replicas.iter_mut() {
            a.getack = true;
        }
    }
}

impl Attached {
    /// A `GETACK` is queued for it and may go now.
    fn asks(&self) -> bool {
        self.getack && self.unacked < MAX_UNACKED
    }
}

impl Waiting {
    fn acks(&self) -> u8 {
        self.acked.count_ones() as u8
    }
}

/// Init: the initial primary, with every replica attached, or a replica
/// streaming from it.
pub(super) fn redis_init(p: &Params, id: Id, out: &mut Out<Node>) -> Redis {
    if id == PRIMARY {
        out.set_timer(Timer::Ping, p.ping);
        let mut r = Redis::new(Standing::Primary);
        r.replicas = (1..=p.replicas as Id)
            .map(|id| Attached {
                id,
                unshipped: false,
                getack: false,
                unacked: 0,
            })
            .collect();
        if p.min_replicas > 0 {
            for replica in 1..=p.replicas as Id {
                out.set_timer(Timer::Lag { replica }, p.max_lag + 1);
            }
        }
        r
    } else {
        if p.min_replicas > 0 {
            out.set_timer(Timer::Heartbeat, p.ping);
        }
        Redis::new(Standing::Streaming { primary: PRIMARY })
    }
}

/// Replicate: ship the key as it is now to the next replica, and the
/// `GETACK` queued behind it, if any; or that `GETACK` alone.
pub(super) fn replicate(ctx: &Ctx<'_, Node>, r: &mut Redis, out: &mut Out<Node>) {
    let Some(at) = r.next_shipment() else { return };
    let (key, px) = dataset(ctx, r);
    let a = &mut r.replicas[at];
    let getack = a.asks();
    if a.unshipped {
        out.send(a.id, Msg::Replicate { key, px, getack });
    } else {
        out.send(a.id, Msg::GetAck);
    }
    a.unshipped = false;
    if getack {
        a.getack = false;
        a.unacked += 1;
        // The GETACK follows every write so far on this replica's stream.
        let (to, n) = (a.id, a.unacked);
        for w in r.waiting.iter_mut() {
            if w.shipment[to] == 0 && w.acked & (1 << to) == 0 {
                w.shipment[to] = n;
            }
        }
    }
}

/// The primary's dataset for its replicas: the key, with the TTL left on
/// the primary's clock (a key whose timer is due is already gone).
fn dataset(ctx: &Ctx<'_, Node>, r: &Redis) -> (Option<Key>, u8) {
    match (r.key, ctx.timer(Timer::KeyExpiry)) {
        (Some(k), Some(left)) if left > 0 => (Some(k), left),
        _ => (None, 0),
    }
}

/// A Redis node executes one command atomically. Only a primary serves
/// clients; only a replica applies a replication stream. Three kinds of
/// message, each handled apart: the clients' commands, the replication
/// link's traffic (at either end) and the Sentinel's commands.
pub(super) fn redis_receive(p: &Params, ctx: &Ctx<'_, Node>, r: &mut Redis, src: Id, msg: Msg, out: &mut Out<Node>) {
    match msg {
        Msg::SetNxPx { .. } | Msg::Wait { .. } | Msg::CompareAndDelete { .. } => client_command(p, ctx, r, src, msg, out),
        Msg::Sync | Msg::Ack | Msg::Heartbeat | Msg::Replicate { .. } | Msg::GetAck | Msg::FullSync { .. } => {
            replication(p, ctx, r, src, msg, out)
        }
        Msg::Promote { .. } | Msg::ReplicaOf { .. } => sentinel_command(p, r, src, msg, out),
        _ => {}
    }
}

/// `SET lock value NX PX ttl`, `WAIT` and the compare-and-delete script,
/// which only a primary serves.
fn client_command(p: &Params, ctx: &Ctx<'_, Node>, r: &mut Redis, src: Id, msg: Msg, out: &mut Out<Node>) {
    let wait = p.replication == Replication::Wait;
    match (r.standing, msg) {
        (Standing::Primary, Msg::SetNxPx { value }) => {
            // A client that sends a new command has given up a WAIT still
            // blocked for it (it timed out or restarted, and closed that
            // connection): Redis drops the blocked client.
            forget_write(r, src, out);
            if r.key.is_some() {
                out.send(src, Msg::Refused { value });
                return;
            }
            if !good_replicas(p, ctx, r) {
                out.send(src, Msg::NoReplicas { value });
                return;
            }
            r.key = Some(Key { value });
            out.set_timer(Timer::KeyExpiry, p.ttl);
            r.wrote();
            if wait {
                let at = r.keep_write(src, value, 0);
                if p.pipeline {
                    block(p, r, at, out);
                } else {
                    out.send(src, Msg::SetOk { value });
                }
            } else {
                grant(src, value, out);
            }
        }
        // WAIT returns at once if enough replicas have acknowledged the
        // write, and blocks otherwise. A WAIT for no write the primary has
        // (it restarted since the SET, and with it went the connection the
        // SET was sent on) comes on a new connection, as a client library
        // that retries a command after reconnecting sends it (redis-py's
        // default): that connection's write offset is 0, which every
        // attached replica has reached, one still loading the dataset
        // included: Redis puts a replica online when the dataset's transfer
        // ends, before the replica has loaded it (`replicaPutOnline` in
        // replication.c), and `WAIT` counts the online replicas whose
        // acknowledged offset has reached the connection's
        // (`replicationCountAcksByOffset`; 7.0, the version tested here).
        (Standing::Primary, Msg::Wait { value }) => {
            let at = match r.waiting.iter().position(|w| w.client == src && w.value == value) {
                Some(at) => at,
                None => {
                    forget_write(r, src, out);
                    let every = r.replicas.iter().fold(0, |m, a| m | 1 << a.id);
                    r.keep_write(src, value, every)
                }
            };
            if r.waiting[at].acks() >= p.wait_replicas {
                r.waiting.remove(at);
                grant(src, value, out);
            } else {
                block(p, r, at, out);
            }
        }
        (Standing::Primary, Msg::CompareAndDelete { value }) => {
            if r.key.is_some_and(|k| k.value == value) && !good_replicas(p, ctx, r) {
                out.send(src, Msg::NoReplicas { value });
                return;
            }
            if r.key.is_some_and(|k| k.value == value) {
                r.key = None;
                out.cancel_timer(Timer::KeyExpiry);
                r.wrote();
            }
            out.send(src, Msg::Released { value });
        }
        _ => {}
    }
}

/// The replication link: a replica attaching (`SYNC`) and acknowledging,
/// at the primary; the stream and the full resynchronisation, at the
/// replica.
fn replication(p: &Params, ctx: &Ctx<'_, Node>, r: &mut Redis, src: Id, msg: Msg, out: &mut Out<Node>) {
    let wait = p.replication == Replication::Wait;
    match (r.standing, msg) {
        // A replica attaches (or attaches again): the dataset replaces its
        // backlog, and its acknowledgement covers every write so far.
        (Standing::Primary, Msg::Sync) => {
            let a = Attached {
                id: src,
                unshipped: false,
                getack: false,
                unacked: u8::from(wait),
            };
            match r.replicas.binary_search_by_key(&src, |a| a.id) {
                Ok(at) => r.replicas[at] = a,
                Err(at) => r.replicas.insert(at, a),
            }
            for w in r.waiting.iter_mut() {
                w.shipment[src] = 1;
                w.acked &= !(1 << src);
            }
            // Its acknowledgement of the dataset answers every GETACK.
            let (key, px) = dataset(ctx, r);
            out.send(src, Msg::FullSync { key, px });
        }
        // A replica answers its oldest GETACK: WAIT returns for the writes
        // that now have k acknowledgements.
        (Standing::Primary, Msg::Ack) => {
            let Some(a) = r.replicas.iter_mut().find(|a| a.id == src) else {
                return;
            };
            a.unacked = a.unacked.saturating_sub(1);
            for w in r.waiting.iter_mut() {
                match w.shipment[src] {
                    0 => {}
                    1 => {
                        w.shipment[src] = 0;
                        w.acked |= 1 << src;
                    }
                    _ => w.shipment[src] -= 1,
                }
            }
            let done = |w: &Waiting| w.blocked && w.acks() >= p.wait_replicas;
            for w in r.waiting.iter().filter(|w| done(w)) {
                out.cancel_timer(Timer::WaitTimeout { client: w.client });
                grant(w.client, w.value, out);
            }
            r.waiting.retain(|w| !done(w));
        }
        // The replica acknowledges when asked (`GETACK`). Redis replicas
        // also acknowledge once a second; that only ever tells the primary
        // earlier what a GETACK's answer tells it, and is left out.
        (Standing::Streaming { primary }, Msg::Replicate { key, px, getack }) if primary == src => {
            apply(ctx, r, key, px, out);
            if getack {
                out.send(src, Msg::Ack);
            }
        }
        (Standing::Streaming { primary }, Msg::GetAck) if primary == src => out.send(src, Msg::Ack),
        // REPLCONF ACK from an attached replica: it is good for max_lag.
        (Standing::Primary, Msg::Heartbeat) if r.replicas.iter().any(|a| a.id == src) => {
            out.set_timer(Timer::Lag { replica: src }, p.max_lag + 1);
        }
        (Standing::Syncing { primary }, Msg::FullSync { key, px }) if primary == src => {
            apply(ctx, r, key, px, out);
            r.standing = Standing::Streaming { primary };
            if p.min_replicas > 0 {
                out.set_timer(Timer::Heartbeat, p.ping);
            }
            if wait {
                out.send(src, Msg::Ack);
            }
        }
        _ => {}
    }
}

/// The Sentinel's `REPLICAOF NO ONE` (the promotion) and `REPLICAOF`.
fn sentinel_command(p: &Params, r: &mut Redis, src: Id, msg: Msg, out: &mut Out<Node>) {
    match (r.standing, msg) {
        // REPLICAOF NO ONE: take over as primary in the failover's epoch,
        // with no replica of its own until one attaches, and report to the
        // Sentinel from now on.
        (_, Msg::Promote { epoch }) => {
            if r.standing != Standing::Primary {
                r.replicas.clear();
                out.cancel_timer(Timer::Heartbeat);
                if p.monitors(epoch) {
                    out.set_timer(Timer::Ping, p.ping);
                } else {
                    out.cancel_timer(Timer::Ping);
                }
            }
            r.standing = Standing::Primary;
            r.epoch = epoch;
            out.send(src, Msg::Promoted { epoch });
        }
        // REPLICAOF the primary it already follows: "already connected".
        (Standing::Syncing { primary: now } | Standing::Streaming { primary: now }, Msg::ReplicaOf { primary })
            if now == primary => {}
        // REPLICAOF another primary: drop the dataset (and any blocked
        // WAIT), and resynchronise.
        (_, Msg::ReplicaOf { primary }) => {
            for w in &r.waiting {
                out.cancel_timer(Timer::WaitTimeout { client: w.client });
            }
            *r = Redis::new(Standing::Syncing { primary });
            out.cancel_timer(Timer::KeyExpiry);
            out.cancel_timer(Timer::Ping);
            for replica in p.redis_nodes() {
                out.cancel_timer(Timer::Lag { replica });
            }
            out.send(primary, Msg::Sync);
        }
        _ => {}
    }
}

/// The lock is `client`'s (with `wait`: its `WAIT` returned enough
/// replicas); `token` is 0, as this family has no fencing.
fn grant(client: Id, value: u32, out: &mut Out<Node>) {
    let ghost = out.next_ghost();
    out.send(client, Msg::Granted { token: 0, ghost, value });
}

/// `client` sent a new command: Redis drops its `WAIT` still blocked (it
/// timed out or restarted, and closed that connection), and its write
/// now is another.
fn forget_write(r: &mut Redis, client: Id, out: &mut Out<Node>) {
    if let Some(at) = r.waiting.iter().position(|w| w.client == client) {
        r.waiting.remove(at);
        out.cancel_timer(Timer::WaitTimeout { client });
    }
}

/// The `WAIT` for `r.waiting[at]` blocks: its timeout runs, and every
/// replica is asked for its offset.
fn block(p: &Params, r: &mut Redis, at: usize, out: &mut Out<Node>) {
    let w = &mut r.waiting[at];
    w.blocked = true;
    if p.wait_timeout > 0 {
        out.set_timer(Timer::WaitTimeout { client: w.client }, p.wait_timeout);
    }
    r.ask_for_acks();
}

/// `min-replicas-to-write`: enough replicas acknowledged within
/// `max_lag` (server.c's `checkGoodReplicasStatus`; a replica is good
/// while its `Lag` timer runs).
fn good_replicas(p: &Params, ctx: &Ctx<'_, Node>, r: &Redis) -> bool {
    let good = r
        .replicas
        .iter()
        .filter(|a| ctx.timer(Timer::Lag { replica: a.id }).is_some())
        .count();
    good >= usize::from(p.min_replicas)
}

/// A replica takes the primary's key, with its own expiry timer. Redis 7
/// replicates `SET ... PX` as `PXAT`, an absolute time on the primary's
/// clock, and the replica's key expires when its own clock reaches it. In
/// relative time that is the TTL left when the primary sent it (`px`)
/// less the shipment's time in flight ([`Ctx::age`]): the replica's key
/// expires at the real moment the primary's does, when their clocks
/// agree. A key whose time is already up arrives as no key.
fn apply(ctx: &Ctx<'_, Node>, r: &mut Redis, key: Option<Key>, px: u8, out: &mut Out<Node>) {
    let left = px.saturating_sub(ctx.age());
    r.key = key.filter(|_| left > 0);
    match r.key {
        Some(_) => out.set_timer(Timer::KeyExpiry, left),
        None => out.cancel_timer(Timer::KeyExpiry),
    }
}

/// Fire: a Redis node's timers.
pub(super) fn redis_fire(p: &Params, r: &mut Redis, timer: Timer, out: &mut Out<Node>) {
    match timer {
        // The key's TTL ran out on this node's clock; a primary streams
        // the deletion, a replica treats the key as gone (module doc).
        Timer::KeyExpiry => {
            r.key = None;
            r.wrote();
        }
        Timer::Ping if r.standing == Standing::Primary => {
            for sentinel in p.sentinels() {
                out.send(sentinel, Msg::Ping { epoch: r.epoch });
            }
            out.set_timer(Timer::Ping, p.ping);
        }
        // REPLCONF ACK, every `ping` ticks while streaming.
        Timer::Heartbeat => {
            if let Standing::Streaming { primary } = r.standing {
                out.send(primary, Msg::Heartbeat);
                out.set_timer(Timer::Heartbeat, p.ping);
            }
        }
        // WAIT returns fewer than k: too few replicas acknowledged.
        Timer::WaitTimeout { client } => {
            if let Some(at) = r.waiting.iter().position(|w| w.client == client) {
                let w = r.waiting.remove(at);
                out.send(client, Msg::WaitTimedOut { value: w.value });
            }
        }
        _ => {}
    }
}

/// Restart: a replica resynchronises from the primary its configuration
/// names; a former primary reports to the Sentinel and waits to be told
/// whom to follow.
pub(super) fn redis_restart(p: &Params, r: &Redis, out: &mut Out<Node>) -> Redis {
    match r.standing {
        Standing::Syncing { primary } => out.send(primary, Msg::Sync),
        _ => {
            for sentinel in p.sentinels() {
                out.send(sentinel, Msg::Restarted);
            }
        }
    }
    r.clone()
}
