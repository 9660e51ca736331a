//! The etcd server: its lease table, keys and watches, and its handlers,
//! ReceiveLeaseGrant to ReceiveUnlock and then the LeaseExpiry timer.

use super::{Msg, Node, Params, Timer, Unlock};
use crate::algorithms::prelude::*;

/// A lease: the slot of the lease table that holds it (see the module's
/// modelling choices), and its ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub struct Lease {
    pub slot: u8,
    #[rewrite(value)]
    pub id: u32,
}

/// The key `/lock/<lease>`, attached to that lease; `create` is its create
/// revision; `ghost` numbers the acquisition for the properties only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub struct Key {
    #[rewrite(token)]
    pub create: u32,
    #[rewrite(value)]
    pub lease: u32,
    #[rewrite(ghost)]
    pub ghost: u32,
}

/// A watch on `/lock/<key>` for the DELETE event, made by the attempt
/// `id` of client `watcher`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub struct Watch {
    pub watcher: Id,
    #[rewrite(value)]
    pub id: u32,
    #[rewrite(value)]
    pub key: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Server {
    /// The store's revision: every write transaction moves it on.
    #[rewrite(token)]
    pub revision: u32,
    /// Live leases, by slot.
    #[rewrite]
    pub leases: Vec<Lease>,
    /// Keys under `/lock/`, by create revision.
    #[rewrite]
    pub keys: Vec<Key>,
    /// Watches waiting for a DELETE, sorted.
    #[rewrite]
    pub watches: Vec<Watch>,
}

/// The server executes one request atomically: etcd is linearizable.
pub(super) fn server_receive(p: &Params, s: &mut Server, src: Id, msg: Msg, out: &mut Out<Node>) {
    match msg {
        // A new lease, in the lowest free slot.
        // A grant the client sent again on a new connection (clientv3
        // retries `LeaseGrant`) for a lease granted already: a new full
        // TTL, as the second lease real etcd would grant (the first, an
        // orphan, holds no key).
        Msg::LeaseGrant { id } => {
            let slot = match s.leases.iter().find(|l| l.id == id) {
                Some(l) => l.slot,
                None => {
                    let slot = (0..).find(|n| s.leases.iter().all(|l| l.slot != *n)).unwrap_or(0);
                    s.leases.push(Lease { slot, id });
                    s.leases.sort();
                    slot
                }
            };
            out.set_timer(Timer::LeaseExpiry { slot }, p.ttl);
            out.send(src, Msg::LeaseGranted { id });
        }
        Msg::LeaseKeepAlive { id } => {
            let alive = s.leases.iter().any(|l| l.id == id);
            if let Some(l) = s.leases.iter().find(|l| l.id == id) {
                out.set_timer(Timer::LeaseExpiry { slot: l.slot }, p.ttl);
            }
            out.send(src, Msg::KeepAliveAnswer { id, alive });
        }
        Msg::LeaseRevoke { id } => {
            if let Some(i) = s.leases.iter().position(|l| l.id == id) {
                let lease = s.leases.remove(i);
                out.cancel_timer(Timer::LeaseExpiry { slot: lease.slot });
                delete_keys_of(s, id, out);
            }
        }
        Msg::Lock { id } => {
            if !s.leases.iter().any(|l| l.id == id) {
                out.send(src, Msg::LeaseNotFound { id });
                return;
            }
            let key = match s.keys.iter().find(|k| k.lease == id) {
                Some(k) => *k,
                None => {
                    s.revision += 1;
                    let k = Key {
                        create: s.revision,
                        lease: id,
                        ghost: out.next_ghost(),
                    };
                    s.keys.push(k);
                    k
                }
            };
            let pred = predecessor(s, id, key.create);
            out.send(
                src,
                Msg::Locked {
                    id,
                    rev: key.create,
                    pred,
                    ghost: key.ghost,
                },
            );
        }
        // A watch from a revision before the delete: an already deleted key
        // gives its event at once.
        // A watch resumed on a new connection replaces the old stream's.
        Msg::Watch { id, key } => {
            if s.keys.iter().any(|k| k.lease == key) {
                let w = Watch { watcher: src, id, key };
                if !s.watches.contains(&w) {
                    s.watches.push(w);
                    s.watches.sort();
                }
            } else {
                out.send(src, Msg::Deleted { id, key });
            }
        }
        Msg::Range { id, rev } => {
            let pred = predecessor(s, id, rev);
            let mine = s.keys.iter().any(|k| k.lease == id);
            out.send(src, Msg::RangeAnswer { id, pred, mine });
        }
        // Compare-and-delete deletes only the key this lock created, never
        // another's; a plain delete, the key of that name.
        Msg::Unlock { id, rev } => {
            let plain = p.unlock == Unlock::Delete;
            if let Some(i) = s.keys.iter().position(|k| k.lease == id && (plain || k.create == rev)) {
                s.keys.remove(i);
                s.revision += 1;
                notify(s, id, out);
            } else if s.keys.iter().any(|k| k.lease == id) {
                out.raise(FOREIGN_RELEASE);
            }
            out.send(src, Msg::Unlocked { id });
        }
        _ => {}
    }
}

/// The server's timer: the lease's TTL ran out on the server's clock, and
/// it and its keys are gone.
pub(super) fn server_timer(s: &mut Server, timer: Timer, out: &mut Out<Node>) {
    if let Timer::LeaseExpiry { slot } = timer {
        if let Some(i) = s.leases.iter().position(|l| l.slot == slot) {
            let lease = s.leases.remove(i);
            delete_keys_of(s, lease.id, out);
        }
    }
}

/// Deletes the keys attached to lease `id` (one write transaction: one
/// revision) and sends their watchers the DELETE events.
fn delete_keys_of(s: &mut Server, id: u32, out: &mut Out<Node>) {
    if s.keys.iter().any(|k| k.lease == id) {
        s.keys.retain(|k| k.lease != id);
        s.revision += 1;
        notify(s, id, out);
    }
}

/// The DELETE event of `/lock/<key>` to every watcher of it.
fn notify(s: &mut Server, key: u32, out: &mut Out<Node>) {
    for w in s.watches.iter().filter(|w| w.key == key) {
        out.send(w.watcher, Msg::Deleted { id: w.id, key });
    }
    s.watches.retain(|w| w.key != key);
}

/// The newest key created before revision `below`, other than lease
/// `id`'s; 0 for none.
fn predecessor(s: &Server, id: u32, below: u32) -> u32 {
    s.keys
        .iter()
        .filter(|k| k.lease != id && k.create < below)
        .max_by_key(|k| k.create)
        .map_or(0, |k| k.lease)
}
