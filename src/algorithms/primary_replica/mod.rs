//! `primary-replica`: the single-instance Redis lock (`SET lock me NX PX
//! ttl`, released by the compare-and-delete script) on a Redis primary with
//! `replicas` replicas, watched by Sentinels that promote a replica when
//! the primary is down, as often as the faults make it; after the Redis
//! documentation on replication, on `WAIT` and on Sentinel.
//!
//! - *Replication is asynchronous* ("Redis uses asynchronous replication"):
//!   the primary applies a write (a granted `SET`, a `DEL` by the
//!   compare-and-delete script, the key's expiry) and answers at once; its
//!   own step `Replicate` ships the write to a replica later, one replica
//!   per step, lowest id first (the primary writes each replica's
//!   connection in turn). A crash in between loses the write on every
//!   replica not yet shipped to, so a lock the primary acknowledged is
//!   missing on such a replica, and when Sentinel promotes it: two holders.
//! - *`replication = "wait"`*: the client sends `SET lock me NX PX ttl`
//!   and, once it has answered `OK` (`SetOk`), `WAIT k timeout` (`k` is
//!   `wait_replicas`, default 1), as the `WAIT` documentation's example
//!   and a plain client do; with `pipeline = true` it sends the two
//!   together. The primary keeps the client's write (`Waiting`, Redis's
//!   per-connection write offset), and answers `WAIT` with `Granted` once
//!   `k` replicas have acknowledged it, as Redis counts the replicas whose
//!   acknowledged replication offset has reached the write's. A `WAIT`
//!   that cannot return at once blocks, and the primary asks every replica
//!   for its offset (`REPLCONF GETACK *`, queued on the stream behind the
//!   writes not yet shipped); a replica acknowledges (`Ack`) when asked and
//!   after a full resynchronisation. Redis replicas also acknowledge once a
//!   second; that tells the primary earlier what the `GETACK`'s answer
//!   tells it, so it is left out. So an acknowledged lock is on `k`
//!   replicas, and lost only when Sentinel promotes one of the others. If
//!   the timeout (`wait_timeout`, in the primary's ticks) passes first,
//!   `WAIT` returns fewer than `k` (`WaitTimedOut`): the key is set but not
//!   replicated enough, and the client deletes it (compare-and-delete, not
//!   waiting for the answer) and asks again after `retry`. With
//!   `wait_timeout = 0` the client sends `WAIT k 0`, which waits for ever:
//!   while too few replicas are attached (after a failover, until a former
//!   primary rejoins) the key can expire under a blocked `WAIT`, another
//!   client can set it and block too, and when a replica attaches both
//!   `WAIT`s return: two holders without any replication loss. A safe
//!   timeout leaves the critical section time to finish within the TTL: a
//!   `WAIT` reaches the primary up to 2 ticks after the `SET` (the `OK` and
//!   the `WAIT`, each up to `max_delay = 1`; none when pipelined), returns
//!   within its timeout, and the client holds the lock for at most 3 ticks
//!   after (the answer, the write and its answer), so `wait_timeout + 5 <
//!   ttl` (`wait_timeout + 3 < ttl` pipelined). Without a fault a `WAIT`
//!   waits at most the `GETACK` round trip (2 ticks), and two clients hold
//!   the lock at `ttl = 7` (specs/README.md, finding 14); a failover can
//!   make it wait its whole timeout (`replica-failover-wait` at ttl 8).
//! - *The replication stream*: there is one key, and a replica applies what
//!   it receives atomically, so the primary's replication backlog is its
//!   net effect: the key as it is now. `Replicate` ships the key with the
//!   TTL left on the primary's clock, as Redis 7 propagates `SET PX` as an
//!   absolute `PXAT`; a key that expired or was deleted ships as `None`
//!   (Redis propagates the expiry as a `DEL`). Per attached replica the
//!   primary keeps whether the key changed since its last shipment and,
//!   with `wait`, whether a `GETACK` is queued for it and how many of its
//!   `GETACK`s are unanswered (Redis compares replication offsets: an
//!   answer covers every write before its `GETACK`); it sends a `GETACK`
//!   only while fewer than [`MAX_UNACKED`] are out. The bound keeps the
//!   state space finite while a replica is down (what is sent to it is
//!   lost anyway, and its resynchronisation resets the count); otherwise
//!   it is seldom reached, as each client has one `WAIT` at a time.
//!   Reaching it only delays a `GETACK`, which `WAIT` allows.
//! - *Expiry on a replica*: the replica arms its own timer for the key it
//!   applies and removes the key when it fires. A Redis replica keeps the
//!   key until the primary's `DEL` arrives, but reports a key past its
//!   deadline as missing and expires it itself once promoted, so to the
//!   lock the two are the same. Redis 7 replicates `SET ... PX` as an
//!   absolute `PXAT` (and a full resynchronisation's RDB carries absolute
//!   expiry times too), so the replica's key expires when its own clock
//!   reaches that time. Time is relative here (docs/design.md §2), so the
//!   shipment carries the TTL left on the primary's clock when sent, and
//!   the replica arms its timer with that less the shipment's time in
//!   flight ([`Ctx::age`], which the world counts as it ages messages): the
//!   two keys expire at the same real moment, and the replica's timer then
//!   runs at its own clock's rate. Not modelled: an offset between two
//!   clocks accumulated before the shipment (which is why a clock fault
//!   must be the only fault that hits the servers), and transit beyond
//!   `max_delay` (a message to a paused replica stops ageing there; on an
//!   asynchronous network messages do not age at all, and the replica's
//!   deadline then trails the primary's by the time in flight).
//! - *Failover* (Redis Sentinel documentation): the primary sends the
//!   Sentinel a `Ping` every `ping` ticks (the model's direction for
//!   Sentinel's own `PING`s), and the Sentinel re-arms its `DownAfter`
//!   timer (`down-after-milliseconds`) on each. When it fires, the Sentinel
//!   starts a failover in a new configuration epoch (`+new-epoch`,
//!   `+try-failover`; `Electing`) and selects a replica of the failed
//!   primary (`SelectReplica`, `+selected-slave`). Sentinel ranks replicas
//!   by `replica-priority`, then by the replication offset it last read
//!   with `INFO`, then by run ID; this model carries no offsets and lets it
//!   select any replica of the failed primary, which covers every ranking
//!   (so a verdict that needs Sentinel to prefer a replica with less data
//!   than another one it can reach is one that a Sentinel with current
//!   `INFO` avoids; the scenarios say where that matters). It sends the
//!   replica `Promote` (`REPLICAOF NO ONE`), and once the replica has taken
//!   over (`Promoted`; Sentinel sees `role:master`) it switches its
//!   configuration to the new primary (`+switch-master`): it tells every
//!   client (`NewPrimary`), reconfigures the other replicas (`ReplicaOf`,
//!   `+slave-reconf-sent`), and monitors the new primary, which pings it
//!   from then on, so that a later fault can fail over again. If the
//!   selected replica has not taken over within `down_after` ticks (it is
//!   down; Sentinel's `failover-timeout`), the Sentinel aborts and starts
//!   again in a newer epoch. The failed primary is not told at the switch:
//!   it is down. Sentinel reconfigures it when it is back and reports with
//!   the wrong role (`+convert-to-slave`): a primary whose `Ping` carries
//!   an older configuration epoch than the Sentinel's (it was paused
//!   through the failover) is stale and gets `ReplicaOf` the current
//!   primary; until that arrives it still answers clients that still
//!   believe it is the primary. With no fault, pings arrive at most
//!   `ping + d` ticks apart on a network of bounded delay `d`, so there is
//!   no false failover exactly when `down_after > ping + d` (the defaults,
//!   ping 1 and down-after 3, fit `max_delay = 1`).
//! - *Restart*: Redis runs without persistence, so a node restarts empty,
//!   with only its configuration file. A replica's file names its primary
//!   (`replicaof`, which Sentinel rewrites when it reconfigures a node),
//!   and it resynchronises from it at once (`Sync`, Redis's `PSYNC`;
//!   `FullSync`). A primary's names none, so it comes back as a primary
//!   with an empty dataset and serves at once (`auto_restart = true`, the
//!   default: a supervisor restarts it as it was): the failure the Redis
//!   replication docs warn of ("the master can restart fast enough for
//!   Sentinel to not detect a failure"; `specs/replica-crash-ci.toml`: two
//!   holders, no failover). Its replicas saw their connection to it close
//!   when it crashed (`holds_connection`): each keeps its data
//!   (`replica-serve-stale-data`), connects again when the primary is back,
//!   and resynchronises, copying the empty dataset. With `wait` that matters
//!   too: the resynchronised replica acknowledges a new `SET` there, and a
//!   client whose `SET` the crash lost sends its `WAIT` on a new connection,
//!   whose write offset is 0, so it returns at once (`specs/README.md`,
//!   finding 15; `specs/replica-wait-crash-ci.toml`: two holders). A replica
//!   that restarts while its primary is still down retries until the
//!   primary is back, as Redis's replication cron does every second (the
//!   world's connections: a restarted node's refused connection is opened
//!   again once its peer runs). Not modelled: a `WAIT` on a new connection counts every
//!   attached replica, also one still loading its full resynchronisation,
//!   which Redis counts only once it is online. With `auto_restart = false` it is restarted only as
//!   the same docs tell operators to: it does not serve, and waits for the
//!   Sentinel to name the primary to follow. Either way it reports to the
//!   Sentinel (`Restarted`; Sentinel's periodic `INFO` finds it back, and
//!   finds it again after the Sentinel was down or cut off from it),
//!   which answers with `ReplicaOf` the configured primary if that is
//!   another node, or, while it is the node itself or a failover runs,
//!   notes it and reconfigures it at the switch. A node that is not the primary answers no
//!   client command (Redis answers `READONLY`, and the client waits for
//!   Sentinel to name the new primary; here it simply waits). The
//!   Sentinel's state is its configuration file, which Sentinel rewrites on
//!   every change, so it survives a crash of the Sentinel.
//! - *Clients* know the current primary (initially the node named
//!   `primary`). On `NewPrimary` a client switches and re-sends its
//!   outstanding request, if any, to the new primary, as a client that
//!   reconnects through Sentinel does; answers on the old connection are
//!   ignored. Each attempt draws a fresh random lock value
//!   (`Out::fresh_value`), which the key stores and compare-and-delete
//!   compares; every answer carries the value of the request it answers,
//!   and a client ignores one that is not for its current request. Every
//!   request (`SET ... NX PX` with its `WAIT`, and the release) has a
//!   timeout on the client's own clock (`timeout`, default 3; with `wait`
//!   it must exceed `wait_timeout` plus the round trip, or a `WAIT` that
//!   would succeed is given up): an acquisition that times out has failed,
//!   as if refused (a key it set expires by its TTL); a release that
//!   times out is done (the key expires by its TTL). A new request from a
//!   client whose `WAIT` is still blocked (it timed out, or restarted)
//!   drops that `WAIT`, as Redis drops a blocked client whose connection
//!   closed. A restarted client believes the initial primary is the
//!   primary (it does not ask the Sentinel), so after a failover it waits
//!   on a replica until its next `NewPrimary`: scenarios with failovers
//!   fault the servers only.
//! - *`client = "validity"`* (default `"naive"`): the client follows the
//!   Redis documentation's advice for Redlock with one instance. It starts
//!   a stopwatch when it sends its `SET` (kept across a re-send to a new
//!   primary), and on the grant computes validity = `ttl` − elapsed −
//!   `drift`; with none left it deletes the key (compare-and-delete, not
//!   waiting) and asks again after `retry`. Otherwise a validity timer of
//!   that length runs, and its `Check` step, before the write, goes on
//!   only with more than `margin` left (then the timer is cancelled: the
//!   window between the check and the write is the client's); with less,
//!   or when the timer runs out first, it gives the lock up the same way.
//!   It believes it holds the lock while the timer is above zero and,
//!   once checked, until it has written and released; until it has passed
//!   its check it still wants the lock (docs/design.md §5). A naive client
//!   believes it holds the lock from the grant until it has written and
//!   released. With `wait`, the grant comes up to `6 * max_delay` ticks
//!   after the `SET` (the `SET`, its `OK`, the `WAIT`, the `GETACK`, its
//!   answer and `WAIT`'s, each up to `max_delay`; `4 * max_delay`
//!   pipelined), so a validity client needs `ttl − 6 * max_delay − drift >
//!   margin`, or a slow network fails every check.
//!
//! - *Several Sentinels* (`sentinels`, default 3; `quorum`, default a
//!   majority; sentinel.c): the primary pings each. A Sentinel whose
//!   down-after timer fires sees the primary subjectively down (`+sdown`)
//!   and tells the others (`SDown`, the answer Sentinel reads with
//!   `SENTINEL is-master-down-by-addr`); once it and `quorum - 1` others
//!   see it down (`+odown`) it starts a failover in a new epoch, votes for
//!   itself and asks the others for their votes (`VoteRequest`). A
//!   Sentinel votes once per epoch, for the first to ask, whether or not
//!   it sees the primary down (`sentinelVoteLeader`). With a majority of
//!   the Sentinels' votes, and at least `quorum`, it leads the failover
//!   (`Electing`, then as above); otherwise it gives up after down-after
//!   (the failover timeout) and tries again in a newer epoch while the
//!   primary is still down. After the switch the leader sends the new
//!   configuration to the others (`Config`, Sentinel's hello messages),
//!   which adopt a newer configuration epoch than theirs. Only the leader
//!   sends clients `+switch-master`. With one Sentinel nobody's agreement
//!   is needed and the failover starts when down-after fires, as before.
//! - *Partitions* cut links: what crosses a cut link is dropped. The old
//!   primary cut off from the Sentinels keeps serving the clients that
//!   reach it, while the majority's leader promotes a replica: the split
//!   brain (`replica-split-brain`). Once the link heals its pings carry an
//!   older epoch and it is reconfigured as a replica, losing its key.
//! - *`min-replicas-to-write`* (`min_replicas`, `max_lag`; server.c's
//!   `checkGoodReplicasStatus`): each replica sends its primary a
//!   `REPLCONF ACK` every `ping` ticks (`Heartbeat`), and the primary
//!   answers a `SET` (or a compare-and-delete that would delete) with
//!   `-NOREPLICAS` while fewer than `min_replicas` replicas acknowledged
//!   within `max_lag`: a replica is good while its lag is at most
//!   `max_lag` (replication.c, refreshGoodSlavesCount: `lag <=
//!   repl_min_slaves_max_lag`, in whole seconds), so its
//!   `Lag` timer runs for `max_lag + 1` ticks. A cut-off primary stops
//!   granting `max_lag + 1` ticks after its replicas' last
//!   acknowledgement: the window is bounded, not closed.
//! - *Replication lag* (`lag`, default true): `Replicate` is not urgent,
//!   so time may pass before the primary ships a write (weakly fair: it
//!   ships it eventually).
//!
//! Node names are the nodes' initial roles: after a failover, a `replica`
//! is the primary. The replication stream and the Sentinel's links are TCP
//! connections, so [`Params::read`] rejects lost, duplicated and reordered
//! messages. A partition between a replica and its primary breaks the
//! replication connection as a crash does: the replica keeps its data and,
//! once the link heals, reconnects and asks for a resynchronisation
//! (Redis's `PSYNC` after a broken link; a full one here, which ends with
//! the same data). Not modelled: a replica that is down when
//! Sentinel reconfigures it comes back following its old primary (Sentinel
//! would fix it from `INFO`, `+fix-slave-config`), so it stays out of the
//! replication until a later switch reconfigures it.
//!
//! Actions in order: Acquire, Check, Write (client steps), Replicate (the
//! primary's step), SelectReplica (the Sentinel's step), the Redis nodes'
//! handlers, the Sentinel's, the clients', then the lock view.

use crate::algorithms::prelude::*;

mod client;
mod describe;
mod family;
mod itf;
mod messages;
mod params;
mod redis;
mod renumber;
mod sentinel;
#[cfg(test)]
mod tests;
pub use family::PrimaryReplica;
pub use messages::{Msg, Step, Timer};

use self::redis::{redis_fire, redis_init, redis_receive, redis_restart, replicate};
pub use self::redis::{Attached, Redis, Standing, Waiting, MAX_UNACKED};
pub use client::Client;
use client::{acquire, check, client_fire, client_init, client_receive, write};
pub use crate::algorithms::lease::ClientKind;
pub use params::{Params, Replication, MAX_REPLICAS, MAX_SENTINELS};
use sentinel::{select_replica, sentinel_fire, sentinel_init, sentinel_receive, sentinel_restart};
pub use sentinel::{Failover, Sentinel};

/// Node ids: the initial primary is 0, the replicas 1..=replicas, then the
/// Sentinel, the clients, and the resource last.
const PRIMARY: Id = 0;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A Redis node: the primary and the replicas run the same program.
    Redis(Params),
    Sentinel(Params),
    Client(Params),
    Resource(Params),
}

/// The lock key `lock`: its value is the random value the client drew for
/// the attempt that set it (`Out::fresh_value`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub struct Key {
    #[rewrite(value)]
    pub value: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub enum State {
    Redis(#[rewrite] Redis),
    Sentinel(Sentinel),
    Client(#[rewrite] Client),
    Resource(#[rewrite] Resource),
}

parts!(State { Client(Client) => client, Resource(Resource) => resource });
impl Node {
    fn params(&self) -> &Params {
        match self {
            Node::Redis(p) | Node::Sentinel(p) | Node::Client(p) | Node::Resource(p) => p,
        }
    }

    fn resource(&self) -> Id {
        self.params().first_client() + self.params().clients as Id
    }

    fn clients(&self) -> std::ops::Range<Id> {
        self.params().first_client()..self.resource()
    }

    fn wait(&self) -> bool {
        self.params().replication == Replication::Wait
    }

    fn validity(&self) -> bool {
        self.params().client == ClientKind::Validity
    }

    /// The sequence configuration epochs belong to: one Sentinel counts
    /// them up (`Seq::Token`); several draw each new one above all present
    /// ([`try_failover`](sentinel::try_failover)), from the lock values' sequence.
    fn epochs(&self) -> Seq {
        if self.params().sentinels == 1 {
            Seq::Token
        } else {
            Seq::Value
        }
    }
}

impl Actor for Node {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    type Watch = Elapsed;
    type Step = Step;

    fn init(&self, ctx: &Ctx<'_, Self>, out: &mut Out<Self>) -> State {
        match self {
            Node::Redis(p) => State::Redis(redis_init(p, ctx.id, out)),
            Node::Sentinel(p) => State::Sentinel(sentinel_init(p, out)),
            Node::Client(p) => State::Client(client_init(p)),
            Node::Resource(_) => State::Resource(Resource::default()),
        }
    }

    fn steps(&self, ctx: &Ctx<'_, Self>, state: &State, steps: &mut Vec<Step>) {
        match state {
            State::Client(c) => match c.script.phase {
                Phase::Want if ctx.timer(Timer::Retry).is_none() => steps.push(Step::Acquire),
                Phase::Holding if self.validity() && !c.checked => steps.push(Step::Check),
                Phase::Holding => steps.push(Step::Write),
                _ => {}
            },
            State::Redis(r) if r.next_shipment().is_some() => steps.push(Step::Replicate),
            // Any replica of the failed primary may be selected (module doc).
            State::Sentinel(s) if s.failover == Failover::Electing => steps.extend(
                self.params()
                    .redis_nodes()
                    .filter(|&r| r != s.primary)
                    .map(|replica| Step::SelectReplica { replica }),
            ),
            _ => {}
        }
    }

    client_timing!(Node::Client(p) => p.work, write: Step::Write);

    /// A client comes to want the lock, and retries after its back-off,
    /// at any moment (docs/design.md §2). With `lag`, the primary's stream
    /// reaches a replica after any time too (replication lag on a healthy
    /// link; weakly fair, so it does reach it).
    fn urgent(&self, step: Step) -> bool {
        match step {
            Step::Acquire => false,
            Step::Replicate => !self.params().lag,
            _ => true,
        }
    }

    fn on_step(&self, ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        match (state, step) {
            (State::Client(c), Step::Acquire) => acquire(self, c, out),
            (State::Client(c), Step::Check) => check(self, ctx, c, out),
            (State::Client(c), Step::Write) => write(self, c, out),
            (State::Redis(r), Step::Replicate) => replicate(ctx, r, out),
            (State::Sentinel(s), Step::SelectReplica { replica }) => select_replica(self, s, replica, out),
            _ => {}
        }
    }

    fn on_msg(&self, ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Redis(p), State::Redis(r)) => redis_receive(p, ctx, r, src, msg, out),
            (Node::Sentinel(_), State::Sentinel(s)) => sentinel_receive(self, ctx.id, s, src, msg, out),
            (Node::Client(p), State::Client(c)) => client_receive(p, ctx, c, src, msg, out),
            (Node::Resource(_), State::Resource(r)) => r.receive(false, src, msg.resource(), Msg::Resource, out),
            _ => {}
        }
    }

    fn on_timer(&self, ctx: &Ctx<'_, Self>, state: &mut State, timer: Timer, out: &mut Out<Self>) {
        let p = self.params();
        match state {
            State::Redis(r) => redis_fire(p, r, timer, out),
            State::Sentinel(s) => sentinel_fire(self, ctx.id, s, timer, out),
            State::Client(c) => client_fire(p, c, timer, out),
            State::Resource(_) => {}
        }
    }

    /// A replica's replication connection to its primary: when the
    /// primary's process dies the replica sees the connection closed at
    /// once, and when a partition cuts it the connection breaks; it
    /// connects again when the primary is back and reachable (Redis's
    /// replication cron, every second).
    ///
    /// A former primary that waits for the Sentinel to name its primary
    /// (`auto_restart = false`) is found by the Sentinels' periodic `INFO`
    /// over the link each keeps to every instance: the model's `Restarted`
    /// report. That link too breaks when a Sentinel dies or is cut off, and
    /// the report is made again when it is back, as the next `INFO` would.
    fn holds_connection(&self, state: &State, peer: Id) -> bool {
        match state {
            State::Redis(r) => match r.standing {
                Standing::Streaming { primary } | Standing::Syncing { primary } => primary == peer,
                Standing::Detached => self.params().sentinels().contains(&peer),
                Standing::Primary => false,
            },
            _ => false,
        }
    }

    /// The replica keeps its data (`replica-serve-stale-data`) and will
    /// ask for a resynchronisation.
    fn on_disconnect(&self, _: &Ctx<'_, Self>, state: &mut State, peer: Id, _: &mut Out<Self>) {
        if let State::Redis(r) = state {
            if r.standing == (Standing::Streaming { primary: peer }) {
                r.standing = Standing::Syncing { primary: peer };
            }
        }
    }

    /// `PSYNC` on the new connection; a primary that restarted empty has a
    /// new replication id, so it is a full resynchronisation. A former
    /// primary still waiting for the Sentinel reports to it again.
    fn on_reconnect(&self, _: &Ctx<'_, Self>, state: &mut State, peer: Id, out: &mut Out<Self>) {
        if let State::Redis(r) = state {
            if r.standing == (Standing::Syncing { primary: peer }) {
                out.send(peer, Msg::Sync);
            } else if r.standing == Standing::Detached {
                out.send(peer, Msg::Restarted);
            }
        }
    }

    fn crash(&self, state: &mut State, timers: &mut crate::world::Clocks<Timer>) {
        // Redis runs without persistence: only its configuration file
        // survives, with the `replicaof` line Sentinel rewrote. The
        // Sentinel keeps its own configuration file; clients start their
        // script afresh.
        let p = self.params();
        if let State::Redis(r) = state {
            *r = Redis::new(match r.standing {
                Standing::Syncing { primary } | Standing::Streaming { primary } => Standing::Syncing { primary },
                Standing::Primary if p.auto_restart => Standing::Primary,
                Standing::Primary | Standing::Detached => Standing::Detached,
            });
        }
        timers.clear();
    }

    fn restart(&self, ctx: &Ctx<'_, Self>, durable: &State, out: &mut Out<Self>) -> State {
        let p = self.params();
        match (self, durable) {
            (Node::Redis(_), State::Redis(r)) => State::Redis(redis_restart(p, r, out)),
            (Node::Sentinel(_), State::Sentinel(s)) => State::Sentinel(sentinel_restart(p, s, out)),
            _ => self.init(ctx, out),
        }
    }

    fn watch_cap(&self, _: Elapsed) -> u8 {
        // Any elapsed time of a TTL or more leaves no validity.
        self.params().ttl
    }
}

impl Lock for Node {
    /// A naive client believes it holds the lock from the grant until it
    /// has written and released. A validity client believes it while its
    /// validity timer is above zero and, once it has checked that timer,
    /// until it has written and released; until it has passed its check
    /// it may not use the lock, and still wants it (docs/design.md §5).
    fn lock_view(world: &World<Self>, state: &WorldState<Self>) -> LockView {
        leases_view(world, state, |a, n| {
            let c = n.state.client()?;
            Some(ClientLease::new(c.script, a.validity(), c.checked, n.timer(Timer::Validity)))
        })
    }
}

/// The world of a `primary-replica` scenario: `primary`, `replica` (or
/// `replica1`.. with more than one), `sentinel`, clients `c1`.., and the
/// protected resource last.
pub fn world(sc: &Scenario) -> Result<World<Node>, ScenarioError> {
    let p = Params::read(sc)?;
    let mut layout = Layout::default();
    layout.node(Node::Redis(p), "primary", Role::Server);
    if p.replicas == 1 {
        layout.node(Node::Redis(p), "replica", Role::Server);
    } else {
        layout.nodes(&Node::Redis(p), "replica", p.replicas, Role::Server);
    }
    if p.sentinels == 1 {
        layout.node(Node::Sentinel(p), "sentinel", Role::Server);
    } else {
        layout.nodes(&Node::Sentinel(p), "sentinel", p.sentinels, Role::Server);
    }
    layout.nodes(&Node::Client(p), "c", p.clients, Role::Client);
    layout.node(Node::Resource(p), "resource", Role::Observer);
    Ok(layout.world(sc, Vec::new()))
}
