//! `reenact` for zookeeper traces: the trace's schedule run against a real
//! standalone ZooKeeper (Debian's 3.8.0, [`crate::real::zookeeper`]), each
//! client a session of the real `zookeeper-client` library through a
//! loopback proxy the driver owns.
//!
//! Lockstep, as for Redis: a request goes to the real ensemble at the step
//! where the trace delivers it there, and its real answer is held until the
//! trace delivers the model's answer to the client, where the two are
//! compared. What the library does by itself stays the library's: pings,
//! noticing a broken connection, reconnecting with its session and
//! re-registering its watches. What the ensemble does by itself stays
//! ZooKeeper's: a session expires on its own clock (a session timeout of n
//! ticks is asked for as n·T − T/2, so that it expires before the model's
//! grid point), deleting its ephemeral nodes and firing watches. Faults:
//! a client's pause freezes its proxy (nothing it sends or is sent moves,
//! its pings included, as in a stop-the-world pause); a client's crash cuts
//! its proxy and drops the session without `closeSession`; a cut link cuts
//! the proxy until the heal; a lost message breaks the connection (cut and
//! heal at once). A clock jump or drift of a client, a duplicate or a
//! one-way cut has no real counterpart: the trace is not enactable.
//!
//! Judging, as for Redis: a client holds the lock by the real answers when
//! the trace's client logic says it holds and every real answer its logic
//! used in this attempt agreed with the model's (the same children in the
//! same order, the node there or not, the watch event, the session not
//! expired) and, for a Curator client, the real library was connected when
//! it checked. The first disagreement takes the client out of the count
//! until its next attempt, and is counted and logged with both answers.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::thread::sleep;
use std::time::{Duration, Instant};

use zookeeper_client as zk;

use crate::algorithms::zookeeper::{ClientKind, Mode, Msg, Node, Params, Step, Timer};
use crate::algorithms::{dispatch, resource::ResourceMsg};
use crate::properties::Prop;
use crate::real::zookeeper::{find_zookeeper, Event, Proxy, ZkClient, ZkInstall, ZkServer};
use crate::scenario::Scenario;
use crate::trace::{Replay, TraceFile};
use crate::world::{Action, Id};

use super::judge::{Store, Witness};
use super::{log_header, other_configuration, verdict, Options, Shadow};

mod client;

/// One tick in real time unless `--tick-ms` says otherwise: ZooKeeper's
/// own tick is a quarter of it, the granularity of its session expiry.
pub const DEFAULT_TICK_MS: u64 = 300;

/// The ensemble is node 0, the clients 1..=n, the resource n + 1.
const ENSEMBLE: Id = 0;

/// A real answer, as the recipe reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Real {
    /// `create` succeeded: the node's name and czxid.
    Created {
        name: String,
        czxid: i64,
    },
    /// `getChildren /lock`: (guid, mode word) in sequence order.
    Children(Vec<(u32, String)>),
    Stat(bool),
    Deleted,
    SessionExpired,
    ConnectionLoss,
    Failed(String),
}

/// What the driver knows of one client.
struct Side {
    proxy: Proxy,
    client: Option<ZkClient>,
    /// Real answers sent and not yet delivered by the trace, oldest first.
    pending: VecDeque<Real>,
    /// Watch events received and not yet delivered by the trace.
    events: Vec<Event>,
    /// Every real answer of this attempt agreed with the model's.
    agrees: bool,
    /// This attempt's node: real name and czxid.
    node: Option<(String, i64)>,
    acquisition: u32,
    paused: u8,
    crashed: bool,
    /// Its link to the ensemble is cut.
    cut: bool,
    /// The real sessions it opened, oldest first.
    sessions: Vec<i64>,
}

struct Run<'a> {
    p: Params,
    tick: Duration,
    start: Instant,
    ticks: u32,
    server: ZkServer,
    observer: ZkClient,
    sides: Vec<Side>,
    /// Model czxid → the guid (attempt value) of the node's creator.
    guid_of: BTreeMap<u32, u32>,
    /// guid → real node name.
    real_name: BTreeMap<u32, String>,
    store: Store,
    witness: Witness,
    log: Vec<String>,
    names: &'a [String],
}

/// Reenacts a zookeeper trace; returns the log and the verdict.
pub fn reenact(shown: &str, trace: &TraceFile, prop: Prop, sc: &Scenario, opts: &Options) -> (String, Replay) {
    let mut log = String::new();
    let invalid = |why: String| Replay::Invalid(format!("{shown}: cannot be enacted: {why}"));
    let real_sc = match &opts.scenario {
        None => sc.clone(),
        Some(name) => match other_configuration(name, sc) {
            Ok(o) => o,
            Err(e) => return (log, Replay::Invalid(e)),
        },
    };
    let (p, model_p) = match (Params::read(&real_sc), Params::read(sc)) {
        (Ok(p), Ok(m)) => (p, m),
        (Err(e), _) | (_, Err(e)) => return (log, invalid(e.to_string())),
    };
    if p.clients != model_p.clients || p.recipe != model_p.recipe || p.readers != model_p.readers {
        return (
            log,
            Replay::Invalid(format!(
                "--scenario {}: its clients differ from the trace's scenario {}; allowed: a scenario with the same clients and recipe",
                real_sc.name, sc.name
            )),
        );
    }
    let mut actions = Vec::new();
    for (i, step) in trace.steps.iter().enumerate() {
        let a: Action<Node> = match serde_json::from_value(step.action.clone()) {
            Ok(a) => a,
            Err(e) => {
                return (
                    log,
                    invalid(format!("step {} is not an action of this model: {e}", i + 1)),
                )
            }
        };
        if let Some(why) = unsupported(&a, p.clients) {
            return (log, invalid(format!("step {} ({}): {why}", i + 1, step.does)));
        }
        actions.push(a);
    }
    let (holding, names) = match dispatch(sc, Shadow { trace }) {
        Ok(Ok(h)) => h,
        Ok(Err(e)) | Err(crate::scenario::ScenarioError(e)) => return (log, invalid(e)),
    };
    // A command, not a test: a missing ZooKeeper is exit 2 whatever `CI` says.
    let Some(install) = find_zookeeper() else {
        return (
            log,
            invalid("ZooKeeper is not installed (Debian's zookeeper package, on Java; or set ZOOKEEPER_JAR)".into()),
        );
    };
    let tick_ms = opts.tick_ms.unwrap_or(DEFAULT_TICK_MS);
    log_header(&mut log, shown, trace, prop, &real_sc, tick_ms, "");
    let _ = writeln!(
        log,
        "how: one driver plays every client in the trace's order through the zookeeper-client library, each through its own loopback proxy (a request is sent at its delivery step and its answer held until the trace delivers it; pings, reconnects and SetWatches are the library's; session expiry is the server's); a pause freezes the client's proxy; the resource is an in-process store"
    );
    let mut run = match Run::start(p, &install, tick_ms, &names) {
        Ok(r) => r,
        Err(e) => return (log, invalid(e)),
    };
    let _ = writeln!(
        log,
        "ZooKeeper: {}",
        run.server.srvr().unwrap_or_default().lines().next().unwrap_or("")
    );
    let mut failed = None;
    for (k, a) in actions.iter().enumerate() {
        let held: Vec<bool> = (1..=usize::from(p.clients))
            .map(|n| holding[k] & (1 << n) != 0)
            .collect();
        if let Err(e) = run.step(k, a, &held, &trace.steps[k].does) {
            failed = Some(format!("step {} ({}): {e}", k + 1, trace.steps[k].does));
            break;
        }
    }
    for line in &run.log {
        let _ = writeln!(log, "{line}");
    }
    let outcome = match failed {
        Some(e) => invalid(e),
        None => verdict(shown, prop, &run.witness, &real_sc, "ZooKeeper"),
    };
    run.stop();
    (log, outcome)
}

/// Why an action has no real counterpart, if it has none.
fn unsupported(a: &Action<Node>, clients: u8) -> Option<String> {
    let client = |n: Id| (1..=usize::from(clients)).contains(&n);
    match a {
        Action::ClockJump { .. } => Some("a clock jump has no real counterpart in reenact (moving a process's clock needs privileges this machine does not grant)".into()),
        Action::Drift { .. } => Some("clock drift has no real counterpart in reenact (a process's clock rate cannot be changed)".into()),
        Action::Duplicate { .. } => Some("a duplicated message has no real counterpart on a TCP connection".into()),
        Action::Cut { .. } => Some("a one-way cut has no real counterpart in reenact (the proxy cuts a TCP connection both ways)".into()),
        Action::Crash { node } | Action::Restart { node } | Action::Pause { node, .. } if !client(*node) => {
            Some("only clients are crashed, restarted or paused in reenact (the ensemble is one real server)".into())
        }
        _ => None,
    }
}

fn io(what: &str, e: impl std::fmt::Display) -> String {
    format!("{what}: {e}")
}

/// The mode's word in a node name, as the recipes name them.
fn mode_word(m: Mode) -> &'static str {
    match m {
        Mode::Exclusive => "lock",
        Mode::Read => "read",
        Mode::Write => "write",
    }
}

/// `_c_g<guid>-<mode>-<seq>` → (guid, mode word).
fn parse_name(name: &str) -> Option<(u32, String)> {
    let rest = name.strip_prefix("_c_g")?;
    let (guid, rest) = rest.split_once('-')?;
    let (mode, _) = rest.rsplit_once('-')?;
    Some((guid.parse().ok()?, mode.to_string()))
}

/// A library error as the recipe sees it.
fn real_error(e: zk::Error) -> Real {
    match e {
        zk::Error::SessionExpired => Real::SessionExpired,
        zk::Error::ConnectionLoss => Real::ConnectionLoss,
        e => Real::Failed(e.to_string()),
    }
}

impl<'a> Run<'a> {
    fn start(p: Params, install: &ZkInstall, tick_ms: u64, names: &'a [String]) -> Result<Run<'a>, String> {
        let server = ZkServer::start(install, (tick_ms / 4).max(10)).map_err(|e| io("ZooKeeper does not start", e))?;
        let target = SocketAddr::from(([127, 0, 0, 1], server.port()));
        let tick = Duration::from_millis(tick_ms);
        let observer = ZkClient::connect(&server.addr(), tick * 10).map_err(|e| io("the observer session", e))?;
        observer.ensure("/lock").map_err(|e| io("create /lock", e))?;
        let mut sides = Vec::new();
        for _ in 0..p.clients {
            sides.push(Side {
                proxy: Proxy::start(target).map_err(|e| io("a proxy", e))?,
                client: None,
                pending: VecDeque::new(),
                events: Vec::new(),
                agrees: true,
                node: None,
                acquisition: 0,
                paused: 0,
                crashed: false,
                cut: false,
                sessions: Vec::new(),
            });
        }
        Ok(Run {
            p,
            tick,
            start: Instant::now(),
            ticks: 0,
            server,
            observer,
            sides,
            guid_of: BTreeMap::new(),
            real_name: BTreeMap::new(),
            store: Store::new(p.fencing),
            witness: Witness::default(),
            log: Vec::new(),
            names,
        })
    }

    fn name(&self, n: Id) -> &str {
        self.names.get(n).map_or("?", String::as_str)
    }

    /// The session timeout asked of the server: n·T − T/2.
    fn session_timeout(&self) -> Duration {
        self.tick * u32::from(self.p.session_timeout) - self.tick / 2
    }

    fn step(&mut self, k: usize, a: &Action<Node>, model: &[bool], does: &str) -> Result<(), String> {
        let what = self.enact(k, a)?;
        let holding: Vec<usize> = (0..self.sides.len())
            .filter(|&c| model[c] && self.sides[c].agrees && !self.sides[c].crashed)
            .collect();
        for &c in &holding {
            self.witness.grant(&mut self.sides[c].acquisition);
        }
        // `mutual_exclusion` counts readers too (the read-write recipe's
        // readers break it by design; `rw_exclusion` is not reenacted).
        let tail = self.witness.holders(k, &holding, |c| {
            let node = self.sides[c].node.as_ref();
            let node = node.map_or("no node".to_string(), |(n, z)| format!("/lock/{n}, czxid {z}"));
            format!("c{} ({node})", c + 1)
        });
        let at = self.start.elapsed().as_millis();
        let line = format!("[{at:>6} ms] step {:>2}: {does}\n           real: {what}{tail}", k + 1);
        self.log.push(line);
        Ok(())
    }

    fn enact(&mut self, k: usize, a: &Action<Node>) -> Result<String, String> {
        Ok(match a {
            Action::Tick => self.pass_tick(),
            Action::Step { node, step } => self.client_step(node - 1, *step),
            Action::Fire { node, timer } => match timer {
                Timer::SessionExpiry { slot } => self.expiry(usize::from(*slot) / usize::from(self.p.slots)),
                t => format!(
                    "{}'s {t:?} timer (the model client's; the library keeps its own)",
                    self.name(*node)
                ),
            },
            Action::Deliver { src, dst, msg } if *dst == ENSEMBLE => self.request(src - 1, msg),
            Action::Deliver { src, dst, msg } if *src == ENSEMBLE => self.answer(dst - 1, msg),
            Action::Deliver {
                src,
                msg: Msg::Resource(ResourceMsg::Write { .. }),
                ..
            } => self.write(k, src - 1),
            // The resource's answer: the one the store holds for the client.
            Action::Deliver { dst, .. } => match self.store.answer(dst - 1) {
                Some(true) => format!("c{dst} learns its write was accepted"),
                Some(false) => format!("c{dst} learns its write was rejected (fencing)"),
                None => format!("c{dst} gets no answer: it made no write"),
            },
            Action::Pause { node, ticks } => {
                let s = &mut self.sides[node - 1];
                s.paused = *ticks;
                s.proxy.freeze();
                format!(
                    "c{}'s proxy freezes for {ticks} ticks (its library's pings stop reaching the server)",
                    node
                )
            }
            Action::Crash { node } => {
                let s = &mut self.sides[node - 1];
                s.proxy.cut();
                s.client = None;
                s.crashed = true;
                s.pending.clear();
                format!("c{node} stops: its connection is cut and its session left to expire (no closeSession)")
            }
            Action::Restart { node } => {
                let s = &mut self.sides[node - 1];
                s.proxy.heal();
                s.crashed = false;
                s.agrees = true;
                s.node = None;
                s.acquisition = 0;
                format!("c{node} restarts with nothing")
            }
            Action::Partition { a, b } => match (a, b) {
                (&ENSEMBLE, c) | (c, &ENSEMBLE) => {
                    self.sides[c - 1].proxy.cut();
                    self.sides[c - 1].cut = true;
                    format!("c{c}'s connection to ZooKeeper is cut (new ones refused until the heal)")
                }
                _ => "a cut between a client and the resource (in-process: nothing to do)".into(),
            },
            Action::Heal => {
                for s in &mut self.sides {
                    s.cut = false;
                    s.proxy.heal();
                    if s.paused > 0 {
                        s.proxy.freeze();
                    }
                }
                "every proxy accepts connections again".into()
            }
            Action::Lose { src, dst, .. } => match (src, dst) {
                (&ENSEMBLE, c) | (c, &ENSEMBLE) => {
                    let s = &self.sides[c - 1];
                    s.proxy.cut();
                    s.proxy.heal();
                    format!("c{c}'s connection breaks (the proxy drops it; the library reconnects)")
                }
                _ => "a message to or from the resource is lost (in-process: nothing to do)".into(),
            },
            Action::Disconnected { node, .. } => {
                format!("c{node} notices the break: the library does so by itself")
            }
            Action::Reconnect { node, .. } => {
                let c = node - 1;
                let state = self.wait_connected(c);
                format!("c{node} reconnects: the library's session is {state:?}")
            }
            Action::ClockJump { .. } | Action::Drift { .. } | Action::Duplicate { .. } | Action::Cut { .. } => {
                return Err("no real counterpart (refused before the run)".into())
            }
        })
    }

    /// One tick of real time, on the schedule start + k·T.
    fn pass_tick(&mut self) -> String {
        self.ticks += 1;
        let due = self.start + self.tick * self.ticks;
        let now = Instant::now();
        let late = now.saturating_duration_since(due);
        if now < due {
            sleep(due - now);
        }
        let mut notes = Vec::new();
        for (c, s) in self.sides.iter_mut().enumerate() {
            if s.paused > 0 {
                s.paused -= 1;
                if s.paused == 0 {
                    s.proxy.heal();
                    notes.push(format!("c{} resumes (its proxy thaws)", c + 1));
                }
            }
        }
        let mut text = format!("{} ms pass (tick {})", self.tick.as_millis(), self.ticks);
        if late > self.tick / 4 {
            let _ = write!(text, "; the driver was {} ms late", late.as_millis());
        }
        for n in notes {
            let _ = write!(text, "; {n}");
        }
        text
    }

    /// Waits up to a tick for client `c`'s library to be connected again.
    fn wait_connected(&self, c: usize) -> Option<zk::SessionState> {
        let cl = self.sides[c].client.as_ref()?;
        let deadline = Instant::now() + self.tick;
        while cl.state() != zk::SessionState::SyncConnected && Instant::now() < deadline {
            sleep(Duration::from_millis(5));
        }
        Some(cl.state())
    }

    /// Client `c`'s write reaches the resource: fenced by the real czxid.
    fn write(&mut self, k: usize, c: usize) -> String {
        let s = &self.sides[c];
        let (acq, token) = (s.acquisition, s.node.as_ref().map_or(0, |(_, z)| *z));
        if !s.agrees || acq == 0 {
            return format!("c{}'s write is not made by the real answers (it does not hold)", c + 1);
        }
        self.store.write(&mut self.witness, k, c, acq, token, "czxid")
    }

    fn stop(mut self) {
        self.sides.clear();
        drop(self.observer);
        self.server.kill();
    }
}
