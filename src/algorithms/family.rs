//! The one registry of algorithm families. A family is a type that
//! implements [`Family`]: its name in scenario files, its TLA+ module, its
//! node program, its parameters, its world and its matrix row. The list in
//! [`families!`] is the only place a family is named; the scenario names
//! allowed ([`NAMES`]), dispatch, the matrix rows and the ITF modules all
//! come from it, and a family that lacks a part does not compile.

use crate::properties::Lock;
use crate::scenario::{Scenario, ScenarioError};
use crate::world::World;

use super::client::PauseWindow;
use super::{
    coordinator, etcd_lease, lock_table, primary_replica, redlock, ricart_agrawala, single_redis, token_ring, zookeeper,
};

/// An algorithm family, as the tool knows it.
pub trait Family {
    /// The `algorithm` value scenario files name it by.
    const NAME: &'static str;
    /// Its TLA+ module in `specs/` (`Redlock` for `specs/Redlock.tla`).
    const SPEC: &'static str;
    /// The program of its nodes.
    type Node: Lock;
    /// Its `[system]` parameters, defaults applied.
    type Params;
    /// Reads the scenario's `[system]` table: one sentence naming the file,
    /// the key and what is allowed when a value is not.
    fn params(sc: &Scenario) -> Result<Self::Params, ScenarioError>;
    /// The scenario's world: its nodes under its faults.
    fn world(sc: &Scenario) -> Result<World<Self::Node>, ScenarioError>;
    /// Its matrix row: the switches that make a variant of the algorithm.
    fn row(p: &Self::Params) -> Row;
}

/// What a family's parameters say about its row in the matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The variant's switches in words, "" for a family without any.
    pub name: String,
    /// Whether a crashed server comes back without the locks it granted
    /// (Redis without fsync): such a crash is the column "restart without
    /// persistence", not "crash".
    pub restarts_empty: bool,
    /// When the adversary may pause a client.
    pub pause_window: PauseWindow,
}

/// Work on one family chosen by name at run time ([`with_family`]).
pub trait FamilyJob {
    type Output;
    fn run<F: Family>(self) -> Self::Output;
}

/// The registry: every family, once, in the order of their names.
macro_rules! families {
    ($($family:ty),* $(,)?) => {
        /// The `algorithm` values scenario files may name.
        pub const NAMES: &[&str] = &[$(<$family as Family>::NAME),*];

        /// Runs `job` on the family named `name`; `None` when no family has
        /// that name.
        pub fn with_family<J: FamilyJob>(name: &str, job: J) -> Option<J::Output> {
            $(
                if name == <$family as Family>::NAME {
                    return Some(job.run::<$family>());
                }
            )*
            None
        }
    };
}

families!(
    Coordinator,
    EtcdLease,
    LockTable,
    PrimaryReplica,
    Redlock,
    RicartAgrawala,
    SingleRedis,
    TokenRing,
    ZooKeeper,
);

/// The family of `algorithm = "coordinator"` (specs/Coordinator.tla).
pub struct Coordinator;

impl Family for Coordinator {
    const NAME: &'static str = "coordinator";
    const SPEC: &'static str = "Coordinator";
    type Node = coordinator::Node;
    type Params = coordinator::Params;

    fn params(sc: &Scenario) -> Result<coordinator::Params, ScenarioError> {
        coordinator::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<coordinator::Node>, ScenarioError> {
        coordinator::world(sc)
    }

    fn row(p: &coordinator::Params) -> Row {
        let standby = match p.standby {
            coordinator::Standby::None => "no standby",
            coordinator::Standby::NoState => "standby without state",
            coordinator::Standby::Replicated => "standby with replicated state",
        };
        let name = join(&[
            Some(standby.into()),
            on(
                p.standby != coordinator::Standby::None && p.detector == coordinator::Detector::Restart,
                "restart notice only",
            ),
            on(
                p.client_restart == coordinator::ClientRestart::Notice,
                "client restart notice",
            ),
        ]);
        // The coordinator's queue is in memory, but what its crash costs is
        // decided by the standby: the row says which.
        Row {
            name,
            restarts_empty: false,
            pause_window: PauseWindow::Any,
        }
    }
}

/// The family of `algorithm = "etcd-lease"` (specs/EtcdLease.tla).
pub struct EtcdLease;

impl Family for EtcdLease {
    const NAME: &'static str = "etcd-lease";
    const SPEC: &'static str = "EtcdLease";
    type Node = etcd_lease::Node;
    type Params = etcd_lease::Params;

    fn params(sc: &Scenario) -> Result<etcd_lease::Params, ScenarioError> {
        etcd_lease::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<etcd_lease::Node>, ScenarioError> {
        etcd_lease::world(sc)
    }

    fn row(p: &etcd_lease::Params) -> Row {
        let name = join(&[
            Some("lease lock".into()),
            on(p.client == etcd_lease::ClientKind::Validity, "validity check"),
            on(p.fencing, "revision fencing"),
            on(!p.key_check, "Lock without its own-key check"),
            on(p.unlock == etcd_lease::Unlock::Delete, "plain Delete unlock"),
        ]);
        Row {
            name,
            restarts_empty: false,
            pause_window: PauseWindow::Any,
        }
    }
}

/// The family of `algorithm = "lock-table"` (specs/LockTable.tla).
pub struct LockTable;

impl Family for LockTable {
    const NAME: &'static str = "lock-table";
    const SPEC: &'static str = "LockTable";
    type Node = lock_table::Node;
    type Params = lock_table::Params;

    fn params(sc: &Scenario) -> Result<lock_table::Params, ScenarioError> {
        lock_table::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<lock_table::Node>, ScenarioError> {
        lock_table::world(sc)
    }

    fn row(p: &lock_table::Params) -> Row {
        let name = join(&[
            Some(if p.expiry { "expiry column" } else { "no expiry" }.into()),
            on(p.client == lock_table::ClientKind::Validity, "validity check"),
        ]);
        // The database is durable: its rows survive its crashes.
        Row {
            name,
            restarts_empty: false,
            pause_window: p.pause_window,
        }
    }
}

/// The family of `algorithm = "primary-replica"` (specs/PrimaryReplica.tla).
pub struct PrimaryReplica;

impl Family for PrimaryReplica {
    const NAME: &'static str = "primary-replica";
    const SPEC: &'static str = "PrimaryReplica";
    type Node = primary_replica::Node;
    type Params = primary_replica::Params;

    fn params(sc: &Scenario) -> Result<primary_replica::Params, ScenarioError> {
        primary_replica::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<primary_replica::Node>, ScenarioError> {
        primary_replica::world(sc)
    }

    fn row(p: &primary_replica::Params) -> Row {
        use primary_replica::{ClientKind, Replication};
        let replication = match p.replication {
            Replication::Async => "async replication".to_string(),
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
        Row {
            name,
            restarts_empty: false,
            pause_window: PauseWindow::Any,
        }
    }
}

/// The family of `algorithm = "redlock"` (specs/Redlock.tla).
pub struct Redlock;

impl Family for Redlock {
    const NAME: &'static str = "redlock";
    const SPEC: &'static str = "Redlock";
    type Node = redlock::Node;
    type Params = redlock::Params;

    fn params(sc: &Scenario) -> Result<redlock::Params, ScenarioError> {
        redlock::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<redlock::Node>, ScenarioError> {
        redlock::world(sc)
    }

    fn row(p: &redlock::Params) -> Row {
        use redlock::{Fencing, Restart};
        let name = join(&[
            Some(format!("{} master{}", p.masters, if p.masters == 1 { "" } else { "s" })),
            match p.restart {
                Restart::Empty => None,
                Restart::Fsync => Some("fsync".into()),
                Restart::Delayed => Some("delayed restart".into()),
            },
            match p.fencing {
                Fencing::None => None,
                Fencing::LockValue => Some("lock value as fencing token".into()),
                Fencing::Counter => Some("fencing counter".into()),
            },
            on(p.retry_max == p.retry, "fixed back-off"),
        ]);
        // A delayed restart comes back empty too; it answers nothing until the
        // keys it forgot have expired.
        Row {
            name,
            restarts_empty: p.restart != Restart::Fsync,
            pause_window: p.pause_window,
        }
    }
}

/// The family of `algorithm = "ricart-agrawala"` (specs/RicartAgrawala.tla).
pub struct RicartAgrawala;

impl Family for RicartAgrawala {
    const NAME: &'static str = "ricart-agrawala";
    const SPEC: &'static str = "RicartAgrawala";
    type Node = ricart_agrawala::Node;
    type Params = ricart_agrawala::Params;

    fn params(sc: &Scenario) -> Result<ricart_agrawala::Params, ScenarioError> {
        ricart_agrawala::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<ricart_agrawala::Node>, ScenarioError> {
        ricart_agrawala::world(sc)
    }

    fn row(p: &ricart_agrawala::Params) -> Row {
        let name = join(&[on(p.replies == ricart_agrawala::Replies::Tagged, "tagged replies")]);
        Row {
            name,
            restarts_empty: false,
            pause_window: PauseWindow::Any,
        }
    }
}

/// The family of `algorithm = "single-redis"` (specs/SingleRedis.tla).
pub struct SingleRedis;

impl Family for SingleRedis {
    const NAME: &'static str = "single-redis";
    const SPEC: &'static str = "SingleRedis";
    type Node = single_redis::Node;
    type Params = single_redis::Params;

    fn params(sc: &Scenario) -> Result<single_redis::Params, ScenarioError> {
        single_redis::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<single_redis::Node>, ScenarioError> {
        single_redis::world(sc)
    }

    fn row(p: &single_redis::Params) -> Row {
        use single_redis::{ClientKind, Command, Release, Restart};
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
            name,
            restarts_empty: p.restart == Restart::Empty,
            pause_window: PauseWindow::Any,
        }
    }
}

/// The family of `algorithm = "token-ring"` (specs/TokenRing.tla).
pub struct TokenRing;

impl Family for TokenRing {
    const NAME: &'static str = "token-ring";
    const SPEC: &'static str = "TokenRing";
    type Node = token_ring::Node;
    type Params = token_ring::Params;

    fn params(sc: &Scenario) -> Result<token_ring::Params, ScenarioError> {
        token_ring::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<token_ring::Node>, ScenarioError> {
        token_ring::world(sc)
    }

    fn row(p: &token_ring::Params) -> Row {
        let name = join(&[
            Some(if p.rings > 1 { "ring of rings" } else { "single ring" }.into()),
            on(p.regenerate == token_ring::Regenerate::Naive, "naive regeneration"),
        ]);
        Row {
            name,
            restarts_empty: false,
            pause_window: PauseWindow::Any,
        }
    }
}

/// The family of `algorithm = "zookeeper"` (specs/ZooKeeperLock.tla).
pub struct ZooKeeper;

impl Family for ZooKeeper {
    const NAME: &'static str = "zookeeper";
    const SPEC: &'static str = "ZooKeeperLock";
    type Node = zookeeper::Node;
    type Params = zookeeper::Params;

    fn params(sc: &Scenario) -> Result<zookeeper::Params, ScenarioError> {
        zookeeper::Params::read(sc)
    }

    fn world(sc: &Scenario) -> Result<World<zookeeper::Node>, ScenarioError> {
        zookeeper::world(sc)
    }

    fn row(p: &zookeeper::Params) -> Row {
        use zookeeper::{ClientKind, Recipe, Watch};
        let name = join(&[
            Some(
                match p.recipe {
                    Recipe::Lock => "lock recipe",
                    Recipe::RwLock => "read-write recipe",
                }
                .into(),
            ),
            Some(
                match p.watch {
                    Watch::Predecessor => "watch predecessor",
                    Watch::All => "watch all children",
                }
                .into(),
            ),
            on(p.client == ClientKind::Curator, "Curator SUSPENDED check"),
            on(p.fencing, "zxid fencing"),
            on(!p.protection, "no protection prefix"),
        ]);
        Row {
            name,
            restarts_empty: false,
            pause_window: PauseWindow::Any,
        }
    }
}

/// The TLA+ module of the family named `algorithm`.
pub fn spec_module(algorithm: &str) -> Option<&'static str> {
    struct Spec;
    impl FamilyJob for Spec {
        type Output = &'static str;
        fn run<F: Family>(self) -> &'static str {
            F::SPEC
        }
    }
    with_family(algorithm, Spec)
}

/// The switches that are on, in order, joined by commas (for [`Family::row`]).
pub fn join(parts: &[Option<String>]) -> String {
    parts.iter().flatten().cloned().collect::<Vec<_>>().join(", ")
}

/// `words` when `flag` is on (for [`Family::row`]).
pub fn on(flag: bool, words: &str) -> Option<String> {
    flag.then(|| words.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sorted_and_unique() {
        let mut sorted = NAMES.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, NAMES);
    }

    #[test]
    fn every_family_has_its_spec_in_specs() {
        for name in NAMES {
            let module = spec_module(name).expect("registered");
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("specs/{module}.tla"));
            assert!(path.is_file(), "{name}: no {}", path.display());
        }
        assert_eq!(spec_module("paxos"), None);
    }
}
