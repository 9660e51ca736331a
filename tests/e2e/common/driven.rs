//! A model server driven alone, as the etcd and ZooKeeper conformance
//! suites drive it: the test injects the clients' requests and reads the
//! answers, and the server runs its own steps at once (its due timers
//! first, then the messages to it), never a client's.

use locksmith::world::{Action, Id, Program, World, WorldState};

pub struct Driven<A: Program> {
    pub world: World<A>,
    pub state: WorldState<A>,
    /// The node that runs by itself.
    server: Id,
}

impl<A: Program> Driven<A> {
    /// The world in its initial state, nothing run yet.
    pub fn start(world: World<A>, server: Id) -> Driven<A> {
        let state = world.init();
        Driven { world, state, server }
    }

    /// Takes `a` if it is enabled.
    pub fn act(&mut self, a: &Action<A>) {
        if let Some(s) = self.world.after_unranked(&self.state, a) {
            self.state = s;
        }
    }

    /// Runs the server until it has nothing left to do: its due timers
    /// first, then the messages to it.
    pub fn settle(&mut self) {
        let server = self.server;
        for _ in 0..10_000 {
            let mut actions = Vec::new();
            self.world.enabled(&self.state, &mut actions);
            let next = actions
                .iter()
                .find(|a| matches!(a, Action::Fire { node, .. } if *node == server))
                .or_else(|| {
                    actions
                        .iter()
                        .find(|a| matches!(a, Action::Deliver { dst, .. } if *dst == server))
                })
                .cloned();
            match next {
                Some(a) => self.act(&a),
                None => return,
            }
        }
        panic!("the model's server never settles");
    }

    /// One tick of real time, with what falls due before and after it.
    pub fn tick(&mut self) {
        self.settle();
        self.act(&Action::Tick);
        self.settle();
    }
}
