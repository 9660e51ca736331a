//! The client: its attempt and hold, its steps (Acquire, Backoff, Check,
//! Write), its answer handlers (with Decide and Release) and its helpers.

use super::{Elapsed, Fencing, Msg, Node, Params, Requests, Step, Timer};
use crate::algorithms::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Client {
    pub script: Script,
    /// This attempt's random value (0: none), from `Out::fresh_value`: the
    /// key's value, and what answers carry, so that an answer to an earlier
    /// attempt is not counted.
    #[rewrite(value)]
    pub value: u32,
    /// Masters that answered this attempt (asking in sequence, or timed
    /// out), and those that said yes (masks).
    pub answered: u8,
    pub yes: u8,
    /// Checked the validity timer and found time left: about to write.
    pub checked: bool,
    /// The fencing token, once known (0 without fencing). A counter's
    /// token or a lock value by `fencing`: the family's `Renumber` visits it.
    pub token: Option<u32>,
    #[rewrite(ghost)]
    pub ghost: u32,
    /// Gave up an attempt: draws its back-off delay next.
    pub drawing: bool,
}

impl Client {
    /// Drops what only mattered to the attempt or the hold that just ended,
    /// so equal situations are equal states.
    fn forget(&mut self) {
        self.value = 0;
        self.answered = 0;
        self.yes = 0;
        self.checked = false;
        self.token = None;
        self.ghost = 0;
    }
}

/// The client's steps, in the spec's order: Acquire, Backoff, Check, Write.
pub(super) fn client_step(p: &Params, c: &mut Client, ctx: &Ctx<'_, Node>, step: Step, out: &mut Out<Node>) {
    match step {
        // Acquire: a fresh random value, T1, then SET NX PX on every
        // master, with a timeout.
        Step::Acquire => acquire(p, c, out),
        Step::Backoff(ticks) => {
            c.drawing = false;
            out.set_timer(Timer::Retry, ticks);
        }
        // Check: is there validity left for the work? Only then use the resource.
        Step::Check => {
            c.checked = validity_holds(ctx, Timer::Validity, p.margin, out);
            if !c.checked {
                give_up(p, c, out);
            }
        }
        // Write: the critical section's write, with the token if fenced.
        Step::Write => send_write(&mut c.script, p.resource(), c.token.unwrap_or(0), c.ghost, out),
    }
}

/// The client's answer handler. Answers carry the value of the attempt
/// they answer; any other is an answer to an earlier attempt, ignored.
pub(super) fn client_receive(p: &Params, c: &mut Client, ctx: &Ctx<'_, Node>, src: Id, msg: Msg, out: &mut Out<Node>) {
    match (c.script.phase, msg) {
        (Phase::Acquiring, Msg::Locked { value, ok }) if value == c.value && awaited(p, c, src) => {
            c.answered |= 1 << src;
            if ok {
                c.yes |= 1 << src;
            }
            next_or_decide(p, c, ctx, out);
        }
        (Phase::Holding, Msg::Token { value, token }) if value == c.value && c.token.is_none() => c.token = Some(token),
        // The write is answered: release on every master, without waiting.
        (Phase::Writing, Msg::Resource(_)) => {
            unlock_all(p, c.value, out);
            c.forget();
            c.script.released(p.acquisitions);
        }
        _ => {}
    }
}

/// Whether an answer from master `src` to this attempt is still awaited:
/// from any master that has not answered when the requests went out at
/// once; only from the master being asked when they go in sequence (one
/// that timed out has been given up on).
fn awaited(p: &Params, c: &Client, src: Id) -> bool {
    match p.requests {
        Requests::Parallel => true,
        Requests::Sequential => src == asking(c),
    }
}

/// In sequence, the master being asked: the first that has not answered.
fn asking(c: &Client) -> Id {
    c.answered.trailing_ones() as Id
}

/// The request timeout fired: at once, it ends the wait for every master;
/// in sequence, the master being asked counts as a no.
pub(super) fn timed_out(p: &Params, c: &mut Client, ctx: &Ctx<'_, Node>, out: &mut Out<Node>) {
    match p.requests {
        Requests::Parallel => decide(p, c, ctx, out),
        Requests::Sequential => {
            c.answered |= 1 << asking(c);
            next_or_decide(p, c, ctx, out);
        }
    }
}

/// After an answer or a timeout: T2 once every master has answered;
/// otherwise, in sequence, ask the next master, with a timeout of its own.
fn next_or_decide(p: &Params, c: &mut Client, ctx: &Ctx<'_, Node>, out: &mut Out<Node>) {
    if c.answered == p.all_masters() {
        decide(p, c, ctx, out);
    } else if p.requests == Requests::Sequential {
        out.send(asking(c), Msg::Lock { value: c.value });
        out.set_timer(Timer::Timeout, p.timeout);
    }
}

/// T2: every master answered or the timeout fired. Hold the lock only with
/// a majority and validity left.
fn decide(p: &Params, c: &mut Client, ctx: &Ctx<'_, Node>, out: &mut Out<Node>) {
    out.cancel_timer(Timer::Timeout);
    out.stop_watch(Elapsed);
    let validity = validity_left(p.ttl, ctx.elapsed(Elapsed), p.drift);
    let Some(validity) = validity.filter(|_| c.yes.count_ones() >= p.quorum()) else {
        give_up(p, c, out);
        return;
    };
    c.script.phase = Phase::Holding;
    c.answered = 0;
    c.yes = 0;
    c.ghost = out.next_ghost();
    out.set_timer(Timer::Validity, validity);
    c.token = match p.fencing {
        Fencing::None => Some(0),
        Fencing::LockValue => Some(c.value),
        Fencing::Counter => {
            out.send(p.counter(), Msg::Incr { value: c.value });
            None
        }
    };
}

/// Acquire: a fresh random value, T1, then SET NX PX on every master (or,
/// in sequence, on the first), with a timeout.
pub(super) fn acquire(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    c.value = out.fresh_value();
    c.answered = 0;
    c.yes = 0;
    out.start_watch(Elapsed);
    let asked = match p.requests {
        Requests::Parallel => p.masters as Id,
        Requests::Sequential => 1,
    };
    for m in 0..asked {
        out.send(m, Msg::Lock { value: c.value });
    }
    out.set_timer(Timer::Timeout, p.timeout);
    c.script.phase = Phase::Acquiring;
}

/// The attempt failed or the lock was lost: unlock every master, and draw
/// a back-off (the next step) before trying again.
pub(super) fn give_up(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    unlock_all(p, c.value, out);
    out.cancel_timer(Timer::Validity);
    c.script.phase = Phase::Want;
    c.forget();
    c.drawing = true;
}

fn unlock_all(p: &Params, value: u32, out: &mut Out<Node>) {
    for m in 0..p.masters as Id {
        out.send(m, Msg::Unlock { value });
    }
}
