//! The Redis server: the lock key `lock` with its TTL, the fencing counter,
//! and the commands it executes atomically.

use super::{Msg, Node, Params, Timer};
use crate::algorithms::prelude::*;

/// The lock key `lock`: the value of the attempt that set it; `ghost`
/// numbers the acquisition in grant order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Key {
    #[rewrite(value)]
    pub value: u32,
    #[rewrite(ghost)]
    pub ghost: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Server {
    #[rewrite]
    pub key: Option<Key>,
    /// The fencing counter (`INCR lock:fence`): a token, which the
    /// family's `Renumber` visits where it may.
    pub fence: u32,
}

/// The server executes one command atomically, as Redis does.
pub(super) fn server_receive(p: &Params, s: &mut Server, src: Id, msg: Msg, out: &mut Out<Node>) {
    match msg {
        Msg::SetNx { value } | Msg::SetNxPx { value } => {
            if s.key.is_some() {
                out.send(src, Msg::Refused { value });
                return;
            }
            let ghost = out.next_ghost();
            s.key = Some(Key { value, ghost });
            if matches!(msg, Msg::SetNxPx { .. }) {
                out.set_timer(Timer::KeyExpiry, p.ttl);
            }
            if p.fencing {
                s.fence += 1;
            }
            out.send(
                src,
                Msg::Granted {
                    value,
                    token: s.fence,
                    ghost,
                },
            );
        }
        Msg::Expire { value } => {
            if s.key.is_some() {
                out.set_timer(Timer::KeyExpiry, p.ttl);
            }
            out.send(src, Msg::ExpireSet { value });
        }
        // DEL deletes whatever key is there: a foreign release when it is
        // not the lock this release was for.
        Msg::Del { value } => {
            if let Some(k) = s.key.take() {
                if k.value != value {
                    out.raise(FOREIGN_RELEASE);
                }
                out.cancel_timer(Timer::KeyExpiry);
            }
            out.send(src, Msg::Released { value });
        }
        Msg::CompareAndDelete { value } => {
            if s.key.is_some_and(|k| k.value == value) {
                s.key = None;
                out.cancel_timer(Timer::KeyExpiry);
            }
            out.send(src, Msg::Released { value });
        }
        Msg::Renew { value } if s.key.is_some_and(|k| k.value == value) => out.set_timer(Timer::KeyExpiry, p.ttl),
        _ => {}
    }
}
