//! Typed tables: a family's `[system]` keys (and `sim::Rates`'s
//! `[simulate]` keys) are one struct that derives serde's `Deserialize`
//! with `deny_unknown_fields`, whose fields are the value types below, each
//! of which knows what it allows. [`read`] gives the first error as the
//! same one sentence [`super::Keys`] gives for the world's own tables: the
//! file, then `[section] key = value is not allowed; allowed: ...`, or
//! `[section] has no key "k"; allowed keys: ...` in the struct's field
//! order.
//!
//! A key that is absent is `Default::default()` (the struct is
//! `#[serde(default)]`): a [`Within`] carries its default in its type, and
//! an `Option` field tells a key left out from one set to its default where
//! a family needs to know (`drift` is allowed only with some clients).

use std::fmt;
use std::path::Path;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::Deserialize;
use toml::{Table, Value};

use super::{quoted, shown, ScenarioError};
use crate::words::Words;

/// Reads `table` (the `section` of the scenario file at `path`, such as
/// `"[system] "`) as a `T`.
pub fn read<T: DeserializeOwned>(path: &Path, section: &str, table: &Table) -> Result<T, ScenarioError> {
    let err = |what: String| ScenarioError(format!("{}: {section}{what}", path.display()));
    let allowed = fields::<T>();
    if let Some(key) = table.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(err(format!("has no key {key:?}; allowed keys: {}", allowed.join(", "))));
    }
    serde_path_to_error::deserialize(Value::Table(table.clone())).map_err(|e| {
        let key = e.path().to_string();
        let what = e.into_inner().message().to_string();
        // The value types' own errors start with `= value`; serde's (a
        // struct that is not a table) are shown after the key as they are.
        match what.strip_prefix('=') {
            Some(rest) => err(format!("{key} ={rest}")),
            None => err(format!("{key}: {what}")),
        }
    })
}

/// The field names of the struct `T` derives `Deserialize` for, in
/// declaration order: serde's derive hands them to `deserialize_struct`,
/// which this deserializer records and then refuses.
fn fields<T: DeserializeOwned>() -> &'static [&'static str] {
    struct Fields(Option<&'static [&'static str]>);
    #[derive(Debug)]
    struct Stop;
    impl fmt::Display for Stop {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("fields recorded")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<M: fmt::Display>(_: M) -> Self {
            Stop
        }
    }
    impl<'de> Deserializer<'de> for &mut Fields {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            self.0 = Some(fields);
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    let mut probe = Fields(None);
    let _ = T::deserialize(&mut probe);
    probe.0.unwrap_or(&[])
}

/// Reads any TOML value, so that a value type can name what it was given
/// when it refuses it.
fn any<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    Value::deserialize(d)
}

fn refuse<E: de::Error>(v: &Value, allowed: impl fmt::Display) -> E {
    E::custom(format!("= {} is not allowed; allowed: {allowed}", shown(v)))
}

/// A whole number from `MIN` to `MAX`, `DEFAULT` when the key is absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Within<const MIN: u8, const MAX: u8, const DEFAULT: u8>(pub u8);

impl<const MIN: u8, const MAX: u8, const DEFAULT: u8> Within<MIN, MAX, DEFAULT> {
    pub fn get(self) -> u8 {
        self.0
    }
}

impl<const MIN: u8, const MAX: u8, const DEFAULT: u8> Default for Within<MIN, MAX, DEFAULT> {
    fn default() -> Self {
        Within(DEFAULT)
    }
}

impl<'de, const MIN: u8, const MAX: u8, const DEFAULT: u8> Deserialize<'de> for Within<MIN, MAX, DEFAULT> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match any(d)? {
            Value::Integer(i) if (i64::from(MIN)..=i64::from(MAX)).contains(&i) => Ok(Within(i as u8)),
            v => Err(refuse(&v, format_args!("a whole number from {MIN} to {MAX}"))),
        }
    }
}

/// A whole number from 0 to 255, for a key whose range depends on another
/// key's value: the family checks it with [`within`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Whole(pub u8);

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match any(d)? {
            Value::Integer(i) if (0..=255).contains(&i) => Ok(Whole(i as u8)),
            // Its range is the family's to name ([`within`]).
            v => Err(refuse(&v, "a whole number")),
        }
    }
}

/// Checks a [`Whole`] against a range that depends on other keys, with the
/// sentence a [`Within`] would give.
pub fn within(path: &Path, section: &str, key: &str, v: u8, min: u8, max: u8) -> Result<u8, ScenarioError> {
    if (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(ScenarioError(format!(
            "{}: {section}{key} = {v} is not allowed; allowed: a whole number from {min} to {max}",
            path.display()
        )))
    }
}

/// `true` or `false`; `DEFAULT` when the key is absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flag<const DEFAULT: bool>(pub bool);

impl<const DEFAULT: bool> Flag<DEFAULT> {
    pub fn get(self) -> bool {
        self.0
    }
}

impl<const DEFAULT: bool> Default for Flag<DEFAULT> {
    fn default() -> Self {
        Flag(DEFAULT)
    }
}

impl<'de, const DEFAULT: bool> Deserialize<'de> for Flag<DEFAULT> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match any(d)? {
            Value::Boolean(b) => Ok(Flag(b)),
            v => Err(refuse(&v, "true or false")),
        }
    }
}

/// A number from 0 to 1 (integers 0 and 1 too): a probability.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fraction(pub f64);

impl<'de> Deserialize<'de> for Fraction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match any(d)? {
            Value::Float(f) if (0.0..=1.0).contains(&f) => Ok(Fraction(f)),
            Value::Integer(i) if (0..=1).contains(&i) => Ok(Fraction(i as f64)),
            v => Err(refuse(&v, "a number from 0 to 1")),
        }
    }
}

/// One of the words of an enum's word table ([`Words`]); the enum's
/// `Default` when the key is absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word<T>(pub T);

impl<T: Copy> Word<T> {
    pub fn get(self) -> T {
        self.0
    }
}

impl<T: Default> Default for Word<T> {
    fn default() -> Self {
        Word(T::default())
    }
}

impl<'de, T: Words> Deserialize<'de> for Word<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = any(d)?;
        if let Value::String(s) = &v {
            if let Some((_, t)) = T::WORDS.iter().find(|(w, _)| w == s) {
                return Ok(Word(*t));
            }
        }
        let words: Vec<&str> = T::WORDS.iter().map(|(w, _)| *w).collect();
        Err(refuse(&v, quoted(&words)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct System {
        clients: Within<1, 4, 2>,
        lag: Flag<true>,
        drift: Option<Within<0, 10, 1>>,
        rate: Option<Fraction>,
    }

    fn read_text(text: &str) -> Result<System, ScenarioError> {
        let table: Table = toml::from_str(text).unwrap();
        read(Path::new("s.toml"), "[system] ", &table)
    }

    #[test]
    fn absent_keys_take_their_defaults_and_present_ones_their_values() {
        let s = read_text("").unwrap();
        assert_eq!((s.clients.get(), s.lag.get(), s.drift, s.rate), (2, true, None, None));
        let s = read_text("clients = 4\nlag = false\ndrift = 0\nrate = 1").unwrap();
        assert_eq!(
            (s.clients.get(), s.lag.get(), s.drift, s.rate),
            (4, false, Some(Within(0)), Some(Fraction(1.0)))
        );
    }

    #[test]
    fn each_refusal_is_one_sentence_naming_the_file_the_key_and_what_is_allowed() {
        let cases = [
            (
                "clients = 5",
                "s.toml: [system] clients = 5 is not allowed; allowed: a whole number from 1 to 4",
            ),
            (
                "clients = \"two\"",
                "s.toml: [system] clients = \"two\" is not allowed; allowed: a whole number from 1 to 4",
            ),
            (
                "lag = 1",
                "s.toml: [system] lag = 1 is not allowed; allowed: true or false",
            ),
            (
                "rate = 1.5",
                "s.toml: [system] rate = 1.5 is not allowed; allowed: a number from 0 to 1",
            ),
            (
                "nope = 1",
                "s.toml: [system] has no key \"nope\"; allowed keys: clients, lag, drift, rate",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(read_text(text).unwrap_err().0, want, "{text}");
        }
    }
}
