//! The matrix's rows: an algorithm variant's name, derived from the
//! scenario's `algorithm` and its family's parsed `[system]` parameters
//! (defaults applied), so two files that spell the same configuration
//! differently land in the same row. Each family names the switches that
//! change the algorithm (`Family::row`: the command, the release, fencing,
//! the recipe...); sizes and durations (clients, TTL, timeouts) do not make
//! a new row, since a row is read across the fault columns.

use crate::algorithms::client::PauseWindow;
use crate::algorithms::{with_family, Family, FamilyJob, Row};
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
    struct RowOf<'a>(&'a Scenario);
    impl FamilyJob for RowOf<'_> {
        type Output = Result<Row, ScenarioError>;
        fn run<F: Family>(self) -> Self::Output {
            Ok(F::row(&F::params(self.0)?))
        }
    }
    let row = with_family(&sc.algorithm, RowOf(sc)).unwrap_or_else(|| {
        Err(ScenarioError(format!(
            "{}: algorithm = \"{}\" has no variant names for the matrix",
            sc.path.display(),
            sc.algorithm
        )))
    })?;
    Ok(Variant {
        family: sc.algorithm.clone(),
        name: row.name,
        restarts_empty: row.restarts_empty,
        pause_window: match row.pause_window {
            PauseWindow::Any => None,
            PauseWindow::Acquiring => Some("while acquiring"),
        },
    })
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
