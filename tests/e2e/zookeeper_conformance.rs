//! Conformance: the model's ZooKeeper ensemble answers as a real ZooKeeper
//! does.
//!
//! proptest draws operation sequences for three clients; each runs at once
//! against a real standalone ZooKeeper (Debian's `zookeeper` 3.8.0, started
//! by `locksmith::real::zookeeper` on a free loopback port with its own
//! data directory; one server for all cases, each case under its own
//! chroot `/caseN`) through the `zookeeper-client` library, and against the
//! model's ensemble actor (`zookeeper::Node::Ensemble`) driven through the
//! model's own `World` (the same `on_msg`, `on_timer`, partitions and
//! reconnects the checker runs; the test injects the clients' requests as
//! the model's clients send them and reads what reaches them). After every
//! operation and every tick the two must agree, field by field:
//! - `create /lock/_c_g<guid>-lock- EPHEMERAL_SEQUENTIAL` (the model's
//!   clients' name, Curator's protection prefix): the node's name, guid
//!   and sequence number. The model names a node by its czxid; ZooKeeper
//!   3.8 numbers a parent's sequential children by its creates alone (no
//!   delete, explicit or by an expired session, advances the number), so
//!   the n-th create under `/lock` must get sequence number n − 1, and the
//!   real numbers and czxids must order the nodes as the model's czxids do
//!   (the model's fencing token).
//! - `getChildren /lock` with or without a watch: the same names.
//! - `exists <node> watch`: a stat or null.
//! - `delete` of the client's own node.
//! - watch events per client (`NodeDeleted <path>`, `NodeChildrenChanged
//!   /lock`), each fired once (one-shot), at the same tick.
//! - the children of `/lock` seen by an observer session, after every
//!   operation and tick: ephemeral nodes of an expired session are gone at
//!   the tick the model's session expiry fires.
//! - a crash (the client's connection closes without `closeSession`, and
//!   nothing pings) and a cut (a loopback proxy the test owns drops the
//!   client's connection and refuses new ones until the heal): the session
//!   expires `session_timeout` ticks after the last request; a request
//!   pending at the cut fails with CONNECTION_LOSS (the model loses it);
//!   after the heal the library reconnects with the same session and
//!   SetWatches (its last zxid and its watches), and the missed events fire
//!   then, or, past the timeout, the session is SESSION_EXPIRED on both
//!   sides.
//!
//! Time. One model tick is `LOCKSMITH_ZK_TICK_MS` real milliseconds
//! (default 200); the server's `tickTime` is a quarter of it. A session
//! timeout of n ticks is asked for as n·T − T/2 ms: the server expires a
//! session between that and one `tickTime` later (its expiry buckets), so
//! a real expiry lands between half and a quarter of a tick before the
//! grid point at which the model's timer fires, never near an instant at
//! which the test looks. Before a crash or a cut the client sends one
//! request at its grid point, so that both sides' last contact is then.
//! Operations are sent on the grid (tick j at j·T after the start) and
//! must be answered, and expected events seen, within 3/8 T; later (a
//! loaded machine) the case stops there, is not compared further, and is
//! counted; so does a request the library gives up on (a stalled machine:
//! its connection's idle timeout is 2/5 of the session timeout). A
//! reconnect after a heal takes what the library takes: the model
//! reconnects at the first grid point after it, and a case whose model
//! session would expire by then while the real one was touched in time
//! stops there. Cases running at once start a fifth of a tick apart.
//!
//! Abstractions (the model's answers carry less; also in
//! docs/real-systems.md, "Conformance: ZooKeeper"):
//! - the model's zxid counts only the transactions under `/lock` (and a
//!   delete as one where connections can break), a real one also session
//!   creations and closes, and an expired session's nodes all go in one
//!   `closeSession` transaction: czxids and sequence numbers are compared
//!   by order (and the sequence numbers exactly against ZooKeeper's own
//!   rule above);
//! - `delete` of a node that is gone is NoNode in ZooKeeper and "done" in
//!   the model (the recipe's guaranteed delete treats both alike);
//! - the model's client re-registers at most one `exists` watch and one
//!   child watch (the recipe never holds more), so the test sets no
//!   second one while one is outstanding.
//!
//! Cases run in parallel (`LOCKSMITH_ZK_PARALLEL`, default 4) against one
//! server; `LOCKSMITH_ZK_CASES` sets how many proptest draws (default 6)
//! run beside the fixed connection cases. Under `CI=true` a missing
//! ZooKeeper fails; elsewhere the test prints `*** REAL ZOOKEEPER NOT RUN`.

use std::collections::BTreeMap;
use std::thread::sleep;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

use locksmith::real::require_zookeeper;
use locksmith::real::zookeeper::{Proxy, ZkClient, ZkServer};
use locksmith::world::Id;

mod cases;
mod compare;
mod connection;
mod model;
mod run;

use cases::{case, connection_cases, Case};
use model::Model;
use run::run_case;

const CLIENTS: usize = 3;
const ENSEMBLE: Id = 0;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The tick grid: tick j is `j · tick` after `start`.
struct Clock {
    start: Instant,
    tick: Duration,
    now: u32,
}

impl Clock {
    fn t_ms(&self) -> f64 {
        self.tick.as_secs_f64() * 1000.0
    }

    fn grid(&self, j: u32) -> Instant {
        self.start + self.tick * j
    }

    fn wait_for_grid(&self) {
        let at = self.grid(self.now);
        let now = Instant::now();
        if at > now {
            sleep(at - now);
        }
    }

    /// 3/8 of a tick after the current grid point: answers are due by then.
    fn due(&self) -> Instant {
        self.grid(self.now) + self.tick * 3 / 8
    }

    fn late_ms(&self, at: Instant) -> f64 {
        at.saturating_duration_since(self.grid(self.now)).as_secs_f64() * 1000.0
    }

    /// The first tick whose grid point is at least 1/8 tick after `at`.
    fn next_tick_after(&self, at: Instant) -> u32 {
        let ms = at.duration_since(self.start).as_secs_f64() * 1000.0 + self.t_ms() / 8.0;
        ((ms / self.t_ms()).ceil() as u32).max(self.now + 1)
    }
}

/// The case stops here: the real timing is no longer unambiguous.
struct Late(String);

// ---------------------------------------------------------------------------
// One case.

/// What one request answered, in the model's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Answer {
    /// The created node's name.
    Created(String),
    Children(Vec<String>),
    Stat(bool),
    Deleted,
    SessionExpired,
    /// CONNECTION_LOSS (real); lost on the cut link (model).
    Lost,
    /// Not sent (the client is cut, or it has nothing to act on).
    Skipped(&'static str),
    /// The library reconnected with the same session.
    Reconnected,
}

/// A watch event, as a path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    NodeDeleted(String),
    NodeChildrenChanged,
}

/// One client on both sides.
struct Side {
    proxy: Proxy,
    real: Option<ZkClient>,
    /// The model's session value, 0 for none.
    session: u32,
    /// The client knows its session expired (both sides agree).
    expired: bool,
    crashed: bool,
    cut: bool,
    /// The model's zxid at the client's last answered request: the last
    /// zxid the library saw, which its SetWatches carries.
    zxid: u32,
    /// The tick at which the model's ensemble expired the session.
    expired_at: Option<u32>,
    /// Outstanding watches: an `exists` on this czxid; `getChildren /lock`.
    exists_watch: Option<u32>,
    child_watch: bool,
    /// czxids of the client's nodes, newest last.
    nodes: Vec<u32>,
}

struct Run<'a> {
    chroot: String,
    timeout: Duration,
    clock: Clock,
    m: Model,
    sides: Vec<Side>,
    observer: ZkClient,
    /// czxid → guid, for the model's names.
    guids: BTreeMap<u32, u32>,
    /// model czxid → real czxid.
    real_czxid: BTreeMap<u32, i64>,
    /// model czxid → the real sequence number in its name.
    seqs: BTreeMap<u32, i64>,
    /// The next sequence number as ZooKeeper 3.8 hands them out: one per
    /// create under `/lock`; no delete (explicit or an expired session's)
    /// advances it.
    cversion: i64,
    created: Vec<u32>,
    next_value: u32,
    log: &'a mut Vec<String>,
}

/// The model's ZooKeeper ensemble against a real standalone ZooKeeper:
/// ephemeral sequential nodes and their names, listings, `exists` and
/// child watches and their one-shot firing, deletes, czxid order, session
/// expiry of a crashed or cut-off client, and what a client sees across a
/// dropped connection (CONNECTION_LOSS, SetWatches, SESSION_EXPIRED).
#[test]
fn the_ensemble_answers_as_zookeeper_does() {
    let Some(install) = require_zookeeper() else {
        return;
    };
    let started = Instant::now();
    let tick_ms = env("LOCKSMITH_ZK_TICK_MS", 200).max(40);
    let tick = Duration::from_millis(tick_ms);
    let server = ZkServer::start(&install, (tick_ms / 4).max(10)).expect("ZooKeeper starts");
    let startup = server.started_in;
    let mut runner = TestRunner::new(Config {
        cases: 1,
        failure_persistence: None,
        ..Config::default()
    });
    let mut cases: Vec<(String, Case)> = connection_cases()
        .into_iter()
        .map(|(n, c)| (n.to_string(), c))
        .collect();
    let strategy = case();
    for i in 0..env("LOCKSMITH_ZK_CASES", 6) {
        let c = strategy.new_tree(&mut runner).expect("a case").current();
        cases.push((format!("drawn {i}"), c));
    }
    let parallel = env("LOCKSMITH_ZK_PARALLEL", 5).max(1) as usize;
    let port = server.port();
    let mut complete = 0;
    let mut failures = Vec::new();
    for (batch_no, batch) in cases.chunks(parallel).enumerate() {
        let results: Vec<_> = std::thread::scope(|sc| {
            let handles: Vec<_> = batch
                .iter()
                .enumerate()
                .map(|(k, (label, case))| {
                    let n = batch_no * parallel + k;
                    sc.spawn(move || {
                        let mut log = Vec::new();
                        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            run_case(port, tick, n, case, &mut log)
                        }));
                        (label.clone(), case.clone(), r, log)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("a case thread")).collect()
        });
        for (label, case, r, log) in results {
            if std::env::var_os("LOCKSMITH_ZK_VERBOSE").is_some() {
                eprintln!("zookeeper {label}:\n{}\n", log.join("\n"));
            }
            match r {
                Ok(Ok(true)) => complete += 1,
                Ok(Ok(false)) => eprintln!(
                    "zookeeper {label}: stopped early: {}",
                    log.last().cloned().unwrap_or_default()
                ),
                Ok(Err(e)) => failures.push(format!("{label}: {e}\n{case:?}")),
                Err(p) => {
                    let msg = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    failures.push(format!("{label}: {msg}\n{case:?}"));
                }
            }
        }
    }
    eprintln!(
        "zookeeper: {complete} of {} cases ran to their end ({} stopped early: an answer too late to compare), server started in {:.1} s, {:.1} s in all",
        cases.len(),
        cases.len() - complete - failures.len(),
        startup.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    if !failures.is_empty() {
        panic!(
            "the model's ensemble and ZooKeeper differ:\n{}\n(server output:\n{})",
            failures.join("\n\n"),
            server.log().lines().rev().take(40).collect::<Vec<_>>().join("\n")
        );
    }
    assert!(
        complete > 0,
        "no case ran to its end: the machine is too slow for tick {tick_ms} ms"
    );
}
