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

use serde::{Deserialize, Serialize};

use super::client::{tla, Phase, Script};
use super::resource::{Resource, ResourceMsg};
use super::Layout;
use crate::properties::{Lock, LockView, FOREIGN_RELEASE};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::{Actor, Ctx, Describe, Id, Out, Renumber, Role, Seq, Tla, TlaMapping, World, WorldState};

/// Which recipe the clients follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Recipe {
    /// Locks: every node excludes every other.
    Lock,
    /// Shared Locks: `read-` and `write-` nodes.
    RwLock,
}

/// What a waiting client watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Watch {
    /// `exists` with a watch on the next lower blocking node.
    Predecessor,
    /// `getChildren` with a watch: every change wakes every waiter.
    All,
}

/// How a client learns that it lost its session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClientKind {
    /// Only from the ensemble's answers.
    Naive,
    /// Also from its own clock: SUSPENDED after `suspend_after` ticks
    /// without an answer, as Apache Curator does.
    Curator,
}

/// The `[system]` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    pub clients: u8,
    pub recipe: Recipe,
    /// RwLock: clients `c1..c{readers}` take read locks, the others write locks.
    pub readers: u8,
    pub watch: Watch,
    /// The session timeout, in the ensemble's ticks.
    pub session_timeout: u8,
    /// A client pings every `ping` ticks while it has a session.
    pub ping: u8,
    pub client: ClientKind,
    /// Curator: ticks without an answer after which the connection is SUSPENDED.
    pub suspend_after: u8,
    /// The resource rejects a write whose czxid is lower than one it accepted.
    pub fencing: bool,
    /// Curator's protection prefix: the node's name carries the attempt's
    /// guid, so a client whose `create` was not answered finds its node by
    /// it. Without it, the recipe sends the `create` again.
    pub protection: bool,
    /// The per-request timeout, in the client's ticks.
    pub timeout: u8,
    /// Ticks a client waits before it tries again after losing an attempt.
    pub retry: u8,
    pub acquisitions: u8,
    /// `[system] work`: the most ticks a holder works in its critical
    /// section before it writes (0: it writes at once).
    pub work: u8,
    /// Session slots per client on the ensemble: one, plus one for each
    /// crash the budget allows (a crashed client's session lives on until
    /// it expires, while the restarted client opens a new one).
    pub slots: u8,
    /// `loss` or `partitions`: the clients' connections can break.
    pub connections: bool,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let mut k = sc.system_keys();
        let clients = k.uint("clients", 1, 4, 2)?;
        let recipe = k.choice(
            "recipe",
            &[("lock", Recipe::Lock), ("rwlock", Recipe::RwLock)],
            Recipe::Lock,
        )?;
        let readers = k.optional_uint("readers", 0, 4)?;
        let watch = k.choice(
            "watch",
            &[("predecessor", Watch::Predecessor), ("all", Watch::All)],
            Watch::Predecessor,
        )?;
        let session_timeout = k.uint("session_timeout", 2, 30, 6)?;
        let ping = k.optional_uint("ping", 1, 29)?;
        let client = k.choice(
            "client",
            &[("naive", ClientKind::Naive), ("curator", ClientKind::Curator)],
            ClientKind::Naive,
        )?;
        let suspend_after = k.optional_uint("suspend_after", 1, 30)?;
        let fencing = k.flag("fencing", false)?;
        let protection = k.flag("protection", true)?;
        let timeout = k.uint("timeout", 1, 30, 3)?;
        let retry = k.uint("retry", 1, 10, 1)?;
        let work = k.uint("work", 0, 10, 0)?;
        k.finish()?;
        let file = sc.path.display();
        let f = &sc.faults;
        if (f.crashes > 0 || f.pauses > 0 || f.clock_jumps > 0 || f.max_drift > 0) && f.targets.hits(Role::Server) {
            return Err(ScenarioError(format!(
                "{file}: [faults] targets = \"{}\" would fault the ensemble, which this model treats as one always-available linearizable server; allowed: targets = \"clients\"",
                match f.targets {
                    crate::world::Targets::All => "all",
                    crate::world::Targets::Servers => "servers",
                    crate::world::Targets::Clients => "clients",
                }
            )));
        }
        // The client library keeps one TCP connection to the ensemble
        // (docs/design.md §2): a loss or a cut breaks it, but it never delivers
        // a message twice or out of order.
        if let Some(key) = [("duplicate", f.duplicate), ("reorder", f.reorder)]
            .iter()
            .find_map(|(key, on)| on.then_some(key))
        {
            return Err(ScenarioError(format!(
                "{file}: [faults] {key} cannot happen to algorithm = \"zookeeper\": a client talks to the ensemble over one TCP connection, which delivers each message once and in order (loss and partitions break the connection instead); allowed: duplicate = false, reorder = false"
            )));
        }
        let readers = match (recipe, readers) {
            (Recipe::Lock, Some(_)) => {
                return Err(ScenarioError(format!(
                    "{file}: [system] readers is used only by the read-write recipe; allowed with recipe = \"rwlock\""
                )))
            }
            (Recipe::Lock, None) => 0,
            (Recipe::RwLock, Some(r)) if r > clients => {
                return Err(ScenarioError(format!(
                    "{file}: [system] readers = {r} is more than clients = {clients}; allowed: 0 to {clients}"
                )))
            }
            (Recipe::RwLock, r) => r.unwrap_or(clients - 1),
        };
        let ping = match ping {
            Some(p) if p >= session_timeout => {
                return Err(ScenarioError(format!(
                "{file}: [system] ping = {p} is not shorter than session_timeout = {session_timeout}; allowed: 1 to {}",
                session_timeout - 1
            )))
            }
            Some(p) => p,
            // The ZooKeeper client pings after a third of the session
            // timeout without traffic (readTimeout / 2).
            None => (session_timeout / 3).max(1),
        };
        let suspend_after = match (client, suspend_after) {
            (ClientKind::Naive, Some(_)) => {
                return Err(ScenarioError(format!(
                    "{file}: [system] suspend_after is used only by a Curator client; allowed with client = \"curator\" (client is \"naive\")"
                )))
            }
            (_, Some(s)) => s,
            // The ZooKeeper client reports Disconnected (Curator: SUSPENDED)
            // after two thirds of the session timeout without an answer.
            (_, None) => (session_timeout * 2 / 3).max(1),
        };
        // A Curator client that declares its session LOST on its own clock
        // opens a new one while the ensemble may still keep the old one
        // (until it expires there): one more slot when a fault can keep
        // the answers from it.
        let lost = client == ClientKind::Curator && (f.loss || f.partitions > 0);
        let slots = 1 + u8::from(lost) + if f.targets.hits(Role::Client) { f.crashes } else { 0 };
        Ok(Params {
            clients,
            recipe,
            readers,
            watch,
            session_timeout,
            ping,
            client,
            suspend_after,
            fencing,
            protection,
            timeout,
            retry,
            acquisitions: sc.acquisitions,
            work,
            slots,
            connections: f.loss || f.partitions > 0,
        })
    }

    fn curator(&self) -> bool {
        self.client == ClientKind::Curator
    }

    /// Whether a client's connection can break (a loss or a cut on its
    /// link): only then do deletes take a zxid of their own and listings
    /// carry the zxid, which SetWatches compares. Elsewhere nothing reads
    /// them, and leaving them out keeps those state spaces as they were.
    fn connections(&self) -> bool {
        self.connections
    }

    /// The session slots of client `c` on the ensemble.
    fn slots_of(&self, c: Id) -> std::ops::Range<usize> {
        let n = self.slots as usize;
        (c - 1) * n..c * n
    }

    fn resource(&self) -> Id {
        self.clients as Id + 1
    }
}

/// Node ids: the ensemble is 0, clients 1..=n, the resource last.
const ENSEMBLE: Id = 0;

/// A client's lock mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Child {
    /// The creation zxid, which also orders the sequence numbers.
    pub czxid: u32,
    pub mode: Mode,
    /// Curator's protection prefix: the creating attempt's value.
    pub guid: u32,
}

/// A znode and the session that owns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Znode {
    pub child: Child,
    pub session: u32,
    /// Ghost: numbers the node in creation order, which is the order in
    /// which the recipe grants the lock (a node holds only once every
    /// lower node is gone). `no_stale_write` compares these numbers: a
    /// client that acts on an answer the ensemble gave before its session
    /// expired acquired under its own, earlier, number.
    pub ghost: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ensemble {
    /// The last zxid handed out.
    pub zxid: u32,
    /// Session ids by slot (`Params::slots_of`), 0 for a free slot.
    pub sessions: Vec<u32>,
    /// The children of `/lock`, by czxid.
    pub children: Vec<Znode>,
    /// `exists` watches: (watched czxid, watching session), sorted.
    pub data_watches: Vec<(u32, u32)>,
    /// `getChildren /lock` watches: watching sessions, sorted.
    pub child_watches: Vec<u32>,
    /// The zxid of the last create or delete under `/lock` (its `pzxid`),
    /// kept where connections can break (`Params::connections`), else 0.
    pub pzxid: u32,
}

/// Where an acquiring client is in the recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wait {
    /// Not acquiring.
    Idle,
    /// `create` sent.
    Creating,
    /// `getChildren` sent.
    Listing,
    /// `exists` with a watch sent on `target`.
    Checking,
    /// Waiting for a watch to fire.
    Watching,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    pub script: Script,
    /// The session id, 0 for none.
    pub session: u32,
    /// The current attempt's value (the guid), 0 between attempts.
    pub value: u32,
    /// The czxid of the client's node, 0 while unknown.
    pub node: u32,
    pub wait: Wait,
    /// The node watched (predecessor), 0 for none.
    pub target: u32,
    /// Curator: checked that the connection is not suspended.
    pub checked: bool,
    pub ghost: u32,
    /// The client library has noticed that its connection broke and has
    /// not reconnected yet.
    pub disconnected: bool,
    /// The zxid of the listing that set the client's child watch: the
    /// `relativeZxid` of its SetWatches (0 where connections cannot break).
    pub zxid: u32,
}

impl Client {
    fn fresh(acquisitions: u8) -> Self {
        Client {
            script: Script::new(acquisitions),
            session: 0,
            value: 0,
            node: 0,
            wait: Wait::Idle,
            target: 0,
            checked: false,
            ghost: 0,
            disconnected: false,
            zxid: 0,
        }
    }

    /// Drops what only mattered to the attempt or hold that just ended.
    fn forget(&mut self) {
        self.value = 0;
        self.node = 0;
        self.wait = Wait::Idle;
        self.target = 0;
        self.checked = false;
        self.ghost = 0;
        self.zxid = 0;
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum State {
    Ensemble(Ensemble),
    Client(Client),
    Resource(Resource),
}

/// The ZooKeeper protocol's requests, answers and watch events. Requests
/// carry the session; answers to the lock recipe's requests carry the
/// attempt's value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Msg {
    /// Opens a session (the handshake's answer is left out: the client
    /// learns its session works from the answers to its requests).
    Connect {
        session: u32,
    },
    /// `create /lock/<guid>-<mode>- EPHEMERAL_SEQUENTIAL`.
    Create {
        session: u32,
        value: u32,
        mode: Mode,
    },
    /// A new connection for a live session: ClientCnxn's ConnectRequest
    /// with the session id, then SetWatches with the last zxid and the
    /// client's watches (`node`, its `exists` watch, 0 for none;
    /// `children`, its `getChildren /lock` watch).
    Reconnect {
        session: u32,
        zxid: u32,
        node: u32,
        children: bool,
    },
    /// `getChildren /lock`, with a watch in the herd variant.
    GetChildren {
        session: u32,
        value: u32,
        watch: bool,
    },
    /// `exists <node> watch`.
    Exists {
        session: u32,
        value: u32,
        node: u32,
    },
    /// `delete <node>`.
    Delete {
        session: u32,
        value: u32,
        node: u32,
    },
    Ping {
        session: u32,
    },
    CloseSession {
        session: u32,
    },
    /// The created node's czxid.
    Created {
        value: u32,
        node: u32,
    },
    /// `ghost`: the ghost number of the node with the attempt's guid (0
    /// for none), for `no_stale_write` only.
    Children {
        value: u32,
        children: Vec<Child>,
        ghost: u32,
        /// The zxid of the answer's header (0 where connections cannot break).
        zxid: u32,
    },
    /// `exists`'s answer: a stat, or null.
    Stat {
        value: u32,
        exists: bool,
    },
    Deleted {
        value: u32,
    },
    Pong {
        session: u32,
    },
    /// The answer to any request on an expired (or closed) session.
    SessionExpired {
        session: u32,
    },
    /// Watch events, sent to the watching session.
    NodeDeleted {
        session: u32,
        node: u32,
    },
    NodeChildrenChanged {
        session: u32,
    },
    Resource(ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Step {
    Acquire,
    Check,
    Write,
    Read,
}

/// No stopwatches here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
        match c.script.phase {
            // A request made while the library reconnects waits in its
            // outgoing queue (ClientCnxn.queuePacket): the step waits.
            Phase::Want if ctx.timer(Timer::Retry).is_none() && !c.disconnected => steps.push(Step::Acquire),
            // A Curator holder uses the lock only while its connection is
            // not SUSPENDED: suspended, it waits for RECONNECTED or LOST.
            Phase::Holding if p.curator() && !c.checked => {
                let connected = ctx.timer(Timer::Suspend).is_some_and(|t| t > 0);
                steps.extend(connected.then_some(Step::Check))
            }
            Phase::Holding if *mode == Mode::Read => steps.push(Step::Read),
            Phase::Holding => steps.push(Step::Write),
            _ => {}
        }
    }

    /// A holder works from 0 to `[system] work` ticks before it writes.
    fn within(&self, step: Step) -> Option<u8> {
        match self {
            Node::Client(p, _) if step == Step::Write && p.work > 0 => Some(p.work),
            _ => None,
        }
    }

    /// A client comes to want the lock, and retries after its back-off,
    /// at any moment (docs/design.md §2).
    fn urgent(&self, step: Step) -> bool {
        step != Step::Acquire
    }

    fn on_step(&self, _ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (State::Client(c), Node::Client(p, mode)) = (state, self) else {
            return;
        };
        match step {
            // Acquire: connect if there is no session, then create the node.
            Step::Acquire => {
                if c.session == 0 {
                    c.session = out.fresh_value();
                    out.send(ENSEMBLE, Msg::Connect { session: c.session });
                    out.set_timer(Timer::Ping, p.ping);
                    if p.curator() {
                        out.set_timer(Timer::Suspend, p.suspend_after);
                    }
                }
                create(p, *mode, c, out);
                c.script.phase = Phase::Acquiring;
            }
            // Check (Curator): is the connection still there? Only then use it.
            Step::Check => c.checked = true,
            // Write: the critical section's write, with the czxid if fenced.
            Step::Write => {
                let token = if p.fencing { c.node } else { 0 };
                out.send(
                    p.resource(),
                    Msg::Resource(ResourceMsg::Write { token, ghost: c.ghost }),
                );
                c.script.phase = Phase::Writing;
            }
            // Read: a reader's critical section; then delete its node.
            Step::Read => release(p, c, out),
        }
    }

    fn on_msg(&self, _ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Ensemble(p), State::Ensemble(e)) => ensemble_receive(p, e, src, msg, out),
            (Node::Client(p, mode), State::Client(c)) => client_receive(p, *mode, c, msg, out),
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
        let p = self.params();
        match (state, timer) {
            (State::Ensemble(e), Timer::SessionExpiry { slot }) => {
                let session = e.sessions[slot as usize];
                e.sessions[slot as usize] = 0;
                close(p, e, session, out);
            }
            (State::Client(c), Timer::Ping) if c.session != 0 => {
                if !c.disconnected {
                    out.send(ENSEMBLE, Msg::Ping { session: c.session });
                }
                out.set_timer(Timer::Ping, p.ping);
            }
            (State::Client(c), Timer::Timeout) => match (c.script.phase, c.wait) {
                // Without the protection prefix the client cannot tell
                // whether its create took effect, and sends it again.
                (Phase::Acquiring, Wait::Creating) if !p.protection => {
                    let Node::Client(_, mode) = self else { return };
                    create(p, *mode, c, out)
                }
                (Phase::Acquiring, _) => list(p, c, out),
                (Phase::Releasing, _) => delete(p, c, out),
                _ => {}
            },
            // SUSPENDED: a holder that has not checked stops using the lock.
            // SUSPENDED: Curator's ConnectionStateManager declares the
            // session LOST once it has been suspended for a session timeout.
            (State::Client(c), Timer::Suspend) if c.session != 0 => out.set_timer(Timer::Lost, p.session_timeout),
            // LOST: the client treats its session as expired (Curator
            // injects the expiration and opens a new handle when next used).
            (State::Client(c), Timer::Lost) if c.session != 0 => expired(p, c, out),
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
        c.disconnected = true;
        out.cancel_timer(Timer::Timeout);
        if p.curator() && c.session != 0 {
            out.cancel_timer(Timer::Suspend);
            if ctx.timer(Timer::Lost).is_none() {
                out.set_timer(Timer::Lost, p.session_timeout);
            }
        }
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
        c.disconnected = false;
        if c.session == 0 {
            return;
        }
        let watching = c.script.phase == Phase::Acquiring && c.wait == Wait::Watching;
        out.send(
            ENSEMBLE,
            Msg::Reconnect {
                session: c.session,
                zxid: c.zxid,
                node: if watching { c.target } else { 0 },
                children: watching && p.watch == Watch::All,
            },
        );
        match (c.script.phase, c.wait) {
            (Phase::Acquiring, Wait::Creating) if !p.protection => create(p, *mode, c, out),
            (Phase::Acquiring, Wait::Creating | Wait::Listing | Wait::Checking) => list(p, c, out),
            (Phase::Releasing, _) => delete(p, c, out),
            _ => {}
        }
    }

    fn watch_cap(&self, w: NoWatch) -> u8 {
        match w {}
    }
}

impl Describe for Node {
    fn show_msg(&self, msg: &Msg, _names: &[String]) -> String {
        match msg {
            Msg::Connect { session } => format!("connect (new session {})", show_session(*session)),
            Msg::Reconnect {
                session,
                zxid,
                node,
                children,
            } => {
                let mut watches = Vec::new();
                if *node != 0 {
                    watches.push(format!("exists /lock/{}", show_seq(*node)));
                }
                if *children {
                    watches.push("getChildren /lock".to_string());
                }
                format!(
                    "connect (session {}), setWatches (zxid {zxid}: {})",
                    show_session(*session),
                    if watches.is_empty() {
                        "none".into()
                    } else {
                        watches.join(", ")
                    }
                )
            }
            Msg::Create { session, value, mode } => format!(
                "create /lock/{}{} EPHEMERAL_SEQUENTIAL (session {})",
                if self.params().protection {
                    format!("_c_g{value}-")
                } else {
                    String::new()
                },
                mode.prefix(),
                show_session(*session)
            ),
            Msg::GetChildren { watch, .. } => {
                format!("getChildren /lock{}", if *watch { " watch" } else { "" })
            }
            Msg::Exists { node, .. } => format!("exists /lock/{} watch", show_seq(*node)),
            Msg::Delete { node, .. } => format!("delete /lock/{}", show_seq(*node)),
            Msg::Ping { .. } => "ping".into(),
            Msg::CloseSession { session } => format!("closeSession {}", show_session(*session)),
            Msg::Created { value, node } => format!("created (g{value}, {})", show_seq(*node)),
            Msg::Children { children, .. } => {
                let names: Vec<String> = children.iter().map(|ch| show_child(self.params(), ch)).collect();
                format!("[{}]", names.join(", "))
            }
            Msg::Stat { exists, .. } => (if *exists { "stat" } else { "null" }).into(),
            Msg::Deleted { .. } => "OK".into(),
            Msg::Pong { .. } => "pong".into(),
            Msg::SessionExpired { session } => format!("SESSION_EXPIRED ({})", show_session(*session)),
            Msg::NodeDeleted { node, .. } => format!("WatchedEvent NodeDeleted /lock/{}", show_seq(*node)),
            Msg::NodeChildrenChanged { .. } => "WatchedEvent NodeChildrenChanged /lock".into(),
            Msg::Resource(ResourceMsg::Write { token, ghost }) if *token > 0 => {
                format!("write (czxid {token}, acquisition {ghost})")
            }
            Msg::Resource(ResourceMsg::Write { ghost, .. }) => format!("write (acquisition {ghost})"),
            Msg::Resource(ResourceMsg::Accepted) => "accepted".into(),
            Msg::Resource(ResourceMsg::Rejected) => "rejected".into(),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire => "Acquire",
            Step::Check => "Check (connection not suspended?)",
            Step::Write => "Write",
            Step::Read => "Read",
        }
        .into()
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::SessionExpiry { slot } => {
                let c = *slot as usize / self.params().slots as usize + 1;
                format!("session expiry (c{c})")
            }
            Timer::Ping => "ping".into(),
            Timer::Timeout => "request timeout".into(),
            Timer::Suspend => "connection timeout (SUSPENDED)".into(),
            Timer::Retry => "retry".into(),
            Timer::Lost => "suspended for the session timeout (LOST)".into(),
        }
    }

    fn show_state(&self, state: &State, names: &[String]) -> Option<Vec<(String, String)>> {
        let p = self.params();
        let pairs: Vec<(&str, String)> = match state {
            State::Ensemble(e) => {
                let sessions: Vec<String> = e
                    .sessions
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| **s != 0)
                    .map(|(i, s)| format!("{} of {}", show_session(*s), names[i / p.slots as usize + 1]))
                    .collect();
                let children: Vec<String> = e
                    .children
                    .iter()
                    .map(|z| format!("{} ({})", show_child(p, &z.child), show_session(z.session)))
                    .collect();
                let data: Vec<String> = e
                    .data_watches
                    .iter()
                    .map(|(n, s)| format!("{} by {}", show_seq(*n), show_session(*s)))
                    .collect();
                let child: Vec<String> = e.child_watches.iter().map(|s| show_session(*s)).collect();
                vec![
                    ("zxid", e.zxid.to_string()),
                    ("sessions", set(&sessions)),
                    ("/lock", set(&children)),
                    ("exists watches", set(&data)),
                    ("child watches", set(&child)),
                ]
            }
            State::Client(c) => vec![
                ("phase", format!("{:?}", c.script.phase).to_lowercase()),
                ("left", c.script.left.to_string()),
                (
                    "session",
                    if c.session == 0 {
                        "none".into()
                    } else {
                        show_session(c.session)
                    },
                ),
                (
                    "guid",
                    if c.value == 0 {
                        "none".into()
                    } else {
                        format!("g{}", c.value)
                    },
                ),
                ("node", if c.node == 0 { "none".into() } else { show_seq(c.node) }),
                ("recipe step", format!("{:?}", c.wait).to_lowercase()),
                (
                    "watching",
                    if c.target == 0 {
                        "none".into()
                    } else {
                        show_seq(c.target)
                    },
                ),
                ("checked", c.checked.to_string()),
                ("acquisition", c.ghost.to_string()),
            ],
            State::Resource(r) => vec![
                ("highest czxid accepted", r.max_token.to_string()),
                ("latest acquisition written", r.max_ghost.to_string()),
            ],
        };
        Some(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }
}

impl Renumber for Node {
    fn numbers(&self, state: &mut State, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match state {
            State::Ensemble(e) => {
                visit(Seq::Token, &mut e.zxid);
                e.sessions.iter_mut().for_each(|s| visit(Seq::Value, s));
                for z in e.children.iter_mut() {
                    child_numbers(&mut z.child, visit);
                    visit(Seq::Value, &mut z.session);
                    visit(Seq::Ghost, &mut z.ghost);
                }
                for (node, session) in e.data_watches.iter_mut() {
                    visit(Seq::Token, node);
                    visit(Seq::Value, session);
                }
                e.child_watches.iter_mut().for_each(|s| visit(Seq::Value, s));
                visit(Seq::Token, &mut e.pzxid);
            }
            State::Client(c) => {
                visit(Seq::Value, &mut c.session);
                visit(Seq::Value, &mut c.value);
                visit(Seq::Token, &mut c.node);
                visit(Seq::Token, &mut c.target);
                visit(Seq::Ghost, &mut c.ghost);
                visit(Seq::Token, &mut c.zxid);
            }
            State::Resource(r) => r.numbers(true, visit),
        }
    }

    fn numbers_msg(&self, msg: &mut Msg, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match msg {
            Msg::Connect { session }
            | Msg::Ping { session }
            | Msg::CloseSession { session }
            | Msg::Pong { session }
            | Msg::SessionExpired { session }
            | Msg::NodeChildrenChanged { session } => visit(Seq::Value, session),
            Msg::Create { session, value, .. } | Msg::GetChildren { session, value, .. } => {
                visit(Seq::Value, session);
                visit(Seq::Value, value);
            }
            Msg::Exists { session, value, node } | Msg::Delete { session, value, node } => {
                visit(Seq::Value, session);
                visit(Seq::Value, value);
                visit(Seq::Token, node);
            }
            Msg::Created { value, node } => {
                visit(Seq::Value, value);
                visit(Seq::Token, node);
            }
            Msg::Children {
                value,
                children,
                ghost,
                zxid,
            } => {
                visit(Seq::Value, value);
                children.iter_mut().for_each(|ch| child_numbers(ch, visit));
                visit(Seq::Ghost, ghost);
                visit(Seq::Token, zxid);
            }
            Msg::Reconnect {
                session, zxid, node, ..
            } => {
                visit(Seq::Value, session);
                visit(Seq::Token, zxid);
                visit(Seq::Token, node);
            }
            Msg::Stat { value, .. } | Msg::Deleted { value } => visit(Seq::Value, value),
            Msg::NodeDeleted { session, node } => {
                visit(Seq::Value, session);
                visit(Seq::Token, node);
            }
            Msg::Resource(m) => m.numbers(true, visit),
        }
    }
}

/// The spec's variables and values (`trace.itf.json`; docs/design.md §10).
impl TlaMapping for Node {
    /// specs/mirror/ZooKeeperLock.tla's variables: the ensemble's zxid, session
    /// slots, children of /lock and watches (as sets), the clients'
    /// recipe state, the resource's maxima.
    fn tla_vars(_world: &World<Self>, s: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        let client = |f: fn(&Client) -> Tla| {
            tla::per_node(s, move |st| match st {
                State::Client(c) => Some(f(c)),
                _ => None,
            })
        };
        let e = s.nodes.iter().find_map(|n| match &n.state {
            State::Ensemble(e) => Some(e),
            _ => None,
        })?;
        let r = s
            .nodes
            .iter()
            .find_map(|n| match n.state {
                State::Resource(r) => Some(r),
                _ => None,
            })
            .unwrap_or_default();
        let int = |v: u32| Tla::int(v);
        Some(vec![
            ("zxid", int(e.zxid)),
            (
                "sessions",
                Tla::fun(
                    e.sessions
                        .iter()
                        .enumerate()
                        .map(|(slot, v)| (Tla::int(slot as i64), int(*v))),
                ),
            ),
            (
                "children",
                Tla::set(e.children.iter().map(|z| {
                    Tla::rec([
                        ("czxid", int(z.child.czxid)),
                        ("mode", Tla::str(format!("{:?}", z.child.mode))),
                        ("guid", int(z.child.guid)),
                        ("session", int(z.session)),
                        ("ghost", int(z.ghost)),
                    ])
                })),
            ),
            (
                "dwatches",
                Tla::set(e.data_watches.iter().map(|&(z, sn)| Tla::Tup(vec![int(z), int(sn)]))),
            ),
            ("cwatches", Tla::set(e.child_watches.iter().map(|&sn| int(sn)))),
            ("phase", client(|c| tla::phase(c.script.phase))),
            ("left", client(|c| Tla::int(c.script.left))),
            ("session", client(|c| Tla::int(c.session))),
            ("value", client(|c| Tla::int(c.value))),
            ("node", client(|c| Tla::int(c.node))),
            ("wait", client(|c| Tla::str(format!("{:?}", c.wait)))),
            ("target", client(|c| Tla::int(c.target))),
            ("checked", client(|c| Tla::Bool(c.checked))),
            ("acquired", client(|c| Tla::int(c.ghost))),
            ("max_token", int(r.max_token)),
            ("max_ghost", int(r.max_ghost)),
        ])
    }

    /// As the spec writes messages: a listing of children is a set.
    fn tla_msg(&self, msg: &Msg) -> Tla {
        match msg {
            Msg::Children {
                value, children, ghost, ..
            } => Tla::rec([
                ("type", Tla::str("Children")),
                ("value", Tla::int(*value)),
                (
                    "children",
                    Tla::set(children.iter().map(|c| {
                        Tla::rec([
                            ("czxid", Tla::int(c.czxid)),
                            ("mode", Tla::str(format!("{:?}", c.mode))),
                            ("guid", Tla::int(c.guid)),
                        ])
                    })),
                ),
                ("ghost", Tla::int(*ghost)),
            ]),
            other => Tla::message(&serde_json::to_value(other).unwrap_or(serde_json::Value::Null)),
        }
    }

    /// The ensemble's session expiries are named by their slots.
    fn tla_timer(&self, timer: &Timer) -> Tla {
        match timer {
            Timer::SessionExpiry { slot } => Tla::int(*slot),
            other => Tla::Str(format!("{other:?}")),
        }
    }
}

fn child_numbers(ch: &mut Child, visit: &mut dyn FnMut(Seq, &mut u32)) {
    visit(Seq::Token, &mut ch.czxid);
    visit(Seq::Value, &mut ch.guid);
}

fn show_session(s: u32) -> String {
    format!("0x{s:x}")
}

fn show_seq(czxid: u32) -> String {
    format!("#{czxid:010}")
}

/// A node's name: with the protection prefix, `_c_<guid>-`; without it,
/// the name says nothing of the attempt (the model keeps the guid beside
/// the node only to match answers and ghosts).
fn show_child(p: &Params, ch: &Child) -> String {
    if p.protection {
        format!("_c_g{}-{}{:010}", ch.guid, ch.mode.prefix(), ch.czxid)
    } else {
        format!("{}{:010}", ch.mode.prefix(), ch.czxid)
    }
}

fn set(items: &[String]) -> String {
    format!("{{{}}}", items.join(", "))
}

/// The ensemble executes one request at a time, in order (linearizable).
/// Every request on a live session resets the session's expiry.
fn ensemble_receive(p: &Params, e: &mut Ensemble, src: Id, msg: Msg, out: &mut Out<Node>) {
    let session = match &msg {
        Msg::Connect { session }
        | Msg::Reconnect { session, .. }
        | Msg::Create { session, .. }
        | Msg::GetChildren { session, .. }
        | Msg::Exists { session, .. }
        | Msg::Delete { session, .. }
        | Msg::Ping { session }
        | Msg::CloseSession { session } => *session,
        _ => return,
    };
    if let Msg::Connect { session } = msg {
        // The client's first free slot (one exists: see Params::slots).
        if let Some(slot) = p.slots_of(src).find(|&i| e.sessions[i] == 0) {
            e.sessions[slot] = session;
            out.set_timer(Timer::SessionExpiry { slot: slot as u8 }, p.session_timeout);
        }
        return;
    }
    let Some(slot) = p.slots_of(src).find(|&i| e.sessions[i] == session) else {
        if !matches!(msg, Msg::CloseSession { .. }) {
            out.send(src, Msg::SessionExpired { session });
        }
        return;
    };
    out.set_timer(Timer::SessionExpiry { slot: slot as u8 }, p.session_timeout);
    match msg {
        Msg::Create { value, mode, .. } => {
            e.zxid += 1;
            let child = Child {
                czxid: e.zxid,
                mode,
                guid: value,
            };
            let ghost = out.next_ghost();
            e.children.push(Znode { child, session, ghost });
            if p.connections() {
                e.pzxid = e.zxid;
            }
            children_changed(p, e, out);
            out.send(src, Msg::Created { value, node: e.zxid });
        }
        Msg::GetChildren { value, watch, .. } => {
            if watch && !e.child_watches.contains(&session) {
                e.child_watches.push(session);
                e.child_watches.sort_unstable();
            }
            let children = e.children.iter().map(|z| z.child).collect();
            let ghost = e.children.iter().find(|z| z.child.guid == value).map_or(0, |z| z.ghost);
            let zxid = if p.connections() { e.zxid } else { 0 };
            out.send(
                src,
                Msg::Children {
                    value,
                    children,
                    ghost,
                    zxid,
                },
            );
        }
        Msg::Exists { value, node, .. } => {
            let exists = e.children.iter().any(|z| z.child.czxid == node);
            // A sequential name is never reused, so a watch on a node that
            // is gone could never fire: it is left out.
            if exists && !e.data_watches.contains(&(node, session)) {
                e.data_watches.push((node, session));
                e.data_watches.sort_unstable();
            }
            out.send(src, Msg::Stat { value, exists });
        }
        Msg::Delete { value, node, .. } => {
            if let Some(i) = e.children.iter().position(|z| z.child.czxid == node) {
                if e.children[i].session != session {
                    out.raise(FOREIGN_RELEASE);
                }
                e.children.remove(i);
                deleted(p, e);
                node_deleted(p, e, node, out);
                children_changed(p, e, out);
            }
            out.send(src, Msg::Deleted { value });
        }
        // The session's new connection: the old one's watches go with it
        // (the server closes it, and removeCnxn drops its watches), and
        // SetWatches registers the client's again, firing at once every
        // event it missed (DataTree.setWatches: a watched node that is gone
        // fires NodeDeleted; a child watch on a parent whose pzxid is past
        // the client's zxid fires NodeChildrenChanged).
        Msg::Reconnect {
            zxid, node, children, ..
        } => {
            e.data_watches.retain(|(_, s)| *s != session);
            e.child_watches.retain(|s| *s != session);
            if node != 0 {
                if e.children.iter().any(|z| z.child.czxid == node) {
                    e.data_watches.push((node, session));
                    e.data_watches.sort_unstable();
                } else {
                    out.send(src, Msg::NodeDeleted { session, node });
                }
            }
            if children {
                if e.pzxid > zxid {
                    out.send(src, Msg::NodeChildrenChanged { session });
                } else {
                    e.child_watches.push(session);
                    e.child_watches.sort_unstable();
                }
            }
        }
        Msg::Ping { .. } => out.send(src, Msg::Pong { session }),
        Msg::CloseSession { .. } => {
            e.sessions[slot] = 0;
            out.cancel_timer(Timer::SessionExpiry { slot: slot as u8 });
            close(p, e, session, out);
        }
        _ => {}
    }
}

/// The client whose session this is, if the session is live.
fn owner(p: &Params, sessions: &[u32], session: u32) -> Option<Id> {
    sessions
        .iter()
        .position(|s| *s == session)
        .map(|i| i / p.slots as usize + 1)
}

/// A session ends (expired or closed): its watches go, and its ephemeral
/// nodes are deleted, firing the watches on them.
fn close(p: &Params, e: &mut Ensemble, session: u32, out: &mut Out<Node>) {
    e.data_watches.retain(|(_, s)| *s != session);
    e.child_watches.retain(|s| *s != session);
    while let Some(i) = e.children.iter().position(|z| z.session == session) {
        let node = e.children.remove(i).child.czxid;
        deleted(p, e);
        node_deleted(p, e, node, out);
        children_changed(p, e, out);
    }
}

/// A delete under `/lock` is a transaction: where connections can break,
/// it takes the next zxid, which becomes the parent's pzxid.
fn deleted(p: &Params, e: &mut Ensemble) {
    if p.connections() {
        e.zxid += 1;
        e.pzxid = e.zxid;
    }
}

/// Fires the `exists` watches on `node`, which was just deleted.
fn node_deleted(p: &Params, e: &mut Ensemble, node: u32, out: &mut Out<Node>) {
    let sessions = &e.sessions;
    e.data_watches.retain(|&(n, session)| {
        if n != node {
            return true;
        }
        if let Some(c) = owner(p, sessions, session) {
            out.send(c, Msg::NodeDeleted { session, node });
        }
        false
    });
}

/// Fires every `getChildren /lock` watch (one-shot).
fn children_changed(p: &Params, e: &mut Ensemble, out: &mut Out<Node>) {
    for session in std::mem::take(&mut e.child_watches) {
        if let Some(c) = owner(p, &e.sessions, session) {
            out.send(c, Msg::NodeChildrenChanged { session });
        }
    }
}

/// The client's handlers. Answers to an earlier attempt (another value),
/// and events for another session, are ignored.
fn client_receive(p: &Params, mode: Mode, c: &mut Client, msg: Msg, out: &mut Out<Node>) {
    // Curator: any answer from the ensemble shows the connection is up
    // (RECONNECTED after SUSPENDED).
    if p.curator() && c.session != 0 && !matches!(msg, Msg::Resource(_)) {
        out.set_timer(Timer::Suspend, p.suspend_after);
        out.cancel_timer(Timer::Lost);
    }
    let acquiring = c.script.phase == Phase::Acquiring;
    match msg {
        Msg::Created { value, node } if acquiring && value == c.value && c.wait == Wait::Creating => {
            c.node = node;
            list(p, c, out);
        }
        Msg::Children {
            value,
            children,
            ghost,
            zxid,
        } if acquiring && value == c.value && c.wait == Wait::Listing => {
            out.cancel_timer(Timer::Timeout);
            c.zxid = zxid;
            decide(p, mode, c, &children, ghost, out);
        }
        Msg::Stat { value, exists } if acquiring && value == c.value && c.wait == Wait::Checking => {
            out.cancel_timer(Timer::Timeout);
            if exists {
                c.wait = Wait::Watching;
            } else {
                list(p, c, out);
            }
        }
        Msg::NodeDeleted { session, node }
            if acquiring && session == c.session && c.wait == Wait::Watching && node == c.target =>
        {
            list(p, c, out)
        }
        Msg::NodeChildrenChanged { session } if acquiring && session == c.session && c.wait == Wait::Watching => {
            list(p, c, out)
        }
        // Release: the write is answered, so the critical section is over.
        Msg::Resource(ResourceMsg::Accepted | ResourceMsg::Rejected) if c.script.phase == Phase::Writing => {
            release(p, c, out)
        }
        Msg::Deleted { value } if c.script.phase == Phase::Releasing && value == c.value => {
            out.cancel_timer(Timer::Timeout);
            released(p, c, out);
        }
        // The session is gone, and the node with it.
        Msg::SessionExpired { session } if session == c.session => expired(p, c, out),
        _ => {}
    }
}

/// The session is gone (SESSION_EXPIRED from the ensemble, or Curator's
/// LOST), and the client's node with it: an attempt or a hold is lost.
fn expired(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    c.session = 0;
    out.cancel_timer(Timer::Ping);
    out.cancel_timer(Timer::Suspend);
    out.cancel_timer(Timer::Lost);
    match c.script.phase {
        Phase::Acquiring | Phase::Holding | Phase::Writing => {
            out.cancel_timer(Timer::Timeout);
            retry_later(p, c, out);
        }
        Phase::Releasing => {
            out.cancel_timer(Timer::Timeout);
            released(p, c, out);
        }
        Phase::Want | Phase::Done => {}
    }
}

/// The recipe's step 1: `create` the node under a fresh attempt value
/// (the guid of the protection prefix).
fn create(p: &Params, mode: Mode, c: &mut Client, out: &mut Out<Node>) {
    c.value = out.fresh_value();
    out.send(
        ENSEMBLE,
        Msg::Create {
            session: c.session,
            value: c.value,
            mode,
        },
    );
    out.set_timer(Timer::Timeout, p.timeout);
    c.wait = Wait::Creating;
}

/// The recipe's step 2: `getChildren /lock` (with a watch in the herd
/// variant).
fn list(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    out.send(
        ENSEMBLE,
        Msg::GetChildren {
            session: c.session,
            value: c.value,
            watch: p.watch == Watch::All,
        },
    );
    out.set_timer(Timer::Timeout, p.timeout);
    c.wait = Wait::Listing;
    c.target = 0;
}

/// The recipe's decision on the children: hold when no lower node blocks,
/// else watch. A client whose node is not there (its create never reached
/// the ensemble) tries again.
fn decide(p: &Params, mode: Mode, c: &mut Client, children: &[Child], ghost: u32, out: &mut Out<Node>) {
    // With the protection prefix the client finds its node by its guid;
    // without it, only by the name the create's answer gave.
    let Some(mine) = children.iter().find(|ch| {
        if p.protection {
            ch.guid == c.value
        } else {
            ch.czxid == c.node
        }
    }) else {
        retry_later(p, c, out);
        return;
    };
    c.node = mine.czxid;
    let below = children
        .iter()
        .filter(|ch| ch.czxid < mine.czxid && mode.blocked_by(ch.mode))
        .map(|ch| ch.czxid)
        .max();
    match (below, p.watch) {
        (None, _) => {
            c.wait = Wait::Idle;
            c.ghost = ghost;
            c.script.phase = Phase::Holding;
        }
        (Some(_), Watch::All) => c.wait = Wait::Watching,
        (Some(next), Watch::Predecessor) => {
            c.target = next;
            out.send(
                ENSEMBLE,
                Msg::Exists {
                    session: c.session,
                    value: c.value,
                    node: next,
                },
            );
            out.set_timer(Timer::Timeout, p.timeout);
            c.wait = Wait::Checking;
        }
    }
}

/// The critical section is over: delete the node.
fn release(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    delete(p, c, out);
    c.script.phase = Phase::Releasing;
}

/// The attempt is lost: want the lock again after the back-off.
fn retry_later(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    c.script.phase = Phase::Want;
    c.forget();
    out.set_timer(Timer::Retry, p.retry);
}

/// The delete is answered: want again, or close the session and stop.
fn released(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    c.script.released(p.acquisitions);
    c.forget();
    if c.script.phase == Phase::Done && c.session != 0 {
        out.send(ENSEMBLE, Msg::CloseSession { session: c.session });
        out.cancel_timer(Timer::Ping);
        out.cancel_timer(Timer::Suspend);
        out.cancel_timer(Timer::Lost);
        c.session = 0;
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
        let mut v = LockView::default();
        for (i, n) in state.nodes.iter().enumerate() {
            let (State::Client(c), Node::Client(p, mode)) = (&n.state, &world.actors[i]) else {
                continue;
            };
            let connected = n.timer(Timer::Suspend).is_some_and(|t| t > 0);
            let (holds, wants) = c.script.lease_belief(p.curator(), c.checked, connected);
            v.holding |= u64::from(holds) << i;
            v.shared |= u64::from(holds && *mode == Mode::Read) << i;
            v.wanting |= u64::from(wants) << i;
        }
        v
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

/// Sends the release's `delete` of the client's node (again, after a
/// timeout or a reconnect), with its timeout.
fn delete(p: &Params, c: &Client, out: &mut Out<Node>) {
    out.send(
        ENSEMBLE,
        Msg::Delete {
            session: c.session,
            value: c.value,
            node: c.node,
        },
    );
    out.set_timer(Timer::Timeout, p.timeout);
}
