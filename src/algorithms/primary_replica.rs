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
//! - *`replication = "wait"`*: the client sends `SET lock me NX PX ttl;
//!   WAIT k timeout` (`k` is `wait_replicas`, default 1), and the primary
//!   answers `Granted` only once `k` replicas have acknowledged the write
//!   (`Ack`), as Redis counts the replicas whose acknowledged replication
//!   offset has reached the write's. So an acknowledged lock is on `k`
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
//!   client holds the lock for at most 3 ticks after its `WAIT` returns
//!   (the answer, the write and its answer, each up to `max_delay = 1`), so
//!   `wait_timeout + 3 < ttl`.
//! - *The replication stream*: there is one key, and a replica applies what
//!   it receives atomically, so the primary's replication backlog is its
//!   net effect: the key as it is now. `Replicate` ships the key with the
//!   TTL left on the primary's clock, as Redis 7 propagates `SET PX` as an
//!   absolute `PXAT`; a key that expired or was deleted ships as `None`
//!   (Redis propagates the expiry as a `DEL`). Per attached replica the
//!   primary keeps whether the key changed since its last shipment and,
//!   with `wait`, how many of its shipments are unacknowledged (Redis
//!   compares replication offsets); it ships to a replica only while fewer
//!   than [`MAX_UNACKED`] are out. The bound keeps the state space finite
//!   while a replica is down (shipments to it are lost anyway, and its
//!   resynchronisation resets the count); otherwise it is not reached, as a
//!   `SET` is acknowledged before its key is deleted. Reaching it would
//!   only delay a shipment, which `WAIT` allows.
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
//!   holders, no failover). Its replicas keep their data here; the real
//!   ones resynchronise from it and copy its empty dataset, which the model
//!   does not follow. With `auto_restart = false` it is restarted only as
//!   the same docs tell operators to: it does not serve, and waits for the
//!   Sentinel to name the primary to follow. Either way it reports to the
//!   Sentinel (`Restarted`; Sentinel's periodic `INFO` finds it back),
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
//!   released. With `wait`, the grant comes up to `4 * max_delay` ticks
//!   after the `SET` (the `SET`, the shipment, its acknowledgement and the
//!   answer, each up to `max_delay`), so a validity client needs `ttl − 4 *
//!   max_delay − drift > margin`, or a slow network fails every check (the
//!   system of `replica-failover-wait`, ttl 7, with a validity client:
//!   deadlock freedom violated).
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
//!   within `max_lag`. A cut-off primary stops granting `max_lag` ticks
//!   after its replicas' last acknowledgement: the window is bounded, not
//!   closed.
//! - *Replication lag* (`lag`, default true): `Replicate` is not urgent,
//!   so time may pass before the primary ships a write (weakly fair: it
//!   ships it eventually).
//!
//! Node names are the nodes' initial roles: after a failover, a `replica`
//! is the primary. The replication stream and the Sentinel's links are TCP
//! connections, so [`Params::read`] rejects lost, duplicated and reordered
//! messages. Not modelled: a replication link cut by a partition
//! resynchronising when it heals (Redis's `PSYNC`); the replica simply
//! misses what the primary shipped meanwhile, until the next write or
//! resynchronisation. Not modelled either: a replica that is down when
//! Sentinel reconfigures it comes back following its old primary (Sentinel
//! would fix it from `INFO`, `+fix-slave-config`), so it stays out of the
//! replication until a later switch reconfigures it.
//!
//! Actions in order: Acquire, Check, Write (client steps), Replicate (the
//! primary's step), SelectReplica (the Sentinel's step), the Redis nodes'
//! handlers, the Sentinel's, the clients', then the lock view.

use serde::{Deserialize, Serialize};

use super::client::{show, tla, validity_left, Phase, Script};
use super::resource::{Resource, ResourceMsg};
use super::Layout;
use crate::properties::{Lock, LockView};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::{Actor, Ctx, Describe, Id, Out, Renumber, Role, Seq, Tla, TlaMapping, World, WorldState};

/// When the primary answers a granted `SET`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Replication {
    /// At once; the write reaches the replicas later.
    Async,
    /// `SET ...; WAIT k timeout`: once `k` replicas have acknowledged the
    /// write.
    Wait,
}

/// What the client knows about the lock's lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClientKind {
    /// Believes it holds the lock from the grant until it has written and
    /// released.
    Naive,
    /// Times its request, and uses the lock only while its validity lasts,
    /// as a Redlock client does with one instance.
    Validity,
}

/// The most replicas a scenario may have.
pub const MAX_REPLICAS: u8 = 3;

/// The most Sentinels a scenario may have.
pub const MAX_SENTINELS: u8 = 5;

/// The `[system]` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    pub clients: u8,
    /// Replicas of the initial primary (default 1).
    pub replicas: u8,
    /// Key expiry (`PX`) in the serving node's ticks.
    pub ttl: u8,
    pub replication: Replication,
    /// `WAIT`'s `numreplicas`: the acknowledgements a grant waits for.
    pub wait_replicas: u8,
    /// `WAIT`'s timeout in the primary's ticks; 0 waits for ever.
    pub wait_timeout: u8,
    /// Sentinels watching the primary (default 3).
    pub sentinels: u8,
    /// Sentinel's `quorum`: how many Sentinels must see the primary down
    /// (SDOWN) before it is objectively down (ODOWN) and a failover may
    /// start (default a majority of `sentinels`). A failover also needs a
    /// majority of the Sentinels to elect its leader, whatever the quorum.
    pub quorum: u8,
    /// `min-replicas-to-write` (default 0, off): the primary refuses a
    /// write while fewer replicas than this acknowledged within `max_lag`.
    pub min_replicas: u8,
    /// `min-replicas-max-lag`, in the primary's ticks (default 2).
    pub max_lag: u8,
    /// Replication lag on a healthy link (default true): the primary's
    /// `Replicate` step is not urgent, so time may pass before its stream
    /// reaches a replica. `false` ships at once (the model before issue 21).
    pub lag: bool,
    /// What restarts a crashed primary (default true): a supervisor, as it
    /// was, so that it serves its empty dataset; false: an operator who
    /// follows the Redis replication docs and makes it wait for the
    /// Sentinel.
    pub auto_restart: bool,
    /// Ticks between the primary's pings to the Sentinel.
    pub ping: u8,
    /// Sentinel's `down-after-milliseconds`, in the Sentinel's ticks; also
    /// its failover timeout.
    pub down_after: u8,
    /// Ticks a refused client waits before asking again.
    pub retry: u8,
    /// The client's request timeout, on its own clock (convention 1 of
    /// issue 7): a request unanswered for this long has failed.
    pub timeout: u8,
    pub client: ClientKind,
    /// Validity client: the clock-drift allowance subtracted from the
    /// validity, in ticks.
    pub drift: u8,
    /// Validity client: the validity it insists on having left when it
    /// checks, to cover the write and its answer.
    pub margin: u8,
    pub acquisitions: u8,
    /// `[system] work`: the most ticks a holder works in its critical
    /// section before it writes (0: it writes at once).
    pub work: u8,
    /// How many failovers the fault budget can cause, when that is
    /// bounded ([`Params::monitors`]); `None` when false failovers can
    /// happen too. Derived from `[faults]`, not a key.
    pub failovers: Option<u8>,
}

impl Params {
    /// Reads `[system]`, and rejects fault budgets this model cannot answer
    /// faithfully: it does not resynchronise a replication link that breaks
    /// without a crash, and its `PXAT` expiry assumes the servers' clocks
    /// agree when a key is shipped.
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let mut k = sc.system_keys();
        let clients = k.uint("clients", 1, 4, 2)?;
        let replicas = k.uint("replicas", 1, MAX_REPLICAS, 1)?;
        let ttl = k.uint("ttl", 1, 30, 7)?;
        let replication = k.choice(
            "replication",
            &[("async", Replication::Async), ("wait", Replication::Wait)],
            Replication::Async,
        )?;
        let wait_replicas = k.optional_uint("wait_replicas", 1, MAX_REPLICAS)?;
        let wait_timeout = k.optional_uint("wait_timeout", 0, 30)?;
        let client = k.choice(
            "client",
            &[("naive", ClientKind::Naive), ("validity", ClientKind::Validity)],
            ClientKind::Naive,
        )?;
        let drift = k.optional_uint("drift", 0, 10)?;
        let margin = k.optional_uint("margin", 0, 10)?;
        let sentinels = k.uint("sentinels", 1, MAX_SENTINELS, 3)?;
        let quorum = k.optional_uint("quorum", 1, MAX_SENTINELS)?;
        let min_replicas = k.uint("min_replicas", 0, MAX_REPLICAS, 0)?;
        let max_lag = k.optional_uint("max_lag", 1, 30)?;
        let lag = k.flag("lag", true)?;
        let auto_restart = k.flag("auto_restart", true)?;
        let p = Params {
            clients,
            replicas,
            ttl,
            replication,
            wait_replicas: wait_replicas.unwrap_or(1),
            wait_timeout: wait_timeout.unwrap_or(0),
            sentinels,
            quorum: quorum.unwrap_or(sentinels / 2 + 1),
            min_replicas,
            max_lag: max_lag.unwrap_or(2),
            lag,
            auto_restart,
            ping: k.uint("ping", 1, 10, 1)?,
            down_after: k.uint("down_after", 1, 30, 3)?,
            retry: k.uint("retry", 1, 10, 1)?,
            timeout: k.uint("timeout", 1, 30, 3)?,
            client,
            drift: drift.unwrap_or(1),
            margin: margin.unwrap_or(2),
            acquisitions: sc.acquisitions,
            work: k.uint("work", 0, 10, 0)?,
            failovers: None,
        };
        k.finish()?;
        let mut p = p;
        let file = sc.path.display();
        for (key, v) in [("drift", drift), ("margin", margin)] {
            if let (ClientKind::Naive, Some(v)) = (client, v) {
                return Err(ScenarioError(format!(
                    "{file}: [system] {key} = {v} is used only by a client that knows its lock's validity; allowed with client = \"validity\""
                )));
            }
        }
        for (key, v) in [("wait_timeout", wait_timeout), ("wait_replicas", wait_replicas)] {
            if let (Replication::Async, Some(v)) = (replication, v) {
                return Err(ScenarioError(format!(
                    "{file}: [system] {key} = {v} is an argument of WAIT, which replication = \"async\" never sends; allowed with replication = \"wait\""
                )));
            }
        }
        if let Some(q) = quorum.filter(|&q| q > sentinels) {
            return Err(ScenarioError(format!(
                "{file}: [system] quorum = {q} needs more Sentinels than the {sentinels} there are; allowed: 1 to {sentinels} (sentinels)"
            )));
        }
        if min_replicas > replicas {
            return Err(ScenarioError(format!(
                "{file}: [system] min_replicas = {min_replicas} asks for more replicas than the {replicas} there are; allowed: 0 to {replicas} (replicas)"
            )));
        }
        if let (0, Some(v)) = (min_replicas, max_lag) {
            return Err(ScenarioError(format!(
                "{file}: [system] max_lag = {v} is min-replicas-max-lag, used only with min-replicas-to-write; allowed with min_replicas = 1 or more"
            )));
        }
        if p.wait_replicas > replicas {
            return Err(ScenarioError(format!(
                "{file}: [system] wait_replicas = {} waits for more replicas than the {replicas} there are; allowed: 1 to {replicas} (replicas)",
                p.wait_replicas
            )));
        }
        let f = &sc.faults;
        for (key, on) in [("loss", f.loss), ("duplicate", f.duplicate), ("reorder", f.reorder)] {
            if on {
                return Err(ScenarioError(format!(
                    "{file}: [faults] {key} = true is not modelled for primary-replica (its links are TCP connections, where a lost segment breaks the connection and the replica resynchronises); allowed: false"
                )));
            }
        }
        let server_faults = f.crashes + f.pauses + f.clock_jumps + u8::from(f.max_drift > 0);
        let clock_faults = f.clock_jumps > 0 || f.max_drift > 0;
        if f.targets.hits(Role::Server) && clock_faults && server_faults > 1 {
            return Err(ScenarioError(format!(
                "{file}: [faults] crashes + pauses + clock_jumps (+1 for max_drift) is {server_faults}, but primary-replica's replicated expiry (PXAT) assumes the servers' clocks agreed before a shipment, so a clock fault must be the only fault that hits the servers; allowed: at most 1 with clock_jumps or max_drift, or targets = \"clients\""
            )));
        }
        // Without a fault, pings arrive at most ping + d ticks apart and a
        // promotion is answered within 2d, so every failover attempt (an
        // epoch) needs a crash or a pause of a server.
        let bounded = f.max_delay.is_some_and(|d| p.down_after > (p.ping + d).max(2 * d));
        // With several Sentinels, epochs are ranked, not counted (see
        // [`Node::epochs`]): none is compared with a bound.
        if bounded && !clock_faults && f.partitions == 0 && sentinels == 1 {
            p.failovers = Some(if f.targets.hits(Role::Server) {
                f.crashes + f.pauses
            } else {
                0
            });
        }
        Ok(p)
    }

    /// Whether the Sentinel watches the primary of configuration `epoch`
    /// (and that primary pings it): always the initial one, and a later
    /// one while the fault budget can still cause another failover. Once
    /// the Sentinel has started as many failovers as the budget has server
    /// faults, no fault is left to stop a primary's pings or a promotion,
    /// so its down-after timer cannot fire and the pings change nothing
    /// but the state count; they are left out (a reduction of the state
    /// space, not a behaviour: with false failovers possible they run in
    /// every epoch).
    pub fn monitors(&self, epoch: u32) -> bool {
        self.failovers.is_none_or(|f| epoch < u32::from(f.max(1)))
    }

    /// The Redis nodes: the initial primary 0, then the replicas.
    fn redis_nodes(&self) -> std::ops::RangeInclusive<Id> {
        PRIMARY..=self.replicas as Id
    }

    /// The Sentinels' ids.
    fn sentinels(&self) -> std::ops::Range<Id> {
        self.replicas as Id + 1..self.first_client()
    }

    /// A Sentinel's bit in a set of Sentinels.
    fn bit(&self, sentinel: Id) -> u8 {
        1 << (sentinel - (self.replicas as Id + 1))
    }

    /// The votes a Sentinel needs to lead a failover: a majority of the
    /// Sentinels, and at least the quorum (sentinel.c's
    /// `sentinelGetLeader`).
    fn votes_needed(&self) -> u32 {
        u32::from((self.sentinels / 2 + 1).max(self.quorum))
    }

    fn first_client(&self) -> Id {
        self.replicas as Id + 1 + self.sentinels as Id
    }
}

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Key {
    pub value: u32,
}

/// What a Redis node is to the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// The most shipments a `wait` primary has out unacknowledged, per replica.
pub const MAX_UNACKED: u8 = 2;

/// A replica attached to a primary, as the primary sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Attached {
    pub id: Id,
    /// The key changed since the last shipment to this replica (its part
    /// of the replication backlog, by its net effect).
    pub unshipped: bool,
    /// `wait` only: shipments to it not yet acknowledged.
    pub unacked: u8,
}

/// A granted `SET` whose `WAIT` is still blocked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Waiting {
    pub client: Id,
    /// The value the `SET` wrote, which the answer carries.
    pub value: u32,
    /// Per Redis node (by id): which of the shipments not yet acknowledged
    /// by that replica holds the write, oldest first from 1; 0 while it is
    /// not shipped to it yet (or once acknowledged).
    pub shipment: [u8; MAX_REPLICAS as usize + 1],
    /// The replicas (a bit per id) that have acknowledged the write.
    pub acked: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Redis {
    pub standing: Standing,
    /// Primary: the Sentinel's configuration epoch it was promoted in (0
    /// for the initial primary, and for every other node).
    pub epoch: u32,
    pub key: Option<Key>,
    /// Primary: its attached replicas, by id.
    pub replicas: Vec<Attached>,
    /// Primary, `wait` only: granted `SET`s whose `WAIT` is blocked, by
    /// client.
    pub waiting: Vec<Waiting>,
}

/// Where the Sentinel is in a failover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Failover {
    /// Watches the configured primary's pings.
    Monitoring,
    /// With more than one Sentinel: the primary is objectively down, and
    /// this Sentinel started a failover in a new epoch, voted for itself
    /// and asked the others for their votes (`votes`, a bit per Sentinel);
    /// it leads once a majority (and the quorum) voted for it.
    Voting { votes: u8 },
    /// The primary is down and this Sentinel leads the failover of the
    /// current epoch: a replica is to be selected.
    Electing,
    /// Has told `replica` to take over and waits until it has.
    Promoting { replica: Id },
}

/// The Sentinel's configuration (its configuration file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sentinel {
    /// The configuration epoch: each failover attempt starts a newer one.
    pub epoch: u32,
    /// The primary of the current configuration.
    pub primary: Id,
    pub failover: Failover,
    /// Former primaries (a bit per id) that reported back, restarted,
    /// while no other primary was configured: the switch reconfigures them.
    pub returned: u8,
    /// The fields below stay 0 with one Sentinel, which needs nobody's
    /// agreement. Its own view: no ping from the primary for down-after
    /// (SDOWN).
    pub sdown: bool,
    /// The other Sentinels (a bit each) that last reported the primary
    /// down (their answers to `SENTINEL is-master-down-by-addr`).
    pub down: u8,
    /// The latest epoch it voted in (`leader_epoch`), and for whom.
    pub voted: u32,
    pub leader: Id,
    /// The configuration epoch of `primary`: the failover that made it
    /// primary (0 for the initial one).
    pub config: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    pub script: Script,
    /// The node the client believes is the primary.
    pub primary: Id,
    /// The lock value of the current attempt, from its `SET` until the
    /// attempt fails or the release ends (0: none).
    pub value: u32,
    /// Validity client: checked its validity timer and found time left,
    /// so about to write.
    pub checked: bool,
    pub ghost: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum State {
    Redis(Redis),
    Sentinel(Sentinel),
    Client(Client),
    Resource(Resource),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Msg {
    /// `SET lock value NX PX ttl` (then `WAIT k timeout` with `wait`).
    SetNxPx {
        value: u32,
    },
    /// `if GET lock == value then DEL lock`.
    CompareAndDelete {
        value: u32,
    },
    /// The key was set (with `wait`: and replicated); `token` is 0, as this
    /// family has no fencing. Every answer carries the value of the request
    /// it answers, as a client matches an answer to its request.
    Granted {
        token: u32,
        ghost: u32,
        value: u32,
    },
    /// The key exists: not set.
    Refused {
        value: u32,
    },
    /// The key was set, but `WAIT` timed out first (it returned fewer
    /// than `k`).
    WaitTimedOut {
        value: u32,
    },
    /// Answer to a release.
    Released {
        value: u32,
    },
    /// The replication stream: the key as the primary has it now, with
    /// the TTL left on its clock when sent (Redis sends the absolute
    /// `PXAT`; see [`apply`]).
    Replicate {
        key: Option<Key>,
        px: u8,
    },
    /// `PSYNC`: a replica asks for a full resynchronisation.
    Sync,
    /// The primary's dataset, for a replica that asked with `Sync`.
    FullSync {
        key: Option<Key>,
        px: u8,
    },
    /// `REPLCONF ACK`: the replica applied a shipment (`wait` only).
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
        value: u32,
    },
    /// A replica's periodic `REPLCONF ACK` (every `ping` ticks), by which
    /// the primary measures its lag (with `min_replicas` only).
    Heartbeat,
    Resource(ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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

/// Validity client: the stopwatch started when it sends its `SET`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Elapsed;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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
    /// ([`try_failover`]), from the lock values' sequence.
    fn epochs(&self) -> Seq {
        if self.params().sentinels == 1 {
            Seq::Token
        } else {
            Seq::Value
        }
    }
}

impl Redis {
    fn new(standing: Standing) -> Redis {
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
    /// to ship and room for another unacknowledged shipment.
    fn next_shipment(&self) -> Option<usize> {
        self.replicas
            .iter()
            .position(|a| a.unshipped && a.unacked < MAX_UNACKED)
    }
}

impl Waiting {
    fn acks(&self) -> u8 {
        self.acked.count_ones() as u8
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
            Node::Redis(p) if ctx.id == PRIMARY => {
                out.set_timer(Timer::Ping, p.ping);
                let mut r = Redis::new(Standing::Primary);
                r.replicas = (1..=p.replicas as Id)
                    .map(|id| Attached {
                        id,
                        unshipped: false,
                        unacked: 0,
                    })
                    .collect();
                if p.min_replicas > 0 {
                    for replica in 1..=p.replicas as Id {
                        out.set_timer(Timer::Lag { replica }, p.max_lag);
                    }
                }
                State::Redis(r)
            }
            Node::Redis(p) => {
                if p.min_replicas > 0 {
                    out.set_timer(Timer::Heartbeat, p.ping);
                }
                State::Redis(Redis::new(Standing::Streaming { primary: PRIMARY }))
            }
            Node::Sentinel(p) => {
                out.set_timer(Timer::DownAfter, p.down_after);
                State::Sentinel(Sentinel {
                    epoch: 0,
                    primary: PRIMARY,
                    failover: Failover::Monitoring,
                    returned: 0,
                    sdown: false,
                    down: 0,
                    voted: 0,
                    leader: 0,
                    config: 0,
                })
            }
            Node::Client(p) => State::Client(Client {
                script: Script::new(p.acquisitions),
                primary: PRIMARY,
                value: 0,
                checked: false,
                ghost: 0,
            }),
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

    /// A holder works from 0 to `[system] work` ticks before it writes.
    fn within(&self, step: Step) -> Option<u8> {
        match self {
            Node::Client(p) if step == Step::Write && p.work > 0 => Some(p.work),
            _ => None,
        }
    }

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
            // Acquire: SET lock value NX PX ttl, with a fresh value, to the
            // node believed primary, with a request timeout.
            (State::Client(c), Step::Acquire) => {
                c.value = out.fresh_value();
                out.send(c.primary, Msg::SetNxPx { value: c.value });
                out.set_timer(Timer::Timeout, self.params().timeout);
                if self.validity() {
                    out.start_watch(Elapsed);
                }
                c.script.phase = Phase::Acquiring;
            }
            // Check: is there more validity left than the margin? Only then
            // use the resource; otherwise give the lock up.
            (State::Client(c), Step::Check) => {
                let p = self.params();
                if ctx.timer(Timer::Validity).is_some_and(|v| v > p.margin) {
                    c.checked = true;
                    out.cancel_timer(Timer::Validity);
                } else {
                    give_up(p, c, out);
                }
            }
            // Write: the critical section's write.
            (State::Client(c), Step::Write) => {
                out.send(
                    self.resource(),
                    Msg::Resource(ResourceMsg::Write {
                        token: 0,
                        ghost: c.ghost,
                    }),
                );
                c.script.phase = Phase::Writing;
            }
            // Replicate: ship the key as it is now to the next replica.
            (State::Redis(r), Step::Replicate) => {
                let Some(at) = r.next_shipment() else { return };
                let (key, px) = dataset(ctx, r);
                let a = &mut r.replicas[at];
                out.send(a.id, Msg::Replicate { key, px });
                a.unshipped = false;
                if self.wait() {
                    a.unacked += 1;
                    let (to, n) = (a.id, a.unacked);
                    for w in r.waiting.iter_mut() {
                        if w.shipment[to] == 0 && w.acked & (1 << to) == 0 {
                            w.shipment[to] = n;
                        }
                    }
                }
            }
            // SelectReplica: tell the selected replica to take over, and
            // give it down-after ticks (the failover timeout).
            (State::Sentinel(s), Step::SelectReplica { replica }) => {
                s.failover = Failover::Promoting { replica };
                out.send(replica, Msg::Promote { epoch: s.epoch });
                let p = self.params();
                if p.monitors(s.epoch) {
                    out.set_timer(Timer::DownAfter, p.down_after);
                }
            }
            _ => {}
        }
    }

    fn on_msg(&self, ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Redis(p), State::Redis(r)) => redis_receive(p, ctx, r, src, msg, out),
            (Node::Sentinel(_), State::Sentinel(s)) => sentinel_receive(self, ctx.id, s, src, msg, out),
            (Node::Client(p), State::Client(c)) => client_receive(p, ctx, c, src, msg, out),
            (Node::Resource(_), State::Resource(r)) => {
                if let Msg::Resource(ResourceMsg::Write { token, ghost }) = msg {
                    let answer = r.write(false, token, ghost, out);
                    out.send(src, Msg::Resource(answer));
                }
            }
            _ => {}
        }
    }

    fn on_timer(&self, ctx: &Ctx<'_, Self>, state: &mut State, timer: Timer, out: &mut Out<Self>) {
        let p = self.params();
        match (state, timer) {
            // The key's TTL ran out on this node's clock; a primary streams
            // the deletion, a replica treats the key as gone (module doc).
            (State::Redis(r), Timer::KeyExpiry) => {
                r.key = None;
                r.wrote();
            }
            (State::Redis(r), Timer::Ping) if r.standing == Standing::Primary => {
                for sentinel in p.sentinels() {
                    out.send(sentinel, Msg::Ping { epoch: r.epoch });
                }
                out.set_timer(Timer::Ping, p.ping);
            }
            // REPLCONF ACK, every `ping` ticks while streaming.
            (State::Redis(r), Timer::Heartbeat) => {
                if let Standing::Streaming { primary } = r.standing {
                    out.send(primary, Msg::Heartbeat);
                    out.set_timer(Timer::Heartbeat, p.ping);
                }
            }
            // WAIT returns fewer than k: too few replicas acknowledged.
            (State::Redis(r), Timer::WaitTimeout { client }) => {
                if let Some(at) = r.waiting.iter().position(|w| w.client == client) {
                    let w = r.waiting.remove(at);
                    out.send(client, Msg::WaitTimedOut { value: w.value });
                }
            }
            // The request timed out: an acquisition failed, as if refused
            // (a key it may have set expires by its TTL); a release is
            // done, and the key, if still there, expires by its TTL.
            (State::Client(c), Timer::Timeout) => match c.script.phase {
                Phase::Acquiring => retry_later(p, c, out),
                Phase::Releasing => {
                    c.value = 0;
                    c.checked = false;
                    c.script.released(p.acquisitions);
                }
                _ => {}
            },
            // The validity ran out before the client checked it: lost.
            (State::Client(c), Timer::Validity) if c.script.phase == Phase::Holding => give_up(p, c, out),
            // One Sentinel: down-after elapsed without a ping (+odown), or
            // the selected replica did not take over in time: fail over in a
            // new epoch.
            (State::Sentinel(s), Timer::DownAfter) if s.failover != Failover::Electing && p.sentinels == 1 => {
                s.epoch += 1;
                s.failover = Failover::Electing;
            }
            // Several: down-after elapsed without a ping (+sdown), or the
            // election or the promotion timed out.
            (State::Sentinel(s), Timer::DownAfter) if p.sentinels > 1 => sentinel_timeout(self, ctx.id, s, out),
            _ => {}
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
            // A replica resynchronises from the primary its configuration
            // names; a former primary reports to the Sentinel and waits to
            // be told whom to follow.
            (Node::Redis(_), State::Redis(r)) => {
                match r.standing {
                    Standing::Syncing { primary } => out.send(primary, Msg::Sync),
                    _ => {
                        for sentinel in p.sentinels() {
                            out.send(sentinel, Msg::Restarted);
                        }
                    }
                }
                State::Redis(r.clone())
            }
            (Node::Sentinel(_), State::Sentinel(s)) => {
                if let Failover::Promoting { replica } = s.failover {
                    out.send(replica, Msg::Promote { epoch: s.epoch });
                }
                if s.failover != Failover::Electing && p.monitors(s.epoch) {
                    out.set_timer(Timer::DownAfter, p.down_after);
                }
                State::Sentinel(*s)
            }
            _ => self.init(ctx, out),
        }
    }

    fn watch_cap(&self, _: Elapsed) -> u8 {
        // Any elapsed time of a TTL or more leaves no validity.
        self.params().ttl
    }

    // Traces (issue 8 item 6): Redis commands and replies, the replication
    // stream and Sentinel's commands, nodes by name.
}

impl Describe for Node {
    fn persistence(&self) -> &'static str {
        match self {
            Node::Redis(p) if p.auto_restart => "empty (a primary serves again, a replica resynchronises)",
            Node::Redis(_) => "empty, as a replica waiting for the Sentinel",
            Node::Sentinel(_) => "with its configuration file",
            _ => "empty",
        }
    }

    fn show_msg(&self, msg: &Msg, names: &[String]) -> String {
        let p = self.params();
        let v = |v: &u32| show::value(*v);
        let name = |id: &Id| names.get(*id).map_or("?", String::as_str);
        let rdb = |key: &Option<Key>, px: &u8| match key {
            Some(k) => format!("SET lock {} PXAT now+{px}", v(&k.value)),
            None => "DEL lock".into(),
        };
        match msg {
            Msg::SetNxPx { value } if p.replication == Replication::Wait => {
                format!(
                    "SET lock {} NX PX {}; WAIT {} {}",
                    v(value),
                    p.ttl,
                    p.wait_replicas,
                    p.wait_timeout
                )
            }
            Msg::SetNxPx { value } => format!("SET lock {} NX PX {}", v(value), p.ttl),
            Msg::CompareAndDelete { value } => format!("EVAL compare-and-delete lock {}", v(value)),
            Msg::Granted { value, .. } if p.replication == Replication::Wait => {
                format!("OK, (integer) 1 ({})", v(value))
            }
            Msg::Granted { value, .. } => format!("OK ({})", v(value)),
            Msg::Refused { value } => format!("nil ({})", v(value)),
            Msg::WaitTimedOut { value } => format!("OK, (integer) 0 ({})", v(value)),
            Msg::Released { value } => format!("EVAL done ({})", v(value)),
            Msg::Replicate { key, px } => format!("replication stream: {}", rdb(key, px)),
            Msg::Sync => "PSYNC ? -1".into(),
            Msg::FullSync { key: None, .. } => "+FULLRESYNC, empty dataset".into(),
            Msg::FullSync { key, px } => format!("+FULLRESYNC, dataset: {}", rdb(key, px)),
            Msg::Ack => "REPLCONF ACK".into(),
            Msg::Ping { epoch } => format!("PING (role:master, epoch {epoch})"),
            Msg::Restarted => "restarted empty, which primary?".into(),
            Msg::ReplicaOf { primary } => format!("REPLICAOF {}", name(primary)),
            Msg::Promote { epoch } => format!("REPLICAOF NO ONE (epoch {epoch})"),
            Msg::Promoted { epoch } => format!("role:master (epoch {epoch})"),
            Msg::NewPrimary { id } => format!("+switch-master {}", name(id)),
            Msg::SDown { down: true } => "+sdown master".into(),
            Msg::SDown { down: false } => "-sdown master".into(),
            Msg::VoteRequest { epoch } => format!("SENTINEL is-master-down-by-addr (epoch {epoch}, vote for me)"),
            Msg::Vote { epoch, leader } => format!("voted for {} in epoch {epoch}", name(leader)),
            Msg::Config { epoch, primary } => format!("hello: master {} (config epoch {epoch})", name(primary)),
            Msg::NoReplicas { value } => format!("-NOREPLICAS ({})", v(value)),
            Msg::Heartbeat => "REPLCONF ACK (heartbeat)".into(),
            Msg::Resource(m) => m.show(&show::token),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire => "asks for the lock".into(),
            Step::Check => "checks its validity".into(),
            Step::Write => "writes to the resource".into(),
            Step::Replicate => "ships the key to a replica".into(),
            // Replicas are ids 1..=N, named `replica` alone or `replica1`.. (see `world`).
            Step::SelectReplica { .. } if self.params().replicas == 1 => "+selected-slave replica".into(),
            Step::SelectReplica { replica } => format!("+selected-slave replica{replica}"),
        }
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::KeyExpiry => "key TTL".into(),
            Timer::Ping => "ping interval".into(),
            // Clients are c1.. from the first client's id on (see `world`).
            Timer::WaitTimeout { client } => format!("WAIT timeout of c{}", client + 1 - self.params().first_client()),
            Timer::DownAfter => "down-after".into(),
            Timer::Retry => "back-off".into(),
            Timer::Timeout => "request timeout".into(),
            Timer::Validity => "validity timer".into(),
            Timer::Heartbeat => "REPLCONF ACK interval".into(),
            Timer::Lag { replica } => format!("min-replicas-max-lag of replica {replica}"),
        }
    }

    fn show_state(&self, state: &State, names: &[String]) -> Option<Vec<(String, String)>> {
        let name = |id: Id| names.get(id).map_or("?", String::as_str).to_string();
        Some(match state {
            State::Redis(r) => {
                let role = match r.standing {
                    Standing::Primary if r.replicas.is_empty() => "primary, no replica".into(),
                    Standing::Primary => format!("primary of {}", show::set(r.replicas.iter().map(|a| a.id), names)),
                    Standing::Detached => "detached, waits for the Sentinel".into(),
                    Standing::Syncing { primary } => format!("syncing from {}", name(primary)),
                    Standing::Streaming { primary } => format!("replica of {}", name(primary)),
                };
                let mut out = vec![
                    show::field("role", role),
                    show::field("epoch", r.epoch),
                    show::field("lock", r.key.map_or("none".into(), |k| show::value(k.value))),
                ];
                let unshipped = r.replicas.iter().filter(|a| a.unshipped).map(|a| a.id);
                out.push(show::field("write not shipped to", show::set(unshipped, names)));
                if self.wait() {
                    let unacked: Vec<String> = r
                        .replicas
                        .iter()
                        .filter(|a| a.unacked > 0)
                        .map(|a| format!("{}: {}", name(a.id), a.unacked))
                        .collect();
                    out.push(show::field(
                        "unacknowledged shipments",
                        format!("{{{}}}", unacked.join(", ")),
                    ));
                    let waiting: Vec<String> = r
                        .waiting
                        .iter()
                        .map(|w| {
                            let acked = (0..8).filter(|i| w.acked & (1 << i) != 0);
                            format!(
                                "{} ({}, acknowledged by {})",
                                name(w.client),
                                show::value(w.value),
                                show::set(acked, names)
                            )
                        })
                        .collect();
                    out.push(show::field("blocked WAITs", format!("{{{}}}", waiting.join(", "))));
                }
                out
            }
            State::Sentinel(s) if self.params().sentinels > 1 => vec![
                show::field("epoch", s.epoch),
                show::field("primary", name(s.primary)),
                show::field("config epoch", s.config),
                show::field(
                    "others seeing it down",
                    show::set(
                        self.params()
                            .sentinels()
                            .filter(|&o| s.down & self.params().bit(o) != 0),
                        names,
                    ),
                ),
                show::field("voted", format!("{} in epoch {}", name(s.leader), s.voted)),
                show::field(
                    "failover",
                    match s.failover {
                        Failover::Monitoring if s.sdown => "none, sees the primary down".to_string(),
                        Failover::Monitoring => "none, monitoring".to_string(),
                        Failover::Voting { votes } => format!("asks for votes, has {}", votes.count_ones()),
                        Failover::Electing => "elected, selecting a replica".to_string(),
                        Failover::Promoting { replica } => format!("promoting {}", name(replica)),
                    },
                ),
            ],
            State::Sentinel(s) => vec![
                show::field("epoch", s.epoch),
                show::field("primary", name(s.primary)),
                show::field(
                    "failover",
                    match s.failover {
                        Failover::Monitoring => "none, monitoring".to_string(),
                        Failover::Voting { .. } | Failover::Electing => "electing a replica".to_string(),
                        Failover::Promoting { replica } => format!("promoting {}", name(replica)),
                    },
                ),
            ],
            State::Client(c) => {
                let mut out = show::script(&c.script);
                out.push(show::field("talks to", name(c.primary)));
                out.push(show::field("value", show::value(c.value)));
                if self.validity() {
                    out.push(show::field("validity checked", show::yes(c.checked)));
                }
                out.push(show::field("acquisition", show::ghost(c.ghost)));
                out
            }
            State::Resource(r) => r.show(None),
        })
    }
}

impl Renumber for Node {
    /// Lock values are `Seq::Value`, ghost numbers `Seq::Ghost`; this
    /// family has no fencing tokens, and its configuration epochs, a
    /// counter that only grows and is only compared, are `Seq::Token`
    /// with one Sentinel, drawn lock values with several ([`Node::epochs`]).
    fn numbers(&self, state: &mut State, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match state {
            State::Client(c) => {
                visit(Seq::Ghost, &mut c.ghost);
                visit(Seq::Value, &mut c.value);
            }
            State::Redis(r) => {
                visit(self.epochs(), &mut r.epoch);
                if let Some(k) = &mut r.key {
                    visit(Seq::Value, &mut k.value);
                }
                for w in r.waiting.iter_mut() {
                    visit(Seq::Value, &mut w.value);
                }
            }
            State::Resource(r) => r.numbers(false, visit),
            State::Sentinel(s) => {
                visit(self.epochs(), &mut s.epoch);
                visit(self.epochs(), &mut s.voted);
                visit(self.epochs(), &mut s.config);
            }
        }
    }

    fn numbers_msg(&self, msg: &mut Msg, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match msg {
            Msg::Granted { ghost, value, .. } => {
                visit(Seq::Ghost, ghost);
                visit(Seq::Value, value);
            }
            Msg::SetNxPx { value }
            | Msg::CompareAndDelete { value }
            | Msg::Refused { value }
            | Msg::WaitTimedOut { value }
            | Msg::Released { value } => visit(Seq::Value, value),
            Msg::Replicate { key: Some(k), .. } | Msg::FullSync { key: Some(k), .. } => visit(Seq::Value, &mut k.value),
            Msg::Ping { epoch }
            | Msg::Promote { epoch }
            | Msg::Promoted { epoch }
            | Msg::VoteRequest { epoch }
            | Msg::Vote { epoch, .. }
            | Msg::Config { epoch, .. } => visit(self.epochs(), epoch),
            Msg::NoReplicas { value } => visit(Seq::Value, value),
            Msg::Resource(m) => m.numbers(false, visit),
            _ => {}
        }
    }
}

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/PrimaryReplica.tla's variables: each Redis node's standing,
    /// epoch, key, attached replicas and blocked WAITs, the Sentinel's
    /// record, the clients' attempts, the resource's maximum.
    fn tla_vars(_world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let redis_ids: Vec<Id> = (0..s.nodes.len())
            .filter(|&i| matches!(s.nodes[i].state, State::Redis(_)))
            .collect();
        let redis = |f: &dyn Fn(&Redis) -> Tla| {
            tla::per_node(s, |st| match st {
                State::Redis(r) => Some(f(r)),
                _ => None,
            })
        };
        let client = |f: fn(&Client) -> Tla| {
            tla::per_node(s, move |st| match st {
                State::Client(c) => Some(f(c)),
                _ => None,
            })
        };
        let standing = |st: &Standing| {
            let (kind, peer) = match *st {
                Standing::Primary => ("Primary", None),
                Standing::Detached => ("Detached", None),
                Standing::Syncing { primary } => ("Syncing", Some(primary)),
                Standing::Streaming { primary } => ("Streaming", Some(primary)),
            };
            Tla::rec([
                ("kind", Tla::str(kind)),
                ("peer", Tla::or_none(peer, |p| Tla::int(p as i64))),
            ])
        };
        let waiting = |w: &Waiting| {
            Tla::rec([
                ("client", Tla::int(w.client as i64)),
                ("value", Tla::int(w.value)),
                (
                    "shipment",
                    Tla::by_id(redis_ids.iter().map(|&r| (r, Tla::int(w.shipment[r])))),
                ),
                ("acked", Tla::mask(u64::from(w.acked))),
            ])
        };
        let sentinel = s
            .nodes
            .iter()
            .find_map(|n| match n.state {
                State::Sentinel(x) => Some(x),
                _ => None,
            })
            .map_or_else(Tla::none, |x| {
                let (kind, replica) = match x.failover {
                    Failover::Monitoring => ("Monitoring", None),
                    Failover::Voting { .. } => ("Voting", None),
                    Failover::Electing => ("Electing", None),
                    Failover::Promoting { replica } => ("Promoting", Some(replica)),
                };
                Tla::rec([
                    ("epoch", Tla::int(x.epoch)),
                    ("primary", Tla::int(x.primary as i64)),
                    (
                        "failover",
                        Tla::rec([
                            ("kind", Tla::str(kind)),
                            ("replica", Tla::or_none(replica, |r| Tla::int(r as i64))),
                        ]),
                    ),
                    ("returned", Tla::mask(u64::from(x.returned))),
                ])
            });
        let max_ghost = s
            .nodes
            .iter()
            .find_map(|n| match n.state {
                State::Resource(r) => Some(r.max_ghost),
                _ => None,
            })
            .unwrap_or(0);
        Some(vec![
            ("standing", redis(&|r| standing(&r.standing))),
            ("epoch", redis(&|r| Tla::int(r.epoch))),
            ("key", redis(&|r| Tla::or_none(r.key, |k| Tla::int(k.value)))),
            (
                "attached",
                redis(&|r| {
                    Tla::by_id(r.replicas.iter().map(|a| {
                        (
                            a.id,
                            Tla::rec([("unshipped", Tla::Bool(a.unshipped)), ("unacked", Tla::int(a.unacked))]),
                        )
                    }))
                }),
            ),
            ("waiting", redis(&|r| Tla::Seq(r.waiting.iter().map(waiting).collect()))),
            ("sentinel", sentinel),
            ("phase", client(|c| tla::phase(c.script.phase))),
            ("left", client(|c| Tla::int(c.script.left))),
            ("primary", client(|c| Tla::int(c.primary as i64))),
            ("value", client(|c| Tla::int(c.value))),
            ("checked", client(|c| Tla::Bool(c.checked))),
            ("acquired", client(|c| Tla::int(c.ghost))),
            ("max_ghost", Tla::int(max_ghost)),
        ])
    }

    /// As the spec writes messages: a grant and a write carry no token
    /// (this family has none), a shipped key is its value or `None`.
    fn tla_msg(&self, msg: &Msg) -> Tla {
        let ty = |t: &str| ("type", Tla::str(t));
        let key = |k: &Option<Key>| Tla::or_none(*k, |k| Tla::int(k.value));
        match msg {
            Msg::Granted { ghost, value, .. } => {
                Tla::rec([ty("Granted"), ("ghost", Tla::int(*ghost)), ("value", Tla::int(*value))])
            }
            Msg::Resource(ResourceMsg::Write { ghost, .. }) => Tla::rec([ty("Write"), ("ghost", Tla::int(*ghost))]),
            Msg::Replicate { key: k, px } => Tla::rec([ty("Replicate"), ("key", key(k)), ("px", Tla::int(*px))]),
            Msg::FullSync { key: k, px } => Tla::rec([ty("FullSync"), ("key", key(k)), ("px", Tla::int(*px))]),
            other => Tla::message(&serde_json::to_value(other).unwrap_or(serde_json::Value::Null)),
        }
    }

    /// `WaitTimeout` per client is the spec's `WaitTimer(c)`, a name.
    fn tla_timer(&self, timer: &Timer) -> Tla {
        match timer {
            Timer::WaitTimeout { client } => Tla::Str(format!("WaitTimeout{client}")),
            other => Tla::Str(format!("{other:?}")),
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
/// clients; only a replica applies a replication stream.
fn redis_receive(p: &Params, ctx: &Ctx<'_, Node>, r: &mut Redis, src: Id, msg: Msg, out: &mut Out<Node>) {
    let wait = p.replication == Replication::Wait;
    match (r.standing, msg) {
        (Standing::Primary, Msg::SetNxPx { value }) => {
            // A client that sends a new command has given up a WAIT still
            // blocked for it (it timed out or restarted, and closed that
            // connection): Redis drops the blocked client.
            if let Some(at) = r.waiting.iter().position(|w| w.client == src) {
                r.waiting.remove(at);
                out.cancel_timer(Timer::WaitTimeout { client: src });
            }
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
                if p.wait_timeout > 0 {
                    out.set_timer(Timer::WaitTimeout { client: src }, p.wait_timeout);
                }
                let w = Waiting {
                    client: src,
                    value,
                    shipment: [0; MAX_REPLICAS as usize + 1],
                    acked: 0,
                };
                let at = r.waiting.partition_point(|x| x.client < src);
                r.waiting.insert(at, w);
            } else {
                let ghost = out.next_ghost();
                out.send(src, Msg::Granted { token: 0, ghost, value });
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
        // A replica attaches (or attaches again): the dataset replaces its
        // backlog, and its acknowledgement covers every write so far.
        (Standing::Primary, Msg::Sync) => {
            let a = Attached {
                id: src,
                unshipped: false,
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
            let (key, px) = dataset(ctx, r);
            out.send(src, Msg::FullSync { key, px });
        }
        // A replica's oldest shipment is acknowledged: WAIT returns for the
        // writes that now have k acknowledgements.
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
            for w in r.waiting.iter().filter(|w| w.acks() >= p.wait_replicas) {
                out.cancel_timer(Timer::WaitTimeout { client: w.client });
                let ghost = out.next_ghost();
                let value = w.value;
                out.send(w.client, Msg::Granted { token: 0, ghost, value });
            }
            r.waiting.retain(|w| w.acks() < p.wait_replicas);
        }
        (Standing::Streaming { primary }, Msg::Replicate { key, px }) if primary == src => {
            apply(ctx, r, key, px, out);
            if wait {
                out.send(src, Msg::Ack);
            }
        }
        // REPLCONF ACK from an attached replica: it is good for max_lag.
        (Standing::Primary, Msg::Heartbeat) if r.replicas.iter().any(|a| a.id == src) => {
            out.set_timer(Timer::Lag { replica: src }, p.max_lag);
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

/// The Sentinel's configuration epoch: with one Sentinel every epoch it
/// reaches is a failover's, so its current epoch is its configuration's
/// whenever it monitors.
fn config_epoch(p: &Params, s: &Sentinel) -> u32 {
    if p.sentinels == 1 {
        s.epoch
    } else {
        s.config
    }
}

/// Several Sentinels: its down-after timer fired. Monitoring, the primary
/// is subjectively down (+sdown): it tells the others, and fails over if
/// enough of them agree. Voting, it was not elected in time
/// (-failover-abort-not-elected); promoting, the replica did not take
/// over in time: it tries again in a newer epoch while the primary is
/// still objectively down.
fn sentinel_timeout(node: &Node, me: Id, s: &mut Sentinel, out: &mut Out<Node>) {
    let p = node.params();
    if s.failover == Failover::Monitoring && !s.sdown {
        s.sdown = true;
        for other in p.sentinels().filter(|&o| o != me) {
            out.send(other, Msg::SDown { down: true });
        }
    }
    s.failover = Failover::Monitoring;
    try_failover(node, me, s, out);
}

/// +odown: this Sentinel and at least `quorum - 1` others see the primary
/// down. It then starts a failover in a new epoch (+new-epoch,
/// +try-failover), votes for itself and asks every other Sentinel for its
/// vote (sentinel.c's `sentinelStartFailover`,
/// `sentinelAskMasterStateToOtherSentinels`). Sentinel's new epoch is its
/// current epoch plus one, which may equal another Sentinel's; here it is
/// drawn above every epoch present (`Out::fresh_value`), so that epochs
/// can be renumbered by rank. What that leaves out: two Sentinels starting
/// a failover in the same epoch and splitting its votes, which only
/// delays a failover.
fn try_failover(node: &Node, me: Id, s: &mut Sentinel, out: &mut Out<Node>) {
    let p = node.params();
    let agree = 1 + s.down.count_ones();
    if s.failover != Failover::Monitoring || !s.sdown || agree < u32::from(p.quorum) {
        return;
    }
    s.epoch = out.fresh_value();
    s.voted = s.epoch;
    s.leader = me;
    s.failover = Failover::Voting { votes: p.bit(me) };
    for other in p.sentinels().filter(|&o| o != me) {
        out.send(other, Msg::VoteRequest { epoch: s.epoch });
    }
    out.set_timer(Timer::DownAfter, p.down_after);
    elected(node, s, out);
}

/// +elected-leader: a majority (and the quorum) voted for it in this epoch.
fn elected(node: &Node, s: &mut Sentinel, out: &mut Out<Node>) {
    if let Failover::Voting { votes } = s.failover {
        if votes.count_ones() >= node.params().votes_needed() {
            s.failover = Failover::Electing;
            out.cancel_timer(Timer::DownAfter);
        }
    }
}

fn sentinel_receive(node: &Node, me: Id, s: &mut Sentinel, src: Id, msg: Msg, out: &mut Out<Node>) {
    let p = node.params();
    let several = p.sentinels > 1;
    match (s.failover, msg) {
        // The configured primary is alive: down-after starts over, and a
        // Sentinel that saw it down tells the others it is back (-sdown).
        (failover, Msg::Ping { .. }) if src == s.primary && (several || failover == Failover::Monitoring) => {
            if failover == Failover::Monitoring {
                out.set_timer(Timer::DownAfter, p.down_after);
            }
            if s.sdown {
                s.sdown = false;
                for other in p.sentinels().filter(|&o| o != me) {
                    out.send(other, Msg::SDown { down: false });
                }
            }
        }
        // A primary of an older configuration epoch is back (it was paused
        // or cut off through the failover): it is stale, and follows the
        // primary of the current configuration (+convert-to-slave).
        (Failover::Monitoring, Msg::Ping { epoch }) if src != s.primary && epoch < config_epoch(p, s) => {
            out.send(src, Msg::ReplicaOf { primary: s.primary })
        }
        // The selected replica took over in this epoch: switch clients and
        // the other replicas to it, and monitor it. The failed primary is
        // down; it is told when it reports back. The other Sentinels learn
        // the new configuration from the leader's hello messages.
        (Failover::Promoting { replica }, Msg::Promoted { epoch }) if src == replica && epoch == s.epoch => {
            let failed = s.primary;
            s.primary = replica;
            s.failover = Failover::Monitoring;
            if p.monitors(s.epoch) {
                out.set_timer(Timer::DownAfter, p.down_after);
            }
            for c in node.clients() {
                out.send(c, Msg::NewPrimary { id: replica });
            }
            let told = |r: Id| r != replica && (r != failed || s.returned & (1 << r) != 0);
            for r in p.redis_nodes().filter(|&r| told(r)) {
                out.send(r, Msg::ReplicaOf { primary: replica });
            }
            s.returned = 0;
            if several {
                s.config = s.epoch;
                s.sdown = false;
                s.down = 0;
                for other in p.sentinels().filter(|&o| o != me) {
                    out.send(
                        other,
                        Msg::Config {
                            epoch: s.epoch,
                            primary: replica,
                        },
                    );
                }
            }
        }
        // A former primary restarted: it follows the configured primary.
        // While that is itself, or a failover runs, the switch tells it.
        (Failover::Monitoring, Msg::Restarted) if src != s.primary => {
            out.send(src, Msg::ReplicaOf { primary: s.primary })
        }
        (_, Msg::Restarted) => s.returned |= 1 << src,
        // Another Sentinel's view of the primary.
        (_, Msg::SDown { down }) => {
            if down {
                s.down |= p.bit(src);
            } else {
                s.down &= !p.bit(src);
            }
            try_failover(node, me, s, out);
        }
        // A vote request: the first Sentinel to ask in an epoch newer than
        // any it voted in gets its vote (sentinel.c's
        // `sentinelVoteLeader`); the answer names whom it voted for.
        (_, Msg::VoteRequest { epoch }) => {
            s.epoch = s.epoch.max(epoch);
            if s.voted < epoch {
                s.voted = epoch;
                s.leader = src;
            }
            out.send(
                src,
                Msg::Vote {
                    epoch: s.voted,
                    leader: s.leader,
                },
            );
        }
        (Failover::Voting { votes }, Msg::Vote { epoch, leader }) if epoch == s.epoch && leader == me => {
            s.failover = Failover::Voting {
                votes: votes | p.bit(src),
            };
            elected(node, s, out);
        }
        // A newer configuration: follow its primary, and give up any
        // failover of an older epoch.
        (_, Msg::Config { epoch, primary }) if epoch > s.config => {
            s.config = epoch;
            s.epoch = s.epoch.max(epoch);
            s.primary = primary;
            s.failover = Failover::Monitoring;
            s.sdown = false;
            s.down = 0;
            s.returned = 0;
            if p.monitors(epoch) {
                out.set_timer(Timer::DownAfter, p.down_after);
            } else {
                out.cancel_timer(Timer::DownAfter);
            }
        }
        _ => {}
    }
}

fn client_receive(p: &Params, ctx: &Ctx<'_, Node>, c: &mut Client, src: Id, msg: Msg, out: &mut Out<Node>) {
    let value = c.value;
    match (c.script.phase, msg) {
        // Sentinel names a new primary: reconnect, and re-send what the
        // old connection left unanswered (its request timeout runs on).
        (phase, Msg::NewPrimary { id }) if id != c.primary => {
            c.primary = id;
            match phase {
                Phase::Acquiring => out.send(id, Msg::SetNxPx { value }),
                Phase::Releasing => out.send(id, Msg::CompareAndDelete { value }),
                _ => {}
            }
        }
        // Release: the write is answered, so the critical section is over.
        (Phase::Writing, Msg::Resource(ResourceMsg::Accepted | ResourceMsg::Rejected)) => {
            out.send(c.primary, Msg::CompareAndDelete { value });
            out.set_timer(Timer::Timeout, p.timeout);
            c.script.phase = Phase::Releasing;
        }
        // Redis's answers count only on the connection to the current
        // primary, and only for the current request.
        _ if src != c.primary => {}
        (Phase::Acquiring, Msg::Granted { ghost, value: v, .. }) if v == value => {
            out.cancel_timer(Timer::Timeout);
            if p.client == ClientKind::Validity {
                // Validity = ttl - (time since the SET was sent) - drift.
                out.stop_watch(Elapsed);
                let Some(validity) = validity_left(p.ttl, ctx.elapsed(Elapsed), p.drift) else {
                    give_up(p, c, out);
                    return;
                };
                out.set_timer(Timer::Validity, validity);
            }
            c.script.phase = Phase::Holding;
            c.ghost = ghost;
        }
        (Phase::Acquiring, Msg::Refused { value: v } | Msg::NoReplicas { value: v }) if v == value => {
            out.cancel_timer(Timer::Timeout);
            retry_later(p, c, out);
        }
        // The key is set but not replicated: delete it, and ask again.
        (Phase::Acquiring, Msg::WaitTimedOut { value: v }) if v == value => {
            out.cancel_timer(Timer::Timeout);
            out.send(c.primary, Msg::CompareAndDelete { value });
            retry_later(p, c, out);
        }
        // A release refused for want of good replicas leaves the key to
        // its TTL.
        (Phase::Releasing, Msg::Released { value: v } | Msg::NoReplicas { value: v }) if v == value => {
            out.cancel_timer(Timer::Timeout);
            c.value = 0;
            c.checked = false;
            c.script.released(p.acquisitions);
        }
        _ => {}
    }
}

/// The attempt failed: want the lock again, after the back-off.
fn retry_later(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    if p.client == ClientKind::Validity {
        out.stop_watch(Elapsed);
    }
    c.value = 0;
    c.checked = false;
    c.script.phase = Phase::Want;
    out.set_timer(Timer::Retry, p.retry);
}

/// Validity client: the lock came too late or ran out before its check.
/// Delete the key (compare-and-delete, not waiting for the answer), and
/// ask again later.
fn give_up(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    out.send(c.primary, Msg::CompareAndDelete { value: c.value });
    out.cancel_timer(Timer::Validity);
    retry_later(p, c, out);
}

impl Lock for Node {
    /// A naive client believes it holds the lock from the grant until it
    /// has written and released. A validity client believes it while its
    /// validity timer is above zero and, once it has checked that timer,
    /// until it has written and released; until it has passed its check
    /// it may not use the lock, and still wants it (docs/design.md §5).
    fn lock_view(world: &World<Self>, state: &WorldState<Self>) -> LockView {
        let mut v = LockView::default();
        for (i, n) in state.nodes.iter().enumerate() {
            let State::Client(c) = &n.state else { continue };
            let valid = n.timer(Timer::Validity).is_some_and(|t| t > 0);
            let (holds, wants) = c.script.lease_belief(world.actors[i].validity(), c.checked, valid);
            v.holding |= u64::from(holds) << i;
            v.wanting |= u64::from(wants) << i;
        }
        v
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

#[cfg(test)]
mod tests {
    use std::collections::{HashSet, VecDeque};
    use std::path::Path;

    use super::*;
    use crate::catalog::parse;
    use crate::check::{check, Counterexample, Options};
    use crate::properties::Prop;
    use crate::scenario::Verdict;
    use crate::world::Action;

    const ASYNC: &str = include_str!("../../scenarios/replica-failover-async.toml");
    const WAIT: &str = include_str!("../../scenarios/replica-failover-wait.toml");

    /// Node ids with one replica.
    const REPLICA: Id = 1;
    const SENTINEL: Id = 2;
    const FIRST_CLIENT: Id = 3;

    fn scenario(text: &str) -> Scenario {
        parse(Path::new("x.toml"), text).expect("a valid scenario")
    }

    /// The bundled scenario `text` with `[system]` lines replaced.
    fn variant(text: &str, replace: &[(&str, &str)]) -> Scenario {
        let mut t = text.to_string();
        for (old, new) in replace {
            assert!(t.contains(old), "{old}");
            t = t.replace(old, new);
        }
        scenario(&t)
    }

    /// Every state reachable in `w`.
    fn reachable(w: &World<Node>) -> Vec<WorldState<Node>> {
        let init = w.init();
        let mut seen = HashSet::from([init.clone()]);
        let mut queue = VecDeque::from([init]);
        let mut out = Vec::new();
        let mut actions = Vec::new();
        while let Some(s) = queue.pop_front() {
            w.enabled(&s, &mut actions);
            for a in actions.drain(..) {
                if let Some(t) = w.after(&s, &a) {
                    if seen.insert(t.clone()) {
                        queue.push_back(t);
                    }
                }
            }
            out.push(s);
        }
        out
    }

    /// Three Sentinels with a quorum of 2, the primary cut off from two of
    /// them and nothing else failing: a breadth-first search of the runs
    /// that start with those two cuts (and never heal) reaches two
    /// holders, one granted by the old primary and one by the replica that
    /// the majority's leader promoted. (The whole space of two partitions
    /// anywhere is too large for a test.)
    #[test]
    fn three_sentinels_fail_over_a_primary_cut_from_a_quorum_and_two_clients_hold() {
        let sc = scenario(
            "summary = \"x\"\nalgorithm = \"primary-replica\"\n[system]\nclients = 2\nttl = 7\nsentinels = 3\nquorum = 2\nlag = false\nping = 1\ndown_after = 2\n[faults]\npartitions = 2\nmax_delay = 0\n[bounds]\nacquisitions = 1\n",
        );
        let w = world(&sc).expect("builds");
        let (s1, s2) = (2, 3);
        let cuts = [
            Action::Partition { a: PRIMARY, b: s1 },
            Action::Partition { a: PRIMARY, b: s2 },
        ];
        let init = w.init();
        let mut seen = HashSet::from([init.clone()]);
        let mut queue = VecDeque::from([init]);
        let mut actions = Vec::new();
        let mut found = None;
        while let Some(s) = queue.pop_front() {
            if Node::lock_view(&w, &s).holding.count_ones() >= 2 {
                found = Some(s);
                break;
            }
            w.enabled(&s, &mut actions);
            for a in actions.drain(..) {
                let allowed = match &a {
                    Action::Partition { .. } => cuts.contains(&a),
                    Action::Heal => false,
                    _ => s.spent.partitions == 2,
                };
                if let Some(t) = allowed.then(|| w.after(&s, &a)).flatten() {
                    if seen.insert(t.clone()) {
                        queue.push_back(t);
                    }
                }
            }
        }
        let s = found.expect("two holders are reachable");
        // The replica was promoted by a Sentinel elected in a new epoch,
        // while the old primary still acts as one.
        let State::Redis(old) = &s.nodes[PRIMARY].state else {
            panic!()
        };
        let State::Redis(new) = &s.nodes[1].state else { panic!() };
        assert_eq!((old.standing, new.standing), (Standing::Primary, Standing::Primary));
        assert!(new.epoch > 0);
    }

    fn mutual_exclusion_trace(sc: &Scenario) -> Counterexample<Node> {
        let outcome = check(&world(sc).expect("builds"), &Options::default());
        let me = outcome.get(Prop::MutualExclusion);
        assert_eq!(me.verdict, Verdict::Violated);
        me.trace.clone().expect("a violation has a trace")
    }

    #[test]
    fn without_faults_every_property_holds_and_no_failover_happens() {
        for text in [ASYNC, WAIT] {
            let sc = variant(text, &[("crashes = 1", "crashes = 0")]);
            let w = world(&sc).expect("builds");
            let outcome = check(&w, &Options::default());
            for p in Prop::ALL {
                assert_eq!(outcome.get(p).verdict, Verdict::Holds, "{}", p.name());
            }
            let states = reachable(&w);
            assert_eq!(states.len(), outcome.unique_states);
            for s in &states {
                let initial = Sentinel {
                    epoch: 0,
                    primary: PRIMARY,
                    failover: Failover::Monitoring,
                    returned: 0,
                    sdown: false,
                    down: 0,
                    voted: 0,
                    leader: 0,
                    config: 0,
                };
                assert_eq!(s.nodes[SENTINEL].state, State::Sentinel(initial));
            }
        }
    }

    /// The shortest two holders of the async scenario: the primary grants,
    /// crashes with the key unshipped, and the promoted replica grants again.
    #[test]
    fn async_two_holders_come_from_a_crash_before_replicate() {
        let sc = scenario(ASYNC);
        let w = world(&sc).expect("builds");
        let trace = mutual_exclusion_trace(&sc);
        let mut s = w.init();
        let mut crashed_unshipped = false;
        let mut promoted = false;
        for a in &trace.prefix {
            if *a == (Action::Crash { node: PRIMARY }) {
                let State::Redis(r) = &s.nodes[PRIMARY].state else {
                    unreachable!()
                };
                assert!(
                    r.replicas[0].unshipped && r.key.is_some(),
                    "the granted key is not yet replicated"
                );
                crashed_unshipped = true;
            }
            assert_ne!(
                *a,
                Action::Step {
                    node: PRIMARY,
                    step: Step::Replicate
                },
                "the primary never ships the key"
            );
            s = w.after(&s, a).expect("the trace replays");
            if let State::Redis(r) = &s.nodes[REPLICA].state {
                promoted |= r.standing == Standing::Primary;
            }
        }
        assert!(crashed_unshipped && promoted);
        let last = trace.prefix.last().expect("a trace has steps");
        assert!(
            matches!(
                last,
                Action::Deliver {
                    src: REPLICA,
                    msg: Msg::Granted { .. },
                    ..
                }
            ),
            "{last:?}"
        );
    }

    /// `WAIT 1 0` blocks for ever: after a failover the new primary has no
    /// replica, the key expires under a blocked `WAIT`, a second client sets
    /// it, and one acknowledgement releases both.
    #[test]
    fn wait_without_a_timeout_gives_two_holders_without_losing_a_write() {
        let sc = variant(WAIT, &[("wait_timeout = 3", "wait_timeout = 0")]);
        let trace = mutual_exclusion_trace(&sc);
        let fired = |node, timer| trace.prefix.contains(&Action::Fire { node, timer });
        assert!(fired(REPLICA, Timer::KeyExpiry), "the key expires under a blocked WAIT");
        let grants: Vec<_> = trace
            .prefix
            .iter()
            .filter(|a| {
                matches!(
                    a,
                    Action::Deliver {
                        src: REPLICA,
                        msg: Msg::Granted { .. },
                        ..
                    }
                )
            })
            .collect();
        assert_eq!(grants.len(), 2, "both holders were answered by the promoted replica");
    }

    #[test]
    fn budgets_and_switches_this_model_cannot_answer_are_rejected() {
        for (old, new) in [
            ("crashes = 1", "crashes = 1\nclock_jumps = 1\nmax_jump = 1"),
            ("crashes = 1", "crashes = 1\nmax_drift = 1"),
            ("replication = \"async\"", "replication = \"async\"\nwait_replicas = 1"),
            ("replication = \"async\"", "replication = \"wait\"\nwait_replicas = 2"),
            ("replication = \"async\"", "replicas = 4"),
            ("max_delay = 1", "max_delay = 1\nloss = true"),
            ("replication = \"async\"", "replication = \"async\"\nwait_timeout = 3"),
            ("replication = \"async\"", "replication = \"async\"\ndrift = 1"),
            ("replication = \"async\"", "replication = \"async\"\nmargin = 1"),
            ("replication = \"async\"", "replication = \"async\"\nclient = \"wise\""),
        ] {
            let text = ASYNC.replace(old, new);
            assert!(parse(Path::new("x.toml"), &text).is_err(), "{new}");
        }
        let clients_only = ASYNC
            .replace("crashes = 1", "crashes = 1\nmax_drift = 1")
            .replace("\"servers\"", "\"clients\"");
        assert!(parse(Path::new("x.toml"), &clients_only).is_ok());
        // Repeated failovers: any number of crashes and pauses.
        let two = ASYNC.replace("crashes = 1", "crashes = 2\npauses = 1\nmax_pause = 4");
        assert!(parse(Path::new("x.toml"), &two).is_ok());
    }

    fn step(w: &World<Node>, s: &WorldState<Node>, a: Action<Node>) -> WorldState<Node> {
        assert!(w.is_enabled(s, &a), "{a:?}");
        w.after(s, &a).expect("changes the state")
    }

    /// Redis 7 replicates `SET PX` as an absolute `PXAT`: a shipment that
    /// spent a tick in flight arms the replica's timer one tick shorter, so
    /// both keys expire at the same real moment.
    #[test]
    fn the_replica_key_expires_when_the_primary_key_does() {
        let w = world(&scenario(ASYNC)).expect("builds");
        let c1 = FIRST_CLIENT;
        let mut s = w.init();
        s = step(
            &w,
            &s,
            Action::Step {
                node: c1,
                step: Step::Acquire,
            },
        );
        let set = Msg::SetNxPx { value: 1 };
        s = step(
            &w,
            &s,
            Action::Deliver {
                src: c1,
                dst: PRIMARY,
                msg: set,
            },
        );
        s = step(
            &w,
            &s,
            Action::Step {
                node: PRIMARY,
                step: Step::Replicate,
            },
        );
        s = step(&w, &s, Action::Tick);
        let px = Msg::Replicate {
            key: Some(Key { value: 1 }),
            px: 7,
        };
        s = step(
            &w,
            &s,
            Action::Deliver {
                src: PRIMARY,
                dst: REPLICA,
                msg: px,
            },
        );
        let expiry = |n: Id| s.nodes[n].timer(Timer::KeyExpiry);
        assert_eq!(expiry(PRIMARY), Some(6));
        assert_eq!(expiry(REPLICA), expiry(PRIMARY));
    }

    /// A validity client reaches every branch of its lifetime: it checks
    /// and writes, it gives a grant up at once when no validity is left,
    /// and it gives the lock up when its check finds too little left.
    #[test]
    fn a_validity_client_checks_before_it_writes() {
        let sc = scenario(include_str!("../../specs/replica-validity-pause.toml"));
        let w = world(&sc).expect("builds");
        let states = reachable(&w);
        let c1 = FIRST_CLIENT;
        let client = |s: &WorldState<Node>| match &s.nodes[c1].state {
            State::Client(c) => *c,
            _ => unreachable!(),
        };
        // Writing only after a successful check.
        for s in &states {
            let c = client(s);
            if c.script.phase == Phase::Writing {
                assert!(c.checked);
            }
        }
        // Given up: back to wanting, with its compare-and-delete in flight.
        let gave_up = |s: &WorldState<Node>| {
            client(s).script.phase == Phase::Want
                && s.net
                    .iter()
                    .any(|e| e.src == c1 && matches!(e.msg, Msg::CompareAndDelete { .. }))
        };
        assert!(states.iter().any(gave_up));
        assert!(states.iter().any(|s| client(s).checked));
    }

    /// Applies the first enabled action that `pick` accepts.
    fn go(w: &World<Node>, s: &mut WorldState<Node>, pick: impl Fn(&Action<Node>) -> bool) {
        let mut actions = Vec::new();
        w.enabled(s, &mut actions);
        let a = actions
            .into_iter()
            .find(|a| pick(a))
            .unwrap_or_else(|| panic!("no such action enabled in {s:?}"));
        *s = w.after(s, &a).expect("changes the state");
    }

    fn deliver(w: &World<Node>, s: &mut WorldState<Node>, from: Id, to: Id) {
        go(
            w,
            s,
            |a| matches!(a, Action::Deliver { src, dst, .. } if *src == from && *dst == to),
        );
    }

    fn holders(w: &World<Node>, s: &WorldState<Node>) -> u32 {
        Node::lock_view(w, s).holding.count_ones()
    }

    /// `WAIT 1` of two replicas: the first replica acknowledges and the
    /// primary grants; it crashes before shipping to the second, which
    /// Sentinel promotes. The lock it granted is gone: two holders, the
    /// second granted once the other replica has resynchronised from the
    /// new primary and acknowledged (its `WAIT 1` counts it).
    #[test]
    fn wait_one_of_two_loses_the_lock_when_the_other_replica_is_promoted() {
        let text = WAIT.replace(
            "replication = \"wait\"",
            "replicas = 2\nreplication = \"wait\"\nwait_replicas = 1",
        );
        let w = world(&scenario(&text)).expect("builds");
        let (p, r1, r2, sentinel, c1, c2) = (PRIMARY, 1, 2, 3, 4, 5);
        let mut s = w.init();
        let tick = |s: &mut WorldState<Node>| go(&w, s, |a| *a == Action::Tick);
        tick(&mut s);
        go(&w, &mut s, |a| {
            *a == Action::Fire {
                node: p,
                timer: Timer::Ping,
            }
        });
        tick(&mut s);
        deliver(&w, &mut s, p, sentinel);
        // t = 2: down-after runs from here. c1 is granted after one ack.
        go(&w, &mut s, |a| {
            *a == Action::Step {
                node: c1,
                step: Step::Acquire,
            }
        });
        deliver(&w, &mut s, c1, p);
        go(&w, &mut s, |a| {
            *a == Action::Step {
                node: p,
                step: Step::Replicate,
            }
        });
        deliver(&w, &mut s, p, r1);
        deliver(&w, &mut s, r1, p);
        go(&w, &mut s, |a| *a == Action::Crash { node: p });
        go(&w, &mut s, |a| {
            *a == Action::Step {
                node: c2,
                step: Step::Acquire,
            }
        });
        tick(&mut s);
        deliver(&w, &mut s, p, c1);
        go(&w, &mut s, |a| {
            *a == Action::Step {
                node: c1,
                step: Step::Write,
            }
        });
        tick(&mut s);
        deliver(&w, &mut s, c1, w.actors.len() - 1);
        tick(&mut s);
        // t = 5: c1's write is answered but the answer is still in flight.
        go(&w, &mut s, |a| {
            *a == Action::Fire {
                node: sentinel,
                timer: Timer::DownAfter,
            }
        });
        go(&w, &mut s, |a| {
            *a == Action::Step {
                node: sentinel,
                step: Step::SelectReplica { replica: r2 },
            }
        });
        deliver(&w, &mut s, sentinel, r2);
        deliver(&w, &mut s, r2, sentinel);
        deliver(&w, &mut s, sentinel, c2);
        deliver(&w, &mut s, c2, r2);
        deliver(&w, &mut s, sentinel, r1);
        deliver(&w, &mut s, r1, r2);
        deliver(&w, &mut s, r2, r1);
        deliver(&w, &mut s, r1, r2);
        assert_eq!(holders(&w, &s), 1);
        deliver(&w, &mut s, r2, c2);
        assert_eq!(holders(&w, &s), 2, "c1 still writes, c2 holds");
        let State::Sentinel(st) = s.nodes[sentinel].state else {
            unreachable!()
        };
        assert_eq!((st.epoch, st.primary), (1, r2));
    }

    /// A primary paused through a failover comes back stale: it still
    /// answers a `SET` queued while it was paused (two holders, as Redis's
    /// old primary accepts writes until it is reconfigured), and its first
    /// `Ping` carries the older configuration epoch, so the Sentinel tells
    /// it to replicate the new primary, and it resynchronises.
    #[test]
    fn a_stale_primary_answers_until_its_older_epoch_demotes_it() {
        let text = ASYNC.replace("crashes = 1", "pauses = 1\nmax_pause = 3");
        let w = world(&scenario(&text)).expect("builds");
        let (p, r, sentinel, c1, c2) = (PRIMARY, REPLICA, SENTINEL, FIRST_CLIENT, FIRST_CLIENT + 1);
        let mut s = w.init();
        let tick = |s: &mut WorldState<Node>| go(&w, s, |a| *a == Action::Tick);
        go(&w, &mut s, |a| *a == Action::Pause { node: p, ticks: 3 });
        go(&w, &mut s, |a| {
            *a == Action::Step {
                node: c2,
                step: Step::Acquire,
            }
        });
        for _ in 0..3 {
            tick(&mut s);
        }
        // t = 3: down-after fires; the replica takes over in epoch 1.
        go(&w, &mut s, |a| {
            *a == Action::Fire {
                node: sentinel,
                timer: Timer::DownAfter,
            }
        });
        go(&w, &mut s, |a| {
            *a == Action::Step {
                node: sentinel,
                step: Step::SelectReplica { replica: r },
            }
        });
        deliver(&w, &mut s, sentinel, r);
        deliver(&w, &mut s, r, sentinel);
        go(&w, &mut s, |a| {
            *a == Action::Step {
                node: c1,
                step: Step::Acquire,
            }
        });
        deliver(&w, &mut s, sentinel, c1);
        deliver(&w, &mut s, c1, r);
        deliver(&w, &mut s, r, c1);
        assert_eq!(holders(&w, &s), 1);
        // The old primary resumes and answers c2's queued SET before c2
        // hears of the switch.
        deliver(&w, &mut s, c2, p);
        deliver(&w, &mut s, p, c2);
        assert_eq!(holders(&w, &s), 2, "the stale primary granted c2");
        // Its ping carries epoch 0: the Sentinel demotes it.
        go(&w, &mut s, |a| {
            *a == Action::Fire {
                node: p,
                timer: Timer::Ping,
            }
        });
        deliver(&w, &mut s, p, sentinel);
        deliver(&w, &mut s, sentinel, p);
        deliver(&w, &mut s, p, r);
        deliver(&w, &mut s, r, p);
        let State::Redis(old) = &s.nodes[p].state else {
            unreachable!()
        };
        assert_eq!(old.standing, Standing::Streaming { primary: r });
    }
}
