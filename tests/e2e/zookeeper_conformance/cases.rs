//! The operations, proptest's strategy for them, and the fixed connection cases.

use proptest::prelude::*;

use super::CLIENTS;

// ---------------------------------------------------------------------------
// Operations.

#[derive(Clone, Copy, Debug)]
pub(super) enum Op {
    /// `create /lock/_c_g<guid>-lock- EPHEMERAL_SEQUENTIAL` (a new session
    /// first if the client has none).
    Create(usize),
    /// `getChildren /lock`, with a watch if asked and none is outstanding.
    List(usize, bool),
    /// `exists <the k-th node created in the case> watch`.
    Exists(usize, usize),
    /// `delete` the client's latest node.
    Delete(usize),
    /// Ticks pass.
    Wait(u32),
    /// The client stops: its connection closes without `closeSession`.
    Crash(usize),
    /// The proxy drops the client's connection and refuses new ones; with
    /// `true`, a `getChildren` is pending on it then.
    Cut(usize, bool),
    /// The proxy accepts again; the library reconnects.
    Heal,
}

#[derive(Clone, Debug)]
pub(super) struct Case {
    pub(super) session_timeout: u8,
    pub(super) ops: Vec<Op>,
}

pub(super) fn case() -> impl Strategy<Value = Case> {
    let c = 0usize..CLIENTS;
    let op = prop_oneof![
        4 => c.clone().prop_map(Op::Create),
        3 => (c.clone(), any::<bool>()).prop_map(|(c, w)| Op::List(c, w)),
        3 => (c.clone(), 0usize..6).prop_map(|(c, k)| Op::Exists(c, k)),
        2 => c.clone().prop_map(Op::Delete),
        3 => (1u32..=3).prop_map(Op::Wait),
        1 => c.clone().prop_map(Op::Crash),
        1 => (c, any::<bool>()).prop_map(|(c, p)| Op::Cut(c, p)),
        2 => Just(Op::Heal),
    ];
    (3u8..=6, prop::collection::vec(op, 6..=14)).prop_map(|(session_timeout, ops)| Case { session_timeout, ops })
}

/// The fixed cases: what a client sees across a dropped connection.
pub(super) fn connection_cases() -> Vec<(&'static str, Case)> {
    use Op::*;
    vec![
        (
            // Cut within the session timeout while c1 watches c0's node and
            // the children: c0 deletes its node; after the heal, same
            // session, both missed events fire at the reconnect.
            "missed events fire on reconnect",
            Case {
                session_timeout: 6,
                ops: vec![
                    Create(0),
                    Create(1),
                    List(1, true),
                    Exists(1, 0),
                    Cut(1, true),
                    Delete(0),
                    Heal,
                    List(1, false),
                    Wait(1),
                ],
            },
        ),
        (
            // Cut with nothing missed: the watches are re-registered and
            // fire on a later delete.
            "watches re-registered",
            Case {
                session_timeout: 6,
                ops: vec![
                    Create(0),
                    Create(1),
                    Create(2),
                    Exists(1, 0),
                    List(1, true),
                    Cut(1, false),
                    Wait(1),
                    Heal,
                    Wait(1),
                    Delete(0),
                    Wait(1),
                ],
            },
        ),
        (
            // Cut past the session timeout: c1's node goes at the expiry
            // (c2's watches fire), and the reconnect is SESSION_EXPIRED.
            "session expired across a cut",
            Case {
                session_timeout: 3,
                ops: vec![
                    Create(0),
                    Create(1),
                    Create(2),
                    Exists(2, 1),
                    List(0, true),
                    Exists(1, 0),
                    Cut(1, true),
                    Wait(3),
                    Wait(1),
                    Heal,
                    List(1, false),
                    Create(1),
                    List(1, false),
                ],
            },
        ),
        (
            // A crashed holder: its session expires, its node goes, the
            // waiter's watch fires; its next create opens a new session.
            "a crashed holder's session expires",
            Case {
                session_timeout: 3,
                ops: vec![
                    Create(0),
                    Create(1),
                    Exists(1, 0),
                    Crash(0),
                    Wait(2),
                    Wait(2),
                    List(1, true),
                    Create(0),
                    Delete(1),
                    Wait(1),
                ],
            },
        ),
    ]
}
