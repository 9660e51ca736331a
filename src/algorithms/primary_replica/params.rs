//! The `[system]` parameters of a `primary-replica` scenario, how they are
//! read and checked, and the node ids they lay out.

use super::PRIMARY;
use crate::algorithms::prelude::*;

/// When the primary answers a granted `SET`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Replication {
    /// At once; the write reaches the replicas later. The default.
    #[default]
    Async,
    /// `SET ...; WAIT k timeout`: once `k` replicas have acknowledged the
    /// write.
    Wait,
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
    /// `wait` only (default false): the client sends `SET` and `WAIT`
    /// together (pipelined), rather than `WAIT` once `SET` has answered
    /// `OK` (as the `WAIT` documentation's example and a plain client do).
    pub pipeline: bool,
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
    /// reaches a replica. `false` ships at once (the older model, without lag).
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
    /// The client's request timeout, on its own clock: a request unanswered for this long has failed.
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

/// The `[system]` keys as a scenario writes them: each field's type says
/// what it allows and what an absent key is (src/scenario/typed.rs). An
/// `Option` is a key the checks below must know was given (it is allowed
/// only with some other key's value), or whose default depends on another
/// key.
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Keys {
    clients: Within<1, 4, 2>,
    replicas: Within<1, MAX_REPLICAS, 1>,
    ttl: Within<1, 30, 7>,
    replication: Word<Replication>,
    wait_replicas: Option<Within<1, MAX_REPLICAS, 1>>,
    wait_timeout: Option<Within<0, 30, 0>>,
    pipeline: Option<Flag<false>>,
    client: Word<ClientKind>,
    drift: Option<Within<0, 10, 1>>,
    margin: Option<Within<0, 10, 2>>,
    sentinels: Within<1, MAX_SENTINELS, 3>,
    /// Absent: a majority of `sentinels` (the type's default is unused).
    quorum: Option<Within<1, MAX_SENTINELS, 1>>,
    min_replicas: Within<0, MAX_REPLICAS, 0>,
    max_lag: Option<Within<1, 30, 2>>,
    lag: Flag<true>,
    auto_restart: Flag<true>,
    ping: Within<1, 10, 1>,
    down_after: Within<1, 30, 3>,
    retry: Within<1, 10, 1>,
    timeout: Within<1, 30, 3>,
    work: Within<0, 10, 0>,
}

impl Params {
    /// Reads `[system]`, and rejects fault budgets this model cannot answer
    /// faithfully: it does not resynchronise a replication link that breaks
    /// without a crash, and its `PXAT` expiry assumes the servers' clocks
    /// agree when a key is shipped.
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let k: Keys = sc.system()?;
        let replicas = k.replicas.get();
        let replication = k.replication.get();
        let wait_replicas = k.wait_replicas.map(Within::get);
        let wait_timeout = k.wait_timeout.map(Within::get);
        let pipeline = k.pipeline.map(Flag::get);
        let client = k.client.get();
        let drift = k.drift.map(Within::get);
        let margin = k.margin.map(Within::get);
        let sentinels = k.sentinels.get();
        let quorum = k.quorum.map(Within::get);
        let min_replicas = k.min_replicas.get();
        let max_lag = k.max_lag.map(Within::get);
        let mut p = Params {
            clients: k.clients.get(),
            replicas,
            ttl: k.ttl.get(),
            replication,
            wait_replicas: k.wait_replicas.unwrap_or_default().get(),
            wait_timeout: k.wait_timeout.unwrap_or_default().get(),
            pipeline: k.pipeline.unwrap_or_default().get(),
            sentinels,
            quorum: quorum.unwrap_or(sentinels / 2 + 1),
            min_replicas,
            max_lag: k.max_lag.unwrap_or_default().get(),
            lag: k.lag.get(),
            auto_restart: k.auto_restart.get(),
            ping: k.ping.get(),
            down_after: k.down_after.get(),
            retry: k.retry.get(),
            timeout: k.timeout.get(),
            client,
            drift: k.drift.unwrap_or_default().get(),
            margin: k.margin.unwrap_or_default().get(),
            acquisitions: sc.acquisitions,
            work: k.work.get(),
            failovers: None,
        };
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
        if let (Replication::Async, Some(v)) = (replication, pipeline) {
            return Err(ScenarioError(format!(
                "{file}: [system] pipeline = {v} says when WAIT is sent, which replication = \"async\" never sends; allowed with replication = \"wait\""
            )));
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
    pub(super) fn redis_nodes(&self) -> std::ops::RangeInclusive<Id> {
        PRIMARY..=self.replicas as Id
    }

    /// The Sentinels' ids.
    pub(super) fn sentinels(&self) -> std::ops::Range<Id> {
        self.replicas as Id + 1..self.first_client()
    }

    /// A Sentinel's bit in a set of Sentinels.
    pub(super) fn bit(&self, sentinel: Id) -> u8 {
        1 << (sentinel - (self.replicas as Id + 1))
    }

    /// The votes a Sentinel needs to lead a failover: a majority of the
    /// Sentinels, and at least the quorum (sentinel.c's
    /// `sentinelGetLeader`).
    pub(super) fn votes_needed(&self) -> u32 {
        u32::from((self.sentinels / 2 + 1).max(self.quorum))
    }

    pub(super) fn first_client(&self) -> Id {
        self.replicas as Id + 1 + self.sentinels as Id
    }
}
