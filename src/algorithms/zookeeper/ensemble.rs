//! The ensemble, one linearizable server: its state (sessions, the
//! children of `/lock`, watches), its handlers and its SessionExpiry.

use super::{Child, Msg, Node, Params, Timer};
use crate::algorithms::prelude::*;

/// A znode and the session that owns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub struct Znode {
    #[rewrite]
    pub child: Child,
    #[rewrite(value)]
    pub session: u32,
    /// Ghost: numbers the node in creation order, which is the order in
    /// which the recipe grants the lock (a node holds only once every
    /// lower node is gone). `no_stale_write` compares these numbers: a
    /// client that acts on an answer the ensemble gave before its session
    /// expired acquired under its own, earlier, number.
    #[rewrite(ghost)]
    pub ghost: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Ensemble {
    /// The last zxid handed out.
    #[rewrite(token)]
    pub zxid: u32,
    /// Session ids by slot (`Params::slots_of`), 0 for a free slot.
    #[rewrite(value)]
    pub sessions: Vec<u32>,
    /// The children of `/lock`, by czxid.
    #[rewrite]
    pub children: Vec<Znode>,
    /// `exists` watches: (watched czxid, watching session), sorted.
    #[rewrite((token, value))]
    pub data_watches: Vec<(u32, u32)>,
    /// `getChildren /lock` watches: watching sessions, sorted.
    #[rewrite(value)]
    pub child_watches: Vec<u32>,
    /// The zxid of the last create or delete under `/lock` (its `pzxid`),
    /// kept where connections can break (`Params::connections`), else 0.
    #[rewrite(token)]
    pub pzxid: u32,
}

/// The ensemble executes one request at a time, in order (linearizable).
/// Every request on a live session resets the session's expiry.
pub(super) fn ensemble_receive(p: &Params, e: &mut Ensemble, src: Id, msg: Msg, out: &mut Out<Node>) {
    let session = match &msg {
        Msg::Connect { session }
        | Msg::Reconnect { session, .. }
        | Msg::Create { session, .. }
        | Msg::GetChildren { session, .. }
        | Msg::Exists { session, .. }
        | Msg::Delete { session, .. }
        | Msg::Ping { session }
        | Msg::CloseSession { session } => *session,
        _ => return,
    };
    if let Msg::Connect { session } = msg {
        // The client's first free slot (one exists: see Params::slots).
        if let Some(slot) = p.slots_of(src).find(|&i| e.sessions[i] == 0) {
            e.sessions[slot] = session;
            out.set_timer(Timer::SessionExpiry { slot: slot as u8 }, p.session_timeout);
        }
        return;
    }
    let Some(slot) = p.slots_of(src).find(|&i| e.sessions[i] == session) else {
        if !matches!(msg, Msg::CloseSession { .. }) {
            out.send(src, Msg::SessionExpired { session });
        }
        return;
    };
    out.set_timer(Timer::SessionExpiry { slot: slot as u8 }, p.session_timeout);
    match msg {
        Msg::Create { value, mode, .. } => {
            e.zxid += 1;
            let child = Child {
                czxid: e.zxid,
                mode,
                guid: value,
            };
            let ghost = out.next_ghost();
            e.children.push(Znode { child, session, ghost });
            if p.connections() {
                e.pzxid = e.zxid;
            }
            children_changed(p, e, out);
            out.send(src, Msg::Created { value, node: e.zxid });
        }
        Msg::GetChildren { value, watch, .. } => {
            if watch && !e.child_watches.contains(&session) {
                e.child_watches.push(session);
                e.child_watches.sort_unstable();
            }
            let children = e.children.iter().map(|z| z.child).collect();
            let ghost = e.children.iter().find(|z| z.child.guid == value).map_or(0, |z| z.ghost);
            let zxid = if p.connections() { e.zxid } else { 0 };
            out.send(
                src,
                Msg::Children {
                    value,
                    children,
                    ghost,
                    zxid,
                },
            );
        }
        Msg::Exists { value, node, .. } => {
            let exists = e.children.iter().any(|z| z.child.czxid == node);
            // A sequential name is never reused, so a watch on a node that
            // is gone could never fire: it is left out.
            if exists && !e.data_watches.contains(&(node, session)) {
                e.data_watches.push((node, session));
                e.data_watches.sort_unstable();
            }
            out.send(src, Msg::Stat { value, exists });
        }
        Msg::Delete { value, node, .. } => {
            if let Some(i) = e.children.iter().position(|z| z.child.czxid == node) {
                if e.children[i].session != session {
                    out.raise(FOREIGN_RELEASE);
                }
                e.children.remove(i);
                deleted(p, e);
                node_deleted(p, e, node, out);
                children_changed(p, e, out);
            }
            out.send(src, Msg::Deleted { value });
        }
        // The session's new connection: the old one's watches go with it
        // (the server closes it, and removeCnxn drops its watches), and
        // SetWatches registers the client's again, firing at once every
        // event it missed (DataTree.setWatches: a watched node that is gone
        // fires NodeDeleted; a child watch on a parent whose pzxid is past
        // the client's zxid fires NodeChildrenChanged).
        Msg::Reconnect {
            zxid, node, children, ..
        } => {
            e.data_watches.retain(|(_, s)| *s != session);
            e.child_watches.retain(|s| *s != session);
            if node != 0 {
                if e.children.iter().any(|z| z.child.czxid == node) {
                    e.data_watches.push((node, session));
                    e.data_watches.sort_unstable();
                } else {
                    out.send(src, Msg::NodeDeleted { session, node });
                }
            }
            if children {
                if e.pzxid > zxid {
                    out.send(src, Msg::NodeChildrenChanged { session });
                } else {
                    e.child_watches.push(session);
                    e.child_watches.sort_unstable();
                }
            }
        }
        Msg::Ping { .. } => out.send(src, Msg::Pong { session }),
        Msg::CloseSession { .. } => {
            e.sessions[slot] = 0;
            out.cancel_timer(Timer::SessionExpiry { slot: slot as u8 });
            close(p, e, session, out);
        }
        _ => {}
    }
}

/// SessionExpiry: the session in `slot` has heard nothing for
/// `session_timeout` ticks and ends.
pub(super) fn session_expiry(p: &Params, e: &mut Ensemble, slot: u8, out: &mut Out<Node>) {
    let session = e.sessions[slot as usize];
    e.sessions[slot as usize] = 0;
    close(p, e, session, out);
}

/// The client whose session this is, if the session is live.
fn owner(p: &Params, sessions: &[u32], session: u32) -> Option<Id> {
    sessions
        .iter()
        .position(|s| *s == session)
        .map(|i| i / p.slots as usize + 1)
}

/// A session ends (expired or closed): its watches go, and its ephemeral
/// nodes are deleted, firing the watches on them.
fn close(p: &Params, e: &mut Ensemble, session: u32, out: &mut Out<Node>) {
    e.data_watches.retain(|(_, s)| *s != session);
    e.child_watches.retain(|s| *s != session);
    while let Some(i) = e.children.iter().position(|z| z.session == session) {
        let node = e.children.remove(i).child.czxid;
        deleted(p, e);
        node_deleted(p, e, node, out);
        children_changed(p, e, out);
    }
}

/// A delete under `/lock` is a transaction: where connections can break,
/// it takes the next zxid, which becomes the parent's pzxid.
fn deleted(p: &Params, e: &mut Ensemble) {
    if p.connections() {
        e.zxid += 1;
        e.pzxid = e.zxid;
    }
}

/// Fires the `exists` watches on `node`, which was just deleted.
fn node_deleted(p: &Params, e: &mut Ensemble, node: u32, out: &mut Out<Node>) {
    let sessions = &e.sessions;
    e.data_watches.retain(|&(n, session)| {
        if n != node {
            return true;
        }
        if let Some(c) = owner(p, sessions, session) {
            out.send(c, Msg::NodeDeleted { session, node });
        }
        false
    });
}

/// Fires every `getChildren /lock` watch (one-shot).
fn children_changed(p: &Params, e: &mut Ensemble, out: &mut Out<Node>) {
    for session in std::mem::take(&mut e.child_watches) {
        if let Some(c) = owner(p, &e.sessions, session) {
            out.send(c, Msg::NodeChildrenChanged { session });
        }
    }
}
