//! A `.cfg`: its sections, constants and checked names, and the comments that say why a property is left out.

use std::collections::BTreeMap;

use locksmith::properties::Prop;

use crate::common::tla_constants::strip_comments;

/// The TLA+ operator each of the five properties is checked by, in every spec.
pub(super) fn prop_of(name: &str) -> Option<Prop> {
    Some(match name {
        "MutualExclusion" => Prop::MutualExclusion,
        "RwExclusion" => Prop::RwExclusion,
        "NoStaleWrite" => Prop::NoStaleWrite,
        "NoForeignRelease" => Prop::NoForeignRelease,
        "DeadlockFreedom" => Prop::DeadlockFreedom,
        "StarvationFreedom" => Prop::StarvationFreedom,
        _ => return None,
    })
}

/// Where TLC's `.cfg` sections begin (TLC's `tlc2.tool.impl.ModelConfig`).
pub(crate) const CFG_KEYWORDS: [&str; 18] = [
    "SPECIFICATION",
    "INIT",
    "NEXT",
    "CONSTANT",
    "CONSTANTS",
    "INVARIANT",
    "INVARIANTS",
    "PROPERTY",
    "PROPERTIES",
    "VIEW",
    "SYMMETRY",
    "CONSTRAINT",
    "CONSTRAINTS",
    "ACTION_CONSTRAINT",
    "ACTION_CONSTRAINTS",
    "CHECK_DEADLOCK",
    "POSTCONDITION",
    "ALIAS",
];

/// A `.cfg`: the names its INVARIANT(S) and PROPERTY(IES) sections list,
/// and the rest of it (comments dropped), to write back with fewer names.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Cfg {
    pub(super) rest: String,
    pub(super) invariants: Vec<String>,
    pub(super) properties: Vec<String>,
}

impl Cfg {
    pub(super) fn parse(text: &str) -> Cfg {
        let clean = strip_comments(text);
        let mut cfg = Cfg {
            rest: String::new(),
            invariants: Vec::new(),
            properties: Vec::new(),
        };
        // The section being read: None outside INVARIANT/PROPERTY sections.
        let mut listing: Option<bool> = None;
        let mut kept_from = Some(0);
        let mut pos = 0;
        for token in clean.split_whitespace() {
            let at = pos + clean[pos..].find(token).expect("the token is in the text");
            pos = at + token.len();
            if CFG_KEYWORDS.contains(&token) {
                let names = match token {
                    "INVARIANT" | "INVARIANTS" => Some(true),
                    "PROPERTY" | "PROPERTIES" => Some(false),
                    _ => None,
                };
                match (kept_from, names) {
                    (Some(from), Some(_)) => {
                        cfg.rest.push_str(&clean[from..at]);
                        kept_from = None;
                    }
                    (None, None) => kept_from = Some(at),
                    _ => {}
                }
                listing = names;
            } else if let Some(invariant) = listing {
                let list = if invariant {
                    &mut cfg.invariants
                } else {
                    &mut cfg.properties
                };
                list.push(token.to_string());
            }
        }
        if let Some(from) = kept_from {
            cfg.rest.push_str(&clean[from..]);
        }
        cfg
    }

    /// The `.cfg` with only the given invariants and properties.
    pub(super) fn render(&self, invariants: &[String], properties: &[String]) -> String {
        let mut text = self.rest.trim_end().to_string();
        text.push('\n');
        for (keyword, names) in [("INVARIANTS", invariants), ("PROPERTIES", properties)] {
            if !names.is_empty() {
                text.push_str(keyword);
                text.push('\n');
                for name in names {
                    text.push_str(&format!("    {name}\n"));
                }
            }
        }
        text
    }
}

/// The constants a `.cfg` sets, by name, as written (`2`, `TRUE`, `"del"`).
pub(super) fn cfg_constants(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(|l| l.split("\\*").next().unwrap_or_default().trim())
        .map(|l| l.trim_start_matches("CONSTANTS").trim_start_matches("CONSTANT").trim())
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// The comment with which a `.cfg` that lists no temporal property says why.
const LIVENESS_LEFT_OUT: &str = "\\* Temporal properties left out:";

/// The comment with which a `.cfg` that lists only the invariant it shows
/// violated says why (a CI row whose whole state space TLC cannot search
/// in CI's time; it lists no temporal property either).
pub(super) const INVARIANTS_LEFT_OUT: &str = "\\* Invariants left out:";

/// Whether the `.cfg` says, in one of the two comments above, why it does
/// not list property `p`.
pub(super) fn left_out(cfg_text: &str, p: Prop) -> bool {
    let no_safety = cfg_text.contains(INVARIANTS_LEFT_OUT);
    if p.is_safety() {
        no_safety
    } else {
        no_safety || cfg_text.contains(LIVENESS_LEFT_OUT)
    }
}
