//! The adversary's budget (docs/design.md sections 2 and 7): every fault is a
//! named action, bounded here, so the state space stays finite.

use serde::Serialize;

use crate::words::Words;

/// Which nodes the adversary may hit with crashes, pauses and clock jumps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Targets {
    Clients,
    Servers,
    #[default]
    All,
}

/// By hand, not derived (`#[derive(Words)]` follows the variants' order):
/// the "allowed:" sentence names `all`, the default, first.
impl Words for Targets {
    const WORDS: &'static [(&'static str, Self)] = &[
        ("all", Targets::All),
        ("clients", Targets::Clients),
        ("servers", Targets::Servers),
    ];
}

/// What a node is to the world: it decides only which faults may hit it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Server,
    Client,
    /// Watches the system (the protected resource); never faulted.
    Observer,
}

impl Targets {
    pub fn hits(self, role: Role) -> bool {
        matches!(
            (self, role),
            (Targets::All, Role::Server | Role::Client)
                | (Targets::Clients, Role::Client)
                | (Targets::Servers, Role::Server)
        )
    }
}

/// Whether crashed nodes come back and cut links heal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Words)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// Restart and Heal are weakly fair: every outage ends. The default.
    #[default]
    Eventual,
    /// Restart and Heal may happen but need not: crash-stop failures and
    /// partitions that never heal. They are then the adversary's choices,
    /// like faults, and never part of a liveness counterexample's loop.
    None,
}

/// The fault budget of one scenario. Every field defaults to "none".
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Faults {
    /// How many crashes may happen in one run (restarts are free).
    pub crashes: u8,
    /// How many stop-the-world pauses may happen in one run.
    pub pauses: u8,
    /// The shortest pause, in ticks (1 unless a scenario is only about long
    /// pauses: each length is one more choice at every state).
    pub min_pause: u8,
    /// The longest pause, in ticks.
    pub max_pause: u8,
    /// How many clock jumps (NTP steps) may happen in one run.
    pub clock_jumps: u8,
    /// The largest jump, in local ticks, forward or back.
    pub max_jump: u8,
    /// Bound on a node's accumulated clock skew, in ticks.
    pub max_drift: u8,
    /// Bounded message delay in ticks; `None` is an asynchronous network.
    pub max_delay: Option<u8>,
    /// How many links may be cut in one run (heals are free).
    pub partitions: u8,
    /// A partition may cut one direction of a link only (`Action::Cut`):
    /// messages from one end are dropped while the other end's still flow
    /// (docs/design.md §2: a set of cut links, symmetric or one-way).
    pub one_way: bool,
    /// Messages may be lost.
    pub loss: bool,
    /// Messages may be duplicated (each at most once, the copy as old as
    /// its original).
    pub duplicate: bool,
    /// Messages on one link may overtake each other; otherwise each link is
    /// FIFO, as a TCP connection is.
    pub reorder: bool,
    /// Who may be crashed, paused or have its clock jump.
    pub targets: Targets,
    /// Whether outages end.
    pub recovery: Recovery,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            crashes: 0,
            pauses: 0,
            min_pause: 1,
            max_pause: 0,
            clock_jumps: 0,
            max_jump: 0,
            max_drift: 0,
            max_delay: None,
            partitions: 0,
            one_way: false,
            loss: false,
            duplicate: false,
            reorder: false,
            targets: Targets::All,
            recovery: Recovery::Eventual,
        }
    }
}
