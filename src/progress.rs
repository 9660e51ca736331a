//! Progress of long runs, on stderr only: an indicatif bar when stderr is
//! a terminal, plain lines every few seconds otherwise (a CI log, a file).
//! Progress never touches stdout, reports or JSON output, and nothing it
//! shows feeds back into a result.
//!
//! Two kinds, one handle ([`Progress`], cheap to clone and to share between
//! threads):
//! - a search ([`Progress::search`], `check`): unique states, states per
//!   second, depth, queued states, resident memory;
//! - counted work ([`Progress::count`]: `simulate`'s runs, the scenarios of
//!   `check --all --jobs N` or `matrix`): done of total, rate, steps,
//!   resident memory, and a free note (which scenarios are running).
//!
//! Callers report as often as they like ([`Progress::search_at`],
//! [`Progress::add`]); the handle draws at most ten times a second on a
//! terminal and prints a line every [`interval`] otherwise (3 s, or
//! `LOCKSMITH_PROGRESS_SECS`).

use std::fmt;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{HumanCount, ProgressBar, ProgressStyle};

use crate::memory;

/// The environment variable that sets the seconds between plain progress
/// lines (when stderr is not a terminal).
pub const INTERVAL_VAR: &str = "LOCKSMITH_PROGRESS_SECS";

/// Seconds between plain progress lines by default.
const DEFAULT_INTERVAL: Duration = Duration::from_secs(3);

/// Between two redraws of a bar.
const REDRAW: Duration = Duration::from_millis(100);

/// The time between plain progress lines: `LOCKSMITH_PROGRESS_SECS` (a
/// number of seconds above 0), else 3 s. `Err` is the one sentence to
/// print for a value that is not such a number.
pub fn interval() -> Result<Duration, String> {
    match std::env::var(INTERVAL_VAR) {
        Err(_) => Ok(DEFAULT_INTERVAL),
        Ok(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| *s > 0.0)
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .ok_or_else(|| {
                format!(
                    "{INTERVAL_VAR}={text:?} is not allowed; allowed: a number of seconds above 0, such as 3 or 0.5"
                )
            }),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Search,
    Count { total: u64, unit: &'static str },
}

/// What the last report said.
#[derive(Clone, Copy, Default)]
struct Search {
    states: u64,
    depth: u64,
    queued: u64,
}

struct Shown {
    label: String,
    note: String,
    start: Instant,
    last: Instant,
    search: Search,
    /// The bar, created at the first draw so that a short run shows none.
    bar: Option<ProgressBar>,
}

struct Inner {
    kind: Kind,
    terminal: bool,
    every: Duration,
    done: AtomicU64,
    steps: AtomicU64,
    shown: Mutex<Shown>,
}

/// A progress display on stderr (see the module's documentation). Clones
/// share one display.
#[derive(Clone)]
pub struct Progress(Arc<Inner>);

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = self.lock().label.clone();
        f.debug_struct("Progress")
            .field("label", &label)
            .field("terminal", &self.0.terminal)
            .finish()
    }
}

impl Progress {
    fn new(kind: Kind, label: &str) -> Progress {
        let now = Instant::now();
        Progress(Arc::new(Inner {
            kind,
            terminal: std::io::stderr().is_terminal(),
            every: interval().unwrap_or(DEFAULT_INTERVAL),
            done: AtomicU64::new(0),
            steps: AtomicU64::new(0),
            shown: Mutex::new(Shown {
                label: label.to_string(),
                note: String::new(),
                start: now,
                last: now,
                search: Search::default(),
                bar: None,
            }),
        }))
    }

    /// The progress of a state-space search, such as `check`'s.
    pub fn search(label: &str) -> Progress {
        Progress::new(Kind::Search, label)
    }

    /// The progress of `total` units of work (`unit`: "runs",
    /// "scenarios"), counted with [`Progress::add`].
    pub fn count(label: &str, total: u64, unit: &'static str) -> Progress {
        Progress::new(Kind::Count { total, unit }, label)
    }

    /// A poisoned lock only means a reporting thread panicked; what it
    /// holds is still fine to show.
    fn lock(&self) -> std::sync::MutexGuard<'_, Shown> {
        self.0.shown.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts over under a new label (the next scenario of a sequence):
    /// the clock and the figures restart, and a bar left over is cleared.
    pub fn restart(&self, label: &str) {
        let mut s = self.lock();
        if let Some(bar) = s.bar.take() {
            bar.finish_and_clear();
        }
        let now = Instant::now();
        s.label = label.to_string();
        s.start = now;
        s.last = now;
        s.search = Search::default();
        s.note.clear();
        self.0.done.store(0, Ordering::Relaxed);
        self.0.steps.store(0, Ordering::Relaxed);
    }

    /// Where a search stands: unique states, the depth of the state being
    /// expanded, states waiting in the queue.
    pub fn search_at(&self, states: usize, depth: u32, queued: usize) {
        let mut s = self.lock();
        s.search = Search {
            states: states as u64,
            depth: u64::from(depth),
            queued: queued as u64,
        };
        self.draw_if_due(&mut s);
    }

    /// `n` more units done, taking `steps` steps (0 where steps mean
    /// nothing). Any thread may call it; a call that finds the display
    /// busy only counts.
    pub fn add(&self, n: u64, steps: u64) {
        self.0.done.fetch_add(n, Ordering::Relaxed);
        self.0.steps.fetch_add(steps, Ordering::Relaxed);
        if let Ok(mut s) = self.0.shown.try_lock() {
            self.draw_if_due(&mut s);
        }
    }

    /// A note shown after the figures, such as the scenarios now running.
    pub fn note(&self, text: &str) {
        let mut s = self.lock();
        s.note = text.to_string();
        self.draw_if_due(&mut s);
    }

    /// Runs `f` with the bar hidden, so that what `f` prints to the
    /// terminal does not mix with it.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        let bar = self.lock().bar.clone();
        match bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Clears the bar (plain lines need no ending).
    pub fn finish(&self) {
        if let Some(bar) = self.lock().bar.take() {
            bar.finish_and_clear();
        }
    }

    fn draw_if_due(&self, s: &mut Shown) {
        let now = Instant::now();
        let every = if self.0.terminal { REDRAW } else { self.0.every };
        if now.duration_since(s.last) < every {
            return;
        }
        s.last = now;
        let text = self.figures(s, now);
        if !self.0.terminal {
            eprintln!("locksmith: {}: {text}", s.label);
            return;
        }
        let kind = self.0.kind;
        let bar = s.bar.get_or_insert_with(|| new_bar(kind));
        bar.set_prefix(s.label.clone());
        if let Kind::Count { .. } = kind {
            bar.set_position(self.0.done.load(Ordering::Relaxed));
        }
        bar.set_message(text);
    }

    /// The figures in words: the same for the bar and the plain line.
    fn figures(&self, s: &Shown, now: Instant) -> String {
        let secs = now.duration_since(s.start).as_secs_f64();
        let rate = |n: u64| HumanCount((n as f64 / secs.max(1e-3)).round() as u64);
        let mut parts = match self.0.kind {
            Kind::Search => {
                let f = s.search;
                vec![
                    format!("{} states ({}/s)", HumanCount(f.states), rate(f.states)),
                    format!("depth {}", f.depth),
                    format!("{} queued", HumanCount(f.queued)),
                ]
            }
            Kind::Count { total, unit } => {
                let done = self.0.done.load(Ordering::Relaxed);
                let steps = self.0.steps.load(Ordering::Relaxed);
                let mut p = vec![format!(
                    "{} of {} {unit} ({}/s)",
                    HumanCount(done),
                    HumanCount(total),
                    rate(done)
                )];
                if steps > 0 {
                    p.push(format!("{} steps", HumanCount(steps)));
                }
                p
            }
        };
        parts.push(format!("{secs:.0} s"));
        if let Some(r) = memory::anonymous() {
            parts.push(format!("{} resident", memory::human(r)));
        }
        if !s.note.is_empty() {
            parts.push(s.note.clone());
        }
        parts.join(", ")
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let shown = self.shown.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(bar) = shown.bar.take() {
            bar.finish_and_clear();
        }
    }
}

fn new_bar(kind: Kind) -> ProgressBar {
    let (bar, template) = match kind {
        Kind::Search => (ProgressBar::new_spinner(), "{spinner:.green} {prefix:.bold}: {msg}"),
        Kind::Count { total, .. } => (
            ProgressBar::new(total),
            "{prefix:.bold} [{bar:30.cyan/blue}] {msg} (eta {eta})",
        ),
    };
    // The templates above are fixed and valid; a failure would leave the
    // default style, which still shows the figures.
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    if kind == Kind::Search {
        bar.enable_steady_tick(Duration::from_millis(200));
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_name_what_a_search_and_a_count_report() {
        let p = Progress::search("redlock-no-fsync");
        p.search_at(1_234_567, 17, 8_901);
        let text = p.figures(&p.lock(), Instant::now());
        assert!(text.starts_with("1,234,567 states ("), "{text}");
        assert!(text.contains("depth 17, 8,901 queued"), "{text}");
        let c = Progress::count("redis-ttl-gc-pause", 10_000, "runs");
        c.add(3, 120);
        c.add(2, 80);
        c.note("checking a, b");
        let text = c.figures(&c.lock(), Instant::now());
        assert!(text.starts_with("5 of 10,000 runs ("), "{text}");
        assert!(text.contains("200 steps") && text.ends_with("checking a, b"), "{text}");
    }
}
