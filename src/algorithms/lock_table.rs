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

use serde::{Deserialize, Serialize};

use super::client::{show, tla, validity_left, PauseWindow, Phase, Script};
use super::one_server_world;
use super::resource::{Resource, ResourceMsg};
use crate::properties::{Lock, LockView, FOREIGN_RELEASE};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::{Actor, Ctx, Describe, Id, Out, Renumber, Seq, Tla, TlaMapping, World, WorldState};

/// How a client decides it may use the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClientKind {
    /// Holds the lock from the insert's answer until it has released it.
    Naive,
    /// Measures the insert's round trip and checks the validity left before
    /// it writes; its belief ends when its validity timer reaches zero.
    Validity,
}

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

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let mut k = sc.system_keys();
        let p = Params {
            clients: k.uint("clients", 1, 4, 2)?,
            expiry: k.flag("expiry", false)?,
            ttl: k.uint("ttl", 1, 30, 4)?,
            timeout: k.uint("timeout", 1, 30, 3)?,
            client: k.choice(
                "client",
                &[("naive", ClientKind::Naive), ("validity", ClientKind::Validity)],
                ClientKind::Naive,
            )?,
            drift: k.uint("drift", 0, 10, 1)?,
            margin: k.uint("margin", 0, 10, 2)?,
            retry: k.uint("retry", 1, 10, 1)?,
            pause_window: k.choice("pause_window", &PauseWindow::CHOICES, PauseWindow::Any)?,
            acquisitions: sc.acquisitions,
            work: k.uint("work", 0, 10, 0)?,
        };
        k.finish()?;
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

/// The lock's row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Row {
    /// The `owner` column: the inserting attempt's random value.
    pub owner: u32,
    /// `expires_at < now()` on the database's clock.
    pub expired: bool,
    /// Ghost: the client that inserted it (for `no_foreign_release`).
    pub holder: Id,
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
    /// The current attempt's random value (0: none).
    pub value: u32,
    /// Validity client: checked its validity timer and found time left.
    pub checked: bool,
    pub ghost: u32,
}

impl Client {
    /// Drops what only mattered to the attempt or the hold that just
    /// ended, so equal situations are equal states.
    fn forget(&mut self) {
        self.value = 0;
        self.checked = false;
        self.ghost = 0;
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum State {
    Database(Database),
    Client(Client),
    Resource(Resource),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Msg {
    /// `INSERT INTO locks VALUES ('lock', value, now() + ttl)`, after
    /// `DELETE ... WHERE expires_at < now()` when rows expire.
    Insert {
        value: u32,
    },
    /// `DELETE FROM locks WHERE name = 'lock' AND owner = value`.
    Delete {
        value: u32,
    },
    /// The insert committed.
    Inserted {
        value: u32,
        ghost: u32,
    },
    /// Unique-key violation: the row exists.
    Duplicate {
        value: u32,
    },
    /// The delete committed (whether or not it removed a row).
    Deleted {
        value: u32,
    },
    Resource(ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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

/// Validity client: the stopwatch started when it sends the insert.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Elapsed;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Step {
    Acquire,
    Check,
    Write,
}

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
        match c.script.phase {
            Phase::Want if ctx.timer(Timer::Retry).is_none() => steps.push(Step::Acquire),
            Phase::Holding if p.validity() && !c.checked => steps.push(Step::Check),
            Phase::Holding => steps.push(Step::Write),
            _ => {}
        }
    }

    /// A holder works from 0 to `[system] work` ticks before it writes.
    fn within(&self, step: Step) -> Option<u8> {
        match self {
            Node::Client(p) if step == Step::Write && p.work > 0 => Some(p.work),
            _ => None,
        }
    }

    /// A client comes to want the lock, and retries after its back-off,
    /// at any moment (docs/design.md §2).
    fn urgent(&self, step: Step) -> bool {
        step != Step::Acquire
    }

    fn on_step(&self, ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        match step {
            // Acquire: INSERT the row with a fresh value, with a timeout
            // (and, for a validity client, the stopwatch started).
            Step::Acquire => {
                c.value = out.fresh_value();
                if p.validity() {
                    out.start_watch(Elapsed);
                }
                out.send(DB, Msg::Insert { value: c.value });
                out.set_timer(Timer::Timeout, p.timeout);
                c.script.phase = Phase::Acquiring;
            }
            // Check: is there validity left for the work? Only then write.
            Step::Check => {
                if ctx.timer(Timer::Validity).is_some_and(|v| v > p.margin) {
                    c.checked = true;
                    out.cancel_timer(Timer::Validity);
                } else {
                    give_up(p, c, out);
                }
            }
            // Write: the critical section's write (no fencing token: 0).
            Step::Write => {
                let write = ResourceMsg::Write {
                    token: 0,
                    ghost: c.ghost,
                };
                out.send(p.resource(), Msg::Resource(write));
                c.script.phase = Phase::Writing;
            }
        }
    }

    fn on_msg(&self, ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Database(p), State::Database(d)) => database_receive(p, d, src, msg, out),
            (Node::Client(p), State::Client(c)) => client_receive(p, c, ctx, msg, out),
            (Node::Resource, State::Resource(r)) => {
                if let Msg::Resource(ResourceMsg::Write { token, ghost }) = msg {
                    let answer = r.write(false, token, ghost, out);
                    out.send(src, Msg::Resource(answer));
                }
            }
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

    // Traces (issue 8 item 6): SQL statements and their results.
}

impl Describe for Node {
    fn persistence(&self) -> &'static str {
        match self {
            Node::Database(_) => "with its committed rows",
            _ => "empty",
        }
    }

    fn show_msg(&self, msg: &Msg, _names: &[String]) -> String {
        let v = |v: &u32| show::value(*v);
        match msg {
            Msg::Insert { value } => match self.params().filter(|p| p.expiry) {
                Some(p) => format!("INSERT INTO locks VALUES ('lock', '{}', now() + {})", v(value), p.ttl),
                None => format!("INSERT INTO locks VALUES ('lock', '{}')", v(value)),
            },
            Msg::Delete { value } => format!("DELETE FROM locks WHERE owner = '{}'", v(value)),
            Msg::Inserted { value, .. } => format!("INSERT 0 1 ('{}')", v(value)),
            Msg::Duplicate { value } => format!("ERROR: duplicate key ('{}')", v(value)),
            Msg::Deleted { value } => format!("DELETE done ('{}')", v(value)),
            Msg::Resource(m) => m.show(&show::token),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire => "asks for the lock",
            Step::Check => "checks its validity",
            Step::Write => "writes to the resource",
        }
        .into()
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::RowExpiry => "row's expires_at",
            Timer::Timeout => "statement timeout",
            Timer::Validity => "validity timer",
            Timer::Retry => "back-off",
        }
        .into()
    }

    fn show_state(&self, state: &State, _names: &[String]) -> Option<Vec<(String, String)>> {
        Some(match state {
            State::Database(d) => {
                let row = match d.row {
                    None => "none".to_string(),
                    Some(r) if r.expired => format!("('lock', '{}'), expired", show::value(r.owner)),
                    Some(r) => format!("('lock', '{}')", show::value(r.owner)),
                };
                vec![show::field("row", row)]
            }
            State::Client(c) => {
                let mut out = show::script(&c.script);
                out.push(show::field("value", show::value(c.value)));
                if self.params().is_some_and(|p| p.validity()) {
                    out.push(show::field("validity checked", show::yes(c.checked)));
                }
                out.push(show::field("acquisition", show::ghost(c.ghost)));
                out
            }
            State::Resource(r) => r.show(None),
        })
    }
}

impl Renumber for Node {
    fn numbers(&self, state: &mut State, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match state {
            State::Database(d) => {
                if let Some(row) = &mut d.row {
                    visit(Seq::Value, &mut row.owner);
                    visit(Seq::Ghost, &mut row.ghost);
                }
            }
            State::Client(c) => {
                visit(Seq::Value, &mut c.value);
                visit(Seq::Ghost, &mut c.ghost);
            }
            State::Resource(r) => r.numbers(false, visit),
        }
    }

    fn numbers_msg(&self, msg: &mut Msg, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match msg {
            Msg::Insert { value } | Msg::Delete { value } | Msg::Duplicate { value } | Msg::Deleted { value } => {
                visit(Seq::Value, value)
            }
            Msg::Inserted { value, ghost } => {
                visit(Seq::Value, value);
                visit(Seq::Ghost, ghost);
            }
            Msg::Resource(m) => m.numbers(false, visit),
        }
    }
}

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/LockTable.tla's variables: the lock's row, the clients'
    /// attempts, the resource's maxima.
    fn tla_vars(_world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let client = |f: fn(&Client) -> Tla| {
            tla::per_node(s, move |st| match st {
                State::Client(c) => Some(f(c)),
                _ => None,
            })
        };
        let row = tla::the(s, |st| match st {
            State::Database(d) => Some(Tla::or_none(d.row, |r| {
                Tla::rec([
                    ("owner", Tla::int(r.owner)),
                    ("expired", Tla::Bool(r.expired)),
                    ("holder", Tla::int(r.holder as i64)),
                    ("ghost", Tla::int(r.ghost)),
                ])
            })),
            _ => None,
        });
        let r = s
            .nodes
            .iter()
            .find_map(|n| match n.state {
                State::Resource(r) => Some(r),
                _ => None,
            })
            .unwrap_or_default();
        Some(vec![
            ("row", row),
            ("phase", client(|c| tla::phase(c.script.phase))),
            ("left", client(|c| Tla::int(c.script.left))),
            ("value", client(|c| Tla::int(c.value))),
            ("checked", client(|c| Tla::Bool(c.checked))),
            ("acquired", client(|c| Tla::int(c.ghost))),
            ("max_token", Tla::int(r.max_token)),
            ("max_ghost", Tla::int(r.max_ghost)),
        ])
    }
}

/// The client's answer handler: an answer counts only in the phase that
/// waits for it and with the current attempt's value.
fn client_receive(p: &Params, c: &mut Client, ctx: &Ctx<'_, Node>, msg: Msg, out: &mut Out<Node>) {
    match (c.script.phase, msg) {
        (Phase::Acquiring, Msg::Inserted { value, ghost }) if value == c.value => {
            out.cancel_timer(Timer::Timeout);
            c.ghost = ghost;
            c.script.phase = Phase::Holding;
            if p.validity() {
                // T2: validity = ttl − (T2 − T1) − drift.
                out.stop_watch(Elapsed);
                match validity_left(p.ttl, ctx.elapsed(Elapsed), p.drift) {
                    Some(validity) => out.set_timer(Timer::Validity, validity),
                    None => give_up(p, c, out),
                }
            }
        }
        (Phase::Acquiring, Msg::Duplicate { value }) if value == c.value => {
            out.cancel_timer(Timer::Timeout);
            refused(p, c, out);
        }
        // Release: the write is answered, so the critical section is over.
        (Phase::Writing, Msg::Resource(_)) => {
            out.send(DB, Msg::Delete { value: c.value });
            out.set_timer(Timer::Timeout, p.timeout);
            c.script.phase = Phase::Releasing;
        }
        (Phase::Releasing, Msg::Deleted { value }) if value == c.value => {
            out.cancel_timer(Timer::Timeout);
            c.forget();
            c.script.released(p.acquisitions);
        }
        _ => {}
    }
}

/// The insert failed or timed out: want the lock again after the back-off.
fn refused(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    if p.validity() {
        out.stop_watch(Elapsed);
    }
    c.forget();
    c.script.phase = Phase::Want;
    out.set_timer(Timer::Retry, p.retry);
}

/// Validity client: the row was won with too little validity, or the
/// validity ran out before the check. Delete the row without waiting for
/// the answer (as Redlock's clients unlock), and retry later.
fn give_up(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    out.send(DB, Msg::Delete { value: c.value });
    out.cancel_timer(Timer::Validity);
    c.forget();
    c.script.phase = Phase::Want;
    out.set_timer(Timer::Retry, p.retry);
}

/// The database runs each statement as one transaction.
fn database_receive(p: &Params, d: &mut Database, src: Id, msg: Msg, out: &mut Out<Node>) {
    match msg {
        Msg::Insert { value } => {
            if d.row.is_some_and(|r| !(p.expiry && r.expired)) {
                out.send(src, Msg::Duplicate { value });
                return;
            }
            let ghost = out.next_ghost();
            d.row = Some(Row {
                owner: value,
                expired: false,
                holder: src,
                ghost,
            });
            if p.expiry {
                out.set_timer(Timer::RowExpiry, p.ttl);
            }
            out.send(src, Msg::Inserted { value, ghost });
        }
        Msg::Delete { value } => {
            if let Some(row) = d.row.filter(|r| r.owner == value) {
                if row.holder != src {
                    out.raise(FOREIGN_RELEASE);
                }
                d.row = None;
                out.cancel_timer(Timer::RowExpiry);
            }
            out.send(src, Msg::Deleted { value });
        }
        _ => {}
    }
}

impl Lock for Node {
    /// A naive client believes it holds the lock from the insert's answer
    /// until it has written and released. A validity client believes it
    /// while its validity timer is above zero and, once it has checked that
    /// timer, until it has written and released; until it has checked, it
    /// still wants the lock (docs/design.md §5).
    fn lock_view(world: &World<Self>, state: &WorldState<Self>) -> LockView {
        let mut v = LockView::default();
        for (i, n) in state.nodes.iter().enumerate() {
            let (State::Client(c), Node::Client(p)) = (&n.state, &world.actors[i]) else {
                continue;
            };
            let valid = n.timer(Timer::Validity).is_some_and(|t| t > 0);
            let (holds, wants) = c.script.lease_belief(p.validity(), c.checked, valid);
            v.holding |= u64::from(holds) << i;
            v.wanting |= u64::from(wants) << i;
        }
        v
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
