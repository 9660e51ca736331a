//! `reenact` on a real etcd: an `etcd-lease` trace's schedule executed
//! against one real `etcd` (Debian's etcd-server 3.4, started by
//! [`crate::real::etcd`] with `--heartbeat-interval 10 --election-timeout
//! 100`, so its shortest TTL is 1 s) by real `etcd-client` connections, one
//! per client, each through a loopback TCP proxy the driver owns.
//!
//! How each step becomes real is in [`driver`]; which steps have no real
//! counterpart (and make the trace not enactable) in [`plan`]. The judging
//! rule is the Redis reenact's: a client holds when the trace's client
//! logic says so and every real answer its logic used in the current
//! attempt agreed with the model's in what the logic decides on (the lock
//! transaction's success and whether its key is the first, the
//! `waitDeletes` query, the watch's DELETE event, keep-alive answers,
//! lease-not-found, a validity client's check on the real clock). Fencing
//! tokens are the real create revisions.
//!
//! Time. One tick is [`DEFAULT_TICK_MS`] (4 s; `--tick-ms` takes whole
//! seconds from 2 s) and ticks are a schedule, start + k · tick. A TTL of
//! m ticks is granted to etcd as m · tick + 1 s (rounded up to whole
//! seconds: etcd's TTLs are). A lease refreshed (granted or kept alive) a
//! few milliseconds after grid point j, as the trace's steps run, so runs
//! out on etcd's clock 1 s after grid point j + m, where the model's
//! expiry timer fires, and etcd's lessor, which looks for expired leases
//! every 500 ms and revokes them through Raft, has deleted its keys by
//! about 1.5 s after it. So a request the trace delivers in tick j + m
//! before the expiry step finds the lease alive, the expiry step waits
//! (up to a tick) until etcd has revoked it, and what follows finds it
//! gone: each expiry decision lies at least a second from the steps on
//! either side of it. With 4 s ticks a lease refreshed right after an
//! expiry wait (1.5 s into a tick) still runs out within its tick. The
//! conformance test's TTLs (2m − 1 s at 2 s ticks) end before the grid
//! point instead, because it compares states at grid points; a trace
//! orders requests and the expiry within one tick, so here the expiry
//! goes after the grid point. A validity client counts its TTL on the
//! driver's real clock and compares it to whole ticks with half a tick of
//! rounding, so the milliseconds the steps take do not flip a decision,
//! while a pause or a late schedule does.

mod driver;
mod plan;

use std::fmt::Write as _;
use std::time::Duration;

use super::{log_header, other_configuration, verdict, Options, Shadow};
use crate::algorithms::dispatch;
use crate::algorithms::etcd_lease::{self, Params};
use crate::properties::Prop;
use crate::scenario::Scenario;
use crate::trace::{Replay, TraceFile};

use driver::{Config, Driver};

/// The default tick on etcd, in ms (module doc).
pub const DEFAULT_TICK_MS: u64 = 4000;

/// The TTL in whole seconds granted to etcd for `ticks` ticks of
/// `tick_ms`: at least a second beyond the model's expiry (module doc).
pub fn real_ttl(ticks: u8, tick_ms: u64) -> i64 {
    ((u64::from(ticks) * tick_ms + 1000).div_ceil(1000)) as i64
}

/// Reenacts `trace` (of `sc`, an etcd-lease scenario) on a real etcd: the
/// log and the verdict.
pub fn reenact(shown: &str, trace: &TraceFile, prop: Prop, sc: &Scenario, opts: &Options) -> (String, Replay) {
    let mut log = String::new();
    let invalid = |why: String| Replay::Invalid(format!("{shown}: cannot be enacted: {why}"));
    let tick_ms = opts.tick_ms.unwrap_or(DEFAULT_TICK_MS);
    if tick_ms < 2000 || !tick_ms.is_multiple_of(1000) {
        return (
            log,
            Replay::Invalid(format!(
                "--tick-ms {tick_ms} cannot time an etcd trace: etcd's TTLs are whole seconds and its lessor revokes an expired lease up to half a second late; allowed: whole seconds from 2000 to 10000 (default {DEFAULT_TICK_MS})"
            )),
        );
    }
    let model = match Params::read(sc) {
        Ok(p) => p,
        Err(e) => return (log, invalid(e.to_string())),
    };
    let (real_sc, p) = match &opts.scenario {
        None => (sc.clone(), model),
        Some(name) => {
            let other = match other_configuration(name, sc) {
                Ok(o) => o,
                Err(e) => return (log, Replay::Invalid(e)),
            };
            let p = match Params::read(&other) {
                Ok(p) => p,
                Err(e) => return (log, invalid(e.to_string())),
            };
            if p.clients != model.clients || p.ttl != model.ttl {
                return (
                    log,
                    Replay::Invalid(format!(
                        "--scenario {name}: its clients ({}) or lease TTL ({}) differ from the trace's scenario {} ({}, {}), which time and cast the trace; allowed: an etcd-lease scenario with the same clients and ttl",
                        p.clients, p.ttl, sc.name, model.clients, model.ttl
                    )),
                );
            }
            (other, p)
        }
    };
    let world = match etcd_lease::world(sc) {
        Ok(w) => w,
        Err(e) => return (log, invalid(e.to_string())),
    };
    let plan = match plan::read(&world, trace) {
        Ok(p) => p,
        Err(e) => return (log, invalid(e)),
    };
    let (holding, names) = match dispatch(sc, Shadow { trace }) {
        Ok(Ok(h)) => h,
        Ok(Err(e)) | Err(crate::scenario::ScenarioError(e)) => return (log, invalid(e)),
    };
    let Some(bin) = crate::real::etcd::find_etcd() else {
        return (
            log,
            invalid("etcd is not installed (Debian's etcd-server package; or set ETCD_SERVER)".into()),
        );
    };
    let cfg = Config {
        p,
        tick: Duration::from_millis(tick_ms),
        real_ttl: real_ttl(p.ttl, tick_ms),
    };
    let version = std::process::Command::new(&bin)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).lines().next().map(str::to_string))
        .unwrap_or_else(|| "etcd (version unknown)".into());
    let lease = format!("; lease TTL {} ticks = {} s on etcd", p.ttl, cfg.real_ttl);
    log_header(&mut log, shown, trace, prop, &real_sc, tick_ms, &lease);
    let _ = writeln!(
        log,
        "how: one driver plays every client in the trace's order against a real {version} (a request is sent at its delivery step and etcd's answer held until the trace delivers it; keep-alives are the trace's; a paused client takes no step; leases expire by etcd's own lessor; a cut or loss closes the client's connection through its proxy); ticks are a real schedule; the resource is in-process, fenced by real create revisions"
    );
    let mut driver = match Driver::start(&cfg, &bin, names) {
        Ok(d) => d,
        Err(e) => return (log, invalid(e)),
    };
    driver.begin();
    let clients = usize::from(p.clients);
    for (k, held) in holding.iter().enumerate() {
        // Client c is node c + 1.
        let model: Vec<bool> = (0..clients).map(|c| held & (1 << (c + 1)) != 0).collect();
        driver.step(
            k,
            &plan.actions[k],
            &plan.states[k],
            &plan.states[k + 1],
            &model,
            &trace.steps[k].does,
        );
    }
    for line in &driver.log {
        let _ = writeln!(log, "{line}");
    }
    let outcome = verdict(shown, prop, &driver.witness, &real_sc, "etcd");
    (log, outcome)
}

#[cfg(test)]
mod tests {
    use super::real_ttl;

    /// A lease runs out a second or more after the tick the model's
    /// timer fires in, and before the next tick's first second is over.
    #[test]
    fn real_ttls_end_a_second_into_the_tick() {
        assert_eq!(real_ttl(6, 4000), 25);
        assert_eq!(real_ttl(3, 4000), 13);
        assert_eq!(real_ttl(3, 2000), 7);
        for ticks in 1..=30u8 {
            for ms in [2000, 3000, 4000, 10_000] {
                let end = real_ttl(ticks, ms) * 1000 - i64::from(ticks) * ms as i64;
                assert!((1000..2000).contains(&end), "{ticks} ticks of {ms} ms: {end}");
            }
        }
    }
}
