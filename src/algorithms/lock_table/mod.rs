//! `lock-table`: a SQL table `locks(name PRIMARY KEY, owner, expires_at)`.
//! A client takes the lock by inserting the row with a fresh random value in
//! `owner` (the unique key makes a second insert fail) and releases it with
//! `DELETE ... WHERE owner = <that value>`. With the expiry column, the
//! insert first removes a row whose `expires_at` has passed on the
//! database's clock (expiry is checked on insert, never by a background
//! job). The mirror spec (this module in TLA+; the clean-room one is in `specs/`) is `specs/mirror/LockTable.tla`; actions appear here in its
//! order: Acquire, Check, Write (client steps), the client's handlers and
//! timers, then the database's handlers, then the lock view.
//!
//! Every statement a client sends has a timeout on the client's clock
//! (`timeout`): an `INSERT` that times out counts as refused (the client
//! backs off and retries; if it did commit, the row is orphaned until it
//! expires), a `DELETE` that times out counts as done (the client moves
//! on; its row expires). Each answer carries the attempt's value, so an
//! answer to an earlier statement is recognised and ignored.
//!
//! Two clients: a `naive` one holds the lock from the insert's answer
//! until it has written and released; a `validity` one (with expiry only)
//! does as a Redlock client does: it starts a stopwatch when it sends the
//! insert, on success computes validity = ttl − elapsed − drift, and checks
//! that more than `margin` is left before it writes (Check, then Write).

use crate::algorithms::lease::next_step;
use crate::algorithms::prelude::*;
use super::one_server_world;

mod client;
mod database;
mod describe;
mod family;
mod itf;
pub use family::LockTable;

pub use client::Client;
pub use crate::algorithms::lease::ClientKind;
pub use database::{Database, Row};

use client::{client_receive, client_step, give_up, refused};
use database::database_receive;

/// The `[system]` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    pub clients: u8,
    /// Rows carry `expires_at = now() + ttl`, checked on insert.
    pub expiry: bool,
    /// Row lifetime in the database's ticks, when `expiry` is on.
    pub ttl: u8,
    /// Ticks a client waits for the answer to a statement (its own clock).
    pub timeout: u8,
    pub client: ClientKind,
    /// Validity client: the clock-drift allowance subtracted from the validity.
    pub drift: u8,
    /// Validity client: validity it insists on having left when it checks.
    pub margin: u8,
    /// Ticks a refused client waits before inserting again.
    pub retry: u8,
    pub pause_window: PauseWindow,
    pub acquisitions: u8,
    /// `[system] work`: the most ticks a holder works in its critical
    /// section before it writes (0: it writes at once).
    pub work: u8,
}

/// The `[system]` keys as a scenario writes them: each field's type says
/// what it allows and what an absent key is (src/scenario/typed.rs).
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Keys {
    clients: Within<1, 4, 2>,
    expiry: Flag<false>,
    ttl: Within<1, 30, 4>,
    timeout: Within<1, 30, 3>,
    client: Word<ClientKind>,
    drift: Within<0, 10, 1>,
    margin: Within<0, 10, 2>,
    retry: Within<1, 10, 1>,
    pause_window: Word<PauseWindow>,
    work: Within<0, 10, 0>,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let k: Keys = sc.system()?;
        let p = Params {
            clients: k.clients.get(),
            expiry: k.expiry.get(),
            ttl: k.ttl.get(),
            timeout: k.timeout.get(),
            client: k.client.get(),
            drift: k.drift.get(),
            margin: k.margin.get(),
            retry: k.retry.get(),
            pause_window: k.pause_window.get(),
            acquisitions: sc.acquisitions,
            work: k.work.get(),
        };
        if p.client == ClientKind::Validity && !p.expiry {
            return Err(ScenarioError(format!(
                "{}: [system] client = \"validity\" needs expiry = true, since a row without expires_at has no validity to measure; allowed: client = \"naive\", or expiry = true",
                sc.path.display()
            )));
        }
        Ok(p)
    }

    fn validity(&self) -> bool {
        self.client == ClientKind::Validity
    }

    fn resource(&self) -> Id {
        self.clients as Id + 1
    }
}

/// Node ids: the database is 0, clients 1..=n, the resource last.
const DB: Id = 0;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Database(Params),
    Client(Params),
    Resource,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub enum State {
    Database(#[rewrite] Database),
    Client(#[rewrite] Client),
    Resource(#[rewrite] Resource),
}

parts!(State { Client(Client) => client, Resource(Resource) => resource });
parts!(Msg { Resource(ResourceMsg) => resource });

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub enum Msg {
    /// `INSERT INTO locks VALUES ('lock', value, now() + ttl)`, after
    /// `DELETE ... WHERE expires_at < now()` when rows expire.
    Insert {
        #[rewrite(value)]
        value: u32,
    },
    /// `DELETE FROM locks WHERE name = 'lock' AND owner = value`.
    Delete {
        #[rewrite(value)]
        value: u32,
    },
    /// The insert committed.
    Inserted {
        #[rewrite(value)]
        value: u32,
        #[rewrite(ghost)]
        ghost: u32,
    },
    /// Unique-key violation: the row exists.
    Duplicate {
        #[rewrite(value)]
        value: u32,
    },
    /// The delete committed (whether or not it removed a row).
    Deleted {
        #[rewrite(value)]
        value: u32,
    },
    Resource(#[rewrite] ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Timer {
    /// Database: the row's `expires_at` passes.
    RowExpiry,
    /// Client: the statement's timeout.
    Timeout,
    /// Validity client: what is left of the lock's validity.
    Validity,
    /// Client: wait before inserting again.
    Retry,
}

pub use crate::algorithms::lease::Step;

impl Node {
    fn params(&self) -> Option<&Params> {
        match self {
            Node::Database(p) | Node::Client(p) => Some(p),
            Node::Resource => None,
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
            Node::Database(_) => State::Database(Database::default()),
            Node::Client(p) => State::Client(Client {
                script: Script::new(p.acquisitions),
                value: 0,
                checked: false,
                ghost: 0,
            }),
            Node::Resource => State::Resource(Resource::default()),
        }
    }

    fn steps(&self, ctx: &Ctx<'_, Self>, state: &State, steps: &mut Vec<Step>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        steps.extend(next_step(&c.script, ctx.timer(Timer::Retry), p.validity(), c.checked));
    }

    client_timing!(Node::Client(p) => p.work, write: Step::Write, want: Step::Acquire);

    fn on_step(&self, ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        client_step(p, c, ctx, step, out);
    }

    fn on_msg(&self, ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Database(p), State::Database(d)) => database_receive(p, d, src, msg, out),
            (Node::Client(p), State::Client(c)) => client_receive(p, c, ctx, msg, out),
            (Node::Resource, State::Resource(r)) => r.receive(false, src, msg.resource(), Msg::Resource, out),
            _ => {}
        }
    }

    fn on_timer(&self, _ctx: &Ctx<'_, Self>, state: &mut State, timer: Timer, out: &mut Out<Self>) {
        match (self, state, timer) {
            // TimedOut: no answer in time. An insert counts as refused, a
            // delete as done.
            (Node::Client(p), State::Client(c), Timer::Timeout) => match c.script.phase {
                Phase::Acquiring => refused(p, c, out),
                Phase::Releasing => {
                    c.forget();
                    c.script.released(p.acquisitions);
                }
                _ => {}
            },
            // ValidityEnds: the validity ran out before the client checked it.
            (Node::Client(p), State::Client(c), Timer::Validity) if c.script.phase == Phase::Holding => {
                give_up(p, c, out)
            }
            (Node::Database(_), State::Database(d), Timer::RowExpiry) => {
                if let Some(row) = d.row.as_mut() {
                    row.expired = true;
                }
            }
            _ => {}
        }
    }

    /// A database is durable: committed rows survive, and `expires_at` is a
    /// stored absolute time, so it keeps running while the database is down.
    fn crash(&self, _state: &mut State, timers: &mut crate::world::Clocks<Timer>) {
        timers.retain(|(t, _)| *t == Timer::RowExpiry && matches!(self, Node::Database(_)));
    }

    fn restart(&self, ctx: &Ctx<'_, Self>, durable: &State, out: &mut Out<Self>) -> State {
        match durable {
            State::Database(d) => {
                let mut d = *d;
                // The expiry timer survives a crash only with its row.
                if ctx.resume(Timer::RowExpiry, out) {
                    if let Some(row) = d.row.as_mut() {
                        row.expired = true;
                    }
                }
                State::Database(d)
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

impl Renumber for Node {}

impl Lock for Node {
    /// A naive client believes it holds the lock from the insert's answer
    /// until it has written and released. A validity client believes it
    /// while its validity timer is above zero and, once it has checked that
    /// timer, until it has written and released; until it has checked, it
    /// still wants the lock (docs/design.md §5).
    fn lock_view(world: &World<Self>, state: &WorldState<Self>) -> LockView {
        leases_view(world, state, |a, n| {
            let c = n.state.client()?;
            Some(ClientLease::new(c.script, a.params()?.validity(), c.checked, n.timer(Timer::Validity)))
        })
    }
}

/// The world of a `lock-table` scenario.
pub fn world(sc: &Scenario) -> Result<World<Node>, ScenarioError> {
    let p = Params::read(sc)?;
    Ok(one_server_world(
        sc,
        (Node::Database(p), "db"),
        Node::Client(p),
        p.clients,
        Node::Resource,
    ))
}
