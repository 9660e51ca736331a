//! The renumbering of `primary-replica`: which numbers in a state and in a
//! message are configuration epochs.

use super::{Msg, Node, State};
use crate::algorithms::prelude::*;

/// Lock values are `Seq::Value` and ghost numbers `Seq::Ghost`, the derived
/// walk's; this family has no fencing tokens. Its configuration epochs, a
/// counter that only grows and is only compared, are visited here: they
/// are `Seq::Token` with one Sentinel, drawn lock values with several
/// (`Node::epochs`).
impl Renumber for Node {
    fn numbers(&self, state: &mut State, visit: &mut impl FnMut(Seq, &mut u32)) {
        state.numbers(visit);
        let epochs = self.epochs();
        match state {
            State::Redis(r) => visit(epochs, &mut r.epoch),
            State::Sentinel(s) => {
                visit(epochs, &mut s.epoch);
                visit(epochs, &mut s.voted);
                visit(epochs, &mut s.config);
            }
            State::Client(_) | State::Resource(_) => {}
        }
    }

    fn numbers_msg(&self, msg: &mut Msg, visit: &mut impl FnMut(Seq, &mut u32)) {
        msg.numbers(visit);
        if let Msg::Ping { epoch }
        | Msg::Promote { epoch }
        | Msg::Promoted { epoch }
        | Msg::VoteRequest { epoch }
        | Msg::Vote { epoch, .. }
        | Msg::Config { epoch, .. } = msg
        {
            visit(self.epochs(), epoch);
        }
    }
}
