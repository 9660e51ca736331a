//! The words of `lock-table`: SQL statements and their results, steps,
//! timers and node states as reports and traces show them.

use super::{Msg, Node, State, Step, Timer};
use crate::algorithms::prelude::*;

impl Describe for Node {
    fn persistence(&self) -> &'static str {
        match self {
            Node::Database(_) => "with its committed rows",
            _ => "empty",
        }
    }

    fn show_msg(&self, msg: &Msg, _names: &[String]) -> String {
        let v = |v: &u32| show::value(*v);
        match msg {
            // With expiry, one statement takes the row when it is absent
            // or its expires_at has passed (the model's insert, which
            // first removes an expired row); otherwise it inserts nothing.
            Msg::Insert { value } => match self.params().filter(|p| p.expiry) {
                Some(p) => format!(
                    "INSERT INTO locks VALUES ('lock', '{v}', now() + {t}) ON CONFLICT (name) DO UPDATE \
                     SET owner = '{v}', expires_at = now() + {t} WHERE locks.expires_at < now()",
                    v = v(value),
                    t = p.ttl
                ),
                None => format!("INSERT INTO locks VALUES ('lock', '{}')", v(value)),
            },
            Msg::Delete { value } => format!("DELETE FROM locks WHERE owner = '{}'", v(value)),
            Msg::Inserted { value, .. } => format!("INSERT 0 1 ('{}')", v(value)),
            Msg::Duplicate { value } if self.params().is_some_and(|p| p.expiry) => {
                format!("INSERT 0 0 ('{}')", v(value))
            }
            Msg::Duplicate { value } => format!("ERROR: duplicate key ('{}')", v(value)),
            Msg::Deleted { value } => format!("DELETE done ('{}')", v(value)),
            Msg::Resource(m) => m.show(&show::token),
        }
    }

    fn show_step(&self, step: &Step) -> String {
        match step {
            Step::Acquire => "asks for the lock: INSERT INTO locks …",
            Step::Check => "checks its validity",
            Step::Write => "writes to the resource",
        }
        .into()
    }

    fn show_timer(&self, timer: &Timer) -> String {
        match timer {
            Timer::RowExpiry => "row's expires_at",
            Timer::Timeout => "statement timeout",
            Timer::Validity => "validity timer",
            Timer::Retry => "back-off",
        }
        .into()
    }

    fn show_state(&self, state: &State, _names: &[String]) -> Option<Vec<(String, String)>> {
        Some(match state {
            State::Database(d) => {
                let row = match d.row {
                    None => "none".to_string(),
                    Some(r) if r.expired => format!("('lock', '{}'), expired", show::value(r.owner)),
                    Some(r) => format!("('lock', '{}')", show::value(r.owner)),
                };
                vec![show::field("row", row)]
            }
            State::Client(c) => {
                let mut out = show::script(&c.script);
                out.push(show::field(field::VALUE, show::value(c.value)));
                if self.params().is_some_and(|p| p.validity()) {
                    out.push(show::field(field::VALIDITY_CHECKED, show::yes(c.checked)));
                }
                out.push(show::field(field::ACQUISITION, show::ghost(c.ghost)));
                out
            }
            State::Resource(r) => r.show(None),
        })
    }
}
