//! The bench's second table: TLC on the TLA+ twins in specs/mirror/ of
//! the configurations that have one, beside locksmith's figure on the
//! same state space. Each twin counts states as locksmith does, and most
//! do so through a `VIEW` (renumbered ghost numbers, shifted timestamps)
//! that TLC evaluates on every state it generates: that slows TLC, so the
//! table names the `VIEW` and says that such a ratio is not the headline.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::super::failure::Exit;
use super::super::{json, Format};
use super::Config;

/// TLC's workers: one per core of the machine the figures are for.
pub(super) const WORKERS: usize = 2;

/// Prints TLC's table for `twins`, each with locksmith's median unique
/// states per second on it (from the first table), and `threads`, the
/// threads that figure used.
pub(super) fn table(jar: &Path, twins: &[(&Config, f64)], threads: usize, format: Format) -> Exit {
    if format == Format::Text {
        println!(
            "\n| configuration | TLC on | TLC distinct states | TLC wall s | TLC distinct states/s | locksmith unique states/s | locksmith / TLC | VIEW |"
        );
        println!("|---|---|---:|---:|---:|---:|---:|---|");
    }
    let mut views = Vec::new();
    for (c, ours) in twins {
        let cfg = c.twin.unwrap_or_default();
        let (distinct, seconds) =
            run(jar, cfg).map_err(|e| format!("bench {}: TLC on specs/mirror/{cfg}: {e}", c.label))?;
        let per_second = distinct as f64 / seconds.max(1e-9);
        let view = view(&mirror().join(cfg));
        match format {
            Format::Text => println!(
                "| {} | specs/mirror/{cfg} | {distinct} | {seconds:.2} | {per_second:.0} | {ours:.0} | {:.0}x | {} |",
                c.label,
                ours / per_second.max(1e-9),
                view.as_deref().unwrap_or("none"),
            ),
            Format::Json => println!(
                "{}",
                json::bench(&json::BenchTlc {
                    kind: "bench_tlc",
                    configuration: c.label,
                    spec: format!("specs/mirror/{cfg}"),
                    distinct_states: distinct,
                    seconds,
                    distinct_states_per_second: per_second.round(),
                    workers: WORKERS,
                    view: view.clone(),
                    locksmith_unique_states_per_second: ours.round(),
                })
            ),
        }
        views.extend(view);
        let _ = std::io::stdout().flush();
    }
    if format == Format::Text {
        println!(
            "\nTLC: one run each, {WORKERS} workers, wall time from start to exit (the JVM's start included); \
             locksmith: the median above, {threads} thread(s)"
        );
        if !views.is_empty() {
            views.sort();
            views.dedup();
            println!(
                "VIEW: the twin declares `VIEW {}` so that TLC counts states as locksmith does \
                 (renumbered; specs/mirror/README.md), and TLC evaluates it on every state it \
                 generates. That slows TLC, so the ratio on such a twin flatters locksmith and is \
                 not the headline (docs/performance.md compares TLC on an independent spec without one).",
                views.join("` or `VIEW ")
            );
        }
    }
    Ok(0)
}

/// specs/mirror/ of the checkout this binary was built from: the twins
/// extend specs/World.tla, so TLC needs the checkout.
fn mirror() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/mirror")
}

/// The operator a `.cfg` declares as its `VIEW`, if it declares one
/// (`None` too where the file cannot be read: TLC has just run it).
fn view(cfg: &Path) -> Option<String> {
    let text = std::fs::read_to_string(cfg).ok()?;
    text.lines()
        .find_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            ["VIEW", operator, ..] => Some(operator.to_string()),
            _ => None,
        })
}

/// Runs TLC on `specs/mirror/<cfg>` (its module is the `.cfg`'s stem)
/// with the options tests/e2e/specs/tlc.rs uses, in a temporary directory of
/// its own, and returns the distinct states of the complete search and
/// the wall seconds.
fn run(jar: &Path, cfg: &str) -> Result<(u64, f64), String> {
    let world = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    let specs = mirror();
    let module = cfg.trim_end_matches(".cfg");
    let work = std::env::temp_dir().join(format!("locksmith-bench-tlc-{}-{module}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let start = Instant::now();
    let out = Command::new("java")
        .arg(format!("-Djava.io.tmpdir={}", work.display()))
        .arg(format!("-DTLA-Library={}", world.display()))
        .args(["-XX:+UseParallelGC", "-cp"])
        .arg(jar)
        .args(["tlc2.TLC", "-tool", "-deadlock", "-lncheck", "final", "-workers"])
        .arg(WORKERS.to_string())
        .arg("-metadir")
        .arg(work.join("meta"))
        .args(["-config", cfg, module])
        .current_dir(&specs)
        .output()
        .map_err(|e| format!("java does not run: {e}"));
    let seconds = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&work);
    let out = out?;
    let text = String::from_utf8_lossy(&out.stdout);
    // Message 2199: "N states generated, M distinct states found, ...".
    let distinct = text
        .lines()
        .rev()
        .filter_map(|l| l.find(" distinct states found").map(|at| &l[..at]))
        .find_map(|head| head.rsplit(' ').next()?.replace(',', "").parse::<u64>().ok())
        .ok_or_else(|| {
            let tail: Vec<&str> = text.lines().rev().take(5).collect();
            format!(
                "no distinct-state count in TLC's output (exit {:?}): {}",
                out.status.code(),
                tail.join(" / ")
            )
        })?;
    Ok((distinct, seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three twins the bench runs TLC on all declare a VIEW; a `.cfg`
    /// without one (a comment naming VIEW does not count) has none.
    #[test]
    fn the_view_is_read_from_the_cfg() {
        assert_eq!(view(&mirror().join("Redlock.cfg")).as_deref(), Some("RankedVars"));
        assert_eq!(
            view(&mirror().join("RicartAgrawala.cfg")).as_deref(),
            Some("ShiftedVars")
        );
        assert_eq!(view(&mirror().join("TokenRing.cfg")).as_deref(), Some("RankedVars"));
        let dir = std::env::temp_dir().join(format!("locksmith-bench-view-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let cfg = dir.join("NoView.cfg");
        std::fs::write(&cfg, "\\* no VIEW here\nSPECIFICATION Spec\n").expect("written");
        assert_eq!(view(&cfg), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
