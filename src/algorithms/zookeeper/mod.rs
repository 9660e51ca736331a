//! `zookeeper`: the lock recipes of ZooKeeper's "Recipes and Solutions"
//! page (Locks; Shared Locks) on one ensemble, modelled as a single
//! linearizable server (its internal consensus is out of scope), with the
//! sessions and ephemeral nodes of the ZooKeeper Programmer's Guide. The mirror
//! spec is `specs/mirror/ZooKeeperLock.tla`; actions appear here in its order:
//! Acquire, Check, Write, Read (client steps); the ensemble's handlers
//! (ReceiveConnect, ReceiveCreate, ReceiveGetChildren, ReceiveExists,
//! ReceiveDelete, ReceivePing, ReceiveCloseSession) and its SessionExpiry;
//! the client's handlers (ReceiveCreated, ReceiveChildren, ReceiveStat,
//! ReceiveWatchedEvent, ReceiveDeleted, ReceiveSessionExpired, ReceivePong)
//! and timers (Ping, Timeout, Suspend, Retry, Lost); then the lock view.
//!
//! The ensemble:
//! - a session is opened by `connect` (its id a fresh value) and kept
//!   alive by every request on it, pings included; the ensemble's
//!   `SessionExpiry` timer runs out `session_timeout` ticks after the
//!   last one, on the ensemble's clock, and the session expires: its
//!   ephemeral nodes are deleted (their watches fire) and its watches go.
//!   A request on an expired session is answered `SESSION_EXPIRED`;
//! - `create /lock/<guid>-lock- EPHEMERAL_SEQUENTIAL` (or `read-` /
//!   `write-`) gets the next zxid as its creation zxid (`czxid`). The
//!   sequence number ZooKeeper appends (the parent's cversion) orders the
//!   children exactly as their czxid does, so the model keeps one number,
//!   the czxid, and names nodes by it. The guid is Curator's protection
//!   prefix (`protection = true`, the default): the attempt's fresh value,
//!   so that a client whose `create` timed out finds its node with
//!   `getChildren` ("If a recoverable error occurs calling create() the
//!   client should call getChildren() and check for a node containing the
//!   guid used in the path name", Recipes and Solutions; Curator's
//!   `CreateBuilderImpl.findProtectedNodeInForeground` lists the parent's
//!   children and looks for the `_c_<uuid>-` prefix). With `protection =
//!   false` the name carries no guid: the client knows its node only from
//!   the create's answer, and a timed-out `create` is sent again, so a
//!   create that took effect but whose answer was lost leaves an orphan
//!   ephemeral node of the client's own session, below its new one, that
//!   nobody deletes while the session lives;
//! - watches are one-shot: `exists` with a watch on a node fires
//!   `NodeDeleted` when it goes; `getChildren` with a watch fires
//!   `NodeChildrenChanged` at the next create or delete under `/lock`.
//!
//! The client (the recipe):
//! 1. Acquire: `connect` if it has no session, then `create`;
//! 2. `getChildren /lock`; if no child blocks it (a lower node; for a
//!    reader, a lower `write-` node), it holds the lock;
//! 3. otherwise (`watch = "predecessor"`) `exists` with a watch on the
//!    next lower blocking node, and on `NodeDeleted` (or a `null` stat)
//!    back to 2; or (`watch = "all"`, the herd) the `getChildren` of step 2
//!    set a watch on all children, and every `NodeChildrenChanged` sends
//!    every waiter back to 2;
//! 4. a writer writes to the resource (with the czxid as its fencing token
//!    when `fencing = true`), a reader reads (its critical section is the
//!    `Read` step); then `delete` its node. A client done with its
//!    acquisitions closes its session.
//!
//! Every request that expects an answer has a timeout on the client's
//! clock (`timeout`): a timed-out `create`, `getChildren` or `exists`
//! sends `getChildren` again (the recipe's step 2, which also finds a node
//! whose create was answered too late); a timed-out `delete` is sent again
//! (Curator's guaranteed delete: the session is alive, so the node would
//! otherwise block the others for ever). Every answer carries the
//! attempt's value, so an answer to an earlier attempt is ignored.
//! Pings go every `ping` ticks while the client has a session.
//!
//! A `naive` client learns that its session expired only from the ensemble
//! (`SESSION_EXPIRED` in answer to its next request or ping). A `curator`
//! client also watches its own clock, as Apache Curator does: when it has
//! heard nothing from the ensemble for `suspend_after` ticks the
//! connection is SUSPENDED. Curator's `InterProcessMutex` itself does
//! nothing then (`LockInternals` registers no connection-state listener;
//! it retries only on `NoNodeException`, "this can happen when the session
//! expires"): the node stays. What the model's client adds is the
//! listener Curator's error-handling page asks for ("If a SUSPENDED state
//! is reported you cannot be certain that you still hold the lock unless
//! you subsequently receive a RECONNECTED state. If a LOST state is
//! reported it is certain that you no longer hold the lock"): a SUSPENDED
//! holder does not use the lock (its `Check` waits) until an answer comes
//! back (RECONNECTED), and gives it up on LOST. LOST comes from the
//! client's own clock: `ConnectionStateManager.checkSessionExpiration`
//! injects a session expiration once "elapsedMs >= useSessionTimeoutMs"
//! since the start of SUSPENDED (the `Lost` timer, `session_timeout`
//! ticks); the client then treats its session as expired and opens a new
//! one. Before it writes the client checks (`Check`) that the connection
//! is not suspended. A paused client checks nothing: a pause right after
//! the check still gives two holders.

use crate::algorithms::prelude::*;

mod client;
mod describe;
mod ensemble;
mod family;
mod itf;
mod params;
pub use family::ZooKeeper;
pub use params::{ClientKind, Params, Recipe, Watch};

pub use client::{Client, Wait};
pub use ensemble::{Ensemble, Znode};

/// Node ids: the ensemble is 0, clients 1..=n, the resource last.
const ENSEMBLE: Id = 0;

/// A client's lock mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Mode {
    /// A `lock-` node of the exclusive recipe.
    Exclusive,
    Read,
    Write,
}

impl Mode {
    /// The node name's prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Mode::Exclusive => "lock-",
            Mode::Read => "read-",
            Mode::Write => "write-",
        }
    }

    /// Whether a lower node of mode `other` keeps a client of this mode
    /// waiting: a reader waits only for writers, a writer for anyone.
    fn blocked_by(self, other: Mode) -> bool {
        self != Mode::Read || other != Mode::Read
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Ensemble(Params),
    Client(Params, Mode),
    Resource(Params),
}

/// A child of `/lock`: an ephemeral sequential node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub struct Child {
    /// The creation zxid, which also orders the sequence numbers.
    #[rewrite(token)]
    pub czxid: u32,
    pub mode: Mode,
    /// Curator's protection prefix: the creating attempt's value.
    #[rewrite(value)]
    pub guid: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub enum State {
    Ensemble(#[rewrite] Ensemble),
    Client(#[rewrite] Client),
    Resource(#[rewrite] Resource),
}

parts!(State { Client(Client) => client, Resource(Resource) => resource });
parts!(Msg { Resource(ResourceMsg) => resource });

/// The ZooKeeper protocol's requests, answers and watch events. Requests
/// carry the session; answers to the lock recipe's requests carry the
/// attempt's value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub enum Msg {
    /// Opens a session (the handshake's answer is left out: the client
    /// learns its session works from the answers to its requests).
    Connect {
        #[rewrite(value)]
        session: u32,
    },
    /// `create /lock/<guid>-<mode>- EPHEMERAL_SEQUENTIAL`.
    Create {
        #[rewrite(value)]
        session: u32,
        #[rewrite(value)]
        value: u32,
        mode: Mode,
    },
    /// A new connection for a live session: ClientCnxn's ConnectRequest
    /// with the session id, then SetWatches with the last zxid and the
    /// client's watches (`node`, its `exists` watch, 0 for none;
    /// `children`, its `getChildren /lock` watch).
    Reconnect {
        #[rewrite(value)]
        session: u32,
        #[rewrite(token)]
        zxid: u32,
        #[rewrite(token)]
        node: u32,
        children: bool,
    },
    /// `getChildren /lock`, with a watch in the herd variant.
    GetChildren {
        #[rewrite(value)]
        session: u32,
        #[rewrite(value)]
        value: u32,
        watch: bool,
    },
    /// `exists <node> watch`.
    Exists {
        #[rewrite(value)]
        session: u32,
        #[rewrite(value)]
        value: u32,
        #[rewrite(token)]
        node: u32,
    },
    /// `delete <node>`.
    Delete {
        #[rewrite(value)]
        session: u32,
        #[rewrite(value)]
        value: u32,
        #[rewrite(token)]
        node: u32,
    },
    Ping {
        #[rewrite(value)]
        session: u32,
    },
    CloseSession {
        #[rewrite(value)]
        session: u32,
    },
    /// The created node's czxid.
    Created {
        #[rewrite(value)]
        value: u32,
        #[rewrite(token)]
        node: u32,
    },
    /// `ghost`: the ghost number of the node with the attempt's guid (0
    /// for none), for `no_stale_write` only.
    Children {
        #[rewrite(value)]
        value: u32,
        #[rewrite]
        children: Vec<Child>,
        #[rewrite(ghost)]
        ghost: u32,
        /// The zxid of the answer's header (0 where connections cannot break).
        #[rewrite(token)]
        zxid: u32,
    },
    /// `exists`'s answer: a stat, or null.
    Stat {
        #[rewrite(value)]
        value: u32,
        exists: bool,
    },
    Deleted {
        #[rewrite(value)]
        value: u32,
    },
    Pong {
        #[rewrite(value)]
        session: u32,
    },
    /// The answer to any request on an expired (or closed) session.
    SessionExpired {
        #[rewrite(value)]
        session: u32,
    },
    /// Watch events, sent to the watching session.
    NodeDeleted {
        #[rewrite(value)]
        session: u32,
        #[rewrite(token)]
        node: u32,
    },
    NodeChildrenChanged {
        #[rewrite(value)]
        session: u32,
    },
    Resource(#[rewrite] ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Timer {
    /// Ensemble: the session in this slot expires.
    SessionExpiry { slot: u8 },
    /// Client: the next ping.
    Ping,
    /// Client: the request timeout.
    Timeout,
    /// Curator: nothing heard for `suspend_after` ticks.
    Suspend,
    /// Client: wait before trying again.
    Retry,
    /// Curator: SUSPENDED for a whole session timeout, the session is LOST.
    Lost,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Step {
    Acquire,
    Check,
    Write,
    Read,
}

/// No stopwatches here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum NoWatch {}

impl Node {
    fn params(&self) -> &Params {
        match self {
            Node::Ensemble(p) | Node::Client(p, _) | Node::Resource(p) => p,
        }
    }
}

impl Actor for Node {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    type Watch = NoWatch;
    type Step = Step;

    fn init(&self, _ctx: &Ctx<'_, Self>, _out: &mut Out<Self>) -> State {
        match self {
            Node::Ensemble(p) => State::Ensemble(Ensemble {
                zxid: 0,
                sessions: vec![0; p.clients as usize * p.slots as usize],
                children: Vec::new(),
                data_watches: Vec::new(),
                child_watches: Vec::new(),
                pzxid: 0,
            }),
            Node::Client(p, _) => State::Client(Client::fresh(p.acquisitions)),
            Node::Resource(_) => State::Resource(Resource::default()),
        }
    }

    fn steps(&self, ctx: &Ctx<'_, Self>, state: &State, steps: &mut Vec<Step>) {
        let (State::Client(c), Node::Client(p, mode)) = (state, self) else {
            return;
        };
        client::steps(p, *mode, ctx, c, steps);
    }

    client_timing!(Node::Client(p, _) => p.work, write: Step::Write, want: Step::Acquire);

    fn on_step(&self, _ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p, mode)) = (state, self) else {
            return;
        };
        client::on_step(p, *mode, c, step, out);
    }

    fn on_msg(&self, _ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Ensemble(p), State::Ensemble(e)) => ensemble::ensemble_receive(p, e, src, msg, out),
            (Node::Client(p, mode), State::Client(c)) => client::client_receive(p, *mode, c, msg, out),
            (Node::Resource(p), State::Resource(r)) => r.receive(p.fencing, src, msg.resource(), Msg::Resource, out),
            _ => {}
        }
    }

    fn on_timer(&self, _ctx: &Ctx<'_, Self>, state: &mut State, timer: Timer, out: &mut Out<Self>) {
        match (self, state, timer) {
            (Node::Ensemble(p), State::Ensemble(e), Timer::SessionExpiry { slot }) => {
                ensemble::session_expiry(p, e, slot, out)
            }
            (Node::Client(p, mode), State::Client(c), timer) => client::on_timer(p, *mode, c, timer, out),
            _ => {}
        }
    }

    /// A client keeps one TCP connection to the ensemble (ClientCnxn).
    fn connects_to(&self, peer: Id) -> bool {
        matches!(self, Node::Client(..)) && peer == ENSEMBLE
    }

    /// ClientCnxn's `cleanup()`: every pending request fails with
    /// CONNECTIONLOSS (the recipe redoes its step once reconnected), and
    /// the watcher gets `Disconnected`, which a Curator client reports as
    /// SUSPENDED.
    fn on_disconnect(&self, ctx: &Ctx<'_, Self>, state: &mut State, _peer: Id, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p, _)) = (state, self) else {
            return;
        };
        client::on_disconnect(p, ctx, c, out);
    }

    /// ClientCnxn's `primeConnection()`: a ConnectRequest with the session
    /// id, then SetWatches with the last zxid and the watches the client
    /// holds (registered only once their request was answered); then the
    /// recipe redoes the request that failed: a `create` with the
    /// protection prefix looks for its node (`getChildren`), without it is
    /// sent again; `getChildren` and `exists` go back to the recipe's
    /// step 2; a `delete` is sent again (guaranteed delete).
    fn on_reconnect(&self, _ctx: &Ctx<'_, Self>, state: &mut State, _peer: Id, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p, mode)) = (state, self) else {
            return;
        };
        client::on_reconnect(p, *mode, c, out);
    }

    fn watch_cap(&self, w: NoWatch) -> u8 {
        match w {}
    }
}

/// Zxids are fencing tokens here, from a counter that never goes back, so
/// the resource's highest token and a write's token are renumbered as
/// `Seq::Token` too; the shared resource's `Rewrite` leaves them to the
/// family (see [`Resource`]).
impl Renumber for Node {
    fn numbers(&self, state: &mut State, visit: &mut impl FnMut(Seq, &mut u32)) {
        state.numbers(visit);
        if let State::Resource(r) = state {
            visit(Seq::Token, &mut r.max_token);
        }
    }

    fn numbers_msg(&self, msg: &mut Msg, visit: &mut impl FnMut(Seq, &mut u32)) {
        msg.numbers(visit);
        if let Msg::Resource(ResourceMsg::Write { token, .. }) = msg {
            visit(Seq::Token, token);
        }
    }
}

impl Lock for Node {
    /// A naive client believes it holds the lock from the children that
    /// show no lower blocking node until its write is answered (a reader:
    /// until its `Read`). A Curator client, while it is `Holding`, only
    /// while its connection is not suspended (its `Suspend` timer above
    /// zero) or once it has checked, and it still wants the lock until it
    /// has checked (docs/design.md §5). Readers hold in shared mode.
    fn lock_view(world: &World<Self>, state: &WorldState<Self>) -> LockView {
        // A Curator client's lease is its connection: it holds while the
        // Suspend timer runs (or once it has checked), and a reader holds
        // in shared mode.
        leases_view(world, state, |a, n| match (a, &n.state) {
            (Node::Client(p, mode), State::Client(c)) => Some(ClientLease {
                shared: *mode == Mode::Read,
                ..ClientLease::new(c.script, p.curator(), c.checked, n.timer(Timer::Suspend))
            }),
            _ => None,
        })
    }

    /// Readers share the lock in the read-write recipe.
    fn shared(world: &World<Self>) -> bool {
        matches!(world.actors.first(), Some(Node::Ensemble(p)) if p.recipe == Recipe::RwLock)
    }
}

/// The world of a `zookeeper` scenario: the ensemble, the clients (the
/// first `readers` of them readers in the read-write recipe), the resource.
pub fn world(sc: &Scenario) -> Result<World<Node>, ScenarioError> {
    let p = Params::read(sc)?;
    let mut layout = Layout::default();
    layout.node(Node::Ensemble(p), "zk", Role::Server);
    for i in 1..=p.clients {
        let mode = match p.recipe {
            Recipe::Lock => Mode::Exclusive,
            Recipe::RwLock if i <= p.readers => Mode::Read,
            Recipe::RwLock => Mode::Write,
        };
        layout.node(Node::Client(p, mode), format!("c{i}"), Role::Client);
    }
    layout.node(Node::Resource(p), "resource", Role::Observer);
    let mut world = layout.world(sc, Vec::new());
    if p.recipe == Recipe::RwLock {
        world.properties.push(crate::properties::rw_exclusion_property());
    }
    Ok(world)
}
