//! The byte form of a queued state (check/frontier.rs): what serde's
//! derive and postcard write for it (fields in order, integers of 16 bits
//! or more as varints, signed ones zigzagged, an enum's variant index and
//! a list's length as varints), but written and read by straight-line code
//! that `#[derive(Pack)]` generates, with no visitors and no `Result` per
//! field. Through serde, encoding and decoding queued states were a sixth
//! of the search's time (issue 26). The bytes are the search's own, never
//! read from a file, so a malformed one is a bug and panics.
//!
//! Every method is `#[inline(always)]`, here and in the derive: with
//! `#[inline]` the compiler left the enums' and the lists' readers as
//! calls, across which the reader's place went through memory at every
//! byte (2.5% of a search's instructions, docs/performance.md).
//!
//! Bytes are written through [`Out`] and read through [`In`], a slice and
//! a position each, not through a `Vec`'s `push` and a shrinking `&[u8]`:
//! a queued Redlock state is about 105 bytes, and with `push` (whose
//! length went back to memory at every byte, since the buffer's bytes may
//! alias it) and `split_first` a byte cost about 5.5 instructions to
//! write and 7.4 to read, where it now costs about 4 and 6
//! (docs/performance.md, fourteenth session).

use std::mem::MaybeUninit;

use smallvec::{Array, SmallVec};

pub use locksmith_derive::Pack;

/// A type's compact byte form.
pub trait Pack: Sized {
    /// Writes `self`'s bytes to `out`.
    fn pack(&self, out: &mut Out<'_>);
    /// Reads a value from `input`, which it advances.
    fn unpack(input: &mut In<'_>) -> Self;
    /// Reads a value into `self`, reusing the lists it holds: a worker
    /// decoding one state after another allocates nothing once its buffer
    /// has grown.
    #[inline(always)]
    fn unpack_into(&mut self, input: &mut In<'_>) {
        *self = Self::unpack(input);
    }
}

/// Where [`Pack::pack`] writes: the spare room of a `Vec`, and how many
/// bytes have been written. A byte past the room is counted and not
/// written; [`pack_into`] then makes room for them all and writes again.
pub struct Out<'a> {
    room: &'a mut [MaybeUninit<u8>],
    len: usize,
}

impl<'a> Out<'a> {
    /// This writer, leaving `self` without room: a copy of its own that a
    /// function keeps in registers and writes back once.
    #[inline(always)]
    pub fn take(&mut self) -> Out<'a> {
        Out {
            room: std::mem::take(&mut self.room),
            len: self.len,
        }
    }

    /// Appends `b`.
    #[inline(always)]
    pub fn push(&mut self, b: u8) {
        if let Some(at) = self.room.get_mut(self.len) {
            at.write(b);
        }
        self.len += 1;
    }
}

/// Room made for a value at first (a queued Redlock state takes about 105
/// bytes); a value longer than this is written twice.
const ROOM: usize = 256;

/// Appends `v`'s bytes to `bytes`.
pub fn pack_into<T: Pack>(v: &T, bytes: &mut Vec<u8>) {
    write_into(bytes, ROOM, |out| v.pack(out));
}

/// Appends to `bytes` what `write` writes, in room for `room` bytes made
/// first (where `bytes` has not that much to spare) and, if it wrote
/// more, in room for all of it, written again.
#[inline(always)]
pub fn write_into(bytes: &mut Vec<u8>, mut room: usize, write: impl Fn(&mut Out<'_>)) {
    loop {
        bytes.reserve(room);
        let mut out = Out {
            room: bytes.spare_capacity_mut(),
            len: 0,
        };
        write(&mut out);
        let (len, fits) = (out.len, out.len <= out.room.len());
        if fits {
            // SAFETY: `Out::push` wrote each of the first `len` bytes of
            // the spare room (each byte below `len` was written in turn,
            // and all of them were within the room), so they are
            // initialised.
            unsafe { bytes.set_len(bytes.len() + len) };
            return;
        }
        room = len;
    }
}

/// `v`'s bytes.
pub fn packed<T: Pack>(v: &T) -> Vec<u8> {
    let mut bytes = Vec::new();
    pack_into(v, &mut bytes);
    bytes
}

/// Where [`Pack::unpack`] reads: the bytes and how far into them.
#[derive(Clone, Copy)]
pub struct In<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> In<'a> {
    pub fn new(bytes: &'a [u8]) -> In<'a> {
        In { bytes, at: 0 }
    }

    /// Whether every byte has been read, and none past them: a value
    /// whose bytes were cut short reads zeroes past them ([`byte`]).
    pub fn is_empty(&self) -> bool {
        self.at == self.bytes.len()
    }

    /// Panics unless [`In::is_empty`]: a `what` is read whole.
    pub fn read_whole(&self, what: &str) {
        assert!(self.is_empty(), "a {what} is read whole");
    }
}

/// The next byte of `input`, 0 past its end. No byte read panics: the
/// reader counts on, and [`In::read_whole`] checks once, at a value's end,
/// that nothing was read past it. A check at every byte was a fifth of
/// decoding's instructions (cachegrind, line by line).
#[inline(always)]
pub fn byte(input: &mut In<'_>) -> u8 {
    let b = input.bytes.get(input.at).copied().unwrap_or(0);
    input.at += 1;
    b
}

/// A variant index that `ty` does not have.
#[cold]
pub fn bad_variant(ty: &str, index: u8) -> ! {
    panic!("a queued {ty} has no variant {index}")
}

/// `v` in LEB128: seven bits a byte, low first, the top bit set on all
/// but the last.
#[inline(always)]
pub fn put_varint(out: &mut Out<'_>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline(always)]
fn varint(input: &mut In<'_>) -> u64 {
    let first = byte(input);
    if first < 0x80 {
        return first as u64;
    }
    let mut v = (first & 0x7f) as u64;
    let mut shift = 7;
    loop {
        let b = byte(input);
        v |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

impl Pack for u8 {
    #[inline(always)]
    fn pack(&self, out: &mut Out<'_>) {
        out.push(*self);
    }
    #[inline(always)]
    fn unpack(input: &mut In<'_>) -> Self {
        byte(input)
    }
}

impl Pack for i8 {
    #[inline(always)]
    fn pack(&self, out: &mut Out<'_>) {
        out.push(*self as u8);
    }
    #[inline(always)]
    fn unpack(input: &mut In<'_>) -> Self {
        byte(input) as i8
    }
}

impl Pack for bool {
    #[inline(always)]
    fn pack(&self, out: &mut Out<'_>) {
        out.push(u8::from(*self));
    }
    #[inline(always)]
    fn unpack(input: &mut In<'_>) -> Self {
        byte(input) != 0
    }
}

impl Pack for () {
    #[inline(always)]
    fn pack(&self, _: &mut Out<'_>) {}
    #[inline(always)]
    fn unpack(_: &mut In<'_>) -> Self {}
}

macro_rules! unsigned {
    ($($t:ty)*) => {$(
        impl Pack for $t {
            #[inline(always)]
            fn pack(&self, out: &mut Out<'_>) {
                put_varint(out, *self as u64);
            }
            #[inline(always)]
            fn unpack(input: &mut In<'_>) -> Self {
                varint(input) as $t
            }
        }
    )*};
}
unsigned!(u16 u32 u64 usize);

macro_rules! signed {
    ($($t:ty)*) => {$(
        impl Pack for $t {
            #[inline(always)]
            fn pack(&self, out: &mut Out<'_>) {
                let v = *self as i64;
                put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
            }
            #[inline(always)]
            fn unpack(input: &mut In<'_>) -> Self {
                let v = varint(input);
                ((v >> 1) as i64 ^ -((v & 1) as i64)) as $t
            }
        }
    )*};
}
signed!(i16 i32 i64);

impl<T: Pack> Pack for Option<T> {
    #[inline(always)]
    fn pack(&self, out: &mut Out<'_>) {
        match self {
            None => out.push(0),
            Some(v) => {
                out.push(1);
                v.pack(out);
            }
        }
    }
    #[inline(always)]
    fn unpack(input: &mut In<'_>) -> Self {
        (byte(input) != 0).then(|| T::unpack(input))
    }
    #[inline(always)]
    fn unpack_into(&mut self, input: &mut In<'_>) {
        match (byte(input) != 0, self.as_mut()) {
            (true, Some(v)) => v.unpack_into(input),
            (true, None) => *self = Some(T::unpack(input)),
            (false, _) => *self = None,
        }
    }
}

/// A list: its length, then its elements; read into a list that is there,
/// element by element.
macro_rules! list {
    ($list:ty, $($bound:tt)*) => {
        impl<$($bound)*> Pack for $list {
            #[inline(always)]
            fn pack(&self, out: &mut Out<'_>) {
                put_varint(out, self.len() as u64);
                for v in self.iter() {
                    v.pack(out);
                }
            }
            #[inline(always)]
            fn unpack(input: &mut In<'_>) -> Self {
                let n = varint(input) as usize;
                // Pushed in a loop here: through a closure and `collect`,
                // the reader's place went to memory at every byte of
                // every state read. Room for `n` at once, as `collect`
                // made it.
                let mut list = Self::with_capacity(n);
                for _ in 0..n {
                    list.push(Pack::unpack(input));
                }
                list
            }
            #[inline(always)]
            fn unpack_into(&mut self, input: &mut In<'_>) {
                let n = varint(input) as usize;
                self.truncate(n);
                for v in self.iter_mut() {
                    v.unpack_into(input);
                }
                for _ in self.len()..n {
                    self.push(Pack::unpack(input));
                }
            }
        }
    };
}
list!(Vec<T>, T: Pack);
list!(SmallVec<A>, A: Array<Item: Pack>);

macro_rules! tuple {
    ($($t:ident $i:tt),*) => {
        impl<$($t: Pack),*> Pack for ($($t,)*) {
            #[inline(always)]
            fn pack(&self, out: &mut Out<'_>) {
                $(self.$i.pack(out);)*
            }
            #[inline(always)]
            fn unpack(input: &mut In<'_>) -> Self {
                ($($t::unpack(input),)*)
            }
            #[inline(always)]
            fn unpack_into(&mut self, input: &mut In<'_>) {
                $(self.$i.unpack_into(input);)*
            }
        }
    };
}
tuple!(A 0, B 1);
tuple!(A 0, B 1, C 2);
tuple!(A 0, B 1, C 2, D 3);

/// An array: its elements, without a length (serde writes it as a tuple).
impl<T: Pack, const N: usize> Pack for [T; N] {
    #[inline(always)]
    fn pack(&self, out: &mut Out<'_>) {
        for v in self {
            v.pack(out);
        }
    }
    #[inline(always)]
    fn unpack(input: &mut In<'_>) -> Self {
        // `from_fn` calls in index order.
        std::array::from_fn(|_| T::unpack(input))
    }
    #[inline(always)]
    fn unpack_into(&mut self, input: &mut In<'_>) {
        for v in self {
            v.unpack_into(input);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Debug;

    use serde::Serialize;

    use super::*;
    use crate::algorithms::{dispatch, Job};
    use crate::properties::Lock;
    use crate::scenario::{bundled_names, Scenario};
    use crate::world::state::tests::first_states;
    use crate::world::World;

    /// `v`'s bytes, which must be postcard's, and `v` read back from them.
    fn round_trip<T: Pack + Serialize + PartialEq + Debug>(v: &T) -> Vec<u8> {
        let bytes = packed(v);
        assert_eq!(bytes, postcard::to_allocvec(v).unwrap(), "{v:?}");
        let mut input = In::new(&bytes);
        assert_eq!(&T::unpack(&mut input), v);
        assert!(input.is_empty(), "{v:?} left bytes unread");
        bytes
    }

    #[test]
    fn integers_lists_and_options_are_written_as_postcard_writes_them() {
        for v in [0u32, 1, 127, 128, 300, 16_383, 16_384, u32::MAX] {
            round_trip(&v);
        }
        for v in [0i16, 1, -1, 63, -64, 64, -65, i16::MAX, i16::MIN] {
            round_trip(&v);
        }
        for v in [i8::MIN, -1, 0, i8::MAX] {
            round_trip(&v);
        }
        round_trip(&u64::MAX);
        round_trip(&usize::MAX);
        round_trip(&(Some(3u8), None::<u32>, vec![(1u16, true); 200], [5u8, 6, 7]));
    }

    /// A value longer than the room made at first is written again into
    /// room for all of it, after what the buffer held.
    #[test]
    fn a_value_longer_than_the_first_room_is_written_whole_after_what_was_there() {
        let long: Vec<u32> = (0..1000).map(|i| 1000 + i).collect();
        let mut bytes = vec![7u8; 3];
        pack_into(&long, &mut bytes);
        let expected = postcard::to_allocvec(&long).unwrap();
        assert!(expected.len() > ROOM, "the value must outgrow the first room");
        assert_eq!(&bytes[..3], &[7, 7, 7]);
        assert_eq!(&bytes[3..], &expected[..]);
        let mut input = In::new(&bytes[3..]);
        assert_eq!(Vec::<u32>::unpack(&mut input), long);
        assert!(input.is_empty());
    }

    /// Checks that each of a scenario's first states packs as postcard
    /// encodes it, and reads back both whole and into the lists of the
    /// state read before it.
    struct Packs;

    impl Job for Packs {
        type Output = usize;
        fn run<A: Lock>(self, sc: &Scenario, world: World<A>) -> usize {
            let states = first_states(&world, 3000);
            let mut place = world.init();
            for s in &states {
                let bytes = round_trip(s);
                let mut input = In::new(&bytes);
                place.unpack_into(&mut input);
                assert!(input.is_empty() && place == *s, "{}: {s:?}", sc.path.display());
            }
            states.len()
        }
    }

    #[test]
    fn every_bundled_scenarios_states_pack_as_postcard_encodes_them_and_read_back() {
        for name in bundled_names() {
            let sc = crate::catalog::open(name).expect("bundled");
            let states = dispatch(&sc, Packs).expect("builds");
            assert!(states > 1, "{name}: no successor");
        }
    }

    /// A value whose bytes were cut short is not read as whole: the reads
    /// past the end give zeroes, and the check at the end sees them.
    #[test]
    fn a_value_cut_short_is_not_read_whole() {
        let bytes = packed(&(300u32, 7u8));
        let mut input = In::new(&bytes[..bytes.len() - 1]);
        let _: (u32, u8) = Pack::unpack(&mut input);
        assert!(!input.is_empty());
        let whole = std::panic::catch_unwind(|| input.read_whole("pair"));
        assert!(whole.is_err(), "a cut value reads as whole");
    }
}
