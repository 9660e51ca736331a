//! One configuration measured in a process of its own: the child
//! (`locksmith bench --child LABEL --threads N`) checks it and prints one
//! JSON line, which the parent reads back. A process per run makes the
//! peak resident memory (Linux's `VmHWM`) that configuration's alone, and
//! lets `--baseline` run another binary's child the same way.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::algorithms::{dispatch, Job};
use crate::catalog;
use crate::check::{check, Options};
use crate::memory;
use crate::properties::Lock;
use crate::scenario::Scenario;
use crate::world::World;

use super::super::failure::{Exit, Failure};
use super::CONFIGS;

/// What one run of one configuration measured.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Run {
    pub unique: u64,
    pub generated: u64,
    pub depth: u64,
    pub seconds: f64,
    /// The child's CPU time over the search, user and system (`None` from
    /// a child that does not report it, or where `/proc` cannot be read).
    pub cpu: Option<f64>,
    /// Peak resident memory of the whole child process, in bytes.
    pub peak: u64,
    /// Resident memory just before the check started, in bytes.
    pub base: u64,
}

impl Run {
    pub fn per_second(&self) -> f64 {
        self.unique as f64 / self.seconds.max(1e-9)
    }

    /// Unique states per CPU second, where both are known and the search
    /// ran on one thread: then it is the search's own speed, which other
    /// work on a busy machine (CI's parallel tests) slows far less than it
    /// slows the wall clock. `None` otherwise.
    pub fn per_cpu_second(&self, threads: usize) -> Option<f64> {
        self.cpu
            .filter(|c| threads <= 1 && *c > 0.0)
            .map(|c| self.unique as f64 / c)
    }

    /// States generated (successors computed, duplicates included) per
    /// second: the work rate, which unique states/s hides when a
    /// configuration revisits many states.
    pub fn generated_per_second(&self) -> f64 {
        self.generated as f64 / self.seconds.max(1e-9)
    }

    /// Bytes the check itself retained at its peak, per unique state.
    pub fn bytes_per_state(&self) -> f64 {
        self.peak.saturating_sub(self.base) as f64 / self.unique.max(1) as f64
    }
}

/// The median of each figure on its own (counts are the same every run).
pub(super) fn median(runs: &[Run]) -> Run {
    let first = runs[0];
    Run {
        seconds: median_of(runs.iter().map(|r| r.seconds).collect()),
        cpu: runs.iter().map(|r| r.cpu).collect::<Option<Vec<f64>>>().map(median_of),
        peak: median_of(runs.iter().map(|r| r.peak as f64).collect()) as u64,
        base: median_of(runs.iter().map(|r| r.base as f64).collect()) as u64,
        ..first
    }
}

/// The median of `v` (its upper middle for an even length); `v` is not
/// empty (`--repeat` is at least 1).
pub(super) fn median_of(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `exe`'s child for `label` and reads its line. An error is a
/// sentence: the child could not start, failed, or printed no line this
/// version reads.
pub(super) fn spawn(exe: &Path, label: &str, threads: usize) -> Result<Run, String> {
    let out = Command::new(exe)
        .args(["bench", "--child", label, "--threads", &threads.to_string()])
        .output()
        .map_err(|e| format!("cannot run the bench child for {label}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "bench {label} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    // The last line that reads: another version's child may say more.
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .rev()
        .find_map(parse)
        .ok_or_else(|| format!("bench {label}: unreadable child output"))
}

fn parse(line: &str) -> Option<Run> {
    let v: serde_json::Value = serde_json::from_str(line.trim()).ok()?;
    let u = |k: &str| v.get(k).and_then(serde_json::Value::as_u64);
    Some(Run {
        unique: u("unique")?,
        generated: u("generated")?,
        depth: u("depth")?,
        seconds: v.get("seconds")?.as_f64()?,
        cpu: v.get("cpu").and_then(serde_json::Value::as_f64),
        peak: u("peak")?,
        base: u("base")?,
    })
}

/// The child itself: checks configuration `label` and prints its line.
pub(super) fn child(label: &str, threads: usize) -> Exit {
    let Some(c) = CONFIGS.iter().find(|c| c.label == label) else {
        return Err(Failure::bad(format!("{label:?} is not a bench configuration")));
    };
    let loaded = match c.text {
        Some(text) => catalog::parse(Path::new(c.scenario), text),
        None => catalog::open(c.scenario),
    };
    let sc = loaded?;
    let r = dispatch(
        &sc,
        Measure {
            threads,
            no_symmetry: c.no_symmetry,
        },
    )?;
    println!(
        "{}",
        serde_json::json!({
            "unique": r.unique, "generated": r.generated, "depth": r.depth,
            "seconds": r.seconds, "cpu": r.cpu, "peak": r.peak, "base": r.base,
        })
    );
    Ok(0)
}

struct Measure {
    threads: usize,
    no_symmetry: bool,
}

impl Job for Measure {
    type Output = Run;

    fn run<A: Lock>(self, _: &Scenario, world: World<A>) -> Run {
        let base = status_kib("VmRSS").unwrap_or(0) << 10;
        let cpu = memory::cpu_seconds();
        let start = Instant::now();
        let opts = Options {
            threads: self.threads,
            no_symmetry: self.no_symmetry,
            ..Options::default()
        };
        let out = check(&world, &opts);
        let seconds = start.elapsed().as_secs_f64();
        let cpu = cpu.zip(memory::cpu_seconds()).map(|(a, b)| b - a);
        Run {
            unique: out.unique_states as u64,
            generated: out.states as u64,
            depth: out.max_depth as u64,
            seconds,
            cpu,
            peak: status_kib("VmHWM").unwrap_or(0) << 10,
            base,
        }
    }
}

/// A `kB` field of `/proc/self/status` (0 where there is none).
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status
        .lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_middle_value_whatever_the_order() {
        assert_eq!(median_of(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median_of(vec![0.9]), 0.9);
    }

    #[test]
    fn a_child_line_reads_and_anything_else_does_not() {
        let line = r#"{"unique":18,"generated":18,"depth":17,"seconds":0.5,"peak":2048,"base":1024}"#;
        let r = parse(line).expect("reads");
        assert_eq!((r.unique, r.generated, r.depth), (18, 18, 17));
        assert_eq!(r.generated_per_second(), 36.0);
        assert_eq!(r.per_cpu_second(1), None, "an older child reports no CPU time");
        let line = r#"{"unique":18,"generated":18,"depth":17,"seconds":0.5,"cpu":0.25,"peak":2048,"base":1024}"#;
        let r = parse(line).expect("reads");
        assert_eq!(r.per_cpu_second(1), Some(72.0));
        assert_eq!(r.per_cpu_second(2), None, "two threads' CPU time is not their speed");
        assert!(parse("locksmith 0.1.0").is_none());
        assert!(parse(r#"{"unique":18}"#).is_none());
    }
}
