//! The real side: the tick grid, and the key as `redis-server` holds it.

use std::thread::sleep;
use std::time::{Duration, Instant};

use super::LOCK;

/// The tick grid: tick j is `j · tick` after `start`.
pub(super) struct Clock {
    pub(super) start: Instant,
    pub(super) tick: Duration,
    /// The current tick.
    pub(super) now: u32,
}

impl Clock {
    pub(super) fn new() -> Clock {
        let ms = std::env::var("LOCKSMITH_REDIS_TICK_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(200u64)
            .max(40);
        Clock {
            start: Instant::now(),
            tick: Duration::from_millis(ms),
            now: 0,
        }
    }

    pub(super) fn t_ms(&self) -> f64 {
        self.tick.as_secs_f64() * 1000.0
    }

    /// A TTL of `ticks` as Redis gets it: half a tick short (module doc).
    pub(super) fn px(&self, ticks: u8) -> u64 {
        (f64::from(ticks) * self.t_ms() - self.t_ms() / 2.0) as u64
    }

    pub(super) fn ms_since_start(&self, at: Instant) -> f64 {
        at.duration_since(self.start).as_secs_f64() * 1000.0
    }

    /// Sleeps until the current tick's grid point.
    pub(super) fn wait_for_grid(&self) {
        let at = self.start + self.tick * self.now;
        let now = Instant::now();
        if at > now {
            sleep(at - now);
        }
    }

    /// Whether a command answered at `done` was answered within 3/8 of a
    /// tick of the current grid point (module doc).
    pub(super) fn on_time(&self, done: Instant) -> bool {
        self.ms_since_start(done) <= f64::from(self.now) * self.t_ms() + self.t_ms() * 3.0 / 8.0
    }

    /// How long after the current grid point `done` is, in ms.
    pub(super) fn late_ms(&self, done: Instant) -> f64 {
        self.ms_since_start(done) - f64::from(self.now) * self.t_ms()
    }

    /// The first tick whose grid point is at least 1/8 tick after `done`.
    pub(super) fn next_tick_after(&self, done: Instant) -> u32 {
        let ms = self.ms_since_start(done) + self.t_ms() / 8.0;
        ((ms / self.t_ms()).ceil() as u32).max(self.now + 1)
    }
}

/// The case stops here: the real timing is no longer unambiguous.
pub(super) struct Late;

/// The key as seen: its value (`v3` is 3), and its TTL left in whole
/// ticks (`None`: no TTL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct KeyState {
    pub(super) value: u32,
    pub(super) ttl: Option<u32>,
}

pub(super) fn value_name(v: u32) -> String {
    format!("v{v}")
}

/// The real key: `GET` and `PTTL`, the TTL turned into ticks left.
pub(super) fn real_key(con: &mut redis::Connection, clock: &Clock) -> Result<Option<KeyState>, Late> {
    let sent = Instant::now();
    let (value, pttl): (Option<String>, i64) = redis::pipe()
        .cmd("GET")
        .arg(LOCK)
        .cmd("PTTL")
        .arg(LOCK)
        .query(con)
        .expect("GET, PTTL");
    let done = Instant::now();
    if !clock.on_time(done) {
        return Err(Late);
    }
    let Some(value) = value else {
        return Ok(None);
    };
    let value = value[1..].parse().expect("the test's values are v1, v2, ...");
    let ttl = (pttl >= 0).then(|| {
        let mid = (clock.ms_since_start(sent) + clock.ms_since_start(done)) / 2.0;
        let deadline = mid + pttl as f64;
        // A deadline lies between 1/2 and 1/8 tick before the grid point
        // of the model's expiry: round from the middle of that window.
        ((deadline + clock.t_ms() * 5.0 / 16.0) / clock.t_ms()).round() as u32 - clock.now
    });
    Ok(Some(KeyState { value, ttl }))
}
