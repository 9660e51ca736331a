//! The renumbering of `primary-replica`: which numbers in a state and in a
//! message are lock values, ghost numbers and configuration epochs.

use super::{Msg, Node, State};
use crate::algorithms::prelude::*;

impl Renumber for Node {
    /// Lock values are `Seq::Value`, ghost numbers `Seq::Ghost`; this
    /// family has no fencing tokens, and its configuration epochs, a
    /// counter that only grows and is only compared, are `Seq::Token`
    /// with one Sentinel, drawn lock values with several ([`Node::epochs`]).
    fn numbers(&self, state: &mut State, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match state {
            State::Client(c) => {
                visit(Seq::Ghost, &mut c.ghost);
                visit(Seq::Value, &mut c.value);
            }
            State::Redis(r) => {
                visit(self.epochs(), &mut r.epoch);
                if let Some(k) = &mut r.key {
                    visit(Seq::Value, &mut k.value);
                }
                for w in r.waiting.iter_mut() {
                    visit(Seq::Value, &mut w.value);
                }
            }
            State::Resource(r) => r.numbers(false, visit),
            State::Sentinel(s) => {
                visit(self.epochs(), &mut s.epoch);
                visit(self.epochs(), &mut s.voted);
                visit(self.epochs(), &mut s.config);
            }
        }
    }

    fn numbers_msg(&self, msg: &mut Msg, visit: &mut dyn FnMut(Seq, &mut u32)) {
        match msg {
            Msg::Granted { ghost, value, .. } => {
                visit(Seq::Ghost, ghost);
                visit(Seq::Value, value);
            }
            Msg::SetNxPx { value }
            | Msg::SetOk { value }
            | Msg::Wait { value }
            | Msg::CompareAndDelete { value }
            | Msg::Refused { value }
            | Msg::WaitTimedOut { value }
            | Msg::Released { value } => visit(Seq::Value, value),
            Msg::Replicate { key: Some(k), .. } | Msg::FullSync { key: Some(k), .. } => visit(Seq::Value, &mut k.value),
            Msg::Ping { epoch }
            | Msg::Promote { epoch }
            | Msg::Promoted { epoch }
            | Msg::VoteRequest { epoch }
            | Msg::Vote { epoch, .. }
            | Msg::Config { epoch, .. } => visit(self.epochs(), epoch),
            Msg::NoReplicas { value } => visit(Seq::Value, value),
            Msg::Resource(m) => m.numbers(false, visit),
            _ => {}
        }
    }
}
