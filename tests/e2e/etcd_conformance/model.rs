//! The model's etcd server, driven from outside.

use std::path::Path;

use locksmith::algorithms::etcd_lease::{self as el, Msg};
use locksmith::catalog::parse;
use locksmith::world::{Action, Envelope};

use crate::common::driven::Driven;

use super::{CLIENT, SERVER};

// ---------------------------------------------------------------------------
// The model, driven from outside (as in redis_conformance.rs).

/// The model's server, driven alone (tests/e2e/common/driven.rs).
pub(super) type Model = Driven<el::Node>;

impl Model {
    pub(super) fn new(ttl: u8, delete: bool) -> Model {
        let unlock = if delete { "delete" } else { "compare-and-delete" };
        let text = format!(
            "summary = \"conformance\"\nalgorithm = \"etcd-lease\"\n\
             [system]\nclients = 1\nttl = {ttl}\nunlock = \"{unlock}\"\n\
             [faults]\nmax_delay = 0\n[bounds]\nacquisitions = 1\n"
        );
        let sc = parse(Path::new("conformance.toml"), &text).expect("the conformance scenario is valid");
        let world = el::world(&sc).expect("builds");
        let mut m = Model::start(world, SERVER);
        m.settle();
        m
    }

    /// The client's request, delivered at once; the answers it got.
    pub(super) fn request(&mut self, msg: Msg) -> Vec<Msg> {
        self.settle();
        self.state.net.push(Envelope {
            src: CLIENT,
            dst: SERVER,
            msg: msg.clone(),
            age: 0,
            copied: false,
        });
        self.state.net.sort_by_key(|e| (e.src, e.dst));
        self.act(&Action::Deliver {
            src: CLIENT,
            dst: SERVER,
            msg,
        });
        self.settle();
        // Watch events stay on the network, for `compare_events`.
        let (events, answers): (Vec<Msg>, Vec<Msg>) = self
            .answers()
            .into_iter()
            .partition(|m| matches!(m, Msg::Deleted { .. }));
        self.state.net.extend(events.into_iter().map(|msg| Envelope {
            src: SERVER,
            dst: CLIENT,
            msg,
            age: 0,
            copied: false,
        }));
        answers
    }

    /// The answers that reached the client, taken off the network.
    pub(super) fn answers(&mut self) -> Vec<Msg> {
        let (mine, rest) = std::mem::take(&mut self.state.net)
            .into_iter()
            .partition(|e| e.dst == CLIENT);
        self.state.net = rest;
        mine.into_iter().map(|e: Envelope<Msg>| e.msg).collect()
    }

    pub(super) fn server(&self) -> &el::Server {
        let el::State::Server(s) = &self.state.nodes[SERVER].state else {
            unreachable!("node 0 is the server")
        };
        s
    }

    /// Ticks left on the lease's expiry timer.
    pub(super) fn ttl_left(&self, id: u32) -> Option<u8> {
        let l = self.server().leases.iter().find(|l| l.id == id)?;
        self.state.nodes[SERVER].timer(el::Timer::LeaseExpiry { slot: l.slot })
    }
}
