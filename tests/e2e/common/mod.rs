//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use locksmith::catalog;
use locksmith::check::{check_scenario, Options, Summary};
use locksmith::properties::Prop;
use locksmith::scenario::{self, Scenario, Verdict};

/// A bundled scenario by name.
pub fn scenario(name: &str) -> Scenario {
    catalog::open(name).expect("a valid bundled scenario")
}

/// Verdicts, trace lengths and counts of one check, without the types.
#[derive(Debug, Clone, PartialEq)]
pub struct Result {
    pub verdicts: Vec<(Prop, Verdict, Option<usize>)>,
    pub unique_states: usize,
    pub max_depth: usize,
}

impl Result {
    pub fn verdict(&self, p: Prop) -> Verdict {
        self.verdicts
            .iter()
            .find(|v| v.0 == p)
            .map(|v| v.1)
            .expect("every property is checked")
    }
    pub fn steps(&self, p: Prop) -> Option<usize> {
        self.verdicts.iter().find(|v| v.0 == p).and_then(|v| v.2)
    }
}

pub fn summarise(o: &Summary) -> Result {
    Result {
        verdicts: o.props.iter().map(|p| (p.prop, p.verdict, p.steps)).collect(),
        unique_states: o.unique_states,
        max_depth: o.max_depth,
    }
}

/// A check of `sc` through the library's `check_scenario`: a job of the
/// tests' own would compile the checker again, for every family, into
/// the tests (src/check/summary.rs).
pub fn full(sc: &Scenario, opts: Options) -> Summary {
    check_scenario(sc, &opts).expect("the scenario builds")
}

/// [`full`], its verdicts, trace lengths and counts.
pub fn run(sc: &Scenario, opts: Options) -> Result {
    summarise(&full(sc, opts))
}

/// Checks `sc` and asserts every verdict its `[expect]` table states.
pub fn meets_expectations(sc: &Scenario) -> Result {
    let r = run(sc, Options::default());
    for p in Prop::ALL {
        if let Some(expected) = sc.expected(p) {
            assert_eq!(r.verdict(p), expected, "{}: {}", sc.name, p.name());
        }
    }
    r
}

/// A directory under the system's temp dir, unique to one test of this
/// process, removed when dropped.
pub struct TempDir(std::path::PathBuf);

impl TempDir {
    pub fn new(test: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("locksmith-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the temp dir");
        TempDir(dir)
    }

    pub fn path(&self) -> &std::path::Path {
        &self.0
    }

    pub fn join(&self, p: impl AsRef<std::path::Path>) -> std::path::PathBuf {
        self.0.join(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How a run of the `locksmith` binary ended.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary from the crate root, with extra environment `env`.
/// `RUST_BACKTRACE` is unset, so that a panic would also print its hint;
/// a panic fails the test.
pub fn locksmith_env<I, S>(args: I, env: &[(&str, &std::ffi::OsStr)]) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_locksmith"));
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_BACKTRACE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    Run::checked(cmd.output().expect("run locksmith"))
}

impl Run {
    /// A finished run's code and text; a panic fails the test. A process
    /// killed by a signal has no code: -1 fails every test that asks.
    pub fn checked(out: std::process::Output) -> Run {
        let run = Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        assert!(!run.stderr.contains("panicked"), "locksmith panicked:\n{}", run.stderr);
        run
    }
}

/// Runs the binary in `dir` (not the checkout), so that default paths such
/// as `reports/` are relative to it.
pub fn locksmith_in(dir: &std::path::Path, args: &[&str]) -> Run {
    Run::checked(
        std::process::Command::new(env!("CARGO_BIN_EXE_locksmith"))
            .args(args)
            .current_dir(dir)
            .env_remove("RUST_BACKTRACE")
            .output()
            .expect("run locksmith"),
    )
}

/// Runs the binary from the crate root (see [`locksmith_env`]).
pub fn locksmith<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    locksmith_env(args, &[])
}

/// The scenario files (`*.toml`) in `dir`, a folder of the crate, sorted;
/// fails when there are none.
pub fn toml_files(dir: &str) -> Vec<std::path::PathBuf> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scenarios in {}", path.display());
    files
}

/// The bundled scenarios' names (what the binary embeds), sorted by name.
pub fn bundled() -> Vec<String> {
    let mut names: Vec<String> = scenario::bundled_names().map(str::to_string).collect();
    names.sort();
    names
}
/// Runs `locksmith reenact ARGS` from the crate root (tests/e2e/reenact*.rs).
pub fn reenact(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .arg("reenact")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("locksmith runs")
}

/// `locksmith reenact ARGS` refuses the trace: exit 2, one sentence on
/// stderr that contains `says`, and the log an earlier run left beside the
/// trace untouched.
pub fn assert_reenact_refuses(args: &[&str], says: &str) {
    let scenario = args.iter().position(|a| *a == "--scenario").map(|i| args[i + 1]);
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(locksmith::real::reenact::log_path(
        std::path::Path::new(args[0]),
        scenario,
    ));
    let before = std::fs::read(&log).ok();
    let out = reenact(args);
    let shown = reenact_text(&out);
    assert_eq!(
        std::fs::read(&log).ok(),
        before,
        "{args:?} changed {}: {shown}",
        log.display()
    );
    assert_eq!(out.status.code(), Some(2), "{args:?}: {shown}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(says), "{args:?}: {shown}");
    assert_eq!(stderr.trim().lines().count(), 1, "one sentence: {shown}");
}

/// A run's exit code and output, for an assertion's message.
pub fn reenact_text(out: &std::process::Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub mod driven;
pub mod jvm;
pub mod tla_constants;

/// Every file under `dir` (in every sub-folder) whose name ends in
/// `suffix`, sorted.
pub fn files_under(dir: &std::path::Path, suffix: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
