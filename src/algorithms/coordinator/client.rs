//! A client: its state, its steps (Acquire, Write) and its handlers.

use super::{Msg, Node, Params, Step};
use crate::algorithms::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Client {
    pub script: Script,
    /// The current request id; 0: none.
    #[rewrite(value)]
    pub id: u32,
    /// With a standby: the id of the last request released (0: none),
    /// repeated to a new coordinator.
    #[rewrite(value)]
    pub released: u32,
    /// Ghost: the acquisition number of the grant held.
    #[rewrite(ghost)]
    pub ghost: u32,
    /// The server the client believes is the coordinator.
    pub coordinator: Id,
}

/// The client's steps.
pub(super) fn client_step(p: &Params, c: &mut Client, step: Step, out: &mut Out<Node>) {
    match step {
        // Acquire: REQUEST with a fresh request id.
        Step::Acquire => {
            c.id = out.fresh_value();
            out.send(c.coordinator, Msg::Request { id: c.id });
            c.script.phase = Phase::Acquiring;
        }
        // Write: the critical section's write (no fencing token: 0).
        Step::Write => send_write(&mut c.script, p.resource(), 0, c.ghost, out),
    }
}

/// The client's handlers: a grant counts only for the current request.
pub(super) fn client_receive(p: &Params, c: &mut Client, src: Id, msg: Msg, out: &mut Out<Node>) {
    match (c.script.phase, msg) {
        // ReceiveGrant: the lock is ours.
        (Phase::Acquiring, Msg::Grant { id, ghost }) if id == c.id => {
            c.ghost = ghost;
            c.script.phase = Phase::Holding;
        }
        // A grant of a request already released (a new coordinator that
        // had it queued): give it back.
        (_, Msg::Grant { id, .. }) if id != 0 && id == c.released => out.send(src, Msg::Release { id }),
        // ReceiveWritten: the critical section is over; RELEASE (no answer
        // expected).
        (Phase::Writing, Msg::Resource(_)) => {
            out.send(c.coordinator, Msg::Release { id: c.id });
            c.ghost = 0;
            if p.has_standby() {
                // Only a client that may meet a new coordinator needs its
                // last request id.
                c.released = c.id;
            }
            c.id = 0;
            c.script.released(p.acquisitions);
        }
        // ReceiveCoordinator: repeat the last release, and ask the new
        // coordinator again.
        (phase, Msg::Coordinator) => {
            c.coordinator = src;
            if c.released != 0 {
                out.send(src, Msg::Release { id: c.released });
            }
            if phase == Phase::Acquiring {
                out.send(src, Msg::Request { id: c.id });
            }
        }
        _ => {}
    }
}
