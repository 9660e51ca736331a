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
//! The mirror spec (this module in TLA+; the clean-room one is in `specs/`) is `specs/mirror/Coordinator.tla`; actions appear here in its order:
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
//!   coordinator that crashes has lost the holder and the queue, and a
//!   restarted one serves again from an empty queue, as a restarted
//!   process does: it grants a held lock (the textbooks assume no crash;
//!   nothing in them keeps a restarted coordinator from serving). The
//!   requests and releases in flight to it at the crash are gone and no
//!   client sends them again (no clock, no timeout), so its clients wait
//!   for ever.
//! - `"no-state"`: a standby that knows nothing of the queue or the holder.
//! - `"replicated"`: before each grant, the coordinator sends its state
//!   (holder and queue) to the standby as `REPLICATE` and grants only when
//!   the standby has acknowledged it (`ACK`): primary-backup replication
//!   (Budhiraja et al.) with the grant as the output the backup must have
//!   seen first.
//!
//! Failure detection (with a standby): a heartbeat detector, and a
//! restart notice.
//! - Heartbeats: the coordinator sends `HEARTBEAT` to the standby
//!   `heartbeat` ticks of its own clock after the standby acknowledged the
//!   previous one (`HEARTBEAT_ACK`; the first at start), so at most one is
//!   in flight and the state space stays finite on an asynchronous
//!   network. The standby re-arms its `Suspect` timer (`suspect_after`
//!   ticks of its own clock) on each; when it fires, the standby suspects
//!   the coordinator and takes over. This detects a crash-stop
//!   coordinator (`recovery = "none"`), and it suspects falsely a
//!   coordinator that is only paused, cut off by a partition, slow (an
//!   asynchronous network: no bound on a heartbeat's delay), or whose
//!   heartbeat was lost (the exchange then stops: the model re-sends no
//!   lost heartbeat, so a loss leads to a suspicion, which an adversary
//!   losing every later heartbeat would cause anyway). On a network with
//!   `max_delay = d` there is no false suspicion without a fault when
//!   `suspect_after > heartbeat + 2d`.
//! - The coordinator times its heartbeat's acknowledgement on its own
//!   clock too (`suspect_after` ticks): without it, it gives the standby
//!   up for failed and serves alone (`alone`), granting without
//!   replication, as a primary whose backup fails does (Budhiraja et al.);
//!   a standby that restarts says so and is taken back. Without this a
//!   replicated coordinator whose standby crashed for good would wait for
//!   its `ACK` for ever. A falsely suspected standby (paused, cut off)
//!   stops hearing heartbeats, suspects the coordinator in turn and takes
//!   over from its copy while the coordinator serves alone: two
//!   coordinators, each granting, the split brain a pair without a third
//!   party cannot avoid.
//! - `detector = "restart"` turns the heartbeats off (no clock at all, as
//!   the textbook's model): only the restart notice below remains, and a
//!   coordinator that never restarts is never detected.
//! - A coordinator that restarts with a standby has lost its memory, does
//!   not serve again, and tells the standby (`RESTARTED`); the standby
//!   takes over at once on that message (the textbook's detection).
//!
//! On taking over the standby announces itself to every client
//! (`COORDINATOR`), and answers a `HEARTBEAT` or `REPLICATE` from the old
//! coordinator with `COORDINATOR` too, on which the old one retires (a
//! primary that learns it was deposed stops serving). Under false
//! suspicion the two serve at once until then: the no-state standby
//! grants a held lock; the replicated coordinator grants only after its
//! standby's `ACK`, which a standby that took over never sends, so the
//! old one can grant nothing the new one does not know of, and the pair
//! stays safe. A client that learns of the new coordinator repeats its
//! last `RELEASE` (it cannot know whether the old coordinator saw it; a
//! `RELEASE` of a request that is not the holder's is ignored), then asks
//! again if it is waiting for a grant.
//!
//! `client_restart`: what the coordinator learns when a client restarts.
//! - `"none"` (default, the textbook central server): nothing. A holder
//!   that crashes keeps the lock at the coordinator, and everyone else
//!   waits for ever; the restarted client's new `REQUEST` (a new id) is
//!   queued behind its own old hold, which it does not release: the
//!   coordinator takes a new request from the holder for what it is, a
//!   request, not a release.
//! - `"notice"`: the restarted client tells the coordinator it knows
//!   (`CLIENT_RESTARTED`), which drops the client's old hold and queued
//!   request and grants the next. Without fencing, the old hold's write
//!   may still be in flight to the resource when the next holder writes.
//!
//! A standby that crashes and restarts has lost its copy; it says
//! `RESTARTED` to the coordinator, which sends its state again. The pair
//! tolerates one crash: a crashed standby that had taken over does not
//! come back as coordinator, and a crashed client restarts believing the
//! first coordinator serves.

mod client;
mod describe;
mod family;
mod itf;
mod server;
pub use family::Coordinator;

use crate::algorithms::prelude::*;

pub use client::Client;
use client::{client_receive, client_step};
use server::{server_receive, server_timer};
pub use server::{Mode, Server};

/// Whether a standby exists, and what it knows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Standby {
    #[default]
    None,
    NoState,
    Replicated,
}

/// How the standby learns that the coordinator failed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Detector {
    /// Heartbeats and timeouts both ways, and the restart notice. The
    /// default.
    #[default]
    Heartbeat,
    /// Only the restart notice: no clock (a coordinator that never
    /// restarts is never detected).
    Restart,
}

/// What the coordinator learns when a client restarts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum ClientRestart {
    /// Nothing (the textbook). The default.
    #[default]
    None,
    /// The restarted client says so, and its hold is dropped.
    Notice,
}

/// The `[system]` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    pub clients: u8,
    pub standby: Standby,
    pub detector: Detector,
    /// Ticks between a heartbeat's acknowledgement and the next heartbeat.
    pub heartbeat: u8,
    /// Ticks without a heartbeat before the standby takes over.
    pub suspect_after: u8,
    pub client_restart: ClientRestart,
    pub acquisitions: u8,
    /// `[system] work`: the most ticks a holder works in its critical
    /// section before it writes (0: it writes at once).
    pub work: u8,
}

/// The `[system]` keys as a scenario writes them: each field's type says
/// what it allows and what an absent key is (src/scenario/typed.rs).
/// `heartbeat` and `suspect_after` are allowed only with the heartbeat
/// detector, so [`Params::read`] sees whether they were given.
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Keys {
    clients: Within<1, 4, 2>,
    standby: Word<Standby>,
    work: Within<0, 10, 0>,
    detector: Word<Detector>,
    heartbeat: Option<Within<1, 10, 1>>,
    suspect_after: Option<Within<1, 30, 4>>,
    client_restart: Word<ClientRestart>,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let k: Keys = sc.system()?;
        let p = Params {
            clients: k.clients.get(),
            standby: k.standby.get(),
            detector: Detector::Heartbeat,
            heartbeat: 1,
            suspect_after: 4,
            client_restart: ClientRestart::None,
            acquisitions: sc.acquisitions,
            work: k.work.get(),
        };
        let detector = k.detector.get();
        let heartbeat = k.heartbeat.map(Within::get);
        let suspect_after = k.suspect_after.map(Within::get);
        let client_restart = k.client_restart.get();
        if p.standby == Standby::None || detector == Detector::Restart {
            if let Some(key) = [("heartbeat", heartbeat), ("suspect_after", suspect_after)]
                .into_iter()
                .find_map(|(key, v)| v.map(|_| key))
            {
                return Err(ScenarioError(format!(
                    "{}: [system] {key} is the standby's heartbeat detector and needs a standby and detector = \"heartbeat\"; allowed: remove {key}, or standby = \"no-state\" or \"replicated\" with detector = \"heartbeat\"",
                    sc.path.display()
                )));
            }
        }
        Ok(Params {
            detector,
            heartbeat: heartbeat.unwrap_or(p.heartbeat),
            suspect_after: suspect_after.unwrap_or(p.suspect_after),
            client_restart,
            ..p
        })
    }

    fn has_standby(&self) -> bool {
        self.standby != Standby::None
    }

    /// Whether the servers run the heartbeat detector.
    fn heartbeats(&self) -> bool {
        self.has_standby() && self.detector == Detector::Heartbeat
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub struct Request {
    #[rewrite(id)]
    pub client: Id,
    #[rewrite(value)]
    pub id: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub enum State {
    Server(#[rewrite] Server),
    Client(#[rewrite] Client),
    Resource(#[rewrite] Resource),
}

parts!(State { Client(Client) => client, Resource(Resource) => resource });
parts!(Msg { Resource(ResourceMsg) => resource });

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub enum Msg {
    /// `REQUEST`: the client asks for the lock.
    Request {
        #[rewrite(value)]
        id: u32,
    },
    /// `GRANT`: the coordinator gives the lock to request `id`.
    Grant {
        #[rewrite(value)]
        id: u32,
        #[rewrite(ghost)]
        ghost: u32,
    },
    /// `RELEASE`: the holder of request `id` gives the lock back.
    Release {
        #[rewrite(value)]
        id: u32,
    },
    /// The coordinator's state, replicated to the standby before a grant.
    Replicate {
        #[rewrite((nested, ghost))]
        holder: Option<(Request, u32)>,
        #[rewrite]
        queue: Vec<Request>,
    },
    /// The standby has the state whose holder's request is `id`.
    Ack {
        #[rewrite(value)]
        id: u32,
    },
    /// A server restarted and has lost its memory.
    Restarted,
    /// The standby has taken over: it is the coordinator now.
    Coordinator,
    /// The coordinator is alive (to the standby).
    Heartbeat,
    /// The standby got the heartbeat.
    HeartbeatAck,
    /// `client_restart = "notice"`: the client restarted.
    ClientRestarted,
    Resource(#[rewrite] ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Timer {
    /// The coordinator's next heartbeat is due.
    Heartbeat,
    /// The standby has heard no heartbeat for `suspect_after` ticks.
    Suspect,
    /// The coordinator has had no acknowledgement of its heartbeat for
    /// `suspect_after` ticks.
    AckTimeout,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Watch {}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Step {
    /// The client sends `REQUEST` to the coordinator it knows.
    Acquire,
    /// The critical section's write to the resource.
    Write,
}

impl Actor for Node {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    type Watch = Watch;
    type Step = Step;

    /// With a standby, the coordinator's heartbeat and the standby's
    /// suspicion start at once.
    fn init(&self, ctx: &Ctx<'_, Self>, out: &mut Out<Self>) -> State {
        match self {
            Node::Server(p) => State::Server(Server {
                mode: if ctx.id == COORDINATOR {
                    if p.heartbeats() {
                        out.set_timer(Timer::Heartbeat, p.heartbeat);
                    }
                    Mode::Coordinator
                } else {
                    if p.heartbeats() {
                        out.set_timer(Timer::Suspect, p.suspect_after);
                    }
                    Mode::Standby
                },
                queue: Vec::new(),
                holder: None,
                replicating: false,
                alone: false,
            }),
            Node::Client(p) => State::Client(Client {
                script: Script::new(p.acquisitions),
                id: 0,
                released: 0,
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

    client_timing!(Node::Client(p) => p.work, write: Step::Write, want: Step::Acquire);

    fn on_step(&self, _ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p)) = (state, self) else {
            return;
        };
        client_step(p, c, step, out);
    }

    fn on_msg(&self, ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Server(p), State::Server(s)) => server_receive(p, ctx.id, s, src, msg, out),
            (Node::Client(p), State::Client(c)) => client_receive(p, c, src, msg, out),
            (Node::Resource, State::Resource(r)) => r.receive(false, src, msg.resource(), Msg::Resource, out),
            _ => {}
        }
    }

    /// The coordinator's heartbeat: sent, and the next one waits for its
    /// acknowledgement. The standby's suspicion: it takes over.
    fn on_timer(&self, ctx: &Ctx<'_, Self>, state: &mut State, timer: Timer, out: &mut Out<Self>) {
        let (Node::Server(p), State::Server(s)) = (self, state) else {
            return;
        };
        server_timer(p, ctx.id, s, timer, out);
    }

    /// Restart: a server's queue is in memory. The coordinator comes back
    /// knowing it has lost it and retires (serving with an empty queue
    /// would grant a held lock, as the no-state standby does); with a
    /// standby it says so (`RESTARTED`), and the standby takes over. A
    /// standby comes back with no copy, and says so to the coordinator. A
    /// client starts afresh; with `client_restart = "notice"` it tells
    /// the coordinator it knows.
    fn restart(&self, ctx: &Ctx<'_, Self>, _durable: &State, out: &mut Out<Self>) -> State {
        let mut state = self.init(ctx, out);
        match (self, &mut state) {
            (Node::Server(p), State::Server(s)) => {
                if ctx.id == COORDINATOR {
                    // Alone, the restarted process serves again, from the
                    // empty queue its memory now holds.
                    if p.has_standby() {
                        s.mode = Mode::Retired;
                        out.cancel_timer(Timer::Heartbeat);
                        out.cancel_timer(Timer::AckTimeout);
                        out.send(STANDBY, Msg::Restarted);
                    }
                } else {
                    out.send(COORDINATOR, Msg::Restarted);
                }
            }
            (Node::Client(p), State::Client(c)) if p.client_restart == ClientRestart::Notice => {
                out.send(c.coordinator, Msg::ClientRestarted);
            }
            _ => {}
        }
        state
    }
}

impl Renumber for Node {}

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
