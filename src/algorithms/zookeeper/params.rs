//! The `[system]` parameters of a `zookeeper` scenario: the recipe, the
//! watches, the client, the session, and how they are read and checked.

use super::*;

/// Which recipe the clients follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Recipe {
    /// Locks: every node excludes every other. The default.
    #[default]
    Lock,
    /// Shared Locks: `read-` and `write-` nodes.
    #[word("rwlock")]
    RwLock,
}

/// What a waiting client watches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Watch {
    /// `exists` with a watch on the next lower blocking node. The default.
    #[default]
    Predecessor,
    /// `getChildren` with a watch: every change wakes every waiter.
    All,
}

/// How a client learns that it lost its session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum ClientKind {
    /// Only from the ensemble's answers. The default.
    #[default]
    Naive,
    /// Also from its own clock: SUSPENDED after `suspend_after` ticks
    /// without an answer, as Apache Curator does.
    Curator,
}

/// The `[system]` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    pub clients: u8,
    pub recipe: Recipe,
    /// RwLock: clients `c1..c{readers}` take read locks, the others write locks.
    pub readers: u8,
    pub watch: Watch,
    /// The session timeout, in the ensemble's ticks.
    pub session_timeout: u8,
    /// A client pings every `ping` ticks while it has a session.
    pub ping: u8,
    pub client: ClientKind,
    /// Curator: ticks without an answer after which the connection is SUSPENDED.
    pub suspend_after: u8,
    /// The resource rejects a write whose czxid is lower than one it accepted.
    pub fencing: bool,
    /// Curator's protection prefix: the node's name carries the attempt's
    /// guid, so a client whose `create` was not answered finds its node by
    /// it. Without it, the recipe sends the `create` again.
    pub protection: bool,
    /// The per-request timeout, in the client's ticks.
    pub timeout: u8,
    /// Ticks a client waits before it tries again after losing an attempt.
    pub retry: u8,
    pub acquisitions: u8,
    /// `[system] work`: the most ticks a holder works in its critical
    /// section before it writes (0: it writes at once).
    pub work: u8,
    /// Session slots per client on the ensemble: one, plus one for each
    /// crash the budget allows (a crashed client's session lives on until
    /// it expires, while the restarted client opens a new one).
    pub slots: u8,
    /// `loss` or `partitions`: the clients' connections can break.
    pub connections: bool,
}

/// The `[system]` keys as a scenario writes them: each field's type says
/// what it allows and what an absent key is (src/scenario/typed.rs). An
/// `Option` is a key allowed only with some other key's value, or whose
/// default depends on other keys (the type's default is then unused).
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Keys {
    clients: Within<1, 4, 2>,
    recipe: Word<Recipe>,
    /// Absent: `clients - 1` with the read-write recipe.
    readers: Option<Within<0, 4, 0>>,
    watch: Word<Watch>,
    session_timeout: Within<2, 30, 6>,
    /// Absent: a third of `session_timeout`.
    ping: Option<Within<1, 29, 1>>,
    client: Word<ClientKind>,
    /// Absent: two thirds of `session_timeout`.
    suspend_after: Option<Within<1, 30, 1>>,
    fencing: Flag<false>,
    protection: Flag<true>,
    timeout: Within<1, 30, 3>,
    retry: Within<1, 10, 1>,
    work: Within<0, 10, 0>,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let k: Keys = sc.system()?;
        let clients = k.clients.get();
        let recipe = k.recipe.get();
        let readers = k.readers.map(Within::get);
        let watch = k.watch.get();
        let session_timeout = k.session_timeout.get();
        let ping = k.ping.map(Within::get);
        let client = k.client.get();
        let suspend_after = k.suspend_after.map(Within::get);
        let fencing = k.fencing.get();
        let protection = k.protection.get();
        let timeout = k.timeout.get();
        let retry = k.retry.get();
        let work = k.work.get();
        let file = sc.path.display();
        let f = &sc.faults;
        if (f.crashes > 0 || f.pauses > 0 || f.clock_jumps > 0 || f.max_drift > 0) && f.targets.hits(Role::Server) {
            return Err(ScenarioError(format!(
                "{file}: [faults] targets = \"{}\" would fault the ensemble, which this model treats as one always-available linearizable server; allowed: targets = \"clients\"",
                match f.targets {
                    crate::world::Targets::All => "all",
                    crate::world::Targets::Servers => "servers",
                    crate::world::Targets::Clients => "clients",
                }
            )));
        }
        // The client library keeps one TCP connection to the ensemble
        // (docs/design.md §2): a loss or a cut breaks it, but it never delivers
        // a message twice or out of order.
        if let Some(key) = [("duplicate", f.duplicate), ("reorder", f.reorder)]
            .iter()
            .find_map(|(key, on)| on.then_some(key))
        {
            return Err(ScenarioError(format!(
                "{file}: [faults] {key} cannot happen to algorithm = \"zookeeper\": a client talks to the ensemble over one TCP connection, which delivers each message once and in order (loss and partitions break the connection instead); allowed: duplicate = false, reorder = false"
            )));
        }
        let readers = match (recipe, readers) {
            (Recipe::Lock, Some(_)) => {
                return Err(ScenarioError(format!(
                    "{file}: [system] readers is used only by the read-write recipe; allowed with recipe = \"rwlock\""
                )))
            }
            (Recipe::Lock, None) => 0,
            (Recipe::RwLock, Some(r)) if r > clients => {
                return Err(ScenarioError(format!(
                    "{file}: [system] readers = {r} is more than clients = {clients}; allowed: 0 to {clients}"
                )))
            }
            (Recipe::RwLock, r) => r.unwrap_or(clients - 1),
        };
        let ping = match ping {
            Some(p) if p >= session_timeout => {
                return Err(ScenarioError(format!(
                "{file}: [system] ping = {p} is not shorter than session_timeout = {session_timeout}; allowed: 1 to {}",
                session_timeout - 1
            )))
            }
            Some(p) => p,
            // The ZooKeeper client pings after a third of the session
            // timeout without traffic (readTimeout / 2).
            None => (session_timeout / 3).max(1),
        };
        let suspend_after = match (client, suspend_after) {
            (ClientKind::Naive, Some(_)) => {
                return Err(ScenarioError(format!(
                    "{file}: [system] suspend_after is used only by a Curator client; allowed with client = \"curator\" (client is \"naive\")"
                )))
            }
            (_, Some(s)) => s,
            // The ZooKeeper client reports Disconnected (Curator: SUSPENDED)
            // after two thirds of the session timeout without an answer.
            (_, None) => (session_timeout * 2 / 3).max(1),
        };
        // A Curator client that declares its session LOST on its own clock
        // opens a new one while the ensemble may still keep the old one
        // (until it expires there): one more slot when a fault can keep
        // the answers from it.
        let lost = client == ClientKind::Curator && (f.loss || f.partitions > 0);
        let slots = 1 + u8::from(lost) + if f.targets.hits(Role::Client) { f.crashes } else { 0 };
        Ok(Params {
            clients,
            recipe,
            readers,
            watch,
            session_timeout,
            ping,
            client,
            suspend_after,
            fencing,
            protection,
            timeout,
            retry,
            acquisitions: sc.acquisitions,
            work,
            slots,
            connections: f.loss || f.partitions > 0,
        })
    }

    pub(super) fn curator(&self) -> bool {
        self.client == ClientKind::Curator
    }

    /// Whether a client's connection can break (a loss or a cut on its
    /// link): only then do deletes take a zxid of their own and listings
    /// carry the zxid, which SetWatches compares. Elsewhere nothing reads
    /// them, and leaving them out keeps those state spaces as they were.
    pub(super) fn connections(&self) -> bool {
        self.connections
    }

    /// The session slots of client `c` on the ensemble.
    pub(super) fn slots_of(&self, c: Id) -> std::ops::Range<usize> {
        let n = self.slots as usize;
        (c - 1) * n..c * n
    }

    pub(super) fn resource(&self) -> Id {
        self.clients as Id + 1
    }
}
