//! The search's queue. It holds states encoded (their compact byte form,
//! world/pack.rs: a queued Redlock state takes about a sixth of its size in
//! memory, and encoding it costs less than the clone it replaces) until the
//! process reaches `--max-memory`; then, breadth-first, it keeps only their numbers and
//! rebuilds each batch's states along their discoverers' recorded actions
//! when the batch is expanded (as a checkpoint's queue is rebuilt), so a
//! search whose states outgrow memory goes on instead of stopping. The
//! rebuilt states are the states found, so nothing a user reads changes;
//! the price is the time to rebuild them, one `after` per state on the
//! paths to a batch (siblings share theirs).

use std::collections::VecDeque;
use std::io;
use std::ops::Range;
use std::path::Path;

use super::graph::Graph;
use super::numbers::Numbers;
use super::rebuild::rebuild;
use crate::world::pack::{packed, In};
use crate::world::{identity, Pack, Program, World, WorldState};

pub(super) enum Frontier<A: Program> {
    /// Whole states, encoded, with their numbers, as found.
    States(Packed<WorldState<A>>),
    /// State numbers only, in the same order, in memory or on disk
    /// (numbers.rs).
    Numbers(Numbers),
}

/// States encoded one after another in blocks of about a megabyte, with
/// each one's number and length: a queue that allocates once per block,
/// not once per list of every state, and frees its front as it is read.
pub(super) struct Packed<T> {
    blocks: VecDeque<Vec<u8>>,
    /// Each queued state's number, encoded length and fingerprint, front
    /// to back.
    items: VecDeque<(u32, u32, u64)>,
    /// Where the front state starts in the front block.
    head: usize,
    _states: std::marker::PhantomData<fn() -> T>,
}

const BLOCK: usize = 1 << 20;

/// A state as the queue holds it.
pub(super) fn encode<T: Pack>(state: &T) -> Vec<u8> {
    packed(state)
}

fn decode<T: Pack>(bytes: &[u8]) -> T {
    let mut input = In::new(bytes);
    let state = T::unpack(&mut input);
    input.read_whole("queued state");
    state
}

/// [`decode`] into `place`, reusing the lists it holds (`Pack::unpack_into`:
/// a list is overwritten element by element and grown or cut to length),
/// so that a worker decoding one state after another allocates nothing
/// once its buffer has grown.
fn decode_into<T: Pack>(bytes: &[u8], place: &mut T) {
    let mut input = In::new(bytes);
    place.unpack_into(&mut input);
    input.read_whole("queued state");
}

impl<T> Default for Packed<T> {
    fn default() -> Self {
        Packed {
            blocks: VecDeque::new(),
            items: VecDeque::new(),
            head: 0,
            _states: std::marker::PhantomData,
        }
    }
}

impl<T: Pack> Packed<T> {
    /// Queues the encoded state `bytes`, numbered `i`, with fingerprint
    /// `fp`, at the back.
    pub(super) fn push(&mut self, bytes: &[u8], i: u32, fp: u64) {
        let fits = self
            .blocks
            .back()
            .is_some_and(|b| b.len() + bytes.len() <= b.capacity());
        if !fits {
            self.blocks.push_back(Vec::with_capacity(BLOCK.max(bytes.len())));
        }
        self.blocks.back_mut().expect("a block").extend_from_slice(bytes);
        self.items.push_back((i, bytes.len() as u32, fp));
    }

    #[cfg(test)]
    fn pop_front(&mut self) -> Option<(T, u32, u64)> {
        self.pop_front_with(decode)
    }

    /// The front state's bytes, read by `read`, and its number.
    fn pop_front_with<R>(&mut self, read: impl FnOnce(&[u8]) -> R) -> Option<(R, u32, u64)> {
        let (i, len, fp) = self.items.pop_front()?;
        let front = self.blocks.front().expect("a queued state has its block");
        let (start, end) = if self.head == front.len() {
            // The state lies at the start of the next block.
            self.blocks.pop_front();
            (0, len as usize)
        } else {
            (self.head, self.head + len as usize)
        };
        let state = read(&self.blocks[0][start..end]);
        self.head = end;
        if self.items.is_empty() {
            self.blocks.clear();
            self.head = 0;
        }
        Some((state, i, fp))
    }

    #[cfg(test)]
    fn pop_back(&mut self) -> Option<(T, u32, u64)> {
        self.pop_back_with(decode)
    }

    /// The back state's bytes, read by `read`, and its number.
    fn pop_back_with<R>(&mut self, read: impl FnOnce(&[u8]) -> R) -> Option<(R, u32, u64)> {
        let (i, len, fp) = self.items.pop_back()?;
        let back = self.blocks.back_mut().expect("a queued state has its block");
        let start = back.len() - len as usize;
        let state = read(&back[start..]);
        back.truncate(start);
        if back.is_empty() {
            self.blocks.pop_back();
        }
        if self.items.is_empty() {
            self.blocks.clear();
            self.head = 0;
        }
        Some((state, i, fp))
    }
}

/// States taken from the queue for one batch, with their numbers: whole
/// where they were rebuilt, else still encoded, so that the threads that
/// expand them decode them (on the thread that merges, decoding took a
/// sixth of its time, and that thread is what keeps a search on two
/// threads from going twice as fast).
pub(super) struct Batch<A: Program> {
    pub(super) items: Vec<(Queued<A>, u32)>,
    /// The encoded states, one after another.
    bytes: Vec<u8>,
}

/// A queued state with its fingerprint: expansion compares each
/// successor's fingerprint with it to find actions that change nothing.
pub(super) enum Queued<A: Program> {
    Whole(WorldState<A>, u64),
    /// Where its encoding lies in the batch's bytes.
    Encoded(Range<usize>, u64),
}

impl<A: Program> Queued<A> {
    pub(super) fn fp(&self) -> u64 {
        match self {
            Queued::Whole(_, fp) | Queued::Encoded(_, fp) => *fp,
        }
    }
}

impl<A: Program> Batch<A> {
    pub(super) fn with_capacity(n: usize) -> Self {
        Batch {
            items: Vec::with_capacity(n),
            bytes: Vec::new(),
        }
    }

    pub(super) fn clear(&mut self) {
        self.items.clear();
        self.bytes.clear();
    }

    /// The state of `item`: an encoded state is decoded into `buf` (a
    /// worker's, kept from one state to the next) rather than into new
    /// lists.
    pub(super) fn state_in<'a>(&self, item: &'a Queued<A>, buf: &'a mut Option<WorldState<A>>) -> &'a WorldState<A> {
        match item {
            Queued::Whole(s, _) => s,
            Queued::Encoded(at, _) => {
                let bytes = &self.bytes[at.clone()];
                match buf {
                    Some(place) => {
                        decode_into(bytes, place);
                        place
                    }
                    None => buf.insert(decode(bytes)),
                }
            }
        }
    }
}

impl<A: Program> Frontier<A> {
    pub(super) fn len(&self) -> usize {
        match self {
            Frontier::States(q) => q.items.len(),
            Frontier::Numbers(q) => q.len(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether states are kept whole.
    pub(super) fn whole(&self) -> bool {
        matches!(self, Frontier::States(_))
    }

    /// Queues state `i`, encoded (its number only, once the states are
    /// dropped); `Err` when the numbers are on disk and it fails.
    pub(super) fn push(&mut self, bytes: &[u8], i: u32, fp: u64) -> io::Result<()> {
        match self {
            Frontier::States(q) => {
                q.push(bytes, i, fp);
                Ok(())
            }
            Frontier::Numbers(q) => q.push_back(i),
        }
    }

    /// The queued state numbers, front to back.
    pub(super) fn numbers(&self) -> io::Result<Vec<u32>> {
        match self {
            Frontier::States(q) => Ok(q.items.iter().map(|(i, _, _)| *i).collect()),
            Frontier::Numbers(q) => q.all(),
        }
    }

    /// Drops the queued states, keeping their numbers.
    pub(super) fn drop_states(&mut self) {
        if let Frontier::States(q) = self {
            *self = Frontier::Numbers(Numbers::from(
                q.items.drain(..).map(|(i, _, _)| i).collect::<VecDeque<u32>>(),
            ));
        }
    }

    /// Moves the queued numbers to a file in `dir` (after
    /// [`Frontier::drop_states`]).
    pub(super) fn spill(&mut self, dir: &Path) -> io::Result<()> {
        match self {
            Frontier::States(_) => Ok(()),
            Frontier::Numbers(q) => q.spill(dir),
        }
    }

    /// Moves up to `n` states into `batch`: from the front (breadth-first)
    /// or the back (`dfs`), encoded as queued, or rebuilt from `g` where
    /// only numbers are kept.
    pub(super) fn take(
        &mut self,
        batch: &mut Batch<A>,
        n: usize,
        dfs: bool,
        world: &World<A>,
        g: &Graph,
    ) -> Result<(), String> {
        match self {
            Frontier::States(q) => {
                let bytes = &mut batch.bytes;
                let mut copy = |b: &[u8]| {
                    let start = bytes.len();
                    bytes.extend_from_slice(b);
                    start..bytes.len()
                };
                while batch.items.len() < n {
                    let next = if dfs {
                        q.pop_back_with(&mut copy)
                    } else {
                        q.pop_front_with(&mut copy)
                    };
                    let Some((at, i, fp)) = next else { break };
                    batch.items.push((Queued::Encoded(at, fp), i));
                }
            }
            Frontier::Numbers(q) => {
                let mut numbers = Vec::with_capacity(n);
                while numbers.len() < n {
                    let next = if dfs {
                        q.pop_back()
                    } else {
                        q.pop_front()
                            .map_err(|e| format!("cannot read the queue back from disk: {e}"))?
                    };
                    let Some(i) = next else { break };
                    numbers.push(i);
                }
                let states = rebuild(world, g, &numbers, None)?;
                let whole = states.into_iter().map(|s| {
                    let fp = identity(&s);
                    Queued::Whole(s, fp)
                });
                batch.items.extend(whole.zip(numbers));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items of varied sizes, enough to fill several blocks.
    fn items() -> Vec<(Vec<u8>, u32)> {
        (0..40_000u32).map(|i| (vec![b'x'; (i % 97) as usize], i * 7)).collect()
    }

    #[test]
    fn a_queue_read_from_the_front_gives_every_item_in_order_across_blocks() {
        let mut q: Packed<(Vec<u8>, u32)> = Packed::default();
        let all = items();
        let mut out = Vec::new();
        // Reads interleaved with writes, as a breadth-first search does.
        for (n, item) in all.iter().enumerate() {
            q.push(&encode(item), n as u32, !(n as u64));
            if n % 3 == 0 {
                out.extend(q.pop_front());
            }
        }
        assert!(q.blocks.len() > 1, "the items span blocks");
        out.extend(std::iter::from_fn(|| q.pop_front()));
        let want: Vec<_> = all
            .into_iter()
            .zip(0u32..)
            .map(|(s, n)| (s, n, !u64::from(n)))
            .collect();
        assert_eq!(out, want);
        assert!(q.pop_front().is_none() && q.blocks.is_empty());
    }

    #[test]
    fn a_queue_read_from_the_back_gives_the_last_item_first() {
        let mut q: Packed<(Vec<u8>, u32)> = Packed::default();
        let all = items();
        let mut out = Vec::new();
        let mut want = Vec::new();
        for (n, item) in all.iter().enumerate() {
            q.push(&encode(item), n as u32, !(n as u64));
            if n % 5 == 4 {
                out.extend(q.pop_back());
                want.push((item.clone(), n as u32, !(n as u64)));
            }
        }
        out.extend(std::iter::from_fn(|| q.pop_back()));
        let mut left: Vec<_> = all
            .into_iter()
            .zip(0u32..)
            .filter(|(_, n)| n % 5 != 4)
            .map(|(s, n)| (s, n, !u64::from(n)))
            .collect();
        left.reverse();
        want.extend(left);
        assert_eq!(out, want);
        assert!(q.blocks.is_empty());
    }
}
