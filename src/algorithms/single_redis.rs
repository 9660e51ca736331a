//! `single-redis`: one Redis server holding the lock key, after the Redis
//! documentation's `SET` locking pattern and its older `SETNX` form, with
//! Redisson's watchdog renewal and an optional fencing counter.
//! The spec is `specs/SingleRedis.tla`; actions appear here in its order:
//! Acquire, Expire, Write, Release (client steps), then the server's
//! handlers, then the lock view.

use serde::{Deserialize, Serialize};

use super::client::{scripts_view, Phase, Script};
use super::one_server_world;
use super::resource::{Resource, ResourceMsg};
use crate::properties::{Lock, LockView, FOREIGN_RELEASE};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::{Actor, Ctx, Id, Out, Role, Seq, World, WorldState};

/// How a client takes the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// `SETNX lock me`: no expiry at all.
    Setnx,
    /// `SETNX lock me`, then `EXPIRE lock ttl` as a second command.
    SetnxExpire,
    /// `SET lock me NX PX ttl`: set and expiry in one command.
    SetNxPx,
}

/// How a client gives the lock back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Release {
    /// `DEL lock`, whoever holds it now.
    Del,
    /// The Lua script: `if GET lock == me then DEL lock`.
    CompareAndDelete,
}

/// What survives a server restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Restart {
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
    pub acquisitions: u8,
    /// Whether tokens may be renumbered by rank: not when a crash can
    /// reset the counter (`restart = "empty"` and the server may crash),
    /// since the reset counter is then compared with older tokens by its
    /// distance to them.
    pub rank_tokens: bool,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let mut k = sc.system_keys();
        let mut p = Params {
            clients: k.uint("clients", 1, 4, 2)?,
            ttl: k.uint("ttl", 1, 30, 4)?,
            command: k.choice(
                "command",
                &[
                    ("setnx", Command::Setnx),
                    ("setnx-expire", Command::SetnxExpire),
                    ("set-nx-px", Command::SetNxPx),
                ],
                Command::SetNxPx,
            )?,
            release: k.choice(
                "release",
                &[("del", Release::Del), ("compare-and-delete", Release::CompareAndDelete)],
                Release::Del,
            )?,
            watchdog: k.flag("watchdog", false)?,
            fencing: k.flag("fencing", false)?,
            retry: k.uint("retry", 1, 10, 1)?,
            restart: k.choice(
                "restart",
                &[("empty", Restart::Empty), ("fsync", Restart::Fsync)],
                Restart::Empty,
            )?,
            acquisitions: sc.acquisitions,
            rank_tokens: true,
        };
        k.finish()?;
        p.rank_tokens = p.restart == Restart::Fsync || sc.faults.crashes == 0 || !sc.faults.targets.hits(Role::Server);
        if p.watchdog && p.command == Command::Setnx {
            return Err(ScenarioError(format!(
                "{}: [system] watchdog = true renews an expiry that command = \"setnx\" never sets; allowed with command = \"set-nx-px\" or \"setnx-expire\"",
                sc.path.display()
            )));
        }
        Ok(p)
    }

    /// The watchdog's renewal period, as Redisson's `lockWatchdogTimeout / 3`.
    pub fn renew_every(&self) -> u8 {
        (self.ttl / 3).max(1)
    }
}

/// Node ids: the server is 0, clients 1..=n, the resource last.
const SERVER: Id = 0;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Server(Params),
    Client(Params),
    Resource(Params),
}

/// The lock key `lock`: its value is the owner's id (clients set unique
/// values); `ghost` numbers the acquisition in grant order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub owner: Id,
    pub ghost: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Server {
    pub key: Option<Key>,
    /// The fencing counter (`INCR lock:fence`).
    pub fence: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    pub script: Script,
    /// `EXPIRE` still to send (`setnx-expire` only) or awaiting its answer.
    pub expire: Expire,
    pub token: u32,
    pub ghost: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expire {
    Done,
    ToSend,
    Sent,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum State {
    Server(Server),
    Client(Client),
    Resource(Resource),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Msg {
    /// `SETNX lock me`.
    SetNx,
    /// `SET lock me NX PX ttl`.
    SetNxPx,
    /// `EXPIRE lock ttl`.
    Expire,
    /// `DEL lock`.
    Del,
    /// `if GET lock == me then DEL lock`.
    CompareAndDelete,
    /// Redisson's renewal: `if GET lock == me then PEXPIRE lock ttl`.
    Renew,
    /// The key was set; `token` is the fencing counter (0 without fencing).
    Granted {
        token: u32,
        ghost: u32,
    },
    /// The key exists: not set.
    Refused,
    /// Answer to `EXPIRE`.
    ExpireSet,
    /// Answer to a release.
    Released,
    Resource(ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Timer {
    /// Server: the key's TTL.
    KeyExpiry,
    /// Client: wait before asking again.
    Retry,
    /// Client: the watchdog's next renewal.
    Renew,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Step {
    Acquire,
    Expire,
    Write,
}

impl Node {
    fn params(&self) -> &Params {
        match self {
            Node::Server(p) | Node::Client(p) | Node::Resource(p) => p,
        }
    }

    fn resource(&self) -> Id {
        self.params().clients as Id + 1
    }
}

impl Actor for Node {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    type Watch = ();
    type Step = Step;

    fn init(&self, _ctx: &Ctx<'_, Self>, _out: &mut Out<Self>) -> State {
        match self {
            Node::Server(_) => State::Server(Server::default()),
            Node::Client(p) => State::Client(Client {
                script: Script::new(p.acquisitions),
                expire: Expire::Done,
                token: 0,
                ghost: 0,
            }),
            Node::Resource(_) => State::Resource(Resource::default()),
        }
    }

    fn steps(&self, ctx: &Ctx<'_, Self>, state: &State, steps: &mut Vec<Step>) {
        let State::Client(c) = state else { return };
        match (c.script.phase, c.expire) {
            (Phase::Want, _) if ctx.timer(Timer::Retry).is_none() => steps.push(Step::Acquire),
            (Phase::Holding, Expire::ToSend) => steps.push(Step::Expire),
            (Phase::Holding, Expire::Done) => steps.push(Step::Write),
            _ => {}
        }
    }

    /// A client comes to want the lock, and retries after its back-off,
    /// at any moment (DESIGN.md §2).
    fn urgent(&self, step: Step) -> bool {
        step != Step::Acquire
    }

    fn on_step(&self, _ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        match step {
            // Acquire: SETNX, or SET NX PX.
            Step::Acquire => {
                let cmd = if p.command == Command::SetNxPx {
                    Msg::SetNxPx
                } else {
                    Msg::SetNx
                };
                out.send(SERVER, cmd);
                c.script.phase = Phase::Acquiring;
            }
            // Expire: the second command of the two-step form.
            Step::Expire => {
                out.send(SERVER, Msg::Expire);
                c.expire = Expire::Sent;
            }
            // Write: the critical section's write, with the token if fenced.
            Step::Write => {
                out.send(
                    self.resource(),
                    Msg::Resource(ResourceMsg::Write {
                        token: c.token,
                        ghost: c.ghost,
                    }),
                );
                c.script.phase = Phase::Writing;
            }
        }
    }

    fn on_msg(&self, _ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Server(p), State::Server(s)) => server_receive(p, s, src, msg, out),
            (Node::Client(p), State::Client(c)) => client_receive(p, c, msg, out),
            (Node::Resource(p), State::Resource(r)) => {
                if let Msg::Resource(ResourceMsg::Write { token, ghost }) = msg {
                    let answer = r.write(p.fencing, token, ghost, out);
                    out.send(src, Msg::Resource(answer));
                }
            }
            _ => {}
        }
    }

    fn on_timer(&self, _ctx: &Ctx<'_, Self>, state: &mut State, timer: Timer, out: &mut Out<Self>) {
        match (state, timer) {
            // The key's TTL ran out on the server's clock.
            (State::Server(s), Timer::KeyExpiry) => s.key = None,
            // The watchdog renews while the client believes it holds.
            (State::Client(c), Timer::Renew) if c.script.holds() => {
                out.send(SERVER, Msg::Renew);
                out.set_timer(Timer::Renew, self.params().renew_every());
            }
            _ => {}
        }
    }

    fn crash(&self, state: &mut State, timers: &mut Vec<(Timer, u8)>) {
        match (self, state) {
            // An fsynced server keeps its keys, and the key's expiry is an
            // absolute time on disk: it keeps running while the server is down.
            (Node::Server(p), State::Server(_)) if p.restart == Restart::Fsync => {
                timers.retain(|(t, _)| *t == Timer::KeyExpiry)
            }
            (Node::Server(_), s) => {
                *s = State::Server(Server::default());
                timers.clear();
            }
            _ => timers.clear(),
        }
    }

    fn restart(&self, ctx: &Ctx<'_, Self>, durable: &State, out: &mut Out<Self>) -> State {
        match (self, durable) {
            (Node::Server(p), State::Server(s)) if p.restart == Restart::Fsync => {
                let mut s = *s;
                if ctx.resume(Timer::KeyExpiry, out) {
                    s.key = None;
                }
                State::Server(s)
            }
            _ => self.init(ctx, out),
        }
    }

    /// Ghost numbers, and tokens unless a restart can reset the counter:
    /// without persistence, `INCR lock:fence` starts again from 0.
    fn numbers(&self, state: &mut State, visit: &mut dyn FnMut(Seq, &mut u32)) {
        let tokens = self.params().rank_tokens;
        match state {
            State::Server(s) => {
                if let Some(k) = &mut s.key {
                    visit(Seq::Ghost, &mut k.ghost);
                }
                if tokens {
                    visit(Seq::Token, &mut s.fence);
                }
            }
            State::Client(c) => {
                visit(Seq::Ghost, &mut c.ghost);
                if tokens {
                    visit(Seq::Token, &mut c.token);
                }
            }
            State::Resource(r) => r.numbers(tokens, visit),
        }
    }

    fn numbers_msg(&self, msg: &mut Msg, visit: &mut dyn FnMut(Seq, &mut u32)) {
        let tokens = self.params().rank_tokens;
        match msg {
            Msg::Granted { token, ghost } => {
                visit(Seq::Ghost, ghost);
                if tokens {
                    visit(Seq::Token, token);
                }
            }
            Msg::Resource(m) => m.numbers(tokens, visit),
            _ => {}
        }
    }

    fn persistence(&self) -> &'static str {
        match self {
            Node::Server(p) if p.restart == Restart::Fsync => "with its fsynced keys",
            _ => "empty",
        }
    }
}

/// The server executes one command atomically, as Redis does.
fn server_receive(p: &Params, s: &mut Server, src: Id, msg: Msg, out: &mut Out<Node>) {
    match msg {
        Msg::SetNx | Msg::SetNxPx => {
            if s.key.is_some() {
                out.send(src, Msg::Refused);
                return;
            }
            s.key = Some(Key {
                owner: src,
                ghost: out.next_ghost(),
            });
            if msg == Msg::SetNxPx {
                out.set_timer(Timer::KeyExpiry, p.ttl);
            }
            if p.fencing {
                s.fence += 1;
            }
            let ghost = s.key.map_or(0, |k| k.ghost);
            out.send(src, Msg::Granted { token: s.fence, ghost });
        }
        Msg::Expire => {
            if s.key.is_some() {
                out.set_timer(Timer::KeyExpiry, p.ttl);
            }
            out.send(src, Msg::ExpireSet);
        }
        Msg::Del => {
            if let Some(k) = s.key.take() {
                if k.owner != src {
                    out.raise(FOREIGN_RELEASE);
                }
                out.cancel_timer(Timer::KeyExpiry);
            }
            out.send(src, Msg::Released);
        }
        Msg::CompareAndDelete => {
            if s.key.is_some_and(|k| k.owner == src) {
                s.key = None;
                out.cancel_timer(Timer::KeyExpiry);
            }
            out.send(src, Msg::Released);
        }
        Msg::Renew if s.key.is_some_and(|k| k.owner == src) => out.set_timer(Timer::KeyExpiry, p.ttl),
        _ => {}
    }
}

fn client_receive(p: &Params, c: &mut Client, msg: Msg, out: &mut Out<Node>) {
    match (c.script.phase, msg) {
        (Phase::Acquiring, Msg::Granted { token, ghost }) => {
            c.script.phase = Phase::Holding;
            c.token = token;
            c.ghost = ghost;
            if p.command == Command::SetnxExpire {
                c.expire = Expire::ToSend;
            }
            if p.watchdog {
                out.set_timer(Timer::Renew, p.renew_every());
            }
        }
        (Phase::Acquiring, Msg::Refused) => {
            c.script.phase = Phase::Want;
            out.set_timer(Timer::Retry, p.retry);
        }
        (Phase::Holding, Msg::ExpireSet) => c.expire = Expire::Done,
        // Release: the write is answered, so the critical section is over.
        (Phase::Writing, Msg::Resource(ResourceMsg::Accepted | ResourceMsg::Rejected)) => {
            let cmd = match p.release {
                Release::Del => Msg::Del,
                Release::CompareAndDelete => Msg::CompareAndDelete,
            };
            out.send(SERVER, cmd);
            out.cancel_timer(Timer::Renew);
            c.script.phase = Phase::Releasing;
        }
        (Phase::Releasing, Msg::Released) => c.script.released(p.acquisitions),
        _ => {}
    }
}

impl Lock for Node {
    fn lock_view(_world: &World<Self>, state: &WorldState<Self>) -> LockView {
        scripts_view(state, |s| match s {
            State::Client(c) => Some(c.script),
            _ => None,
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
