//! Checkpoint and resume (`check --checkpoint DIR`, `--resume`): a long
//! search saves what it has found, and a later run goes on from there to
//! the same counts, verdicts and traces as one run from the start.
//!
//! What is saved is the search's own record, not its states: the state
//! graph (discoverer, facts and edges of every state), the fingerprint of
//! every state in discovery order, the symmetry and fairness-class maps,
//! the counters, and the frontier as state numbers. A frontier state is
//! rebuilt on resume by following its discoverer's path from the initial
//! state, as a counterexample is replayed; each one's fingerprint must be
//! the one saved, so a checkpoint of another model or version is refused
//! rather than followed. The file is written beside itself and renamed
//! into place: a failed or interrupted write leaves the previous one.
//!
//! The format is this binary's own (little-endian words after a header
//! naming the version and the search): a checkpoint is for resuming with
//! the same locksmith, not for exchange.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::frontier::{encode, Packed};
use super::graph::{fingerprint, Edge, Facts, FingerprintMap, Graph, Parent};
use super::rebuild::rebuild;
use super::seen::Seen;
use super::Options;
use crate::properties::{Lock, Prop};
use crate::world::{Program, World, WorldState, EVENT_KINDS};

/// Where a search saves itself, and how often.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The file (`DIR/<scenario>.checkpoint`).
    pub file: PathBuf,
    /// Save after every this many states expanded (and when a bound or
    /// Ctrl-C stops the search).
    pub every: usize,
    /// Start from the file (`--resume`), not from the initial state.
    pub resume: bool,
}

/// The default of `--checkpoint-every`: a few seconds of search apart.
pub const EVERY: usize = 1_000_000;

const MAGIC: &[u8; 8] = b"lsmckpt1";

/// Every property, numbered as the file numbers them.
const PROPS: [Prop; 6] = [
    Prop::MutualExclusion,
    Prop::RwExclusion,
    Prop::NoStaleWrite,
    Prop::NoForeignRelease,
    Prop::DeadlockFreedom,
    Prop::StarvationFreedom,
];

/// A loaded checkpoint: the record, and its queue rebuilt and encoded.
pub(super) type Resumed<A> = (Saved, Packed<WorldState<A>>);

/// Queued states rebuilt at a time on resume: few enough that they are
/// never all whole at once, many enough that they share most of the
/// paths that lead to them.
const REBUILD_CHUNK: usize = 4096;

/// The search's record, to save: the search's own parts, borrowed.
pub(super) struct Record<'a> {
    pub g: &'a Graph,
    pub seen: &'a Seen,
    pub raw_seen: &'a Seen,
    pub classes: &'a FingerprintMap,
    pub events: &'a BTreeMap<&'static str, u64>,
    pub first_bad: &'a BTreeMap<Prop, u32>,
    pub generated: usize,
    pub beyond_depth: bool,
    pub expanded: usize,
    /// The frontier's state numbers, in its order.
    pub frontier: Vec<u32>,
}

/// The search's record, as loaded.
pub(super) struct Saved {
    pub g: Graph,
    pub seen: FingerprintMap,
    pub raw_seen: FingerprintMap,
    pub classes: FingerprintMap,
    pub events: BTreeMap<&'static str, u64>,
    pub first_bad: BTreeMap<Prop, u32>,
    pub generated: usize,
    pub beyond_depth: bool,
    pub expanded: usize,
    /// The frontier's state numbers, in its order.
    pub frontier: Vec<u32>,
}

/// What a checkpoint must match to be resumed: this binary's version, the
/// world (its programs with their parameters, names, roles, fault budget
/// and symmetry groups), the options that shape the search, and how states
/// are named ([`crate::world::identity`]: a checkpoint saved by a binary
/// that named them otherwise holds fingerprints this one never computes).
fn identity<A: Program>(world: &World<A>, opts: &Options) -> u64 {
    fingerprint(&(
        env!("CARGO_PKG_VERSION"),
        crate::world::NAMING,
        &world.actors,
        &world.names,
        &world.roles,
        &world.faults,
        &world.symmetry,
        opts.dfs,
        opts.max_depth,
    ))
}

/// The file `DIR/<scenario>.checkpoint`.
pub fn file_in(dir: &Path, scenario: &str) -> PathBuf {
    dir.join(format!("{scenario}.checkpoint"))
}

/// Writes `saved` to `c.file` (through a temporary file renamed into
/// place).
pub(super) fn save<A: Program>(world: &World<A>, opts: &Options, c: &Checkpoint, saved: &Record) -> io::Result<()> {
    if let Some(dir) = c.file.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir)?;
    }
    let tmp = c.file.with_extension("checkpoint.partial");
    let result = (|| {
        let mut w = BufWriter::new(File::create(&tmp)?);
        w.write_all(MAGIC)?;
        put(&mut w, identity(world, opts))?;
        write_record(&mut w, saved)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()
    })();
    match result {
        Ok(()) => fs::rename(&tmp, &c.file),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

fn write_record(w: &mut impl Write, s: &Record) -> io::Result<()> {
    let g = s.g;
    put(w, g.parent.len() as u64)?;
    for &Parent(p, k) in g.parent.iter() {
        put(w, u64::from(p) | u64::from(k) << 32)?;
    }
    for s in 0..g.facts.len() as u32 {
        let f = g.facts.get(s);
        put(w, f.wanting)?;
        put(w, u64::from(f.depth))?;
    }
    // The edges as they are decoded (a list of them all would add 10 bytes
    // an edge to the search's memory while it is saved), and the number
    // before each state's first, counted on the way.
    put(w, g.edge_count())?;
    let mut offsets = Vec::with_capacity(g.expanded() as usize);
    let mut before = 0u32;
    for s in 0..g.expanded() {
        offsets.push(before);
        for e in g.out(s) {
            put_edge(w, &e)?;
            before += 1;
        }
    }
    put(w, offsets.len() as u64)?;
    for &o in &offsets {
        put(w, u64::from(o))?;
    }
    put(w, g.raw.len() as u64)?;
    for (from, e) in &g.raw {
        put(w, u64::from(*from))?;
        put_edge(w, e)?;
    }
    // Fingerprints in state order: the file's bytes do not depend on the
    // maps' iteration order.
    put_all(w, &by_number(s.seen.len(), s.seen.iter()))?;
    let mut raw: Vec<(u64, u32)> = s.raw_seen.iter().collect();
    raw.sort_unstable();
    put(w, raw.len() as u64)?;
    for (fp, i) in raw {
        put(w, fp)?;
        put(w, u64::from(i))?;
    }
    put_all(w, &by_number(s.classes.len(), s.classes.iter().map(|(fp, &i)| (fp, i))))?;
    for kind in EVENT_KINDS {
        put(w, s.events.get(&kind).copied().unwrap_or(0))?;
    }
    put(w, s.first_bad.len() as u64)?;
    for (p, &i) in s.first_bad {
        put(
            w,
            PROPS.iter().position(|q| q == p).expect("every property is in PROPS") as u64,
        )?;
        put(w, u64::from(i))?;
    }
    put(w, s.generated as u64)?;
    put(w, u64::from(s.beyond_depth))?;
    put(w, s.expanded as u64)?;
    put_all(w, &s.frontier.iter().map(|&i| u64::from(i)).collect::<Vec<_>>())
}

/// Reads `c.file` and rebuilds the frontier's states; an error is one
/// sentence naming the file.
pub(super) fn load<A: Lock>(world: &World<A>, opts: &Options, c: &Checkpoint) -> Result<Resumed<A>, String> {
    let name = c.file.display();
    let file = File::open(&c.file).map_err(|e| format!("cannot resume from {name}: {e}"))?;
    let mut r = BufReader::new(file);
    let mut magic = [0u8; 8];
    let header = r.read_exact(&mut magic).and_then(|()| get(&mut r));
    match header {
        Ok(id) if &magic == MAGIC && id == identity(world, opts) => {}
        Ok(_) if &magic == MAGIC => {
            return Err(format!(
                "{name} is the checkpoint of another scenario, search (--dfs, --max-depth, --no-symmetry) or locksmith version; \
                 resume with the same ones, or start afresh without --resume"
            ))
        }
        _ => return Err(format!("{name} is not a locksmith checkpoint")),
    }
    let saved = read_record(&mut r).map_err(|e| format!("{name} is cut short or damaged ({e})"))?;
    let fps = by_number(saved.seen.len(), saved.seen.iter().map(|(fp, &i)| (fp, i)));
    let mut frontier = Packed::default();
    for chunk in saved.frontier.chunks(REBUILD_CHUNK) {
        let states = rebuild(world, &saved.g, chunk, Some(&fps))
            .map_err(|e| format!("{name} does not match this model: {e}"))?;
        for (state, &i) in states.iter().zip(chunk) {
            frontier.push(&encode(state), i, fps[i as usize]);
        }
    }
    Ok((saved, frontier))
}

fn read_record(r: &mut impl Read) -> io::Result<Saved> {
    let mut g = Graph::default();
    let n = len(r)?;
    for _ in 0..n {
        let v = get(r)?;
        g.parent.push(Parent(v as u32, (v >> 32) as u16));
    }
    for _ in 0..n {
        let wanting = get(r)?;
        let depth = get(r)? as u32;
        g.facts.push(Facts { wanting, depth });
    }
    let edges = (0..len(r)?).map(|_| get_edge(r)).collect::<io::Result<Vec<_>>>()?;
    let offsets = (0..len(r)?)
        .map(|_| get(r).map(|o| o as u32))
        .collect::<io::Result<Vec<_>>>()?;
    if !offsets.is_sorted() || offsets.last().is_some_and(|&o| o as usize > edges.len()) {
        return Err(bad("edge offsets out of order"));
    }
    g.load_edges(edges, &offsets);
    for _ in 0..len(r)? {
        let from = get(r)? as u32;
        g.raw.push((from, get_edge(r)?));
    }
    let mut seen = FingerprintMap::default();
    for (i, fp) in get_all(r)?.into_iter().enumerate() {
        seen.insert(fp, i as u32);
    }
    let mut raw_seen = FingerprintMap::default();
    for _ in 0..len(r)? {
        let fp = get(r)?;
        raw_seen.insert(fp, get(r)? as u32);
    }
    let mut classes = FingerprintMap::default();
    for (i, fp) in get_all(r)?.into_iter().enumerate() {
        classes.insert(fp, i as u32);
    }
    let mut events = BTreeMap::new();
    for kind in EVENT_KINDS {
        events.insert(kind, get(r)?);
    }
    let mut first_bad = BTreeMap::new();
    for _ in 0..len(r)? {
        let p = PROPS
            .get(get(r)? as usize)
            .copied()
            .ok_or_else(|| bad("a property out of range"))?;
        first_bad.insert(p, get(r)? as u32);
    }
    let generated = get(r)? as usize;
    let beyond_depth = get(r)? != 0;
    let expanded = get(r)? as usize;
    let frontier: Vec<u32> = get_all(r)?.into_iter().map(|i| i as u32).collect();
    if seen.len() != n || frontier.iter().any(|&i| i as usize >= n) || r.read(&mut [0u8])? != 0 {
        return Err(bad("its parts do not fit together"));
    }
    Ok(Saved {
        g,
        seen,
        raw_seen,
        classes,
        events,
        first_bad,
        generated,
        beyond_depth,
        expanded,
        frontier,
    })
}

/// The fingerprints of a map whose values number them 0, 1, 2...,
/// in that order (the file's bytes then do not depend on the map's order).
fn by_number(len: usize, map: impl Iterator<Item = (u64, u32)>) -> Vec<u64> {
    let mut fps = vec![0u64; len];
    for (fp, i) in map {
        fps[i as usize] = fp;
    }
    fps
}

fn put(w: &mut impl Write, v: u64) -> io::Result<()> {
    w.write_all(&v.to_le_bytes())
}

fn put_all(w: &mut impl Write, vs: &[u64]) -> io::Result<()> {
    put(w, vs.len() as u64)?;
    vs.iter().try_for_each(|&v| put(w, v))
}

fn put_edge(w: &mut impl Write, e: &Edge) -> io::Result<()> {
    put(w, u64::from(e.to) | u64::from(e.bits()) << 32)?;
    put(w, u64::from(e.class))
}

fn get(r: &mut impl Read) -> io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

/// A count, refused when it is beyond what a search numbers (`u32`).
fn len(r: &mut impl Read) -> io::Result<usize> {
    let n = get(r)?;
    if n > u64::from(u32::MAX) + 1 {
        return Err(bad("a count out of range"));
    }
    Ok(n as usize)
}

fn get_all(r: &mut impl Read) -> io::Result<Vec<u64>> {
    (0..len(r)?).map(|_| get(r)).collect()
}

fn get_edge(r: &mut impl Read) -> io::Result<Edge> {
    let v = get(r)?;
    let class = get(r)? as u32;
    Ok(Edge::from_bits(v as u32, class, (v >> 32) as u16))
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}
