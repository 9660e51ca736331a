//! The protected resource (docs/design.md §3): storage that accepts the writes
//! clients make in their critical sections and, with fencing on, rejects
//! any token lower than the highest it has seen (Kleppmann's fencing).

use serde::{Deserialize, Serialize};

use crate::world::Pack;

use super::client::{show, Phase, Script};
use crate::properties::STALE_WRITE;
use crate::world::{Actor, Id, Out, Program, Rewrite, Tla};

/// A write and its answer. Its `Rewrite` visits the ghost number only:
/// the token is the family's to renumber ([`Resource`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Pack, Rewrite)]
pub enum ResourceMsg {
    /// A critical section's write. `token` is the fencing token (0 when
    /// the algorithm has none); `ghost` numbers the acquisition it was made
    /// under, in acquisition order, for the `no_stale_write` property only.
    Write {
        token: u32,
        #[rewrite(ghost)]
        ghost: u32,
    },
    Accepted,
    Rejected,
}

/// The critical section's write (every family's Write step): `token` (0
/// without fencing) and `ghost`, the acquisition the holder was granted,
/// to the resource; the holder is `Writing` until it is answered.
pub fn send_write<A: Actor>(script: &mut Script, resource: Id, token: u32, ghost: u32, out: &mut Out<A>)
where
    A::Msg: From<ResourceMsg>,
{
    out.send(resource, ResourceMsg::Write { token, ghost }.into());
    script.phase = Phase::Writing;
}

/// A message as the specs of families without fencing write it: a write
/// (`part`, the message's resource part) carries no token; any other
/// message is `TlaMapping::tla_msg`'s default, its variant's name as
/// `type` and its fields.
pub fn tla_tokenless<M: Serialize>(msg: &M, part: Option<&ResourceMsg>) -> Tla {
    match part {
        Some(ResourceMsg::Write { ghost, .. }) => Tla::rec([("type", Tla::str("Write")), ("ghost", Tla::int(*ghost))]),
        _ => Tla::message(&serde_json::to_value(msg).unwrap_or(serde_json::Value::Null)),
    }
}

/// What the resource remembers. Its `Rewrite` visits the ghost number
/// only: whether tokens may be renumbered, and as which sequence, depends
/// on where the family's tokens come from (not when a restart can reset
/// their counter; as lock values where lock values fence), so a family's
/// `Renumber` visits `max_token` and a write's `token` itself when they
/// are renumbered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, Pack, Rewrite)]
pub struct Resource {
    /// The highest fencing token accepted.
    pub max_token: u32,
    /// Ghost: the latest acquisition a write was accepted under.
    #[rewrite(ghost)]
    pub max_ghost: u32,
}

impl Resource {
    /// Handles a write; returns the answer. Raises the stale-write flag
    /// when it accepts a write from an acquisition older than one it has
    /// already accepted a write from.
    pub fn write<A: Program>(&mut self, fencing: bool, token: u32, ghost: u32, out: &mut Out<A>) -> ResourceMsg {
        if fencing && token < self.max_token {
            return ResourceMsg::Rejected;
        }
        if ghost < self.max_ghost {
            out.raise(STALE_WRITE);
        }
        self.max_token = self.max_token.max(token);
        self.max_ghost = self.max_ghost.max(ghost);
        ResourceMsg::Accepted
    }

    /// ReceiveWrite: answers a write to its sender, as the family's
    /// message `wrap` makes of the answer. `msg` is the resource's part of
    /// the family's message (its `parts!` accessor); the resource gets
    /// nothing else.
    pub fn receive<A: Program>(
        &mut self,
        fencing: bool,
        src: Id,
        msg: Option<&ResourceMsg>,
        wrap: fn(ResourceMsg) -> A::Msg,
        out: &mut Out<A>,
    ) {
        if let Some(&ResourceMsg::Write { token, ghost }) = msg {
            let answer = self.write(fencing, token, ghost, out);
            out.send(src, wrap(answer));
        }
    }
}

// Traces.

impl ResourceMsg {
    /// A write and its answer in words: `write (token 5, acquisition #2)`,
    /// `accepted`. `token` shows a fencing token (a number, or a lock value
    /// where lock values fence); 0 means no token.
    pub fn show(&self, token: &dyn Fn(u32) -> String) -> String {
        match self {
            ResourceMsg::Write { token: 0, ghost } => format!("write (acquisition {})", show::ghost(*ghost)),
            ResourceMsg::Write { token: t, ghost } => {
                format!("write (token {}, acquisition {})", token(*t), show::ghost(*ghost))
            }
            ResourceMsg::Accepted => "accepted".into(),
            ResourceMsg::Rejected => "rejected: token too old".into(),
        }
    }
}

impl Resource {
    /// The resource's state in words; `token` as in [`ResourceMsg::show`],
    /// `None` without fencing.
    pub fn show(&self, token: Option<&dyn Fn(u32) -> String>) -> Vec<(String, String)> {
        let mut out = vec![show::field(crate::words::field::WRITTEN, show::ghost(self.max_ghost))];
        if let Some(token) = token {
            let t = if self.max_token == 0 {
                "none".into()
            } else {
                token(self.max_token)
            };
            out.push(show::field(crate::words::field::HIGHEST_TOKEN, t));
        }
        out
    }
}
