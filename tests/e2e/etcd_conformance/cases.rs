//! The cases: the requests, proptest's strategy for them, and the fixed cases.

use proptest::prelude::*;

use super::SESSIONS;

// ---------------------------------------------------------------------------
// Cases.

#[derive(Clone, Copy, Debug)]
pub(super) enum Op {
    Grant(usize),
    KeepAlive(usize),
    Revoke(usize),
    /// The lock transaction (and `waitDeletes`'s first query).
    Lock(usize),
    /// `waitDeletes`'s query again and the own key's `Get`.
    Range(usize),
    /// Watch the predecessor the last lock or range answer named.
    Watch(usize),
    Unlock(usize),
    Wait(u32),
    /// The connection is dropped for this many ticks, then opened again.
    Drop(u32),
}

#[derive(Clone, Debug)]
pub(super) struct Case {
    pub(super) name: String,
    pub(super) ttl: u8,
    pub(super) delete: bool,
    pub(super) ops: Vec<Op>,
}

pub(super) fn case_strategy() -> impl Strategy<Value = Case> {
    let s = 0..SESSIONS;
    let op = prop_oneof![
        3 => s.clone().prop_map(Op::Grant),
        3 => s.clone().prop_map(Op::KeepAlive),
        1 => s.clone().prop_map(Op::Revoke),
        4 => s.clone().prop_map(Op::Lock),
        2 => s.clone().prop_map(Op::Range),
        3 => s.clone().prop_map(Op::Watch),
        2 => s.prop_map(Op::Unlock),
        3 => (1u32..=2).prop_map(Op::Wait),
        1 => (0u32..=2).prop_map(Op::Drop),
    ];
    // Every session starts with a lease, so that most requests apply.
    (1u8..=2, any::<bool>(), prop::collection::vec(op, 10..=24)).prop_map(|(ttl, delete, ops)| Case {
        name: "random".into(),
        ttl,
        delete,
        ops: [Op::Grant(0), Op::Grant(1), Op::Grant(2)]
            .into_iter()
            .chain(ops)
            .collect(),
    })
}

/// The cases that must always run: a queue of three handed on by unlock,
/// by revoke and by expiry; keep-alives outliving the TTL; requests on a
/// revoked lease; a watch resumed after a dropped connection missed the
/// DELETE; a compare-and-delete that must not delete a newer key.
pub(super) fn fixed_cases() -> Vec<Case> {
    use Op::*;
    let (a, b, c) = (0, 1, 2);
    vec![
        Case {
            name: "queue handed on by unlock, revoke and expiry".into(),
            ttl: 2,
            delete: true,
            ops: vec![
                Grant(a),
                Lock(a),
                Grant(b),
                Lock(b),
                Watch(b),
                Grant(c),
                Lock(c),
                Watch(c),
                Wait(1),
                KeepAlive(a),
                KeepAlive(b),
                KeepAlive(c),
                Unlock(a),
                Range(b),
                Wait(1),
                KeepAlive(c),
                KeepAlive(c),
                Revoke(b),
                Range(c),
                Revoke(a),
                KeepAlive(a),
                Lock(a),
                Wait(2),
                KeepAlive(c),
                Lock(c),
            ],
        },
        Case {
            name: "keep-alives outlive the TTL, and an expiry wakes the watcher".into(),
            ttl: 2,
            delete: false,
            ops: vec![
                Grant(a),
                Grant(b),
                Lock(a),
                Lock(b),
                Watch(b),
                Wait(1),
                KeepAlive(a),
                KeepAlive(b),
                Wait(1),
                KeepAlive(a),
                KeepAlive(b),
                Wait(1),
                KeepAlive(b),
                KeepAlive(a),
                Wait(1),
                KeepAlive(b),
                // a's lease runs out between here and the next grid point.
                Wait(1),
                KeepAlive(b),
                KeepAlive(a),
                Range(b),
                Lock(a),
                Unlock(b),
                Lock(b),
                Unlock(b),
            ],
        },
        Case {
            name: "a watch resumed after a dropped connection".into(),
            ttl: 2,
            delete: true,
            ops: vec![
                Grant(a),
                Lock(a),
                Wait(1),
                Grant(b),
                Lock(b),
                Watch(b),
                Grant(c),
                Lock(c),
                Watch(c),
                Drop(1),
                Range(b),
                KeepAlive(b),
                KeepAlive(c),
                Drop(0),
                Unlock(b),
                Wait(1),
                KeepAlive(c),
                Range(c),
            ],
        },
        Case {
            name: "compare-and-delete of an old key, a lock on a revoked lease".into(),
            ttl: 2,
            delete: false,
            ops: vec![
                Grant(a),
                Lock(a),
                Unlock(a),
                Lock(a),
                Grant(b),
                Lock(b),
                Watch(b),
                Lock(a),
                Revoke(a),
                Range(b),
                Lock(a),
                KeepAlive(a),
                Revoke(b),
                Revoke(b),
            ],
        },
        Case {
            name: "a watch on a key created again is skipped".into(),
            ttl: 2,
            delete: true,
            ops: vec![
                Grant(a),
                Grant(b),
                Lock(b),
                Lock(a),
                Unlock(b),
                Lock(b),
                Wait(1),
                Watch(a),
                Range(a),
                Unlock(b),
                Watch(a),
                Wait(1),
                KeepAlive(a),
                Range(a),
            ],
        },
    ]
}
