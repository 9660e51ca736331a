//! The model's side: its world driven from outside, the key as it holds it, and its answers.

use locksmith::world::{Action, Envelope, Id, Program, World, WorldState};

use super::real_server::KeyState;

/// The model's world, driven from outside: the test's client (`client`)
/// sends requests, and everything else (server timers due, server steps
/// such as replication, messages between servers) runs at once, due
/// timers first.
pub(super) struct Model<A: Program> {
    world: World<A>,
    pub(super) state: WorldState<A>,
    client: Id,
}

impl<A: Program> Model<A> {
    pub(super) fn new(world: World<A>, client: Id) -> Model<A> {
        let state = world.init();
        let mut m = Model { world, state, client };
        m.settle();
        m
    }

    pub(super) fn act_in(&mut self, world_of: Option<&World<A>>, a: &Action<A>) {
        let w = world_of.unwrap_or(&self.world);
        if let Some(s) = w.after_unranked(&self.state, a) {
            self.state = s;
        }
    }

    pub(super) fn act(&mut self, a: &Action<A>) {
        self.act_in(None, a);
    }

    /// Runs every server-side action until none is left: timers due first,
    /// then steps, then one delivery at a time (not to the client).
    pub(super) fn settle(&mut self) {
        for _ in 0..10_000 {
            let mut actions = Vec::new();
            self.world.enabled(&self.state, &mut actions);
            let client = self.client;
            let next = actions
                .iter()
                .find(|a| matches!(a, Action::Fire { node, .. } if *node != client))
                .or_else(|| {
                    actions
                        .iter()
                        .find(|a| matches!(a, Action::Step { node, .. } if *node != client))
                })
                .or_else(|| {
                    actions
                        .iter()
                        .find(|a| matches!(a, Action::Deliver { dst, .. } if *dst != client))
                })
                .cloned();
            match next {
                Some(a) => self.act(&a),
                None => return,
            }
        }
        panic!("the model's servers never settle");
    }

    /// One tick of real time, then whatever falls due.
    pub(super) fn tick(&mut self) {
        self.settle();
        self.act(&Action::Tick);
        self.settle();
    }

    /// The client's request to `dst`, delivered at once.
    pub(super) fn request(&mut self, dst: Id, msg: A::Msg) {
        self.settle();
        self.state.net.push(Envelope {
            src: self.client,
            dst,
            msg: msg.clone(),
            age: 0,
            copied: false,
        });
        self.state.net.sort_by_key(|e| (e.src, e.dst));
        self.act(&Action::Deliver {
            src: self.client,
            dst,
            msg,
        });
        self.settle();
    }

    /// The answers that reached the client, taken off the network.
    pub(super) fn answers(&mut self) -> Vec<A::Msg> {
        let client = self.client;
        let (mine, rest) = std::mem::take(&mut self.state.net)
            .into_iter()
            .partition(|e| e.dst == client);
        self.state.net = rest;
        mine.into_iter().map(|e: Envelope<A::Msg>| e.msg).collect()
    }
}

pub(super) fn model_key(key: Option<u32>, expiry: Option<u8>) -> Option<KeyState> {
    key.map(|value| KeyState {
        value,
        ttl: expiry.map(u32::from),
    })
}

/// What one command answered, in the model's terms.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Answer {
    Granted {
        token: u32,
    },
    Refused,
    /// A command whose answer the model does not distinguish (module doc).
    Done,
    TimedOut,
}
