//! The data side of renumbering: [`Rewrite`], which a node's state and
//! messages implement (mostly by `#[derive(Rewrite)]`), to visit the
//! growing values they hold and rename the node ids in them, in the style
//! of stateright's `Rewrite`. The node's program ([`Renumber`]) calls it,
//! and adds what depends on the scenario (whether tokens are renumbered,
//! say).
//!
//! The derive (crate `locksmith-derive`) writes the walk from attributes
//! on the fields:
//!
//! | attribute | the field's values are |
//! |---|---|
//! | `#[rewrite(ghost)]`, `(token)`, `(value)`, `(clock)` | `u32`s of that [`Seq`], visited by `numbers` |
//! | `#[rewrite(id)]` | node ids ([`Id`]), renamed by `rename` |
//! | `#[rewrite]` | a type with its own `Rewrite`, recursed into |
//! | `#[rewrite((token, value))]` | a tuple, one kind per element; `_` for an element left alone, `nested` for one recursed into |
//! | none | left alone |
//!
//! A kind reaches through the containers around the values: `Option`,
//! `Vec`, `SmallVec`, `Box` and arrays ([`Field`]), so
//! `#[rewrite(value)] sessions: Vec<u32>` visits every session. The order of
//! the visits does not matter: the world ranks each sequence's values
//! sorted ([`ranks`](super::ranks)).
//!
//! [`Renumber`]: super::Renumber

use smallvec::{Array, SmallVec};

use super::{Id, Seq};

/// `#[derive(Rewrite)]`: see the module's table of field attributes.
pub use locksmith_derive::Rewrite;

/// The node ids and growing values in a state or a message. Every method
/// has the default "none held".
pub trait Rewrite {
    /// Visits every value that only grows and is only compared, with the
    /// sequence it belongs to (see [`Renumber::numbers`](super::Renumber::numbers)).
    fn numbers(&mut self, _visit: &mut impl FnMut(Seq, &mut u32)) {}

    /// Rewrites every node id held through `ids` (see
    /// [`Renumber::rename`](super::Renumber::rename)).
    fn rename(&mut self, _ids: &dyn Fn(Id) -> Id) {}
}

/// A flag holds neither ids nor growing values.
impl Rewrite for bool {}

impl Rewrite for () {}

/// The kinds a field attribute names, as types, for [`Field`]. A tuple of
/// kinds is the kind of a tuple, element by element.
pub mod kind {
    /// `#[rewrite(ghost)]`: [`Seq::Ghost`](crate::world::Seq::Ghost).
    pub struct Ghost;
    /// `#[rewrite(token)]`: [`Seq::Token`](crate::world::Seq::Token).
    pub struct Token;
    /// `#[rewrite(value)]`: [`Seq::Value`](crate::world::Seq::Value).
    pub struct Value;
    /// `#[rewrite(clock)]`: [`Seq::Clock`](crate::world::Seq::Clock).
    pub struct Clock;
    /// `#[rewrite(id)]`: node ids.
    pub struct Id;
    /// `#[rewrite]`, or `nested` in a tuple: the type's own
    /// [`Rewrite`](super::Rewrite).
    pub struct Nested;
    /// `_` in a tuple: left alone.
    pub struct Skip;

    /// The kinds a container hands on to its elements. Not [`Nested`]
    /// (a container has its own `Rewrite`) nor [`Skip`] (anything is
    /// left alone).
    pub trait Elementwise {}
    impl Elementwise for Ghost {}
    impl Elementwise for Token {}
    impl Elementwise for Value {}
    impl Elementwise for Clock {}
    impl Elementwise for Id {}
    impl<A, B> Elementwise for (A, B) {}
    impl<A, B, C> Elementwise for (A, B, C) {}
}

/// A field of kind `K` ([`kind`]): what the derive calls for each field
/// with an attribute. Both methods default to nothing.
pub trait Field<K> {
    fn field_numbers(&mut self, _visit: &mut impl FnMut(Seq, &mut u32)) {}
    fn field_rename(&mut self, _ids: &dyn Fn(Id) -> Id) {}
}

macro_rules! sequence {
    ($($kind:ident),*) => {$(
        impl Field<kind::$kind> for u32 {
            #[inline]
            fn field_numbers(&mut self, visit: &mut impl FnMut(Seq, &mut u32)) {
                visit(Seq::$kind, self)
            }
        }
    )*};
}
sequence!(Ghost, Token, Value, Clock);

impl Field<kind::Id> for Id {
    #[inline]
    fn field_rename(&mut self, ids: &dyn Fn(Id) -> Id) {
        *self = ids(*self)
    }
}

impl<T: Rewrite + ?Sized> Field<kind::Nested> for T {
    #[inline]
    fn field_numbers(&mut self, visit: &mut impl FnMut(Seq, &mut u32)) {
        self.numbers(visit)
    }

    #[inline]
    fn field_rename(&mut self, ids: &dyn Fn(Id) -> Id) {
        self.rename(ids)
    }
}

impl<T: ?Sized> Field<kind::Skip> for T {}

/// Containers: each element, by [`Rewrite`] and by every [`Field`] kind a
/// container hands on. `[$generics] $type` over elements `T`.
macro_rules! elementwise {
    ($([$($generics:tt)*] $container:ty),* $(,)?) => {$(
        impl<T: Rewrite, $($generics)*> Rewrite for $container {
            #[inline]
            fn numbers(&mut self, visit: &mut impl FnMut(Seq, &mut u32)) {
                self.iter_mut().for_each(|x| x.numbers(visit))
            }

            #[inline]
            fn rename(&mut self, ids: &dyn Fn(Id) -> Id) {
                self.iter_mut().for_each(|x| x.rename(ids))
            }
        }

        impl<K: kind::Elementwise, T: Field<K>, $($generics)*> Field<K> for $container {
            #[inline]
            fn field_numbers(&mut self, visit: &mut impl FnMut(Seq, &mut u32)) {
                self.iter_mut().for_each(|x| x.field_numbers(visit))
            }

            #[inline]
            fn field_rename(&mut self, ids: &dyn Fn(Id) -> Id) {
                self.iter_mut().for_each(|x| x.field_rename(ids))
            }
        }
    )*};
}
elementwise!(
    [] Option<T>,
    [] Vec<T>,
    [const N: usize] [T; N],
    [A: Array<Item = T>] SmallVec<A>,
);

impl<T: Rewrite + ?Sized> Rewrite for Box<T> {
    #[inline]
    fn numbers(&mut self, visit: &mut impl FnMut(Seq, &mut u32)) {
        (**self).numbers(visit)
    }

    #[inline]
    fn rename(&mut self, ids: &dyn Fn(Id) -> Id) {
        (**self).rename(ids)
    }
}

impl<K: kind::Elementwise, T: Field<K> + ?Sized> Field<K> for Box<T> {
    #[inline]
    fn field_numbers(&mut self, visit: &mut impl FnMut(Seq, &mut u32)) {
        (**self).field_numbers(visit)
    }

    #[inline]
    fn field_rename(&mut self, ids: &dyn Fn(Id) -> Id) {
        (**self).field_rename(ids)
    }
}

/// Tuples: element by element, by [`Rewrite`], or each by its own kind.
macro_rules! tuple {
    ($(($($t:ident $k:ident $i:tt),*)),*) => {$(
        impl<$($t: Rewrite),*> Rewrite for ($($t,)*) {
            #[inline]
            fn numbers(&mut self, visit: &mut impl FnMut(Seq, &mut u32)) {
                $(self.$i.numbers(visit);)*
            }

            #[inline]
            fn rename(&mut self, ids: &dyn Fn(Id) -> Id) {
                $(self.$i.rename(ids);)*
            }
        }

        impl<$($k, $t: Field<$k>),*> Field<($($k,)*)> for ($($t,)*) {
            #[inline]
            fn field_numbers(&mut self, visit: &mut impl FnMut(Seq, &mut u32)) {
                $(self.$i.field_numbers(visit);)*
            }

            #[inline]
            fn field_rename(&mut self, ids: &dyn Fn(Id) -> Id) {
                $(self.$i.field_rename(ids);)*
            }
        }
    )*};
}
tuple!((A KA 0, B KB 1), (A KA 0, B KB 1, C KC 2));

#[cfg(test)]
mod tests {
    use smallvec::{smallvec, SmallVec};

    use super::{Field, Rewrite};
    use crate::world::{Id, Seq};

    /// One field of each kind, and fields left alone.
    #[derive(Clone, Debug, PartialEq, Rewrite)]
    struct Holder {
        #[rewrite(ghost)]
        ghost: u32,
        #[rewrite(token)]
        token: Option<u32>,
        #[rewrite(value)]
        values: Vec<u32>,
        #[rewrite(clock)]
        clocks: SmallVec<[u32; 2]>,
        #[rewrite(id)]
        owner: Id,
        #[rewrite(id)]
        waiting: Vec<Id>,
        #[rewrite]
        inner: Option<Inner>,
        #[rewrite((token, value))]
        watches: Vec<(u32, u32)>,
        #[rewrite((nested, ghost))]
        held: Option<(Inner, u32)>,
        #[rewrite((_, clock, id))]
        tags: [(u8, u32, Id); 1],
        /// No attribute: neither visited nor renamed.
        count: u32,
        leader: Id,
    }

    #[derive(Clone, Debug, PartialEq, Rewrite)]
    struct Inner {
        #[rewrite(id)]
        client: Id,
        #[rewrite(value)]
        value: u32,
    }

    /// Named, tuple and unit variants, and a generic one.
    #[derive(Clone, Debug, PartialEq, Rewrite)]
    enum Msg<T> {
        Named {
            #[rewrite(value)]
            value: u32,
            #[rewrite(id)]
            from: Id,
            size: u32,
        },
        Tuple(u32, #[rewrite(ghost)] u32, #[rewrite] Box<Inner>),
        Part(#[rewrite] T),
        Unit,
    }

    /// A tuple struct, and an enum with no variant.
    #[derive(Clone, Debug, PartialEq, Rewrite)]
    struct Counter(#[rewrite(token)] u32, u32);

    #[derive(Clone, Debug, PartialEq, Rewrite)]
    enum Never {}

    fn visited<R: Rewrite>(r: &mut R) -> Vec<(Seq, u32)> {
        let mut out = Vec::new();
        r.numbers(&mut |seq, v| out.push((seq, *v)));
        out.sort();
        out
    }

    /// Node `i` becomes `i + 10`.
    fn shifted<R: Rewrite + Clone>(r: &R) -> R {
        let mut r = r.clone();
        r.rename(&|i| i + 10);
        r
    }

    fn holder() -> Holder {
        Holder {
            ghost: 1,
            token: Some(2),
            values: vec![3, 4],
            clocks: smallvec![5, 6],
            owner: 7,
            waiting: vec![8, 9],
            inner: Some(Inner { client: 10, value: 11 }),
            watches: vec![(12, 13)],
            held: Some((Inner { client: 14, value: 15 }, 16)),
            tags: [(17, 18, 19)],
            count: 20,
            leader: 21,
        }
    }

    #[test]
    fn a_struct_visits_its_marked_values_with_their_sequence() {
        use Seq::*;
        let mut expected = vec![
            (Ghost, 1),
            (Token, 2),
            (Value, 3),
            (Value, 4),
            (Clock, 5),
            (Clock, 6),
            (Value, 11),
            (Token, 12),
            (Value, 13),
            (Value, 15),
            (Ghost, 16),
            (Clock, 18),
        ];
        expected.sort();
        assert_eq!(visited(&mut holder()), expected);
    }

    #[test]
    fn a_struct_renames_its_marked_ids() {
        let h = holder();
        let expected = Holder {
            owner: 17,
            waiting: vec![18, 19],
            inner: Some(Inner { client: 20, value: 11 }),
            held: Some((Inner { client: 24, value: 15 }, 16)),
            tags: [(17, 18, 29)],
            ..h.clone()
        };
        assert_eq!(shifted(&h), expected);
    }

    #[test]
    fn the_visit_rewrites_in_place() {
        let mut h = holder();
        h.numbers(&mut |seq, v| {
            if seq == Seq::Value {
                *v *= 100
            }
        });
        assert_eq!(h.values, vec![300, 400]);
        assert_eq!(h.watches, vec![(12, 1300)]);
        assert_eq!((h.ghost, h.count), (1, 20));
    }

    #[test]
    fn an_enum_visits_and_renames_each_variant() {
        let mut named: Msg<Inner> = Msg::Named {
            value: 1,
            from: 2,
            size: 3,
        };
        assert_eq!(visited(&mut named), vec![(Seq::Value, 1)]);
        assert_eq!(
            shifted(&named),
            Msg::Named {
                value: 1,
                from: 12,
                size: 3
            }
        );
        let mut tuple: Msg<Inner> = Msg::Tuple(1, 2, Box::new(Inner { client: 3, value: 4 }));
        assert_eq!(visited(&mut tuple), vec![(Seq::Ghost, 2), (Seq::Value, 4)]);
        assert_eq!(
            shifted(&tuple),
            Msg::Tuple(1, 2, Box::new(Inner { client: 13, value: 4 }))
        );
        let mut part = Msg::Part(Counter(5, 6));
        assert_eq!(visited(&mut part), vec![(Seq::Token, 5)]);
        assert_eq!(shifted(&part), part);
        let mut unit: Msg<Counter> = Msg::Unit;
        assert_eq!(visited(&mut unit), vec![]);
        assert_eq!(shifted(&unit), unit);
    }

    /// A type with nothing to rewrite keeps the defaults: an enum with no
    /// variant, flags.
    #[test]
    fn nothing_held_nothing_visited() {
        let mut none: Vec<Never> = Vec::new();
        assert_eq!(visited(&mut none), vec![]);
        let mut flags = (true, ());
        assert_eq!(visited(&mut flags), vec![]);
        assert_eq!(shifted(&flags), flags);
    }

    /// A container hands a field's kind on to each element.
    #[test]
    fn containers_reach_every_element() {
        let mut nested: Vec<Option<Box<[u32; 2]>>> = vec![Some(Box::new([1, 2])), None, Some(Box::new([3, 0]))];
        let mut out = Vec::new();
        Field::<super::kind::Value>::field_numbers(&mut nested, &mut |seq, v| out.push((seq, *v)));
        assert_eq!(
            out,
            vec![(Seq::Value, 1), (Seq::Value, 2), (Seq::Value, 3), (Seq::Value, 0)]
        );
        let mut inners = (vec![Inner { client: 1, value: 2 }], Some(Inner { client: 3, value: 4 }));
        inners.rename(&|i| i * 2);
        assert_eq!(
            inners,
            (vec![Inner { client: 2, value: 2 }], Some(Inner { client: 6, value: 4 }))
        );
    }
}
