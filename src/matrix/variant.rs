//! The matrix's rows: an algorithm variant's name, derived from the
//! scenario's `algorithm` and its family's parsed `[system]` parameters
//! (defaults applied), so two files that spell the same configuration
//! differently land in the same row. One function per family names the
//! switches that change the algorithm (the command, the release, fencing,
//! the recipe...); sizes and durations (clients, TTL, timeouts) do not make
//! a new row, since a row is read across the fault columns.

use crate::algorithms::{
    client::PauseWindow, coordinator, etcd_lease, lock_table, primary_replica, redlock, ricart_agrawala, single_redis,
    token_ring, zookeeper,
};
use crate::scenario::{Scenario, ScenarioError};

/// A scenario's row, and what its family's switches say about its column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The `algorithm` value: rows sort by family first.
    pub family: String,
    /// The variant's switches in words, "" for a family without any.
    pub name: String,
    /// Whether a crashed server comes back without the locks it granted
    /// (Redis without fsync): such a crash is the column "restart without
    /// persistence", not "crash".
    pub restarts_empty: bool,
    /// When the adversary may pause a client, if not at any moment.
    pub pause_window: Option<&'static str>,
}

/// The row of `sc`. Errors only where the family's own parameters do not
/// load, which `catalog::load` has already ruled out.
pub fn variant(sc: &Scenario) -> Result<Variant, ScenarioError> {
    let (name, restarts_empty, window) = match sc.algorithm.as_str() {
        "single-redis" => single_redis_variant(&single_redis::Params::read(sc)?),
        "redlock" => redlock_variant(&redlock::Params::read(sc)?),
        "lock-table" => lock_table_variant(&lock_table::Params::read(sc)?),
        "primary-replica" => primary_replica_variant(&primary_replica::Params::read(sc)?),
        "zookeeper" => zookeeper_variant(&zookeeper::Params::read(sc)?),
        "etcd-lease" => etcd_variant(&etcd_lease::Params::read(sc)?),
        "coordinator" => coordinator_variant(&coordinator::Params::read(sc)?),
        "ricart-agrawala" => {
            let p = ricart_agrawala::Params::read(sc)?;
            let name = join(&[on(p.replies == ricart_agrawala::Replies::Tagged, "tagged replies")]);
            (name, false, PauseWindow::Any)
        }
        "token-ring" => token_ring_variant(&token_ring::Params::read(sc)?),
        other => {
            return Err(ScenarioError(format!(
                "{}: algorithm = \"{other}\" has no variant names for the matrix",
                sc.path.display()
            )))
        }
    };
    Ok(Variant {
        family: sc.algorithm.clone(),
        name,
        restarts_empty,
        pause_window: match window {
            PauseWindow::Any => None,
            PauseWindow::Acquiring => Some("while acquiring"),
        },
    })
}

/// The switches that are on, in order, joined by commas.
fn join(parts: &[Option<String>]) -> String {
    parts.iter().flatten().cloned().collect::<Vec<_>>().join(", ")
}

fn on(flag: bool, words: &str) -> Option<String> {
    flag.then(|| words.to_string())
}

type Named = (String, bool, PauseWindow);

fn single_redis_variant(p: &single_redis::Params) -> Named {
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
    (name, p.restart == Restart::Empty, PauseWindow::Any)
}

fn redlock_variant(p: &redlock::Params) -> Named {
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
    (name, p.restart != Restart::Fsync, p.pause_window)
}

fn lock_table_variant(p: &lock_table::Params) -> Named {
    let name = join(&[
        Some(if p.expiry { "expiry column" } else { "no expiry" }.into()),
        on(p.client == lock_table::ClientKind::Validity, "validity check"),
    ]);
    // The database is durable: its rows survive its crashes.
    (name, false, p.pause_window)
}

fn primary_replica_variant(p: &primary_replica::Params) -> Named {
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
    (name, false, PauseWindow::Any)
}

fn zookeeper_variant(p: &zookeeper::Params) -> Named {
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
    (name, false, PauseWindow::Any)
}

fn etcd_variant(p: &etcd_lease::Params) -> Named {
    let name = join(&[
        Some("lease lock".into()),
        on(p.client == etcd_lease::ClientKind::Validity, "validity check"),
        on(p.fencing, "revision fencing"),
        on(!p.key_check, "Lock without its own-key check"),
        on(p.unlock == etcd_lease::Unlock::Delete, "plain Delete unlock"),
    ]);
    (name, false, PauseWindow::Any)
}

fn coordinator_variant(p: &coordinator::Params) -> Named {
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
    (name, false, PauseWindow::Any)
}

fn token_ring_variant(p: &token_ring::Params) -> Named {
    let name = join(&[
        Some(if p.rings > 1 { "ring of rings" } else { "single ring" }.into()),
        on(p.regenerate == token_ring::Regenerate::Naive, "naive regeneration"),
    ]);
    (name, false, PauseWindow::Any)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::load;
    use crate::scenario::find;

    fn row(name: &str) -> Variant {
        variant(&load(&find(name).expect("bundled")).expect("loads")).expect("named")
    }

    #[test]
    fn defaults_and_explicit_keys_name_the_same_row() {
        // redis-ttl-no-faults spells `command` out; the default is the same.
        assert_eq!(row("redis-ttl-no-faults").name, "SET NX PX + compare-and-delete");
        assert_eq!(row("redis-cas-release").name, row("redis-ttl-no-faults").name);
    }

    #[test]
    fn switches_name_the_variant() {
        assert_eq!(row("redis-setnx-crash").name, "SETNX + DEL");
        assert_eq!(
            row("redis-crash-fsync").name,
            "SET NX PX + compare-and-delete, fencing token, fsync"
        );
        assert_eq!(row("redlock-gc-pause-fencing").name, "3 masters, fencing counter");
        assert_eq!(row("redlock-delayed-restart").name, "3 masters, delayed restart");
        assert_eq!(row("zk-herd").name, "lock recipe, watch all children");
        assert_eq!(
            row("coordinator-standby-no-state").name,
            "standby without state, restart notice only"
        );
        assert_eq!(
            row("coordinator-standby-crash-stop").name,
            "standby with replicated state"
        );
        assert_eq!(row("etcd-unlock-delete").name, "lease lock, plain Delete unlock");
        assert_eq!(row("ricart-agrawala-loss").name, "");
    }

    #[test]
    fn only_redis_without_fsync_restarts_empty() {
        assert!(row("redis-crash-empty").restarts_empty);
        assert!(!row("redis-crash-fsync").restarts_empty);
        assert!(row("redlock-no-fsync").restarts_empty);
        assert!(row("redlock-delayed-restart").restarts_empty);
        assert!(!row("redlock-fsync").restarts_empty);
        assert!(!row("lock-table-db-crash").restarts_empty);
    }

    #[test]
    fn a_pause_window_is_not_a_variant() {
        let (any, acquiring) = (row("redlock-gc-pause"), row("redlock-pause-during-acquire"));
        assert_eq!(any.name, acquiring.name);
        assert_eq!(
            (any.pause_window, acquiring.pause_window),
            (None, Some("while acquiring"))
        );
    }
}
