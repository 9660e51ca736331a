//! The server program, which node 0 runs as the coordinator and node 1 as
//! its standby: its state, its handlers (ReceiveRequest to Takeover), its timers.

use super::{Msg, Node, Params, Request, Standby, Timer, COORDINATOR, STANDBY};
use crate::algorithms::prelude::*;

/// What a server does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Mode {
    /// Serves requests.
    Coordinator,
    /// Keeps the copy the coordinator replicates, and waits.
    Standby,
    /// A coordinator that restarted after its standby took over (or will):
    /// it answers nothing.
    Retired,
}

/// A server's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Server {
    pub mode: Mode,
    /// Requests waiting, oldest first.
    #[rewrite]
    pub queue: Vec<Request>,
    /// The request granted, and its ghost acquisition number.
    #[rewrite((nested, ghost))]
    pub holder: Option<(Request, u32)>,
    /// `replicated`: the holder's `GRANT` waits for the standby's `ACK`.
    pub replicating: bool,
    /// The coordinator has given its standby up for failed, and serves
    /// without replicating.
    pub alone: bool,
}

/// The server's handlers. Only a serving coordinator answers clients; only
/// a standby takes `REPLICATE` and takes over.
pub(super) fn server_receive(p: &Params, me: Id, s: &mut Server, src: Id, msg: Msg, out: &mut Out<Node>) {
    // The first coordinator replicates to a standby; a standby that took
    // over has none.
    let replicate = p.standby == Standby::Replicated && me == COORDINATOR && !s.alone;
    match (s.mode, msg) {
        // ReceiveRequest: queue the request; grant it if the lock is free.
        (Mode::Coordinator, Msg::Request { id }) => {
            let r = Request { client: src, id };
            match s.holder {
                // The holder asks again for the same request (it learned of
                // a new coordinator before its grant arrived): grant again.
                Some((h, g)) if h == r => {
                    if !s.replicating {
                        out.send(src, Msg::Grant { id, ghost: g });
                    }
                    return;
                }
                // The holder asks with a new request: a request like any
                // other (a client asks again only after its RELEASE, which
                // FIFO links deliver first; a client that restarted
                // without notice has not released).
                _ => {}
            }
            if !s.queue.contains(&r) {
                s.queue.retain(|q| q.client != src);
                s.queue.push(r);
            }
            grant_next(replicate, s, out);
        }
        // ReceiveRelease: the holder's release frees the lock for the head
        // of the queue; any other release is ignored.
        (Mode::Coordinator, Msg::Release { id })
            if s.holder.is_some_and(|(h, _)| h == Request { client: src, id }) && !s.replicating =>
        {
            s.holder = None;
            grant_next(replicate, s, out);
        }
        // ReceiveAck: the standby has the state; grant.
        (Mode::Coordinator, Msg::Ack { id }) => {
            if let Some((h, g)) = s.holder.filter(|(h, _)| s.replicating && h.id == id) {
                s.replicating = false;
                out.send(h.client, Msg::Grant { id, ghost: g });
            }
        }
        // The standby restarted empty: send it the state again, and start
        // the heartbeats again (the one in flight may have been dropped).
        (Mode::Coordinator, Msg::Restarted) if me == COORDINATOR && p.has_standby() => {
            s.alone = false;
            if p.standby == Standby::Replicated {
                out.send(
                    STANDBY,
                    Msg::Replicate {
                        holder: s.holder,
                        queue: s.queue.clone(),
                    },
                );
            }
            if p.heartbeats() {
                out.cancel_timer(Timer::Heartbeat);
                out.send(STANDBY, Msg::Heartbeat);
                out.set_timer(Timer::AckTimeout, p.suspect_after);
            }
        }
        // The standby got the heartbeat: the next one is due in
        // `heartbeat` ticks.
        (Mode::Coordinator, Msg::HeartbeatAck) if me == COORDINATOR && !s.alone => {
            out.cancel_timer(Timer::AckTimeout);
            out.set_timer(Timer::Heartbeat, p.heartbeat);
        }
        // The old coordinator still heartbeats or replicates: it was
        // suspected falsely; tell it who serves now.
        (Mode::Coordinator, Msg::Heartbeat | Msg::Replicate { .. }) if me == STANDBY => {
            out.send(src, Msg::Coordinator);
        }
        // Deposed: the standby serves now. Stop serving.
        (Mode::Coordinator, Msg::Coordinator) if me == COORDINATOR => {
            s.mode = Mode::Retired;
            out.cancel_timer(Timer::Heartbeat);
            out.cancel_timer(Timer::AckTimeout);
        }
        // A client restarted and says so: drop its hold and its request.
        (Mode::Coordinator, Msg::ClientRestarted) => {
            s.queue.retain(|q| q.client != src);
            if s.holder.is_some_and(|(h, _)| h.client == src) {
                s.holder = None;
                s.replicating = false;
            }
            grant_next(replicate, s, out);
        }
        // ReceiveHeartbeat: the coordinator is alive.
        (Mode::Standby, Msg::Heartbeat) => {
            out.set_timer(Timer::Suspect, p.suspect_after);
            out.send(src, Msg::HeartbeatAck);
        }
        // ReceiveReplicate: keep the copy, acknowledge it.
        (Mode::Standby, Msg::Replicate { holder, queue }) => {
            let id = holder.map_or(0, |(h, _)| h.id);
            s.holder = holder;
            s.queue = queue;
            out.send(src, Msg::Ack { id });
        }
        // Takeover: the coordinator restarted without its memory.
        (Mode::Standby, Msg::Restarted) => take_over(p, s, out),
        _ => {}
    }
}

/// Takeover (on `RESTARTED` or a suspicion): serve from the copy (none
/// without replication), and tell every client.
fn take_over(p: &Params, s: &mut Server, out: &mut Out<Node>) {
    s.mode = Mode::Coordinator;
    out.cancel_timer(Timer::Suspect);
    for c in p.clients() {
        out.send(c, Msg::Coordinator);
    }
    grant_next(false, s, out);
}

/// Grants the head of the queue if the lock is free: replicated first
/// when there is a standby to replicate to.
fn grant_next(replicate: bool, s: &mut Server, out: &mut Out<Node>) {
    if s.holder.is_some() || s.queue.is_empty() {
        return;
    }
    let r = s.queue.remove(0);
    let ghost = out.next_ghost();
    s.holder = Some((r, ghost));
    if replicate {
        s.replicating = true;
        out.send(
            STANDBY,
            Msg::Replicate {
                holder: s.holder,
                queue: s.queue.clone(),
            },
        );
    } else {
        out.send(r.client, Msg::Grant { id: r.id, ghost });
    }
}

/// The server's timers: the coordinator's heartbeat and its wait for the
/// acknowledgement, the standby's suspicion.
pub(super) fn server_timer(p: &Params, me: Id, s: &mut Server, timer: Timer, out: &mut Out<Node>) {
    match (timer, s.mode) {
        (Timer::Heartbeat, Mode::Coordinator) if me == COORDINATOR => {
            out.send(STANDBY, Msg::Heartbeat);
            out.set_timer(Timer::AckTimeout, p.suspect_after);
        }
        // The standby is suspected: serve alone, and grant what waited
        // for its ACK.
        (Timer::AckTimeout, Mode::Coordinator) if me == COORDINATOR => {
            s.alone = true;
            if let Some((h, g)) = s.holder.filter(|_| s.replicating) {
                s.replicating = false;
                out.send(h.client, Msg::Grant { id: h.id, ghost: g });
            }
        }
        (Timer::Suspect, Mode::Standby) => take_over(p, s, out),
        _ => {}
    }
}
