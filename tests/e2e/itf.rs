//! `trace.itf.json`: every committed counterexample in
//! the Informal Trace Format (Apalache ADR-015) with its spec's variables.
//! - every ITF file keeps ADR-015's rules (`#meta`, `vars` the keys of every
//!   state, `states` non-empty, integers as `{"#bigint": ..}`, well-formed
//!   `#set`, `#map` and `#tup`, a loop index in range);
//! - its `vars` are exactly the VARIABLES its spec declares, World.tla's
//!   included, read from the `.tla` files;
//! - trace validation: with TLC (`TLA2TOOLS_JAR`, as tests/e2e/specs.rs), one
//!   small committed trace per family is a behaviour of its spec (with its
//!   scenario's constants, as tests/e2e/specs.rs writes them): a module
//!   that EXTENDS the spec walks the trace, its first state satisfying
//!   `Init` and every step `Next`, and TLC must reach its last state.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use locksmith::catalog;
use locksmith::scenario::Scenario;

use crate::common::tla_constants::{expected_constants, strip_comments};
use crate::common::TempDir;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `*.itf.json` under `dir`, sorted.
fn itf_files(dir: &Path) -> Vec<PathBuf> {
    crate::common::files_under(dir, ".itf.json")
}

// ---------------------------------------------------------------------------
// ADR-015's rules.
// ---------------------------------------------------------------------------

/// The first way `v` breaks ADR-015's value rules, with its path.
fn bad_value(v: &Value, at: &str) -> Option<String> {
    match v {
        Value::Null => Some(format!("{at}: null is no ITF value")),
        Value::Number(_) => Some(format!(
            "{at}: a plain JSON number; ITF writes integers as {{\"#bigint\": \"n\"}}"
        )),
        Value::Bool(_) | Value::String(_) => None,
        Value::Array(xs) => xs
            .iter()
            .enumerate()
            .find_map(|(i, x)| bad_value(x, &format!("{at}[{i}]"))),
        Value::Object(o) => {
            let tagged: Vec<&String> = o.keys().filter(|k| k.starts_with('#')).collect();
            if tagged.is_empty() {
                return o.iter().find_map(|(k, x)| bad_value(x, &format!("{at}.{k}")));
            }
            if o.len() != 1 {
                return Some(format!(
                    "{at}: a tagged value has one key, not {:?}",
                    o.keys().collect::<Vec<_>>()
                ));
            }
            let (tag, x) = o.iter().next().expect("one key");
            match (tag.as_str(), x) {
                ("#bigint", Value::String(s)) => {
                    let digits = s.strip_prefix('-').unwrap_or(s);
                    (digits.is_empty()
                        || !digits.bytes().all(|b| b.is_ascii_digit())
                        || (digits.len() > 1 && digits.starts_with('0')))
                    .then(|| format!("{at}: #bigint {s:?} is not a decimal integer"))
                }
                ("#set" | "#tup", Value::Array(xs)) => xs
                    .iter()
                    .enumerate()
                    .find_map(|(i, x)| bad_value(x, &format!("{at}{tag}[{i}]"))),
                ("#map", Value::Array(pairs)) => pairs.iter().enumerate().find_map(|(i, p)| match p {
                    Value::Array(kv) if kv.len() == 2 => bad_value(&kv[0], &format!("{at}#map[{i}].key"))
                        .or_else(|| bad_value(&kv[1], &format!("{at}#map[{i}].value"))),
                    _ => Some(format!("{at}#map[{i}]: not a [key, value] pair")),
                }),
                ("#unserializable", Value::String(_)) => None,
                (t, _) => Some(format!("{at}: {t} with a value of the wrong kind, or an unknown tag")),
            }
        }
    }
}

/// The first way the trace `t` breaks ADR-015, or `None`.
fn adr015_violation(t: &Value) -> Option<String> {
    let o = t.as_object()?;
    let Some(Value::Object(meta)) = o.get("#meta") else {
        return Some("no #meta object".into());
    };
    if meta.get("format").and_then(Value::as_str) != Some("ITF") {
        return Some("#meta.format is not \"ITF\"".into());
    }
    let Some(Value::Array(vars)) = o.get("vars") else {
        return Some("no vars array".into());
    };
    let vars: BTreeSet<&str> = match vars.iter().map(Value::as_str).collect::<Option<Vec<_>>>() {
        Some(v) if v.len() == vars.len() => v.into_iter().collect(),
        _ => return Some("vars holds something other than names".into()),
    };
    if vars.len() != o["vars"].as_array().map_or(0, Vec::len) {
        return Some("vars names a variable twice".into());
    }
    let Some(Value::Array(states)) = o.get("states") else {
        return Some("no states array".into());
    };
    if states.is_empty() {
        return Some("states is empty".into());
    }
    for (i, s) in states.iter().enumerate() {
        let Some(s) = s.as_object() else {
            return Some(format!("state {i} is not an object"));
        };
        if s.get("#meta").and_then(|m| m.get("index")).and_then(Value::as_u64) != Some(i as u64) {
            return Some(format!("state {i}: #meta.index is not {i}"));
        }
        let keys: BTreeSet<&str> = s.keys().map(String::as_str).filter(|k| *k != "#meta").collect();
        if keys != vars {
            return Some(format!("state {i}: its variables {keys:?} are not vars {vars:?}"));
        }
        if let Some(bad) = s
            .iter()
            .filter(|(k, _)| *k != "#meta")
            .find_map(|(k, v)| bad_value(v, &format!("state {i}: {k}")))
        {
            return Some(bad);
        }
    }
    for l in [o.get("loop"), meta.get("loop")].into_iter().flatten() {
        match l.as_u64() {
            Some(k) if (k as usize) < states.len() => {}
            _ => return Some(format!("loop {l} is not the index of a state (0..{})", states.len())),
        }
    }
    None
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

#[test]
fn every_committed_itf_trace_keeps_adr_015() {
    let files = itf_files(&root().join("reports"));
    assert!(!files.is_empty(), "reports/ holds no trace.itf.json");
    for f in &files {
        if let Some(why) = adr015_violation(&read_json(f)) {
            panic!("{}: {why}", f.display());
        }
    }
}

#[test]
fn the_adr_015_check_rejects_broken_traces() {
    // Guards the check above against one that accepts anything.
    let good = serde_json::json!({
        "#meta": {"format": "ITF"}, "vars": ["x", "s"],
        "states": [{"#meta": {"index": 0}, "x": {"#bigint": "1"}, "s": {"#set": [{"#tup": ["a", true]}]}},
                   {"#meta": {"index": 1}, "x": {"#bigint": "-2"}, "s": {"#map": [[{"#bigint": "1"}, []]]}}],
        "loop": 1
    });
    assert_eq!(adr015_violation(&good), None);
    let broken = |f: &dyn Fn(&mut Value)| {
        let mut t = good.clone();
        f(&mut t);
        adr015_violation(&t)
    };
    assert!(
        broken(&|t| t["states"][0]["x"] = serde_json::json!(1)).is_some(),
        "a plain number"
    );
    assert!(broken(&|t| t["states"][1]["x"] = serde_json::json!({"#bigint": "2.5"})).is_some());
    assert!(broken(&|t| t["states"][1]["s"] = serde_json::json!({"#map": [[1]]})).is_some());
    assert!(broken(&|t| t["states"][1]["s"] = serde_json::json!({"#set": 3})).is_some());
    assert!(broken(&|t| t["states"][0].as_object_mut().unwrap().remove("s").map(|_| ()).unwrap()).is_some());
    assert!(broken(&|t| t["states"] = serde_json::json!([])).is_some());
    assert!(broken(&|t| t["loop"] = serde_json::json!(2)).is_some());
    assert!(broken(&|t| t["#meta"] = serde_json::json!({})).is_some());
    assert!(broken(&|t| t["states"][1]["#meta"]["index"] = serde_json::json!(0)).is_some());
}

// ---------------------------------------------------------------------------
// The spec's VARIABLES.
// ---------------------------------------------------------------------------

/// The names a module's VARIABLE and VARIABLES declarations list.
fn declared_variables(tla: &str) -> Vec<String> {
    let clean = strip_comments(tla).replace(',', " , ");
    let tokens: Vec<&str> = clean.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == "VARIABLE" || tokens[i] == "VARIABLES" {
            i += 1;
            while i < tokens.len() {
                out.push(tokens[i].to_string());
                if tokens.get(i + 1) == Some(&",") {
                    i += 2;
                } else {
                    break;
                }
            }
        }
        i += 1;
    }
    out
}

/// Where a module of the ITF vocabulary is: the mirror specs in
/// `specs/mirror/`, and the `World.tla` they extend in `specs/`.
fn module_path(module: &str) -> Option<PathBuf> {
    ["specs/mirror", "specs"]
        .iter()
        .map(|d| root().join(d).join(format!("{module}.tla")))
        .find(|p| p.is_file())
}

/// A spec's variables, those of the modules it EXTENDS in `specs/` included.
fn spec_variables(module: &str) -> BTreeSet<String> {
    let path = module_path(module).unwrap_or_else(|| panic!("{module}.tla is neither in specs/mirror nor in specs"));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut vars: BTreeSet<String> = declared_variables(&text).into_iter().collect();
    let clean = strip_comments(&text);
    if let Some(ext) = clean.lines().find_map(|l| l.trim().strip_prefix("EXTENDS")) {
        for m in ext.split(',').map(str::trim) {
            if module_path(m).is_some() {
                vars.extend(spec_variables(m));
            }
        }
    }
    vars
}

#[test]
fn the_variable_parser_reads_declarations() {
    let text = "VARIABLES a, \\* one\n    b,\n    c\nVARIABLE d\nFoo == a\n(* VARIABLE e *)\nVARIABLES f, g,\n  h\n";
    assert_eq!(declared_variables(text), ["a", "b", "c", "d", "f", "g", "h"]);
    let world = spec_variables("World");
    assert!(world.contains("net") && world.contains("history"), "{world:?}");
}

/// `source` in an ITF trace's `#meta`: `specs/mirror/<Module>.tla`.
fn module_of(t: &Value, f: &Path) -> String {
    let source = t["#meta"]["source"]
        .as_str()
        .unwrap_or_else(|| panic!("{}: no #meta.source", f.display()));
    source
        .strip_prefix("specs/mirror/")
        .and_then(|s| s.strip_suffix(".tla"))
        .unwrap_or_else(|| {
            panic!(
                "{}: #meta.source {source:?} is not specs/mirror/<Module>.tla",
                f.display()
            )
        })
        .to_string()
}

#[test]
fn every_itf_trace_has_exactly_its_specs_variables() {
    let mut families = BTreeSet::new();
    for f in itf_files(&root().join("reports")) {
        let t = read_json(&f);
        let module = module_of(&t, &f);
        let vars: BTreeSet<String> = t["vars"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(String::from))
            .collect();
        let spec = spec_variables(&module);
        assert_eq!(
            vars,
            spec,
            "{}: vars are not specs/{module}.tla's VARIABLES",
            f.display()
        );
        families.insert(module);
    }
    eprintln!("ITF traces checked against the VARIABLES of: {families:?}");
}

// ---------------------------------------------------------------------------
// Trace validation with TLC.
// ---------------------------------------------------------------------------

const JAR_VAR: &str = "TLA2TOOLS_JAR";

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "false" | "0"))
}

/// The jar, if TLC can run; else says so loudly (and fails under CI, or
/// when `TLA2TOOLS_JAR` is set but unusable).
fn tlc_jar() -> Option<PathBuf> {
    let why = match std::env::var_os(JAR_VAR).map(PathBuf::from) {
        None => format!("{JAR_VAR} is not set"),
        Some(jar) if !jar.is_file() => format!("{JAR_VAR}={} is not a file", jar.display()),
        Some(jar) => match Command::new("java").arg("-version").output() {
            Ok(o) if o.status.success() => return Some(jar),
            Ok(_) => "`java -version` fails".into(),
            Err(e) => format!("`java` does not run: {e}"),
        },
    };
    if in_ci() || std::env::var_os(JAR_VAR).is_some() {
        panic!("TLC is needed to validate the ITF traces and cannot run: {why} (.ci/run installs it)");
    }
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "\n*** TLC NOT RUN on the ITF traces: {why}. This test passes without validating them (it fails under CI=true).\n"
    );
    None
}

/// An ITF value as a TLA+ expression. The model value `None` is the one
/// string the specs never use as a string.
fn tla_expr(v: &Value) -> String {
    let list = |xs: &[Value]| xs.iter().map(tla_expr).collect::<Vec<_>>().join(", ");
    match v {
        Value::Bool(true) => "TRUE".into(),
        Value::Bool(false) => "FALSE".into(),
        Value::String(s) if s == "None" => "None".into(),
        Value::String(s) => format!("{s:?}"),
        Value::Array(xs) => format!("<<{}>>", list(xs)),
        Value::Object(o) => {
            if let Some(Value::String(n)) = o.get("#bigint") {
                return n.clone();
            }
            if let Some(Value::Array(xs)) = o.get("#set") {
                return format!("{{{}}}", list(xs));
            }
            if let Some(Value::Array(xs)) = o.get("#tup") {
                return format!("<<{}>>", list(xs));
            }
            if let Some(Value::Array(pairs)) = o.get("#map") {
                if pairs.is_empty() {
                    return "[x \\in {} |-> 0]".into();
                }
                let parts: Vec<String> = pairs
                    .iter()
                    .map(|p| format!("({} :> {})", tla_expr(&p[0]), tla_expr(&p[1])))
                    .collect();
                return format!("({})", parts.join(" @@ "));
            }
            let fields: Vec<String> = o.iter().map(|(k, x)| format!("{k} |-> {}", tla_expr(x))).collect();
            format!("[{}]", fields.join(", "))
        }
        Value::Null | Value::Number(_) => panic!("not an ITF value: {v}"),
    }
}

/// The trace-validation module: the spec, walked along the trace.
fn validation_module(module: &str, t: &Value) -> String {
    let vars: Vec<&str> = t["vars"]
        .as_array()
        .expect("vars")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let states: Vec<String> = t["states"]
        .as_array()
        .expect("states")
        .iter()
        .map(|s| {
            let fields: Vec<String> = vars.iter().map(|v| format!("{v} |-> {}", tla_expr(&s[*v]))).collect();
            format!("[{}]", fields.join(",\n      "))
        })
        .collect();
    let init: Vec<String> = vars.iter().map(|v| format!("{v} = ItfTrace[1].{v}")).collect();
    let next: Vec<String> = vars.iter().map(|v| format!("{v}' = ItfTrace[itf_i + 1].{v}")).collect();
    format!(
        "---- MODULE ItfValidation ----\n\
         EXTENDS {module}, TLC\n\
         VARIABLE itf_i\n\
         ItfTrace == <<\n    {}\n>>\n\
         ItfInit == itf_i = 1 /\\ {} /\\ Init\n\
         ItfNext == itf_i < Len(ItfTrace) /\\ itf_i' = itf_i + 1 /\\ {} /\\ Next\n\
         ItfNotDone == itf_i < Len(ItfTrace)\n\
         ====\n",
        states.join(",\n    "),
        init.join(" /\\ "),
        next.join(" /\\ ")
    )
}

/// The scenario a committed trace was found in: the one its sibling
/// `trace.json` embeds (`x.trace.itf.json` beside `x.trace.json`).
fn scenario_of(itf: &Path) -> Scenario {
    let name = itf
        .file_name()
        .expect("a file")
        .to_string_lossy()
        .replace(".itf.json", ".json");
    let json = read_json(&itf.with_file_name(name));
    let source = json["scenario_source"]
        .as_str()
        .expect("trace.json embeds its scenario");
    let file = format!("{}.toml", json["scenario"].as_str().expect("its scenario's name"));
    catalog::parse(Path::new(&file), source).unwrap_or_else(|e| panic!("{}: {e}", itf.display()))
}

/// The `.cfg` of trace validation: the scenario's constants, then the
/// walk along the trace.
fn validation_cfg(constants: &BTreeMap<String, String>) -> String {
    let mut cfg = String::from("CONSTANTS\n");
    for (k, v) in constants {
        cfg.push_str(&format!("    {k} = {v}\n"));
    }
    cfg.push_str("INIT ItfInit\nNEXT ItfNext\nINVARIANT ItfNotDone\n");
    cfg
}

/// Runs TLC on the validation of trace `f`; `Err` with TLC's words when
/// the trace is not a behaviour of the spec.
fn validate(
    jar: &Path,
    module: &str,
    constants: &BTreeMap<String, String>,
    f: &Path,
    work: &Path,
) -> Result<(), String> {
    let t = read_json(f);
    // The mirror specs, and the World.tla they extend.
    for e in fs::read_dir(root().join("specs/mirror"))
        .expect("specs/mirror/")
        .flatten()
    {
        if e.path().extension().is_some_and(|x| x == "tla") {
            fs::copy(e.path(), work.join(e.file_name())).expect("copy the spec");
        }
    }
    fs::copy(root().join("specs/World.tla"), work.join("World.tla")).expect("copy World.tla");
    fs::write(work.join("ItfValidation.tla"), validation_module(module, &t)).expect("write the module");
    fs::write(work.join("ItfValidation.cfg"), validation_cfg(constants)).expect("write the cfg");
    let out = Command::new("java")
        // TLC unpacks its standard modules into java.io.tmpdir: one per
        // run, or two TLCs at once may read each other's half-written files.
        .arg(format!("-Djava.io.tmpdir={}", work.display()))
        .args(crate::common::jvm::tlc_flags(jar, crate::common::jvm::Jit::Quick))
        .args(["-Xss16m", "-cp"])
        .arg(jar)
        .args(["tlc2.TLC", "-workers", "1", "-metadir"])
        .arg(work.join("meta"))
        .args(["-config", "ItfValidation.cfg", "ItfValidation.tla"])
        .current_dir(work)
        .output()
        .map_err(|e| format!("java does not run: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let len = t["states"].as_array().map_or(0, Vec::len);
    // TLC walks the trace to its last state, where ItfNotDone fails.
    if text.contains("Invariant ItfNotDone is violated") && text.contains(&format!("itf_i = {len}")) {
        Ok(())
    } else {
        // TLC's whole output, for a closer look.
        let log = std::env::temp_dir().join(format!("locksmith-itf-{module}.log"));
        let _ = fs::write(&log, &text);
        let _ = fs::copy(work.join("ItfValidation.tla"), log.with_extension("tla"));
        let _ = fs::copy(work.join("ItfValidation.cfg"), log.with_extension("cfg"));
        // What TLC said went wrong, then the last state it reached.
        let said: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("Error") || l.contains("Deadlock") || l.contains("violated"))
            .collect();
        let tail: Vec<&str> = text.lines().rev().take(60).collect();
        Err(format!(
            "{}: TLC does not accept it as a behaviour of specs/mirror/{module}.tla with its scenario's constants \
             (it should reach itf_i = {len}; TLC's output is in {}):\n{}\n...\n{}",
            f.display(),
            log.display(),
            said.join("\n"),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ))
    }
}

/// Families whose traces TLC validates: every family in the registry (by
/// its spec module), so a family added to `families!` is validated too.
fn families() -> Vec<&'static str> {
    locksmith::algorithms::NAMES
        .iter()
        .map(|name| locksmith::algorithms::spec_module(name).expect("a registered family has a spec module"))
        .collect()
}

/// A trace to validate: its states, its scenario's constants, its file.
type Pick = (usize, BTreeMap<String, String>, PathBuf);

/// Traces longer than this are left to the other checks: TLC parses the
/// whole trace as one expression.
const MAX_VALIDATED_STATES: usize = 24;

/// The trace to validate for each module: its longest committed trace of
/// at most [`MAX_VALIDATED_STATES`] states whose scenario a `.cfg` can
/// mirror (no fault the spec leaves out), with that scenario's constants.
fn picks() -> BTreeMap<String, Pick> {
    let mut pick: BTreeMap<String, Pick> = BTreeMap::new();
    for f in itf_files(&root().join("reports")) {
        if f.components()
            .any(|c| c.as_os_str().to_string_lossy().starts_with("sim-"))
        {
            continue;
        }
        let t = read_json(&f);
        let module = module_of(&t, &f);
        let states = t["states"].as_array().map_or(usize::MAX, Vec::len);
        if states > MAX_VALIDATED_STATES || pick.get(&module).is_some_and(|(n, _, _)| *n >= states) {
            continue;
        }
        // Symmetry reduction changes what TLC counts, not the behaviours:
        // a trace is a concrete run, from the initial state.
        let mut sc = scenario_of(&f);
        sc.symmetry = false;
        let Ok((spec, constants)) = expected_constants(&sc) else {
            continue;
        };
        assert_eq!(
            spec,
            format!("{module}.tla"),
            "{}: #meta.source is not its scenario's spec",
            f.display()
        );
        pick.insert(module, (states, constants, f));
    }
    pick
}

#[test]
fn tlc_accepts_one_committed_itf_trace_per_family() {
    let Some(jar) = tlc_jar() else { return };
    let tmp = TempDir::new("itf-tlc");
    let pick = picks();
    let mut failures = Vec::new();
    for (module, (states, constants, f)) in &pick {
        let work = tmp.join(module);
        fs::create_dir_all(&work).expect("work dir");
        eprintln!(
            "TLC validates {} ({states} states) against specs/mirror/{module}.tla",
            f.display()
        );
        if let Err(e) = validate(&jar, module, constants, f, &work) {
            failures.push(e);
        }
    }
    let missing: Vec<&str> = families().into_iter().filter(|m| !pick.contains_key(*m)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(missing.is_empty(), "no committed ITF trace to validate for {missing:?}");
}

#[test]
fn tlc_rejects_a_trace_that_is_no_behaviour() {
    // Guards the validation against one that accepts anything: the first
    // committed single-redis trace with a step taken out.
    let Some(jar) = tlc_jar() else { return };
    let (_, constants, f) = picks().remove("SingleRedis").expect("a committed SingleRedis trace");
    let mut t = read_json(&f);
    let states = t["states"].as_array_mut().expect("states");
    assert!(states.len() > 3, "{}: too short to cut", f.display());
    states.remove(2);
    for (i, s) in states.iter_mut().enumerate() {
        s["#meta"]["index"] = serde_json::json!(i);
    }
    let tmp = TempDir::new("itf-tlc-broken");
    let broken = tmp.join("broken.itf.json");
    fs::write(&broken, t.to_string()).expect("write");
    let work = tmp.join("work");
    fs::create_dir_all(&work).expect("work dir");
    let err = validate(&jar, "SingleRedis", &constants, &broken, &work)
        .expect_err("TLC accepted a trace with a step missing");
    // TLC walked the trace and found no step to its third state: not a
    // module TLC could not read.
    assert!(err.contains("Deadlock reached") && err.contains("itf_i = 2"), "{err}");
}
