//! The clients: their state, their steps (Acquire, Check, Write), their
//! handlers for Redis's and Sentinel's answers, and their timers.

use super::{ClientKind, Elapsed, Msg, Node, Params, Timer, PRIMARY};
use crate::algorithms::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Client {
    pub script: Script,
    /// The node the client believes is the primary.
    pub primary: Id,
    /// The lock value of the current attempt, from its `SET` until the
    /// attempt fails or the release ends (0: none).
    #[rewrite(value)]
    pub value: u32,
    /// `wait` without `pipeline`: its `SET` was answered `OK` and its
    /// `WAIT` is out.
    pub waiting: bool,
    /// Validity client: checked its validity timer and found time left,
    /// so about to write.
    pub checked: bool,
    #[rewrite(ghost)]
    pub ghost: u32,
}

/// Init: a client that believes the initial primary is the primary.
pub(super) fn client_init(p: &Params) -> Client {
    Client {
        script: Script::new(p.acquisitions),
        primary: PRIMARY,
        value: 0,
        waiting: false,
        checked: false,
        ghost: 0,
    }
}

/// Acquire: SET lock value NX PX ttl, with a fresh value, to the
/// node believed primary, with a request timeout.
pub(super) fn acquire(node: &Node, c: &mut Client, out: &mut Out<Node>) {
    c.value = out.fresh_value();
    out.send(c.primary, Msg::SetNxPx { value: c.value });
    out.set_timer(Timer::Timeout, node.params().timeout);
    if node.validity() {
        out.start_watch(Elapsed);
    }
    c.script.phase = Phase::Acquiring;
}

/// Check: is there more validity left than the margin? Only then
/// use the resource; otherwise give the lock up.
pub(super) fn check(node: &Node, ctx: &Ctx<'_, Node>, c: &mut Client, out: &mut Out<Node>) {
    let p = node.params();
    c.checked = validity_holds(ctx, Timer::Validity, p.margin, out);
    if !c.checked {
        give_up(p, c, out);
    }
}

/// Write: the critical section's write.
pub(super) fn write(node: &Node, c: &mut Client, out: &mut Out<Node>) {
    send_write(&mut c.script, node.resource(), 0, c.ghost, out);
}

pub(super) fn client_receive(p: &Params, ctx: &Ctx<'_, Node>, c: &mut Client, src: Id, msg: Msg, out: &mut Out<Node>) {
    let value = c.value;
    match (c.script.phase, msg) {
        // Sentinel names a new primary: reconnect, and re-send what the
        // old connection left unanswered (its request timeout runs on).
        // An attempt starts again with its SET (a WAIT on a new connection
        // would wait for no write).
        (phase, Msg::NewPrimary { id }) if id != c.primary => {
            c.primary = id;
            match phase {
                Phase::Acquiring => {
                    c.waiting = false;
                    out.send(id, Msg::SetNxPx { value });
                }
                Phase::Releasing => out.send(id, Msg::CompareAndDelete { value }),
                _ => {}
            }
        }
        // Release: the write is answered, so the critical section is over.
        (Phase::Writing, Msg::Resource(ResourceMsg::Accepted | ResourceMsg::Rejected)) => {
            out.send(c.primary, Msg::CompareAndDelete { value });
            out.set_timer(Timer::Timeout, p.timeout);
            c.script.phase = Phase::Releasing;
        }
        // Redis's answers count only on the connection to the current
        // primary, and only for the current request.
        _ if src != c.primary => {}
        // SET's OK: now WAIT for the replicas, a request with its own
        // timeout.
        (Phase::Acquiring, Msg::SetOk { value: v }) if v == value && !c.waiting => {
            c.waiting = true;
            out.send(c.primary, Msg::Wait { value });
            out.set_timer(Timer::Timeout, p.timeout);
        }
        (Phase::Acquiring, Msg::Granted { ghost, value: v, .. }) if v == value => {
            out.cancel_timer(Timer::Timeout);
            c.waiting = false;
            // Validity = ttl - (time since the SET was sent) - drift.
            if p.client == ClientKind::Validity && !arm_validity(p.ttl, p.drift, ctx, Timer::Validity, out) {
                give_up(p, c, out);
                return;
            }
            c.script.phase = Phase::Holding;
            c.ghost = ghost;
        }
        (Phase::Acquiring, Msg::Refused { value: v } | Msg::NoReplicas { value: v }) if v == value => {
            out.cancel_timer(Timer::Timeout);
            retry_later(p, c, out);
        }
        // The key is set but not replicated: delete it, and ask again.
        (Phase::Acquiring, Msg::WaitTimedOut { value: v }) if v == value => {
            out.cancel_timer(Timer::Timeout);
            out.send(c.primary, Msg::CompareAndDelete { value });
            retry_later(p, c, out);
        }
        // A release refused for want of good replicas leaves the key to
        // its TTL.
        (Phase::Releasing, Msg::Released { value: v } | Msg::NoReplicas { value: v }) if v == value => {
            out.cancel_timer(Timer::Timeout);
            c.value = 0;
            c.checked = false;
            c.script.released(p.acquisitions);
        }
        _ => {}
    }
}

/// The attempt failed: want the lock again, after the back-off.
fn retry_later(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    if p.client == ClientKind::Validity {
        out.stop_watch(Elapsed);
    }
    c.value = 0;
    c.waiting = false;
    c.checked = false;
    c.script.phase = Phase::Want;
    out.set_timer(Timer::Retry, p.retry);
}

/// Validity client: the lock came too late or ran out before its check.
/// Delete the key (compare-and-delete, not waiting for the answer), and
/// ask again later.
fn give_up(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    out.send(c.primary, Msg::CompareAndDelete { value: c.value });
    out.cancel_timer(Timer::Validity);
    retry_later(p, c, out);
}

/// Fire: a client's timers.
pub(super) fn client_fire(p: &Params, c: &mut Client, timer: Timer, out: &mut Out<Node>) {
    match timer {
        // The request timed out: an acquisition failed, as if refused
        // (a key it may have set expires by its TTL); a release is
        // done, and the key, if still there, expires by its TTL.
        Timer::Timeout => match c.script.phase {
            Phase::Acquiring => retry_later(p, c, out),
            Phase::Releasing => {
                c.value = 0;
                c.checked = false;
                c.script.released(p.acquisitions);
            }
            _ => {}
        },
        // The validity ran out before the client checked it: lost.
        Timer::Validity if c.script.phase == Phase::Holding => give_up(p, c, out),
        _ => {}
    }
}
