//! The constants a `.cfg` sets for a scenario (docs/design.md §10): how each
//! family's `[system]`, `[faults]` and `[bounds]` keys are written as its
//! spec's CONSTANTS. tests/e2e/specs.rs checks every `.cfg` of specs/README.md's
//! table against them; tests/e2e/itf.rs writes the `.cfg` that validates a
//! trace of any scenario with them.

use std::collections::BTreeMap;

use locksmith::algorithms::family::{boolean, quoted};
use locksmith::algorithms::{with_family, Family, FamilyJob};
use locksmith::scenario::Scenario;
use locksmith::world::{Recovery, Targets};

/// The specs that extend `specs/World.tla`: their `.cfg`s set every World
/// constant (every `[faults]` key but `reorder`).
const WORLD_SPECS: [&str; 9] = [
    "SingleRedis.tla",
    "PrimaryReplica.tla",
    "LockTable.tla",
    "Redlock.tla",
    "Coordinator.tla",
    "TokenRing.tla",
    "RicartAgrawala.tla",
    "ZooKeeperLock.tla",
    "EtcdLease.tla",
];

/// The specs whose ASSUME refuses pauses (every other spec models them).
const PAUSELESS_SPECS: [&str; 3] = ["Coordinator.tla", "TokenRing.tla", "RicartAgrawala.tla"];

/// The spec that models the scenario's algorithm and the constants that
/// mirror its `[system]`, `[faults]` and `[bounds]` tables; an error when
/// no `.cfg` can mirror the scenario: it turns on a fault its spec does not
/// model, or symmetry reduction.
pub fn expected_constants(sc: &Scenario) -> Result<(&'static str, BTreeMap<String, String>), String> {
    let f = &sc.faults;
    let file = sc.path.display();
    let mut c: BTreeMap<String, String> = BTreeMap::new();
    let mut set = |k: &str, v: String| {
        c.insert(k.to_string(), v);
    };
    set("Acquisitions", sc.acquisitions.to_string());
    set("MaxDelay", f.max_delay.map_or("Async".to_string(), |d| d.to_string()));
    set("Crashes", f.crashes.to_string());
    set("Pauses", f.pauses.to_string());
    set("MaxPause", f.max_pause.to_string());
    let targets = match f.targets {
        Targets::All => "all",
        Targets::Clients => "clients",
        Targets::Servers => "servers",
    };
    set("Targets", quoted(targets));
    set("None", "None".to_string());
    // The family's own constants, and the [faults] keys beyond those above
    // that its spec models (each family's `Family::tla_constants`).
    struct Constants<'a>(&'a Scenario, &'a mut dyn FnMut(&str, String));
    impl FamilyJob for Constants<'_> {
        type Output = Result<(&'static str, &'static [&'static str]), String>;
        fn run<F: Family>(self) -> Self::Output {
            let p = F::params(self.0).map_err(|e| e.to_string())?;
            Ok((F::SPEC, F::tla_constants(self.0, &p, self.1)?))
        }
    }
    let (module, modelled) = with_family(&sc.algorithm, Constants(sc, &mut set)).unwrap_or_else(|| {
        Err(format!(
            "{file}: algorithm = \"{}\" has no spec in specs/",
            sc.algorithm
        ))
    })?;
    let spec = *WORLD_SPECS
        .iter()
        .find(|s| s.strip_suffix(".tla") == Some(module))
        .ok_or_else(|| format!("{file}: specs/{module}.tla is not among the specs that extend World.tla"))?;
    // The specs that extend specs/World.tla set every [faults] key as a
    // constant (each models the faults its arm lists).
    if WORLD_SPECS.contains(&spec) {
        set("MinPause", f.min_pause.to_string());
        set("ClockJumps", f.clock_jumps.to_string());
        set("MaxJump", f.max_jump.to_string());
        set("MaxDrift", f.max_drift.to_string());
        set("Partitions", f.partitions.to_string());
        set("Loss", boolean(f.loss));
        set("Duplication", boolean(f.duplicate));
        set("Recovery", quoted(recovery(f.recovery)));
    }
    let faults = [
        ("pauses", f.pauses != 0 && PAUSELESS_SPECS.contains(&spec)),
        ("one_way", f.one_way),
        ("min_pause", f.min_pause != 1),
        ("clock_jumps", f.clock_jumps != 0),
        ("max_drift", f.max_drift != 0),
        ("partitions", f.partitions != 0),
        ("loss", f.loss),
        ("duplicate", f.duplicate),
        ("reorder", f.reorder),
    ];
    if let Some((key, _)) = faults.iter().find(|(key, used)| *used && !modelled.contains(key)) {
        return Err(format!(
            "{file}: [faults] {key} is set, and specs/{spec} does not model it"
        ));
    }
    if sc
        .system
        .get("work")
        .and_then(toml::Value::as_integer)
        .is_some_and(|w| w > 0)
    {
        return Err(format!(
            "{file}: [system] work is set, and specs/{spec} has holders write at once"
        ));
    }
    if sc.symmetry {
        return Err(format!(
            "{file}: [bounds] symmetry is on, and no .cfg declares a SYMMETRY: TLC would count every ordering"
        ));
    }
    Ok((spec, c))
}

/// A `[faults] recovery` value as the specs that model it name it.
fn recovery(r: Recovery) -> &'static str {
    match r {
        Recovery::Eventual => "eventual",
        Recovery::None => "none",
    }
}

/// `text` with its comments (`\*` to the end of the line, nested `(* *)`)
/// blanked out, newlines kept.
#[allow(dead_code)] // each test binary uses its own part of common
pub fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut depth, mut line_comment) = (0, 0usize, false);
    while i < b.len() {
        let two = &b[i..(i + 2).min(b.len())];
        if line_comment {
            line_comment = b[i] != b'\n';
        } else if two == b"(*" {
            depth += 1;
            out.push_str("  ");
            i += 2;
            continue;
        } else if depth > 0 && two == b"*)" {
            depth -= 1;
            out.push_str("  ");
            i += 2;
            continue;
        } else if depth == 0 && two == b"\\*" {
            line_comment = true;
        }
        let ch = text[i..].chars().next().expect("i is on a char boundary");
        if ch == '\n' || (depth == 0 && !line_comment) {
            out.push(ch);
        } else {
            out.push(' ');
        }
        i += ch.len_utf8();
    }
    out
}
