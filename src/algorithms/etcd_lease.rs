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
//! The cluster is one linearizable server (Raft inside it is out of scope,
//! as issue 9 says) with a global revision counter that every write
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

use serde::{Deserialize, Serialize};

use super::client::{tla, validity_left, Phase, Script};
use super::one_server_world;
use super::resource::{Resource, ResourceMsg};
use crate::properties::{Lock, LockView, FOREIGN_RELEASE};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::{Actor, Ctx, Describe, Id, Out, Renumber, Role, Seq, Tla, TlaMapping, World, WorldState};

/// How long a client believes it holds the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClientKind {
    /// From the moment it is first until its write is answered.
    Naive,
    /// While its lease's TTL, counted on its own clock from the last grant
    /// or keep-alive answer, less `drift`, lasts; once it has checked that
    /// more than `margin` is left, until its write is answered.
    Validity,
}

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unlock {
    /// `Txn(If(CreateRevision(/lock/ID) = rev), Then(Delete(/lock/ID)))`:
    /// only the key this acquisition created.
    CompareAndDelete,
    /// `Delete(/lock/ID)`: clientv3's `Mutex.Unlock`, by name only.
    Delete,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let mut k = sc.system_keys();
        let mut p = Params {
            clients: k.uint("clients", 1, 4, 2)?,
            ttl: k.uint("ttl", 1, 30, 6)?,
            fencing: k.flag("fencing", false)?,
            retry: k.uint("retry", 1, 10, 1)?,
            timeout: k.uint("timeout", 1, 30, 3)?,
            client: k.choice(
                "client",
                &[("naive", ClientKind::Naive), ("validity", ClientKind::Validity)],
                ClientKind::Naive,
            )?,
            drift: 1,
            margin: 2,
            key_check: k.flag("key_check", true)?,
            unlock: k.choice(
                "unlock",
                &[
                    ("compare-and-delete", Unlock::CompareAndDelete),
                    ("delete", Unlock::Delete),
                ],
                Unlock::CompareAndDelete,
            )?,
            acquisitions: sc.acquisitions,
            work: k.uint("work", 0, 10, 0)?,
        };
        let drift = k.optional_uint("drift", 0, 10)?;
        let margin = k.optional_uint("margin", 0, 10)?;
        k.finish()?;
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
        match p.client {
            ClientKind::Naive => {
                if let Some(key) = [("drift", drift), ("margin", margin)]
                    .iter()
                    .find_map(|(key, v)| v.map(|_| key))
                {
                    return Err(ScenarioError(format!(
                        "{file}: [system] {key} is used only by a validity client; allowed with client = \"validity\" (client is \"naive\")"
                    )));
                }
            }
            ClientKind::Validity => {
                p.drift = drift.unwrap_or(p.drift);
                p.margin = margin.unwrap_or(p.margin);
            }
        }
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

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Server(Params),
    Client(Params),
    Resource(Params),
}

/// A lease: the slot of the lease table that holds it (see the module's
/// modelling choices), and its ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lease {
    pub slot: u8,
    pub id: u32,
}

/// The key `/lock/<lease>`, attached to that lease; `create` is its create
/// revision; `ghost` numbers the acquisition for the properties only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub create: u32,
    pub lease: u32,
    pub ghost: u32,
}

/// A watch on `/lock/<key>` for the DELETE event, made by the attempt
/// `id` of client `watcher`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Watch {
    pub watcher: Id,
    pub id: u32,
    pub key: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Server {
    /// The store's revision: every write transaction moves it on.
    pub revision: u32,
    /// Live leases, by slot.
    pub leases: Vec<Lease>,
    /// Keys under `/lock/`, by create revision.
    pub keys: Vec<Key>,
    /// Watches waiting for a DELETE, sorted.
    pub watches: Vec<Watch>,
}

/// Where an acquisition attempt is (within `Phase::Acquiring`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// `LeaseGrant` sent.
    Grant,
    /// The lock transaction (put and predecessor) sent.
    Put,
    /// Watching the predecessor's key.
    Watch,
    /// The range transaction (predecessor and own key) sent.
    Range,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    pub script: Script,
    /// Within `Acquiring`: what the attempt waits for.
    pub stage: Stage,
    /// The session's lease ID, drawn fresh per attempt (0 between attempts).
    pub lease: u32,
    /// Its key's create revision: the fencing token (0 until known).
    pub rev: u32,
    /// Within `Stage::Watch`: the predecessor's key it watches (0 for none).
    pub pred: u32,
    /// Validity client: checked its validity timer and found time left.
    pub checked: bool,
    pub ghost: u32,
}

impl Client {
    fn fresh(acquisitions: u8) -> Self {
        Client {
            script: Script::new(acquisitions),
            stage: Stage::Grant,
            lease: 0,
            rev: 0,
            pred: 0,
            checked: false,
            ghost: 0,
        }
    }

    /// Drops what only mattered to the attempt or the hold that just ended,
    /// so equal situations are equal states.
    fn forget(&mut self) {
        self.stage = Stage::Grant;
        self.lease = 0;
        self.rev = 0;
        self.pred = 0;
        self.checked = false;
        self.ghost = 0;
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum State {
    Server(Server),
    Client(Client),
    Resource(Resource),
}

/// Requests carry the attempt's lease ID, answers the ID of their request.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Msg {
    /// `LeaseGrant(TTL, ID)`.
    LeaseGrant {
        id: u32,
    },
    /// `LeaseKeepAlive(ID)` on the keep-alive stream.
    LeaseKeepAlive {
        id: u32,
    },
    /// `LeaseRevoke(ID)`: `Session.Close`, not waited for.
    LeaseRevoke {
        id: u32,
    },
    /// `Txn(If(CreateRevision(/lock/ID) = 0), Then(Put(/lock/ID, lease ID),
    /// Get(newest other key under /lock/)))`.
    Lock {
        id: u32,
    },
    /// `Watch(/lock/key, rev)` for its DELETE.
    Watch {
        id: u32,
        key: u32,
    },
    /// `Txn(Get(/lock/ last with max create revision rev - 1), Get(/lock/ID))`.
    Range {
        id: u32,
        rev: u32,
    },
    /// `Txn(If(CreateRevision(/lock/ID) = rev), Then(Delete(/lock/ID)))`.
    Unlock {
        id: u32,
        rev: u32,
    },
    /// The grant's answer.
    LeaseGranted {
        id: u32,
    },
    /// A keep-alive's answer: the TTL it renewed, or TTL 0 (`alive` false)
    /// when the lease is gone.
    KeepAliveAnswer {
        id: u32,
        alive: bool,
    },
    /// The lock transaction's answer: the key's create revision, and the
    /// predecessor's lease (0 for none). `ghost` is for the properties.
    Locked {
        id: u32,
        rev: u32,
        pred: u32,
        ghost: u32,
    },
    /// The put failed: `requested lease not found`.
    LeaseNotFound {
        id: u32,
    },
    /// The watch's DELETE event (at once when the key was already gone).
    Deleted {
        id: u32,
        key: u32,
    },
    /// The range transaction's answer: the predecessor (0 for none), and
    /// whether the client's own key still exists.
    RangeAnswer {
        id: u32,
        pred: u32,
        mine: bool,
    },
    /// The unlock transaction's answer.
    Unlocked {
        id: u32,
    },
    Resource(ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Step {
    Acquire,
    Check,
    Write,
}

impl Node {
    fn params(&self) -> &Params {
        match self {
            Node::Server(p) | Node::Client(p) | Node::Resource(p) => p,
        }
    }

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
        match c.script.phase {
            Phase::Want if ctx.timer(Timer::Retry).is_none() => steps.push(Step::Acquire),
            Phase::Holding if p.validity() && !c.checked => steps.push(Step::Check),
            Phase::Holding => steps.push(Step::Write),
            _ => {}
        }
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

    /// A holder works from 0 to `[system] work` ticks before it writes.
    fn within(&self, step: Step) -> Option<u8> {
        match self {
            Node::Client(p) if step == Step::Write && p.work > 0 => Some(p.work),
            _ => None,
        }
    }

    /// A client comes to want the lock, and retries after its back-off,
    /// at any moment (docs/design.md §2).
    fn urgent(&self, step: Step) -> bool {
        step != Step::Acquire
    }

    fn on_step(&self, ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        match step {
            // Acquire: a new session, with a fresh lease ID.
            Step::Acquire => {
                c.lease = out.fresh_value();
                out.send(SERVER, Msg::LeaseGrant { id: c.lease });
                out.set_timer(Timer::Timeout, p.timeout);
                c.stage = Stage::Grant;
                c.script.phase = Phase::Acquiring;
            }
            // Check: is there more than the margin left? Only then write.
            Step::Check => {
                if ctx.timer(Timer::Validity).is_some_and(|v| v > p.margin) {
                    c.checked = true;
                } else {
                    start_over(p, c, out);
                }
            }
            // Write: the critical section's write, with the create revision
            // as token if fenced.
            Step::Write => {
                let token = if p.fencing { c.rev } else { 0 };
                out.send(
                    self.resource(),
                    Msg::Resource(ResourceMsg::Write { token, ghost: c.ghost }),
                );
                c.script.phase = Phase::Writing;
            }
        }
    }

    fn on_msg(&self, _ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Server(p), State::Server(s)) => server_receive(p, s, src, msg, out),
            (Node::Client(p), State::Client(c)) => client_receive(p, c, msg, out),
            (Node::Resource(p), State::Resource(r)) => {
                if let Msg::Resource(ResourceMsg::Write { token, ghost }) = msg {
                    let answer = r.write(p.fencing, token, ghost, out);
                    out.send(src, Msg::Resource(answer));
                }
            }
            _ => {}
        }
    }

    fn on_timer(&self, _ctx: &Ctx<'_, Self>, state: &mut State, timer: Timer, out: &mut Out<Self>) {
        let p = self.params();
        match (state, timer) {
            // The lease's TTL ran out on the server's clock: it and its
            // keys are gone.
            (State::Server(s), Timer::LeaseExpiry { slot }) => {
                if let Some(i) = s.leases.iter().position(|l| l.slot == slot) {
                    let lease = s.leases.remove(i);
                    delete_keys_of(s, lease.id, out);
                }
            }
            (State::Client(c), Timer::Timeout) => match c.script.phase {
                Phase::Acquiring => start_over(p, c, out),
                Phase::Releasing => released(p, c, out),
                _ => {}
            },
            // `sendKeepAliveLoop`: the keep-alive is due; the next waits
            // for its answer.
            (State::Client(c), Timer::KeepAlive) if c.lease != 0 => {
                out.send(SERVER, Msg::LeaseKeepAlive { id: c.lease });
            }
            // The lease's TTL ran out on the client's clock: the session
            // has expired, unless the client is past its check.
            (State::Client(c), Timer::Validity) => lease_lost(p, c, out),
            _ => {}
        }
    }

    fn crash(&self, _state: &mut State, timers: &mut crate::world::Clocks<Timer>) {
        timers.clear();
    }
}

impl Describe for Node {
    fn show_msg(&self, msg: &Msg, _names: &[String]) -> String {
        match msg {
            Msg::LeaseGrant { id } => format!("LeaseGrant TTL {} ID {id}", self.params().ttl),
            Msg::LeaseKeepAlive { id } => format!("LeaseKeepAlive {id}"),
            Msg::LeaseRevoke { id } => format!("LeaseRevoke {id}"),
            Msg::Lock { id } => {
                format!("Txn if create_revision(/lock/{id}) = 0 then put /lock/{id} lease {id}, get newest /lock/")
            }
            Msg::Watch { id, key } => format!("Watch /lock/{key} for DELETE (for lease {id})"),
            Msg::Range { id, rev } => {
                format!("Txn get last /lock/ below revision {rev}, get /lock/{id}")
            }
            Msg::Unlock { id, .. } if self.params().unlock == Unlock::Delete => format!("Delete /lock/{id}"),
            Msg::Unlock { id, rev } => {
                format!("Txn if create_revision(/lock/{id}) = {rev} then delete /lock/{id}")
            }
            Msg::LeaseGranted { id } => format!("lease {id} granted, TTL {}", self.params().ttl),
            Msg::KeepAliveAnswer { id, alive } => {
                let ttl = if *alive { self.params().ttl } else { 0 };
                format!("lease {id} TTL {ttl}")
            }
            Msg::Locked { id, rev, pred, .. } if *pred == 0 => {
                format!("/lock/{id} created at revision {rev}, no key before it")
            }
            Msg::Locked { id, rev, pred, .. } => {
                format!("/lock/{id} created at revision {rev}, predecessor /lock/{pred}")
            }
            Msg::LeaseNotFound { id } => format!("lease {id} not found"),
            Msg::Deleted { key, .. } => format!("DELETE /lock/{key}"),
            Msg::RangeAnswer { id, pred, mine } => {
                let pred = if *pred == 0 {
                    "none".to_string()
                } else {
                    format!("/lock/{pred}")
                };
                let mine = if *mine { "exists" } else { "gone" };
                format!("predecessor {pred}, /lock/{id} {mine}")
            }
            Msg::Unlocked { id } => format!("unlock of /lock/{id} done"),
            Msg::Resource(ResourceMsg::Write { token, .. }) if *token > 0 => format!("write (revision {token})"),
            Msg::Resource(ResourceMsg::Write { .. }) => "write".to_string(),
            Msg::Resource(ResourceMsg::Accepted) => "accepted".to_string(),
            Msg::Resource(ResourceMsg::Rejected) => "rejected".to_string(),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire => "Acquire (LeaseGrant)",
            Step::Check => "Check (validity above the margin?)",
            Step::Write => "Write",
        }
        .to_string()
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::LeaseExpiry { slot } => format!("lease expiry (slot {slot})"),
            Timer::Timeout => "request timeout".to_string(),
            Timer::KeepAlive => "keep-alive".to_string(),
            Timer::Validity => "validity".to_string(),
            Timer::Retry => "retry".to_string(),
        }
    }

    fn show_state(&self, state: &State, names: &[String]) -> Option<Vec<(String, String)>> {
        fn set(items: impl Iterator<Item = String>) -> String {
            format!("{{{}}}", items.collect::<Vec<_>>().join(", "))
        }
        let num = |v: u32| if v == 0 { "none".to_string() } else { v.to_string() };
        Some(match state {
            State::Server(s) => vec![
                ("revision".into(), s.revision.to_string()),
                ("leases".into(), set(s.leases.iter().map(|l| l.id.to_string()))),
                (
                    "keys".into(),
                    set(s.keys.iter().map(|k| format!("/lock/{} at {}", k.lease, k.create))),
                ),
                (
                    "watches".into(),
                    set(s
                        .watches
                        .iter()
                        .map(|w| format!("{} on /lock/{}", names[w.watcher], w.key))),
                ),
            ],
            State::Client(c) => {
                let phase = match (c.script.phase, c.stage) {
                    (Phase::Want, _) => "wants the lock",
                    (Phase::Acquiring, Stage::Grant) => "granting a lease",
                    (Phase::Acquiring, Stage::Put) => "putting its key",
                    (Phase::Acquiring, Stage::Watch) => "watching its predecessor",
                    (Phase::Acquiring, Stage::Range) => "looking for a predecessor",
                    (Phase::Holding, _) => "holding",
                    (Phase::Writing, _) => "writing",
                    (Phase::Releasing, _) => "unlocking",
                    (Phase::Done, _) => "done",
                };
                let mut v = vec![
                    ("phase".into(), phase.to_string()),
                    ("lease".into(), num(c.lease)),
                    ("revision".into(), num(c.rev)),
                ];
                if self.params().validity() {
                    v.push(("checked".into(), c.checked.to_string()));
                }
                v
            }
            State::Resource(r) => vec![("highest revision".into(), num(r.max_token))],
        })
    }
}

impl Renumber for Node {
    fn numbers(&self, state: &mut State, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match state {
            State::Server(s) => {
                visit(Seq::Token, &mut s.revision);
                for l in &mut s.leases {
                    visit(Seq::Value, &mut l.id);
                }
                for k in &mut s.keys {
                    visit(Seq::Token, &mut k.create);
                    visit(Seq::Value, &mut k.lease);
                    visit(Seq::Ghost, &mut k.ghost);
                }
                for w in &mut s.watches {
                    visit(Seq::Value, &mut w.id);
                    visit(Seq::Value, &mut w.key);
                }
            }
            State::Client(c) => {
                visit(Seq::Value, &mut c.lease);
                visit(Seq::Value, &mut c.pred);
                visit(Seq::Token, &mut c.rev);
                visit(Seq::Ghost, &mut c.ghost);
            }
            State::Resource(r) => r.numbers(true, visit),
        }
    }

    fn numbers_msg(&self, msg: &mut Msg, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match msg {
            Msg::LeaseGrant { id }
            | Msg::LeaseKeepAlive { id }
            | Msg::LeaseRevoke { id }
            | Msg::Lock { id }
            | Msg::LeaseGranted { id }
            | Msg::KeepAliveAnswer { id, .. }
            | Msg::LeaseNotFound { id }
            | Msg::Unlocked { id } => visit(Seq::Value, id),
            Msg::Watch { id, key } | Msg::Deleted { id, key } => {
                visit(Seq::Value, id);
                visit(Seq::Value, key);
            }
            Msg::RangeAnswer { id, pred, .. } => {
                visit(Seq::Value, id);
                visit(Seq::Value, pred);
            }
            Msg::Range { id, rev } | Msg::Unlock { id, rev } => {
                visit(Seq::Value, id);
                visit(Seq::Token, rev);
            }
            Msg::Locked { id, rev, pred, ghost } => {
                visit(Seq::Value, id);
                visit(Seq::Token, rev);
                visit(Seq::Value, pred);
                visit(Seq::Ghost, ghost);
            }
            Msg::Resource(m) => m.numbers(true, visit),
        }
    }
}

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/EtcdLease.tla's variables: the store's revision, lease slots,
    /// keys and watches (as sets), the clients' attempts, the resource's
    /// maxima.
    fn tla_vars(world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let client = |f: fn(&Client) -> Tla| {
            tla::per_node(s, move |st| match st {
                State::Client(c) => Some(f(c)),
                _ => None,
            })
        };
        let sv = s.nodes.iter().find_map(|n| match &n.state {
            State::Server(sv) => Some(sv),
            _ => None,
        })?;
        let clients = world.actors.iter().filter(|a| matches!(a, Node::Client(_))).count();
        let slots = clients + usize::from(world.faults.crashes);
        let r = s
            .nodes
            .iter()
            .find_map(|n| match n.state {
                State::Resource(r) => Some(r),
                _ => None,
            })
            .unwrap_or_default();
        let int = |v: u32| Tla::int(v);
        Some(vec![
            ("revision", int(sv.revision)),
            (
                "leases",
                Tla::fun((0..slots).map(|slot| {
                    let id = sv
                        .leases
                        .iter()
                        .find(|l| usize::from(l.slot) == slot)
                        .map_or(0, |l| l.id);
                    (Tla::int(slot as i64), int(id))
                })),
            ),
            (
                "keys",
                Tla::set(sv.keys.iter().map(|k| {
                    Tla::rec([
                        ("create", int(k.create)),
                        ("lease", int(k.lease)),
                        ("ghost", int(k.ghost)),
                    ])
                })),
            ),
            (
                "keyWatches",
                Tla::set(sv.watches.iter().map(|w| {
                    Tla::rec([
                        ("watcher", Tla::int(w.watcher as i64)),
                        ("id", int(w.id)),
                        ("key", int(w.key)),
                    ])
                })),
            ),
            ("phase", client(|c| tla::phase(c.script.phase))),
            ("left", client(|c| Tla::int(c.script.left))),
            ("stage", client(|c| Tla::str(format!("{:?}", c.stage)))),
            ("lease", client(|c| Tla::int(c.lease))),
            ("rev", client(|c| Tla::int(c.rev))),
            ("checked", client(|c| Tla::Bool(c.checked))),
            ("acquired", client(|c| Tla::int(c.ghost))),
            ("max_token", int(r.max_token)),
            ("max_ghost", int(r.max_ghost)),
        ])
    }

    /// The server's lease expiries are named by their slots.
    fn tla_timer(&self, timer: &Timer) -> Tla {
        match timer {
            Timer::LeaseExpiry { slot } => Tla::int(*slot),
            other => Tla::Str(format!("{other:?}")),
        }
    }
}

/// Deletes the keys attached to lease `id` (one write transaction: one
/// revision) and sends their watchers the DELETE events.
fn delete_keys_of(s: &mut Server, id: u32, out: &mut Out<Node>) {
    if s.keys.iter().any(|k| k.lease == id) {
        s.keys.retain(|k| k.lease != id);
        s.revision += 1;
        notify(s, id, out);
    }
}

/// The DELETE event of `/lock/<key>` to every watcher of it.
fn notify(s: &mut Server, key: u32, out: &mut Out<Node>) {
    for w in s.watches.iter().filter(|w| w.key == key) {
        out.send(w.watcher, Msg::Deleted { id: w.id, key });
    }
    s.watches.retain(|w| w.key != key);
}

/// The newest key created before revision `below`, other than lease
/// `id`'s; 0 for none.
fn predecessor(s: &Server, id: u32, below: u32) -> u32 {
    s.keys
        .iter()
        .filter(|k| k.lease != id && k.create < below)
        .max_by_key(|k| k.create)
        .map_or(0, |k| k.lease)
}

/// The server executes one request atomically: etcd is linearizable.
fn server_receive(p: &Params, s: &mut Server, src: Id, msg: Msg, out: &mut Out<Node>) {
    match msg {
        // A new lease, in the lowest free slot.
        // A grant the client sent again on a new connection (clientv3
        // retries `LeaseGrant`) for a lease granted already: a new full
        // TTL, as the second lease real etcd would grant (the first, an
        // orphan, holds no key).
        Msg::LeaseGrant { id } => {
            let slot = match s.leases.iter().find(|l| l.id == id) {
                Some(l) => l.slot,
                None => {
                    let slot = (0..).find(|n| s.leases.iter().all(|l| l.slot != *n)).unwrap_or(0);
                    s.leases.push(Lease { slot, id });
                    s.leases.sort();
                    slot
                }
            };
            out.set_timer(Timer::LeaseExpiry { slot }, p.ttl);
            out.send(src, Msg::LeaseGranted { id });
        }
        Msg::LeaseKeepAlive { id } => {
            let alive = s.leases.iter().any(|l| l.id == id);
            if let Some(l) = s.leases.iter().find(|l| l.id == id) {
                out.set_timer(Timer::LeaseExpiry { slot: l.slot }, p.ttl);
            }
            out.send(src, Msg::KeepAliveAnswer { id, alive });
        }
        Msg::LeaseRevoke { id } => {
            if let Some(i) = s.leases.iter().position(|l| l.id == id) {
                let lease = s.leases.remove(i);
                out.cancel_timer(Timer::LeaseExpiry { slot: lease.slot });
                delete_keys_of(s, id, out);
            }
        }
        Msg::Lock { id } => {
            if !s.leases.iter().any(|l| l.id == id) {
                out.send(src, Msg::LeaseNotFound { id });
                return;
            }
            let key = match s.keys.iter().find(|k| k.lease == id) {
                Some(k) => *k,
                None => {
                    s.revision += 1;
                    let k = Key {
                        create: s.revision,
                        lease: id,
                        ghost: out.next_ghost(),
                    };
                    s.keys.push(k);
                    k
                }
            };
            let pred = predecessor(s, id, key.create);
            out.send(
                src,
                Msg::Locked {
                    id,
                    rev: key.create,
                    pred,
                    ghost: key.ghost,
                },
            );
        }
        // A watch from a revision before the delete: an already deleted key
        // gives its event at once.
        // A watch resumed on a new connection replaces the old stream's.
        Msg::Watch { id, key } => {
            if s.keys.iter().any(|k| k.lease == key) {
                let w = Watch { watcher: src, id, key };
                if !s.watches.contains(&w) {
                    s.watches.push(w);
                    s.watches.sort();
                }
            } else {
                out.send(src, Msg::Deleted { id, key });
            }
        }
        Msg::Range { id, rev } => {
            let pred = predecessor(s, id, rev);
            let mine = s.keys.iter().any(|k| k.lease == id);
            out.send(src, Msg::RangeAnswer { id, pred, mine });
        }
        // Compare-and-delete deletes only the key this lock created, never
        // another's; a plain delete, the key of that name.
        Msg::Unlock { id, rev } => {
            let plain = p.unlock == Unlock::Delete;
            if let Some(i) = s.keys.iter().position(|k| k.lease == id && (plain || k.create == rev)) {
                s.keys.remove(i);
                s.revision += 1;
                notify(s, id, out);
            } else if s.keys.iter().any(|k| k.lease == id) {
                out.raise(FOREIGN_RELEASE);
            }
            out.send(src, Msg::Unlocked { id });
        }
        _ => {}
    }
}

/// The client's answer handler: an answer whose lease ID is not the current
/// attempt's answers an earlier request, and is ignored.
fn client_receive(p: &Params, c: &mut Client, msg: Msg, out: &mut Out<Node>) {
    let acquiring = |stage| c.script.phase == Phase::Acquiring && c.stage == stage;
    match msg {
        // `NewSession` calls `KeepAlive` right after the grant, and
        // `KeepAlive` sets `nextKeepAlive = time.Now()`: the first
        // keep-alive goes out at once.
        Msg::LeaseGranted { id } if id == c.lease && acquiring(Stage::Grant) => {
            if p.validity() {
                match validity_left(p.ttl, Some(0), p.drift) {
                    Some(v) => out.set_timer(Timer::Validity, v),
                    None => return start_over(p, c, out),
                }
            }
            out.send(SERVER, Msg::LeaseKeepAlive { id });
            out.send(SERVER, Msg::Lock { id });
            out.set_timer(Timer::Timeout, p.timeout);
            c.stage = Stage::Put;
        }
        // `recvKeepAlive`: the next keep-alive TTL/3 after this answer; a
        // TTL of 0 closes the keep-alive (no more are sent).
        Msg::KeepAliveAnswer { id, alive } if id == c.lease => {
            if alive {
                out.set_timer(Timer::KeepAlive, p.keep_alive_every());
                if p.validity() {
                    if let Some(v) = validity_left(p.ttl, Some(0), p.drift) {
                        out.set_timer(Timer::Validity, v);
                    }
                }
            } else if p.validity() {
                lease_lost(p, c, out);
            }
        }
        Msg::Locked { id, rev, pred, ghost } if id == c.lease && acquiring(Stage::Put) => {
            out.cancel_timer(Timer::Timeout);
            c.rev = rev;
            c.ghost = ghost;
            wait_for(c, pred, out);
        }
        Msg::LeaseNotFound { id } if id == c.lease && acquiring(Stage::Put) => start_over(p, c, out),
        Msg::Deleted { id, key } if id == c.lease && key == c.pred && acquiring(Stage::Watch) => {
            out.send(SERVER, Msg::Range { id, rev: c.rev });
            out.set_timer(Timer::Timeout, p.timeout);
            c.stage = Stage::Range;
        }
        Msg::RangeAnswer { id, pred, mine } if id == c.lease && acquiring(Stage::Range) => {
            out.cancel_timer(Timer::Timeout);
            if mine || !p.key_check {
                wait_for(c, pred, out);
            } else {
                // ErrSessionExpired: the lease expired while it waited.
                start_over(p, c, out);
            }
        }
        // Release: the write is answered, so the critical section is over.
        Msg::Resource(ResourceMsg::Accepted | ResourceMsg::Rejected) if c.script.phase == Phase::Writing => {
            out.send(
                SERVER,
                Msg::Unlock {
                    id: c.lease,
                    rev: c.rev,
                },
            );
            out.set_timer(Timer::Timeout, p.timeout);
            c.script.phase = Phase::Releasing;
        }
        Msg::Unlocked { id } if id == c.lease && c.script.phase == Phase::Releasing => {
            out.cancel_timer(Timer::Timeout);
            released(p, c, out);
        }
        _ => {}
    }
}

/// No predecessor: the client holds; otherwise it watches it.
fn wait_for(c: &mut Client, pred: u32, out: &mut Out<Node>) {
    if pred == 0 {
        c.script.phase = Phase::Holding;
        c.pred = 0;
    } else {
        out.send(SERVER, Msg::Watch { id: c.lease, key: pred });
        c.stage = Stage::Watch;
        c.pred = pred;
    }
}

/// `Session.Close`: revoke the lease (not waiting for the answer) and stop
/// keeping it alive.
fn close_session(c: &Client, out: &mut Out<Node>) {
    out.send(SERVER, Msg::LeaseRevoke { id: c.lease });
    out.cancel_timer(Timer::KeepAlive);
    out.cancel_timer(Timer::Validity);
    out.cancel_timer(Timer::Timeout);
}

/// The attempt failed (a timeout, the lease gone, a validity too short):
/// close the session and try again after the back-off.
fn start_over(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    close_session(c, out);
    c.script.phase = Phase::Want;
    c.forget();
    out.set_timer(Timer::Retry, p.retry);
}

/// A validity client learns (its timer, or a TTL-0 answer) that its lease
/// is gone: an attempt, or a hold it has not checked yet, is over.
fn lease_lost(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    let unchecked = c.script.phase == Phase::Holding && !c.checked;
    if c.script.phase == Phase::Acquiring || unchecked {
        start_over(p, c, out);
    }
}

/// The unlock is over (answered, or timed out): close the session.
fn released(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    close_session(c, out);
    c.script.released(p.acquisitions);
    c.forget();
}

impl Lock for Node {
    /// A naive client believes it holds the lock from the moment it is
    /// first until its write is answered. A validity client, while it is
    /// `Holding`, only while its validity timer is above zero or once it has
    /// checked it, and it still wants the lock until it has checked.
    fn lock_view(world: &World<Self>, state: &WorldState<Self>) -> LockView {
        let mut v = LockView::default();
        for (i, n) in state.nodes.iter().enumerate() {
            let (State::Client(c), Node::Client(p)) = (&n.state, &world.actors[i]) else {
                continue;
            };
            let valid = n.timer(Timer::Validity).is_some_and(|t| t > 0);
            let (holds, wants) = c.script.lease_belief(p.validity(), c.checked, valid);
            v.holding |= u64::from(holds) << i;
            v.wanting |= u64::from(wants) << i;
        }
        v
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
