//! How much room a message label has, from the layout: a label runs from
//! its receiver toward its sender and may go on past the sender's lane
//! (over a pale backing) up to the step numbers on the left or the
//! bracket and step words on the right, but never across the rotated word
//! of a pause or crash block ("paused", "crashed") at its height.

/// A block's rotated word: its lane's x and the vertical span it covers.
pub struct Word {
    pub x: i32,
    pub top: i32,
    pub bottom: i32,
}

/// The horizontal stretch labels may use, and the words in it.
pub struct Room {
    pub left: i32,
    pub right: i32,
    pub words: Vec<Word>,
}

impl Room {
    /// Pixels free for a label at `(x, y)` (its baseline) that runs left
    /// of `x` when `dir > 0` (text anchored at its end) and right of it
    /// otherwise. A label's box is from 10 px above its baseline to 3 px
    /// below.
    pub fn at(&self, x: i32, y: i32, dir: i32) -> i32 {
        let level = self.words.iter().filter(|w| w.top <= y + 3 && w.bottom >= y - 10);
        if dir > 0 {
            let limit = level.filter(|w| w.x < x).map(|w| w.x + 10).fold(self.left, i32::max);
            x - limit
        } else {
            let limit = level.filter(|w| w.x > x).map(|w| w.x - 10).fold(self.right, i32::min);
            limit - x
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Room, Word};

    #[test]
    fn a_label_runs_to_the_edge_or_to_the_first_word_at_its_height() {
        let room = Room {
            left: 90,
            right: 700,
            words: vec![Word {
                x: 330,
                top: 100,
                bottom: 140,
            }],
        };
        assert_eq!(
            room.at(180, 200, -1),
            520,
            "nothing at this height: up to the right edge"
        );
        assert_eq!(room.at(180, 120, -1), 140, "stops 10 px before the word");
        assert_eq!(room.at(500, 120, 1), 160, "leftward: stops 10 px after the word");
        assert_eq!(room.at(300, 120, 1), 210, "the word is behind it");
    }
}
