//! One word table per enum a scenario names: the words a scenario file
//! writes for its values, read by [`crate::scenario`] and written back by
//! whatever shows a value (traces, the TLA+ constants, the matrix), so that
//! each word is spelled once.

/// The derive: the table from the enum's variants, in kebab case or as
/// `#[word("...")]` spells one (derive/src/words.rs).
pub use locksmith_derive::Words;

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

/// The field words of node states that mean the same thing in every
/// family, spelled once so that a ZooKeeper trace and a Redlock trace name
/// a client's phase, its validity check and its acquisition alike (the
/// values come from `algorithms::client::show`: `yes`/`no`, `none`, `#2`).
pub mod field {
    /// The client's phase, in `Phase::word`'s words (wants, acquiring, holds...).
    pub const PHASE: &str = "phase";
    /// Acquisitions still to make, when the scenario counts them.
    pub const LEFT: &str = "acquisitions left";
    /// The attempt's random value (`v3`), where the lock is a key or a row.
    pub const VALUE: &str = "value";
    /// Whether a validity client checked its time left before the write.
    pub const VALIDITY_CHECKED: &str = "validity checked";
    /// Whether a Curator client checked its connection before the write.
    pub const CONNECTION_CHECKED: &str = "connection checked";
    /// Where the family's recipe is within one acquisition.
    pub const RECIPE_STEP: &str = "recipe step";
    /// The ghost number of the acquisition held (`#2`).
    pub const ACQUISITION: &str = "acquisition";
    /// The fencing token the client holds.
    pub const TOKEN: &str = "token";
    /// The resource's highest acquisition written.
    pub const WRITTEN: &str = "latest acquisition written";
    /// The resource's highest fencing token accepted.
    pub const HIGHEST_TOKEN: &str = "highest token";
}

#[cfg(test)]
mod tests {
    use super::Words;

    /// Variants in their order, each in kebab case, one spelled by hand.
    #[derive(Clone, Copy, Debug, PartialEq, Words)]
    enum Command {
        SetNxPx,
        Setnx,
        #[word("cad")]
        CompareAndDelete,
    }

    #[test]
    fn the_derived_table_lists_the_variants_in_order_in_kebab_case() {
        assert_eq!(
            Command::WORDS,
            &[
                ("set-nx-px", Command::SetNxPx),
                ("setnx", Command::Setnx),
                ("cad", Command::CompareAndDelete)
            ]
        );
        assert_eq!(Command::CompareAndDelete.word(), "cad");
    }
}
