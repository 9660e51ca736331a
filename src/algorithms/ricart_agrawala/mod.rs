//! `ricart-agrawala`: G. Ricart and A. K. Agrawala, "An optimal algorithm
//! for mutual exclusion in computer networks", CACM 24(1), 1981. N nodes,
//! each both a client and a peer of the others; no server, no clock, no
//! timer (the world's `Tick` is never enabled). The critical section is
//! one write to the protected resource (`resource.rs`), as every family's
//! holder makes. The mirror spec is `specs/mirror/RicartAgrawala.tla`;
//! actions appear here in its order, in the paper's words:
//!
//! - `Request` (the node's own step, "invoking mutual exclusion"):
//!   `Requesting_Critical_Section := TRUE`, `Our_Sequence_Number :=
//!   Highest_Sequence_Number + 1`, `Outstanding_Reply_Count := N − 1`, and
//!   `REQUEST(Our_Sequence_Number, me)` to every other node.
//! - `Enter` (the node's own step): `WAITFOR (Outstanding_Reply_Count =
//!   0)` returns, and the node is in its critical section. Its acquisition
//!   is numbered here (the ghost), since no service grants it: this is the
//!   step from which it may use the lock.
//! - `Write` (the node's own step): the critical section's write, carrying
//!   that number (no fencing token: the algorithm has none).
//! - `ReceiveRequest(k, j)`: `Highest_Sequence_Number :=
//!   max(Highest_Sequence_Number, k)`; defer the reply when requesting and
//!   `(k, j)` is larger than `(Our_Sequence_Number, me)` (timestamps first,
//!   node numbers break ties), else `REPLY` at once.
//! - `ReceiveReply`: `Outstanding_Reply_Count − 1`.
//! - `ReceiveWritten` (the resource's answer): the write is done, and the
//!   node leaves its critical section: `Requesting_Critical_Section :=
//!   FALSE` and a `REPLY` to every deferred node.
//! - the resource's `ReceiveWrite`: it accepts every write, and raises
//!   the stale-write flag on a write whose number is below the highest it
//!   accepted.
//!
//! **The WAITFOR is its own step** (`specs/README.md`, finding 8). The
//! paper's requesting process waits for `Outstanding_Reply_Count = 0`
//! while a separate process counts the REPLYs down, and an implementation
//! that waits on a condition does the same: the REPLY handler decrements
//! and signals, and the waiter, once it runs again, tests the condition
//! (a condition variable's waiter re-checks its predicate when it is
//! scheduled, not when it is signalled). Between the two, the handler may
//! run again. With exactly-once delivery, which the paper assumes, the
//! count stops at 0 and nothing changes; with a duplicated REPLY it can go
//! from 1 to 0 to −1 before the waiter looks, and a waiter that waits for
//! exactly 0, as the paper writes, waits for ever. Entering in the handler
//! that reaches 0 would hide that run.
//!
//! `Requesting_Critical_Section` stays true through the critical section,
//! as in the paper, so a node in its critical section defers every request
//! that can reach it: one with a smaller `(k, j)` would come from a node
//! that replied to this node's request, and such a node's own later request
//! carries a timestamp above this node's (it saw it). Exactly 2(N − 1)
//! messages per entry between the nodes: N − 1 REQUESTs, N − 1 REPLYs (the
//! write and its answer are the lock user's, not the lock's). No release
//! can remove another node's lock, so `no_foreign_release` holds
//! trivially; `no_stale_write` is the resource's.
//!
//! The node's script (`client.rs`): `Want` (it wants the critical section
//! and has not asked yet; `Request` is not urgent), `Acquiring` (waiting
//! for replies; `Enter` is urgent once the count is 0), `Holding` (in the
//! critical section; `Write` is urgent, or waits up to `[system] work`
//! ticks), `Writing` (waiting for the resource's answer), then `Want`
//! again, or `Done` after `acquisitions`. `Our_Sequence_Number` is only
//! read while the node is requesting, so the state forgets it otherwise
//! (`request` is `None`).
//!
//! **`replies`.** `"counter"` (default) is the paper's
//! `Outstanding_Reply_Count`: a REPLY carries nothing and is counted, so it
//! needs exactly-once delivery: a duplicated REPLY counts as an answer to
//! the node's next request (two nodes in the critical section, and the
//! one that entered first may write last: a stale write), a duplicated
//! REQUEST draws a second REPLY that does the same, and a copy counted
//! before the waiter looks takes the count past 0 (the waiter waits for
//! ever). `"tagged"` replaces the count by a per-peer reply set, and each
//! REPLY carries the sequence number of the request it answers (a
//! deferred request's number is kept with the deferral): a REPLY counts
//! only if it answers the current request and comes from a peer not yet
//! counted for it, so a duplicate or a stale reply is ignored. A node's
//! requests carry strictly increasing numbers, so a stale reply never
//! matches. A tagged reply keeps an old sequence number in flight; with
//! duplication and nodes that loop for ever, a copy held back for ever
//! makes the clock distances grow without bound, so bound `acquisitions`
//! there.
//!
//! **Finite states without changing the algorithm.** Sequence numbers grow
//! forever when nodes loop (`acquisitions = 0`). The algorithm only
//! compares them with each other and adds one to them, never compares
//! them with a constant, so shifting every timestamp in the state — every
//! node's `Highest_Sequence_Number` and `Our_Sequence_Number`, and every
//! `REQUEST`'s in flight — down by the same amount changes no outcome. The
//! world does it after every step ([`Seq::Clock`], `src/world/ranks.rs`):
//! the smallest timestamp present becomes 0. This is not a cap: distances
//! are kept exactly. Ranking them instead (as ghost numbers are) would be
//! unsound, since `max + 1` can fall between two ranks.
//!
//! **No symmetry reduction.** Ties between equal timestamps go to the
//! smaller node number, so renaming nodes changes who wins a tie: a
//! renamed state does not behave like the original (from the first round,
//! where every request carries timestamp 1, node n1 wins). Only the
//! identity preserves the `(timestamp, id)` order, so no group is declared.
//!
//! **Crashes.** A node that crashes keeps its whole state for a restart
//! (as if it wrote it ahead to disk: `fsync`); messages sent to it while
//! it is down are lost, as the world drops them. With `recovery = "none"`
//! it may never come back, and a node waiting for its REPLY waits forever.
//! A node that crashes while its write is unanswered comes back still
//! waiting for the answer: if the crash dropped it, the node waits for
//! ever in its critical section, as a node waits for a lost REPLY (the
//! paper sends nothing twice). A restart that forgot would also forget the
//! permissions it gave, and its clock; the paper assumes no failures, and
//! a clock reset to 0 is a comparison with a constant, which the shift
//! above cannot represent.

use crate::algorithms::prelude::*;

mod describe;
mod family;
mod itf;
pub use family::RicartAgrawala;

/// How a node counts the replies to its request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Replies {
    /// The paper's `Outstanding_Reply_Count`. The default.
    #[default]
    Counter,
    /// A per-peer reply set; each REPLY names the request it answers.
    Tagged,
}

/// The `[system]` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    /// N: the nodes n1..nN (ids 0..N−1).
    pub nodes: u8,
    pub replies: Replies,
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
    nodes: Within<2, 5, 3>,
    replies: Word<Replies>,
    work: Within<0, 10, 0>,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let k: Keys = sc.system()?;
        Ok(Params {
            nodes: k.nodes.get(),
            replies: k.replies.get(),
            acquisitions: sc.acquisitions,
            work: k.work.get(),
        })
    }

    /// The resource's id: after the nodes.
    fn resource(&self) -> Id {
        Id::from(self.nodes)
    }
}

/// Every node runs the same program; the resource is the last node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Peer(Params),
    Resource,
}

/// One node's variables, named as in the paper.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Peer {
    /// Want / Acquiring / Holding and Writing (the critical section) /
    /// Done. `Requesting_Critical_Section` is `Acquiring`, `Holding` or
    /// `Writing`.
    pub script: Script,
    /// `Highest_Sequence_Number`: the Lamport clock.
    #[rewrite(clock)]
    pub highest: u32,
    /// `Our_Sequence_Number` while requesting (and in the critical
    /// section), `None` otherwise.
    #[rewrite(clock)]
    pub request: Option<u32>,
    /// `Outstanding_Reply_Count`. Below 0 only when the network delivered
    /// more REPLYs than the node asked for (a duplicate).
    pub outstanding: i8,
    /// `Reply_Deferred`: bit `j` for node `j`.
    pub deferred: u64,
    /// `tagged`: the peers whose REPLY to the current request has come,
    /// bit `j` for node `j`.
    pub replied: u64,
    /// `tagged`: each deferred peer's request number, by peer.
    #[rewrite((_, clock))]
    pub tags: Vec<(u8, u32)>,
    /// Ghost: the acquisition number of the critical section it is in
    /// (0: none).
    #[rewrite(ghost)]
    pub ghost: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub enum State {
    Peer(#[rewrite] Peer),
    Resource(#[rewrite] Resource),
}

parts!(State { Resource(Resource) => resource });
parts!(Msg { Resource(ResourceMsg) => resource });

impl State {
    /// A node's variables; `None` for the resource.
    pub fn peer(&self) -> Option<&Peer> {
        match self {
            State::Peer(p) => Some(p),
            State::Resource(_) => None,
        }
    }

    /// A node's variables, to change; `None` for the resource.
    pub fn peer_mut(&mut self) -> Option<&mut Peer> {
        match self {
            State::Peer(p) => Some(p),
            State::Resource(_) => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub enum Msg {
    /// `REQUEST(k, j)`: `k` the sender's sequence number; `j`, the sender,
    /// is the envelope's source.
    Request {
        #[rewrite(clock)]
        ts: u32,
    },
    /// `REPLY`: permission, carrying nothing.
    Reply,
    /// `tagged`: a REPLY to the request numbered `ts`.
    TaggedReply {
        #[rewrite(clock)]
        ts: u32,
    },
    /// The critical section's write, and the resource's answer.
    Resource(#[rewrite] ResourceMsg),
}

/// No timers: the algorithm assumes no clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Timer {}

/// No stopwatches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Watch {}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Step {
    /// Invoke mutual exclusion: REQUEST to every other node.
    Request,
    /// `WAITFOR (Outstanding_Reply_Count = 0)` returns: the critical
    /// section.
    Enter,
    /// The critical section's write to the resource.
    Write,
}

impl Actor for Node {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    type Watch = Watch;
    type Step = Step;

    fn init(&self, _ctx: &Ctx<'_, Self>, _out: &mut Out<Self>) -> State {
        match self {
            Node::Peer(p) => State::Peer(Peer {
                script: Script::new(p.acquisitions),
                highest: 0,
                request: None,
                outstanding: 0,
                deferred: 0,
                replied: 0,
                tags: Vec::new(),
                ghost: 0,
            }),
            Node::Resource => State::Resource(Resource::default()),
        }
    }

    fn steps(&self, _ctx: &Ctx<'_, Self>, state: &State, steps: &mut Vec<Step>) {
        if let State::Peer(s) = state {
            match s.script.phase {
                Phase::Want => steps.push(Step::Request),
                // The paper's WAITFOR: exactly 0, as it writes.
                Phase::Acquiring if s.outstanding == 0 => steps.push(Step::Enter),
                Phase::Holding => steps.push(Step::Write),
                _ => {}
            }
        }
    }

    client_timing!(Node::Peer(p) => p.work, write: Step::Write, want: Step::Request);

    fn on_step(&self, ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (Node::Peer(p), State::Peer(s)) = (self, state) else {
            return;
        };
        let n = Id::from(p.nodes);
        match step {
            // Request: Our_Sequence_Number := Highest_Sequence_Number + 1,
            // Outstanding_Reply_Count := N − 1, REQUEST to all others.
            Step::Request => {
                let ts = s.highest + 1;
                s.request = Some(ts);
                s.outstanding = p.nodes as i8 - 1;
                s.replied = 0;
                s.script.phase = Phase::Acquiring;
                for j in (0..n).filter(|&j| j != ctx.id) {
                    out.send(j, Msg::Request { ts });
                }
            }
            // Enter: every REPLY counted; the acquisition is numbered here.
            Step::Enter => {
                s.ghost = out.next_ghost();
                s.script.phase = Phase::Holding;
            }
            // Write: the critical section's write (no fencing token: 0).
            Step::Write => send_write(&mut s.script, p.resource(), 0, s.ghost, out),
        }
    }

    fn on_msg(&self, ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Peer(p), State::Peer(s)) => peer_receive(p, ctx.id, s, src, msg, out),
            // ReceiveWrite: no fencing; a write below the highest accepted
            // raises the stale-write flag.
            (Node::Resource, State::Resource(r)) => r.receive(false, src, msg.resource(), Msg::Resource, out),
            _ => {}
        }
    }

    /// The node's whole state survives (`fsync`); only messages to it are
    /// lost while it is down.
    fn restart(&self, _ctx: &Ctx<'_, Self>, durable: &State, _out: &mut Out<Self>) -> State {
        durable.clone()
    }
}

/// A node's handlers.
fn peer_receive(p: &Params, me: Id, s: &mut Peer, src: Id, msg: Msg, out: &mut Out<Node>) {
    match msg {
        // ReceiveRequest(k, j): advance the clock; defer when our own
        // request (Our_Sequence_Number, me) comes first.
        Msg::Request { ts } => {
            s.highest = s.highest.max(ts);
            let defer = s.request.is_some_and(|ours| (ts, src) > (ours, me));
            if defer {
                s.deferred |= 1 << src;
                if p.replies == Replies::Tagged {
                    // A node's requests carry increasing numbers: the
                    // largest is its current one.
                    match s.tags.iter_mut().find(|(j, _)| Id::from(*j) == src) {
                        Some((_, t)) => *t = (*t).max(ts),
                        None => {
                            s.tags.push((src as u8, ts));
                            s.tags.sort_unstable();
                        }
                    }
                }
            } else if p.replies == Replies::Tagged {
                out.send(src, Msg::TaggedReply { ts });
            } else {
                out.send(src, Msg::Reply);
            }
        }
        // ReceiveReply (tagged): counts once per peer, and only if it
        // answers the current request.
        Msg::TaggedReply { ts } => {
            let bit = 1u64 << src;
            if s.script.phase == Phase::Acquiring && s.request == Some(ts) && s.replied & bit == 0 {
                s.replied |= bit;
                s.outstanding -= 1;
            }
        }
        // ReceiveReply: one fewer outstanding; the waiter (Enter) looks at
        // the count in its own step. The paper decrements in any phase,
        // and Request resets the count, so a reply while not waiting
        // changes nothing the algorithm reads.
        Msg::Reply => {
            if s.script.phase == Phase::Acquiring {
                s.outstanding -= 1;
            }
        }
        // ReceiveWritten: the write is done; leave the critical section:
        // Requesting_Critical_Section := FALSE, and a REPLY to every node
        // whose request was deferred.
        Msg::Resource(_) if s.script.phase == Phase::Writing => {
            s.request = None;
            for j in (0..Id::from(p.nodes)).filter(|&j| s.deferred & (1 << j) != 0) {
                out.send(j, reply(p, s, j));
            }
            s.deferred = 0;
            s.tags.clear();
            s.ghost = 0;
            s.script.released(p.acquisitions);
        }
        Msg::Resource(_) => {}
    }
}

/// The REPLY to deferred node `j`: tagged with its request's number when
/// the variant tags replies.
fn reply(p: &Params, s: &Peer, j: Id) -> Msg {
    match p.replies {
        Replies::Counter => Msg::Reply,
        Replies::Tagged => Msg::TaggedReply {
            ts: s.tags.iter().find(|(k, _)| Id::from(*k) == j).map_or(0, |(_, t)| *t),
        },
    }
}

/// Clocks and ghost numbers are the derived walk's; ids stay hand-written:
/// they are bits of the masks, and the tags are kept sorted by id.
impl Renumber for Node {
    fn rename(&self, state: &mut State, ids: &dyn Fn(Id) -> Id) {
        let State::Peer(s) = state else {
            return;
        };
        let mut d = 0;
        for j in (0..64).filter(|&j| s.deferred & (1 << j) != 0) {
            d |= 1 << ids(j);
        }
        s.deferred = d;
        let mut r = 0;
        for j in (0..64).filter(|&j| s.replied & (1 << j) != 0) {
            r |= 1 << ids(j);
        }
        s.replied = r;
        for (j, _) in s.tags.iter_mut() {
            *j = ids(Id::from(*j)) as u8;
        }
        s.tags.sort_unstable();
    }
}

impl Lock for Node {
    /// A node holds the lock in its critical section (from `Enter` until
    /// its write is answered) and wants it from wanting until it enters.
    fn lock_view(_world: &World<Self>, state: &WorldState<Self>) -> LockView {
        scripts_view(state, |s| s.peer().map(|p| p.script))
    }
}

/// The world of a `ricart-agrawala` scenario: nodes n1..nN, the resource
/// last, no symmetry (ties go to the smaller node number).
pub fn world(sc: &Scenario) -> Result<World<Node>, ScenarioError> {
    let p = Params::read(sc)?;
    let mut layout = Layout::default();
    layout.nodes(&Node::Peer(p), "n", p.nodes, Role::Client);
    layout.node(Node::Resource, "resource", Role::Observer);
    Ok(layout.world(sc, Vec::new()))
}
