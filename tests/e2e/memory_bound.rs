//! The memory bound drops the queued states and the search goes on,
//! rebuilding each batch's states along their discoverers' paths; reached
//! again, it moves the seen set, the edges and the queue to disk, as often
//! as needed. The outcome is the one of a search that kept everything in
//! memory, breadth-first, under symmetry, on two threads, with liveness,
//! and a checkpoint saved from disk resumes to it. (The bound itself is
//! the process's resident memory, which a library test cannot reach on
//! cue: these runs drop the queue and spill at state counts instead,
//! `Options::drop_queue_at` and `spill_every`, through the same code; the
//! last test reaches the real bound through the command line.)

use locksmith::check::checkpoint::Checkpoint;
use locksmith::check::{check_scenario, resume_scenario, Options, Summary};
use locksmith::scenario::Scenario;

use crate::common::scenario;

/// A search of a scenario and what a test reads of it. Through the
/// library's `check_scenario`, not a job of the tests' own: a job would
/// compile the checker again, for every family, into the tests.
trait Search {
    type Output;
    fn of(self, sc: &Scenario) -> Self::Output;
}

/// `job`'s search of `sc`.
fn search<J: Search>(sc: &Scenario, job: J) -> Result<J::Output, String> {
    Ok(job.of(sc))
}

/// Every verdict with its counterexample's actions (as text), the counts,
/// and where the queue dropped its states.
struct Full(Options);

type Seen = (Vec<String>, usize, usize, usize, Option<usize>);

fn seen(o: &Summary) -> Seen {
    let props = o
        .props
        .iter()
        .map(|p| format!("{:?} {:?} {}", p.prop, p.verdict, p.trace))
        .collect();
    (props, o.unique_states, o.states, o.max_depth, o.queue_dropped_at)
}

impl Search for Full {
    type Output = Seen;
    fn of(self, sc: &Scenario) -> Seen {
        seen(&check_scenario(sc, &self.0).expect("builds"))
    }
}

/// [`Full`], resumed from the checkpoint its options name, with how many
/// times the resumed part spilled.
struct Resume(Options);

impl Search for Resume {
    type Output = (Seen, usize);
    fn of(self, sc: &Scenario) -> (Seen, usize) {
        let o = resume_scenario(sc, &self.0).expect("resumes");
        (
            (seen(&o).0, o.unique_states, o.states, o.max_depth, None),
            o.spilled_at.len(),
        )
    }
}

/// [`Full`] with how many times the search spilled.
struct Spilled(Options);

impl Search for Spilled {
    type Output = (Seen, Vec<usize>);
    fn of(self, sc: &Scenario) -> (Seen, Vec<usize>) {
        let o = check_scenario(sc, &self.0).expect("builds");
        (seen(&o), o.spilled_at)
    }
}

#[test]
fn a_search_moved_to_disk_ends_as_one_kept_in_memory_and_resumes_from_disk() {
    for (name, threads, no_symmetry) in [
        ("redlock-no-fsync", 1, false),
        ("coordinator-standby-no-state", 2, true),
        ("etcd-partition", 1, false),
    ] {
        let sc = scenario(name);
        let opts = Options {
            threads,
            no_symmetry,
            ..Options::default()
        };
        let kept = search(&sc, Full(opts.clone())).expect("builds");
        let (at, every) = (kept.1 / 5, kept.1 / 7);
        let (spilled, when) = search(
            &sc,
            Spilled(Options {
                drop_queue_at: Some(at),
                spill_every: Some(every),
                ..opts.clone()
            }),
        )
        .expect("builds");
        assert!(when.len() >= 3, "{name}: spilled at {when:?}, every {every} states");
        assert_eq!(spilled.0, kept.0, "{name}: verdicts and traces");
        assert_eq!(
            (spilled.1, spilled.2, spilled.3),
            (kept.1, kept.2, kept.3),
            "{name}: unique states, generated, depth"
        );
        // Stopped halfway with its record on disk, saved, and resumed
        // (spilling again).
        let dir = tempfile::tempdir().expect("a temporary folder");
        let checkpoint = Some(Checkpoint {
            file: dir.path().join("search.checkpoint"),
            every: kept.1 / 10,
            resume: false,
        });
        let half = Options {
            drop_queue_at: Some(at),
            spill_every: Some(every),
            max_states: Some(kept.1 / 2),
            checkpoint: checkpoint.clone(),
            ..opts.clone()
        };
        let (stopped, when) = search(&sc, Spilled(half.clone())).expect("builds");
        assert!(
            stopped.1 < kept.1 && !when.is_empty(),
            "{name}: stopped at {} after spilling at {when:?}",
            stopped.1
        );
        let again = Options {
            max_states: None,
            checkpoint: checkpoint.map(|c| Checkpoint { resume: true, ..c }),
            ..half
        };
        let (resumed, spills) = search(&sc, Resume(again)).expect("builds");
        assert!(spills >= 1, "{name}: the resumed search spilled too");
        assert_eq!(resumed.0, kept.0, "{name}: resumed verdicts and traces");
        assert_eq!(
            (resumed.1, resumed.2, resumed.3),
            (kept.1, kept.2, kept.3),
            "{name}: resumed counts"
        );
    }
}

#[test]
fn a_search_that_drops_its_queued_states_ends_as_one_that_kept_them() {
    for (name, threads, no_symmetry) in [
        ("redlock-no-fsync", 1, false),
        ("coordinator-standby-no-state", 2, true),
        ("etcd-partition", 1, false),
    ] {
        let sc = scenario(name);
        let kept = search(
            &sc,
            Full(Options {
                threads,
                no_symmetry,
                ..Options::default()
            }),
        )
        .expect("builds");
        assert_eq!(kept.4, None, "{name}: nothing asked the queue to drop its states");
        let at = kept.1 / 3;
        let dropped = search(
            &sc,
            Full(Options {
                threads,
                no_symmetry,
                drop_queue_at: Some(at),
                ..Options::default()
            }),
        )
        .expect("builds");
        assert!(
            dropped.4.is_some_and(|n| n >= at && n < kept.1),
            "{name}: the queue dropped its states at {:?}, asked at {at}",
            dropped.4
        );
        assert_eq!(dropped.0, kept.0, "{name}: verdicts and traces");
        assert_eq!(
            (dropped.1, dropped.2, dropped.3),
            (kept.1, kept.2, kept.3),
            "{name}: unique states, generated, depth"
        );
    }
}
