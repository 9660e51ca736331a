//! `coordinator`: the central-server algorithm for mutual exclusion
//! (Tanenbaum & van Steen, Distributed Systems, "A centralized algorithm";
//! Coulouris et al., Distributed Systems, "The central server algorithm").
//! One coordinator keeps a FIFO queue of requests and the current holder.
//! A client sends `REQUEST`; the coordinator answers `GRANT` when the lock
//! is free, and otherwise queues the request; the holder sends `RELEASE`
//! when it leaves its critical section, and the coordinator grants the
//! head of the queue. Three messages per entry, and no clocks: nothing
//! here sets a timer, so `Tick` is never enabled.
//!
//! The spec is `specs/Coordinator.tla`; actions appear here in its order:
//! Acquire, Write (client steps); the server's handlers ReceiveRequest,
//! ReceiveRelease, ReceiveReplicate, ReceiveAck, ReceiveRestarted
//! (Takeover); the client's ReceiveGrant, ReceiveWritten (which sends
//! `RELEASE`), ReceiveCoordinator; the resource's ReceiveWrite; Restart.
//!
//! Requests carry a fresh request id (`Out::fresh_value`), and a `GRANT`
//! carries the id of the request it answers, so a client recognises and
//! ignores a grant of an earlier request. A client waits for its grant
//! with no timeout: the textbook client blocks until it is granted, and a
//! client that gave up would have to retract a request the coordinator may
//! already have granted.
//!
//! `standby`: a second server that takes over when the coordinator fails.
//! - `"none"`: the coordinator alone. It keeps its queue in memory, so a
//!   coordinator that crashes has lost the holder and the queue: it comes
//!   back knowing that and serves no more (serving with an empty queue
//!   would grant a held lock, which is the no-state standby's bug). Its
//!   crash stops all progress, whether or not it restarts.
//! - `"no-state"`: a standby that knows nothing of the queue or the holder.
//! - `"replicated"`: before each grant, the coordinator sends its state
//!   (holder and queue) to the standby as `REPLICATE` and grants only when
//!   the standby has acknowledged it (`ACK`): primary-backup replication
//!   (Budhiraja et al.) with the grant as the output the backup must have
//!   seen first.
//!
//! Failure detection: a coordinator that restarts in a system with a
//! standby has lost its memory, does not serve again, and tells the
//! standby (`RESTARTED`); the standby takes over on that message, and
//! announces itself to every client (`COORDINATOR`). A coordinator that
//! never restarts is never detected: there is no clock, so no timeout
//! (documented in the README; a heartbeat detector would add clocks to a
//! model that needs none, and its false suspicions are a different
//! question). A client that learns of the new coordinator asks it again
//! if it is waiting for a grant, and repeats its last `RELEASE` if it is
//! not in its critical section, since it cannot know whether the old
//! coordinator saw it (a `RELEASE` of a request that is not the holder's
//! is ignored). A `REQUEST` from the holder's client with a new id means
//! its previous hold is over (a client asks again only after releasing;
//! links are FIFO).
//!
//! A standby that crashes and restarts has lost its copy; it says
//! `RESTARTED` to the coordinator, which sends its state again. The pair
//! tolerates one crash: a crashed standby that had taken over does not
//! come back as coordinator, and a crashed client restarts believing the
//! first coordinator serves.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::client::{scripts_view, tla, Phase, Script};
use super::resource::{Resource, ResourceMsg};
use super::Layout;
use crate::properties::{Lock, LockView};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::{Actor, Ctx, Id, Out, Role, Seq, Tla, World, WorldState};

/// Whether a standby exists, and what it knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Standby {
    None,
    NoState,
    Replicated,
}

/// The `[system]` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    pub clients: u8,
    pub standby: Standby,
    pub acquisitions: u8,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let mut k = sc.system_keys();
        let p = Params {
            clients: k.uint("clients", 1, 4, 2)?,
            standby: k.choice(
                "standby",
                &[
                    ("none", Standby::None),
                    ("no-state", Standby::NoState),
                    ("replicated", Standby::Replicated),
                ],
                Standby::None,
            )?,
            acquisitions: sc.acquisitions,
        };
        k.finish()?;
        Ok(p)
    }

    fn has_standby(&self) -> bool {
        self.standby != Standby::None
    }

    /// The first client's id: after the coordinator and the standby.
    fn first_client(&self) -> Id {
        1 + Id::from(self.has_standby())
    }

    fn clients(&self) -> std::ops::Range<Id> {
        self.first_client()..self.first_client() + self.clients as Id
    }

    fn resource(&self) -> Id {
        self.first_client() + self.clients as Id
    }
}

/// Node ids: the coordinator is 0, the standby (if any) 1, then the
/// clients, the resource last.
pub const COORDINATOR: Id = 0;
pub const STANDBY: Id = 1;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// The first coordinator (node 0) and the standby (node 1) run the
    /// same program in different modes.
    Server(Params),
    Client(Params),
    Resource,
}

/// A request: the client and its request id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Request {
    pub client: Id,
    pub id: u32,
}

/// What a server does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// Serves requests.
    Coordinator,
    /// Keeps the copy the coordinator replicates, and waits.
    Standby,
    /// A coordinator that restarted after its standby took over (or will):
    /// it answers nothing.
    Retired,
}

/// A server's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Server {
    pub mode: Mode,
    /// Requests waiting, oldest first.
    pub queue: Vec<Request>,
    /// The request granted, and its ghost acquisition number.
    pub holder: Option<(Request, u32)>,
    /// `replicated`: the holder's `GRANT` waits for the standby's `ACK`.
    pub replicating: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    pub script: Script,
    /// The current (or, with a standby, the last) request id; 0: none.
    pub id: u32,
    /// Ghost: the acquisition number of the grant held.
    pub ghost: u32,
    /// The server the client believes is the coordinator.
    pub coordinator: Id,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum State {
    Server(Server),
    Client(Client),
    Resource(Resource),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Msg {
    /// `REQUEST`: the client asks for the lock.
    Request {
        id: u32,
    },
    /// `GRANT`: the coordinator gives the lock to request `id`.
    Grant {
        id: u32,
        ghost: u32,
    },
    /// `RELEASE`: the holder of request `id` gives the lock back.
    Release {
        id: u32,
    },
    /// The coordinator's state, replicated to the standby before a grant.
    Replicate {
        holder: Option<(Request, u32)>,
        queue: Vec<Request>,
    },
    /// The standby has the state whose holder's request is `id`.
    Ack {
        id: u32,
    },
    /// A server restarted and has lost its memory.
    Restarted,
    /// The standby has taken over: it is the coordinator now.
    Coordinator,
    Resource(ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Timer {}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Watch {}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Step {
    /// The client sends `REQUEST` to the coordinator it knows.
    Acquire,
    /// The critical section's write to the resource.
    Write,
}

/// A waiting request as the spec writes it: `[client, id]`.
fn tla_queue(queue: &[Request]) -> Tla {
    Tla::Seq(
        queue
            .iter()
            .map(|r| Tla::rec([("client", Tla::int(r.client as i64)), ("id", Tla::int(r.id))]))
            .collect(),
    )
}

/// The granted request as the spec writes it: `[client, id, ghost]`, or
/// `None`.
fn tla_holder(holder: Option<(Request, u32)>) -> Tla {
    Tla::or_none(holder, |(r, g)| {
        Tla::rec([
            ("client", Tla::int(r.client as i64)),
            ("id", Tla::int(r.id)),
            ("ghost", Tla::int(g)),
        ])
    })
}

impl Actor for Node {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    type Watch = Watch;
    type Step = Step;

    fn init(&self, ctx: &Ctx<'_, Self>, _out: &mut Out<Self>) -> State {
        match self {
            Node::Server(_) => State::Server(Server {
                mode: if ctx.id == COORDINATOR {
                    Mode::Coordinator
                } else {
                    Mode::Standby
                },
                queue: Vec::new(),
                holder: None,
                replicating: false,
            }),
            Node::Client(p) => State::Client(Client {
                script: Script::new(p.acquisitions),
                id: 0,
                ghost: 0,
                coordinator: COORDINATOR,
            }),
            Node::Resource => State::Resource(Resource::default()),
        }
    }

    fn steps(&self, _ctx: &Ctx<'_, Self>, state: &State, steps: &mut Vec<Step>) {
        if let State::Client(c) = state {
            match c.script.phase {
                Phase::Want => steps.push(Step::Acquire),
                Phase::Holding => steps.push(Step::Write),
                _ => {}
            }
        }
    }

    /// A client comes to want the lock at any moment (DESIGN.md §2).
    fn urgent(&self, step: Step) -> bool {
        step != Step::Acquire
    }

    fn on_step(&self, _ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        match step {
            // Acquire: REQUEST with a fresh request id.
            Step::Acquire => {
                c.id = out.fresh_value();
                out.send(c.coordinator, Msg::Request { id: c.id });
                c.script.phase = Phase::Acquiring;
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
            (Node::Server(p), State::Server(s)) => server_receive(p, ctx.id, s, src, msg, out),
            (Node::Client(p), State::Client(c)) => client_receive(p, c, src, msg, out),
            (Node::Resource, State::Resource(r)) => {
                if let Msg::Resource(ResourceMsg::Write { token, ghost }) = msg {
                    let answer = r.write(false, token, ghost, out);
                    out.send(src, Msg::Resource(answer));
                }
            }
            _ => {}
        }
    }

    /// Restart: a server's queue is in memory. The coordinator comes back
    /// knowing it has lost it and retires (serving with an empty queue
    /// would grant a held lock, as the no-state standby does); with a
    /// standby it says so (`RESTARTED`), and the standby takes over. A
    /// standby comes back with no copy, and says so to the coordinator. A
    /// client starts afresh.
    fn restart(&self, ctx: &Ctx<'_, Self>, _durable: &State, out: &mut Out<Self>) -> State {
        let mut state = self.init(ctx, out);
        if let (Node::Server(p), State::Server(s)) = (self, &mut state) {
            if ctx.id == COORDINATOR {
                s.mode = Mode::Retired;
                if p.has_standby() {
                    out.send(STANDBY, Msg::Restarted);
                }
            } else {
                out.send(COORDINATOR, Msg::Restarted);
            }
        }
        state
    }

    fn rename(&self, state: &mut State, ids: &dyn Fn(Id) -> Id) {
        if let State::Server(s) = state {
            for r in s.queue.iter_mut() {
                r.client = ids(r.client);
            }
            if let Some((r, _)) = s.holder.as_mut() {
                r.client = ids(r.client);
            }
        }
    }

    fn rename_msg(&self, msg: &mut Msg, ids: &dyn Fn(Id) -> Id) {
        if let Msg::Replicate { holder, queue } = msg {
            for r in queue.iter_mut() {
                r.client = ids(r.client);
            }
            if let Some((r, _)) = holder.as_mut() {
                r.client = ids(r.client);
            }
        }
    }

    fn numbers(&self, state: &mut State, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match state {
            State::Server(s) => {
                for r in s.queue.iter_mut() {
                    visit(Seq::Value, &mut r.id);
                }
                if let Some((r, g)) = s.holder.as_mut() {
                    visit(Seq::Value, &mut r.id);
                    visit(Seq::Ghost, g);
                }
            }
            State::Client(c) => {
                visit(Seq::Value, &mut c.id);
                visit(Seq::Ghost, &mut c.ghost);
            }
            State::Resource(r) => r.numbers(false, visit),
        }
    }

    fn numbers_msg(&self, msg: &mut Msg, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match msg {
            Msg::Request { id } | Msg::Release { id } | Msg::Ack { id } => visit(Seq::Value, id),
            Msg::Grant { id, ghost } => {
                visit(Seq::Value, id);
                visit(Seq::Ghost, ghost);
            }
            Msg::Replicate { holder, queue } => {
                for r in queue.iter_mut() {
                    visit(Seq::Value, &mut r.id);
                }
                if let Some((r, g)) = holder.as_mut() {
                    visit(Seq::Value, &mut r.id);
                    visit(Seq::Ghost, g);
                }
            }
            Msg::Restarted | Msg::Coordinator => {}
            Msg::Resource(m) => m.numbers(false, visit),
        }
    }

    /// specs/Coordinator.tla's variables: each server's mode, queue,
    /// holder and replication flag, the clients' requests, the resource's
    /// maximum.
    fn tla_vars(_world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let server = |f: &dyn Fn(&Server) -> Tla| {
            tla::per_node(s, |st| match st {
                State::Server(sv) => Some(f(sv)),
                _ => None,
            })
        };
        let client = |f: fn(&Client) -> Tla| {
            tla::per_node(s, move |st| match st {
                State::Client(c) => Some(f(c)),
                _ => None,
            })
        };
        let max_ghost = s
            .nodes
            .iter()
            .find_map(|n| match n.state {
                State::Resource(r) => Some(r.max_ghost),
                _ => None,
            })
            .unwrap_or(0);
        Some(vec![
            ("mode", server(&|sv| Tla::str(format!("{:?}", sv.mode)))),
            ("queue", server(&|sv| tla_queue(&sv.queue))),
            ("holder", server(&|sv| tla_holder(sv.holder))),
            ("replicating", server(&|sv| Tla::Bool(sv.replicating))),
            ("phase", client(|c| tla::phase(c.script.phase))),
            ("left", client(|c| Tla::int(c.script.left))),
            ("request", client(|c| Tla::int(c.id))),
            ("acquired", client(|c| Tla::int(c.ghost))),
            ("coord", client(|c| Tla::int(c.coordinator as i64))),
            ("max_ghost", Tla::int(max_ghost)),
        ])
    }

    /// As the spec writes messages: a replicated holder is a record or
    /// `None`, the queue a sequence of records.
    fn tla_msg(&self, msg: &Msg) -> Tla {
        match msg {
            // The spec's write carries no token: this family has none.
            Msg::Resource(ResourceMsg::Write { ghost, .. }) => {
                Tla::rec([("type", Tla::str("Write")), ("ghost", Tla::int(*ghost))])
            }
            Msg::Replicate { holder, queue } => Tla::rec([
                ("type", Tla::str("Replicate")),
                ("holder", tla_holder(*holder)),
                ("queue", tla_queue(queue)),
            ]),
            other => Tla::message(&serde_json::to_value(other).unwrap_or(serde_json::Value::Null)),
        }
    }

    fn show_msg(&self, msg: &Msg, names: &[String]) -> String {
        match msg {
            Msg::Request { id } => format!("REQUEST(r{id})"),
            Msg::Grant { id, ghost } => format!("GRANT(r{id}, acquisition {ghost})"),
            Msg::Release { id } => format!("RELEASE(r{id})"),
            Msg::Replicate { holder, queue } => format!(
                "REPLICATE(holder {}, queue {})",
                show_holder(holder, names),
                show_queue(queue, names)
            ),
            Msg::Ack { id } => format!("ACK(r{id})"),
            Msg::Restarted => "RESTARTED".into(),
            Msg::Coordinator => "COORDINATOR".into(),
            Msg::Resource(m) => show_resource(m),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire => "Acquire (sends REQUEST)".into(),
            Step::Write => "Write".into(),
        }
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match *timer {}
    }

    fn show_state(&self, state: &State, names: &[String]) -> Option<Vec<(String, String)>> {
        Some(match state {
            State::Server(s) => vec![
                ("mode".into(), format!("{:?}", s.mode).to_lowercase()),
                ("holder".into(), show_holder(&s.holder, names)),
                ("queue".into(), show_queue(&s.queue, names)),
                ("replicating".into(), s.replicating.to_string()),
            ],
            State::Client(c) => vec![
                ("phase".into(), show_phase(c.script.phase)),
                ("left".into(), c.script.left.to_string()),
                ("request".into(), show_id(c.id)),
                ("acquisition".into(), show_id_plain(c.ghost)),
                ("coordinator".into(), names[c.coordinator].clone()),
            ],
            State::Resource(r) => vec![("latest acquisition written".into(), show_id_plain(r.max_ghost))],
        })
    }
}

fn show_id(id: u32) -> String {
    if id == 0 {
        "none".into()
    } else {
        format!("r{id}")
    }
}

fn show_id_plain(n: u32) -> String {
    if n == 0 {
        "none".into()
    } else {
        n.to_string()
    }
}

fn show_holder(holder: &Option<(Request, u32)>, names: &[String]) -> String {
    match holder {
        None => "none".into(),
        Some((r, _)) => format!("{} r{}", names[r.client], r.id),
    }
}

fn show_queue(queue: &[Request], names: &[String]) -> String {
    let mut s = String::from("[");
    for (i, r) in queue.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let _ = write!(s, "{sep}{} r{}", names[r.client], r.id);
    }
    s.push(']');
    s
}

/// A client phase in words.
pub fn show_phase(phase: Phase) -> String {
    match phase {
        Phase::Want => "wants",
        Phase::Acquiring => "requested",
        Phase::Holding => "holding",
        Phase::Writing => "writing",
        Phase::Releasing => "releasing",
        Phase::Done => "done",
    }
    .into()
}

/// The resource's messages in words.
pub fn show_resource(m: &ResourceMsg) -> String {
    match m {
        ResourceMsg::Write { ghost, .. } => format!("write (acquisition {ghost})"),
        ResourceMsg::Accepted => "accepted".into(),
        ResourceMsg::Rejected => "rejected".into(),
    }
}

/// The server's handlers. Only a serving coordinator answers clients; only
/// a standby takes `REPLICATE` and takes over.
fn server_receive(p: &Params, me: Id, s: &mut Server, src: Id, msg: Msg, out: &mut Out<Node>) {
    // The first coordinator replicates to a standby; a standby that took
    // over has none.
    let replicate = p.standby == Standby::Replicated && me == COORDINATOR;
    match (s.mode, msg) {
        // ReceiveRequest: queue the request; grant it if the lock is free.
        (Mode::Coordinator, Msg::Request { id }) => {
            let r = Request { client: src, id };
            match s.holder {
                // The holder asks again for the same request (it learned of
                // a new coordinator before its grant arrived): grant again.
                Some((h, g)) if h == r => {
                    if !s.replicating {
                        out.send(src, Msg::Grant { id, ghost: g });
                    }
                    return;
                }
                // The holder asks with a new request: its hold is over.
                Some((h, _)) if h.client == src && !s.replicating => s.holder = None,
                _ => {}
            }
            if !s.queue.contains(&r) {
                s.queue.retain(|q| q.client != src);
                s.queue.push(r);
            }
            grant_next(replicate, s, out);
        }
        // ReceiveRelease: the holder's release frees the lock for the head
        // of the queue; any other release is ignored.
        (Mode::Coordinator, Msg::Release { id })
            if s.holder.is_some_and(|(h, _)| h == Request { client: src, id }) && !s.replicating =>
        {
            s.holder = None;
            grant_next(replicate, s, out);
        }
        // ReceiveAck: the standby has the state; grant.
        (Mode::Coordinator, Msg::Ack { id }) => {
            if let Some((h, g)) = s.holder.filter(|(h, _)| s.replicating && h.id == id) {
                s.replicating = false;
                out.send(h.client, Msg::Grant { id, ghost: g });
            }
        }
        // The standby restarted empty: send it the state again.
        (Mode::Coordinator, Msg::Restarted) if replicate => {
            out.send(
                STANDBY,
                Msg::Replicate {
                    holder: s.holder,
                    queue: s.queue.clone(),
                },
            );
        }
        // ReceiveReplicate: keep the copy, acknowledge it.
        (Mode::Standby, Msg::Replicate { holder, queue }) => {
            let id = holder.map_or(0, |(h, _)| h.id);
            s.holder = holder;
            s.queue = queue;
            out.send(src, Msg::Ack { id });
        }
        // Takeover: the coordinator restarted without its memory. Serve
        // from the copy (none without replication), and tell every client.
        (Mode::Standby, Msg::Restarted) => {
            s.mode = Mode::Coordinator;
            for c in p.clients() {
                out.send(c, Msg::Coordinator);
            }
            grant_next(false, s, out);
        }
        _ => {}
    }
}

/// Grants the head of the queue if the lock is free: replicated first
/// when there is a standby to replicate to.
fn grant_next(replicate: bool, s: &mut Server, out: &mut Out<Node>) {
    if s.holder.is_some() || s.queue.is_empty() {
        return;
    }
    let r = s.queue.remove(0);
    let ghost = out.next_ghost();
    s.holder = Some((r, ghost));
    if replicate {
        s.replicating = true;
        out.send(
            STANDBY,
            Msg::Replicate {
                holder: s.holder,
                queue: s.queue.clone(),
            },
        );
    } else {
        out.send(r.client, Msg::Grant { id: r.id, ghost });
    }
}

/// The client's handlers: a grant counts only for the current request.
fn client_receive(p: &Params, c: &mut Client, src: Id, msg: Msg, out: &mut Out<Node>) {
    match (c.script.phase, msg) {
        // ReceiveGrant: the lock is ours.
        (Phase::Acquiring, Msg::Grant { id, ghost }) if id == c.id => {
            c.ghost = ghost;
            c.script.phase = Phase::Holding;
        }
        // ReceiveWritten: the critical section is over; RELEASE (no answer
        // expected).
        (Phase::Writing, Msg::Resource(_)) => {
            out.send(c.coordinator, Msg::Release { id: c.id });
            c.ghost = 0;
            if !p.has_standby() {
                // Only a client that may meet a new coordinator needs its
                // last request id.
                c.id = 0;
            }
            c.script.released(p.acquisitions);
        }
        // ReceiveCoordinator: ask the new coordinator again, or repeat the
        // last release.
        (phase, Msg::Coordinator) => {
            c.coordinator = src;
            match phase {
                Phase::Acquiring => out.send(src, Msg::Request { id: c.id }),
                Phase::Want | Phase::Done if c.id != 0 => out.send(src, Msg::Release { id: c.id }),
                _ => {}
            }
        }
        _ => {}
    }
}

impl Lock for Node {
    /// A client holds the lock from its grant until it has written and
    /// released; it wants it from the start of an attempt to the grant.
    fn lock_view(_world: &World<Self>, state: &WorldState<Self>) -> LockView {
        scripts_view(state, |s| match s {
            State::Client(c) => Some(c.script),
            _ => None,
        })
    }
}

/// The world of a `coordinator` scenario.
pub fn world(sc: &Scenario) -> Result<World<Node>, ScenarioError> {
    let p = Params::read(sc)?;
    let mut layout = Layout::default();
    layout.node(Node::Server(p), "coordinator", Role::Server);
    if p.has_standby() {
        layout.node(Node::Server(p), "standby", Role::Server);
    }
    let clients = layout.nodes(&Node::Client(p), "c", p.clients, Role::Client);
    layout.node(Node::Resource, "resource", Role::Observer);
    let mut symmetry = Vec::new();
    if sc.symmetry && clients.len() > 1 {
        // Clients run the same program; servers name them only in their
        // queue and holder, which `rename` rewrites.
        symmetry.push(clients);
    }
    Ok(layout.world(sc, symmetry))
}
