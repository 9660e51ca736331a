//! The client: its attempt and hold, its steps (Acquire, Check, Write),
//! its answer handlers (with Release) and its helpers.

use super::{Elapsed, Msg, Node, Params, Step, Timer, DB};
use crate::algorithms::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Client {
    pub script: Script,
    /// The current attempt's random value (0: none).
    #[rewrite(value)]
    pub value: u32,
    /// Validity client: checked its validity timer and found time left.
    pub checked: bool,
    #[rewrite(ghost)]
    pub ghost: u32,
}

impl Client {
    /// Drops what only mattered to the attempt or the hold that just
    /// ended, so equal situations are equal states.
    pub(super) fn forget(&mut self) {
        self.value = 0;
        self.checked = false;
        self.ghost = 0;
    }
}

/// The client's steps, in the spec's order: Acquire, Check, Write.
pub(super) fn client_step(p: &Params, c: &mut Client, ctx: &Ctx<'_, Node>, step: Step, out: &mut Out<Node>) {
    match step {
        // Acquire: INSERT the row with a fresh value, with a timeout
        // (and, for a validity client, the stopwatch started).
        Step::Acquire => {
            c.value = out.fresh_value();
            if p.validity() {
                out.start_watch(Elapsed);
            }
            out.send(DB, Msg::Insert { value: c.value });
            out.set_timer(Timer::Timeout, p.timeout);
            c.script.phase = Phase::Acquiring;
        }
        // Check: is there validity left for the work? Only then write.
        Step::Check => {
            c.checked = validity_holds(ctx, Timer::Validity, p.margin, out);
            if !c.checked {
                give_up(p, c, out);
            }
        }
        // Write: the critical section's write (no fencing token: 0).
        Step::Write => send_write(&mut c.script, p.resource(), 0, c.ghost, out),
    }
}

/// The client's answer handler: an answer counts only in the phase that
/// waits for it and with the current attempt's value.
pub(super) fn client_receive(p: &Params, c: &mut Client, ctx: &Ctx<'_, Node>, msg: Msg, out: &mut Out<Node>) {
    match (c.script.phase, msg) {
        (Phase::Acquiring, Msg::Inserted { value, ghost }) if value == c.value => {
            out.cancel_timer(Timer::Timeout);
            c.ghost = ghost;
            c.script.phase = Phase::Holding;
            // T2: validity = ttl − (T2 − T1) − drift.
            if p.validity() && !arm_validity(p.ttl, p.drift, ctx, Timer::Validity, out) {
                give_up(p, c, out);
            }
        }
        (Phase::Acquiring, Msg::Duplicate { value }) if value == c.value => {
            out.cancel_timer(Timer::Timeout);
            refused(p, c, out);
        }
        // Release: the write is answered, so the critical section is over.
        (Phase::Writing, Msg::Resource(_)) => {
            out.send(DB, Msg::Delete { value: c.value });
            out.set_timer(Timer::Timeout, p.timeout);
            c.script.phase = Phase::Releasing;
        }
        (Phase::Releasing, Msg::Deleted { value }) if value == c.value => {
            out.cancel_timer(Timer::Timeout);
            c.forget();
            c.script.released(p.acquisitions);
        }
        _ => {}
    }
}

/// The insert failed or timed out: want the lock again after the back-off.
pub(super) fn refused(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    if p.validity() {
        out.stop_watch(Elapsed);
    }
    c.forget();
    c.script.phase = Phase::Want;
    out.set_timer(Timer::Retry, p.retry);
}

/// Validity client: the row was won with too little validity, or the
/// validity ran out before the check. Delete the row without waiting for
/// the answer (as Redlock's clients unlock), and retry later.
pub(super) fn give_up(p: &Params, c: &mut Client, out: &mut Out<Node>) {
    out.send(DB, Msg::Delete { value: c.value });
    out.cancel_timer(Timer::Validity);
    c.forget();
    c.script.phase = Phase::Want;
    out.set_timer(Timer::Retry, p.retry);
}
