//! Counterexamples cross over between the Rust model and the clean-room
//! specs (specs/README.md, "Traces both ways"), under the trace view that
//! each `specs/MC<Family>.tla` defines as `TraceView` and `src/observe`
//! computes for a Rust state: the world's faults and flags and the running
//! holders. For every family, on its first CI row (specs/README.md's table,
//! not slow) where both sides find a safety violation, and on its first
//! where both find a liveness violation:
//! - Rust to TLA+: the Rust checker's counterexample on the row's scenario
//!   is a behaviour of the clean-room spec: TLC walks the spec along its
//!   views (a spec step that keeps the view is a stutter, at most a few per
//!   Rust step) to its last one, and evaluates the violated property false
//!   there; for a lasso, TLC finds a fair behaviour of the spec that follows
//!   the stem and then the loop's views for ever, and violates the property.
//! - TLA+ to Rust: TLC's counterexample on the row's `.cfg`, recorded with
//!   the view as the variable `tv`, is read back from TLC's printed output
//!   by `locksmith replay --scenario`, whose Rust run shows the same views
//!   and violates the same property (for a lasso: a fair Rust lasso, its
//!   loop back to the very state its stem ended in).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use locksmith::observe::{self, follow::distinct, tla_text};
use locksmith::properties::Prop;
use locksmith::world::Tla;

use crate::common::tla_constants::strip_comments;
use crate::common::{locksmith, meets_expectations, TempDir};
use crate::specs::{table, Row, Suite, Tlc, CFG_KEYWORDS};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The TLA+ name of a property.
pub(crate) fn tla_name(p: Prop) -> &'static str {
    match p {
        Prop::MutualExclusion => "MutualExclusion",
        Prop::RwExclusion => "RWExclusion",
        Prop::NoStaleWrite => "NoStaleWrite",
        Prop::NoForeignRelease => "NoForeignRelease",
        Prop::DeadlockFreedom => "DeadlockFreedom",
        Prop::StarvationFreedom => "StarvationFreedom",
    }
}

/// A row to cross over: the first CI row of each spec whose `.cfg` lists a
/// safety invariant the Rust checker finds violated on its scenario, with
/// that property.
struct Pick {
    row: Row,
    prop: Prop,
    /// The name the `.cfg` checks it by (`DeadlockFreedomNZ`, say).
    listed: String,
    /// The `.cfg`'s CONSTANT(S) sections, and its CONSTRAINT(S) ones.
    constants: String,
    /// The `.cfg`'s VIEW, if any (a lasso needs it to be finite).
    view: Option<String>,
}

/// The `.cfg`'s sections that start with one of `keywords`, comments dropped.
pub(crate) fn sections(cfg: &str, keywords: &[&str]) -> String {
    let mut out = String::new();
    let mut keep = false;
    for line in strip_comments(cfg).lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if CFG_KEYWORDS.contains(&first) {
            keep = keywords.contains(&first);
        }
        if keep && !line.trim().is_empty() {
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    out
}

/// The name under which the `.cfg`'s sections `kinds` (INVARIANT(S) or
/// PROPERTY(IES)) list property `p`: its TLA+ name, or a variant of it
/// (`DeadlockFreedomNZ`).
pub(crate) fn listed_as(cfg: &str, kinds: &[&str], p: Prop) -> Option<String> {
    sections(cfg, kinds)
        .split_whitespace()
        .find(|w| w.starts_with(tla_name(p)))
        .map(str::to_string)
}

/// For each spec, its first CI row where the Rust checker finds a safety
/// property violated that the `.cfg` lists, and its first where it finds a
/// liveness property violated that the `.cfg` lists: (safety, liveness).
fn picks() -> (Vec<Pick>, Vec<Pick>) {
    let (mut safety, mut liveness): (Vec<Pick>, Vec<Pick>) = (Vec::new(), Vec::new());
    for row in table(Suite::CleanRoom) {
        let has = |picks: &[Pick]| picks.iter().any(|p| p.row.spec == row.spec);
        if row.slow || (has(&safety) && has(&liveness)) {
            continue;
        }
        let cfg = fs::read_to_string(root().join("specs").join(&row.cfg)).expect("the row's cfg");
        let rust = meets_expectations(&crate::specs::load(&row));
        let pick = |kinds: &[&str], candidates: &[Prop]| -> Option<Pick> {
            let (prop, listed) = candidates.iter().find_map(|p| {
                (rust.verdict(*p) == locksmith::scenario::Verdict::Violated)
                    .then(|| listed_as(&cfg, kinds, *p).map(|w| (*p, w)))
                    .flatten()
            })?;
            Some(Pick {
                row: row.clone(),
                prop,
                listed,
                constants: sections(&cfg, &["CONSTANT", "CONSTANTS", "CONSTRAINT", "CONSTRAINTS"]),
                view: sections(&cfg, &["VIEW"]).split_whitespace().nth(1).map(str::to_string),
            })
        };
        if !has(&safety) {
            safety.extend(pick(&["INVARIANT", "INVARIANTS"], &Prop::SAFETY));
        }
        if !has(&liveness) {
            liveness.extend(pick(
                &["PROPERTY", "PROPERTIES"],
                &[Prop::DeadlockFreedom, Prop::StarvationFreedom],
            ));
        }
    }
    (safety, liveness)
}

/// The families every spec module of the table names.
fn families() -> Vec<String> {
    let mut all: Vec<String> = table(Suite::CleanRoom).into_iter().map(|r| r.spec).collect();
    all.sort();
    all.dedup();
    all
}

/// Runs TLC, plain (its printed trace is what users read and what replay
/// reads), on `module` in `work` with `cfg`; its whole output.
fn tlc(tlc: &Tlc, work: &Path, module: &str, cfg: &str) -> String {
    fs::write(work.join(format!("{module}.cfg")), cfg).expect("write the cfg");
    let out = Command::new("java")
        .arg(format!("-Djava.io.tmpdir={}", work.display()))
        .arg(format!("-DTLA-Library={}", root().join("specs").display()))
        .args(crate::common::jvm::tlc_flags(&tlc.jar, tlc.jit))
        .args(["-Xss16m", "-cp"])
        .arg(&tlc.jar)
        .args(["tlc2.TLC", "-deadlock", "-workers", "1", "-metadir"])
        .arg(work.join("meta"))
        .args(["-config", &format!("{module}.cfg"), &format!("{module}.tla")])
        .current_dir(work)
        .output()
        .expect("java runs");
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// The module in which TLC walks the clean-room spec `mc` along `views`:
/// `gaps[i]` bounds the spec steps that keep view `i`; `loop_at` (from 1),
/// for a lasso, is where its loop starts: after the last view the walk goes
/// on there, for ever, and within the loop the steps that keep a view are
/// not counted (the loop is infinite; the spec's fairness decides). `prop` is the property's name in the `.cfg`, `view`
/// the row's VIEW.
fn walk_module(mc: &str, views: &[Tla], gaps: &[usize], loop_at: usize, prop: &str, view: Option<&str>) -> String {
    let views: Vec<String> = views.iter().map(tla_text).collect();
    let gaps: Vec<String> = gaps.iter().map(usize::to_string).collect();
    let mut m = format!(
        "---- MODULE TraceWalk ----\n\
         EXTENDS {mc}, Sequences, TLC\n\
         VARIABLES tc_i, tc_sub\n\
         TcViews == <<\n    {}\n>>\n\
         TcGap == <<{}>>\n\
         TcLoop == {loop_at}\n\
         TcSucc(i) == IF i = Len(TcViews) THEN TcLoop ELSE i + 1\n\
         TcInit == Init /\\ tc_i = 1 /\\ tc_sub = 0 /\\ TraceView = TcViews[1]\n\
         TcNext ==\n\
         \x20   /\\ Next\n\
         \x20   /\\ \\/ /\\ TraceView' = TcViews[tc_i]\n\
         \x20         /\\ tc_i' = tc_i\n\
         \x20         /\\ IF TcLoop > 0 /\\ tc_i >= TcLoop THEN tc_sub' = 0\n\
         \x20            ELSE tc_sub < TcGap[tc_i] /\\ tc_sub' = tc_sub + 1\n\
         \x20      \\/ /\\ TcSucc(tc_i) \\in 1..Len(TcViews) /\\ TraceView' = TcViews[TcSucc(tc_i)]\n\
         \x20         /\\ tc_i' = TcSucc(tc_i) /\\ tc_sub' = 0\n",
        views.join(",\n    "),
        gaps.join(", "),
    );
    if loop_at == 0 {
        m.push_str(&format!(
            "\\* TLC reports this violated when it reaches the trace's last view with {prop} false.\n\
             TcFollowed == ~(tc_i = Len(TcViews) /\\ ~{prop})\n"
        ));
    } else {
        m.push_str(&format!(
            "TcSpec == TcInit /\\ [][TcNext]_<<vars, tc_i, tc_sub>> /\\ Fairness\n\
             \\* TLC reports this violated for a fair behaviour that reaches the loop (and\n\
             \\* so follows its views for ever) and violates {prop}.\n\
             TcFollowed == <>(tc_i >= TcLoop) => {prop}\n"
        ));
        if let Some(v) = view {
            m.push_str(&format!("TcView == <<{v}, tc_i, tc_sub>>\n"));
        }
    }
    m.push_str("====\n");
    m
}

/// The views TLC walks along for a Rust counterexample: its distinct views
/// (a lasso's loop without its return to the loop's first state), the
/// spec steps each may keep, and where the loop starts (from 1; 0 for none).
fn walk_views(tv: &observe::TraceViews) -> (Vec<Tla>, Vec<usize>, usize) {
    let raw = &tv.views;
    let stem_end = tv.loop_start.unwrap_or(raw.len() - 1);
    let mut views = distinct(&raw[..=stem_end]);
    let loop_at = if tv.loop_start.is_some() { views.len() } else { 0 };
    if tv.loop_start.is_some() {
        let around = distinct(&raw[stem_end..]);
        // Its first is the stem's last; its last, the loop's return to it.
        let inner = &around[1..around.len().saturating_sub(1).max(1)];
        views.extend(inner.iter().cloned());
    }
    // Each view's run of Rust steps bounds the spec's stutters there.
    let mut gaps = vec![0usize; views.len()];
    let mut k = 0;
    for v in raw.iter().skip(1).map(observe::canon) {
        if v == views[k] {
            gaps[k] += 1;
        } else if let Some(next) = (k + 1..views.len()).find(|&j| views[j] == v) {
            k = next;
        }
    }
    (views, gaps.iter().map(|g| 4 + 2 * g).collect(), loop_at)
}

/// The Rust counterexample for `p` in the reports `check` wrote under `dir`
/// (a bundled scenario's folder is named after it, another's is under `own/`).
fn rust_trace(dir: &Path, prop: Prop) -> PathBuf {
    let traces = crate::common::files_under(dir, "trace.json");
    let named = format!("{}.trace.json", prop.name());
    let first = |p: &&PathBuf| {
        p.file_name().is_some_and(|n| n == "trace.json")
            && serde_json::from_str::<serde_json::Value>(&fs::read_to_string(p).expect("read")).expect("a trace")
                ["property"]
                == prop.name()
    };
    traces
        .iter()
        .find(|p| p.file_name().is_some_and(|n| *n == *named))
        .or_else(|| traces.iter().find(first))
        .cloned()
        .unwrap_or_else(|| panic!("{}: no counterexample to {}", dir.display(), prop.name()))
}

/// How TLC walks a clean-room spec along a Rust counterexample: the spec's
/// MC module (without `.tla`), the name its `.cfg`s check the violated
/// property by, the `.cfg` lines that set its constants (its CONSTANT(S)
/// and CONSTRAINT(S) sections), and its VIEW, if any.
pub(crate) struct WalkCfg {
    pub(crate) mc: String,
    pub(crate) listed: String,
    pub(crate) constants: String,
    pub(crate) view: Option<String>,
}

/// TLC walks the clean-room spec along the Rust checker's counterexample
/// for the pick: `Ok` with a line for the log, or `Err` with TLC's words.
fn walk(tlc_: &Tlc, tmp: &Path, p: &Pick) -> Result<String, String> {
    let reports = tmp.join(format!("reports-{}-{}", p.row.cfg, p.prop.name()));
    let run = locksmith(["check", &p.row.scenario, "--reports", &reports.to_string_lossy()]);
    assert!(run.code <= 1, "locksmith check {}: {}", p.row.scenario, run.stderr);
    let trace = rust_trace(&reports, p.prop);
    let w = WalkCfg {
        mc: p.row.spec.trim_end_matches(".tla").to_string(),
        listed: p.listed.clone(),
        constants: p.constants.clone(),
        view: p.view.clone(),
    };
    let name = format!("{}-{}", p.row.cfg, p.prop.name());
    let what = format!("{}: the Rust counterexample to {}", p.row.cfg, p.prop.name());
    walk_trace(tlc_, &tmp.join(format!("walk-{name}")), &name, &what, &trace, &w)
}

/// TLC walks `w.mc` along the views of the Rust counterexample `trace`
/// (`what` names it), in the folder `work`: `Ok` with a line for the log,
/// or `Err` with TLC's words (the module, the cfg and TLC's output are kept
/// in the temp dir's `locksmith-walk-{name}`).
pub(crate) fn walk_trace(
    tlc_: &Tlc,
    work: &Path,
    name: &str,
    what: &str,
    trace: &Path,
    w: &WalkCfg,
) -> Result<String, String> {
    let tv = observe::trace_views(trace).unwrap_or_else(|e| panic!("{e}"));
    let (views, gaps, loop_at) = walk_views(&tv);
    fs::create_dir_all(work).expect("work dir");
    let mc = &w.mc;
    let module = walk_module(mc, &views, &gaps, loop_at, &w.listed, w.view.as_deref());
    fs::write(work.join("TraceWalk.tla"), module).expect("write");
    let cfg = if loop_at == 0 {
        format!("{}INIT TcInit\nNEXT TcNext\nINVARIANT TcFollowed\n", w.constants)
    } else {
        let view = if w.view.is_some() { "VIEW TcView\n" } else { "" };
        format!("{}{view}SPECIFICATION TcSpec\nPROPERTY TcFollowed\n", w.constants)
    };
    let out = tlc(tlc_, work, "TraceWalk", &cfg);
    let followed = if loop_at == 0 {
        out.contains("Invariant TcFollowed is violated")
    } else {
        out.contains("Temporal properties were violated")
    };
    let what = format!(
        "{what} ({} steps{}, {} distinct views)",
        tv.views.len() - 1,
        if loop_at == 0 {
            String::new()
        } else {
            format!(", a lasso from view {loop_at}")
        },
        views.len()
    );
    if followed {
        return Ok(format!("{what} is a behaviour of {mc} where {} is false", w.listed));
    }
    let keep = std::env::temp_dir().join(format!("locksmith-walk-{name}"));
    let _ = fs::create_dir_all(&keep);
    for f in ["TraceWalk.tla", "TraceWalk.cfg"] {
        let _ = fs::copy(work.join(f), keep.join(f));
    }
    let _ = fs::write(keep.join("tlc.out"), &out);
    Err(format!(
        "{what}, {}: TLC does not walk {mc} along it to a violation of {} (module, cfg and TLC's output kept in {}):\n{}",
        trace.display(),
        w.listed,
        keep.display(),
        out.lines().filter(|l| l.contains("rror") || l.contains("states")).collect::<Vec<_>>().join("\n")
    ))
}

/// Every spec module has a pick.
fn assert_covered(picks: &[Pick], what: &str) {
    let covered: Vec<&str> = picks.iter().map(|p| p.row.spec.as_str()).collect();
    let missing: Vec<String> = families()
        .into_iter()
        .filter(|f| !covered.contains(&f.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "no CI row with a {what} violation on both sides for {missing:?}"
    );
}

/// Runs `cross` on every pick, safety then liveness, and asserts that each
/// passed and that every family is covered.
fn cross_over(what: &str, test: &str, cross: fn(&Tlc, &Path, &Pick) -> Result<String, String>) {
    let Some(tlc_) = Tlc::for_test(what) else { return };
    let tmp = TempDir::new(test);
    let (safety, liveness) = picks();
    let mut failures = Vec::new();
    for p in safety.iter().chain(&liveness) {
        let start = std::time::Instant::now();
        match cross(&tlc_, tmp.path(), p) {
            Ok(line) => eprintln!("{line} ({:.1} s)", start.elapsed().as_secs_f64()),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_covered(&safety, "safety");
    assert_covered(&liveness, "liveness");
}

#[test]
fn tlc_walks_the_clean_room_spec_along_rust_counterexamples() {
    cross_over("the Rust counterexamples as clean-room behaviours", "rust-to-tla", walk);
}

#[test]
fn tlc_does_not_walk_a_spec_along_views_it_cannot_show() {
    // Guards the walk against one that accepts anything: the single-Redis
    // counterexample's views with its last two swapped.
    let Some(tlc_) = Tlc::for_test("a broken walk") else {
        return;
    };
    let tmp = TempDir::new("rust-to-tla-broken");
    let p = picks()
        .0
        .into_iter()
        .find(|p| p.row.spec == "MCSingleRedis.tla")
        .expect("a single-Redis pick");
    let reports = tmp.join("reports");
    locksmith(["check", &p.row.scenario, "--reports", &reports.to_string_lossy()]);
    let tv = observe::trace_views(&rust_trace(&reports, p.prop)).expect("views");
    let (mut views, gaps, _) = walk_views(&tv);
    let n = views.len();
    assert!(n >= 3, "too short to swap");
    views.swap(n - 2, n - 3);
    let work = tmp.join("walk");
    fs::create_dir_all(&work).expect("work dir");
    let mc = p.row.spec.trim_end_matches(".tla");
    fs::write(
        work.join("TraceWalk.tla"),
        walk_module(mc, &views, &gaps, 0, &p.listed, None),
    )
    .expect("write");
    let out = tlc(
        &tlc_,
        &work,
        "TraceWalk",
        &format!("{}INIT TcInit\nNEXT TcNext\nINVARIANT TcFollowed\n", p.constants),
    );
    assert!(out.contains("No error has been found"), "{out}");
}

/// The module that records the view as `tv` beside the spec's variables.
fn record_module(mc: &str) -> String {
    format!(
        "---- MODULE TraceRecord ----\n\
         EXTENDS {mc}\n\
         VARIABLE tv\n\
         RecInit == Init /\\ tv = TraceView\n\
         RecNext == Next /\\ tv' = TraceView'\n\
         RecSpec == RecInit /\\ [][RecNext]_<<vars, tv>> /\\ Fairness\n\
         ====\n"
    )
}

/// TLC's counterexample on the pick's `.cfg`, recorded with the view, read
/// back by `locksmith replay`: `Ok` with a line for the log, or `Err`.
fn replay_tlcs(tlc_: &Tlc, tmp: &Path, p: &Pick) -> Result<String, String> {
    let work = tmp.join(format!("record-{}-{}", p.row.cfg, p.prop.name()));
    fs::create_dir_all(&work).expect("work dir");
    let mc = p.row.spec.trim_end_matches(".tla").to_string();
    fs::write(work.join("TraceRecord.tla"), record_module(&mc)).expect("write");
    let cfg = if p.prop.is_safety() {
        format!("{}INIT RecInit\nNEXT RecNext\nINVARIANT {}\n", p.constants, p.listed)
    } else {
        let view = p.view.as_ref().map_or(String::new(), |v| format!("VIEW {v}\n"));
        format!("{}{view}SPECIFICATION RecSpec\nPROPERTY {}\n", p.constants, p.listed)
    };
    // A search of the whole spec, as long as the row's.
    let row_tlc = Tlc {
        jit: crate::common::jvm::Jit::for_row(p.row.secs),
        ..tlc_.clone()
    };
    let out = tlc(&row_tlc, &work, "TraceRecord", &cfg);
    let saved = work.join("tlc-output.txt");
    fs::write(&saved, &out).expect("save TLC's output");
    let found = if p.prop.is_safety() {
        out.contains(&format!("Invariant {} is violated", p.listed))
    } else {
        out.contains("Temporal properties were violated")
    };
    if !found {
        return Err(format!("{}: TLC finds no violation of {}:\n{out}", p.row.cfg, p.listed));
    }
    let run = locksmith(["replay", &saved.to_string_lossy(), "--scenario", &p.row.scenario]);
    if run.code == 0 && run.stdout.contains(p.prop.name()) {
        let head = run.stdout.lines().next().unwrap_or_default().to_string();
        Ok(format!(
            "{}: TLC's counterexample to {} replayed by the Rust model: {head}",
            p.row.cfg, p.listed
        ))
    } else {
        Err(format!(
            "{}: TLC's counterexample to {}: replay exit {}:\n{}{}",
            p.row.cfg, p.listed, run.code, run.stdout, run.stderr
        ))
    }
}

#[test]
fn the_rust_model_replays_tlcs_counterexamples() {
    cross_over(
        "TLC's counterexamples replayed by the Rust model",
        "tla-to-rust",
        replay_tlcs,
    );
}

#[test]
fn replay_refuses_a_tlc_trace_the_model_cannot_show() {
    // Guards the replay against one that follows anything: a view no state
    // of the model shows (a client that is no node holds the lock).
    let tmp = TempDir::new("tla-to-rust-refused");
    let sc = "specs/redis-crash-empty-ci.toml";
    let ok = "[holders |-> {}, status |-> (0 :> \"Up\" @@ 1 :> \"Up\" @@ 2 :> \"Up\" @@ 3 :> \"Up\"), \
              pause |-> (0 :> 0 @@ 1 :> 0 @@ 2 :> 0 @@ 3 :> 0), skew |-> (0 :> 0 @@ 1 :> 0 @@ 2 :> 0 @@ 3 :> 0), \
              cut |-> {}, spent |-> [crashes |-> 0, pauses |-> 0, jumps |-> 0, partitions |-> 0], history |-> {}]";
    let bad = ok.replace("holders |-> {}", "holders |-> {7}");
    let text = format!(
        "Error: Invariant MutualExclusion is violated.\nError: The behavior up to this point is:\n\
         State 1: <Initial predicate>\n/\\ tv = {ok}\n\nState 2: <Next>\n/\\ tv = {bad}\n\n"
    );
    let f = tmp.join("tlc.txt");
    fs::write(&f, &text).expect("write");
    let run = locksmith(["replay", &f.to_string_lossy(), "--scenario", sc]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("not a behaviour of scenario"), "{}", run.stderr);
    // The first state alone is the initial state: followed, nothing violated.
    let first = text.split("State 2").next().expect("state 1").to_string();
    fs::write(&f, first).expect("write");
    let run = locksmith(["replay", &f.to_string_lossy(), "--scenario", sc]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    // Without --scenario, one sentence.
    let run = locksmith(["replay", &f.to_string_lossy()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--scenario"), "{}", run.stderr);
}
