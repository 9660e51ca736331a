//! A Redis master: the lock key with its TTL, a `delayed` restart's
//! silence, and the commands it runs atomically.

use super::{Msg, Node, Params, Timer};
use crate::algorithms::prelude::*;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Master {
    /// The value the key `lock` holds.
    #[rewrite(value)]
    pub key: Option<u32>,
    /// `delayed` restart: answering nothing until the TTL has passed.
    pub recovering: bool,
}

/// A master runs each command atomically; a recovering one answers nothing.
pub(super) fn master_receive(p: &Params, m: &mut Master, src: Id, msg: Msg, out: &mut Out<Node>) {
    if m.recovering {
        return;
    }
    match msg {
        Msg::Lock { value } => {
            let ok = m.key.is_none();
            if ok {
                m.key = Some(value);
                out.set_timer(Timer::KeyExpiry, p.ttl);
            }
            out.send(src, Msg::Locked { value, ok });
        }
        Msg::Unlock { value } if m.key == Some(value) => {
            m.key = None;
            out.cancel_timer(Timer::KeyExpiry);
        }
        _ => {}
    }
}
