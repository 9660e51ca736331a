//! `etcd-lease`: a lock on one etcd cluster, after etcd's own lock (the
//! clientv3 `concurrency` package's `Session` and `Mutex`, which the
//! `v3lock` service runs for its callers), etcd's "Lease" documentation and
//! API guarantees, and Kleppmann's note that a key's revision works as a
//! fencing token. The mirror spec (this module in TLA+; the clean-room one is in `specs/`) is `specs/mirror/EtcdLease.tla`; actions appear here in
//! its order: Acquire, Check, Write (client steps); the server's handlers
//! ReceiveLeaseGrant, ReceiveLeaseKeepAlive, ReceiveLeaseRevoke, ReceiveLock,
//! ReceiveWatch, ReceiveRange, ReceiveUnlock; the client's handlers
//! ReceiveLeaseGranted, ReceiveKeepAliveAnswer, ReceiveLocked,
//! ReceiveLeaseNotFound, ReceiveDeleted, ReceiveRangeAnswer, Release,
//! ReceiveUnlocked; the timers (LeaseExpiry on the server; Timeout,
//! KeepAlive, Validity, Retry on a client); then the lock view.
//!
//! The cluster is one linearizable server (Raft inside it is out of scope:
//! the lock rests on its linearizability, not on how it is reached) with a global revision counter that every write
//! transaction moves on. It stays available: the scenario may not crash or
//! pause it (a Raft cluster survives a minority of members; losing quorum
//! is unavailability, not a lock fault), but its clock may drift, and
//! leases expire by that clock. Every timer is a Go time on the monotonic
//! clock (`Actor::monotonic`): server/lease/lease.go's `refresh` sets
//! `l.expiry = time.Now().Add(..)` and lessor.go's `expireExists` tests
//! `now.Before(item.time)`, and Go compares two such times by their
//! monotonic readings; clientv3's deadlines are `time.Now().Add(..)` too.
//! So a jump of a wall clock moves no timer here; a drift in rate does.
//!
//! One acquisition, as `concurrency.NewSession` + `Mutex.Lock` + `Unlock` +
//! `Session.Close` do it:
//! 1. `LeaseGrant(TTL, ID)`: the session's lease. etcd lets a client choose
//!    the ID; the client draws a fresh one per attempt, so that every
//!    answer names the attempt it belongs to and an answer to an older
//!    attempt is ignored. `NewSession` calls `KeepAlive` right after the
//!    grant, which sets `nextKeepAlive: time.Now()`: the first
//!    `LeaseKeepAlive` goes out at once; `recvKeepAlive` sets
//!    `nextKeepAlive := time.Now().Add(TTL / 3)` on each answer, and
//!    `sendKeepAliveLoop` sends whatever is due: the next one TTL/3 (of the
//!    client's clock) after each answer, none while an answer is awaited.
//! 2. `Txn(If(CreateRevision(/lock/ID) = 0), Then(Put(/lock/ID, lease ID),
//!    Get(the newest other key under /lock/)))`: the key is attached to the
//!    lease, its create revision orders the waiters and is the fencing
//!    token. The Get is `waitDeletes`'s first query, folded into the
//!    transaction (the same snapshot). No other key: the client holds.
//! 3. Otherwise `Watch(/lock/pred, rev)` on the predecessor, the key with
//!    the largest create revision below its own; on its DELETE event,
//!    `Txn(Get(/lock/ with max create revision rev - 1, the last),
//!    Get(/lock/ID))`: a predecessor again, watch it; none, and its own key
//!    still there, it holds; its own key gone (its lease expired while it
//!    waited), the session has expired (`ErrSessionExpired`): start over.
//!    `key_check = false` is `Lock` before etcd-io/etcd#11408 (etcd 3.4.4),
//!    which returned once no older key was left, its own key or not.
//! 4. Write to the resource, with the create revision as token when fenced.
//! 5. Unlock: `Txn(If(CreateRevision(/lock/ID) = rev), Then(Delete))`, or
//!    with `unlock = "delete"` mutex.go's own `client.Delete(ctx,
//!    m.myKey)`; then close the session: `LeaseRevoke(ID)`, sent without
//!    waiting.
//!
//! A lease not kept alive expires by the server's clock, deleting the keys
//! attached to it; every watcher of a deleted key gets its DELETE event.
//! A paused client keeps nothing alive, so a pause past the TTL gives two
//! holders; fencing by revision keeps the resource safe.
//!
//! The client, as a real one behaves:
//! - every request that expects an answer (the grant, the lock and range
//!   transactions, the unlock) has a timeout on its own clock (`timeout`):
//!   a timed-out attempt closes its session and retries after `retry`; a
//!   timed-out unlock counts as done (closing the session revokes the lease
//!   and its key). The watch has none: it waits as long as the predecessor
//!   holds, and the predecessor's lease bounds that. Keep-alives are a
//!   stream: the next one goes out on schedule whatever became of the last;
//! - a `naive` client ignores what the keep-alive answers say (as
//!   `concurrency.Mutex` does once it holds): it believes it holds from the
//!   moment it learns it is first until its write is answered;
//! - a `validity` client keeps its lease's remaining TTL on its own clock,
//!   as clientv3's session does: from each grant or keep-alive answer,
//!   TTL − `drift` (a `Validity` timer); an answer saying the lease is gone
//!   (TTL 0), or the timer running out, ends the session. Before writing it
//!   checks (Check) that more than `margin` is left; the write follows as a
//!   separate step, so a pause between the two is a pause while it holds.
//!
//! Modelling choices: the server keeps each lease in the lowest free slot
//! of its lease table, so that its expiry timer has a name
//! (`Timer::LeaseExpiry { slot }`) that holds no ID; the slots are the
//! server's bookkeeping, no client sees them. A watch outlives the attempt
//! that made it; its late event is ignored.
//!
//! Connections (docs/design.md §2): a client talks to etcd over one gRPC
//! connection (HTTP/2 on TCP), so a loss or a cut breaks it. While it is
//! broken the keep-alive stream is silent and the lease runs down on
//! etcd's clock. On the break, gRPC fails the pending unary calls with
//! `Unavailable`: clientv3's retry interceptor (client/v3/retry.go) sends
//! the repeatable ones (`LeaseGrant`, the reads) again on the new
//! connection and returns the error of a `Txn` or `Delete`, so a lock
//! transaction's attempt starts over and an unlock ends. On reconnect,
//! `recvKeepAliveLoop` re-opens the keep-alive stream (`resetRecv`) and
//! sends the keep-alive that is due, and the watch resumes from its
//! revision, so a DELETE that happened meanwhile is delivered. TCP delivers
//! once and in order: duplication and reordering are refused. Left out:
//! clientv3's `deadlineLoop`, which stops a naive client's keep-alives once
//! no answer came for a TTL, and the retry of `LeaseRevoke` after a
//! session closed while disconnected (the lease then expires by its TTL).

mod client;
mod describe;
mod family;
mod itf;
mod server;
pub use family::EtcdLease;

use crate::algorithms::lease::validity_keys;
use crate::algorithms::lease::next_step;
use crate::algorithms::prelude::*;
use super::one_server_world;

use client::{client_receive, client_step, client_timer, released, start_over};
pub use client::{Client, Stage};
pub use crate::algorithms::lease::ClientKind;
use server::{server_receive, server_timer};
pub use server::{Key, Lease, Server, Watch};

/// The `[system]` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    pub clients: u8,
    /// The lease TTL, in the server's ticks.
    pub ttl: u8,
    /// The resource rejects create revisions lower than the highest seen.
    pub fencing: bool,
    /// Ticks a failed client waits before trying again.
    pub retry: u8,
    /// The per-request timeout, in the client's ticks.
    pub timeout: u8,
    pub client: ClientKind,
    /// Validity client: the clock-drift allowance subtracted from the TTL.
    pub drift: u8,
    /// Validity client: validity it insists on having left at its check.
    pub margin: u8,
    /// `Mutex.Lock` checks that its own key still exists before it returns
    /// (etcd-io/etcd#11408, in etcd 3.4.4); `false` is the earlier `Lock`,
    /// which returns once no older key is left.
    pub key_check: bool,
    /// How `Mutex.Unlock` deletes the key.
    pub unlock: Unlock,
    pub acquisitions: u8,
    /// `[system] work`: the most ticks a holder works in its critical
    /// section before it writes (0: it writes at once).
    pub work: u8,
}

/// How the unlock deletes the client's key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Unlock {
    /// `Txn(If(CreateRevision(/lock/ID) = rev), Then(Delete(/lock/ID)))`:
    /// only the key this acquisition created. The default.
    #[default]
    CompareAndDelete,
    /// `Delete(/lock/ID)`: clientv3's `Mutex.Unlock`, by name only.
    Delete,
}

/// The `[system]` keys as a scenario writes them: each field's type says
/// what it allows and what an absent key is (src/scenario/typed.rs).
/// `drift` and `margin` are allowed only with the validity client, so
/// [`validity_keys`] sees whether they were given.
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Keys {
    clients: Within<1, 4, 2>,
    ttl: Within<1, 30, 6>,
    fencing: Flag<false>,
    retry: Within<1, 10, 1>,
    timeout: Within<1, 30, 3>,
    client: Word<ClientKind>,
    key_check: Flag<true>,
    unlock: Word<Unlock>,
    work: Within<0, 10, 0>,
    drift: Option<Within<0, 10, 0>>,
    margin: Option<Within<0, 10, 0>>,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let k: Keys = sc.system()?;
        let mut p = Params {
            clients: k.clients.get(),
            ttl: k.ttl.get(),
            fencing: k.fencing.get(),
            retry: k.retry.get(),
            timeout: k.timeout.get(),
            client: k.client.get(),
            drift: 1,
            margin: 2,
            key_check: k.key_check.get(),
            unlock: k.unlock.get(),
            acquisitions: sc.acquisitions,
            work: k.work.get(),
        };
        let drift = k.drift.map(Within::get);
        let margin = k.margin.map(Within::get);
        let file = sc.path.display();
        let f = &sc.faults;
        if (f.crashes > 0 || f.pauses > 0) && f.targets.hits(Role::Server) {
            return Err(ScenarioError(format!(
                "{file}: [faults] targets = \"{}\" lets crashes and pauses hit the etcd cluster, which is modelled as one linearizable server that stays available; allowed: targets = \"clients\" when crashes or pauses > 0",
                if f.targets == crate::world::Targets::All { "all" } else { "servers" }
            )));
        }
        if let Some(key) = [("duplicate", f.duplicate), ("reorder", f.reorder)]
            .iter()
            .find_map(|(key, on)| on.then_some(key))
        {
            return Err(ScenarioError(format!(
                "{file}: [faults] {key} cannot happen to algorithm = \"etcd-lease\": a client talks to etcd by gRPC over one HTTP/2 connection on TCP, which delivers each message once and in order (loss and partitions break the connection instead); allowed: duplicate = false, reorder = false"
            )));
        }
        (p.drift, p.margin) = validity_keys(&file, p.client, drift, margin)?;
        Ok(p)
    }

    /// clientv3's keep-alive period: a third of the TTL.
    pub fn keep_alive_every(&self) -> u8 {
        (self.ttl / 3).max(1)
    }

    fn validity(&self) -> bool {
        self.client == ClientKind::Validity
    }
}

/// Node ids: the server is 0, clients 1..=n, the resource last.
const SERVER: Id = 0;

pub type Node = OneServer<Params>;
pub type State = OneServerState<Server, Client>;
parts!(Msg { Resource(ResourceMsg) => resource });

/// Requests carry the attempt's lease ID, answers the ID of their request.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub enum Msg {
    /// `LeaseGrant(TTL, ID)`.
    LeaseGrant {
        #[rewrite(value)]
        id: u32,
    },
    /// `LeaseKeepAlive(ID)` on the keep-alive stream.
    LeaseKeepAlive {
        #[rewrite(value)]
        id: u32,
    },
    /// `LeaseRevoke(ID)`: `Session.Close`, not waited for.
    LeaseRevoke {
        #[rewrite(value)]
        id: u32,
    },
    /// `Txn(If(CreateRevision(/lock/ID) = 0), Then(Put(/lock/ID, lease ID),
    /// Get(newest other key under /lock/)))`.
    Lock {
        #[rewrite(value)]
        id: u32,
    },
    /// `Watch(/lock/key, rev)` for its DELETE.
    Watch {
        #[rewrite(value)]
        id: u32,
        #[rewrite(value)]
        key: u32,
    },
    /// `Txn(Get(/lock/ last with max create revision rev - 1), Get(/lock/ID))`.
    Range {
        #[rewrite(value)]
        id: u32,
        #[rewrite(token)]
        rev: u32,
    },
    /// `Txn(If(CreateRevision(/lock/ID) = rev), Then(Delete(/lock/ID)))`.
    Unlock {
        #[rewrite(value)]
        id: u32,
        #[rewrite(token)]
        rev: u32,
    },
    /// The grant's answer.
    LeaseGranted {
        #[rewrite(value)]
        id: u32,
    },
    /// A keep-alive's answer: the TTL it renewed, or TTL 0 (`alive` false)
    /// when the lease is gone.
    KeepAliveAnswer {
        #[rewrite(value)]
        id: u32,
        alive: bool,
    },
    /// The lock transaction's answer: the key's create revision, and the
    /// predecessor's lease (0 for none). `ghost` is for the properties.
    Locked {
        #[rewrite(value)]
        id: u32,
        #[rewrite(token)]
        rev: u32,
        #[rewrite(value)]
        pred: u32,
        #[rewrite(ghost)]
        ghost: u32,
    },
    /// The put failed: `requested lease not found`.
    LeaseNotFound {
        #[rewrite(value)]
        id: u32,
    },
    /// The watch's DELETE event (at once when the key was already gone).
    Deleted {
        #[rewrite(value)]
        id: u32,
        #[rewrite(value)]
        key: u32,
    },
    /// The range transaction's answer: the predecessor (0 for none), and
    /// whether the client's own key still exists.
    RangeAnswer {
        #[rewrite(value)]
        id: u32,
        #[rewrite(value)]
        pred: u32,
        mine: bool,
    },
    /// The unlock transaction's answer.
    Unlocked {
        #[rewrite(value)]
        id: u32,
    },
    Resource(#[rewrite] ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Timer {
    /// Server: the TTL of the lease in slot `slot`.
    LeaseExpiry { slot: u8 },
    /// Client: the request timeout.
    Timeout,
    /// Client: the next keep-alive.
    KeepAlive,
    /// Validity client: what is left of the lease's TTL on its own clock.
    Validity,
    /// Client: wait before trying again.
    Retry,
}

pub use crate::algorithms::lease::Step;

impl Node {
    fn resource(&self) -> Id {
        self.params().clients as Id + 1
    }
}

impl Actor for Node {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    type Watch = ();
    type Step = Step;

    fn init(&self, _ctx: &Ctx<'_, Self>, _out: &mut Out<Self>) -> State {
        match self {
            Node::Server(_) => State::Server(Server::default()),
            Node::Client(p) => State::Client(Client::fresh(p.acquisitions)),
            Node::Resource(_) => State::Resource(Resource::default()),
        }
    }

    fn steps(&self, ctx: &Ctx<'_, Self>, state: &State, steps: &mut Vec<Step>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        steps.extend(next_step(&c.script, ctx.timer(Timer::Retry), p.validity(), c.checked));
    }

    /// A client talks to etcd over one gRPC connection (HTTP/2 on TCP).
    fn connects_to(&self, peer: Id) -> bool {
        matches!(self, Node::Client(_)) && peer == SERVER
    }

    /// The connection broke: gRPC fails the unary calls pending on it with
    /// `Unavailable`. clientv3's retry interceptor sends the repeatable ones
    /// again on the new connection (`LeaseGrant` and the reads of
    /// `waitDeletes` and `Lock`'s own-key `Get`: `withRepeatablePolicy`,
    /// `isSafeRetryImmutableRPC`), not a `Txn` or a `Delete`
    /// (`isSafeRetryMutableRPC` only retries a request never sent). So
    /// `Mutex.Lock`'s put transaction returns the error, and the attempt
    /// closes its session and starts over; the unlock's error ends the
    /// hold as a timeout does. The watch and keep-alive streams wait for
    /// the new connection.
    fn on_disconnect(&self, _ctx: &Ctx<'_, Self>, state: &mut State, _peer: Id, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        match (c.script.phase, c.stage) {
            (Phase::Acquiring, Stage::Put) => start_over(p, c, out),
            (Phase::Releasing, _) => {
                out.cancel_timer(Timer::Timeout);
                released(p, c, out);
            }
            _ => {}
        }
    }

    /// A new connection: the retried grant or read goes out again; the
    /// watch is resumed from its revision (etcd answers a watch on a key
    /// already deleted with its DELETE event at once, so no event is lost);
    /// `recvKeepAliveLoop` re-opens the keep-alive stream (`resetRecv`),
    /// whose `sendKeepAliveLoop` sends at once every keep-alive that is due
    /// (`nextKeepAlive` passed: one sent and not answered, or one the
    /// broken stream could not send).
    fn on_reconnect(&self, ctx: &Ctx<'_, Self>, state: &mut State, _peer: Id, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(_)) = (state, self) else {
            return;
        };
        let id = c.lease;
        if c.script.phase == Phase::Acquiring {
            match c.stage {
                Stage::Grant => return out.send(SERVER, Msg::LeaseGrant { id }),
                Stage::Watch => out.send(SERVER, Msg::Watch { id, key: c.pred }),
                Stage::Range => out.send(SERVER, Msg::Range { id, rev: c.rev }),
                Stage::Put => {}
            }
        }
        if id != 0 && ctx.timer(Timer::KeepAlive).is_none() {
            out.send(SERVER, Msg::LeaseKeepAlive { id });
        }
    }

    /// Every timer here is Go's, on the monotonic clock: etcd's lessor
    /// compares `time.Now()` with an expiry set by `time.Now().Add(..)`
    /// (`Lease.refresh`, `lessor.expireExists`), and clientv3's deadlines
    /// and keep-alive schedule are `time.Now().Add(..)` and `time.After`.
    /// Go compares two such times by their monotonic readings, so a step of
    /// the wall clock moves none of them; a clock running fast or slow
    /// still does.
    fn monotonic(&self, _timer: Timer) -> bool {
        true
    }

    client_timing!(Node::Client(p) => p.work, write: Step::Write, want: Step::Acquire);

    fn on_step(&self, ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        client_step(p, ctx, c, step, self.resource(), out);
    }

    fn on_msg(&self, _ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Server(p), State::Server(s)) => server_receive(p, s, src, msg, out),
            (Node::Client(p), State::Client(c)) => client_receive(p, c, msg, out),
            (Node::Resource(p), State::Resource(r)) => r.receive(p.fencing, src, msg.resource(), Msg::Resource, out),
            _ => {}
        }
    }

    fn on_timer(&self, _ctx: &Ctx<'_, Self>, state: &mut State, timer: Timer, out: &mut Out<Self>) {
        let p = self.params();
        match state {
            State::Server(s) => server_timer(s, timer, out),
            State::Client(c) => client_timer(p, c, timer, out),
            State::Resource(_) => {}
        }
    }

    fn crash(&self, _state: &mut State, timers: &mut crate::world::Clocks<Timer>) {
        timers.clear();
    }
}

/// Revisions are fencing tokens here, from a counter that never goes back,
/// so the resource's highest token and a write's token are renumbered as
/// `Seq::Token` too; the shared resource's `Rewrite` leaves them to the
/// family (see [`Resource`]).
impl Renumber for Node {
    fn numbers(&self, state: &mut State, visit: &mut impl FnMut(Seq, &mut u32)) {
        state.numbers(visit);
        if let State::Resource(r) = state {
            visit(Seq::Token, &mut r.max_token);
        }
    }

    fn numbers_msg(&self, msg: &mut Msg, visit: &mut impl FnMut(Seq, &mut u32)) {
        msg.numbers(visit);
        if let Msg::Resource(ResourceMsg::Write { token, .. }) = msg {
            visit(Seq::Token, token);
        }
    }
}

impl Lock for Node {
    /// A naive client believes it holds the lock from the moment it is
    /// first until its write is answered. A validity client, while it is
    /// `Holding`, only while its validity timer is above zero or once it has
    /// checked it, and it still wants the lock until it has checked.
    fn lock_view(world: &World<Self>, state: &WorldState<Self>) -> LockView {
        leases_view(world, state, |a, n| {
            let c = n.state.client()?;
            Some(ClientLease::new(c.script, a.params().validity(), c.checked, n.timer(Timer::Validity)))
        })
    }
}

/// The world of an `etcd-lease` scenario.
pub fn world(sc: &Scenario) -> Result<World<Node>, ScenarioError> {
    let p = Params::read(sc)?;
    Ok(one_server_world(
        sc,
        (Node::Server(p), "etcd"),
        Node::Client(p),
        p.clients,
        Node::Resource(p),
    ))
}
