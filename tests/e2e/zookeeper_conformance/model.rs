//! The model's ensemble, driven from outside.

use std::path::Path;

use locksmith::algorithms::zookeeper::{self as zkm, Msg};
use locksmith::catalog::parse;
use locksmith::world::{Action, Envelope, Id};

use crate::common::driven::Driven;

use super::{CLIENTS, ENSEMBLE};

// ---------------------------------------------------------------------------
// The model's ensemble, driven from outside.

/// The model's server, driven alone (tests/e2e/common/driven.rs).
pub(super) type Model = Driven<zkm::Node>;

impl Model {
    pub(super) fn new(session_timeout: u8) -> Model {
        // Partitions make deletes take a zxid and keep the parent's pzxid
        // (SetWatches compares it); crashes give each client spare session
        // slots (a crashed client's session lives on until it expires).
        let text = format!(
            "summary = \"conformance\"\nalgorithm = \"zookeeper\"\n\
             [system]\nclients = {CLIENTS}\nsession_timeout = {session_timeout}\nping = 1\n\
             [faults]\npartitions = 1\ncrashes = 3\nmax_delay = 1\ntargets = \"clients\"\n\
             [bounds]\nacquisitions = 1\n"
        );
        let sc = parse(Path::new("conformance.toml"), &text).expect("the conformance scenario is valid");
        let world = zkm::world(&sc).expect("builds");
        Model::start(world, ENSEMBLE)
    }

    /// Client `c`'s message on its way to the ensemble (not delivered).
    pub(super) fn send(&mut self, c: Id, msg: Msg) {
        self.state.net.push(Envelope {
            src: c,
            dst: ENSEMBLE,
            msg,
            age: 0,
            copied: false,
        });
        self.state.net.sort_by_key(|e| (e.src, e.dst));
    }

    /// Client `c`'s request, delivered at once.
    pub(super) fn request(&mut self, c: Id, msg: Msg) {
        self.settle();
        self.send(c, msg.clone());
        self.act(&Action::Deliver {
            src: c,
            dst: ENSEMBLE,
            msg,
        });
        self.settle();
    }

    /// What reached client `c`, taken off the network (pongs dropped).
    pub(super) fn take(&mut self, c: Id) -> Vec<Msg> {
        let (mine, rest) = std::mem::take(&mut self.state.net)
            .into_iter()
            .partition(|e| e.dst == c);
        self.state.net = rest;
        mine.into_iter()
            .map(|e: Envelope<Msg>| e.msg)
            .filter(|m| !matches!(m, Msg::Pong { .. }))
            .collect()
    }

    pub(super) fn ensemble(&self) -> &zkm::Ensemble {
        match &self.state.nodes[ENSEMBLE].state {
            zkm::State::Ensemble(e) => e,
            _ => unreachable!("node 0 is the ensemble"),
        }
    }
}

impl Model {
    /// Puts an event back on its way to client `c` (taken with an answer).
    pub(super) fn send_back(&mut self, c: Id, msg: Msg) {
        self.state.net.push(Envelope {
            src: ENSEMBLE,
            dst: c,
            msg,
            age: 0,
            copied: false,
        });
        self.state.net.sort_by_key(|e| (e.src, e.dst));
    }
}
