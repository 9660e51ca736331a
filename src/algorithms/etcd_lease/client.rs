//! An etcd client: its attempt's state, its steps (Acquire, Check, Write),
//! its answer handlers and its timers.

use super::{Msg, Node, Params, Step, Timer, SERVER};
use crate::algorithms::prelude::*;

/// Where an acquisition attempt is (within `Phase::Acquiring`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack)]
pub enum Stage {
    /// `LeaseGrant` sent.
    Grant,
    /// The lock transaction (put and predecessor) sent.
    Put,
    /// Watching the predecessor's key.
    Watch,
    /// The range transaction (predecessor and own key) sent.
    Range,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Client {
    pub script: Script,
    /// Within `Acquiring`: what the attempt waits for.
    pub stage: Stage,
    /// The session's lease ID, drawn fresh per attempt (0 between attempts).
    #[rewrite(value)]
    pub lease: u32,
    /// Its key's create revision: the fencing token (0 until known).
    #[rewrite(token)]
    pub rev: u32,
    /// Within `Stage::Watch`: the predecessor's key it watches (0 for none).
    #[rewrite(value)]
    pub pred: u32,
    /// Validity client: checked its validity timer and found time left.
    pub checked: bool,
    #[rewrite(ghost)]
    pub ghost: u32,
}

impl Client {
    pub(super) fn fresh(acquisitions: u8) -> Self {
        Client {
            script: Script::new(acquisitions),
            stage: Stage::Grant,
            lease: 0,
            rev: 0,
            pred: 0,
            checked: false,
            ghost: 0,
        }
    }

    /// Drops what only mattered to the attempt or the hold that just ended,
    /// so equal situations are equal states.
    fn forget(&mut self) {
        self.stage = Stage::Grant;
        self.lease = 0;
        self.rev = 0;
        self.pred = 0;
        self.checked = false;
        self.ghost = 0;
    }
}

/// The client's steps.
pub(super) fn client_step(
    p: &Params,
    ctx: &Ctx<'_, Node>,
    c: &mut Client,
    step: Step,
    resource: Id,
    out: &mut Out<Node>,
) {
    match step {
        // Acquire: a new session, with a fresh lease ID.
        Step::Acquire => {
            c.lease = out.fresh_value();
            out.send(SERVER, Msg::LeaseGrant { id: c.lease });
            out.set_timer(Timer::Timeout, p.timeout);
            c.stage = Stage::Grant;
            c.script.phase = Phase::Acquiring;
        }
        // Check: is there more than the margin left? Only then write.
        Step::Check => {
            if ctx.timer(Timer::Validity).is_some_and(|v| v > p.margin) {
                c.checked = true;
            } else {
                start_over(p, c, out);
            }
        }
        // Write: the critical section's write, with the create revision
        // as token if fenced.
        Step::Write => {
            let token = if p.fencing { c.rev } else { 0 };
            send_write(&mut c.script, resource, token, c.ghost, out);
        }
    }
}

/// The client's answer handler: an answer whose lease ID is not the current
/// attempt's answers an earlier request, and is ignored.
pub(super) fn client_receive(p: &Params, c: &mut Client, msg: Msg, out: &mut Out<Node>) {
    let acquiring = |stage| c.script.phase == Phase::Acquiring && c.stage == stage;
    match msg {
        // `NewSession` calls `KeepAlive` right after the grant, and
        // `KeepAlive` sets `nextKeepAlive = time.Now()`: the first
        // keep-alive goes out at once.
        Msg::LeaseGranted { id } if id == c.lease && acquiring(Stage::Grant) => {
            if p.validity() {
                match validity_left(p.ttl, Some(0), p.drift) {
                    Some(v) => out.set_timer(Timer::Validity, v),
                    None => return start_over(p, c, out),
                }
            }
            out.send(SERVER, Msg::LeaseKeepAlive { id });
            out.send(SERVER, Msg::Lock { id });
            out.set_timer(Timer::Timeout, p.timeout);
            c.stage = Stage::Put;
        }
        // `recvKeepAlive`: the next keep-alive TTL/3 after this answer; a
        // TTL of 0 closes the keep-alive (no more are sent).
        Msg::KeepAliveAnswer { id, alive } if id == c.lease => {
            if alive {
                out.set_timer(Timer::KeepAlive, p.keep_alive_every());
                if p.validity() {
                    if let Some(v) = validity_left(p.ttl, Some(0), p.drift) {
                        out.set_timer(Timer::Validity, v);
                    }
                }
            } else if p.validity() {
                lease_lost(p, c, out);
            }
        }
        Msg::Locked { id, rev, pred, ghost } if id == c.lease && acquiring(Stage::Put) => {
            out.cancel_timer(Timer::Timeout);
            c.rev = rev;
            c.ghost = ghost;
            wait_for(c, pred, out);
        }
        Msg::LeaseNotFound { id } if id == c.lease && acquiring(Stage::Put) => start_over(p, c, out),
        Msg::Deleted { id, key } if id == c.lease && key == c.pred && acquiring(Stage::Watch) => {
            out.send(SERVER, Msg::Range { id, rev: c.rev });
            out.set_timer(Timer::Timeout, p.timeout);
            c.stage = Stage::Range;
        }
        Msg::RangeAnswer { id, pred, mine } if id == c.lease && acquiring(Stage::Range) => {
            out.cancel_timer(Timer::Timeout);
            if mine || !p.key_check {
                wait_for(c, pred, out);
            } else {
                // ErrSessionExpired: the lease expired while it waited.
                start_over(p, c, out);
            }
        }
        // Release: the write is answered, so the critical section is over.
        Msg::Resource(ResourceMsg::Accepted | ResourceMsg::Rejected) if c.script.phase == Phase::Writing => {
            out.send(
                SERVER,
                Msg::Unlock {
                    id: c.lease,
                    rev: c.rev,
                },
            );
            out.set_timer(Timer::Timeout, p.timeout);
            c.script.phase = Phase::Releasing;
        }
        Msg::Unlocked { id } if id == c.lease && c.script.phase == Phase::Releasing => {
            out.cancel_timer(Timer::Timeout);
            released(p, c, out);
        }
        _ => {}
    }
}

/// The client's timers. `Retry` has none of its own: while it runs, the
/// client's Acquire waits.
pub(super) fn client_timer(p: &Params, c: &mut Client, timer: Timer, out: &mut Out<Node>) {
    match timer {
        Timer::Timeout => match c.script.phase {
            Phase::Acquiring => start_over(p, c, out),
            Phase::Releasing => released(p, c, out),
            _ => {}
        },
        // `sendKeepAliveLoop`: the keep-alive is due; the next waits
        // for its answer.
        Timer::KeepAlive if c.lease != 0 => {
            out.send(SERVER, Msg::LeaseKeepAlive { id: c.lease });
        }
        // The lease's TTL ran out on the client's clock: the session
        // has expired, unless the client is past its check.
        Timer::Validity => lease_lost(p, c, out),
        _ => {}
    }
}

/// No predecessor: the client holds; otherwise it watches it.
fn wait_for(c: &mut Client, pred: u32, out: &mut Out<Node>) {
    if pred == 0 {
        c.script.phase = Phase::Holding;
        c.pred = 0;
    } else {
        out.send(SERVER, Msg::Watch { id: c.lease, key: pred });
        c.stage = Stage::Watch;
        c.pred = pred;
    }
}

/// `Session.Close`: revoke the lease (not waiting for the answer) and stop
/// keeping it alive.
fn close_session(c: &Client, out: &mut Out<Node>) {
    out.send(SERVER, Msg::LeaseRevoke { id: c.lease });
    out.cancel_timer(Timer::KeepAlive);
    out.cancel_timer(Timer::Validity);
    out.cancel_timer(Timer::Timeout);
}

/// The attempt failed (a timeout, the lease gone, a validity too short):
/// close the session and try again after the back-off.
pub(super) fn start_over(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    close_session(c, out);
    c.script.phase = Phase::Want;
    c.forget();
    out.set_timer(Timer::Retry, p.retry);
}

/// A validity client learns (its timer, or a TTL-0 answer) that its lease
/// is gone: an attempt, or a hold it has not checked yet, is over.
fn lease_lost(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    let unchecked = c.script.phase == Phase::Holding && !c.checked;
    if c.script.phase == Phase::Acquiring || unchecked {
        start_over(p, c, out);
    }
}

/// The unlock is over (answered, or timed out): close the session.
pub(super) fn released(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    close_session(c, out);
    c.script.released(p.acquisitions);
    c.forget();
}
