//! One word table per enum a scenario names: the words a scenario file
//! writes for its values, read by [`crate::scenario`] and written back by
//! whatever shows a value (traces, the TLA+ constants, the matrix), so that
//! each word is spelled once.

/// An enum whose values have the words of `WORDS`, in the order the
/// "allowed:" sentence lists them.
pub trait Words: Copy + PartialEq + 'static {
    const WORDS: &'static [(&'static str, Self)];

    /// The word for this value.
    fn word(self) -> &'static str {
        Self::WORDS
            .iter()
            .find(|(_, v)| *v == self)
            .map(|(w, _)| *w)
            .expect("every value has a word in WORDS")
    }
}
