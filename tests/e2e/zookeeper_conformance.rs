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
use std::net::SocketAddr;
use std::path::Path;
use std::sync::mpsc;
use std::thread::sleep;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

use locksmith::algorithms::zookeeper::{self as zkm, Msg};
use locksmith::catalog::parse;
use locksmith::real::require_zookeeper;
use locksmith::real::zookeeper::{block, zk, Proxy, ZkClient, ZkServer, CALL_TIMEOUT};
use locksmith::world::{Action, Envelope, Id};

use crate::common::driven::Driven;

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
// The model's ensemble, driven from outside.

/// The model's server, driven alone (tests/e2e/common/driven.rs).
type Model = Driven<zkm::Node>;

impl Model {
    fn new(session_timeout: u8) -> Model {
        // Partitions make deletes take a zxid and keep the parent's pzxid
        // (SetWatches compares it); crashes give each client spare session
        // slots (a crashed client's session lives on until it expires).
        let text = format!(
            "summary = \"conformance\"\nalgorithm = \"zookeeper\"\n\
             [system]\nclients = {CLIENTS}\nsession_timeout = {session_timeout}\nping = 1\n\
             [faults]\npartitions = 1\ncrashes = 3\nmax_delay = 1\ntargets = \"clients\"\n\
             [bounds]\nacquisitions = 1\n"
        );
        let sc = parse(Path::new("conformance.toml"), &text).expect("the conformance scenario is valid");
        let world = zkm::world(&sc).expect("builds");
        Model::start(world, ENSEMBLE)
    }

    /// Client `c`'s message on its way to the ensemble (not delivered).
    fn send(&mut self, c: Id, msg: Msg) {
        self.state.net.push(Envelope {
            src: c,
            dst: ENSEMBLE,
            msg,
            age: 0,
            copied: false,
        });
        self.state.net.sort_by_key(|e| (e.src, e.dst));
    }

    /// Client `c`'s request, delivered at once.
    fn request(&mut self, c: Id, msg: Msg) {
        self.settle();
        self.send(c, msg.clone());
        self.act(&Action::Deliver {
            src: c,
            dst: ENSEMBLE,
            msg,
        });
        self.settle();
    }

    /// What reached client `c`, taken off the network (pongs dropped).
    fn take(&mut self, c: Id) -> Vec<Msg> {
        let (mine, rest) = std::mem::take(&mut self.state.net)
            .into_iter()
            .partition(|e| e.dst == c);
        self.state.net = rest;
        mine.into_iter()
            .map(|e: Envelope<Msg>| e.msg)
            .filter(|m| !matches!(m, Msg::Pong { .. }))
            .collect()
    }

    fn ensemble(&self) -> &zkm::Ensemble {
        match &self.state.nodes[ENSEMBLE].state {
            zkm::State::Ensemble(e) => e,
            _ => unreachable!("node 0 is the ensemble"),
        }
    }
}

// ---------------------------------------------------------------------------
// Operations.

#[derive(Clone, Copy, Debug)]
enum Op {
    /// `create /lock/_c_g<guid>-lock- EPHEMERAL_SEQUENTIAL` (a new session
    /// first if the client has none).
    Create(usize),
    /// `getChildren /lock`, with a watch if asked and none is outstanding.
    List(usize, bool),
    /// `exists <the k-th node created in the case> watch`.
    Exists(usize, usize),
    /// `delete` the client's latest node.
    Delete(usize),
    /// Ticks pass.
    Wait(u32),
    /// The client stops: its connection closes without `closeSession`.
    Crash(usize),
    /// The proxy drops the client's connection and refuses new ones; with
    /// `true`, a `getChildren` is pending on it then.
    Cut(usize, bool),
    /// The proxy accepts again; the library reconnects.
    Heal,
}

#[derive(Clone, Debug)]
struct Case {
    session_timeout: u8,
    ops: Vec<Op>,
}

fn case() -> impl Strategy<Value = Case> {
    let c = 0usize..CLIENTS;
    let op = prop_oneof![
        4 => c.clone().prop_map(Op::Create),
        3 => (c.clone(), any::<bool>()).prop_map(|(c, w)| Op::List(c, w)),
        3 => (c.clone(), 0usize..6).prop_map(|(c, k)| Op::Exists(c, k)),
        2 => c.clone().prop_map(Op::Delete),
        3 => (1u32..=3).prop_map(Op::Wait),
        1 => c.clone().prop_map(Op::Crash),
        1 => (c, any::<bool>()).prop_map(|(c, p)| Op::Cut(c, p)),
        2 => Just(Op::Heal),
    ];
    (3u8..=6, prop::collection::vec(op, 6..=14)).prop_map(|(session_timeout, ops)| Case { session_timeout, ops })
}

/// The fixed cases: what a client sees across a dropped connection.
fn connection_cases() -> Vec<(&'static str, Case)> {
    use Op::*;
    vec![
        (
            // Cut within the session timeout while c1 watches c0's node and
            // the children: c0 deletes its node; after the heal, same
            // session, both missed events fire at the reconnect.
            "missed events fire on reconnect",
            Case {
                session_timeout: 6,
                ops: vec![
                    Create(0),
                    Create(1),
                    List(1, true),
                    Exists(1, 0),
                    Cut(1, true),
                    Delete(0),
                    Heal,
                    List(1, false),
                    Wait(1),
                ],
            },
        ),
        (
            // Cut with nothing missed: the watches are re-registered and
            // fire on a later delete.
            "watches re-registered",
            Case {
                session_timeout: 6,
                ops: vec![
                    Create(0),
                    Create(1),
                    Create(2),
                    Exists(1, 0),
                    List(1, true),
                    Cut(1, false),
                    Wait(1),
                    Heal,
                    Wait(1),
                    Delete(0),
                    Wait(1),
                ],
            },
        ),
        (
            // Cut past the session timeout: c1's node goes at the expiry
            // (c2's watches fire), and the reconnect is SESSION_EXPIRED.
            "session expired across a cut",
            Case {
                session_timeout: 3,
                ops: vec![
                    Create(0),
                    Create(1),
                    Create(2),
                    Exists(2, 1),
                    List(0, true),
                    Exists(1, 0),
                    Cut(1, true),
                    Wait(3),
                    Wait(1),
                    Heal,
                    List(1, false),
                    Create(1),
                    List(1, false),
                ],
            },
        ),
        (
            // A crashed holder: its session expires, its node goes, the
            // waiter's watch fires; its next create opens a new session.
            "a crashed holder's session expires",
            Case {
                session_timeout: 3,
                ops: vec![
                    Create(0),
                    Create(1),
                    Exists(1, 0),
                    Crash(0),
                    Wait(2),
                    Wait(2),
                    List(1, true),
                    Create(0),
                    Delete(1),
                    Wait(1),
                ],
            },
        ),
    ]
}

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

/// The name ZooKeeper gave the node the model numbers `czxid`: the guid
/// is the model's, the sequence number the real one (module doc).
fn name(seqs: &BTreeMap<u32, i64>, guid: u32, czxid: u32) -> String {
    match seqs.get(&czxid) {
        Some(seq) => format!("_c_g{guid}-lock-{seq:010}"),
        None => format!("_c_g{guid}-lock-(model czxid {czxid})"),
    }
}

/// The real answer in the model's terms. A library timeout (the machine
/// stalled longer than the connection's idle timeout, 2/5 of the session
/// timeout) stops the case, as a late answer does.
fn real_answer<T>(r: Result<T, zk::Error>, ok: impl FnOnce(T) -> Answer) -> Result<Answer, Late> {
    match r {
        Ok(t) => Ok(ok(t)),
        Err(zk::Error::SessionExpired) => Ok(Answer::SessionExpired),
        Err(zk::Error::ConnectionLoss) => Ok(Answer::Lost),
        Err(e @ (zk::Error::Timeout | zk::Error::Custom(_))) => Err(Late(format!("the library gave up: {e}"))),
        Err(e) => panic!("unexpected error from ZooKeeper: {e:?}"),
    }
}

/// A connection lost where the test cut nothing: the machine stalled.
fn not_lost(a: Answer) -> Result<Answer, Late> {
    if a == Answer::Lost {
        return Err(Late("the connection broke with no cut (a stalled machine)".into()));
    }
    Ok(a)
}

impl Run<'_> {
    fn connect(&mut self, c: usize) -> Result<(), Late> {
        let connect = format!("{}{}", self.sides[c].proxy.addr(), self.chroot);
        let client = ZkClient::connect(&connect, self.timeout).map_err(|e| Late(format!("connect: {e}")))?;
        let granted = client.session_timeout();
        assert_eq!(granted, self.timeout, "the server grants the session timeout asked for");
        self.next_value += 1;
        let session = 1000 + self.next_value;
        let s = &mut self.sides[c];
        s.real = Some(client);
        s.session = session;
        s.expired = false;
        s.crashed = false;
        s.zxid = 0;
        s.expired_at = None;
        s.exists_watch = None;
        s.child_watch = false;
        self.m.request(c + 1, Msg::Connect { session });
        let slots = self.m.ensemble().sessions.iter().filter(|x| **x == session).count();
        assert_eq!(slots, 1, "the model's ensemble has a slot for the new session");
        self.on_time("connect")
    }

    fn on_time(&self, what: &str) -> Result<(), Late> {
        let now = Instant::now();
        if now > self.clock.due() {
            return Err(Late(format!(
                "{what} answered {:.0} ms after its tick",
                self.clock.late_ms(now)
            )));
        }
        Ok(())
    }

    /// The model's answer to `c`'s request (the events that came with it
    /// stay for [`Run::events`]).
    fn model_request(&mut self, c: usize, msg: Msg) -> Vec<Msg> {
        self.m.request(c + 1, msg);
        let got = self.m.take(c + 1);
        let (answers, events): (Vec<Msg>, Vec<Msg>) = got
            .into_iter()
            .partition(|m| !matches!(m, Msg::NodeDeleted { .. } | Msg::NodeChildrenChanged { .. }));
        for e in events {
            self.m.send_back(c + 1, e);
        }
        // The library's last zxid: any answer's header but a ping's.
        if !matches!(answers.as_slice(), [] | [Msg::SessionExpired { .. }]) {
            self.sides[c].zxid = self.m.ensemble().zxid;
        }
        answers
    }

    fn model_answer(&self, answers: &[Msg]) -> Answer {
        match answers {
            [] => Answer::Lost,
            [Msg::Created { value, node }] => Answer::Created(name(&self.seqs, *value, *node)),
            [Msg::Children { children, .. }] => {
                let mut names: Vec<String> = children.iter().map(|ch| name(&self.seqs, ch.guid, ch.czxid)).collect();
                names.sort();
                Answer::Children(names)
            }
            [Msg::Stat { exists, .. }] => Answer::Stat(*exists),
            [Msg::Deleted { .. }] => Answer::Deleted,
            [Msg::SessionExpired { .. }] => Answer::SessionExpired,
            more => panic!("unexpected model answers {more:?}"),
        }
    }

    fn op(&mut self, op: Op) -> Result<(Answer, Answer), Late> {
        let skipped = |why| Ok((Answer::Skipped(why), Answer::Skipped(why)));
        let c = match op {
            Op::Create(c) | Op::List(c, _) | Op::Exists(c, _) | Op::Delete(c) | Op::Crash(c) | Op::Cut(c, _) => c,
            Op::Wait(n) => {
                for _ in 0..n {
                    self.tick()?;
                }
                return skipped("wait");
            }
            Op::Heal => return self.heal(),
        };
        if self.sides[c].cut {
            return skipped("the client is cut off");
        }
        if self.sides[c].session == 0 || self.sides[c].crashed {
            if !matches!(op, Op::Create(_)) {
                return skipped("the client has no session");
            }
            // A crashed client's old session still holds a slot until it
            // expires: wait for a free one.
            let slots = &self.m.ensemble().sessions[c * 4..c * 4 + 4];
            if slots.iter().all(|s| *s != 0) {
                return skipped("no free session slot");
            }
        }
        if matches!(op, Op::Create(_)) && (self.sides[c].session == 0 || self.sides[c].crashed || self.sides[c].expired)
        {
            self.connect(c)?;
        }
        let session = self.sides[c].session;
        let chroot_lock = "/lock";
        match op {
            Op::Create(_) => {
                self.next_value += 1;
                let value = self.next_value;
                let real = self.sides[c].real.as_ref().expect("a client");
                let r = real.create_ephemeral_sequential(&format!("{chroot_lock}/_c_g{value}-lock-"));
                self.on_time("create")?;
                let mut real_czxid = None;
                let real = not_lost(real_answer(r, |(n, seq, stat)| {
                    real_czxid = Some((stat.czxid, seq));
                    Answer::Created(n)
                })?)?;
                let answers = self.model_request(
                    c,
                    Msg::Create {
                        session,
                        value,
                        mode: zkm::Mode::Exclusive,
                    },
                );
                if let [Msg::Created { value, node }] = answers.as_slice() {
                    self.guids.insert(*node, *value);
                    self.created.push(*node);
                    self.sides[c].nodes.push(*node);
                    if let Some((z, seq)) = real_czxid {
                        self.real_czxid.insert(*node, z);
                        // The sequence number counts the creates under
                        // the parent (module doc).
                        assert_eq!(seq, self.cversion, "the sequence number\n{}", self.log.join("\n"));
                        self.cversion += 1;
                        self.seqs.insert(*node, seq);
                    }
                }
                let model = self.model_answer(&answers);
                Ok((real, model))
            }
            Op::List(_, watch) => {
                let watch = watch && !self.sides[c].child_watch;
                let real = self.sides[c].real.as_ref().expect("a client");
                let r = real.children(chroot_lock, watch);
                self.on_time("getChildren")?;
                let real = not_lost(real_answer(r, Answer::Children)?)?;
                let answers = self.model_request(
                    c,
                    Msg::GetChildren {
                        session,
                        value: 0,
                        watch,
                    },
                );
                let model = self.model_answer(&answers);
                if watch && matches!(model, Answer::Children(_)) {
                    self.sides[c].child_watch = true;
                }
                Ok((real, model))
            }
            Op::Exists(_, k) => {
                if self.created.is_empty() {
                    return skipped("no node yet");
                }
                if self.sides[c].exists_watch.is_some() {
                    return skipped("an exists watch is outstanding");
                }
                let node = self.created[k % self.created.len()];
                let path = format!("{chroot_lock}/{}", name(&self.seqs, self.guids[&node], node));
                let real = self.sides[c].real.as_ref().expect("a client");
                let r = real.exists(&path, true);
                self.on_time("exists")?;
                let real = not_lost(real_answer(r, |s| Answer::Stat(s.is_some()))?)?;
                let answers = self.model_request(
                    c,
                    Msg::Exists {
                        session,
                        value: 0,
                        node,
                    },
                );
                let model = self.model_answer(&answers);
                if model == Answer::Stat(true) {
                    self.sides[c].exists_watch = Some(node);
                }
                Ok((real, model))
            }
            Op::Delete(_) => {
                let Some(&node) = self.sides[c].nodes.last() else {
                    return skipped("no node of its own");
                };
                let path = format!("{chroot_lock}/{}", name(&self.seqs, self.guids[&node], node));
                let real = self.sides[c].real.as_ref().expect("a client");
                let r = match real.delete(&path) {
                    // Gone already: the model answers "done" (module doc).
                    Err(zk::Error::NoNode) => Ok(()),
                    r => r,
                };
                self.on_time("delete")?;
                let real = not_lost(real_answer(r, |()| Answer::Deleted)?)?;
                let answers = self.model_request(
                    c,
                    Msg::Delete {
                        session,
                        value: 0,
                        node,
                    },
                );
                Ok((real, self.model_answer(&answers)))
            }
            Op::Crash(_) => {
                self.touch(c)?;
                self.sides[c].real = None;
                self.sides[c].crashed = true;
                self.sides[c].exists_watch = None;
                self.sides[c].child_watch = false;
                // What the ensemble still sends it is lost with it.
                skipped("crashed")
            }
            Op::Cut(_, pending) => self.cut(c, pending),
            Op::Wait(_) | Op::Heal => unreachable!(),
        }
    }

    /// One request at the grid point, so that both sides last heard from
    /// the client now (module doc): `exists /lock`, a ping in the model.
    fn touch(&mut self, c: usize) -> Result<(), Late> {
        let real = self.sides[c].real.as_ref().expect("a client");
        let r = real.exists("/lock", false);
        self.on_time("the last request before the fault")?;
        let session = self.sides[c].session;
        self.model_request(c, Msg::Ping { session });
        // The real `exists` answer's header carries the zxid (a pong's
        // does not count).
        if r.is_ok() {
            self.sides[c].zxid = self.m.ensemble().zxid;
        }
        match r {
            Ok(_) => {}
            Err(zk::Error::SessionExpired) if self.sides[c].expired => {}
            Err(e) => return Err(Late(format!("the last request before the fault: {e}"))),
        }
        Ok(())
    }

    fn cut(&mut self, c: usize, pending: bool) -> Result<(Answer, Answer), Late> {
        if self.sides.iter().any(|s| s.cut) {
            return Ok((
                Answer::Skipped("one cut at a time"),
                Answer::Skipped("one cut at a time"),
            ));
        }
        if self.sides[c].expired {
            return Ok((Answer::Skipped("expired"), Answer::Skipped("expired")));
        }
        self.touch(c)?;
        let session = self.sides[c].session;
        let mut real = Answer::Skipped("nothing pending");
        let mut model = Answer::Skipped("nothing pending");
        let proxy = &self.sides[c].proxy;
        if pending {
            // The proxy holds the request: it is pending when the
            // connection drops.
            proxy.freeze();
            let (tx, rx) = mpsc::channel();
            let client = self.sides[c].real.as_ref().expect("a client").client().clone();
            std::thread::spawn(move || {
                let _ = tx.send(block(CALL_TIMEOUT, client.list_children("/lock")));
            });
            sleep(Duration::from_millis(10));
            proxy.cut();
            let r = rx
                .recv_timeout(Duration::from_secs(5))
                .expect("the pending request is answered");
            real = real_answer(r, |mut n| {
                n.sort();
                Answer::Children(n)
            })?;
            self.m.send(
                c + 1,
                Msg::GetChildren {
                    session,
                    value: 0,
                    watch: false,
                },
            );
        } else {
            proxy.cut();
        }
        self.m.act(&Action::Partition { a: ENSEMBLE, b: c + 1 });
        self.m.act(&Action::Disconnected {
            node: c + 1,
            peer: ENSEMBLE,
        });
        if pending {
            let answers = self.m.take(c + 1);
            model = self.model_answer(&answers);
        }
        self.sides[c].cut = true;
        self.on_time("the cut")?;
        Ok((real, model))
    }

    /// The proxy accepts again: wait for the library to reconnect (or to
    /// learn that its session expired), then reconnect the model's client
    /// at the next grid point with the SetWatches the library sent.
    fn heal(&mut self) -> Result<(Answer, Answer), Late> {
        let Some(c) = self.sides.iter().position(|s| s.cut) else {
            return Ok((Answer::Skipped("nothing is cut"), Answer::Skipped("nothing is cut")));
        };
        self.sides[c].proxy.heal();
        let real = self.sides[c].real.as_ref().expect("a client");
        let deadline = Instant::now() + Duration::from_secs(10);
        let state = loop {
            let st = real.state();
            if matches!(st, zk::SessionState::SyncConnected | zk::SessionState::Expired) {
                break st;
            }
            assert!(Instant::now() < deadline, "the library did not reconnect: {st:?}");
            sleep(Duration::from_millis(2));
        };
        let back = Instant::now();
        // The reconnect touched a live session at `back`; the model's comes
        // at the next grid point. A real session still live then whose
        // model expires by that grid point (tick `at`) is the rounding's
        // doing while the reconnect came before the real expiry could have
        // (a half to a quarter tick before `at`'s grid point; module doc):
        // the case stops. Later than `at`'s grid point, the real session
        // outlived its timeout: a difference.
        let target = self.clock.next_tick_after(back);
        let session = self.sides[c].session;
        let e = self.m.ensemble();
        let expiry = e.sessions.iter().position(|s| *s == session).and_then(|slot| {
            let timer = zkm::Timer::SessionExpiry { slot: slot as u8 };
            self.m.state.nodes[ENSEMBLE].timer(timer)
        });
        if let (zk::SessionState::SyncConnected, Some(r)) = (state, expiry) {
            let at = self.clock.now + u32::from(r);
            if at <= target {
                if back <= self.clock.grid(at) + self.clock.tick / 8 {
                    return Err(Late(format!(
                        "the reconnect came {:.0} ms after tick {}, within the session's expiry window (tick {at})",
                        self.clock.late_ms(back),
                        self.clock.now
                    )));
                }
                panic!(
                    "the real session lived through a reconnect {:.0} ms after tick {}, the model's expires at tick {at}\n{}",
                    self.clock.late_ms(back),
                    self.clock.now,
                    self.log.join("\n")
                );
            }
        }
        while self.clock.now < target {
            self.tick()?;
        }
        self.m.act(&Action::Heal);
        self.m.act(&Action::Reconnect {
            node: c + 1,
            peer: ENSEMBLE,
        });
        let s = &self.sides[c];
        let msg = Msg::Reconnect {
            session: s.session,
            zxid: s.zxid,
            node: s.exists_watch.unwrap_or(0),
            children: s.child_watch,
        };
        let model_expired = !self.m.ensemble().sessions.contains(&s.session);
        let real_expired = state == zk::SessionState::Expired;
        // The model expired the session at tick e, the real server had not
        // when the library reconnected: that is a difference unless the
        // reconnect came within the real expiry's window before e's grid
        // point (module doc). The other way round (real expired first) is
        // always a difference: the reconnect precedes the model's grid point.
        if let (true, false, Some(e)) = (model_expired, real_expired, s.expired_at) {
            let window = self.clock.grid(e) - self.clock.tick * 5 / 8;
            if back > window {
                return Err(Late(format!(
                    "the reconnect came {:.0} ms after tick {}, within the session's expiry window",
                    self.clock.late_ms(back),
                    self.clock.now
                )));
            }
        }
        self.log.push(format!(
            "  reconnected {:.0} ms after tick {}: real {state:?}, model session {}",
            self.clock.late_ms(back),
            self.clock.now - 1,
            if model_expired { "expired" } else { "live" }
        ));
        self.sides[c].cut = false;
        self.m.request(c + 1, msg);
        let got = self.m.take(c + 1);
        let (answers, events): (Vec<Msg>, Vec<Msg>) = got
            .into_iter()
            .partition(|m| !matches!(m, Msg::NodeDeleted { .. } | Msg::NodeChildrenChanged { .. }));
        for e in events {
            self.m.send_back(c + 1, e);
        }
        let model = match answers.as_slice() {
            [] => Answer::Reconnected,
            other => self.model_answer(other),
        };
        let real = if real_expired {
            Answer::SessionExpired
        } else {
            Answer::Reconnected
        };
        if model == Answer::SessionExpired {
            let s = &mut self.sides[c];
            s.expired = true;
            s.exists_watch = None;
            s.child_watch = false;
        }
        Ok((real, model))
    }

    /// One tick: the model's ensemble ticks (its session expiries fire),
    /// the live clients ping (the library pings on its own), and the two
    /// sides are compared at the grid point.
    fn tick(&mut self) -> Result<(), Late> {
        self.advance();
        self.clock.wait_for_grid();
        self.log.push(format!("tick {}", self.clock.now));
        self.compare_state()
    }

    /// The model's side of one tick: the ensemble's clock (session
    /// expiries), then the pings of the clients that are up and connected.
    fn advance(&mut self) {
        self.clock.now += 1;
        self.m.tick();
        for c in 0..CLIENTS {
            let session = self.sides[c].session;
            if session != 0 && self.sides[c].expired_at.is_none() && !self.m.ensemble().sessions.contains(&session) {
                self.sides[c].expired_at = Some(self.clock.now);
            }
            let s = &self.sides[c];
            if s.session != 0 && !s.crashed && !s.cut && !s.expired {
                self.m.request(c + 1, Msg::Ping { session });
            }
        }
    }

    /// Events and the children of `/lock`, real against model.
    fn compare_state(&mut self) -> Result<(), Late> {
        for c in 0..CLIENTS {
            let mut model: Vec<Event> = Vec::new();
            for msg in self.m.take(c + 1) {
                match msg {
                    Msg::NodeDeleted { node, .. } => {
                        if self.sides[c].exists_watch == Some(node) {
                            self.sides[c].exists_watch = None;
                        }
                        model.push(Event::NodeDeleted(format!(
                            "/lock/{}",
                            name(&self.seqs, self.guids[&node], node)
                        )));
                    }
                    Msg::NodeChildrenChanged { .. } => {
                        self.sides[c].child_watch = false;
                        model.push(Event::NodeChildrenChanged);
                    }
                    other => panic!("unexpected model message to c{c}: {other:?}"),
                }
            }
            let s = &self.sides[c];
            if s.crashed || s.cut {
                // Lost on the way (the model's world drops them too).
                continue;
            }
            let Some(real) = &s.real else { continue };
            let wait = self.clock.due().saturating_duration_since(Instant::now());
            let mut got = real.events(model.len(), wait);
            if got.len() < model.len() {
                let more = real.events(model.len() - got.len(), Duration::from_secs(2));
                let late = !more.is_empty();
                got.extend(more);
                if late {
                    return Err(Late(format!("c{c}'s watch events came late: {got:?}")));
                }
            }
            let mut real: Vec<Event> = got
                .into_iter()
                .filter(|e| e.kind != zk::EventType::Session)
                .map(|e| match e.kind {
                    zk::EventType::NodeDeleted => Event::NodeDeleted(e.path),
                    zk::EventType::NodeChildrenChanged => Event::NodeChildrenChanged,
                    other => panic!("unexpected event {other:?} at {}", e.path),
                })
                .collect();
            real.sort();
            model.sort();
            if !real.is_empty() || !model.is_empty() {
                self.log.push(format!("  c{c} events real {real:?}, model {model:?}"));
            }
            assert_eq!(real, model, "c{c}'s watch events\n{}", self.log.join("\n"));
        }
        let real = self
            .observer
            .children("/lock", false)
            .map_err(|e| Late(format!("the observer's getChildren: {e}")))?;
        self.on_time("the observer's getChildren")?;
        let mut model: Vec<String> = self
            .m
            .ensemble()
            .children
            .iter()
            .map(|z| name(&self.seqs, z.child.guid, z.child.czxid))
            .collect();
        model.sort();
        self.log.push(format!("  /lock real {real:?}, model {model:?}"));
        assert_eq!(real, model, "the children of /lock\n{}", self.log.join("\n"));
        Ok(())
    }
}

impl Model {
    /// Puts an event back on its way to client `c` (taken with an answer).
    fn send_back(&mut self, c: Id, msg: Msg) {
        self.state.net.push(Envelope {
            src: ENSEMBLE,
            dst: c,
            msg,
            age: 0,
            copied: false,
        });
        self.state.net.sort_by_key(|e| (e.src, e.dst));
    }
}

fn run_case(server_port: u16, tick: Duration, n: usize, case: &Case, log: &mut Vec<String>) -> Result<bool, String> {
    let t_ms = tick.as_millis() as u64;
    let timeout = Duration::from_millis(u64::from(case.session_timeout) * t_ms - t_ms / 2);
    let addr = SocketAddr::from(([127, 0, 0, 1], server_port));
    let chroot = format!("/case{n}");
    // The test's own sessions never expire, and a stalled machine should
    // not break their connections: a long timeout.
    let long = Duration::from_secs(20);
    let admin = ZkClient::connect(&format!("127.0.0.1:{server_port}"), long).expect("connects");
    admin.ensure(&chroot).expect("the case's root");
    admin.ensure(&format!("{chroot}/lock")).expect("/lock");
    let observer = ZkClient::connect(&format!("127.0.0.1:{server_port}{chroot}"), long).expect("connects");
    let sides = (0..CLIENTS)
        .map(|_| Side {
            proxy: Proxy::start(addr).expect("a proxy"),
            real: None,
            session: 0,
            expired: false,
            crashed: false,
            cut: false,
            zxid: 0,
            expired_at: None,
            exists_watch: None,
            child_watch: false,
            nodes: Vec::new(),
        })
        .collect();
    let mut run = Run {
        chroot,
        timeout,
        // Cases running at once keep their grid points apart.
        clock: Clock {
            start: Instant::now() + tick + tick * (n % 5) as u32 / 5,
            tick,
            now: 0,
        },
        m: Model::new(case.session_timeout),
        sides,
        observer,
        guids: BTreeMap::new(),
        real_czxid: BTreeMap::new(),
        seqs: BTreeMap::new(),
        cversion: 0,
        created: Vec::new(),
        next_value: 0,
        log,
    };
    log_case(&mut run, case);
    for (i, op) in case.ops.iter().enumerate() {
        run.clock.wait_for_grid();
        run.log.push(format!("tick {}: {op:?}", run.clock.now));
        let result = run.op(*op).and_then(|(real, model)| {
            run.log.push(format!("  real {real:?}, model {model:?}"));
            assert_eq!(real, model, "answer to operation {i} ({op:?})\n{}", run.log.join("\n"));
            run.compare_state()
        });
        if let Err(Late(why)) = result {
            run.log.push(format!("  {why}: the case stops here"));
            return Ok(false);
        }
        // The czxid order is the model's (the fencing token's) order.
        let mut by_model: Vec<(u32, i64)> = run.real_czxid.iter().map(|(m, r)| (*m, *r)).collect();
        by_model.sort();
        assert!(
            by_model.windows(2).all(|w| w[0].1 < w[1].1),
            "czxid order differs: {by_model:?}\n{}",
            run.log.join("\n")
        );
        run.advance();
    }
    Ok(true)
}

fn log_case(run: &mut Run<'_>, case: &Case) {
    run.log.push(format!(
        "session timeout {} ticks ({} ms asked), tick {} ms, {}",
        case.session_timeout,
        run.timeout.as_millis(),
        run.clock.tick.as_millis(),
        run.chroot
    ));
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
