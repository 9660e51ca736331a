//! The client: its attempt and hold, its steps (Acquire, Expire, Check,
//! Write), its answer handlers (with Release) and its timeouts.

use super::{Command, Elapsed, Msg, Node, Params, Release, Step, Timer, SERVER};
use crate::algorithms::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Client {
    pub script: Script,
    /// The current attempt's lock value (0 between attempts).
    #[rewrite(value)]
    pub value: u32,
    /// `EXPIRE` still to send (`setnx-expire` only) or awaiting its answer.
    pub expire: Expire,
    /// Validity client: checked its validity timer and found time left.
    pub checked: bool,
    /// The fencing token (0 without fencing), which the family's
    /// `Renumber` visits where it may.
    pub token: u32,
    #[rewrite(ghost)]
    pub ghost: u32,
}

impl Client {
    /// Drops what only mattered to the attempt or the hold that just ended,
    /// so equal situations are equal states.
    fn forget(&mut self) {
        self.value = 0;
        self.expire = Expire::Done;
        self.checked = false;
        self.token = 0;
        self.ghost = 0;
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack)]
pub enum Expire {
    Done,
    ToSend,
    Sent,
}

/// The client's steps, in the spec's order: Acquire, Expire, Check, Write.
pub(super) fn client_step(
    p: &Params,
    c: &mut Client,
    ctx: &Ctx<'_, Node>,
    step: Step,
    resource: Id,
    out: &mut Out<Node>,
) {
    match step {
        // Acquire: a fresh value, then SETNX or SET NX PX, with a timeout
        // (a validity client also starts its stopwatch).
        Step::Acquire => {
            c.value = out.fresh_value();
            let value = c.value;
            let cmd = if p.command == Command::SetNxPx {
                Msg::SetNxPx { value }
            } else {
                Msg::SetNx { value }
            };
            out.send(SERVER, cmd);
            out.set_timer(Timer::Timeout, p.timeout);
            if p.validity() {
                out.start_watch(Elapsed);
            }
            c.script.phase = Phase::Acquiring;
        }
        // Expire: the second command of the two-step form.
        Step::Expire => {
            out.send(SERVER, Msg::Expire { value: c.value });
            out.set_timer(Timer::Timeout, p.timeout);
            c.expire = Expire::Sent;
        }
        // Check: is there more than the margin left? Only then write.
        Step::Check => {
            c.checked = validity_holds(ctx, Timer::Validity, p.margin, out);
            if !c.checked {
                give_up(p, c, out);
            }
        }
        // Write: the critical section's write, with the token if fenced.
        Step::Write => {
            send_write(&mut c.script, resource, c.token, c.ghost, out);
        }
    }
}

/// The client's answer handler: an answer whose value is not the current
/// attempt's is an answer to an earlier request, and is ignored.
pub(super) fn client_receive(p: &Params, c: &mut Client, ctx: &Ctx<'_, Node>, msg: Msg, out: &mut Out<Node>) {
    match (c.script.phase, msg) {
        (Phase::Acquiring, Msg::Granted { value, token, ghost }) if value == c.value => {
            out.cancel_timer(Timer::Timeout);
            c.script.phase = Phase::Holding;
            c.token = token;
            c.ghost = ghost;
            if p.command == Command::SetnxExpire {
                c.expire = Expire::ToSend;
            }
            if p.watchdog {
                out.set_timer(Timer::Renew, p.renew_every());
            }
            // T2: validity = ttl − (T2 − T1) − drift.
            if p.validity() && !arm_validity(p.ttl, p.drift, ctx, Timer::Validity, out) {
                give_up(p, c, out);
            }
        }
        (Phase::Acquiring, Msg::Refused { value }) if value == c.value => {
            out.cancel_timer(Timer::Timeout);
            retry_later(p, c, out);
        }
        (Phase::Holding, Msg::ExpireSet { value }) if value == c.value && c.expire == Expire::Sent => {
            out.cancel_timer(Timer::Timeout);
            c.expire = Expire::Done;
        }
        // Release: the write is answered, so the critical section is over.
        (Phase::Writing, Msg::Resource(ResourceMsg::Accepted | ResourceMsg::Rejected)) => {
            out.send(SERVER, release(p, c.value));
            out.set_timer(Timer::Timeout, p.timeout);
            out.cancel_timer(Timer::Renew);
            c.script.phase = Phase::Releasing;
        }
        (Phase::Releasing, Msg::Released { value }) if value == c.value => {
            out.cancel_timer(Timer::Timeout);
            released(p, c);
        }
        _ => {}
    }
}

/// The release command for the lock of `value`.
fn release(p: &Params, value: u32) -> Msg {
    match p.release {
        Release::Del => Msg::Del { value },
        Release::CompareAndDelete => Msg::CompareAndDelete { value },
    }
}

/// A request's timeout fired: the attempt failed, the `EXPIRE` or the
/// release counts as done.
pub(super) fn timed_out(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    match c.script.phase {
        Phase::Acquiring => retry_later(p, c, out),
        Phase::Holding if c.expire == Expire::Sent => c.expire = Expire::Done,
        Phase::Releasing => released(p, c),
        _ => {}
    }
}

/// The attempt failed: want the lock again after the back-off (a validity
/// client's stopwatch stops, if it still runs).
fn retry_later(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    out.stop_watch(Elapsed);
    c.script.phase = Phase::Want;
    c.forget();
    out.set_timer(Timer::Retry, p.retry);
}

/// A validity client's lock is no use (no validity left at the grant, or
/// not more than the margin at its check): release it without waiting for
/// the answer, and retry later.
pub(super) fn give_up(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    out.send(SERVER, release(p, c.value));
    out.cancel_timer(Timer::Validity);
    out.cancel_timer(Timer::Timeout);
    retry_later(p, c, out);
}

/// The release is over (answered, or timed out).
fn released(p: &Params, c: &mut Client) {
    c.script.released(p.acquisitions);
    c.forget();
}
