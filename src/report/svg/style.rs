//! What the timeline's parts share: the margin, the fonts' average
//! advances and the colours.

/// Around the picture.
pub(super) const MARGIN: i32 = 16;
/// Average advance of a character, in tenths of a pixel: 12px sans-serif
/// text, 11px monospace text, 10px sans-serif text, the 15px bold title.
pub(super) const SANS_12: i32 = 66;
pub(super) const MONO_11: i32 = 67;
pub(super) const SANS_10: i32 = 55;
pub(super) const TITLE_15: i32 = 90;

pub(crate) const INK: &str = "#222";
pub(super) const MSG: &str = "#1f5fa8";
pub(crate) const LOST: &str = "#c0392b";
pub(crate) const BELIEF: &str = "#2e9e44";
pub(super) const LOOP: &str = "#b26a00";
