//! TLC's verdict on every name a `.cfg` checks, and where it differs from the Rust checker's.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::Verdict;

use super::cfg::{left_out, prop_of, Cfg, INVARIANTS_LEFT_OUT};
use super::suite::{load, read, Row};
use super::tlc::{loud, Tlc, TlcRun, Violation};
use crate::common::jvm::Jit;

/// TLC's verdicts on one `.cfg`: the names it lists under INVARIANTS and
/// PROPERTIES, those found violated, and the distinct-state count of a
/// complete search.
#[derive(Debug)]
pub(super) struct TlcVerdicts {
    pub(super) checked: Vec<String>,
    pub(super) violated: BTreeSet<String>,
    /// `None` when every name was found violated before any run searched
    /// the whole space (a CI row that only shows its violation).
    pub(super) distinct: Option<usize>,
    /// One line per TLC run: what it checked and found.
    pub(super) runs: Vec<String>,
}

/// The module of a recording run: `spec` with one invariant, [`RECORD`],
/// which holds in every state but prints the name of each of
/// `invariants` that is false there. TLC evaluates it on every distinct
/// state, as it would each invariant, and does not stop: one search finds
/// every invariant violated somewhere, where TLC alone stops at the
/// first and needs a run per violated invariant, plus one.
fn recorder_module(spec: &str, invariants: &[String]) -> String {
    let mut text = format!(
        "---- MODULE {RECORDER} ----\nEXTENDS {}, TLC\n{RECORD} ==\n    /\\ TRUE\n",
        spec.trim_end_matches(".tla")
    );
    for name in invariants {
        text.push_str(&format!("    /\\ ~{name} => PrintT(<<\"{RECORDED}\", \"{name}\">>)\n"));
    }
    text.push_str("====\n");
    text
}

/// The recording run's module and invariant, and the word its lines start
/// with ([`recorder_module`]).
const RECORDER: &str = "LocksmithVerdicts";
const RECORD: &str = "LocksmithRecord";
pub(super) const RECORDED: &str = "locksmith-violated";

/// Runs TLC on `spec` (in `dir`) with the `.cfg` text `cfg_text` until
/// every name it checks has a verdict. The invariants are recorded, not
/// checked ([`recorder_module`]): an invariant printed false is violated,
/// and once a run has searched the whole space the others hold. TLC stops
/// at the first property it checks as an invariant (`[]P`) found
/// violated, and reports a temporal violation without saying which
/// property: each named violation is recorded and the name dropped from a
/// copy of the `.cfg` (written under `work`), and TLC runs again; when TLC
/// reports a temporal violation, the search was complete (`-lncheck
/// final`), and each property left is checked alone. A `.cfg` that lists
/// only the invariants it shows violated ([`INVARIANTS_LEFT_OUT`]: its
/// whole space is too big for CI) has them checked by TLC itself, which
/// stops at the first violation.
///
/// With `apart`, each property is checked alone from the start instead: a
/// run that checks them together and finds one violated cannot say which,
/// so each is then checked alone anyway, and the run together is the
/// dearest of all (TLC builds its behaviour graph for every property at
/// once: 58 s of `PrimaryReplicaCILiveness.cfg`'s 124). The verdicts are
/// TLC's either way; `tlc_row` asks for this where the Rust model finds a
/// property violated, which only chooses the order of TLC's runs.
pub(super) fn tlc_verdicts(
    tlc: &Tlc,
    dir: &Path,
    spec: &str,
    cfg_text: &str,
    work: &Path,
    apart: bool,
) -> Result<TlcVerdicts, String> {
    fs::create_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
    let cfg = Cfg::parse(cfg_text);
    let mut found = TlcVerdicts {
        checked: cfg.invariants.iter().chain(&cfg.properties).cloned().collect(),
        violated: BTreeSet::new(),
        distinct: None,
        runs: Vec::new(),
    };
    let mut distinct: Option<usize> = None;
    let run = |invariants: &[String],
               properties: &[String],
               recording: bool,
               found: &mut TlcVerdicts,
               distinct: &mut Option<usize>|
     -> Result<TlcRun, String> {
        let n = found.runs.len() + 1;
        let path = work.join(format!("run-{n}.cfg"));
        let record = [RECORD.to_string()];
        let listed = if recording { &record[..] } else { invariants };
        fs::write(&path, cfg.render(listed, properties)).map_err(|e| format!("{}: {e}", path.display()))?;
        let start = std::time::Instant::now();
        let checks = invariants
            .iter()
            .chain(properties)
            .cloned()
            .collect::<Vec<_>>()
            .join(" ");
        let meta = work.join(format!("meta-{n}"));
        let result = if recording {
            let module = work.join(format!("{RECORDER}.tla"));
            fs::write(&module, recorder_module(spec, invariants)).map_err(|e| format!("{}: {e}", module.display()))?;
            tlc.run(work, RECORDER, &path, &meta, Some(dir))
        } else {
            tlc.run(dir, spec, &path, &meta, None)
        }
        .map_err(|e| format!("TLC run {n} (checking {checks}): {e}"))?;
        let recorded: Vec<&str> = result.recorded.iter().map(String::as_str).collect();
        found.runs.push(format!(
            "run {n}, {:.0} s, {} [{checks}]: {}{}{}",
            start.elapsed().as_secs_f64(),
            if recording { "recording" } else { "checking" },
            if recorded.is_empty() {
                String::new()
            } else {
                format!("{} false in some state; ", recorded.join(" "))
            },
            match &result.violation {
                None => "no error".to_string(),
                Some(Violation::Named(p)) => format!("{p} violated"),
                Some(Violation::Temporal) => "temporal properties violated".to_string(),
            },
            result
                .distinct
                .map_or(String::new(), |d| format!(", {d} distinct states")),
        ));
        if let Some(d) = result.distinct {
            if distinct.is_some_and(|before| before != d) {
                return Err(format!(
                    "TLC's complete searches disagree: {distinct:?} and {d} distinct states"
                ));
            }
            *distinct = Some(d);
        }
        Ok(result)
    };
    // Whether TLC finds property `p`, checked alone, violated.
    let alone_violated = |p: &String, found: &mut TlcVerdicts, distinct: &mut Option<usize>| -> Result<bool, String> {
        match run(&[], std::slice::from_ref(p), false, found, distinct)?.violation {
            None => Ok(false),
            Some(Violation::Temporal) => Ok(true),
            Some(Violation::Named(n)) if n == *p => Ok(true),
            Some(Violation::Named(n)) => Err(format!("TLC, checking {p} alone, reports {n} violated")),
        }
    };
    let (mut invariants, mut properties) = (cfg.invariants.clone(), cfg.properties.clone());
    let alone = if apart {
        std::mem::take(&mut properties)
    } else {
        Vec::new()
    };
    let record = !cfg_text.contains(INVARIANTS_LEFT_OUT);
    // Each run but the last takes a name out: at most one run per name, plus one.
    for _ in 0..=found.checked.len() {
        let recording = record && !invariants.is_empty();
        let result = run(&invariants, &properties, recording, &mut found, &mut distinct)?;
        if recording {
            if let Some(name) = result.recorded.iter().find(|n| !invariants.contains(n)) {
                return Err(format!("TLC printed {name} false, which this run did not record"));
            }
            invariants.retain(|n| !result.recorded.contains(n));
            found.violated.extend(result.recorded.iter().cloned());
            if result.distinct.is_some() {
                // The whole space was searched: the invariants not printed
                // hold.
                invariants.clear();
            }
        }
        match result.violation {
            None => break,
            Some(Violation::Named(name)) => {
                if !invariants.contains(&name) && !properties.contains(&name) {
                    return Err(format!(
                        "TLC reports {name} violated, which the .cfg does not ask it to check"
                    ));
                }
                invariants.retain(|n| *n != name);
                properties.retain(|n| *n != name);
                found.violated.insert(name);
                if invariants.is_empty() && properties.is_empty() {
                    break;
                }
            }
            Some(Violation::Temporal) => {
                // Every invariant left holds; which properties are violated?
                let last = properties.len().saturating_sub(1);
                for (i, p) in properties.iter().enumerate() {
                    let none_yet = !properties[..i].iter().any(|q| found.violated.contains(q));
                    // The others hold, and TLC found one violated.
                    if (i == last && none_yet) || alone_violated(p, &mut found, &mut distinct)? {
                        found.violated.insert(p.clone());
                    }
                }
                properties.clear();
                break;
            }
        }
    }
    for p in &alone {
        if alone_violated(p, &mut found, &mut distinct)? {
            found.violated.insert(p.clone());
        }
    }
    if distinct.is_none() && !(invariants.is_empty() && properties.is_empty()) {
        // No run searched the whole state space, though some names hold
        // (a run stopped at a violation it could not print): search it
        // once more with what holds.
        let result = run(&invariants, &[], false, &mut found, &mut distinct)?;
        if let Some(v) = result.violation {
            return Err(format!("TLC, rerun with the invariants left, reports {v:?}"));
        }
    }
    found.distinct = distinct;
    Ok(found)
}

/// Where TLC's verdicts on `cfg` differ from the Rust checker's on the
/// row's scenario: one line per disagreement.
pub(super) fn disagreements(cfg: &str, cfg_text: &str, tlc: &TlcVerdicts, rust: &crate::common::Result) -> Vec<String> {
    let mut out = Vec::new();
    let word = |violated: bool| if violated { "violated" } else { "holds" };
    for p in Prop::ALL {
        if !tlc.checked.iter().any(|n| prop_of(n) == Some(p)) && !left_out(cfg_text, p) {
            out.push(format!(
                "specs/{cfg}: checks no {} (list it under INVARIANTS or PROPERTIES)",
                p.name()
            ));
        }
    }
    for name in &tlc.checked {
        let tlc_violated = tlc.violated.contains(name);
        match prop_of(name) {
            None if tlc_violated => out.push(format!(
                "specs/{cfg}: TLC finds {name} violated (not a property: the spec is wrong)"
            )),
            None => {}
            Some(p) => match rust.verdict(p) {
                Verdict::Unknown => out.push(format!(
                    "specs/{cfg}: the Rust checker's verdict on {} is unknown",
                    p.name()
                )),
                v if (v == Verdict::Violated) != tlc_violated => out.push(format!(
                    "specs/{cfg}: {name} ({}): TLC {}, Rust {}",
                    p.name(),
                    word(tlc_violated),
                    v.as_str()
                )),
                _ => {}
            },
        }
    }
    out
}

/// Runs TLC on one row's `.cfg` and the Rust checker on its scenario, and
/// says loudly what TLC found; the disagreements.
pub(super) fn tlc_row(tlc: &Tlc, row: &Row) -> Vec<String> {
    let started = std::time::Instant::now();
    let rust = crate::common::run(&load(row), Options::default());
    // Named by suite too: specs/ and specs/mirror/ share some `.cfg` names,
    // and their rows run at once under LOCKSMITH_TLC_SLOW.
    let suite = row.suite.rel().replace('/', "-");
    let work = crate::common::TempDir::new(&format!("tlc-{suite}-{}", row.cfg.trim_end_matches(".cfg")));
    let cfg_text = read(&row.suite.dir().join(&row.cfg));
    let module = row.spec.trim_end_matches(".tla");
    let tlc = &Tlc {
        jit: Jit::for_row(row.secs),
        ..tlc.clone()
    };
    let apart = Cfg::parse(&cfg_text)
        .properties
        .iter()
        .filter_map(|p| prop_of(p))
        .any(|p| rust.verdict(p) == Verdict::Violated);
    match tlc_verdicts(tlc, &row.suite.dir(), module, &cfg_text, work.path(), apart) {
        Err(e) => vec![format!("{}/{}: {e}", row.suite.rel(), row.cfg)],
        Ok(v) => {
            let wrong = disagreements(&row.cfg, &cfg_text, &v, &rust);
            let violated: Vec<&str> = v.violated.iter().map(String::as_str).collect();
            loud(&format!(
                "TLC on {}/{} ({:.0} s): {} distinct states (Rust: {} unique), violated: [{}]; {}\n    {}",
                row.suite.rel(),
                row.cfg,
                started.elapsed().as_secs_f64(),
                v.distinct
                    .map_or("not searched in full".to_string(), |d| format!("{d}")),
                rust.unique_states,
                violated.join(", "),
                if wrong.is_empty() {
                    "agrees with the Rust model"
                } else {
                    "DISAGREES with the Rust model"
                },
                v.runs.join("\n    ")
            ));
            wrong
        }
    }
}
