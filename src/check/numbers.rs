//! A queue of state numbers that moves to a file when the search outgrows
//! `--max-memory` (search.rs): numbers are appended to the file in chunks
//! and read back from its front in chunks, so that memory holds at most a
//! chunk at each end. Breadth-first only: a depth-first search's queue is
//! its path, which never outgrows memory this way.

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Numbers per chunk written or read (256 KiB).
const CHUNK: usize = 1 << 16;

#[derive(Default)]
pub(super) struct Numbers {
    /// The front: numbers read back, or all of them before a spill.
    head: VecDeque<u32>,
    /// Once spilled: the file, and the numbers read from it and written
    /// to it so far; its unread numbers come after `head`.
    file: Option<(File, u64, u64)>,
    /// The back, once spilled: numbers not yet written, after the file's.
    tail: Vec<u32>,
}

impl From<VecDeque<u32>> for Numbers {
    fn from(head: VecDeque<u32>) -> Numbers {
        Numbers {
            head,
            ..Numbers::default()
        }
    }
}

impl Numbers {
    pub(super) fn len(&self) -> usize {
        let unread = self.file.as_ref().map_or(0, |(_, read, written)| written - read);
        self.head.len() + unread as usize + self.tail.len()
    }

    pub(super) fn push_back(&mut self, i: u32) -> io::Result<()> {
        let Some((file, _, written)) = &mut self.file else {
            self.head.push_back(i);
            return Ok(());
        };
        self.tail.push(i);
        if self.tail.len() >= CHUNK {
            let bytes: Vec<u8> = self.tail.iter().flat_map(|i| i.to_le_bytes()).collect();
            file.write_all_at(&bytes, *written * 4)?;
            *written += self.tail.len() as u64;
            self.tail.clear();
        }
        Ok(())
    }

    pub(super) fn pop_front(&mut self) -> io::Result<Option<u32>> {
        if self.head.is_empty() {
            match &mut self.file {
                Some((file, read, written)) if *read < *written => {
                    let n = (*written - *read).min(CHUNK as u64) as usize;
                    let mut bytes = vec![0; n * 4];
                    file.read_exact_at(&mut bytes, *read * 4)?;
                    *read += n as u64;
                    let numbers = bytes
                        .chunks_exact(4)
                        .map(|b| u32::from_le_bytes(b.try_into().expect("4")));
                    self.head.extend(numbers);
                }
                _ => self.head.extend(self.tail.drain(..)),
            }
        }
        Ok(self.head.pop_front())
    }

    /// The back number of a queue never spilled (depth-first search).
    pub(super) fn pop_back(&mut self) -> Option<u32> {
        debug_assert!(self.file.is_none(), "a depth-first queue is never spilled");
        self.head.pop_back()
    }

    /// Every number, front to back.
    pub(super) fn all(&self) -> io::Result<Vec<u32>> {
        let mut out: Vec<u32> = self.head.iter().copied().collect();
        if let Some((file, read, written)) = &self.file {
            let mut bytes = vec![0; ((written - read) * 4) as usize];
            file.read_exact_at(&mut bytes, read * 4)?;
            out.extend(
                bytes
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes(b.try_into().expect("4"))),
            );
        }
        out.extend(&self.tail);
        Ok(out)
    }

    /// Moves the numbers to a file in `dir` (a nameless one: it goes with
    /// the process). Later numbers go there too, a chunk at a time.
    pub(super) fn spill(&mut self, dir: &Path) -> io::Result<()> {
        if self.file.is_none() {
            let file = tempfile::tempfile_in(dir)?;
            self.file = Some((file, 0, 0));
        }
        let Some((file, _, written)) = &mut self.file else {
            unreachable!("opened above")
        };
        // The file's unread numbers come after the head: the head cannot
        // go behind them, so it is written only while the file is empty.
        let mut rest: Vec<u32> = Vec::new();
        if self.tail.is_empty() && *written == 0 {
            rest.extend(self.head.drain(..));
        }
        rest.append(&mut self.tail);
        let bytes: Vec<u8> = rest.iter().flat_map(|i| i.to_le_bytes()).collect();
        file.write_all_at(&bytes, *written * 4)?;
        *written += rest.len() as u64;
        self.head.shrink_to_fit();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queue_spilled_midway_gives_every_number_in_order() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut q = Numbers::default();
        let mut out = Vec::new();
        let n = 3 * CHUNK as u32 + 17;
        for i in 0..n {
            q.push_back(i).expect("pushes");
            if i % 3 == 0 {
                out.extend(q.pop_front().expect("pops"));
            }
            if i == 1000 || i == 2 * CHUNK as u32 {
                q.spill(dir.path()).expect("spills");
                assert_eq!(q.all().expect("reads").len(), q.len());
            }
        }
        assert_eq!(q.all().expect("reads"), ((out.len() as u32)..n).collect::<Vec<_>>());
        while let Some(i) = q.pop_front().expect("pops") {
            out.push(i);
        }
        assert_eq!(out, (0..n).collect::<Vec<_>>());
        assert_eq!(q.len(), 0);
    }
}
