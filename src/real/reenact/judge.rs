//! The judge of a reenactment, the same for every family's driver: what
//! the real run showed ([`Witness`]: the first two holders, a stale write,
//! a foreign release, the answers that differed) and the protected
//! resource it showed it on ([`Store`]: an in-process store that checks
//! real fencing tokens and holds each answer until the trace delivers it).

use std::collections::{BTreeMap, VecDeque};

/// What the real run showed.
#[derive(Debug, Default)]
pub struct Witness {
    /// First step at which two clients held the lock by the real answers.
    pub two_holders: Option<(usize, String)>,
    pub stale_write: Option<(usize, String)>,
    pub foreign_release: Option<(usize, String)>,
    /// Steps whose real answer differed from the trace's.
    pub differences: usize,
    /// Faults with no real counterpart that were skipped (clock jumps,
    /// drift), which can keep a violation from happening.
    pub skipped: usize,
    /// Acquisitions numbered so far, in the order of the real grants.
    pub grants: u32,
}

/// The judge's part of a step, the same for every family's driver.
impl Witness {
    /// A client that holds by the real answers for the first time in its
    /// attempt gets the next acquisition number (its `acquisition` is 0
    /// until then).
    pub fn grant(&mut self, acquisition: &mut u32) {
        if *acquisition == 0 {
            self.grants += 1;
            *acquisition = self.grants;
        }
    }

    /// After step `k` (0-based), with `holding` the clients that hold by
    /// the real answers: the first step with two holders is the witness,
    /// each holder described by `who`. Returns the log line's tail naming
    /// the holders ("" for none).
    pub fn holders(&mut self, k: usize, holding: &[usize], who: impl Fn(usize) -> String) -> String {
        if holding.len() >= 2 && self.two_holders.is_none() {
            let who: Vec<String> = holding.iter().map(|&c| who(c)).collect();
            self.two_holders = Some((k + 1, who.join(" and ")));
        }
        if holding.is_empty() {
            return String::new();
        }
        let names: Vec<String> = holding.iter().map(|c| format!("c{}", c + 1)).collect();
        format!("\n           holding by the real answers: {}", names.join(", "))
    }
}

/// The protected resource: records writes, checks fencing tokens.
#[derive(Debug, Default)]
pub struct Store {
    fencing: bool,
    max_token: Option<i64>,
    max_acquisition: u32,
    /// Answers to each client not yet delivered by the trace, oldest first.
    answers: BTreeMap<usize, VecDeque<bool>>,
}

impl Store {
    /// A resource that rejects lower tokens when `fencing`.
    pub fn new(fencing: bool) -> Store {
        Store {
            fencing,
            ..Store::default()
        }
    }

    /// Client `c`'s write at step `k` (0-based) under acquisition `acq`,
    /// carrying the real fencing token `token` (`what` names it in the
    /// log: "token", "real revision", "czxid"). A write under an
    /// acquisition older than one already written is stale, and the first
    /// one is the witness's. Returns what the resource did, for the log.
    pub fn write(&mut self, witness: &mut Witness, k: usize, c: usize, acq: u32, token: i64, what: &str) -> String {
        if self.fencing && self.max_token.is_some_and(|m| token < m) {
            self.answers.entry(c).or_default().push_back(false);
            return format!(
                "the resource rejects c{}'s write: {what} {token} is lower than {} already written",
                c + 1,
                self.max_token.unwrap_or_default()
            );
        }
        let stale = acq < self.max_acquisition;
        let note = if stale {
            format!(
                "; STALE: acquisition #{acq} is older than #{} already written",
                self.max_acquisition
            )
        } else {
            String::new()
        };
        self.max_token = Some(self.max_token.map_or(token, |m| m.max(token)));
        self.max_acquisition = self.max_acquisition.max(acq);
        self.answers.entry(c).or_default().push_back(true);
        if stale && witness.stale_write.is_none() {
            witness.stale_write = Some((k + 1, format!("c{}'s write under acquisition #{acq}", c + 1)));
        }
        format!(
            "the resource accepts c{}'s write (acquisition #{acq}, {what} {token}){note}",
            c + 1
        )
    }

    /// The oldest answer to client `c` that the trace has not delivered
    /// (or lost) yet: accepted or not; `None` if it made no write.
    pub fn answer(&mut self, c: usize) -> Option<bool> {
        self.answers.get_mut(&c).and_then(VecDeque::pop_front)
    }
}
