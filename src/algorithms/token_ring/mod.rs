//! `token-ring`: mutual exclusion by a token passed around a logical ring
//! (Le Lann, Distributed Systems: Towards a Formal Approach, 1977;
//! Tanenbaum & van Steen, Distributed Systems, "A token ring algorithm").
//! Nodes form a ring in id order. Exactly one token circulates; a node
//! that wants the lock waits for the token, enters its critical section
//! (writes to the resource) while it holds it, then passes it to its
//! successor; a node that does not want the lock passes it on at once.
//! Every node is a client: it wants the lock `acquisitions` times (forever
//! when 0). No clocks: without regeneration nothing sets a timer, so
//! `Tick` is never enabled.
//!
//! The mirror spec (this module in TLA+; the clean-room one is in `specs/`) is `specs/mirror/TokenRing.tla`; actions appear here in its order:
//! Enter, Pass, Write (a node's steps); ReceiveToken, ReceiveTopToken,
//! ReceiveWritten (which passes the token on); Regenerate (the timer);
//! the resource's ReceiveWrite; Restart.
//!
//! Variants:
//! - `regenerate = "naive"`: a node that has not seen the token for
//!   `timeout` ticks of its own clock (its `Lost` timer, re-armed each time
//!   it passes the token) concludes that the token is lost and makes a new
//!   one. Nothing stops two nodes from doing so, or a node from doing so
//!   while the token is only slow: two tokens, two holders. (The correct
//!   schemes, Misra's two tokens or an election, are not modelled.) A node
//!   that holds a token when a second one reaches it does not merge them:
//!   it counts the tokens it holds (shown in the state and the trace),
//!   enters its critical section under one, and passes every token it
//!   holds on, one `TOKEN` each, so two tokens stay two and can part
//!   again. The count saturates at two (a third token reaching a node
//!   that holds two is kept as one of the two): the checker's questions
//!   only need two tokens to be told apart from one, and the saturation
//!   keeps the number of tokens, which naive regeneration can otherwise
//!   grow round after round, finite.
//! - `rings = R` (2 or more): a two-level ring. `R` rings of `nodes`
//!   nodes each; the first node of each ring (its gateway) is also on the
//!   top ring. The top token circulates among the gateways; a gateway that
//!   receives it holds it on behalf of its ring: it takes its ring's token
//!   (entering its own critical section if it wants to), sends it round
//!   its ring, and passes the top token on when its ring's token comes
//!   back.
//!
//! A crash loses what the node holds, the token included, and a token sent
//! to a crashed node is dropped: the token is lost, and without
//! regeneration nobody enters again. A node restarts without the token.
//!
//! Symmetry: the nodes are not interchangeable (each passes the token to
//! its own successor; only rotations of the ring preserve the algorithm),
//! so none is declared.

use crate::algorithms::prelude::*;

mod describe;
mod family;
mod itf;
pub use family::TokenRing;

/// What a node does when it thinks the token is lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum Regenerate {
    /// Nothing: a lost token stays lost. The default.
    #[default]
    None,
    /// Makes a new token after `timeout` ticks without seeing one.
    Naive,
}

/// The `[system]` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    /// Nodes per ring.
    pub nodes: u8,
    /// Rings: 1 for a plain ring, more for a ring of rings.
    pub rings: u8,
    pub regenerate: Regenerate,
    /// `naive`: ticks without the token before a node makes a new one.
    pub timeout: u8,
    pub acquisitions: u8,
    /// `[system] work`: the most ticks a holder works in its critical
    /// section before it writes (0: it writes at once).
    pub work: u8,
}

/// The `[system]` keys as a scenario writes them: each field's type says
/// what it allows and what an absent key is (src/scenario/typed.rs).
/// `timeout` is an `Option`: it is allowed only with `regenerate =
/// "naive"`.
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Keys {
    nodes: Within<1, 5, 3>,
    rings: Within<1, 3, 1>,
    regenerate: Word<Regenerate>,
    timeout: Option<Within<1, 30, 8>>,
    work: Within<0, 10, 0>,
}

impl Params {
    pub fn read(sc: &Scenario) -> Result<Params, ScenarioError> {
        let k: Keys = sc.system()?;
        let nodes = k.nodes.get();
        let rings = k.rings.get();
        let regenerate = k.regenerate.get();
        let timeout = k.timeout;
        let work = k.work.get();
        let file = sc.path.display();
        if rings == 1 && nodes < 2 {
            return Err(ScenarioError(format!(
                "{file}: [system] nodes = 1 is not allowed with one ring; allowed: 2 to 5 nodes, or rings = 2 or 3"
            )));
        }
        if usize::from(rings) * usize::from(nodes) > 6 {
            return Err(ScenarioError(format!(
                "{file}: [system] rings = {rings} with nodes = {nodes} makes {} nodes; allowed: at most 6 in all",
                usize::from(rings) * usize::from(nodes)
            )));
        }
        if regenerate == Regenerate::Naive && rings > 1 {
            return Err(ScenarioError(format!(
                "{file}: [system] regenerate = \"naive\" is modelled for one ring only; allowed: rings = 1, or regenerate = \"none\""
            )));
        }
        if regenerate == Regenerate::None && timeout.is_some() {
            return Err(ScenarioError(format!(
                "{file}: [system] timeout is the regeneration timeout and needs regenerate = \"naive\"; allowed: remove timeout, or regenerate = \"naive\""
            )));
        }
        Ok(Params {
            nodes,
            rings,
            regenerate,
            timeout: timeout.unwrap_or_default().get(),
            acquisitions: sc.acquisitions,
            work,
        })
    }

    fn count(&self) -> Id {
        Id::from(self.rings) * Id::from(self.nodes)
    }

    fn resource(&self) -> Id {
        self.count()
    }

    fn two_level(&self) -> bool {
        self.rings > 1
    }

    /// Whether `id` is its ring's gateway on the top ring.
    fn gateway(&self, id: Id) -> bool {
        self.two_level() && id.is_multiple_of(Id::from(self.nodes))
    }

    /// The next node on `id`'s ring.
    fn successor(&self, id: Id) -> Id {
        let k = Id::from(self.nodes);
        id - id % k + (id % k + 1) % k
    }

    /// The next gateway on the top ring.
    fn next_gateway(&self, id: Id) -> Id {
        let k = Id::from(self.nodes);
        (id + k) % self.count()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Ring(Params),
    Resource,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct RingNode {
    pub script: Script,
    /// How many of its ring's tokens it holds (0, 1, or 2: two or more).
    pub tokens: u8,
    /// Ghost: the acquisition number of the critical section it is in.
    #[rewrite(ghost)]
    pub ghost: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub enum State {
    Node(#[rewrite] RingNode),
    Resource(#[rewrite] Resource),
}

parts!(State { Resource(Resource) => resource });
parts!(Msg { Resource(ResourceMsg) => resource });

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub enum Msg {
    /// The ring's token, to the successor.
    Token,
    /// The top ring's token, to the next gateway.
    TopToken,
    Resource(#[rewrite] ResourceMsg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Timer {
    /// `naive`: no token seen for `timeout` ticks.
    Lost,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Watch {}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Step {
    /// Holding the token and wanting the lock: enter the critical section.
    Enter,
    /// Holding the token and not wanting the lock: pass it on.
    Pass,
    /// The critical section's write to the resource.
    Write,
}

impl Actor for Node {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    type Watch = Watch;
    type Step = Step;
    const PLAIN: Option<Plain<Self>> = Some(Plain::new());

    /// Node 0 starts with the token (on a ring of rings, as the first
    /// gateway, with the top token too); with naive regeneration every
    /// other node starts its `Lost` timer.
    fn init(&self, ctx: &Ctx<'_, Self>, out: &mut Out<Self>) -> State {
        match self {
            Node::Ring(p) => {
                let token = ctx.id == 0;
                if !token && p.regenerate == Regenerate::Naive {
                    out.set_timer(Timer::Lost, p.timeout);
                }
                State::Node(RingNode {
                    script: Script::new(p.acquisitions),
                    tokens: u8::from(token),
                    ghost: 0,
                })
            }
            Node::Resource => State::Resource(Resource::default()),
        }
    }

    fn steps(&self, _ctx: &Ctx<'_, Self>, state: &State, steps: &mut Vec<Step>) {
        if let State::Node(n) = state {
            match n.script.phase {
                Phase::Want if n.tokens > 0 => steps.push(Step::Enter),
                Phase::Done if n.tokens > 0 => steps.push(Step::Pass),
                Phase::Holding => steps.push(Step::Write),
                _ => {}
            }
        }
    }

    client_timing!(Node::Ring(p) => p.work, write: Step::Write);

    fn on_step(&self, ctx: &Ctx<'_, Self>, state: &mut State, step: Step, out: &mut Out<Self>) {
        let (State::Node(n), Node::Ring(p)) = (state, self) else {
            return;
        };
        match step {
            // Enter: the critical section, under the token.
            Step::Enter => {
                n.ghost = out.next_ghost();
                n.script.phase = Phase::Holding;
            }
            // Pass: not wanting the lock, pass the token on.
            Step::Pass => pass(p, ctx.id, n, out),
            // Write: the critical section's write (no fencing token: 0).
            Step::Write => send_write(&mut n.script, p.resource(), 0, n.ghost, out),
        }
    }

    fn on_msg(&self, ctx: &Ctx<'_, Self>, state: &mut State, src: Id, msg: Msg, out: &mut Out<Self>) {
        match (self, state) {
            (Node::Ring(p), State::Node(n)) => match msg {
                // ReceiveToken: a gateway whose ring's token came back
                // passes the top token on; any other node takes the token.
                Msg::Token if p.gateway(ctx.id) => out.send(p.next_gateway(ctx.id), Msg::TopToken),
                // Counted, not merged: a second token stays a second one.
                Msg::Token | Msg::TopToken => {
                    n.tokens = (n.tokens + 1).min(MAX_TOKENS);
                    out.cancel_timer(Timer::Lost);
                }
                // ReceiveWritten: the critical section is over; release,
                // and pass the token on.
                Msg::Resource(_) if n.script.phase == Phase::Writing => {
                    n.ghost = 0;
                    n.script.released(p.acquisitions);
                    pass(p, ctx.id, n, out);
                }
                Msg::Resource(_) => {}
            },
            (Node::Resource, State::Resource(r)) => r.receive(false, src, msg.resource(), Msg::Resource, out),
            _ => {}
        }
    }

    /// Regenerate: no token for `timeout` ticks; make one.
    fn on_timer(&self, _ctx: &Ctx<'_, Self>, state: &mut State, timer: Timer, _out: &mut Out<Self>) {
        if let (State::Node(n), Timer::Lost) = (state, timer) {
            n.tokens = (n.tokens + 1).min(MAX_TOKENS);
        }
    }

    /// A node restarts afresh, without the token.
    fn restart(&self, ctx: &Ctx<'_, Self>, _durable: &State, out: &mut Out<Self>) -> State {
        let mut state = self.init(ctx, out);
        if let (State::Node(n), Node::Ring(p)) = (&mut state, self) {
            if n.tokens > 0 && p.regenerate == Regenerate::Naive {
                out.set_timer(Timer::Lost, p.timeout);
            }
            n.tokens = 0;
        }
        state
    }
}

impl Renumber for Node {}

/// The most tokens a node counts: two or more are two.
pub const MAX_TOKENS: u8 = 2;

/// Passes every token the node holds to the successor, one `TOKEN` each;
/// a gateway alone on its ring passes the top token to the next gateway
/// instead. With naive regeneration the node starts waiting for the token
/// again.
fn pass(p: &Params, me: Id, n: &mut RingNode, out: &mut Out<Node>) {
    for _ in 0..n.tokens {
        if p.gateway(me) && p.nodes == 1 {
            out.send(p.next_gateway(me), Msg::TopToken);
        } else {
            out.send(p.successor(me), Msg::Token);
        }
    }
    n.tokens = 0;
    if p.regenerate == Regenerate::Naive {
        out.set_timer(Timer::Lost, p.timeout);
    }
}

impl Lock for Node {
    /// A node holds the lock from entering until its write is answered; it
    /// wants it while it waits for the token.
    fn lock_view(_world: &World<Self>, state: &WorldState<Self>) -> LockView {
        scripts_view(state, |s| match s {
            State::Node(n) => Some(n.script),
            State::Resource(_) => None,
        })
    }
}

/// The world of a `token-ring` scenario: nodes `n1`..`nN` in ring order
/// (on a ring of rings `n1.1`.. for ring 1, `n2.1`.. for ring 2, the
/// first of each its gateway), the resource last.
pub fn world(sc: &Scenario) -> Result<World<Node>, ScenarioError> {
    let p = Params::read(sc)?;
    let mut layout = Layout::default();
    for r in 1..=p.rings {
        for i in 1..=p.nodes {
            let name = if p.two_level() {
                format!("n{r}.{i}")
            } else {
                format!("n{i}")
            };
            layout.node(Node::Ring(p), name, Role::Client);
        }
    }
    layout.node(Node::Resource, "resource", Role::Observer);
    Ok(layout.world(sc, Vec::new()))
}
