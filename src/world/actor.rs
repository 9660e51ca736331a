//! The time-aware actor trait (docs/design.md section 3).
//!
//! Stateright's `Actor` has no notion of elapsed time, so locksmith has its
//! own in the same style: handlers are pure functions of the actor's state
//! and what happened, and they write commands into an [`Out`] buffer. The
//! world owns delivery, timers, stopwatches and faults; an actor sees time
//! only through its own timers and stopwatches, as a real process would.

use std::fmt::Debug;
use std::hash::Hash;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Index of a node in the world: servers, clients and the resource alike.
pub type Id = usize;

/// A node's program. One type per algorithm, usually an enum over roles
/// (server, client, resource), like stateright's actor models.
pub trait Actor: Clone + Debug + Hash + Eq + Send + Sync + 'static {
    /// Everything the node remembers. Serializable so that the search's
    /// queue can hold states encoded (`check::frontier`).
    type State: Clone + Debug + Hash + Eq + Send + Sync + Serialize + DeserializeOwned + crate::world::Pack + 'static;
    /// What nodes send each other.
    type Msg: Clone + Debug + Hash + Ord + Send + Sync + Serialize + DeserializeOwned + crate::world::Pack + 'static;
    /// Names of countdown timers, in the owner's local ticks.
    type Timer: Copy + Debug + Hash + Ord + Send + Sync + Serialize + DeserializeOwned + crate::world::Pack + 'static;
    /// Names of stopwatches, count-ups in the owner's local ticks.
    type Watch: Copy + Debug + Hash + Ord + Send + Sync + Serialize + DeserializeOwned + crate::world::Pack + 'static;
    /// A node's own steps that no message or timer triggers.
    type Step: Copy + Debug + Hash + Ord + Send + Sync + Serialize + DeserializeOwned + 'static;

    /// Set to `Some(Plain::new())` where `State` and `Msg` are `Copy`: the
    /// search then copies a state's nodes and messages into its successor
    /// buffers as blocks ([`crate::world::Plain`]). `None` (the default):
    /// value by value.
    const PLAIN: Option<crate::world::Plain<Self>> = None;

    /// The node's state when the world starts.
    fn init(&self, ctx: &Ctx<'_, Self>, out: &mut Out<Self>) -> Self::State;

    /// The node's own steps enabled in `state`. Most are urgent: time does
    /// not pass while a running node has one (a process computes in far
    /// less than a tick unless it is paused). See [`Actor::urgent`].
    fn steps(&self, _ctx: &Ctx<'_, Self>, _state: &Self::State, _steps: &mut Vec<Self::Step>) {}

    /// Whether `step` is urgent. A step that waits on the world rather than
    /// on the process (a client coming to want the lock, a retry after its
    /// back-off) is not: time may pass while it is enabled, any number of
    /// ticks, but weak fairness still forces it eventually (docs/design.md §2).
    /// So no verdict depends on a fixed schedule the real system lacks.
    fn urgent(&self, _step: Self::Step) -> bool {
        true
    }

    /// How long `step` may wait once enabled, in the node's local ticks:
    /// time passes while it is enabled, up to this many ticks, and then it
    /// is urgent. A holder's critical section that takes `[system] work`
    /// ticks is such a step: it writes after any time from 0 to `work`, so
    /// a lease that runs out while its holder is still working is a
    /// normal run, not a fault. A pause stops the count (the process does
    /// no work), a crash forgets it. `None` (the default): [`Actor::urgent`]
    /// alone decides.
    fn within(&self, _step: Self::Step) -> Option<u8> {
        None
    }

    /// Whether `step` is one outcome of a random choice the real process
    /// makes (Redlock's retry delay): the actor lists every outcome as a
    /// step, and each is fair per state: a run that comes back to a state
    /// for ever takes each of its outcomes there for ever, so a livelock of
    /// probability zero is not fair (docs/design.md §2; `check::liveness`). The
    /// default: no step is random.
    fn random(&self, _step: Self::Step) -> bool {
        false
    }

    /// Takes one of the steps [`Actor::steps`] listed.
    fn on_step(&self, _ctx: &Ctx<'_, Self>, _state: &mut Self::State, _step: Self::Step, _out: &mut Out<Self>) {}

    /// Handles a delivered message.
    fn on_msg(&self, ctx: &Ctx<'_, Self>, state: &mut Self::State, src: Id, msg: Self::Msg, out: &mut Out<Self>);

    /// Handles a timer that has run down to zero.
    fn on_timer(&self, _ctx: &Ctx<'_, Self>, _state: &mut Self::State, _timer: Self::Timer, _out: &mut Out<Self>) {}

    /// Whether this node talks to `peer` over a connection of its own (a
    /// TCP connection, as Redis, ZooKeeper and etcd clients keep one). The
    /// connecting end answers; the world then breaks the connection on a
    /// loss or a cut of that link rather than dropping one message: what
    /// was in flight on it, both ways, is gone, and so is everything sent
    /// on it until this node reconnects (docs/design.md §2). TCP delivers once
    /// and in order, so such a link is never duplicated nor reordered.
    fn connects_to(&self, _peer: Id) -> bool {
        false
    }

    /// Whether this node, in `state`, holds a connection to `peer` that a
    /// crash of `peer` closes (the crashed process's kernel closes its
    /// sockets) and a partition or cut between them breaks: this node
    /// notices ([`Actor::on_disconnect`]) and reconnects once `peer` runs
    /// and the link is whole ([`Actor::on_reconnect`]), as a Redis replica
    /// does with its primary (docs/design.md §2). By default the
    /// connections of [`Actor::connects_to`].
    fn holds_connection(&self, _state: &Self::State, peer: Id) -> bool {
        self.connects_to(peer)
    }

    /// The connection to `peer` broke, and this node's client library has
    /// noticed (`Action::Disconnected`): fail the requests that were
    /// pending on it (ZooKeeper's CONNECTION_LOSS, gRPC's Unavailable),
    /// as the real library does. The link carries nothing until
    /// [`Actor::on_reconnect`].
    fn on_disconnect(&self, _ctx: &Ctx<'_, Self>, _state: &mut Self::State, _peer: Id, _out: &mut Out<Self>) {}

    /// The client library has a new connection to `peer`
    /// (`Action::Reconnect`): send what the real library sends on one
    /// (ZooKeeper's session id and SetWatches with the last zxid; etcd's
    /// watches resumed from their revision, the keep-alive stream).
    fn on_reconnect(&self, _ctx: &Ctx<'_, Self>, _state: &mut Self::State, _peer: Id, _out: &mut Out<Self>) {}

    /// What survives a crash: reduce `state` to its durable image and keep
    /// only the timers that survive (a persisted key's expiry is an absolute
    /// deadline on disk, so it keeps running while the node is down). The
    /// default keeps the state for [`Actor::restart`] and drops every timer.
    fn crash(&self, _state: &mut Self::State, timers: &mut crate::world::Clocks<Self::Timer>) {
        timers.clear();
    }

    /// The state after a restart, from what [`Actor::crash`] kept. `ctx`
    /// still shows the surviving timers; the world clears them all before
    /// applying `out`, so re-arm the ones that should run on. The default
    /// starts afresh.
    fn restart(&self, ctx: &Ctx<'_, Self>, _durable: &Self::State, out: &mut Out<Self>) -> Self::State {
        self.init(ctx, out)
    }

    /// The largest value a stopwatch needs to tell apart: readings saturate
    /// there, so states repeat (docs/design.md section 2).
    fn watch_cap(&self, _watch: Self::Watch) -> u8 {
        u8::MAX
    }

    /// Whether `timer` runs on the node's monotonic clock: a step of the
    /// wall clock (`ClockJump`) leaves it where it is, while a drift in the
    /// clock's rate still moves it (docs/design.md §2). Go's timers and
    /// deadlines are monotonic, for instance. The default: the wall clock.
    fn monotonic(&self, _timer: Self::Timer) -> bool {
        false
    }

    /// Whether the adversary may pause this node in `state`. A scenario can
    /// confine pauses to one phase of an algorithm (antirez's "pause during
    /// acquisition" case); by default a node may be paused at any time.
    fn may_pause(&self, _state: &Self::State) -> bool {
        true
    }
}

/// What a handler may look at besides its own state: its id and its clock.
pub struct Ctx<'a, A: Actor> {
    pub id: Id,
    pub(crate) timers: &'a [(A::Timer, u8)],
    pub(crate) watches: &'a [(A::Watch, u8)],
    pub(crate) age: u8,
}

impl<A: Actor> Ctx<'_, A> {
    /// Local ticks left on `timer`, or `None` when it is not set.
    pub fn timer(&self, timer: A::Timer) -> Option<u8> {
        self.timers.iter().find(|(t, _)| *t == timer).map(|(_, v)| *v)
    }

    /// For [`Actor::restart`]: resumes a timer that [`Actor::crash`] kept
    /// (a durable deadline, which ran on while the node was down). Returns
    /// true when it ran out meanwhile; otherwise re-arms it with what is
    /// left, if it was set at all.
    pub fn resume(&self, timer: A::Timer, out: &mut Out<A>) -> bool {
        match self.timer(timer) {
            Some(0) => true,
            Some(left) => {
                out.set_timer(timer, left);
                false
            }
            None => false,
        }
    }

    /// In a message handler: the real ticks the message was in flight, as
    /// the world ages messages (bounded delay only: saturating at
    /// `max_delay`, and 0 on an asynchronous network); 0 in other handlers.
    /// Not a clock a process reads: it stands for what an absolute
    /// timestamp in the message tells a receiver whose clock agrees with
    /// the sender's (Redis's replicated `PXAT`).
    pub fn age(&self) -> u8 {
        self.age
    }

    /// Local ticks since `watch` started (saturating), or `None` when it is
    /// not running.
    pub fn elapsed(&self, watch: A::Watch) -> Option<u8> {
        self.watches.iter().find(|(w, _)| *w == watch).map(|(_, v)| *v)
    }
}

/// A command an actor hands the world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cmd<A: Actor> {
    Send(Id, A::Msg),
    SetTimer(A::Timer, u8),
    CancelTimer(A::Timer),
    StartWatch(A::Watch),
    StopWatch(A::Watch),
}

/// The commands of one handler: inline up to four (a handler rarely
/// gives more), so that computing a successor allocates nothing for them.
pub(crate) type Cmds<A> = smallvec::SmallVec<[Cmd<A>; 4]>;

/// The command buffer a handler writes into.
pub struct Out<A: Actor> {
    pub(crate) cmds: Cmds<A>,
    pub(crate) ghost: u32,
    pub(crate) value: u32,
    pub(crate) raised: u32,
}

impl<A: Actor> Out<A> {
    pub(crate) fn new(ghost: u32, value: u32) -> Self {
        Out {
            cmds: Cmds::new(),
            ghost,
            value,
            raised: 0,
        }
    }

    pub fn send(&mut self, dst: Id, msg: A::Msg) {
        self.cmds.push(Cmd::Send(dst, msg));
    }

    /// Sets (or resets) `timer` to fire after `ticks` local ticks.
    pub fn set_timer(&mut self, timer: A::Timer, ticks: u8) {
        self.cmds.push(Cmd::SetTimer(timer, ticks));
    }

    pub fn cancel_timer(&mut self, timer: A::Timer) {
        self.cmds.push(Cmd::CancelTimer(timer));
    }

    /// Starts (or restarts from zero) a stopwatch.
    pub fn start_watch(&mut self, watch: A::Watch) {
        self.cmds.push(Cmd::StartWatch(watch));
    }

    pub fn stop_watch(&mut self, watch: A::Watch) {
        self.cmds.push(Cmd::StopWatch(watch));
    }

    /// Draws the next number of a world-wide ghost counter: a TLA+ history
    /// variable that orders events (for example acquisitions) across nodes.
    /// No algorithm may branch on it; properties read it.
    pub fn next_ghost(&mut self) -> u32 {
        self.ghost += 1;
        self.ghost
    }

    /// Draws a fresh lock value, unlike every value any node holds or any
    /// message carries: the random value a real client draws for each
    /// acquisition (the Redis documentation's "random value unique across
    /// all clients and all lock requests"). Values are renumbered by rank
    /// as [`Seq::Value`], which keeps equality and draw order.
    pub fn fresh_value(&mut self) -> u32 {
        self.value += 1;
        self.value
    }

    /// Raises ghost flag `bit` in the world's history: a record that an
    /// event happened (a foreign release, a stale write) which survives any
    /// crash of the node that saw it. Properties read it.
    pub fn raise(&mut self, bit: u32) {
        self.raised |= bit;
    }
}
