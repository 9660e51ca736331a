//! The constants a `.cfg` sets for a scenario (docs/design.md §10): how each
//! family's `[system]`, `[faults]` and `[bounds]` keys are written as its
//! spec's CONSTANTS. tests/e2e/specs.rs checks every `.cfg` of specs/README.md's
//! table against them; tests/e2e/itf.rs writes the `.cfg` that validates a
//! trace of any scenario with them.

use std::collections::BTreeMap;

use locksmith::algorithms::{
    client, coordinator, etcd_lease, lock_table, primary_replica, redlock, ricart_agrawala, single_redis, token_ring,
    zookeeper,
};
use locksmith::scenario::Scenario;
use locksmith::world::{Recovery, Targets};

fn quoted(s: &str) -> String {
    format!("\"{s}\"")
}

fn boolean(b: bool) -> String {
    if b { "TRUE" } else { "FALSE" }.to_string()
}

/// The specs that extend `specs/World.tla`: their `.cfg`s set every World
/// constant (every `[faults]` key but `reorder`).
const WORLD_SPECS: [&str; 9] = [
    "SingleRedis.tla",
    "PrimaryReplica.tla",
    "LockTable.tla",
    "Redlock.tla",
    "Coordinator.tla",
    "TokenRing.tla",
    "RicartAgrawala.tla",
    "ZooKeeperLock.tla",
    "EtcdLease.tla",
];

/// The `[faults]` keys (beyond crashes, pauses and delays) that World.tla
/// models: a spec whose handlers take every world action models them all.
const WORLD_FAULTS: [&str; 6] = [
    "min_pause",
    "clock_jumps",
    "max_drift",
    "partitions",
    "loss",
    "duplicate",
];

/// The specs whose ASSUME refuses pauses (every other spec models them).
const PAUSELESS_SPECS: [&str; 3] = ["Coordinator.tla", "TokenRing.tla", "RicartAgrawala.tla"];

/// The spec that models the scenario's algorithm and the constants that
/// mirror its `[system]`, `[faults]` and `[bounds]` tables; an error when
/// no `.cfg` can mirror the scenario: it turns on a fault its spec does not
/// model, or symmetry reduction.
pub fn expected_constants(sc: &Scenario) -> Result<(&'static str, BTreeMap<String, String>), String> {
    let f = &sc.faults;
    let file = sc.path.display();
    let mut c: BTreeMap<String, String> = BTreeMap::new();
    let mut set = |k: &str, v: String| c.insert(k.to_string(), v);
    set("Acquisitions", sc.acquisitions.to_string());
    set("MaxDelay", f.max_delay.map_or("Async".to_string(), |d| d.to_string()));
    set("Crashes", f.crashes.to_string());
    set("Pauses", f.pauses.to_string());
    set("MaxPause", f.max_pause.to_string());
    let targets = match f.targets {
        Targets::All => "all",
        Targets::Clients => "clients",
        Targets::Servers => "servers",
    };
    set("Targets", quoted(targets));
    set("None", "None".to_string());
    // The [faults] keys beyond those above that each spec models.
    let (spec, modelled): (&'static str, &[&str]) = match sc.algorithm.as_str() {
        "single-redis" => {
            let p = single_redis::Params::read(sc).map_err(|e| e.to_string())?;
            let command = match p.command {
                single_redis::Command::Setnx => "setnx",
                single_redis::Command::SetnxExpire => "setnx-expire",
                single_redis::Command::SetNxPx => "set-nx-px",
            };
            let release = match p.release {
                single_redis::Release::Del => "del",
                single_redis::Release::CompareAndDelete => "compare-and-delete",
            };
            let restart = match p.restart {
                single_redis::Restart::Empty => "empty",
                single_redis::Restart::Fsync => "fsync",
            };
            set("Clients", p.clients.to_string());
            set("Ttl", p.ttl.to_string());
            set("Command", quoted(command));
            set("ReleaseCommand", quoted(release));
            set("Watchdog", boolean(p.watchdog));
            set("Fencing", boolean(p.fencing));
            set("Retry", p.retry.to_string());
            set("RestartMode", quoted(restart));
            let client = match p.client {
                single_redis::ClientKind::Naive => "naive",
                single_redis::ClientKind::Validity => "validity",
            };
            set("Timeout", p.timeout.to_string());
            set("Client", quoted(client));
            set("Drift", p.drift.to_string());
            set("Margin", p.margin.to_string());
            ("SingleRedis.tla", &WORLD_FAULTS)
        }
        "lock-table" => {
            let p = lock_table::Params::read(sc).map_err(|e| e.to_string())?;
            let client = match p.client {
                lock_table::ClientKind::Naive => "naive",
                lock_table::ClientKind::Validity => "validity",
            };
            let window = match p.pause_window {
                client::PauseWindow::Any => "any",
                client::PauseWindow::Acquiring => "acquiring",
            };
            set("Clients", p.clients.to_string());
            set("Expiry", boolean(p.expiry));
            set("Ttl", p.ttl.to_string());
            set("Timeout", p.timeout.to_string());
            set("Client", quoted(client));
            set("Drift", p.drift.to_string());
            set("Margin", p.margin.to_string());
            set("Retry", p.retry.to_string());
            set("PauseWindow", quoted(window));
            ("LockTable.tla", &WORLD_FAULTS)
        }
        "redlock" => {
            let p = redlock::Params::read(sc).map_err(|e| e.to_string())?;
            let restart = match p.restart {
                redlock::Restart::Empty => "empty",
                redlock::Restart::Fsync => "fsync",
                redlock::Restart::Delayed => "delayed",
            };
            let fencing = match p.fencing {
                redlock::Fencing::None => "none",
                redlock::Fencing::LockValue => "lock-value",
                redlock::Fencing::Counter => "counter",
            };
            let window = match p.pause_window {
                client::PauseWindow::Any => "any",
                client::PauseWindow::Acquiring => "acquiring",
            };
            set("Masters", p.masters.to_string());
            set("Clients", p.clients.to_string());
            set("Ttl", p.ttl.to_string());
            set("Timeout", p.timeout.to_string());
            set("Drift", p.drift.to_string());
            set("Margin", p.margin.to_string());
            set("Retry", p.retry.to_string());
            set("RetryMax", p.retry_max.to_string());
            set("RestartMode", quoted(restart));
            set("Fencing", quoted(fencing));
            set("PauseWindow", quoted(window));
            ("Redlock.tla", &WORLD_FAULTS)
        }
        "primary-replica" => {
            let p = primary_replica::Params::read(sc).map_err(|e| e.to_string())?;
            // The spec has one Sentinel, ships at once, has no
            // min-replicas-to-write, and restarts a crashed primary as it was.
            if p.sentinels != 1 || p.lag || p.min_replicas > 0 || !p.auto_restart {
                return Err(format!(
                    "{}: specs/PrimaryReplica.tla has one Sentinel, no replication lag, no min-replicas-to-write and a primary restarted as it was, and does not model it",
                    sc.name
                ));
            }
            let replication = match p.replication {
                primary_replica::Replication::Async => "async",
                primary_replica::Replication::Wait => "wait",
            };
            set("Clients", p.clients.to_string());
            set("Replicas", p.replicas.to_string());
            set("Ttl", p.ttl.to_string());
            set("Replication", quoted(replication));
            set("WaitReplicas", p.wait_replicas.to_string());
            set("WaitTimeout", p.wait_timeout.to_string());
            set("Ping", p.ping.to_string());
            set("DownAfter", p.down_after.to_string());
            set("Retry", p.retry.to_string());
            set("Timeout", p.timeout.to_string());
            let client = match p.client {
                primary_replica::ClientKind::Naive => "naive",
                primary_replica::ClientKind::Validity => "validity",
            };
            set("Client", quoted(client));
            set("Drift", p.drift.to_string());
            set("Margin", p.margin.to_string());
            ("PrimaryReplica.tla", &[])
        }
        "coordinator" => {
            let p = coordinator::Params::read(sc).map_err(|e| e.to_string())?;
            let standby = match p.standby {
                coordinator::Standby::None => "none",
                coordinator::Standby::NoState => "no-state",
                coordinator::Standby::Replicated => "replicated",
            };
            // The spec's standby takes over when the coordinator says it
            // restarted; it has no heartbeat, and no client tells it of a
            // restart.
            if p.standby != coordinator::Standby::None && p.detector != coordinator::Detector::Restart {
                return Err(format!(
                    "{file}: specs/Coordinator.tla models detector = \"restart\" only"
                ));
            }
            if p.client_restart != coordinator::ClientRestart::None {
                return Err(format!(
                    "{file}: specs/Coordinator.tla does not model client_restart = \"notice\""
                ));
            }
            set("Clients", p.clients.to_string());
            set("Standby", quoted(standby));
            // Extends World.tla but takes only its crashes and restarts.
            ("Coordinator.tla", &[])
        }
        "token-ring" => {
            let p = token_ring::Params::read(sc).map_err(|e| e.to_string())?;
            let regenerate = match p.regenerate {
                token_ring::Regenerate::None => "none",
                token_ring::Regenerate::Naive => "naive",
            };
            // World.tla's Nodes is every node: the ring's size is RingSize.
            set("RingSize", p.nodes.to_string());
            set("Rings", p.rings.to_string());
            set("Regenerate", quoted(regenerate));
            set("Timeout", p.timeout.to_string());
            // Extends World.tla but takes only its crashes, restarts and time.
            ("TokenRing.tla", &[])
        }
        "zookeeper" => {
            let p = zookeeper::Params::read(sc).map_err(|e| e.to_string())?;
            // The spec's creates carry Curator's protection prefix.
            if !p.protection {
                return Err(format!(
                    "{}: specs/ZooKeeperLock.tla creates with the protection prefix and does not model protection = false",
                    sc.name
                ));
            }
            let recipe = match p.recipe {
                zookeeper::Recipe::Lock => "lock",
                zookeeper::Recipe::RwLock => "rwlock",
            };
            let watch = match p.watch {
                zookeeper::Watch::Predecessor => "predecessor",
                zookeeper::Watch::All => "all",
            };
            let client = match p.client {
                zookeeper::ClientKind::Naive => "naive",
                zookeeper::ClientKind::Curator => "curator",
            };
            set("Clients", p.clients.to_string());
            set("Recipe", quoted(recipe));
            set("Readers", p.readers.to_string());
            set("Watch", quoted(watch));
            set("SessionTimeout", p.session_timeout.to_string());
            set("PingEvery", p.ping.to_string());
            set("Client", quoted(client));
            set("SuspendAfter", p.suspend_after.to_string());
            set("Fencing", boolean(p.fencing));
            set("Timeout", p.timeout.to_string());
            set("Retry", p.retry.to_string());
            ("ZooKeeperLock.tla", &["min_pause"])
        }
        "etcd-lease" => {
            let p = etcd_lease::Params::read(sc).map_err(|e| e.to_string())?;
            let client = match p.client {
                etcd_lease::ClientKind::Naive => "naive",
                etcd_lease::ClientKind::Validity => "validity",
            };
            set("Clients", p.clients.to_string());
            set("Ttl", p.ttl.to_string());
            set("Fencing", boolean(p.fencing));
            set("Retry", p.retry.to_string());
            set("Timeout", p.timeout.to_string());
            set("Client", quoted(client));
            set("Drift", p.drift.to_string());
            set("Margin", p.margin.to_string());
            ("EtcdLease.tla", &["min_pause"])
        }
        "ricart-agrawala" => {
            let p = ricart_agrawala::Params::read(sc).map_err(|e| e.to_string())?;
            set("N", p.nodes.to_string());
            // Extends World.tla but takes only its crashes, restarts, loss
            // and duplication.
            ("RicartAgrawala.tla", &["loss", "duplicate"])
        }
        other => return Err(format!("{file}: algorithm = \"{other}\" has no spec in specs/")),
    };
    // The specs that extend specs/World.tla set every [faults] key as a
    // constant (each models the faults its arm lists).
    if WORLD_SPECS.contains(&spec) {
        set("MinPause", f.min_pause.to_string());
        set("ClockJumps", f.clock_jumps.to_string());
        set("MaxJump", f.max_jump.to_string());
        set("MaxDrift", f.max_drift.to_string());
        set("Partitions", f.partitions.to_string());
        set("Loss", boolean(f.loss));
        set("Duplication", boolean(f.duplicate));
        set("Recovery", quoted(recovery(f.recovery)));
    }
    let faults = [
        ("pauses", f.pauses != 0 && PAUSELESS_SPECS.contains(&spec)),
        ("one_way", f.one_way),
        ("min_pause", f.min_pause != 1),
        ("clock_jumps", f.clock_jumps != 0),
        ("max_drift", f.max_drift != 0),
        ("partitions", f.partitions != 0),
        ("loss", f.loss),
        ("duplicate", f.duplicate),
        ("reorder", f.reorder),
    ];
    if let Some((key, _)) = faults.iter().find(|(key, used)| *used && !modelled.contains(key)) {
        return Err(format!(
            "{file}: [faults] {key} is set, and specs/{spec} does not model it"
        ));
    }
    if sc
        .system
        .get("work")
        .and_then(toml::Value::as_integer)
        .is_some_and(|w| w > 0)
    {
        return Err(format!(
            "{file}: [system] work is set, and specs/{spec} has holders write at once"
        ));
    }
    if sc.symmetry {
        return Err(format!(
            "{file}: [bounds] symmetry is on, and no .cfg declares a SYMMETRY: TLC would count every ordering"
        ));
    }
    Ok((spec, c))
}

/// A `[faults] recovery` value as the specs that model it name it.
fn recovery(r: Recovery) -> &'static str {
    match r {
        Recovery::Eventual => "eventual",
        Recovery::None => "none",
    }
}

/// `text` with its comments (`\*` to the end of the line, nested `(* *)`)
/// blanked out, newlines kept.
#[allow(dead_code)] // each test binary uses its own part of common
pub fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut depth, mut line_comment) = (0, 0usize, false);
    while i < b.len() {
        let two = &b[i..(i + 2).min(b.len())];
        if line_comment {
            line_comment = b[i] != b'\n';
        } else if two == b"(*" {
            depth += 1;
            out.push_str("  ");
            i += 2;
            continue;
        } else if depth > 0 && two == b"*)" {
            depth -= 1;
            out.push_str("  ");
            i += 2;
            continue;
        } else if depth == 0 && two == b"\\*" {
            line_comment = true;
        }
        let ch = text[i..].chars().next().expect("i is on a char boundary");
        if ch == '\n' || (depth == 0 && !line_comment) {
            out.push(ch);
        } else {
            out.push(' ');
        }
        i += ch.len_utf8();
    }
    out
}
