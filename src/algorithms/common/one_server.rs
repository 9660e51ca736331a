//! The shape of the families with one server (single Redis, etcd): the
//! server is node 0, the clients 1..=n, the resource last, and every node
//! knows the scenario's parameters. Written once, so that such a family's
//! module names its own server, client and parameters and nothing else.

use serde::{Deserialize, Serialize};

use crate::world::Pack;

use super::resource::Resource;
use crate::world::Rewrite;

/// A node of a one-server family, with the scenario's parameters `P`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OneServer<P> {
    Server(P),
    Client(P),
    Resource(P),
}

impl<P> OneServer<P> {
    pub fn params(&self) -> &P {
        match self {
            OneServer::Server(p) | OneServer::Client(p) | OneServer::Resource(p) => p,
        }
    }
}

/// A node's state in a one-server family: its server's `S`, a client's
/// `C`, or the resource's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub enum OneServerState<S, C> {
    Server(#[rewrite] S),
    Client(#[rewrite] C),
    Resource(#[rewrite] Resource),
}

impl<S, C> OneServerState<S, C> {
    pub fn client(&self) -> Option<&C> {
        match self {
            OneServerState::Client(c) => Some(c),
            _ => None,
        }
    }

    pub fn resource(&self) -> Option<&Resource> {
        match self {
            OneServerState::Resource(r) => Some(r),
            _ => None,
        }
    }
}
