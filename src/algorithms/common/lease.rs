//! What the lease clients share (lock-table, single Redis, primary-replica,
//! etcd, and Redlock's stopwatch): the two kinds of client, the stopwatch
//! a validity client times its request with, the keys only a validity
//! client reads, and the holder's work before it writes.

use serde::{Deserialize, Serialize};

use crate::world::Pack;

use super::client::{validity_left, Phase, Script};
use crate::scenario::ScenarioError;
use crate::words::Words;
use crate::world::{Actor, Ctx, Out};

/// How a client decides that it still holds the lock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Words)]
pub enum ClientKind {
    /// From the grant until its write is answered: it trusts the grant
    /// for as long as it takes. The default.
    #[default]
    Naive,
    /// Times its request and checks, before it writes, that more than
    /// `margin` of its validity (`ttl − elapsed − drift`, Redlock's step 3)
    /// is left; its belief ends when its validity timer reaches zero.
    Validity,
}

/// A lease client's steps (its spec's Acquire, Check and Write): the
/// whole of them in the families whose clients do nothing else.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub enum Step {
    Acquire,
    Check,
    Write,
}

/// Which of a lease client's steps is enabled: Acquire while it wants the
/// lock and its back-off (`retry_left`) is over, Check once per hold for a
/// validity client (`checks`), then Write.
pub fn next_step(script: &Script, retry_left: Option<u8>, checks: bool, checked: bool) -> Option<Step> {
    match script.phase {
        Phase::Want if retry_left.is_none() => Some(Step::Acquire),
        Phase::Holding if checks && !checked => Some(Step::Check),
        Phase::Holding => Some(Step::Write),
        _ => None,
    }
}

/// A validity client's stopwatch, started when it sends its request and
/// stopped at the answer (Redlock's T1 and T2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack)]
pub struct Elapsed;

/// The values of `[system] drift` and `margin` (read as
/// `Option<Within<..>>`, absent when not given): a validity client's, 1 and 2 when not given;
/// for a naive client, which uses neither, one given is an error naming
/// it (`file` is the scenario's path).
pub fn validity_keys(
    file: &dyn std::fmt::Display,
    client: ClientKind,
    drift: Option<u8>,
    margin: Option<u8>,
) -> Result<(u8, u8), ScenarioError> {
    if client == ClientKind::Naive {
        if let Some(key) = [("drift", drift), ("margin", margin)]
            .iter()
            .find_map(|(key, v)| v.map(|_| key))
        {
            return Err(ScenarioError(format!(
                "{file}: [system] {key} is used only by a validity client; allowed with client = \"validity\" (client is \"naive\")"
            )));
        }
    }
    Ok((drift.unwrap_or(1), margin.unwrap_or(2)))
}

/// How long a holder may work before its write: from 0 to `[system] work`
/// ticks (`Actor::within` of a client's Write step), or at once.
pub fn work_within(work: u8, is_write: bool) -> Option<u8> {
    (is_write && work > 0).then_some(work)
}

/// At the grant (Redlock's step 3, T2): stops the stopwatch started with
/// the request and arms the validity timer `validity` with `ttl − elapsed
/// − drift`; false when nothing is left, and the client must give the
/// lock up.
pub fn arm_validity<A: Actor<Watch = Elapsed>>(
    ttl: u8,
    drift: u8,
    ctx: &Ctx<'_, A>,
    validity: A::Timer,
    out: &mut Out<A>,
) -> bool {
    out.stop_watch(Elapsed);
    let left = validity_left(ttl, ctx.elapsed(Elapsed), drift);
    if let Some(v) = left {
        out.set_timer(validity, v);
    }
    left.is_some()
}

/// Check (Redlock's step 4, taken by every validity client before it
/// writes): is more than `margin` left on the validity timer `validity`?
/// Then the timer stops, as nothing can take the checked validity away,
/// and the client may write; otherwise it must give the lock up.
pub fn validity_holds<A: Actor>(ctx: &Ctx<'_, A>, validity: A::Timer, margin: u8, out: &mut Out<A>) -> bool {
    let holds = ctx.timer(validity).is_some_and(|v| v > margin);
    if holds {
        out.cancel_timer(validity);
    }
    holds
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(phase: Phase) -> Script {
        Script { phase, left: 0 }
    }

    #[test]
    fn a_lease_client_acquires_after_its_back_off_checks_once_then_writes() {
        assert_eq!(next_step(&script(Phase::Want), None, true, false), Some(Step::Acquire));
        assert_eq!(
            next_step(&script(Phase::Want), Some(1), true, false),
            None,
            "backing off"
        );
        assert_eq!(next_step(&script(Phase::Holding), None, true, false), Some(Step::Check));
        assert_eq!(next_step(&script(Phase::Holding), None, true, true), Some(Step::Write));
        assert_eq!(
            next_step(&script(Phase::Holding), None, false, false),
            Some(Step::Write),
            "naive"
        );
        for waiting in [Phase::Acquiring, Phase::Writing, Phase::Releasing, Phase::Done] {
            assert_eq!(next_step(&script(waiting), None, true, false), None, "{waiting:?}");
        }
    }

    #[test]
    fn drift_and_margin_are_a_validity_clients_keys_only() {
        let file = "s.toml";
        assert_eq!(
            validity_keys(&file, ClientKind::Validity, None, None).ok(),
            Some((1, 2))
        );
        assert_eq!(
            validity_keys(&file, ClientKind::Validity, Some(0), Some(5)).ok(),
            Some((0, 5))
        );
        assert_eq!(validity_keys(&file, ClientKind::Naive, None, None).ok(), Some((1, 2)));
        let err = validity_keys(&file, ClientKind::Naive, None, Some(3)).expect_err("margin on a naive client");
        assert_eq!(
            err.0,
            "s.toml: [system] margin is used only by a validity client; allowed with client = \"validity\" (client is \"naive\")"
        );
    }

    #[test]
    fn a_holder_works_only_before_its_write_and_only_with_work_to_do() {
        assert_eq!(work_within(3, true), Some(3));
        assert_eq!(work_within(0, true), None);
        assert_eq!(work_within(3, false), None);
    }
}
