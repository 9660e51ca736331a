//! `single-redis`: one Redis server holding the lock key, after the Redis
//! documentation's `SET` locking pattern and its older `SETNX` form, with
//! Redisson's watchdog renewal and an optional fencing counter.
//! The mirror spec (this module in TLA+; the clean-room one is in `specs/`) is `specs/mirror/SingleRedis.tla`; actions appear here in its order:
//! Acquire, Expire, Check, Write, Release (client steps), then the server's
//! handlers, the client's other handlers and timers, then the lock view.
//!
//! The client, as a real one behaves:
//! - each acquisition attempt draws a fresh random lock value (the
//!   documentation's "random value unique across all clients and all lock
//!   requests"); the key stores it, compare-and-delete and renewal compare
//!   it, and every answer carries it, so that an answer to an earlier
//!   request is recognised and ignored;
//! - every request that expects an answer (`SET NX PX` / `SETNX`, `EXPIRE`,
//!   the release) has a timeout on the client's clock (`timeout`). When it
//!   fires, an acquisition attempt has failed (back off and retry, as after
//!   a refusal: a key it may have set expires by its TTL), an `EXPIRE`
//!   counts as done (the client holds the key, and its release deletes it),
//!   and a release counts as done (the key expires by its TTL). The write
//!   to the protected resource has none: the resource and its links are
//!   never faulted;
//! - a `naive` client believes it holds the lock from the grant until its
//!   write is answered. A `validity` client, as Redlock's clients do,
//!   starts a stopwatch when it sends its request, computes validity =
//!   ttl − elapsed − drift on the grant, holds only while a validity timer
//!   of that length runs, and before its write checks (Check) that more
//!   than `margin` is left; the write follows as a separate step, so a
//!   pause between the two is a pause while it holds (Kleppmann's point).

use crate::algorithms::lease::validity_keys;
use crate::algorithms::prelude::*;
use crate::algorithms::common::redis_key;
use super::one_server_world;

mod client;
mod describe;
mod family;
mod itf;
mod server;
pub use family::SingleRedis;

pub use client::{Client, Expire};
pub use crate::algorithms::lease::ClientKind;
pub use server::{Key, Server};

use client::{client_receive, client_step, give_up, timed_out};
use server::server_receive;

/// How a client takes the lock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Command {
    /// `SETNX lock value`: no expiry at all.
    Setnx,
    /// `SETNX lock value`, then `EXPIRE lock ttl` as a second command.
    SetnxExpire,
    /// `SET lock value NX PX ttl`: set and expiry in one command. The
    /// default.
    #[default]
    SetNxPx,
}

/// How a client gives the lock back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Release {
    /// `DEL lock`, whoever holds it now. The default.
    #[default]
    Del,
    /// The Lua script: `if GET lock == value then DEL lock`.
    CompareAndDelete,
}

/// What survives a server restart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Restart {
    #[default]
    Empty,
    Fsync,
}

/// The `[system]` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    pub clients: u8,
    /// Key expiry in the server's ticks (`PX`, `EXPIRE`, renewal).
    pub ttl: u8,
    pub command: Command,
    pub release: Release,
    /// Redisson's watchdog: renew the expiry every `ttl / 3` while held.
    pub watchdog: bool,
    /// The server hands out an `INCR` counter as fencing token with each
    /// grant, and the resource rejects lower tokens.
    pub fencing: bool,
    /// Ticks a refused client waits before asking again.
    pub retry: u8,
    pub restart: Restart,
    /// The per-request timeout, in the client's ticks.
    pub timeout: u8,
    pub client: ClientKind,
    /// Validity client: the clock-drift allowance subtracted from the validity.
    pub drift: u8,
    /// Validity client: validity it insists on having left at its check.
    pub margin: u8,
    pub acquisitions: u8,
    /// `[system] work`: the most ticks a holder works in its critical
    /// section before it writes (0: it writes at once).
    pub work: u8,
    /// Whether tokens may be renumbered by rank: not when a crash can
    /// reset the counter (`restart = "empty"` and the server may crash),
    /// since the reset counter is then compared with older tokens by its
    /// distance to them.
    pub rank_tokens: bool,
}

/// The `[system]` keys as a scenario writes them: each field's type says
/// what it allows and what an absent key is (src/scenario/typed.rs).
/// `drift` and `margin` are allowed only with the validity client, so
/// [`validity_keys`] sees whether they were given.
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Keys {
    clients: Within<1, 4, 2>,
    ttl: Within<1, 30, 4>,
    command: Word<Command>,
    release: Word<Release>,
    watchdog: Flag<false>,
    fencing: Flag<false>,
    retry: Within<1, 10, 1>,
    restart: Word<Restart>,
    timeout: Within<1, 30, 3>,
    client: Word<ClientKind>,
    work: Within<0, 10, 0>,
    drift: Option<Within<0, 10, 0>>,
    margin: Option<Within<0, 10, 0>>,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let k: Keys = sc.system()?;
        let mut p = Params {
            clients: k.clients.get(),
            ttl: k.ttl.get(),
            command: k.command.get(),
            release: k.release.get(),
            watchdog: k.watchdog.get(),
            fencing: k.fencing.get(),
            retry: k.retry.get(),
            restart: k.restart.get(),
            timeout: k.timeout.get(),
            client: k.client.get(),
            drift: 1,
            margin: 2,
            acquisitions: sc.acquisitions,
            work: k.work.get(),
            rank_tokens: true,
        };
        let drift = k.drift.map(Within::get);
        let margin = k.margin.map(Within::get);
        let file = sc.path.display();
        p.rank_tokens = p.restart == Restart::Fsync || sc.faults.crashes == 0 || !sc.faults.targets.hits(Role::Server);
        if p.watchdog && p.command == Command::Setnx {
            return Err(ScenarioError(format!(
                "{file}: [system] watchdog = true renews an expiry that command = \"setnx\" never sets; allowed with command = \"set-nx-px\" or \"setnx-expire\""
            )));
        }
        (p.drift, p.margin) = validity_keys(&file, p.client, drift, margin)?;
        if p.client == ClientKind::Validity {
            if p.command == Command::Setnx {
                return Err(ScenarioError(format!(
                    "{file}: [system] client = \"validity\" computes a validity from a TTL that command = \"setnx\" never sets; allowed with command = \"set-nx-px\" or \"setnx-expire\""
                )));
            }
            if p.watchdog {
                return Err(ScenarioError(format!(
                    "{file}: [system] client = \"validity\" keeps the validity of its grant, which watchdog renewals would not extend; allowed: watchdog = false"
                )));
            }
        }
        Ok(p)
    }

    /// The watchdog's renewal period, as Redisson's `lockWatchdogTimeout / 3`.
    pub fn renew_every(&self) -> u8 {
        (self.ttl / 3).max(1)
    }

    fn validity(&self) -> bool {
        self.client == ClientKind::Validity
    }
}

/// Node ids: the server is 0, clients 1..=n, the resource last.
const SERVER: Id = 0;

pub type Node = OneServer<Params>;
pub type State = OneServerState<Server, Client>;
parts!(Msg { Resource(ResourceMsg) => resource });

/// Every request carries the attempt's lock value, and every answer the
/// value of its request. `EXPIRE` and `DEL` do not look at it: for them it
/// only tags the answer (and, for `DEL`, tells the `no_foreign_release`
/// property whose lock the release meant to remove).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub enum Msg {
    /// `SETNX lock value`.
    SetNx {
        #[rewrite(value)]
        value: u32,
    },
    /// `SET lock value NX PX ttl`.
    SetNxPx {
        #[rewrite(value)]
        value: u32,
    },
    /// `EXPIRE lock ttl`.
    Expire {
        #[rewrite(value)]
        value: u32,
    },
    /// `DEL lock`.
    Del {
        #[rewrite(value)]
        value: u32,
    },
    /// `if GET lock == value then DEL lock`.
    CompareAndDelete {
        #[rewrite(value)]
        value: u32,
    },
    /// Redisson's renewal: `if GET lock == value then PEXPIRE lock ttl`.
    Renew {
        #[rewrite(value)]
        value: u32,
    },
    /// The key was set; `token` is the fencing counter (0 without fencing).
    Granted {
        #[rewrite(value)]
        value: u32,
        token: u32,
        #[rewrite(ghost)]
        ghost: u32,
    },
    /// The key exists: not set.
    Refused {
        #[rewrite(value)]
        value: u32,
    },
    /// Answer to `EXPIRE`.
    ExpireSet {
        #[rewrite(value)]
        value: u32,
    },
    /// Answer to a release.
    Released {
        #[rewrite(value)]
        value: u32,
    },
    Resource(#[rewrite] ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Timer {
    /// Server: the key's TTL.
    KeyExpiry,
    /// Client: wait before asking again.
    Retry,
    /// Client: the watchdog's next renewal.
    Renew,
    /// Client: the request timeout.
    Timeout,
    /// Validity client: what is left of the lock's validity.
    Validity,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Step {
    Acquire,
    Expire,
    Check,
    Write,
}

impl Node {
    fn resource(&self) -> Id {
        self.params().clients as Id + 1
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
            Node::Server(_) => State::Server(Server::default()),
            Node::Client(p) => State::Client(Client {
                script: Script::new(p.acquisitions),
                value: 0,
                expire: Expire::Done,
                checked: false,
                token: 0,
                ghost: 0,
            }),
            Node::Resource(_) => State::Resource(Resource::default()),
        }
    }

    fn steps(&self, ctx: &Ctx<'_, Self>, state: &State, steps: &mut Vec<Step>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        match (c.script.phase, c.expire) {
            (Phase::Want, _) if ctx.timer(Timer::Retry).is_none() => steps.push(Step::Acquire),
            (Phase::Holding, Expire::ToSend) => steps.push(Step::Expire),
            (Phase::Holding, Expire::Done) if p.validity() && !c.checked => steps.push(Step::Check),
            (Phase::Holding, Expire::Done) => steps.push(Step::Write),
            _ => {}
        }
    }

    client_timing!(Node::Client(p) => p.work, write: Step::Write, want: Step::Acquire);

    fn on_step(&self, ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        client_step(p, c, ctx, step, self.resource(), out);
    }

    fn on_msg(&self, ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Server(p), State::Server(s)) => server_receive(p, s, src, msg, out),
            (Node::Client(p), State::Client(c)) => client_receive(p, c, ctx, msg, out),
            (Node::Resource(p), State::Resource(r)) => r.receive(p.fencing, src, msg.resource(), Msg::Resource, out),
            _ => {}
        }
    }

    fn on_timer(&self, _ctx: &Ctx<'_, Self>, state: &mut State, timer: Timer, out: &mut Out<Self>) {
        let p = self.params();
        match (state, timer) {
            // The key's TTL ran out on the server's clock.
            (State::Server(s), Timer::KeyExpiry) => s.key = None,
            // The watchdog renews while the client believes it holds.
            (State::Client(c), Timer::Renew) if c.script.holds() => {
                out.send(SERVER, Msg::Renew { value: c.value });
                out.set_timer(Timer::Renew, p.renew_every());
            }
            (State::Client(c), Timer::Timeout) => timed_out(p, c, out),
            // The validity ran out before the client checked it: lost.
            (State::Client(c), Timer::Validity) if c.script.phase == Phase::Holding => give_up(p, c, out),
            _ => {}
        }
    }

    fn crash(&self, state: &mut State, timers: &mut crate::world::Clocks<Timer>) {
        match (self, state) {
            (Node::Server(p), State::Server(s)) => redis_key::crash(p.restart == Restart::Fsync, s, timers, Timer::KeyExpiry),
            _ => timers.clear(),
        }
    }

    fn restart(&self, ctx: &Ctx<'_, Self>, durable: &State, out: &mut Out<Self>) -> State {
        match (self, durable) {
            (Node::Server(p), State::Server(s)) if p.restart == Restart::Fsync => {
                State::Server(redis_key::reload(*s, ctx, Timer::KeyExpiry, out, |s| s.key = None))
            }
            _ => self.init(ctx, out),
        }
    }

    fn watch_cap(&self, _: Elapsed) -> u8 {
        // Any elapsed time of a TTL or more leaves no validity.
        self.params().ttl
    }
}

/// Tokens (the counter `INCR lock:fence`, the tokens drawn from it and the
/// resource's highest) are renumbered only where a restart cannot reset
/// the counter (`Params::rank_tokens`): without persistence it starts
/// again from 0. Lock values and ghost numbers are the derived walk's.
impl Renumber for Node {
    fn numbers(&self, state: &mut State, visit: &mut impl FnMut(Seq, &mut u32)) {
        state.numbers(visit);
        if self.params().rank_tokens {
            match state {
                State::Server(s) => visit(Seq::Token, &mut s.fence),
                State::Client(c) => visit(Seq::Token, &mut c.token),
                State::Resource(r) => visit(Seq::Token, &mut r.max_token),
            }
        }
    }

    fn numbers_msg(&self, msg: &mut Msg, visit: &mut impl FnMut(Seq, &mut u32)) {
        msg.numbers(visit);
        if let Msg::Granted { token, .. } | Msg::Resource(ResourceMsg::Write { token, .. }) = msg {
            if self.params().rank_tokens {
                visit(Seq::Token, token);
            }
        }
    }
}

impl Lock for Node {
    /// A naive client believes it holds the lock from the grant until its
    /// write is answered. A validity client, while it is `Holding`, only
    /// while its validity timer is above zero or once it has checked it,
    /// and it still wants the lock until it has checked (docs/design.md §5).
    fn lock_view(world: &World<Self>, state: &WorldState<Self>) -> LockView {
        leases_view(world, state, |a, n| {
            let c = n.state.client()?;
            Some(ClientLease::new(c.script, a.params().validity(), c.checked, n.timer(Timer::Validity)))
        })
    }
}

/// The world of a `single-redis` scenario.
pub fn world(sc: &Scenario) -> Result<World<Node>, ScenarioError> {
    let p = Params::read(sc)?;
    Ok(one_server_world(
        sc,
        (Node::Server(p), "redis"),
        Node::Client(p),
        p.clients,
        Node::Resource(p),
    ))
}
