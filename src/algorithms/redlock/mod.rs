//! `redlock`: N independent Redis masters, after the algorithm in the Redis
//! documentation ("Distributed Locks with Redis"), with Kleppmann's critique
//! and antirez's answer in mind. The mirror spec (this module in TLA+; the clean-room one is in `specs/`) is `specs/mirror/Redlock.tla`; actions
//! appear here in its order: the client's steps Acquire, Check, Write; its
//! handlers (a master's answer, the request timeout, the validity timer, a
//! fencing token, the write's answer); then the masters' handlers, the
//! counter, and the lock view.
//!
//! The client, as the documentation describes it:
//! 1. draws a random value for this attempt, reads its clock (a stopwatch
//!    started: T1) and sends `SET lock value NX PX ttl` to every master, with
//!    a timeout much shorter than the TTL; every answer carries the value,
//!    so an answer to an earlier attempt is recognised and ignored;
//! 2. when every master has answered or the timeout has fired, reads the
//!    stopwatch (T2 − T1) and holds the lock only if a majority (N/2 + 1)
//!    said yes and validity = ttl − (T2 − T1) − drift is above zero;
//!    otherwise it unlocks every master and retries after a random delay:
//!    it draws one of `retry..=retry_max` ticks (each outcome strongly
//!    fair, docs/design.md §2: a run that keeps drawing the same delay while
//!    another is on offer is not fair) and its timer then fires exactly
//!    that many of its ticks later; `retry_max = retry` is a fixed delay;
//! 3. holds the lock until a validity timer of that length fires. Checking
//!    that timer (Check) and using the resource (Write) are separate steps,
//!    as they are in a real client: the window between them is exactly what
//!    a pause after acquiring exploits;
//! 4. releases by compare-and-delete of its value on every master, without
//!    waiting (a client that restarts draws new values, so it cannot delete
//!    the keys of its previous life).
//!
//! A restarted master comes back `empty` (no persistence), with its `fsync`ed
//! keys, or `delayed`: empty, and answering nothing until the TTL has passed
//! (antirez's fix). Fencing tokens come either from the lock's own value
//! (random, so in no order; see [`Fencing::LockValue`]) or from a separate
//! counter service, asked in the same step that decides the lock is held.

use crate::algorithms::prelude::*;
use crate::algorithms::common::redis_key;
use crate::scenario::typed::within;

mod client;
mod describe;
mod family;
mod itf;
mod server;
pub use family::Redlock;

pub use client::Client;
pub use server::Master;

use client::{acquire, client_receive, client_step, give_up, timed_out};
use server::master_receive;

/// What survives a master's restart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Restart {
    /// Nothing: Redis without persistence. The default.
    #[default]
    Empty,
    /// Every acknowledged `SET`, with its expiry as an absolute time.
    Fsync,
    /// Nothing, and the master answers no request until the TTL has passed.
    Delayed,
}

/// Where a fencing token comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Fencing {
    #[default]
    None,
    /// The lock's random value: unique, but in no order related to the
    /// acquisitions. Values are drawn by `Out::fresh_value` in increasing
    /// order, which alone would make them a counter; so the resource orders
    /// them the other way round: a value drawn later compares lower. That is
    /// one possible outcome of random draws, and the one that defeats
    /// fencing (an earlier holder's value beats a later one's).
    LockValue,
    /// A separate counter service (`INCR`), asked when the lock is won.
    Counter,
}

/// How a client sends its `SET`s. antirez's step 2 asks the masters
/// "sequentially", and the paragraph after the steps recommends sending to
/// all of them "at the same time using multiplexing", so as to spend as
/// little of the validity as possible; real clients do either (redlock-py
/// in sequence; node-redlock, Redisson and redsync at once). An attempt in
/// sequence spends up to one round trip per master of its validity, which
/// can leave too little for the check for ever (a livelock with no fault:
/// `scenarios/redlock-sequential-requests.toml`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Requests {
    /// Every `SET` at once, and one timeout for all the answers. The default.
    #[default]
    Parallel,
    /// One master after another, each with its own timeout: a master that
    /// does not answer in time counts as a no, and the next is asked.
    Sequential,
}

/// The `[system]` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    pub masters: u8,
    pub clients: u8,
    /// Key expiry, in a master's ticks.
    pub ttl: u8,
    /// The per-request timeout, in the client's ticks.
    pub timeout: u8,
    /// The clock-drift allowance subtracted from the validity, in ticks.
    pub drift: u8,
    /// Validity the client insists on having left when it checks, to cover
    /// its own work (the write and its answer): the documentation leaves
    /// "finish within the validity time" to the user.
    pub margin: u8,
    /// The shortest delay, in the client's ticks, before it tries again.
    /// The documentation asks for a random delay ("a random delay in order
    /// to try to desynchronize multiple clients"): the client draws one of
    /// `retry..=retry_max`, each fair per state, and waits exactly that.
    pub retry: u8,
    /// The longest delay; `retry_max = retry` is a fixed delay, under which
    /// clients can stay in lockstep for ever. Default `retry + 1`.
    pub retry_max: u8,
    pub restart: Restart,
    pub fencing: Fencing,
    pub requests: Requests,
    pub pause_window: PauseWindow,
    pub acquisitions: u8,
    /// `[system] work`: the most ticks a holder works in its critical
    /// section before it writes (0: it writes at once).
    pub work: u8,
}

/// The `[system]` keys as a scenario writes them: each field's type says
/// what it allows and what an absent key is (src/scenario/typed.rs).
/// `retry_max` allows `retry..=20` and is `retry + 1` when absent, so it is
/// checked in [`Params::read`].
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Keys {
    masters: Within<1, 7, 3>,
    clients: Within<1, 4, 2>,
    ttl: Within<1, 30, 8>,
    timeout: Within<1, 30, 2>,
    drift: Within<0, 10, 1>,
    margin: Within<0, 10, 2>,
    retry: Within<1, 10, 3>,
    restart: Word<Restart>,
    fencing: Word<Fencing>,
    requests: Word<Requests>,
    pause_window: Word<PauseWindow>,
    work: Within<0, 10, 0>,
    retry_max: Option<Whole>,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let k: Keys = sc.system()?;
        let retry = k.retry.get();
        let p = Params {
            masters: k.masters.get(),
            clients: k.clients.get(),
            ttl: k.ttl.get(),
            timeout: k.timeout.get(),
            drift: k.drift.get(),
            margin: k.margin.get(),
            retry,
            retry_max: match k.retry_max {
                Some(Whole(v)) => within(&sc.path, "[system] ", "retry_max", v, retry, 20)?,
                None => retry + 1,
            },
            restart: k.restart.get(),
            fencing: k.fencing.get(),
            requests: k.requests.get(),
            pause_window: k.pause_window.get(),
            acquisitions: sc.acquisitions,
            work: k.work.get(),
        };
        if p.timeout >= p.ttl {
            return Err(ScenarioError(format!(
                "{}: [system] timeout = {} must be shorter than ttl = {}; allowed: 1 to {}",
                sc.path.display(),
                p.timeout,
                p.ttl,
                p.ttl.saturating_sub(1).max(1)
            )));
        }
        Ok(p)
    }

    pub fn quorum(&self) -> u32 {
        self.masters as u32 / 2 + 1
    }

    /// Every master, as a bit mask over master ids.
    fn all_masters(&self) -> u8 {
        ((1u16 << self.masters) - 1) as u8
    }

    fn counter(&self) -> Id {
        self.masters as Id + self.clients as Id
    }

    fn resource(&self) -> Id {
        self.counter() + usize::from(self.fencing == Fencing::Counter)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Master(Params),
    Client(Params),
    Counter,
    Resource(Params),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub enum State {
    Master(#[rewrite] Master),
    Client(#[rewrite] Client),
    Counter(#[rewrite(token)] u32),
    Resource(#[rewrite] Resource),
}

parts!(State { Client(Client) => client, Resource(Resource) => resource });
parts!(Msg { Resource(ResourceMsg) => resource });

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub enum Msg {
    /// `SET lock value NX PX ttl`.
    Lock {
        #[rewrite(value)]
        value: u32,
    },
    /// A master's answer to the request that set `value`.
    Locked {
        #[rewrite(value)]
        value: u32,
        ok: bool,
    },
    /// Compare-and-delete: `if GET lock == value then DEL lock`.
    Unlock {
        #[rewrite(value)]
        value: u32,
    },
    /// Ask the counter service for a token (`INCR`), for the hold of the
    /// attempt that set `value`.
    Incr {
        #[rewrite(value)]
        value: u32,
    },
    Token {
        #[rewrite(value)]
        value: u32,
        #[rewrite(token)]
        token: u32,
    },
    Resource(#[rewrite] ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Timer {
    /// Master: the key's TTL.
    KeyExpiry,
    /// Master: a `delayed` restart ends.
    Recovered,
    /// Client: the per-request timeout.
    Timeout,
    /// Client: what is left of the lock's validity.
    Validity,
    /// Client: the back-off drawn; when it fires, the client tries again.
    Retry,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Step {
    /// The first attempt of an acquisition (a retry is the back-off
    /// timer's, [`Timer::Retry`]).
    Acquire,
    /// After giving up: draw a back-off of this many ticks.
    Backoff(u8),
    Check,
    Write,
}

impl Node {
    fn params(&self) -> Option<&Params> {
        match self {
            Node::Master(p) | Node::Client(p) | Node::Resource(p) => Some(p),
            Node::Counter => None,
        }
    }

    /// The sequence this node's fencing tokens belong to, if they are
    /// renumbered: a counter's tokens are, and lock values are values.
    /// (Without fencing it is 0.) The counter service has no params: its
    /// tokens are counted.
    fn token_seq(&self) -> Option<Seq> {
        match self.params().map_or(Fencing::Counter, |p| p.fencing) {
            Fencing::None => None,
            Fencing::LockValue => Some(Seq::Value),
            Fencing::Counter => Some(Seq::Token),
        }
    }
}

impl Actor for Node {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    type Watch = Elapsed;
    type Step = Step;
    const PLAIN: Option<Plain<Self>> = Some(Plain::new());

    fn init(&self, _ctx: &Ctx<'_, Self>, _out: &mut Out<Self>) -> State {
        match self {
            Node::Master(_) => State::Master(Master::default()),
            Node::Client(p) => State::Client(Client {
                script: Script::new(p.acquisitions),
                value: 0,
                answered: 0,
                yes: 0,
                checked: false,
                token: None,
                ghost: 0,
                drawing: false,
            }),
            Node::Counter => State::Counter(0),
            Node::Resource(_) => State::Resource(Resource::default()),
        }
    }

    fn steps(&self, ctx: &Ctx<'_, Self>, state: &State, steps: &mut Vec<Step>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        match c.script.phase {
            Phase::Want if c.drawing => steps.extend((p.retry..=p.retry_max).map(Step::Backoff)),
            Phase::Want if ctx.timer(Timer::Retry).is_none() => steps.push(Step::Acquire),
            Phase::Holding if !c.checked && c.token.is_some() => steps.push(Step::Check),
            Phase::Holding if c.checked => steps.push(Step::Write),
            _ => {}
        }
    }

    client_timing!(Node::Client(p) => p.work, write: Step::Write, want: Step::Acquire);

    /// Each back-off delay is one outcome of a random draw, when there is
    /// more than one to draw.
    fn random(&self, step: Step) -> bool {
        matches!((self, step), (Node::Client(p), Step::Backoff(_)) if p.retry_max > p.retry)
    }

    fn on_step(&self, ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        client_step(p, c, ctx, step, out);
    }

    fn on_msg(&self, ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Master(p), State::Master(m)) => master_receive(p, m, src, msg, out),
            (Node::Client(p), State::Client(c)) => client_receive(p, c, ctx, src, msg, out),
            (Node::Counter, State::Counter(n)) => {
                if let Msg::Incr { value } = msg {
                    *n += 1;
                    out.send(src, Msg::Token { value, token: *n });
                }
            }
            (Node::Resource(p), State::Resource(r)) => {
                if let Msg::Resource(ResourceMsg::Write { token, ghost }) = msg {
                    let answer = match p.fencing {
                        Fencing::LockValue => write_by_random_value(r, token, ghost, out),
                        fencing => r.write(fencing == Fencing::Counter, token, ghost, out),
                    };
                    out.send(src, Msg::Resource(answer));
                }
            }
            _ => {}
        }
    }

    fn on_timer(&self, ctx: &Ctx<'_, Self>, state: &mut State, timer: Timer, out: &mut Out<Self>) {
        match (self, state, timer) {
            (Node::Client(p), State::Client(c), Timer::Timeout) if c.script.phase == Phase::Acquiring => {
                timed_out(p, c, ctx, out)
            }
            // The validity ran out before the client checked it: lost.
            (Node::Client(p), State::Client(c), Timer::Validity) if c.script.phase == Phase::Holding => {
                give_up(p, c, out)
            }
            // The back-off is over: try again, at once.
            (Node::Client(p), State::Client(c), Timer::Retry) if c.script.phase == Phase::Want => acquire(p, c, out),
            (Node::Master(_), State::Master(m), Timer::KeyExpiry) => m.key = None,
            (Node::Master(_), State::Master(m), Timer::Recovered) => m.recovering = false,
            _ => {}
        }
    }

    fn crash(&self, state: &mut State, timers: &mut crate::world::Clocks<Timer>) {
        match (self, state) {
            (Node::Master(p), State::Master(m)) => redis_key::crash(p.restart == Restart::Fsync, m, timers, Timer::KeyExpiry),
            _ => timers.clear(),
        }
    }

    fn restart(&self, ctx: &Ctx<'_, Self>, durable: &State, out: &mut Out<Self>) -> State {
        match (self, durable) {
            (Node::Master(p), State::Master(m)) if p.restart == Restart::Fsync => {
                State::Master(redis_key::reload(*m, ctx, Timer::KeyExpiry, out, |m| m.key = None))
            }
            (Node::Master(p), _) if p.restart == Restart::Delayed => {
                out.set_timer(Timer::Recovered, p.ttl);
                State::Master(Master {
                    key: None,
                    recovering: true,
                })
            }
            _ => self.init(ctx, out),
        }
    }

    fn watch_cap(&self, _: Elapsed) -> u8 {
        // Any elapsed time of a TTL or more leaves no validity.
        self.params().map_or(u8::MAX, |p| p.ttl)
    }

    fn may_pause(&self, state: &State) -> bool {
        match (self, state) {
            (Node::Client(p), State::Client(c)) => p.pause_window.allows(&c.script),
            _ => true,
        }
    }
}

impl Renumber for Node {
    fn rename(&self, state: &mut State, ids: &dyn Fn(Id) -> Id) {
        // Masks are over master ids (below 8); an id renamed out of that
        // range (symmetry's erasure) lands on the top bit.
        let remap = |mask: u8| {
            (0..8)
                .filter(|b| mask & (1 << b) != 0)
                .fold(0u8, |m, b| m | 1 << ids(b).min(7))
        };
        // Keys hold values, not ids.
        if let State::Client(c) = state {
            c.answered = remap(c.answered);
            c.yes = remap(c.yes);
        }
    }

    /// The derived walk, and the tokens whose sequence depends on
    /// `fencing` (`token_seq`): the client's, the resource's highest.
    fn numbers(&self, state: &mut State, visit: &mut impl FnMut(Seq, &mut u32)) {
        state.numbers(visit);
        // The node's own kind first: a master holds no token, and its
        // params are then not read (this runs for every node of every
        // successor).
        let token = match state {
            State::Client(c) => match &mut c.token {
                Some(token) => token,
                None => return,
            },
            State::Resource(r) => &mut r.max_token,
            State::Master(_) | State::Counter(_) => return,
        };
        if let Some(seq) = self.token_seq() {
            visit(seq, token);
        }
    }

    /// The derived walk, and a write's token as [`Renumber::numbers`] says.
    fn numbers_msg(&self, msg: &mut Msg, visit: &mut impl FnMut(Seq, &mut u32)) {
        msg.numbers(visit);
        // The message's kind first, as in `numbers`.
        if let Msg::Resource(ResourceMsg::Write { token, .. }) = msg {
            if let Some(seq) = self.token_seq() {
                visit(seq, token);
            }
        }
    }
}

/// The resource with lock values as tokens ([`Fencing::LockValue`]): it
/// rejects a token lower than the highest it has accepted, in the order of
/// random values, in which a value drawn later is lower. `max_token` holds
/// that highest (0: none yet).
fn write_by_random_value(r: &mut Resource, token: u32, ghost: u32, out: &mut Out<Node>) -> ResourceMsg {
    if r.max_token != 0 && token > r.max_token {
        return ResourceMsg::Rejected;
    }
    let answer = r.write(false, token, ghost, out);
    r.max_token = token;
    answer
}

impl Lock for Node {
    /// A client believes it holds the lock while its validity timer is
    /// above zero, and, once it has checked that timer, until it has
    /// written and released (docs/design.md §5).
    fn lock_view(world: &World<Self>, state: &WorldState<Self>) -> LockView {
        // Every Redlock client checks its validity: until it has passed its
        // check, a client that won a majority may not use the lock, and
        // still wants it (docs/design.md §5).
        leases_view(world, state, |_, n| {
            let c = n.state.client()?;
            Some(ClientLease::new(c.script, true, c.checked, n.timer(Timer::Validity)))
        })
    }
}

/// The world of a `redlock` scenario: masters s1..sN, clients c1..,
/// the counter service (with counter fencing), the resource.
pub fn world(sc: &Scenario) -> Result<World<Node>, ScenarioError> {
    let p = Params::read(sc)?;
    let mut layout = Layout::default();
    let masters = layout.nodes(&Node::Master(p), "s", p.masters, Role::Server);
    let clients = layout.nodes(&Node::Client(p), "c", p.clients, Role::Client);
    if p.fencing == Fencing::Counter {
        layout.node(Node::Counter, "counter", Role::Observer);
    }
    layout.node(Node::Resource(p), "resource", Role::Observer);
    let mut symmetry = Vec::new();
    if sc.symmetry {
        // Masters run the same program, and so do clients: their lock
        // values (and tokens) are drawn values, not ids. A client that asks
        // in sequence asks the masters in their order, which renaming them
        // would change: then only the clients are interchangeable.
        if p.requests == Requests::Parallel {
            symmetry.push(masters);
        }
        if clients.len() > 1 {
            symmetry.push(clients);
        }
    }
    Ok(layout.world(sc, symmetry))
}
