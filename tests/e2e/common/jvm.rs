//! The JVM flags every TLC run of the tests uses, and a class-data-sharing
//! archive of TLC's classes made once for them.
//!
//! CI runs TLC more than a hundred times on small models, where starting
//! the JVM and loading TLC's classes is most of each run: with an archive
//! of those classes (JDK 13's dynamic CDS, `-XX:ArchiveClassesAtExit`), a
//! run of RicartAgrawalaCILiveness.cfg took 1.3 to 1.6 s of CPU instead of
//! 1.9 to 2.1 s (three runs each, same machine). The archive is only a
//! cache: when it cannot be made, or the JVM does not accept it, TLC runs
//! as before, with the same output.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The serial collector is the cheapest for TLC's one worker.
const FLAGS: [&str; 1] = ["-XX:+UseSerialGC"];

/// Which of the JVM's compilers a TLC run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jit {
    /// C1 alone: the optimising tier costs more than it wins on runs of
    /// seconds, most of CI's (10 s to 4-5 s on SingleRedisCrashEmpty.cfg,
    /// one run; 1.2 s of CPU instead of 2.3 s on SingleRedisCILiveness.cfg).
    Quick,
    /// Both tiers, for runs of a minute or more, where C2's code pays
    /// for itself: PrimaryReplicaCILiveness.cfg took 28 s instead of 44 s,
    /// PrimaryReplicaWaitCrashCI.cfg 39 s instead of 58 s (one direct run
    /// each, `-workers 1`, same machine, 2026-12-06).
    Optimising,
}

impl Jit {
    /// The compilers for a search of a whole row of the state-count table
    /// whose README time starts at `secs` (specs/suite.rs): both from a
    /// minute.
    pub fn for_row(secs: u32) -> Jit {
        if secs >= 60 {
            Jit::Optimising
        } else {
            Jit::Quick
        }
    }
}

/// A model small enough to check in a second that still loads the classes
/// TLC's runs here use: invariants, a temporal property, fairness.
const WARM_UP: &str = "---- MODULE CdsWarmUp ----
EXTENDS Naturals, Sequences, FiniteSets, TLC
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 3
Spec == Init /\\ [][Next]_x /\\ WF_x(Next)
Small == x < 3
Back == []<>(x = 0)
====
";

/// The flags for a TLC run with the jar `jar` and the compilers `jit`:
/// [`FLAGS`], C1 alone for [`Jit::Quick`], and the archive
/// of TLC's classes where one could be made.
pub fn tlc_flags(jar: &Path, jit: Jit) -> Vec<OsString> {
    static ARCHIVE: OnceLock<Option<PathBuf>> = OnceLock::new();
    let mut flags: Vec<OsString> = FLAGS.iter().map(OsString::from).collect();
    if jit == Jit::Quick {
        flags.push("-XX:TieredStopAtLevel=1".into());
    }
    if let Some(archive) = ARCHIVE.get_or_init(|| archive(jar)) {
        let mut flag = OsString::from("-XX:SharedArchiveFile=");
        flag.push(archive);
        flags.push(flag);
    }
    flags
}

/// The archive for this jar and this JVM, made once (under the target
/// directory's scratch folder, named after both, so that another jar or
/// JVM gets its own), or `None` when it cannot be made.
fn archive(jar: &Path) -> Option<PathBuf> {
    let version = Command::new("java").arg("-version").output().ok()?;
    let meta = std::fs::metadata(jar).ok()?;
    let mut key = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(&(version.stderr, meta.len(), meta.modified().ok()), &mut key);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tlc-cds");
    let archive = dir.join(format!("{:016x}.jsa", std::hash::Hasher::finish(&key)));
    if archive.is_file() {
        return Some(archive);
    }
    // Made in a folder of its own and renamed into place: two test
    // processes at once each make theirs, and either one is kept whole.
    let work = dir.join(format!("make-{}", std::process::id()));
    std::fs::create_dir_all(&work).ok()?;
    let made = make(jar, &work);
    let kept = made.and_then(|a| std::fs::rename(a, &archive).ok());
    let _ = std::fs::remove_dir_all(&work);
    kept.map(|()| archive)
}

/// Runs TLC once on [`WARM_UP`] in `work`, dumping the classes it loaded.
fn make(jar: &Path, work: &Path) -> Option<PathBuf> {
    std::fs::write(work.join("CdsWarmUp.tla"), WARM_UP).ok()?;
    std::fs::write(
        work.join("CdsWarmUp.cfg"),
        "SPECIFICATION Spec\nINVARIANT Small\nPROPERTY Back\n",
    )
    .ok()?;
    let archive = work.join("tlc.jsa");
    let mut dump = OsString::from("-XX:ArchiveClassesAtExit=");
    dump.push(&archive);
    let status = Command::new("java")
        .arg(format!("-Djava.io.tmpdir={}", work.display()))
        .args(FLAGS)
        .arg(dump)
        .arg("-cp")
        .arg(jar)
        .args(["tlc2.TLC", "-workers", "1", "-metadir"])
        .arg(work.join("meta"))
        .args(["-config", "CdsWarmUp.cfg", "CdsWarmUp.tla"])
        .current_dir(work)
        .output()
        .ok()?;
    (status.status.success() && archive.is_file()).then_some(archive)
}

#[test]
fn a_row_of_a_minute_or_more_gets_both_compilers() {
    assert_eq!(Jit::for_row(0), Jit::Quick);
    assert_eq!(Jit::for_row(59), Jit::Quick);
    assert_eq!(Jit::for_row(60), Jit::Optimising);
    assert_eq!(Jit::for_row(106), Jit::Optimising);
}
