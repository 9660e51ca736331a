//! `lock-table`: a SQL table `locks(name PRIMARY KEY, owner, expires_at)`.
//! A client takes the lock by inserting the row (the unique key makes a
//! second insert fail) and releases it with `DELETE ... WHERE owner = me`.
//! With the expiry column, the insert first removes a row whose
//! `expires_at` has passed on the database's clock (expiry is checked on
//! insert, never by a background job). The spec is `specs/LockTable.tla`;
//! actions appear here in its order: Acquire, Write (client steps), then
//! the database's handlers, then the lock view.

use serde::{Deserialize, Serialize};

use super::client::{scripts_view, Phase, Script};
use super::one_server_world;
use super::resource::{Resource, ResourceMsg};
use crate::properties::{Lock, LockView};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::{Actor, Ctx, Id, Out, Seq, World, WorldState};

/// The `[system]` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    pub clients: u8,
    /// Rows carry `expires_at = now() + ttl`, checked on insert.
    pub expiry: bool,
    /// Row lifetime in the database's ticks, when `expiry` is on.
    pub ttl: u8,
    /// Ticks a refused client waits before inserting again.
    pub retry: u8,
    pub acquisitions: u8,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let mut k = sc.system_keys();
        let p = Params {
            clients: k.uint("clients", 1, 4, 2)?,
            expiry: k.flag("expiry", false)?,
            ttl: k.uint("ttl", 1, 30, 4)?,
            retry: k.uint("retry", 1, 10, 1)?,
            acquisitions: sc.acquisitions,
        };
        k.finish()?;
        Ok(p)
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

/// The lock's row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Row {
    pub owner: Id,
    /// `expires_at < now()` on the database's clock.
    pub expired: bool,
    /// Ghost: numbers the acquisition in insert order.
    pub ghost: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Database {
    pub row: Option<Row>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    pub script: Script,
    pub ghost: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum State {
    Database(Database),
    Client(Client),
    Resource(Resource),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Msg {
    /// `INSERT INTO locks VALUES ('lock', me, now() + ttl)`, after
    /// `DELETE ... WHERE expires_at < now()` when rows expire.
    Insert,
    /// `DELETE FROM locks WHERE name = 'lock' AND owner = me`.
    Delete,
    /// The insert committed.
    Inserted {
        ghost: u32,
    },
    /// Unique-key violation: the row exists.
    Duplicate,
    /// The delete committed.
    Deleted,
    Resource(ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Timer {
    /// Database: the row's `expires_at` passes.
    RowExpiry,
    /// Client: wait before inserting again.
    Retry,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Step {
    Acquire,
    Write,
}

impl Actor for Node {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    type Watch = ();
    type Step = Step;

    fn init(&self, _ctx: &Ctx<'_, Self>, _out: &mut Out<Self>) -> State {
        match self {
            Node::Database(_) => State::Database(Database::default()),
            Node::Client(p) => State::Client(Client {
                script: Script::new(p.acquisitions),
                ghost: 0,
            }),
            Node::Resource => State::Resource(Resource::default()),
        }
    }

    fn steps(&self, ctx: &Ctx<'_, Self>, state: &State, steps: &mut Vec<Step>) {
        let State::Client(c) = state else { return };
        match c.script.phase {
            Phase::Want if ctx.timer(Timer::Retry).is_none() => steps.push(Step::Acquire),
            Phase::Holding => steps.push(Step::Write),
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
            Step::Acquire => {
                out.send(DB, Msg::Insert);
                c.script.phase = Phase::Acquiring;
            }
            Step::Write => {
                let resource = p.clients as Id + 1;
                out.send(
                    resource,
                    Msg::Resource(ResourceMsg::Write {
                        token: 0,
                        ghost: c.ghost,
                    }),
                );
                c.script.phase = Phase::Writing;
            }
        }
    }

    fn on_msg(&self, _ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Database(p), State::Database(d)) => database_receive(p, d, src, msg, out),
            (Node::Client(p), State::Client(c)) => client_receive(p, c, msg, out),
            (Node::Resource, State::Resource(r)) => {
                if let Msg::Resource(ResourceMsg::Write { token, ghost }) = msg {
                    let answer = r.write(false, token, ghost, out);
                    out.send(src, Msg::Resource(answer));
                }
            }
            _ => {}
        }
    }

    fn on_timer(&self, _ctx: &Ctx<'_, Self>, state: &mut State, timer: Timer, _out: &mut Out<Self>) {
        if let (State::Database(d), Timer::RowExpiry) = (state, timer) {
            if let Some(row) = d.row.as_mut() {
                row.expired = true;
            }
        }
    }

    /// A database is durable: committed rows survive, and `expires_at` is a
    /// stored absolute time, so it keeps running while the database is down.
    fn crash(&self, _state: &mut State, timers: &mut Vec<(Timer, u8)>) {
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

    fn numbers(&self, state: &mut State, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match state {
            State::Database(d) => {
                if let Some(row) = &mut d.row {
                    visit(Seq::Ghost, &mut row.ghost);
                }
            }
            State::Client(c) => visit(Seq::Ghost, &mut c.ghost),
            State::Resource(r) => r.numbers(false, visit),
        }
    }

    fn numbers_msg(&self, msg: &mut Msg, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match msg {
            Msg::Inserted { ghost } => visit(Seq::Ghost, ghost),
            Msg::Resource(m) => m.numbers(false, visit),
            _ => {}
        }
    }

    fn persistence(&self) -> &'static str {
        match self {
            Node::Database(_) => "with its committed rows",
            _ => "empty",
        }
    }
}

/// The database runs each statement as one transaction.
fn database_receive(p: &Params, d: &mut Database, src: Id, msg: Msg, out: &mut Out<Node>) {
    match msg {
        Msg::Insert => {
            if d.row.is_some_and(|r| !(p.expiry && r.expired)) {
                out.send(src, Msg::Duplicate);
                return;
            }
            let ghost = out.next_ghost();
            d.row = Some(Row {
                owner: src,
                expired: false,
                ghost,
            });
            if p.expiry {
                out.set_timer(Timer::RowExpiry, p.ttl);
            }
            out.send(src, Msg::Inserted { ghost });
        }
        Msg::Delete => {
            if d.row.is_some_and(|r| r.owner == src) {
                d.row = None;
                out.cancel_timer(Timer::RowExpiry);
            }
            out.send(src, Msg::Deleted);
        }
        _ => {}
    }
}

fn client_receive(p: &Params, c: &mut Client, msg: Msg, out: &mut Out<Node>) {
    match (c.script.phase, msg) {
        (Phase::Acquiring, Msg::Inserted { ghost }) => {
            c.script.phase = Phase::Holding;
            c.ghost = ghost;
        }
        (Phase::Acquiring, Msg::Duplicate) => {
            c.script.phase = Phase::Want;
            out.set_timer(Timer::Retry, p.retry);
        }
        // Release: the write is answered, so the critical section is over.
        (Phase::Writing, Msg::Resource(_)) => {
            out.send(DB, Msg::Delete);
            c.script.phase = Phase::Releasing;
        }
        (Phase::Releasing, Msg::Deleted) => c.script.released(p.acquisitions),
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
