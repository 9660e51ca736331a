//! The TLA+ specs (docs/design.md §10), in two suites.
//! - `specs/`: the clean-room specs, one per family, written from the
//!   published algorithm by authors who did not read the Rust, with an MC
//!   module per family for what only TLC needs. Their contract is verdict
//!   parity: with `TLA2TOOLS_JAR` set to a `tla2tools.jar` (and `java` on
//!   the path), TLC runs on every `.cfg` of `specs/README.md`'s table and its
//!   verdict on every invariant and temporal property the `.cfg` lists must
//!   be the Rust checker's on the row's scenario, whose parameters are the
//!   `.cfg`'s constants. TLC's distinct-state count is printed beside the
//!   Rust count as information: the specs take their own steps.
//! - `specs/mirror/`: the older specs that write the Rust state in TLA+
//!   action for action (the vocabulary of the ITF traces, tests/e2e/itf.rs).
//!   Their table pins the Rust counts; TLC runs on them only with
//!   `LOCKSMITH_TLC_SLOW=1`, as on the clean-room rows marked slow.
//!
//! Every spec parses with the TLA+ grammar. Without TLC these tests say
//! loudly that TLC was not run, and fail under `CI=true`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use locksmith::properties::Prop;
use locksmith::scenario::{self, Verdict};

use crate::common::tla_constants::expected_constants;

mod cfg;
mod grammar;
mod suite;
mod tlc;
mod verdicts;

pub(crate) use cfg::CFG_KEYWORDS;
pub(crate) use suite::{load, table, Row, Suite};
pub(crate) use tlc::Tlc;

use cfg::{cfg_constants, left_out, prop_of, Cfg};
use grammar::{syntax_error, tla_parser};
use suite::{read, spec_files};
use tlc::{interpret, loud, TlcRun, Violation};
use verdicts::{disagreements, tlc_row, tlc_verdicts, TlcVerdicts, RECORDED};

/// Set (to anything) to run TLC on the rows whose TLC time says "slow" too.
const SLOW_VAR: &str = "LOCKSMITH_TLC_SLOW";
/// Names the rows (their `.cfg`s, comma-separated) to run, and no other.
const ROWS_VAR: &str = "LOCKSMITH_TLC_ROWS";

#[test]
fn every_spec_parses() {
    let specs: Vec<PathBuf> = Suite::ALL.iter().flat_map(|s| spec_files(&s.dir(), "tla")).collect();
    for suite in Suite::ALL {
        assert!(
            !spec_files(&suite.dir(), "tla").is_empty(),
            "{} holds no .tla file",
            suite.dir().display()
        );
    }
    let mut parser = tla_parser();
    for path in specs {
        if let Some(error) = syntax_error(&mut parser, &read(&path)) {
            panic!("{}: {error}", path.display());
        }
    }
}

#[test]
fn the_grammar_rejects_a_broken_spec() {
    // Guards the test above against a grammar that accepts anything.
    let broken = "---- MODULE Broken ----\nVARIABLE x\nInit == x = \nNext == x' = x + 1 /\\\n====\n";
    assert!(syntax_error(&mut tla_parser(), broken).is_some());
}

#[test]
fn readme_counts_are_the_rust_models() {
    for suite in Suite::ALL {
        readme_counts(suite);
    }
}

fn readme_counts(suite: Suite) {
    let rows = table(suite);
    let dir = suite.dir();
    for cfg in spec_files(&dir, "cfg") {
        assert!(
            rows.iter().any(|r| dir.join(&r.cfg) == cfg),
            "{} has no row in {}'s table",
            cfg.display(),
            dir.join("README.md").display()
        );
    }
    for row in &rows {
        for file in [&row.spec, &row.cfg] {
            assert!(
                dir.join(file).is_file(),
                "{}/README.md names {file}, which does not exist",
                dir.display()
            );
        }
        let sc = load(row);
        // The scenario's own [expect] table holds too (its verdicts are the
        // ones TLC must reproduce).
        let rust = crate::common::meets_expectations(&sc).unique_states;
        assert_eq!(
            rust, row.rust,
            "specs/README.md says {} has {} unique states; the Rust model now finds {rust}: update the table (and rerun TLC on {})",
            row.scenario, row.rust, row.cfg
        );
    }
}

/// A scenario text with the given `[system]` and `[faults]` lines.
fn scenario_text(algorithm: &str, system: &str, faults: &str) -> String {
    format!(
        "summary = \"x\"\nalgorithm = \"{algorithm}\"\n[system]\n{system}\n[faults]\n{faults}\n[bounds]\n[expect]\n"
    )
}

#[test]
fn a_fault_the_spec_does_not_model_is_refused() {
    // Guards cfg_constants_are_the_scenarios: a scenario turning on a fault
    // its spec leaves out cannot be tabled.
    let cases = [
        ("primary-replica", "max_drift = 1"),
        ("primary-replica", "clock_jumps = 1\nmax_jump = 2"),
        ("redlock", "reorder = true"),
        ("single-redis", "reorder = true"),
        ("lock-table", "reorder = true"),
        ("coordinator", "partitions = 1"),
        ("token-ring", "loss = true"),
        ("ricart-agrawala", "partitions = 1"),
    ];
    for (algorithm, faults) in cases {
        let text = scenario_text(algorithm, "", faults);
        let sc = scenario::parse(Path::new("unmodelled.toml"), &text).unwrap_or_else(|e| panic!("{e}"));
        let refusal = expected_constants(&sc).err();
        assert!(
            refusal.as_ref().is_some_and(|e| e.contains("does not model it")),
            "{algorithm} with {faults:?}: {refusal:?}"
        );
    }
    // Nor can a scenario checked with symmetry reduction.
    let text = scenario_text("redlock", "", "max_delay = 1").replace("[bounds]\n", "[bounds]\nsymmetry = true\n");
    let sc = scenario::parse(Path::new("symmetric.toml"), &text).unwrap_or_else(|e| panic!("{e}"));
    assert!(expected_constants(&sc).is_err_and(|e| e.contains("symmetry")));
    // And the faults World.tla models are accepted.
    for (algorithm, spec) in [
        ("redlock", "Redlock.tla"),
        ("single-redis", "SingleRedis.tla"),
        ("lock-table", "LockTable.tla"),
    ] {
        let faults = "clock_jumps = 1\nmax_jump = 2\nmax_drift = 1\npartitions = 1\nloss = true\nduplicate = true";
        let text = scenario_text(algorithm, "", faults);
        let sc = scenario::parse(Path::new("modelled.toml"), &text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(expected_constants(&sc).map(|(s, _)| s), Ok(spec), "{algorithm}");
    }
}

#[test]
fn cfg_constants_are_the_scenarios() {
    for row in Suite::ALL.into_iter().flat_map(table) {
        let sc = load(&row);
        let (spec, expected) = expected_constants(&sc).unwrap_or_else(|e| panic!("{e}"));
        let module = row.suite.module(spec);
        assert_eq!(
            row.spec,
            module,
            "{}/README.md: {} is a {} scenario, modelled by {module}",
            row.suite.dir().display(),
            row.scenario,
            sc.algorithm
        );
        let actual = cfg_constants(&read(&row.suite.dir().join(&row.cfg)));
        assert_eq!(
            actual, expected,
            "specs/{}: its CONSTANTS differ from {}",
            row.cfg, row.scenario
        );
    }
}

// ---------------------------------------------------------------------------
// TLC: its verdict on every property of every .cfg, and its state count.
// ---------------------------------------------------------------------------

#[test]
fn tlc_agrees_with_the_rust_model() {
    let Some(tlc) = Tlc::for_test("specs/*.cfg") else {
        return;
    };
    let slow_too = std::env::var_os(SLOW_VAR).is_some();
    // `LOCKSMITH_TLC_ROWS=Redlock.cfg,specs/mirror/Redlock.cfg`: only those
    // rows (a bare name in either suite), slow or not, to settle some rows'
    // verdicts without the whole table.
    let only: Option<Vec<String>> = std::env::var(ROWS_VAR)
        .ok()
        .map(|v| v.split(',').map(|c| c.trim().to_string()).collect());
    let (slow, rows): (Vec<Row>, Vec<Row>) = Suite::ALL
        .into_iter()
        .flat_map(table)
        .filter(|r| {
            let path = format!("{}/{}", r.suite.rel(), r.cfg);
            only.as_ref().is_none_or(|o| o.contains(&r.cfg) || o.contains(&path))
        })
        .partition(|r| r.slow && !slow_too && only.is_none());
    if !slow.is_empty() {
        let names: Vec<String> = slow.iter().map(|r| format!("{}/{}", r.suite.rel(), r.cfg)).collect();
        loud(&format!(
            "\n*** TLC NOT RUN on {}: the table marks them slow; set {SLOW_VAR}=1 to run them (see specs/README.md)\n",
            names.join(", ")
        ));
    }
    // One TLC (one worker) per core, on the rows in turn, the longest
    // first by the table's TLC times, so that no long row starts last
    // while the other core has nothing left to run.
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(rows[i].secs));
    let jobs = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(rows.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(vec![Vec::new(); rows.len()]);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&i) = order.get(k) else { break };
                let row = &rows[i];
                let wrong = tlc_row(&tlc, row);
                failures.lock().expect("no thread panicked holding it")[i] = wrong;
            });
        }
    });
    let failures = failures.into_inner().expect("no thread panicked holding it").concat();
    assert!(
        failures.is_empty(),
        "TLC and the Rust model disagree:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_cfg_lists_its_checks_and_rewrites() {
    // The harness rewrites each .cfg with fewer names: parse every one,
    // and check that a rewrite keeps the rest and lists what it is given.
    for path in Suite::ALL.iter().flat_map(|s| spec_files(&s.dir(), "cfg")) {
        let cfg = Cfg::parse(&read(&path));
        let names: Vec<&String> = cfg.invariants.iter().chain(&cfg.properties).collect();
        // A cfg may leave the temporal properties out where TLC cannot
        // finish them in CI's time, and must say so.
        let text = read(&path);
        for p in Prop::ALL {
            assert!(
                names.iter().any(|n| prop_of(n) == Some(p)) || left_out(&text, p),
                "{}: checks no {} (list it under INVARIANTS or PROPERTIES)",
                path.display(),
                p.name()
            );
        }
        assert!(cfg.rest.contains("SPECIFICATION"), "{}: {:?}", path.display(), cfg.rest);
        let again = Cfg::parse(&cfg.render(&cfg.invariants, &cfg.properties));
        assert_eq!(
            again,
            Cfg {
                rest: again.rest.clone(),
                ..cfg.clone()
            }
        );
        assert_eq!(cfg_constants(&again.rest), cfg_constants(&read(&path)));
        let fewer = Cfg::parse(&cfg.render(&cfg.invariants[1..], &[]));
        assert_eq!(
            (fewer.invariants.as_slice(), fewer.properties.len()),
            (&cfg.invariants[1..], 0)
        );
    }
    let text = "SPECIFICATION Spec \\* INVARIANT Commented\nINVARIANT A B (* PROPERTY C\n*) PROPERTY D\nVIEW V INVARIANTS E\nCONSTANT N = 1";
    let cfg = Cfg::parse(text);
    assert_eq!(cfg.invariants, ["A", "B", "E"]);
    assert_eq!(cfg.properties, ["D"]);
    assert_eq!(
        cfg.rest.split_whitespace().collect::<Vec<_>>(),
        ["SPECIFICATION", "Spec", "VIEW", "V", "CONSTANT", "N", "=", "1"]
    );
}

/// TLC's `-tool` output, as lines of messages `(code, severity, text)`.
fn tool_output(messages: &[(u32, u32, &str)]) -> String {
    messages
        .iter()
        .map(|(code, severity, text)| {
            format!("@!@!@STARTMSG {code}:{severity} @!@!@\n{text}\n@!@!@ENDMSG {code} @!@!@\n")
        })
        .collect()
}

#[test]
fn tlc_output_is_read_by_its_codes() {
    let stats = (
        2199,
        0,
        "9761 states generated, 3397 distinct states found, 0 states left on queue.",
    );
    let checking = (
        2192,
        0,
        "Checking temporal properties for the complete state space with 3397 total distinct states at (x)",
    );
    let ok = tool_output(&[(2193, 0, "Model checking completed. No error has been found."), stats]);
    assert_eq!(
        interpret(&ok, Some(0)),
        Ok(TlcRun {
            violation: None,
            distinct: Some(3397),
            recorded: BTreeSet::new()
        })
    );
    // A recording run's lines, outside TLC's messages.
    let printed = format!("{ok}<<\"{RECORDED}\", \"NoStaleWrite\">>\n<<\"{RECORDED}\", \"NoStaleWrite\">>\n");
    assert_eq!(
        interpret(&printed, Some(0)).map(|r| r.recorded.into_iter().collect::<Vec<_>>()),
        Ok(vec!["NoStaleWrite".to_string()])
    );
    let inside = tool_output(&[
        (
            2200,
            0,
            &format!("Progress(3) at …\n<<\"{RECORDED}\", \"MutualExclusion\">>"),
        ),
        (2193, 0, "Model checking completed. No error has been found."),
        stats,
    ]);
    assert_eq!(
        interpret(&inside, Some(0)).map(|r| r.recorded.into_iter().collect::<Vec<_>>()),
        Ok(vec!["MutualExclusion".to_string()])
    );
    // No success message, or a non-zero status, without a violation: an error.
    assert!(interpret(&tool_output(&[stats]), Some(0)).is_err());
    assert!(interpret(&ok, Some(75)).is_err());
    // An invariant violated: its name, and a partial search has no count.
    let inv = tool_output(&[
        (2110, 1, "Invariant MutualExclusion is violated."),
        (2121, 1, "The behavior up to this point is:"),
        stats,
    ]);
    let named = |n: &str| Some(Violation::Named(n.to_string()));
    assert_eq!(
        interpret(&inv, Some(12)),
        Ok(TlcRun {
            violation: named("MutualExclusion"),
            distinct: None,
            recorded: BTreeSet::new()
        })
    );
    let init = tool_output(&[(2107, 1, "Invariant TypeOK is violated by the initial state:")]);
    assert_eq!(interpret(&init, Some(12)).map(|r| r.violation), Ok(named("TypeOK")));
    // A temporal violation after the complete search: its count.
    let temporal = tool_output(&[checking, (2116, 1, "Temporal properties were violated.\n"), stats]);
    assert_eq!(
        interpret(&temporal, Some(13)),
        Ok(TlcRun {
            violation: Some(Violation::Temporal),
            distinct: Some(3397),
            recorded: BTreeSet::new()
        })
    );
    // The counterexample cannot be rebuilt under a VIEW (tlaplus/tlaplus#1045):
    // the verdict stands, the count is not trusted.
    let lost = tool_output(&[
        (2116, 1, "Temporal properties were violated."),
        (1000, 1, "Failed to recover the next state from its fingerprint."),
    ]);
    assert_eq!(
        interpret(&lost, Some(255)),
        Ok(TlcRun {
            violation: Some(Violation::Temporal),
            distinct: None,
            recorded: BTreeSet::new()
        })
    );
    // TLC's own errors, with its words.
    let undefined = tool_output(&[(
        2229,
        1,
        "The invariant Bogus specified in the configuration file\nis not defined in the specification.",
    )]);
    let e = interpret(&undefined, Some(151)).unwrap_err();
    assert!(e.contains("151") && e.contains("Bogus"), "{e}");
    let parse = format!(
        "Parsing file Bad.tla\n***Parse Error***\nEncountered \"====\" at line 3\n{}",
        tool_output(&[(3002, 1, "Parsing or semantic analysis failed.")])
    );
    let e = interpret(&parse, Some(150)).unwrap_err();
    assert!(e.contains("Parse Error") && e.contains("line 3"), "{e}");
}

/// A throwaway spec for the harness's own test: a counter from 0 to `Max`
/// that then stays there.
const COUNTER_TLA: &str = r#"---- MODULE Counter ----
EXTENDS Naturals
CONSTANT Max
VARIABLE x
Init == x = 0
Next == x' = IF x < Max THEN x + 1 ELSE x
Spec == Init /\ [][Next]_x /\ WF_x(Next)
NonNegative == x >= 0
Small == x < 3
Stays == [](x = 0)
Reaches == <>(x = Max)
Overflows == <>(x = Max + 1)
Returns == []<>(x = 0)
Settles == <>[](x = Max)
View == x
====
"#;

const COUNTER_CFG: &str = r"\* Two invariants, one violated; a property TLC checks as an invariant
\* (violated); four temporal properties, two violated.
SPECIFICATION Spec
CONSTANT Max = 5
VIEW View
INVARIANTS NonNegative Small
PROPERTIES
    Stays
    Reaches
    Overflows
    Returns
    Settles
";

#[test]
fn the_tlc_harness_finds_every_violation() {
    let Some(tlc) = Tlc::for_test("the harness's own test spec") else {
        return;
    };
    let dir = crate::common::TempDir::new("tlc-harness");
    fs::write(dir.join("Counter.tla"), COUNTER_TLA).expect("write Counter.tla");
    let v = tlc_verdicts(&tlc, dir.path(), "Counter.tla", COUNTER_CFG, &dir.join("work"), false)
        .unwrap_or_else(|e| panic!("{e}"));
    let runs = v.runs.join("\n");
    assert_eq!(
        v.checked,
        [
            "NonNegative",
            "Small",
            "Stays",
            "Reaches",
            "Overflows",
            "Returns",
            "Settles"
        ]
    );
    assert_eq!(
        v.violated.iter().map(String::as_str).collect::<Vec<_>>(),
        ["Overflows", "Returns", "Small", "Stays"],
        "{runs}"
    );
    assert_eq!(v.distinct, Some(6), "{runs}");
    // Stays (violated first, at x = 1, before Small was false), then the
    // whole space, where Small is recorded false and a temporal property
    // violated, then Reaches, Overflows, Returns and Settles alone.
    assert_eq!(v.runs.len(), 6, "{runs}");
    assert!(
        v.runs[1].contains("recording") && v.runs[1].contains("Small false"),
        "{runs}"
    );
    // The properties checked apart from the start: the same verdicts and
    // count, with one run per property after the invariants' two (the run
    // together is left out).
    let apart = tlc_verdicts(&tlc, dir.path(), "Counter.tla", COUNTER_CFG, &dir.join("apart"), true)
        .unwrap_or_else(|e| panic!("{e}"));
    let runs = apart.runs.join("\n");
    assert_eq!(apart.violated, v.violated, "{runs}");
    assert_eq!(apart.distinct, Some(6), "{runs}");
    assert_eq!(apart.runs.len(), 6, "{runs}");
    assert!(
        apart.runs[2..]
            .iter()
            .all(|r| r.contains("checking") && !r.contains("recording")),
        "{runs}"
    );
    // Nothing was written next to the spec but by the test.
    let mut left: Vec<String> = fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["Counter.tla", "apart", "work"]);

    // TLC's own errors fail, with its words.
    let bogus = COUNTER_CFG.replace("NonNegative Small", "NonNegative Bogus");
    let e = tlc_verdicts(&tlc, dir.path(), "Counter.tla", &bogus, &dir.join("bogus"), false).unwrap_err();
    assert!(e.contains("Bogus") && e.contains("Unknown operator"), "{e}");
    fs::write(
        dir.join("Broken.tla"),
        "---- MODULE Broken ----\nVARIABLE x\nInit == x = \n====\n",
    )
    .expect("write");
    let e = tlc_verdicts(
        &tlc,
        dir.path(),
        "Broken.tla",
        "SPECIFICATION Spec\n",
        &dir.join("broken"),
        false,
    )
    .unwrap_err();
    assert!(e.contains("150"), "{e}");
}

#[test]
fn a_disagreement_is_reported_per_property() {
    let rust = crate::common::Result {
        verdicts: Prop::ALL
            .iter()
            .map(|&p| {
                (
                    p,
                    if p == Prop::DeadlockFreedom {
                        Verdict::Violated
                    } else {
                        Verdict::Holds
                    },
                    None,
                )
            })
            .collect(),
        unique_states: 10,
        max_depth: 3,
    };
    let tlc = TlcVerdicts {
        checked: [
            "TypeOK",
            "MutualExclusion",
            "NoStaleWrite",
            "NoForeignRelease",
            "DeadlockFreedom",
            "StarvationFreedom",
        ]
        .map(String::from)
        .to_vec(),
        violated: ["StarvationFreedom".to_string()].into(),
        distinct: Some(11),
        runs: Vec::new(),
    };
    assert_eq!(
        disagreements("X.cfg", "", &tlc, &rust),
        [
            "specs/X.cfg: DeadlockFreedom (deadlock_freedom): TLC holds, Rust violated",
            "specs/X.cfg: StarvationFreedom (starvation_freedom): TLC violated, Rust holds",
        ],
        "a count that differs is information, not a disagreement (docs/design.md §10)"
    );
    let partial = TlcVerdicts {
        checked: vec!["TypeOK".into()],
        violated: ["TypeOK".to_string()].into(),
        distinct: Some(10),
        runs: Vec::new(),
    };
    let found = disagreements("Y.cfg", "", &partial, &rust);
    assert_eq!(found.len(), 6, "{found:?}");
    assert!(found[5].contains("TypeOK violated"), "{found:?}");
}
