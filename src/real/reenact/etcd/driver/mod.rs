//! The driver: one thread that plays every client in the trace's order
//! against one real etcd, each client on its own gRPC connection through a
//! loopback proxy the driver owns (so a cut drops that connection and
//! refuses new ones until the heal).
//!
//! Lockstep, as the Redis driver: a request is sent at the step where the
//! trace delivers it to etcd, and etcd's real answer is held until the
//! trace delivers the model's answer to the client; only then does the
//! client learn it, and only then is it compared. Keep-alives are the
//! model's, sent as real `LeaseKeepAlive`s at their delivery steps: the
//! blocking client runs its runtime only inside a call, so no keep-alive
//! loop of the library runs behind the trace's back, and a paused client
//! sends nothing. Lease expiry is etcd's own timer.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::thread::sleep;
use std::time::{Duration, Instant};

mod answers;
mod network;
mod requests;

use super::plan::{self, SERVER};
use crate::algorithms::etcd_lease::{ClientKind, Node, Params, Timer};
use crate::real::etcd::{EtcdClient, EtcdServer, WatchId};
use crate::real::reenact::judge::{Store, Witness};
use crate::real::zookeeper::Proxy;
use crate::world::{Action, Id, WorldState};

/// The lock's key prefix, as `concurrency.NewMutex(session, "/lock/")`.
const PREFIX: &str = "/lock/";

/// How the real side is configured (from the trace's scenario, or the one
/// `--scenario` names).
pub(super) struct Config {
    pub p: Params,
    pub tick: Duration,
    /// The TTL (whole seconds) granted to etcd: the model's TTL in ticks,
    /// plus one second or more (module doc of `etcd`).
    pub real_ttl: i64,
}

/// etcd's real answer, held until the trace hands the model's over.
#[derive(Clone, Debug)]
enum Real {
    Granted {
        real: i64,
        ttl: i64,
    },
    /// The TTL renewed, 0 when the lease is gone, `None` for alive with the
    /// TTL unreported (a stream's first keep-alive).
    KeepAlive(Option<i64>),
    Locked {
        rev: i64,
        pred: Option<(String, i64)>,
    },
    LeaseNotFound,
    Range {
        pred: Option<(String, i64)>,
        mine: bool,
    },
    Unlocked {
        deleted: bool,
    },
    /// The request failed (no connection, an error from etcd).
    Failed(String),
}

/// Which request an answer answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Grant,
    KeepAlive,
    Lock,
    Range,
    Unlock,
}

/// What the driver knows of one client: what etcd really told it.
struct Client {
    proxy: Proxy,
    conn: Option<EtcdClient>,
    down: bool,
    /// Held answers: their kind, the model lease they are for, etcd's answer.
    held: Vec<(Kind, u32, Real)>,
    /// The current attempt, counted from 1.
    attempt: u32,
    /// Every real answer this attempt's logic used agreed with the model's.
    agreed: bool,
    /// The real configuration's own logic ended the attempt (its key gone,
    /// its validity too short), where the trace's client went on.
    gave_up: bool,
    /// This attempt's key and its real create revision (0: none yet).
    key: String,
    rev: i64,
    /// The real predecessor's key and the header revision of the query
    /// that found it (the watch starts there).
    pred: Option<(String, i64)>,
    watch: Option<WatchId>,
    /// A validity client's lease end on the real clock: TTL − drift from
    /// the last grant or keep-alive answer.
    valid_until: Option<Instant>,
    checked: Option<bool>,
    acquisition: u32,
    skipped_write: bool,
}

impl Client {
    /// A new attempt (or a restarted process): nothing known yet.
    fn fresh(&mut self, attempt: u32) {
        self.held.clear();
        self.attempt = attempt;
        self.agreed = true;
        self.gave_up = false;
        self.key.clear();
        self.rev = 0;
        self.pred = None;
        self.watch = None;
        self.valid_until = None;
        self.checked = None;
        self.acquisition = 0;
        self.skipped_write = false;
    }

    /// The connection broke: its streams and whatever was in flight go.
    fn drop_connection(&mut self) {
        self.conn = None;
        self.watch = None;
        self.held.clear();
    }
}

pub(super) struct Driver<'a> {
    cfg: &'a Config,
    /// The etcd process: held so that it runs until the driver is dropped.
    _etcd: EtcdServer,
    /// The driver's own connection (not through a proxy), to watch leases.
    admin: EtcdClient,
    clients: Vec<Client>,
    /// Model lease ID → real lease ID.
    leases: HashMap<u32, i64>,
    /// When each real lease was last refreshed (granted or kept alive).
    refreshed: HashMap<i64, Instant>,
    store: Store,
    start: Instant,
    ticks: u32,
    names: Vec<String>,
    pub log: Vec<String>,
    pub witness: Witness,
}

fn err(what: &str, e: impl std::fmt::Display) -> String {
    format!("{what}: {e}")
}

fn key_of(real: i64) -> String {
    format!("{PREFIX}{real:x}")
}

impl<'a> Driver<'a> {
    /// Starts etcd, one proxy per client, and connects every client.
    pub fn start(cfg: &'a Config, bin: &std::path::Path, names: Vec<String>) -> Result<Driver<'a>, String> {
        let server = EtcdServer::start(bin).map_err(|e| err("etcd did not start", e))?;
        let mut admin = server.connect().map_err(|e| err("cannot connect to etcd", e))?;
        let base = admin.revision().map_err(|e| err("cannot read etcd's revision", e))?;
        let target = SocketAddr::from(([127, 0, 0, 1], server.client_port()));
        let mut clients = Vec::new();
        for c in 0..usize::from(cfg.p.clients) {
            let proxy = Proxy::start(target).map_err(|e| err("a proxy did not start", e))?;
            let conn = EtcdClient::connect(&format!("http://{}", proxy.addr()))
                .map_err(|e| err(&format!("c{} cannot connect through its proxy", c + 1), e))?;
            let mut cl = Client {
                proxy,
                conn: Some(conn),
                down: false,
                held: Vec::new(),
                attempt: 0,
                agreed: true,
                gave_up: false,
                key: String::new(),
                rev: 0,
                pred: None,
                watch: None,
                valid_until: None,
                checked: None,
                acquisition: 0,
                skipped_write: false,
            };
            cl.fresh(0);
            clients.push(cl);
        }
        let ports: Vec<String> = clients.iter().map(|c| c.proxy.addr()).collect();
        let log = vec![format!(
            "real: etcd on port {} (data in {}), revision {base} at the start; clients through proxies at {}",
            server.client_port(),
            server.dir().display(),
            ports.join(", ")
        )];
        Ok(Driver {
            cfg,
            _etcd: server,
            admin,
            clients,
            leases: HashMap::new(),
            refreshed: HashMap::new(),
            store: Store::new(cfg.p.fencing),
            start: Instant::now(),
            ticks: 0,
            names,
            log,
            witness: Witness::default(),
        })
    }

    /// The schedule starts now: tick k is at start + k · tick.
    pub fn begin(&mut self) {
        self.start = Instant::now();
    }

    fn at(&self) -> String {
        format!("{:>6} ms", self.start.elapsed().as_millis())
    }

    fn grid(&self) -> Instant {
        self.start + self.cfg.tick * self.ticks
    }

    /// The model's client index of node `id` (c1 is 0).
    fn index(&self, id: Id) -> Option<usize> {
        (1..=self.clients.len()).contains(&id).then(|| id - 1)
    }

    fn validity(&self) -> bool {
        self.cfg.p.client == ClientKind::Validity
    }

    /// TTL − drift: what a validity client counts from each answer.
    fn validity_window(&self) -> Duration {
        self.cfg.tick * u32::from(self.cfg.p.ttl.saturating_sub(self.cfg.p.drift))
    }

    /// Runs step `k` (0-based); `before` and `after` are the model's
    /// states around it, `model` whether the model's client logic holds
    /// the lock after it (by client index).
    pub fn step(
        &mut self,
        k: usize,
        a: &Action<Node>,
        before: &WorldState<Node>,
        after: &WorldState<Node>,
        model: &[bool],
        does: &str,
    ) {
        let what = self.enact(k, a, before, after);
        let now = Instant::now();
        let holding: Vec<usize> = (0..self.clients.len())
            .filter(|&c| self.holds(c, model.get(c).copied().unwrap_or(false), now))
            .collect();
        for &c in &holding {
            self.witness.grant(&mut self.clients[c].acquisition);
        }
        let tail = self.witness.holders(k, &holding, |c| {
            let cl = &self.clients[c];
            format!("c{} (its key {} created at revision {})", c + 1, cl.key, cl.rev)
        });
        let mut line = format!("{} step {:>2}: {does}\n           real: {what}{tail}", self.at(), k + 1);
        for c in (0..self.clients.len()).filter(|c| model.get(*c) == Some(&true) && !holding.contains(c)) {
            line.push_str(&format!(
                "\n           c{} holds by the trace, not by the real answers: {}",
                c + 1,
                self.why_not(c, now)
            ));
        }
        self.log.push(line);
    }

    /// Whether client `c` holds by the real answers: the trace's client
    /// logic says it holds (`model`), every real answer that logic used in
    /// this attempt agreed with the model's, and a validity client's real
    /// clock leaves it time (module doc of `etcd`: counted to the nearest
    /// tick).
    fn holds(&self, c: usize, model: bool, now: Instant) -> bool {
        let cl = &self.clients[c];
        let within =
            !self.validity() || cl.checked == Some(true) || cl.valid_until.is_some_and(|t| now + self.cfg.tick / 2 < t);
        model && !cl.down && cl.agreed && !cl.gave_up && cl.checked != Some(false) && !cl.skipped_write && within
    }

    /// Why client `c` does not hold by the real answers.
    fn why_not(&self, c: usize, now: Instant) -> &'static str {
        let cl = &self.clients[c];
        if cl.down {
            "it is down"
        } else if !cl.agreed {
            "a real answer in this attempt differed from the trace's"
        } else if cl.gave_up || cl.checked == Some(false) {
            "the real configuration's client gave up this attempt"
        } else if cl.skipped_write {
            "it made no write"
        } else if cl.valid_until.is_none_or(|t| now + self.cfg.tick / 2 >= t) {
            "its lease's validity ran out on its real clock"
        } else {
            "unknown"
        }
    }

    /// Marks a disagreement: the client does not hold until its next
    /// attempt.
    fn differs(&mut self, c: usize, what: String) -> String {
        self.witness.differences += 1;
        self.clients[c].agreed = false;
        format!(
            "DIFFERS: {what}; c{} does not count as holding until its next attempt",
            c + 1
        )
    }

    fn enact(&mut self, k: usize, a: &Action<Node>, before: &WorldState<Node>, after: &WorldState<Node>) -> String {
        match a {
            Action::Tick => self.tick(),
            Action::Step { node, step } => self.client_step(*node, *step, before, after),
            Action::Fire { node, timer } if *node == SERVER => match timer {
                Timer::LeaseExpiry { slot } => self.expiry(plan::lease_in_slot(before, *slot)),
                other => format!("nothing real: the server's {other:?}"),
            },
            Action::Fire { node, timer } => format!(
                "nothing real: {}'s {timer:?} timer is the client's own (what it does next is the trace's)",
                self.name(*node)
            ),
            Action::Deliver { src, dst, msg } => self.deliver(k, *src, *dst, msg, before, after),
            Action::Lose { src, dst, msg } => self.lose(*src, *dst, msg),
            Action::Partition { a, b } => self.partition(*a, *b),
            Action::Heal => {
                for cl in &self.clients {
                    cl.proxy.heal();
                }
                "every proxy accepts connections again".into()
            }
            Action::Disconnected { node, .. } => match self.index(*node) {
                Some(c) => {
                    let had = self.clients[c].conn.is_some();
                    self.clients[c].drop_connection();
                    if had {
                        format!("c{}'s client closes its broken connection", c + 1)
                    } else {
                        format!("c{}'s connection was closed at the break", c + 1)
                    }
                }
                None => "nothing real".into(),
            },
            Action::Reconnect { node, .. } => match self.index(*node) {
                Some(c) => match self.connect(c) {
                    Ok(()) => format!("c{} opens a new connection to etcd through its proxy", c + 1),
                    Err(e) => format!("c{} cannot reconnect: {e}", c + 1),
                },
                None => "nothing real".into(),
            },
            Action::Pause { node, ticks } => format!(
                "{} takes no step and sends nothing for {ticks} tick(s) (its keep-alives stop; etcd's clock runs)",
                self.name(*node)
            ),
            Action::Crash { node } => match self.index(*node) {
                Some(c) => {
                    let cl = &mut self.clients[c];
                    cl.drop_connection();
                    cl.down = true;
                    format!(
                        "c{} stops: its connection closes (its lease now runs out on etcd's clock)",
                        c + 1
                    )
                }
                None => "nothing real".into(),
            },
            Action::Restart { node } => match self.index(*node) {
                Some(c) => {
                    let attempt = self.clients[c].attempt;
                    self.clients[c].fresh(attempt);
                    self.clients[c].down = false;
                    format!("c{} starts again, remembering nothing", c + 1)
                }
                None => "nothing real".into(),
            },
            // Refused by the plan before the run.
            Action::Cut { .. } | Action::Duplicate { .. } | Action::ClockJump { .. } | Action::Drift { .. } => {
                "not enactable".into()
            }
        }
    }

    fn name(&self, id: Id) -> String {
        self.names.get(id).cloned().unwrap_or_else(|| format!("node {id}"))
    }

    /// One tick: sleep until the next point of the schedule.
    fn tick(&mut self) -> String {
        self.ticks += 1;
        let at = self.grid();
        let now = Instant::now();
        if at > now {
            sleep(at - now);
            format!("tick {} begins (slept {} ms)", self.ticks, (at - now).as_millis())
        } else {
            format!(
                "tick {} begins {} ms late (the steps before took longer than the tick)",
                self.ticks,
                (now - at).as_millis()
            )
        }
    }

    fn connect(&mut self, c: usize) -> Result<(), String> {
        let addr = format!("http://{}", self.clients[c].proxy.addr());
        let conn = EtcdClient::connect(&addr).map_err(|e| err("connect", e))?;
        self.clients[c].conn = Some(conn);
        Ok(())
    }

    /// Client `c`'s connection, opened now if it has none (after a
    /// restart).
    fn conn(&mut self, c: usize) -> Result<&mut EtcdClient, String> {
        if self.clients[c].conn.is_none() {
            self.connect(c)?;
        }
        self.clients[c].conn.as_mut().ok_or_else(|| "no connection".to_string())
    }

    fn client_step(
        &mut self,
        node: Id,
        step: crate::algorithms::etcd_lease::Step,
        before: &WorldState<Node>,
        after: &WorldState<Node>,
    ) -> String {
        use crate::algorithms::etcd_lease::Step;
        let Some(c) = self.index(node) else {
            return "nothing real".into();
        };
        match step {
            Step::Acquire => {
                let attempt = self.clients[c].attempt + 1;
                self.clients[c].fresh(attempt);
                format!("c{} starts attempt {attempt} (a new session)", c + 1)
            }
            Step::Check => {
                let model_ok = plan::client(after, node).is_some_and(|m| m.checked);
                let (ok, what) = self.check(c);
                if !self.validity() {
                    return format!("c{} checks nothing (the real configuration's client is naive)", c + 1);
                }
                if ok == model_ok {
                    format!("{what} (as the trace's client)")
                } else {
                    let d = self.differs(
                        c,
                        format!("the trace's client {}", if model_ok { "goes on" } else { "gives up" }),
                    );
                    format!("{what}; {d}")
                }
            }
            Step::Write => {
                let _ = before;
                let mut notes = String::new();
                if self.validity() && self.clients[c].checked.is_none() {
                    // A naive trace run with a validity client: the real
                    // client checks before it writes, as its logic does.
                    let (_, what) = self.check(c);
                    notes = format!("{what}; ");
                }
                let cl = &mut self.clients[c];
                if !cl.agreed || cl.gave_up || cl.checked == Some(false) || cl.down {
                    cl.skipped_write = true;
                    format!(
                        "{notes}c{} does not write: by etcd's real answers it does not hold the lock",
                        c + 1
                    )
                } else {
                    format!(
                        "{notes}c{} writes to the resource (token: real revision {})",
                        c + 1,
                        cl.rev
                    )
                }
            }
        }
    }

    /// A validity client's check on the real clock: more than the margin
    /// left (module doc: to the nearest tick).
    fn check(&mut self, c: usize) -> (bool, String) {
        let now = Instant::now();
        let left = self.clients[c]
            .valid_until
            .map(|t| t.saturating_duration_since(now))
            .unwrap_or_default();
        let need = self.cfg.tick * u32::from(self.cfg.p.margin) + self.cfg.tick / 2;
        let ok = left > need;
        if self.validity() {
            self.clients[c].checked = Some(ok);
        }
        (
            ok,
            format!(
                "c{} has {} ms of validity left on its real clock; margin {} ticks ({} ms with half a tick of rounding): {}",
                c + 1,
                left.as_millis(),
                self.cfg.p.margin,
                need.as_millis(),
                if ok { "goes on" } else { "gives up" }
            ),
        )
    }

    /// The model's lease expiry: etcd's own lessor revokes the real lease;
    /// the driver waits (up to a tick) until it is gone.
    fn expiry(&mut self, model: u32) -> String {
        let Some(&real) = self.leases.get(&model) else {
            return format!("no real lease stands for the model's lease {model}: nothing to wait for");
        };
        let began = Instant::now();
        let since_grid = (began - self.grid().min(began)).as_millis();
        let gone = loop {
            match self.admin.time_to_live(real) {
                Ok(None) => break true,
                Ok(Some(_)) | Err(_) if began.elapsed() < self.cfg.tick => sleep(Duration::from_millis(10)),
                _ => break false,
            }
        };
        let waited = began.elapsed().as_millis();
        let after_refresh = self
            .refreshed
            .get(&real)
            .map(|t| format!("{} ms after its last refresh", t.elapsed().as_millis()))
            .unwrap_or_default();
        if gone {
            format!(
                "etcd's lessor revoked lease {real:x} by itself (TTL {} s): gone after waiting {waited} ms from {since_grid} ms into the tick, {after_refresh}",
                self.cfg.real_ttl
            )
        } else {
            format!(
                "NOT GONE: etcd still has lease {real:x} after waiting a tick ({waited} ms, {after_refresh}); the answers that follow may differ"
            )
        }
    }
}
