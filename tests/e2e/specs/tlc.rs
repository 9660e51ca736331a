//! Running TLC: finding the jar, the run itself, and reading its `-tool` output.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::suite::specs_dir;
use super::verdicts::RECORDED;
use crate::common::jvm::{tlc_flags, Jit};

/// Where `tla2tools.jar` is; `java` must be on the path.
const JAR_VAR: &str = "TLA2TOOLS_JAR";

/// Whether this run is CI's: `CI` set to anything but empty, `false` or `0`
/// (CI sets `CI=true`).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "false" | "0"))
}

/// Writes straight to the process's stderr, which the test harness does
/// not capture, so that the line shows even when the test passes.
pub(super) fn loud(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// A way to run TLC: the jar, and `java` on the path.
#[derive(Clone)]
pub(crate) struct Tlc {
    pub(crate) jar: PathBuf,
    /// The compilers its runs use: C1 alone, unless a row's README time
    /// asks for both (`Jit::for_row`).
    pub(crate) jit: Jit,
}

/// One message of TLC's `-tool` output: `@!@!@STARTMSG code:severity @!@!@`,
/// its text, `@!@!@ENDMSG code @!@!@`. Severity 1 is an error.
#[derive(Debug)]
struct TlcMessage {
    code: u32,
    severity: u32,
    text: String,
}

/// TLC's messages, and the lines printed outside any (SANY's, Java's).
fn tlc_messages(output: &str) -> (Vec<TlcMessage>, Vec<String>) {
    let (mut messages, mut loose) = (Vec::new(), Vec::new());
    let mut open: Option<TlcMessage> = None;
    for line in output.lines() {
        if let Some(head) = line.strip_prefix("@!@!@STARTMSG ") {
            let head = head.trim_end_matches("@!@!@").trim();
            let (code, severity) = head.split_once(':').unwrap_or((head, "0"));
            if let Some(m) = open.take() {
                messages.push(m);
            }
            open = Some(TlcMessage {
                code: code.parse().unwrap_or(0),
                severity: severity.parse().unwrap_or(0),
                text: String::new(),
            });
        } else if line.starts_with("@!@!@ENDMSG ") {
            messages.extend(open.take());
        } else if let Some(m) = open.as_mut() {
            m.text.push_str(line);
            m.text.push('\n');
        } else if !line.trim().is_empty() {
            loose.push(line.to_string());
        }
    }
    messages.extend(open);
    (messages, loose)
}

/// What a TLC run found wrong: TLC names the invariant (or the property
/// it checks as an invariant, such as `[]P`) it found violated, but not
/// which temporal property.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Violation {
    Named(String),
    Temporal,
}

/// How a TLC run ended without an error of its own.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct TlcRun {
    pub(super) violation: Option<Violation>,
    /// The distinct states, when TLC explored the whole state space: it
    /// found no error, or it found a temporal property violated (with
    /// `-lncheck final`, only once the search is complete).
    pub(super) distinct: Option<usize>,
    /// The invariants a recording run ([`recorder_module`]) printed false
    /// in some state.
    pub(super) recorded: BTreeSet<String>,
}

/// TLC's codes (`tlc2.output.EC`) for "Model checking completed. No error
/// has been found.", the closing statistics, and "Checking temporal
/// properties for the complete state space".
const TLC_SUCCESS: u32 = 2193;
const TLC_STATS: u32 = 2199;
const TLC_CHECKING_TEMPORAL_PROPS: u32 = 2192;

/// What TLC's `-tool` output and exit status say; an error (with TLC's
/// own words) when TLC failed otherwise than by finding a violation: a
/// parse or semantic error, a bad `.cfg`, an exception. Exit statuses
/// (`EC.ExitStatus`): 0 no error, 10 to 14 a violation (assumption,
/// deadlock, safety, liveness, assert), 75 and up TLC's own failures.
pub(super) fn interpret(output: &str, status: Option<i32>) -> Result<TlcRun, String> {
    let (messages, loose) = tlc_messages(output);
    let violation = messages.iter().filter(|m| m.severity == 1).find_map(|m| {
        let text = m.text.trim();
        if text.starts_with("Temporal properties were violated") {
            return Some(Violation::Temporal);
        }
        ["Invariant ", "Action property ", "Property "]
            .iter()
            .find_map(|prefix| {
                let rest = text.strip_prefix(prefix)?;
                let (name, rest) = rest.split_once(' ')?;
                rest.starts_with("is violated")
                    .then(|| Violation::Named(name.to_string()))
            })
    });
    let distinct = messages.iter().rev().filter(|m| m.code == TLC_STATS).find_map(|m| {
        let before = m.text.split(" distinct states found").next()?;
        before.rsplit(' ').next()?.replace(',', "").parse::<usize>().ok()
    });
    // Read from every line, not only those outside TLC's messages: a
    // worker's PrintT can land between the lines of a message the main
    // thread prints, and a line missed there would make an invariant hold.
    let recorded: BTreeSet<String> = output
        .lines()
        .filter_map(|l| {
            let name = l.trim().strip_prefix(&format!("<<\"{RECORDED}\", \""))?;
            Some(name.strip_suffix("\">>")?.to_string())
        })
        .collect();
    let has = |code: u32| messages.iter().any(|m| m.code == code);
    let errors = || {
        let mut text: Vec<String> = messages
            .iter()
            .filter(|m| m.severity == 1)
            .map(|m| m.text.trim().to_string())
            .collect();
        text.extend(
            loose
                .iter()
                .filter(|l| !l.starts_with("Parsing file") && !l.starts_with("Semantic processing"))
                .cloned(),
        );
        let mut text = text.join("\n");
        if text.len() > 4000 {
            let mut cut = 4000;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str("\n[...]");
        }
        format!("TLC exited with status {status:?}:\n{text}")
    };
    match violation {
        Some(v) => {
            if status == Some(0) {
                return Err(format!("TLC reports {v:?} but exits with status 0: {}", errors()));
            }
            // A violation is the verdict, whatever follows it: under a VIEW,
            // TLC may then fail to rebuild the counterexample and exit with
            // another status (tlaplus/tlaplus#1045).
            let complete = v == Violation::Temporal && has(TLC_CHECKING_TEMPORAL_PROPS);
            Ok(TlcRun {
                violation: Some(v),
                distinct: distinct.filter(|_| complete),
                recorded,
            })
        }
        None if status == Some(0) && has(TLC_SUCCESS) && distinct.is_some() => Ok(TlcRun {
            violation: None,
            distinct,
            recorded,
        }),
        None => Err(errors()),
    }
}

impl Tlc {
    /// TLC, if `TLA2TOOLS_JAR` names a jar and `java` runs; else why not.
    fn find() -> Result<Tlc, String> {
        let jar = std::env::var_os(JAR_VAR).ok_or(format!("{JAR_VAR} is not set"))?;
        let jar = PathBuf::from(jar);
        if !jar.is_file() {
            return Err(format!("{JAR_VAR}={} is not a file", jar.display()));
        }
        match Command::new("java").arg("-version").output() {
            Ok(out) if out.status.success() => Ok(Tlc { jar, jit: Jit::Quick }),
            Ok(out) => Err(format!(
                "`java -version` fails: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )),
            Err(e) => Err(format!("`java` does not run: {e}")),
        }
    }

    /// TLC for a test, or `None` after saying loudly that TLC was not run
    /// (`what`, for whom). Under CI, and whenever `TLA2TOOLS_JAR` is set,
    /// a TLC that cannot run fails the test.
    pub(crate) fn for_test(what: &str) -> Option<Tlc> {
        match Tlc::find() {
            Ok(tlc) => Some(tlc),
            Err(why) => {
                let how = "see specs/README.md, \"Running TLC\"; .ci/run installs both";
                if in_ci() || std::env::var_os(JAR_VAR).is_some() {
                    panic!("TLC is needed for {what} and cannot run: {why} ({how})");
                }
                loud(&format!(
                    "\n*** TLC NOT RUN on {what}: {why}. This test passes without checking TLC's verdicts \
                     (it fails under CI=true). Set {JAR_VAR} to tla2tools.jar ({how}).\n"
                ));
                None
            }
        }
    }

    /// Runs TLC from `dir` on the module `spec` with the `.cfg` at `cfg`,
    /// its state files under `meta` (removed afterwards). `library`: one
    /// more folder where the modules `spec` extends are found, before
    /// specs/.
    pub(super) fn run(
        &self,
        dir: &Path,
        spec: &str,
        cfg: &Path,
        meta: &Path,
        library: Option<&Path>,
    ) -> Result<TlcRun, String> {
        // Each run gets its own temporary directory: TLC unpacks its
        // standard modules there, and two TLCs unpacking into one shared
        // directory at once made one fail to parse (seen once: "Module-Table
        // lookup failure", a NullPointerException).
        let tmp = meta.with_extension("tmp");
        fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        let output = Command::new("java")
            .arg(format!("-Djava.io.tmpdir={}", tmp.display()))
            // specs/mirror's modules extend specs/World.tla.
            .arg(match library {
                Some(first) => format!("-DTLA-Library={}:{}", first.display(), specs_dir().display()),
                None => format!("-DTLA-Library={}", specs_dir().display()),
            })
            // C1 alone, or both compilers for a long row: common/jvm.rs.
            .args(tlc_flags(&self.jar, self.jit))
            .arg("-cp")
            .arg(&self.jar)
            .args([
                "tlc2.TLC",
                "-tool",
                "-deadlock",
                "-lncheck",
                "final",
                "-workers",
                "1",
                "-metadir",
            ])
            .arg(meta)
            .arg("-config")
            .arg(cfg)
            .arg(spec)
            .current_dir(dir)
            .output()
            .map_err(|e| format!("java does not run: {e}"))?;
        let _ = fs::remove_dir_all(meta);
        let _ = fs::remove_dir_all(&tmp);
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        interpret(&text, output.status.code())
    }
}
