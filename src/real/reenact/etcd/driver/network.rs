//! What the trace's network does on the real side: a delivery becomes a
//! request to etcd, an answer handed to a client, or a write to the
//! resource; a loss or a partition breaks the client's gRPC connection.

use super::plan::SERVER;
use super::Driver;
use crate::algorithms::etcd_lease::{Msg, Node};
use crate::algorithms::resource::ResourceMsg;
use crate::world::{Id, WorldState};

impl Driver<'_> {
    /// A delivery: to etcd, a request sent now; to a client, etcd's held
    /// answer handed over; to or from the resource, the write or its answer.
    pub(super) fn deliver(
        &mut self,
        k: usize,
        src: Id,
        dst: Id,
        msg: &Msg,
        before: &WorldState<Node>,
        after: &WorldState<Node>,
    ) -> String {
        if let Msg::Resource(m) = msg {
            return match (self.index(src), self.index(dst)) {
                (Some(c), None) => self.resource_write(k, c),
                (None, Some(c)) => self.resource_answer(c, m),
                _ => "nothing real".into(),
            };
        }
        if dst == SERVER {
            let Some(c) = self.index(src) else {
                return "nothing real".into();
            };
            return self.send(k, c, msg);
        }
        let Some(c) = self.index(dst) else {
            return "nothing real".into();
        };
        self.hand_over(c, dst, msg, before, after)
    }

    fn resource_write(&mut self, k: usize, c: usize) -> String {
        let cl = &self.clients[c];
        if cl.skipped_write || cl.down {
            return format!("c{} made no write", c + 1);
        }
        self.store
            .write(&mut self.witness, k, c, cl.acquisition, cl.rev, "real revision")
    }

    fn resource_answer(&mut self, c: usize, model: &ResourceMsg) -> String {
        let Some(ok) = self.store.answer(c) else {
            return format!("c{} gets no answer: it made no write", c + 1);
        };
        format!(
            "c{} learns its write was {} (the trace: {model:?})",
            c + 1,
            if ok { "accepted" } else { "rejected (fencing)" }
        )
    }

    /// A lost message: on a client's link to etcd it breaks the gRPC
    /// connection (model: docs/design.md §2), so the driver closes it.
    pub(super) fn lose(&mut self, src: Id, dst: Id, msg: &Msg) -> String {
        if let Msg::Resource(_) = msg {
            if let Some(c) = self.index(dst) {
                self.store.answer(c);
                return format!("the resource's answer to c{} is dropped", c + 1);
            }
            if let Some(c) = self.index(src) {
                self.clients[c].skipped_write = true;
                return format!("c{}'s write never reaches the resource", c + 1);
            }
            return "nothing real".into();
        }
        let c = self.index(src).or(self.index(dst));
        match c {
            Some(c) => {
                self.clients[c].drop_connection();
                format!(
                    "c{}'s connection to etcd is closed (a loss breaks a gRPC connection); {}",
                    c + 1,
                    if dst == SERVER {
                        "the request is never sent"
                    } else {
                        "held answers are dropped"
                    }
                )
            }
            None => "nothing real".into(),
        }
    }

    pub(super) fn partition(&mut self, a: Id, b: Id) -> String {
        let c = match (a, b) {
            (SERVER, x) | (x, SERVER) => self.index(x),
            _ => None,
        };
        match c {
            Some(c) => {
                self.clients[c].proxy.cut();
                self.clients[c].drop_connection();
                format!(
                    "c{}'s proxy drops its connection to etcd and refuses new ones until the heal",
                    c + 1
                )
            }
            None => format!(
                "nothing real to cut between {} and {}: no connection runs there (the resource is in-process and gets only what the trace delivers)",
                self.name(a),
                self.name(b)
            ),
        }
    }
}
