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
use locksmith::check::{resume_scenario, Options, Summary};

use crate::common::{full, scenario};

/// The scenarios both tests search, with their threads and whether
/// without symmetry. redlock-no-fsync's levels are wider than a batch of
/// two threads: the merge stops ahead of the workers inside a batch
/// (search.rs, `merge_ahead`).
const ROWS: &[(&str, usize, bool)] = &[
    ("redlock-no-fsync", 2, false),
    ("coordinator-standby-no-state", 2, true),
    ("etcd-partition", 1, false),
];

#[test]
fn a_search_moved_to_disk_ends_as_one_kept_in_memory_and_resumes_from_disk() {
    for &(name, threads, no_symmetry) in ROWS {
        let sc = scenario(name);
        let opts = Options {
            threads,
            no_symmetry,
            ..Options::default()
        };
        let kept = full(&sc, opts.clone());
        let counts = |o: &Summary| (o.unique_states, o.states, o.max_depth);
        let (at, every) = (kept.unique_states / 5, kept.unique_states / 7);
        let spilled = full(
            &sc,
            Options {
                drop_queue_at: Some(at),
                spill_every: Some(every),
                ..opts.clone()
            },
        );
        let when = &spilled.spilled_at;
        assert!(when.len() >= 3, "{name}: spilled at {when:?}, every {every} states");
        assert_eq!(spilled.props, kept.props, "{name}: verdicts and traces");
        assert_eq!(
            counts(&spilled),
            counts(&kept),
            "{name}: unique states, generated, depth"
        );
        // Stopped halfway with its record on disk, saved, and resumed
        // (spilling again).
        let dir = tempfile::tempdir().expect("a temporary folder");
        let checkpoint = Some(Checkpoint {
            file: dir.path().join("search.checkpoint"),
            every: kept.unique_states / 10,
            resume: false,
        });
        let half = Options {
            drop_queue_at: Some(at),
            spill_every: Some(every),
            max_states: Some(kept.unique_states / 2),
            checkpoint: checkpoint.clone(),
            ..opts.clone()
        };
        let stopped = full(&sc, half.clone());
        let when = &stopped.spilled_at;
        assert!(
            stopped.unique_states < kept.unique_states && !when.is_empty(),
            "{name}: stopped at {} after spilling at {when:?}",
            stopped.unique_states
        );
        let again = Options {
            max_states: None,
            checkpoint: checkpoint.map(|c| Checkpoint { resume: true, ..c }),
            ..half
        };
        let resumed = resume_scenario(&sc, &again).expect("resumes");
        assert!(!resumed.spilled_at.is_empty(), "{name}: the resumed search spilled too");
        assert_eq!(resumed.props, kept.props, "{name}: resumed verdicts and traces");
        assert_eq!(counts(&resumed), counts(&kept), "{name}: resumed counts");
    }
}

#[test]
fn a_search_that_drops_its_queued_states_ends_as_one_that_kept_them() {
    for &(name, threads, no_symmetry) in ROWS {
        let sc = scenario(name);
        let kept = full(
            &sc,
            Options {
                threads,
                no_symmetry,
                ..Options::default()
            },
        );
        assert_eq!(
            kept.queue_dropped_at, None,
            "{name}: nothing asked the queue to drop its states"
        );
        let at = kept.unique_states / 3;
        let dropped = full(
            &sc,
            Options {
                threads,
                no_symmetry,
                drop_queue_at: Some(at),
                ..Options::default()
            },
        );
        assert!(
            dropped
                .queue_dropped_at
                .is_some_and(|n| n >= at && n < kept.unique_states),
            "{name}: the queue dropped its states at {:?}, asked at {at}",
            dropped.queue_dropped_at
        );
        assert_eq!(dropped.props, kept.props, "{name}: verdicts and traces");
        let counts = |o: &Summary| (o.unique_states, o.states, o.max_depth);
        assert_eq!(
            counts(&dropped),
            counts(&kept),
            "{name}: unique states, generated, depth"
        );
    }
}
