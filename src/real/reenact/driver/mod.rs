//! The driver: one thread that plays every client, in the trace's order,
//! against real `redis-server` processes.
//!
//! Why one deterministic driver rather than a thread per client: the trace
//! fixes the order of every event (which request reaches which server
//! when, which answer arrives when), and client threads would add the
//! operating system's scheduling to that order, so a run could enact a
//! different interleaving from the one the trace shows. With one driver a
//! request is sent exactly at its delivery step, its reply (Redis answers
//! at once) is held until the trace delivers it, a paused client simply
//! takes no step, and time passes only as real sleeps at the trace's ticks.
//! What is real is what matters: the servers' answers, their expiry
//! clocks, crashes (`SIGKILL`), restarts with or without the AOF, and the
//! Sentinel's failover.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::thread::sleep;
use std::time::{Duration, Instant};

use super::judge::{Store, Witness};
use super::plan::{Answer, Fence, Keep, Op, Part, RedisFamily, Request, Setup};
use crate::real::{Persistence, RedisServer, SentinelTiming, SENTINEL_MASTER};
use crate::world::Id;

mod send;
mod servers;
use servers::{info, master_port, role, sentinel_replicas, wait_for};

/// The lock's key, and the fencing counter's.
const KEY: &str = "lock";
const FENCE: &str = "fence";

/// `SET NX PX`, and on success `INCR` of the fencing counter: the token.
const SET_AND_FENCE: &str = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then \
     return redis.call('INCR', KEYS[2]) else return 0 end";
/// The documentation's compare-and-delete release.
const COMPARE_AND_DELETE: &str =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
/// Redisson's renewal: `PEXPIRE` only while the value is ours.
const RENEW: &str =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";

/// Slack added to a key's expiry before the driver counts it gone: Redis
/// expires a key once its clock is strictly past the deadline.
const EXPIRY_SLACK: Duration = Duration::from_millis(3);

/// How long a real Sentinel may take to fail over (its start is delayed
/// at random by up to a second, and it polls the promoted replica's `INFO`
/// once a second).
const FAILOVER_WAIT: Duration = Duration::from_secs(20);

/// A server's reply, held by the driver until the trace delivers it.
#[derive(Clone, Debug)]
enum Reply {
    /// To a lock request: set or not, and the fencing token it came with.
    Lock { ok: bool, token: i64, text: String },
    /// To anything else.
    Text(String),
}

/// What the driver knows of one client: what the real servers told it.
#[derive(Clone, Debug, Default)]
struct Client {
    /// The current attempt's number (its value is `c{client}-a{attempt}`).
    attempt: u32,
    /// When the attempt began (the stopwatch of a validity client).
    started: Option<Instant>,
    /// Real `OK` answers to lock requests in this attempt, and from whom.
    oks: u32,
    ok_from: Vec<String>,
    /// Model value → real value, for this client's requests.
    values: BTreeMap<u32, String>,
    token: i64,
    /// The acquisition number of this attempt's real grant (0: none yet).
    acquisition: u32,
    wrote: bool,
    /// A validity client's check: whether real validity was left.
    checked: Option<bool>,
    /// The write was not made (no lock by the real answers).
    skipped_write: bool,
    down: bool,
}

pub struct Driver<'a> {
    setup: &'a Setup,
    tick: Duration,
    servers: Vec<RedisServer>,
    counter: Option<RedisServer>,
    sentinel: Option<RedisServer>,
    /// The server that is primary now (primary-replica).
    primary: usize,
    down_since: BTreeMap<usize, Instant>,
    /// Paused servers and their ticks left.
    paused: BTreeMap<usize, u8>,
    /// Replicas stopped to hold back the replication stream.
    held_replicas: Vec<usize>,
    /// When each server's lock key expires at the latest.
    expiry: BTreeMap<usize, Instant>,
    held: BTreeMap<(Id, usize), VecDeque<Reply>>,
    clients: Vec<Client>,
    store: Store,
    start: Instant,
    ticks: u64,
    /// The model's node names ("s1", "primary"), for the log.
    pub names: Vec<String>,
    pub log: Vec<String>,
    pub witness: Witness,
}

/// An I/O or Redis error, as one sentence.
fn io(what: &str, e: impl std::fmt::Display) -> String {
    format!("{what}: {e}")
}

impl<'a> Driver<'a> {
    /// Starts the real processes of `setup`.
    pub fn start(setup: &'a Setup, bin: &Path, tick: Duration) -> Result<Driver<'a>, String> {
        let persistence = match setup.keep {
            Keep::Fsync => Persistence::AofAlways,
            Keep::Nothing | Keep::Delayed => Persistence::None,
        };
        let mut log = Vec::new();
        let (servers, sentinel) = match setup.family {
            RedisFamily::PrimaryReplica => {
                let (servers, sentinel) = start_replicated(setup, bin, persistence, tick, &mut log)?;
                (servers, Some(sentinel))
            }
            _ => (start_independent(setup, bin, persistence, &mut log)?, None),
        };
        let counter = if setup.fence == Fence::CounterService {
            Some(
                RedisServer::primary(bin, Persistence::AofAlways)
                    .map_err(|e| io("the counter service did not start", e))?,
            )
        } else {
            None
        };
        Ok(Driver {
            setup,
            tick,
            servers,
            counter,
            sentinel,
            primary: 0,
            down_since: BTreeMap::new(),
            paused: BTreeMap::new(),
            held_replicas: Vec::new(),
            expiry: BTreeMap::new(),
            held: BTreeMap::new(),
            clients: vec![Client::default(); setup.clients],
            store: Store::new(setup.fence != Fence::None),
            start: Instant::now(),
            ticks: 0,
            names: Vec::new(),
            log,
            witness: Witness::default(),
        })
    }

    fn ttl(&self) -> Duration {
        self.tick * u32::from(self.setup.ttl)
    }

    fn server_of(&self, node: Id) -> Option<&RedisServer> {
        match self.setup.cast.get(node)? {
            Part::Redis(i) => self.servers.get(*i),
            Part::Counter(_) => self.counter.as_ref(),
            _ => None,
        }
    }

    /// A server as the log names it: `s1 (port 4711)`.
    fn name(&self, node: Id) -> String {
        let port = self.server_of(node).map_or(0, RedisServer::port);
        match self.names.get(node) {
            Some(n) => format!("{n} (port {port})"),
            None => format!("port {port}"),
        }
    }

    fn index(&self, node: Id) -> Option<usize> {
        match self.setup.cast.get(node)? {
            Part::Redis(i) => Some(*i),
            _ => None,
        }
    }

    /// Real time since the run began, for the log.
    fn at(&self) -> String {
        format!("{:>6} ms", self.start.elapsed().as_millis())
    }

    /// Runs step `k` (0-based) of `ops`; `model_holding` is the set of
    /// clients the model says hold the lock after it, by client index.
    /// Returns what the step did on the real system, for the log.
    pub fn step(&mut self, ops: &[Op], k: usize, model_holding: &[bool], does: &str) -> Result<(), String> {
        let what = self.enact(ops, k)?;
        let now = Instant::now();
        // Grants: a client that holds by the real answers for the first
        // time in this attempt gets the next acquisition number.
        let holding: Vec<usize> = (0..self.clients.len())
            .filter(|&c| self.holds(c, model_holding.get(c).copied().unwrap_or(false), now))
            .collect();
        for &c in &holding {
            self.witness.grant(&mut self.clients[c].acquisition);
        }
        let tail = self.witness.holders(k, &holding, |c| {
            format!("c{} (OK from {})", c + 1, self.clients[c].ok_from.join(", "))
        });
        let line = format!("{} step {:>2}: {does}\n           real: {what}{tail}", self.at(), k + 1);
        self.log.push(line);
        Ok(())
    }

    /// Whether client `c` believes it holds the lock, by the real answers:
    /// the trace's client logic says it holds (`model`), and the real
    /// servers gave it the answers that logic needs, within the validity a
    /// validity client measures on its real clock.
    fn holds(&self, c: usize, model: bool, now: Instant) -> bool {
        let cl = &self.clients[c];
        let within = || {
            !self.setup.validity
                || cl.wrote
                || cl.checked == Some(true)
                || cl.started.is_some_and(|t| now < t + self.validity_window())
        };
        model && !cl.down && cl.oks >= self.setup.need && cl.checked != Some(false) && !cl.skipped_write && within()
    }

    /// ttl − drift: what a validity client's lock lasts from its request.
    fn validity_window(&self) -> Duration {
        self.tick * u32::from(self.setup.ttl.saturating_sub(self.setup.drift))
    }

    fn enact(&mut self, ops: &[Op], k: usize) -> Result<String, String> {
        Ok(match &ops[k] {
            Op::Tick => self.pass_tick(""),
            Op::Drift => {
                self.witness.skipped += 1;
                self.pass_tick(
                " (clock drift: no real process's clock can be slowed or sped up here, so this tick passes at the normal rate for every node)",
                )
            }
            Op::Acquire(c) => {
                let cl = &mut self.clients[*c];
                *cl = Client {
                    attempt: cl.attempt + 1,
                    started: Some(Instant::now()),
                    ..Client::default()
                };
                format!("c{} starts attempt {} (its stopwatch starts)", c + 1, cl.attempt)
            }
            Op::Check(c) => self.check(*c),
            Op::Write(c) => self.write(*c),
            Op::ResourceWrite(c) => self.resource_write(k, *c),
            Op::ResourceAnswer(c) => match self.store.answer(*c) {
                Some(true) => format!("c{} learns its write was accepted", c + 1),
                Some(false) => format!("c{} learns its write was rejected (fencing)", c + 1),
                None => format!("c{} gets no answer: it made no write", c + 1),
            },
            Op::Send { client, node, req } => self.send(ops, k, *client, *node, *req)?,
            Op::Answer { node, client, model } => self.answer(*node, *client, *model),
            Op::Automatic(what) => format!("nothing to do: {what}"),
            Op::Lose { src, dst } => self.lose(*src, *dst),
            Op::Crash(node) => self.crash(*node),
            Op::Restart(node) => self.restart(*node)?,
            Op::Pause { node, ticks } => match self.index(*node) {
                Some(i) => {
                    self.servers[i].pause().map_err(|e| io("SIGSTOP failed", e))?;
                    self.paused.insert(i, *ticks);
                    format!("SIGSTOP to the server on port {} for {ticks} tick(s)", self.servers[i].port())
                }
                None => format!(
                    "the client takes no step for {ticks} tick(s): the driver simply does not act for it (its clock runs on)"
                ),
            },
            Op::KeyExpiry(node) => self.key_expiry(*node),
            Op::DownAfter => self.failover()?,
            Op::Promote(node) => self.promote(*node)?,
            Op::NewPrimary { client, .. } => {
                let port = self.sentinel.as_ref().and_then(master_port);
                format!(
                    "c{} asks the Sentinel (SENTINEL get-master-addr-by-name {SENTINEL_MASTER}): port {}",
                    client + 1,
                    port.map_or("unknown".into(), |p| p.to_string())
                )
            }
            Op::Replicate(_) => "nothing to do: real Redis streams each write to its replicas by itself".into(),
            Op::ClientTimer(c, timer) => format!(
                "c{}'s {timer} timer: client-side only (a validity client's belief ends by its real clock)",
                c + 1
            ),
            Op::ClockJump { node, by } => {
                self.witness.skipped += 1;
                format!(
                "SKIPPED: node {node}'s clock would step by {by} tick(s); Redis 7 expires keys by the host's clock and offers no command to move one server's clock, so this fault is not enacted"
                )
            }
            Op::Unsupported(why) => return Err(why.clone()),
        })
    }

    /// Check: a validity client's validity left on its real clock, against
    /// the margin.
    fn check(&mut self, c: usize) -> String {
        if !self.setup.validity {
            return format!("c{} checks nothing (not a validity client)", c + 1);
        }
        let left = self.clients[c]
            .started
            .map(|t| (t + self.validity_window()).saturating_duration_since(Instant::now()))
            .unwrap_or_default();
        let ok = left > self.tick * u32::from(self.setup.margin);
        self.clients[c].checked = Some(ok);
        format!(
            "c{} has {} ms of validity left on its real clock; margin {} ms: {}",
            c + 1,
            left.as_millis(),
            (self.tick * u32::from(self.setup.margin)).as_millis(),
            if ok { "goes on" } else { "gives up" }
        )
    }

    /// Write: the client writes only if the real servers gave it the lock.
    fn write(&mut self, c: usize) -> String {
        let cl = &mut self.clients[c];
        cl.wrote = true;
        if cl.oks < self.setup.need || cl.checked == Some(false) || cl.down {
            cl.skipped_write = true;
            format!(
                "c{} does not write: the real servers did not give it the lock ({} OK of {} needed)",
                c + 1,
                cl.oks,
                self.setup.need
            )
        } else {
            format!("c{} writes to the resource (token {})", c + 1, cl.token)
        }
    }

    /// A lost message: a held reply is dropped, or a request never sent.
    fn lose(&mut self, src: usize, dst: usize) -> String {
        let dropped = self
            .setup
            .cast
            .get(dst)
            .and_then(|p| match p {
                Part::Client(c) => self.held.get_mut(&(src, *c)).and_then(VecDeque::pop_front),
                _ => None,
            })
            .is_some();
        if dropped {
            "the held reply is dropped, never handed to the client".into()
        } else {
            "the request is never sent".into()
        }
    }

    /// Sentinel's promotion: the real Sentinel's choice, against the
    /// trace's.
    fn promote(&mut self, node: usize) -> Result<String, String> {
        let mut msg = String::new();
        if self.primary == 0 && self.index(node) != Some(0) {
            msg = format!("{}; ", self.failover()?);
        }
        let i = self.index(node).unwrap_or(usize::MAX);
        let role = self.servers.get(i).and_then(role).unwrap_or_default();
        Ok(if i == self.primary {
            format!("{msg}the real Sentinel promoted this replica (ROLE: {role})")
        } else {
            self.witness.differences += 1;
            format!(
                "{msg}DIFFERS: the real Sentinel promoted the server on port {} instead",
                self.servers[self.primary].port()
            )
        })
    }

    /// One tick: sleep until the trace's time (the run's start plus the
    /// ticks so far), so the few milliseconds the steps take are absorbed.
    fn pass_tick(&mut self, note: &str) -> String {
        self.ticks += 1;
        let due = self.start + self.tick * self.ticks as u32;
        let now = Instant::now();
        let late = now.saturating_duration_since(due);
        sleep(due.saturating_duration_since(now));
        let mut resumed = Vec::new();
        for (i, left) in self.paused.iter_mut() {
            *left = left.saturating_sub(1);
            if *left == 0 {
                resumed.push(*i);
            }
        }
        let mut out = format!(
            "tick {} (real time {} ms){note}",
            self.ticks,
            (self.tick * self.ticks as u32).as_millis()
        );
        if late > self.tick / 2 {
            out.push_str(&format!("; running {} ms late", late.as_millis()));
        }
        for i in resumed {
            self.paused.remove(&i);
            let _ = self.servers[i].resume();
            out.push_str(&format!("; SIGCONT to the server on port {}", self.servers[i].port()));
        }
        out
    }

    fn value(&mut self, c: usize, model: u32) -> String {
        let cl = &mut self.clients[c];
        let fresh = format!("c{}-a{}", c + 1, cl.attempt);
        cl.values.entry(model).or_insert(fresh).clone()
    }

    /// Stops every process (also done by `Drop`) and resumes stopped ones
    /// first, so that none is left behind.
    pub fn stop(mut self) {
        for r in std::mem::take(&mut self.held_replicas) {
            let _ = self.servers[r].resume();
        }
        for (i, _) in std::mem::take(&mut self.paused) {
            let _ = self.servers[i].resume();
        }
    }
}

/// Primary-replica: the primary, its replicas in sync, and a Sentinel
/// that has seen them all.
fn start_replicated(
    setup: &Setup,
    bin: &Path,
    persistence: Persistence,
    tick: Duration,
    log: &mut Vec<String>,
) -> Result<(Vec<RedisServer>, RedisServer), String> {
    let mut servers = Vec::new();
    let primary = RedisServer::primary(bin, persistence).map_err(|e| io("the primary did not start", e))?;
    // Redis 7 delays a diskless full sync by 5 s on the
    // primary, to batch replicas; one replica needs no batch.
    let mut con = primary.connect().map_err(|e| io("cannot connect to the primary", e))?;
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("repl-diskless-sync-delay")
        .arg(0)
        .query(&mut con)
        .map_err(|e| io("CONFIG SET repl-diskless-sync-delay 0 failed", e))?;
    servers.push(primary);
    for _ in 1..setup.servers {
        let r = RedisServer::replica_of(bin, persistence, &servers[0]).map_err(|e| io("a replica did not start", e))?;
        servers.push(r);
    }
    let began = Instant::now();
    for r in &servers[1..] {
        wait_for(Duration::from_secs(10), || {
            info(r, "replication")
                .is_some_and(|i| i.contains("master_link_status:up"))
                .then_some(())
        })
        .ok_or("a replica did not finish its first synchronisation within 10 s")?;
    }
    let timing = SentinelTiming {
        down_after_ms: u64::from(setup.down_after) * tick.as_millis() as u64,
        failover_timeout_ms: 10_000,
    };
    let synced = began.elapsed();
    let s = RedisServer::sentinel(bin, &servers[0], timing).map_err(|e| io("the Sentinel did not start", e))?;
    let want = setup.servers - 1;
    wait_for(Duration::from_secs(10), || {
        (sentinel_replicas(&s) == Some(want)).then_some(())
    })
    .ok_or("the Sentinel did not discover the replicas within 10 s")?;
    log.push(format!(
        "real: replicas in sync after {} ms; the Sentinel saw them after {} ms",
        synced.as_millis(),
        (began.elapsed() - synced).as_millis()
    ));
    log.push(format!(
            "real: primary on port {}, {} replica(s) on {}, Sentinel on port {} (quorum 1, down-after-milliseconds {}, failover-timeout 10000)",
            servers[0].port(),
            want,
            servers[1..].iter().map(|s| s.port().to_string()).collect::<Vec<_>>().join(", "),
            s.port(),
            timing.down_after_ms
        ));
    Ok((servers, s))
}

/// The other Redis families: independent servers (single Redis, Redlock's
/// masters).
fn start_independent(
    setup: &Setup,
    bin: &Path,
    persistence: Persistence,
    log: &mut Vec<String>,
) -> Result<Vec<RedisServer>, String> {
    let mut servers = Vec::new();
    for _ in 0..setup.servers {
        servers.push(RedisServer::primary(bin, persistence).map_err(|e| io("a server did not start", e))?);
    }
    log.push(format!(
        "real: {} redis-server process(es) on port(s) {}, persistence {}",
        servers.len(),
        servers
            .iter()
            .map(|s| s.port().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        match setup.keep {
            Keep::Fsync => "appendonly yes, appendfsync always",
            Keep::Nothing => "none (save \"\", appendonly no)",
            Keep::Delayed => "none, restarts delayed by one TTL",
        }
    ));
    Ok(servers)
}
