//! The matrix's columns: the fault classes a scenario's `[faults]` budget
//! allows, with what its family says about restarts. A scenario whose
//! budget allows several classes is listed under each, marked with the
//! others ("+ pause"), rather than under a "primary" one someone would
//! have to choose: every column then shows every scenario that exercises
//! that fault.

use crate::scenario::Scenario;
use crate::world::{Recovery, Targets};

use super::variant::Variant;

/// One column, in the order the table shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FaultClass {
    None,
    Crash,
    /// A crash of a server that comes back without the locks it granted.
    RestartEmpty,
    Pause,
    ClockJump,
    Drift,
    Partition,
    Loss,
    Duplication,
}

impl FaultClass {
    pub const ALL: [FaultClass; 9] = [
        FaultClass::None,
        FaultClass::Crash,
        FaultClass::RestartEmpty,
        FaultClass::Pause,
        FaultClass::ClockJump,
        FaultClass::Drift,
        FaultClass::Partition,
        FaultClass::Loss,
        FaultClass::Duplication,
    ];

    /// The column's title.
    pub fn title(self) -> &'static str {
        match self {
            FaultClass::None => "none",
            FaultClass::Crash => "crash",
            FaultClass::RestartEmpty => "restart without persistence",
            FaultClass::Pause => "pause",
            FaultClass::ClockJump => "clock jump",
            FaultClass::Drift => "drift",
            FaultClass::Partition => "partition",
            FaultClass::Loss => "loss",
            FaultClass::Duplication => "duplication",
        }
    }
}

/// The columns of `sc`: every class its budget allows, or `None` alone
/// when it allows no fault (reordering and bounded delay are how the
/// network behaves, not faults). A crash is "restart without persistence"
/// when it may hit a server that restarts empty and comes back.
pub fn classes(sc: &Scenario, v: &Variant) -> Vec<FaultClass> {
    let f = &sc.faults;
    let mut out = Vec::new();
    if f.crashes > 0 {
        let server_hit = f.targets != Targets::Clients;
        out.push(if server_hit && v.restarts_empty && f.recovery == Recovery::Eventual {
            FaultClass::RestartEmpty
        } else {
            FaultClass::Crash
        });
    }
    let allowed = [
        (f.pauses > 0, FaultClass::Pause),
        (f.clock_jumps > 0, FaultClass::ClockJump),
        (f.max_drift > 0, FaultClass::Drift),
        (f.partitions > 0, FaultClass::Partition),
        (f.loss, FaultClass::Loss),
        (f.duplicate, FaultClass::Duplication),
    ];
    out.extend(allowed.iter().filter(|(on, _)| *on).map(|(_, c)| *c));
    if out.is_empty() {
        out.push(FaultClass::None);
    }
    out
}

/// The budget of `class` in `sc`, in a few words: how long a pause, who
/// crashes, whether it recovers; then the scenario's other classes
/// ("+ pause"). Empty when there is nothing to say.
pub fn detail(sc: &Scenario, v: &Variant, class: FaultClass) -> String {
    let f = &sc.faults;
    let who = match f.targets {
        Targets::Clients => "clients",
        Targets::Servers => "servers",
        Targets::All => "any node",
    };
    let times = |n: u8, what: &str| {
        if n == 1 {
            format!("1 {what}")
        } else {
            format!("{n} {what}s")
        }
    };
    let never = |what: &str| (f.recovery == Recovery::None).then(|| what.to_string());
    let mut parts: Vec<String> = match class {
        FaultClass::None => Vec::new(),
        FaultClass::Crash | FaultClass::RestartEmpty => [
            Some(format!("{}, {who}", times(f.crashes, "crash"))),
            never("no restart"),
        ]
        .into_iter()
        .flatten()
        .collect(),
        FaultClass::Pause => {
            let len = if f.min_pause == f.max_pause {
                ticks(f.max_pause.into())
            } else {
                format!("{}–{} ticks", f.min_pause, f.max_pause)
            };
            [
                Some(format!("{}, {len}, {who}", times(f.pauses, "pause"))),
                v.pause_window.map(String::from),
            ]
            .into_iter()
            .flatten()
            .collect()
        }
        FaultClass::ClockJump => vec![format!(
            "{}, ≤ {}, {who}",
            times(f.clock_jumps, "jump"),
            ticks(f.max_jump.into())
        )],
        FaultClass::Drift => vec![format!("skew ≤ {}, {who}", ticks(f.max_drift.into()))],
        FaultClass::Partition => [Some(times(f.partitions, "link cut")), never("no heal")]
            .into_iter()
            .flatten()
            .collect(),
        FaultClass::Loss | FaultClass::Duplication => Vec::new(),
    };
    parts.extend(
        classes(sc, v)
            .into_iter()
            .filter(|c| *c != class && *c != FaultClass::None)
            .map(|c| format!("+ {}", c.title())),
    );
    parts.join(", ")
}

/// `n ticks`, or `1 tick`.
fn ticks(n: i64) -> String {
    if n == 1 {
        "1 tick".to_string()
    } else {
        format!("{n} ticks")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::load;
    use crate::matrix::variant::variant;
    use crate::scenario::find;

    fn columns(name: &str) -> (Vec<FaultClass>, Vec<String>) {
        let sc = load(&find(name).expect("bundled")).expect("loads");
        let v = variant(&sc).expect("named");
        let cs = classes(&sc, &v);
        let details = cs.iter().map(|c| detail(&sc, &v, *c)).collect();
        (cs, details)
    }

    #[test]
    fn a_crash_column_follows_persistence_and_targets() {
        assert_eq!(columns("redis-crash-empty").0, [FaultClass::RestartEmpty]);
        assert_eq!(columns("redis-crash-fsync").0, [FaultClass::Crash]);
        // A client's crash loses no lock the server granted.
        assert_eq!(columns("redis-setnx-crash").0, [FaultClass::Crash]);
        assert_eq!(columns("redlock-delayed-restart").0, [FaultClass::RestartEmpty]);
        assert_eq!(
            columns("coordinator-crash"),
            (
                vec![FaultClass::Crash],
                vec!["1 crash, servers, no restart".to_string()]
            )
        );
    }

    #[test]
    fn details_say_the_budget() {
        assert_eq!(
            columns("redlock-gc-pause"),
            (
                vec![FaultClass::Pause],
                vec!["1 pause, 9–10 ticks, clients".to_string()]
            )
        );
        assert_eq!(
            columns("redlock-pause-during-acquire").1,
            ["1 pause, 1–10 ticks, clients, while acquiring"]
        );
        assert_eq!(
            columns("redis-ttl-no-faults"),
            (vec![FaultClass::None], vec![String::new()])
        );
    }
}
