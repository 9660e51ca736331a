//! Conformance: the model's Redis server answers as `redis-server` does.
//!
//! proptest draws command sequences; each runs at once against a real
//! `redis-server` (Debian's package, started by `locksmith::real` on a free
//! loopback port with its own directory) and against the model's server
//! actor (`single_redis::Node::Server`, and `primary_replica::Node::Redis`
//! for a primary with a replica), driven through the model's own `World`
//! (the same `on_msg`, `on_timer`, `crash` and `restart` the checker calls;
//! the test only injects the client's requests and reads the answers). After
//! every command and every tick both must give the same answer and hold the
//! same key state: the same value (or none), a TTL or none, and the same
//! TTL left in whole ticks.
//!
//! Commands: `SET lock v NX PX ttl`, `SET lock v NX` then `PEXPIRE lock ttl`
//! (the model's `EXPIRE`), `DEL`, the compare-and-delete and PEXPIRE-renewal
//! `EVAL` scripts the model's clients use, `INCR lock:fence` after a grant
//! when the model hands out fencing tokens, and `GET`/`PTTL` to read the
//! key; `SIGKILL`, `SHUTDOWN NOSAVE` and `SHUTDOWN SAVE` followed by a
//! restart, with `appendonly yes` + `appendfsync always` or with no
//! persistence; on a primary with a replica, `SET ... NX PX` followed by
//! `WAIT 1 timeout` (or not, for asynchronous replication), the replica
//! killed and restarted, and the replica's copy of the key.
//!
//! Time. One model tick is `LOCKSMITH_REDIS_TICK_MS` real milliseconds
//! (default 200). Commands are sent on the tick grid (tick j at j·T after
//! the start) and must be answered within 3/8 T. A TTL of n ticks is sent to
//! Redis as n·T − T/2 ms, so a real key expires half a tick before the grid
//! point at which the model's timer reaches zero, never near an instant at
//! which a command runs: the real answer is unambiguous, and it is the one
//! the model gives when it fires a due timer before it delivers a command
//! (one of the two orders the model allows at that instant; the test always
//! takes it). A command answered later than 3/8 T (a loaded machine) makes
//! the real timing ambiguous: that case stops there, is not compared
//! further, and is counted and printed; so does a `WAIT` sent later than
//! T/8 after its tick while the replica restarts (its timeout then ends
//! after the grid point where the model's fires, and a restart from that
//! grid point can answer it: seen once on a loaded machine). A restart
//! (of the server or the replica) takes as long as it takes: the next
//! command waits for the next grid point after it, and the model ticks as
//! many times. A TTL left is
//! compared in whole ticks: the real `PTTL` read at time t gives the
//! deadline t + PTTL, which lies 1/2 to 1/8 tick before the grid point at
//! which the model's timer must reach zero; round((deadline + 5T/16) / T)
//! is that tick.
//!
//! Abstractions (the model's answer carries less than Redis's, on purpose;
//! also in docs/real-systems.md, "Conformance: the model's Redis answers"):
//! - `PEXPIRE`, `DEL` and both scripts answer 0 or 1 in Redis; the model
//!   answers "done" (and nothing to the renewal): its clients do not read
//!   the count, so only the key state is compared after them.
//! - The model's `EXPIRE lock ttl` is in ticks; the test sends `PEXPIRE`
//!   (Redis's `EXPIRE` counts whole seconds).
//! - With `wait`, both clients send `WAIT` once `SET` has answered `OK`
//!   (the model's default, `pipeline = false`), on the same connection.
//! - The model has no graceful shutdown. `SHUTDOWN SAVE` writes an RDB
//!   snapshot with absolute expiry times even without persistence, so the
//!   test compares it with the model's `restart = "fsync"` crash; `SHUTDOWN
//!   NOSAVE` and `SIGKILL` with the model's crash of the configured
//!   persistence. A server without persistence that was once shut down
//!   with `SAVE` reloads that old `dump.rdb` after every later crash (an old
//!   key, an old fencing counter): no model restart does that, so the test
//!   deletes the snapshot once it is loaded.
//! - Under `CI=true` a missing `redis-server` fails; elsewhere the test
//!   prints `*** REAL REDIS NOT RUN` and passes. `PROPTEST_CASES` raises
//!   the case count (default 6 per test, the suite well under a minute).

use std::path::Path;
use std::thread::sleep;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use locksmith::algorithms::{primary_replica as pr, single_redis as sr};
use locksmith::catalog::parse;
use locksmith::real::{self, Persistence, RedisServer};
use locksmith::world::{Action, Envelope, Id, Program, World, WorldState};

/// The compare-and-delete script of the model's clients (and the Redis
/// documentation's).
const COMPARE_AND_DELETE: &str =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
/// Redisson's renewal: extend the expiry only while the key is ours.
const RENEW: &str =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const LOCK: &str = "lock";
const FENCE: &str = "lock:fence";

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
        // Every case runs in real time: shrink a little, not for minutes.
        max_shrink_iters: 16,
        failure_persistence: None,
        ..Config::default()
    })
}

/// The tick grid: tick j is `j · tick` after `start`.
struct Clock {
    start: Instant,
    tick: Duration,
    /// The current tick.
    now: u32,
}

impl Clock {
    fn new() -> Clock {
        let ms = std::env::var("LOCKSMITH_REDIS_TICK_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(200u64)
            .max(40);
        Clock {
            start: Instant::now(),
            tick: Duration::from_millis(ms),
            now: 0,
        }
    }

    fn t_ms(&self) -> f64 {
        self.tick.as_secs_f64() * 1000.0
    }

    /// A TTL of `ticks` as Redis gets it: half a tick short (module doc).
    fn px(&self, ticks: u8) -> u64 {
        (f64::from(ticks) * self.t_ms() - self.t_ms() / 2.0) as u64
    }

    fn ms_since_start(&self, at: Instant) -> f64 {
        at.duration_since(self.start).as_secs_f64() * 1000.0
    }

    /// Sleeps until the current tick's grid point.
    fn wait_for_grid(&self) {
        let at = self.start + self.tick * self.now;
        let now = Instant::now();
        if at > now {
            sleep(at - now);
        }
    }

    /// Whether a command answered at `done` was answered within 3/8 of a
    /// tick of the current grid point (module doc).
    fn on_time(&self, done: Instant) -> bool {
        self.ms_since_start(done) <= f64::from(self.now) * self.t_ms() + self.t_ms() * 3.0 / 8.0
    }

    /// How long after the current grid point `done` is, in ms.
    fn late_ms(&self, done: Instant) -> f64 {
        self.ms_since_start(done) - f64::from(self.now) * self.t_ms()
    }

    /// The first tick whose grid point is at least 1/8 tick after `done`.
    fn next_tick_after(&self, done: Instant) -> u32 {
        let ms = self.ms_since_start(done) + self.t_ms() / 8.0;
        ((ms / self.t_ms()).ceil() as u32).max(self.now + 1)
    }
}

/// The case stops here: the real timing is no longer unambiguous.
struct Late;

/// The key as seen: its value (`v3` is 3), and its TTL left in whole
/// ticks (`None`: no TTL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct KeyState {
    value: u32,
    ttl: Option<u32>,
}

fn value_name(v: u32) -> String {
    format!("v{v}")
}

/// The real key: `GET` and `PTTL`, the TTL turned into ticks left.
fn real_key(con: &mut redis::Connection, clock: &Clock) -> Result<Option<KeyState>, Late> {
    let sent = Instant::now();
    let (value, pttl): (Option<String>, i64) = redis::pipe()
        .cmd("GET")
        .arg(LOCK)
        .cmd("PTTL")
        .arg(LOCK)
        .query(con)
        .expect("GET, PTTL");
    let done = Instant::now();
    if !clock.on_time(done) {
        return Err(Late);
    }
    let Some(value) = value else {
        return Ok(None);
    };
    let value = value[1..].parse().expect("the test's values are v1, v2, ...");
    let ttl = (pttl >= 0).then(|| {
        let mid = (clock.ms_since_start(sent) + clock.ms_since_start(done)) / 2.0;
        let deadline = mid + pttl as f64;
        // A deadline lies between 1/2 and 1/8 tick before the grid point
        // of the model's expiry: round from the middle of that window.
        ((deadline + clock.t_ms() * 5.0 / 16.0) / clock.t_ms()).round() as u32 - clock.now
    });
    Ok(Some(KeyState { value, ttl }))
}

/// The model's world, driven from outside: the test's client (`client`)
/// sends requests, and everything else (server timers due, server steps
/// such as replication, messages between servers) runs at once, due
/// timers first.
struct Model<A: Program> {
    world: World<A>,
    state: WorldState<A>,
    client: Id,
}

impl<A: Program> Model<A> {
    fn new(world: World<A>, client: Id) -> Model<A> {
        let state = world.init();
        let mut m = Model { world, state, client };
        m.settle();
        m
    }

    fn act_in(&mut self, world_of: Option<&World<A>>, a: &Action<A>) {
        let w = world_of.unwrap_or(&self.world);
        if let Some(s) = w.after_unranked(&self.state, a) {
            self.state = s;
        }
    }

    fn act(&mut self, a: &Action<A>) {
        self.act_in(None, a);
    }

    /// Runs every server-side action until none is left: timers due first,
    /// then steps, then one delivery at a time (not to the client).
    fn settle(&mut self) {
        for _ in 0..10_000 {
            let mut actions = Vec::new();
            self.world.enabled(&self.state, &mut actions);
            let client = self.client;
            let next = actions
                .iter()
                .find(|a| matches!(a, Action::Fire { node, .. } if *node != client))
                .or_else(|| {
                    actions
                        .iter()
                        .find(|a| matches!(a, Action::Step { node, .. } if *node != client))
                })
                .or_else(|| {
                    actions
                        .iter()
                        .find(|a| matches!(a, Action::Deliver { dst, .. } if *dst != client))
                })
                .cloned();
            match next {
                Some(a) => self.act(&a),
                None => return,
            }
        }
        panic!("the model's servers never settle");
    }

    /// One tick of real time, then whatever falls due.
    fn tick(&mut self) {
        self.settle();
        self.act(&Action::Tick);
        self.settle();
    }

    /// The client's request to `dst`, delivered at once.
    fn request(&mut self, dst: Id, msg: A::Msg) {
        self.settle();
        self.state.net.push(Envelope {
            src: self.client,
            dst,
            msg: msg.clone(),
            age: 0,
            copied: false,
        });
        self.state.net.sort_by_key(|e| (e.src, e.dst));
        self.act(&Action::Deliver {
            src: self.client,
            dst,
            msg,
        });
        self.settle();
    }

    /// The answers that reached the client, taken off the network.
    fn answers(&mut self) -> Vec<A::Msg> {
        let client = self.client;
        let (mine, rest) = std::mem::take(&mut self.state.net)
            .into_iter()
            .partition(|e| e.dst == client);
        self.state.net = rest;
        mine.into_iter().map(|e: Envelope<A::Msg>| e.msg).collect()
    }
}

fn model_key(key: Option<u32>, expiry: Option<u8>) -> Option<KeyState> {
    key.map(|value| KeyState {
        value,
        ttl: expiry.map(u32::from),
    })
}

// ---------------------------------------------------------------------------
// One Redis server: single-redis.

#[derive(Clone, Copy, Debug)]
enum Stop {
    Kill,
    NoSave,
    Save,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    SetNxPx(u32),
    SetNx(u32),
    Expire,
    Del,
    CompareAndDelete(u32),
    Renew(u32),
    /// Ticks pass with no command.
    Wait(u32),
    /// The server stops, stays down this many ticks, and restarts.
    Crash(Stop, u32),
}

#[derive(Clone, Debug)]
struct SingleCase {
    ttl: u8,
    fencing: bool,
    aof: bool,
    ops: Vec<Op>,
}

fn single_case() -> impl Strategy<Value = SingleCase> {
    let value = 1u32..=3;
    let stop = prop_oneof![Just(Stop::Kill), Just(Stop::NoSave), Just(Stop::Save)];
    let op = prop_oneof![
        3 => value.clone().prop_map(Op::SetNxPx),
        1 => value.clone().prop_map(Op::SetNx),
        1 => Just(Op::Expire),
        1 => Just(Op::Del),
        2 => value.clone().prop_map(Op::CompareAndDelete),
        2 => value.prop_map(Op::Renew),
        3 => (1u32..=2).prop_map(Op::Wait),
        1 => (stop, 0u32..=2).prop_map(|(s, d)| Op::Crash(s, d)),
    ];
    (1u8..=3, any::<bool>(), any::<bool>(), prop::collection::vec(op, 3..=12))
        .prop_map(|(ttl, fencing, aof, ops)| SingleCase { ttl, fencing, aof, ops })
}

fn single_world(ttl: u8, fencing: bool, fsync: bool) -> World<sr::Node> {
    let restart = if fsync { "fsync" } else { "empty" };
    let text = format!(
        "summary = \"conformance\"\nalgorithm = \"single-redis\"\n\
         [system]\nclients = 1\nttl = {ttl}\ncommand = \"set-nx-px\"\nrelease = \"compare-and-delete\"\n\
         restart = \"{restart}\"\nfencing = {fencing}\n\
         [faults]\ncrashes = 1\nmax_delay = 1\ntargets = \"servers\"\n[bounds]\nacquisitions = 1\n"
    );
    let sc = parse(Path::new("conformance.toml"), &text).expect("the conformance scenario is valid");
    sr::world(&sc).expect("builds")
}

const SR_SERVER: Id = 0;
const SR_CLIENT: Id = 1;

fn single_model_key(m: &Model<sr::Node>) -> (Option<KeyState>, u32) {
    let node = &m.state.nodes[SR_SERVER];
    let sr::State::Server(s) = &node.state else {
        unreachable!("node 0 is the server")
    };
    (
        model_key(s.key.map(|k| k.value), node.timer(sr::Timer::KeyExpiry)),
        s.fence,
    )
}

/// What one command answered, in the model's terms.
#[derive(Debug, PartialEq, Eq)]
enum Answer {
    Granted {
        token: u32,
    },
    Refused,
    /// A command whose answer the model does not distinguish (module doc).
    Done,
    TimedOut,
}

fn run_single(bin: &Path, case: &SingleCase, log: &mut Vec<String>) -> Result<bool, TestCaseError> {
    let persistence = if case.aof {
        Persistence::AofAlways
    } else {
        Persistence::None
    };
    let mut server = RedisServer::primary(bin, persistence).expect("redis-server starts");
    let mut con = server.connect().expect("connects");
    let mut m = Model::new(single_world(case.ttl, case.fencing, case.aof), SR_CLIENT);
    // The crash that keeps the data (AOF, or SHUTDOWN SAVE's snapshot).
    let durable = single_world(case.ttl, case.fencing, true);
    let empty = single_world(case.ttl, case.fencing, false);
    let mut clock = Clock::new();
    let px = clock.px(case.ttl).to_string();
    for (i, op) in case.ops.iter().enumerate() {
        clock.wait_for_grid();
        log.push(format!("tick {}: {op:?}", clock.now));
        let real: Answer;
        let model: Answer;
        match *op {
            Op::Wait(n) => {
                for _ in 0..n {
                    clock.now += 1;
                    m.tick();
                }
                clock.wait_for_grid();
                real = Answer::Done;
                model = Answer::Done;
            }
            Op::Crash(stop, down) => {
                match stop {
                    Stop::Kill => server.kill(),
                    Stop::NoSave => server.shutdown(false).expect("SHUTDOWN NOSAVE"),
                    Stop::Save => server.shutdown(true).expect("SHUTDOWN SAVE"),
                }
                let keeps = case.aof || matches!(stop, Stop::Save);
                let w = if keeps { &durable } else { &empty };
                m.act_in(Some(w), &Action::Crash { node: SR_SERVER });
                for _ in 0..down {
                    clock.now += 1;
                    m.tick();
                }
                clock.wait_for_grid();
                server.restart().expect("redis-server restarts");
                m.act_in(Some(w), &Action::Restart { node: SR_SERVER });
                m.settle();
                if !case.aof {
                    // The snapshot is loaded; a later crash starts empty,
                    // as the model's restart = "empty" does (module doc).
                    let _ = std::fs::remove_file(server.dir().join("dump.rdb"));
                }
                con = server.connect().expect("reconnects");
                let target = clock.next_tick_after(Instant::now());
                while clock.now < target {
                    clock.now += 1;
                    m.tick();
                }
                clock.wait_for_grid();
                real = Answer::Done;
                model = Answer::Done;
            }
            _ => {
                let (msg, answer) = single_command(&mut con, case, &px, *op);
                let done = Instant::now();
                if !clock.on_time(done) {
                    log.push(format!(
                        "  answered {:.0} ms after its tick: the case stops here",
                        clock.late_ms(done)
                    ));
                    return Ok(false);
                }
                real = answer;
                m.request(SR_SERVER, msg);
                let answers = m.answers();
                model = match answers.as_slice() {
                    [sr::Msg::Granted { token, .. }] => Answer::Granted { token: *token },
                    [sr::Msg::Refused { .. }] => Answer::Refused,
                    [_] | [] => Answer::Done,
                    more => panic!("the server answered one request {} times: {more:?}", more.len()),
                };
            }
        }
        log.push(format!("  real {real:?}, model {model:?}"));
        prop_assert_eq!(&real, &model, "answer to command {} ({:?})\n{}", i, op, log.join("\n"));
        let Ok(real_key) = real_key(&mut con, &clock) else {
            log.push("  GET/PTTL answered too late after its tick: the case stops here".into());
            return Ok(false);
        };
        let real_fence: Option<u32> = redis::cmd("GET").arg(FENCE).query(&mut con).expect("GET fence");
        let (model_key, model_fence) = single_model_key(&m);
        log.push(format!(
            "  key real {real_key:?}, model {model_key:?}; fence real {real_fence:?}, model {model_fence}"
        ));
        prop_assert_eq!(
            real_key,
            model_key,
            "key after command {} ({:?})\n{}",
            i,
            op,
            log.join("\n")
        );
        prop_assert_eq!(
            real_fence.unwrap_or(0),
            model_fence,
            "fencing counter after command {} ({:?})\n{}",
            i,
            op,
            log.join("\n")
        );
    }
    drop(server);
    Ok(true)
}

/// Sends one client command to the real server and returns the model's
/// message for it with the real answer.
fn single_command(con: &mut redis::Connection, case: &SingleCase, px: &str, op: Op) -> (sr::Msg, Answer) {
    let granted = |con: &mut redis::Connection, ok: bool| {
        if !ok {
            return Answer::Refused;
        }
        let token = if case.fencing {
            redis::cmd("INCR").arg(FENCE).query::<u32>(con).expect("INCR")
        } else {
            0
        };
        Answer::Granted { token }
    };
    match op {
        Op::SetNxPx(value) => {
            let ok: Option<String> = redis::cmd("SET")
                .arg(LOCK)
                .arg(value_name(value))
                .arg("NX")
                .arg("PX")
                .arg(px)
                .query(con)
                .expect("SET NX PX");
            (sr::Msg::SetNxPx { value }, granted(con, ok.is_some()))
        }
        Op::SetNx(value) => {
            let ok: Option<String> = redis::cmd("SET")
                .arg(LOCK)
                .arg(value_name(value))
                .arg("NX")
                .query(con)
                .expect("SET NX");
            (sr::Msg::SetNx { value }, granted(con, ok.is_some()))
        }
        Op::Expire => {
            let _: i64 = redis::cmd("PEXPIRE").arg(LOCK).arg(px).query(con).expect("PEXPIRE");
            (sr::Msg::Expire { value: 0 }, Answer::Done)
        }
        Op::Del => {
            let _: i64 = redis::cmd("DEL").arg(LOCK).query(con).expect("DEL");
            (sr::Msg::Del { value: 0 }, Answer::Done)
        }
        Op::CompareAndDelete(value) => {
            let _: i64 = redis::cmd("EVAL")
                .arg(COMPARE_AND_DELETE)
                .arg(1)
                .arg(LOCK)
                .arg(value_name(value))
                .query(con)
                .expect("EVAL compare-and-delete");
            (sr::Msg::CompareAndDelete { value }, Answer::Done)
        }
        Op::Renew(value) => {
            let _: i64 = redis::cmd("EVAL")
                .arg(RENEW)
                .arg(1)
                .arg(LOCK)
                .arg(value_name(value))
                .arg(px)
                .query(con)
                .expect("EVAL renew");
            (sr::Msg::Renew { value }, Answer::Done)
        }
        Op::Wait(_) | Op::Crash(..) => unreachable!("not a command"),
    }
}

/// Runs proptest's cases of `strategy` through `run`, which returns whether
/// the case ran to its end; prints how many stopped early.
fn run_cases<C: std::fmt::Debug + Clone>(
    name: &str,
    strategy: impl Strategy<Value = C>,
    run: impl Fn(&C, &mut Vec<String>) -> Result<bool, TestCaseError>,
) {
    let complete = std::cell::Cell::new(0u32);
    let total = std::cell::Cell::new(0u32);
    let started = Instant::now();
    let result = runner().run(&strategy, |case| {
        total.set(total.get() + 1);
        let mut log = Vec::new();
        if run(&case, &mut log)? {
            complete.set(complete.get() + 1);
        } else if let [.., op, why] = log.as_slice() {
            eprintln!("{name}: stopped early at {op}: {why}");
        }
        Ok(())
    });
    eprintln!(
        "{name}: {} of {} cases ran to their end ({} stopped early: a command answered too late to compare), {:.1} s",
        complete.get(),
        total.get(),
        total.get() - complete.get(),
        started.elapsed().as_secs_f64()
    );
    if let Err(e) = result {
        panic!("{name}: the model and redis-server differ:\n{e}");
    }
}

/// The model's single Redis server (`single-redis`) against one
/// `redis-server`: SET NX PX, SET NX then PEXPIRE, DEL, the scripts,
/// INCR, TTLs, and crashes and shutdowns with and without the fsynced AOF.
#[test]
fn the_single_redis_server_answers_as_redis_server_does() {
    let Some(bin) = real::require_redis() else {
        return;
    };
    run_cases("single-redis", single_case(), |case, log| run_single(&bin, case, log));
}

// ---------------------------------------------------------------------------
// A primary with a replica: primary-replica.

#[derive(Clone, Copy, Debug)]
enum PrOp {
    /// `SET lock v NX PX ttl`, then (with `wait`) `WAIT 1 timeout`.
    Acquire(u32),
    /// With `wait` while the replica is down: `SET lock v NX PX ttl; WAIT
    /// 1 timeout`, and the replica restarts this many ticks later, while
    /// the `WAIT` may still block (with `WAIT 1 0` it blocks until then,
    /// even past the key's expiry). Otherwise as `Acquire`.
    AcquireThenRestartReplica(u32, u32),
    CompareAndDelete(u32),
    Wait(u32),
    KillReplica,
    RestartReplica,
}

#[derive(Clone, Debug)]
struct PrCase {
    ttl: u8,
    wait: bool,
    wait_timeout: u8,
    ops: Vec<PrOp>,
}

fn pr_case() -> impl Strategy<Value = PrCase> {
    let value = 1u32..=3;
    let op = prop_oneof![
        3 => value.clone().prop_map(PrOp::Acquire),
        2 => (value.clone(), 0u32..=4).prop_map(|(v, k)| PrOp::AcquireThenRestartReplica(v, k)),
        2 => value.prop_map(PrOp::CompareAndDelete),
        2 => (1u32..=2).prop_map(PrOp::Wait),
        1 => Just(PrOp::KillReplica),
        1 => Just(PrOp::RestartReplica),
    ];
    (2u8..=4, any::<bool>(), 0u8..=2, prop::collection::vec(op, 3..=10)).prop_map(|(ttl, wait, wait_timeout, ops)| {
        PrCase {
            ttl,
            wait,
            wait_timeout,
            ops,
        }
    })
}

const PR_PRIMARY: Id = 0;
const PR_REPLICA: Id = 1;
const PR_CLIENT: Id = 3;

fn pr_world(case: &PrCase) -> World<pr::Node> {
    let replication = if case.wait {
        format!("replication = \"wait\"\nwait_timeout = {}\n", case.wait_timeout)
    } else {
        "replication = \"async\"\n".to_string()
    };
    let text = format!(
        "summary = \"conformance\"\nalgorithm = \"primary-replica\"\n\
         [system]\nclients = 1\nsentinels = 1\nlag = false\nttl = {}\n{replication}ping = 1\ndown_after = 3\ntimeout = 6\n\
         [faults]\ncrashes = 1\nmax_delay = 1\ntargets = \"servers\"\n[bounds]\nacquisitions = 1\n",
        case.ttl
    );
    let sc = parse(Path::new("conformance.toml"), &text).expect("the conformance scenario is valid");
    pr::world(&sc).expect("builds")
}

/// The model's `SET lock value NX PX ttl` and, on its `OK` with `wait`,
/// the `WAIT` its client sends: the answers that reached the client.
fn pr_acquire(m: &mut Model<pr::Node>, value: u32) -> Vec<pr::Msg> {
    m.request(PR_PRIMARY, pr::Msg::SetNxPx { value });
    let answers = m.answers();
    if let [pr::Msg::SetOk { .. }] = answers.as_slice() {
        m.request(PR_PRIMARY, pr::Msg::Wait { value });
        return m.answers();
    }
    answers
}

fn pr_model_key(m: &Model<pr::Node>, id: Id) -> Option<Option<KeyState>> {
    let node = &m.state.nodes[id];
    if !node.is_up() {
        return None;
    }
    let pr::State::Redis(r) = &node.state else {
        unreachable!("a Redis node")
    };
    Some(model_key(r.key.map(|k| k.value), node.timer(pr::Timer::KeyExpiry)))
}

fn run_pr(bin: &Path, case: &PrCase, log: &mut Vec<String>) -> Result<bool, TestCaseError> {
    let primary = RedisServer::primary(bin, Persistence::None).expect("primary starts");
    let mut replica = RedisServer::replica_of(bin, Persistence::None, &primary).expect("replica starts");
    replica.wait_synced().expect("the replica syncs");
    let mut con = primary.connect().expect("connects");
    let mut replica_up = true;
    let mut m = Model::new(pr_world(case), PR_CLIENT);
    let mut clock = Clock::new();
    let px = clock.px(case.ttl).to_string();
    let wait_ms = (f64::from(case.wait_timeout) * clock.t_ms()) as u64;
    for (i, op) in case.ops.iter().enumerate() {
        // WAIT 1 0 with the replica down would block for ever: the replica
        // restarts under it.
        let op = &match *op {
            PrOp::Acquire(v) if case.wait && case.wait_timeout == 0 && !replica_up => {
                PrOp::AcquireThenRestartReplica(v, 0)
            }
            op => op,
        };
        clock.wait_for_grid();
        log.push(format!("tick {}: {op:?}", clock.now));
        let (real, model) = match *op {
            PrOp::Wait(n) => {
                for _ in 0..n {
                    clock.now += 1;
                    m.tick();
                }
                clock.wait_for_grid();
                (Answer::Done, Answer::Done)
            }
            PrOp::KillReplica | PrOp::RestartReplica => {
                let kill = matches!(op, PrOp::KillReplica);
                if kill && replica_up {
                    replica.kill();
                    m.act(&Action::Crash { node: PR_REPLICA });
                    m.settle();
                    replica_up = false;
                } else if !kill && !replica_up {
                    replica.restart().expect("the replica restarts");
                    replica.wait_synced().expect("the replica syncs");
                    m.act(&Action::Restart { node: PR_REPLICA });
                    m.settle();
                    replica_up = true;
                    let target = clock.next_tick_after(Instant::now());
                    while clock.now < target {
                        clock.now += 1;
                        m.tick();
                    }
                    clock.wait_for_grid();
                }
                (Answer::Done, Answer::Done)
            }
            PrOp::AcquireThenRestartReplica(value, later) if case.wait && !replica_up => {
                let j = clock.now;
                let restart_at = clock.start + clock.tick * (j + later);
                let (real, done, wait_sent) = std::thread::scope(|sc| {
                    let client = sc.spawn(|| {
                        let ok: Option<String> = redis::cmd("SET")
                            .arg(LOCK)
                            .arg(value_name(value))
                            .arg("NX")
                            .arg("PX")
                            .arg(&px)
                            .query(&mut con)
                            .expect("SET NX PX");
                        if ok.is_none() {
                            return (Answer::Refused, Instant::now(), None);
                        }
                        let sent = Instant::now();
                        let acked: i64 = redis::cmd("WAIT").arg(1).arg(wait_ms).query(&mut con).expect("WAIT");
                        let answer = if acked >= 1 {
                            Answer::Granted { token: 0 }
                        } else {
                            Answer::TimedOut
                        };
                        (answer, Instant::now(), Some(sent))
                    });
                    let now = Instant::now();
                    if restart_at > now {
                        sleep(restart_at - now);
                    }
                    replica.restart().expect("the replica restarts");
                    replica.wait_synced().expect("the replica syncs");
                    client.join().expect("the client thread")
                });
                let restarted = Instant::now();
                replica_up = true;
                let mut answers = pr_acquire(&mut m, value);
                let mut answered_at = j;
                for _ in 0..later {
                    clock.now += 1;
                    m.tick();
                    if answers.is_empty() {
                        answers = m.answers();
                        answered_at = clock.now;
                    }
                }
                m.act(&Action::Restart { node: PR_REPLICA });
                m.settle();
                if answers.is_empty() {
                    answers = m.answers();
                    answered_at = clock.now;
                }
                // The WAIT left on time: its timeout runs from when it was
                // sent, the restart from the grid, so a WAIT sent late (a
                // loaded machine) can see a restart that the model, where
                // the timeout fires first at the same grid point, does not.
                let sent_late = wait_sent.map_or(0.0, |t| clock.ms_since_start(t) - f64::from(j) * clock.t_ms());
                if sent_late > clock.t_ms() / 8.0 {
                    log.push(format!(
                        "  WAIT sent {sent_late:.0} ms after tick {j} ({real:?}): the case stops here"
                    ));
                    return Ok(false);
                }
                // The real answer came in the tick the model's did.
                let late = clock.ms_since_start(done) - f64::from(answered_at) * clock.t_ms();
                if !(0.0..=clock.t_ms() * 3.0 / 8.0).contains(&late) {
                    log.push(format!(
                        "  answered {late:.0} ms after tick {answered_at} ({real:?}, model {answers:?}): the case stops here"
                    ));
                    return Ok(false);
                }
                let target = clock.next_tick_after(restarted);
                while clock.now < target {
                    clock.now += 1;
                    m.tick();
                }
                clock.wait_for_grid();
                let model = match answers.as_slice() {
                    [pr::Msg::Granted { token, .. }] => Answer::Granted { token: *token },
                    [pr::Msg::Refused { .. }] => Answer::Refused,
                    [pr::Msg::WaitTimedOut { .. }] => Answer::TimedOut,
                    [] => Answer::Done,
                    more => panic!("unexpected answers {more:?}"),
                };
                (real, model)
            }
            PrOp::Acquire(value) | PrOp::AcquireThenRestartReplica(value, _) => {
                let ok: Option<String> = redis::cmd("SET")
                    .arg(LOCK)
                    .arg(value_name(value))
                    .arg("NX")
                    .arg("PX")
                    .arg(&px)
                    .query(&mut con)
                    .expect("SET NX PX");
                let real = match (ok.is_some(), case.wait) {
                    (false, _) => Answer::Refused,
                    (true, false) => Answer::Granted { token: 0 },
                    (true, true) => {
                        let acked: i64 = redis::cmd("WAIT").arg(1).arg(wait_ms).query(&mut con).expect("WAIT");
                        if acked >= 1 {
                            Answer::Granted { token: 0 }
                        } else {
                            Answer::TimedOut
                        }
                    }
                };
                let done = Instant::now();
                let mut answers = pr_acquire(&mut m, value);
                // A blocked WAIT: the model's primary answers when its
                // WAIT timeout fires, as many ticks later.
                let ticks = if case.wait { case.wait_timeout } else { 0 };
                for _ in 0..ticks {
                    if !answers.is_empty() {
                        break;
                    }
                    clock.now += 1;
                    m.tick();
                    answers = m.answers();
                }
                if !clock.on_time(done) {
                    log.push(format!(
                        "  answered {:.0} ms after its tick ({real:?}, model {answers:?}): the case stops here",
                        clock.late_ms(done)
                    ));
                    return Ok(false);
                }
                let model = match answers.as_slice() {
                    [pr::Msg::Granted { token, .. }] => Answer::Granted { token: *token },
                    [pr::Msg::Refused { .. }] => Answer::Refused,
                    [pr::Msg::WaitTimedOut { .. }] => Answer::TimedOut,
                    [] => Answer::Done,
                    more => panic!("unexpected answers {more:?}"),
                };
                (real, model)
            }
            PrOp::CompareAndDelete(value) => {
                let _: i64 = redis::cmd("EVAL")
                    .arg(COMPARE_AND_DELETE)
                    .arg(1)
                    .arg(LOCK)
                    .arg(value_name(value))
                    .query(&mut con)
                    .expect("EVAL compare-and-delete");
                let done = Instant::now();
                if !clock.on_time(done) {
                    log.push(format!(
                        "  answered {:.0} ms after its tick: the case stops here",
                        clock.late_ms(done)
                    ));
                    return Ok(false);
                }
                m.request(PR_PRIMARY, pr::Msg::CompareAndDelete { value });
                let answers = m.answers();
                prop_assert!(matches!(answers.as_slice(), [pr::Msg::Released { .. }]), "{answers:?}");
                (Answer::Done, Answer::Done)
            }
        };
        log.push(format!("  real {real:?}, model {model:?}"));
        prop_assert_eq!(&real, &model, "answer to command {} ({:?})\n{}", i, op, log.join("\n"));
        // The replica's copy: let the real stream catch up first (the
        // model ships at once), with a WAIT on the client's connection.
        if replica_up {
            let quarter = (clock.t_ms() / 4.0) as u64;
            let acked: i64 = redis::cmd("WAIT").arg(1).arg(quarter).query(&mut con).expect("WAIT");
            if acked < 1 {
                log.push(format!(
                    "  the replica did not catch up within {quarter} ms: the case stops here"
                ));
                return Ok(false);
            }
        }
        for (id, server) in [(PR_PRIMARY, &primary), (PR_REPLICA, &replica)] {
            let Some(model_key) = pr_model_key(&m, id) else {
                continue;
            };
            let mut c = server.connect().expect("connects");
            let Ok(real_key) = real_key(&mut c, &clock) else {
                log.push("  GET/PTTL answered too late after its tick: the case stops here".into());
                return Ok(false);
            };
            let who = if id == PR_PRIMARY { "primary" } else { "replica" };
            log.push(format!("  {who} key real {real_key:?}, model {model_key:?}"));
            prop_assert_eq!(
                real_key,
                model_key,
                "{}'s key after command {} ({:?})\n{}",
                who,
                i,
                op,
                log.join("\n")
            );
        }
    }
    Ok(true)
}

/// The model's primary and replica (`primary-replica`) against a real
/// primary with a real replica: SET NX PX with and without WAIT, the
/// compare-and-delete script, the replica killed and resynchronised, and
/// the replica's copy of the key and its expiry.
#[test]
fn the_primary_and_its_replica_answer_as_redis_server_does() {
    let Some(bin) = real::require_redis() else {
        return;
    };
    run_cases("primary-replica", pr_case(), |case, log| run_pr(&bin, case, log));
}
