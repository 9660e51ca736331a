//! The process's memory, as Linux reports it in `/proc`: what the search
//! and the progress display read, and what the command line's default
//! memory bound is taken from.

const KIB: u64 = 1 << 10;

/// The resident memory that is the process's own (`/proc/self/statm`'s
/// resident less its shared pages): what `--max-memory` bounds. Pages of
/// mapped files (the binary, a search's spilled files, src/check/seen.rs)
/// are the kernel's to drop and read again, so they do not count. `None`
/// where `/proc` cannot be read.
pub fn anonymous() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let mut fields = statm.split_whitespace().skip(1);
    let resident: u64 = fields.next()?.parse().ok()?;
    let shared: u64 = fields.next()?.parse().ok()?;
    Some(resident.saturating_sub(shared).saturating_mul(page_size()))
}

/// The page size from the auxiliary vector (`AT_PAGESZ`), else 4 KiB.
fn page_size() -> u64 {
    static PAGE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    const AT_PAGESZ: u64 = 6;
    *PAGE.get_or_init(|| auxv(AT_PAGESZ).filter(|p| *p > 0).unwrap_or(4 * KIB))
}

/// One entry of the process's auxiliary vector (`/proc/self/auxv`), the
/// kernel's answers to what libc's `sysconf` would ask (page size, clock
/// ticks per second), read without a libc binding.
pub fn auxv(key: u64) -> Option<u64> {
    let word = std::mem::size_of::<usize>();
    let auxv = std::fs::read("/proc/self/auxv").ok()?;
    let read = |c: &[u8]| {
        let mut b = [0u8; 8];
        b[..word].copy_from_slice(c);
        if cfg!(target_endian = "big") {
            u64::from_be_bytes(b) >> (64 - 8 * word as u32)
        } else {
            u64::from_le_bytes(b)
        }
    };
    auxv.chunks_exact(2 * word)
        .find(|pair| read(&pair[..word]) == key)
        .map(|pair| read(&pair[word..]))
}

/// The CPU time the process has used so far, user and system, in seconds
/// (`/proc/self/stat`, in clock ticks: `AT_CLKTCK` a second, usually
/// 100), or `None` where `/proc` cannot be read. Unlike wall time, other
/// processes on a busy machine barely change it.
pub fn cpu_seconds() -> Option<f64> {
    const AT_CLKTCK: u64 = 17;
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name, in parentheses, may hold spaces: fields are
    // counted from the last ')'. utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    let ticks = auxv(AT_CLKTCK).filter(|t| *t > 0).unwrap_or(100);
    Some((user + system) as f64 / ticks as f64)
}

/// The machine's physical memory in bytes (`MemTotal` in
/// `/proc/meminfo`), or `None` where it cannot be read.
pub fn total() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line.split_whitespace().skip(1);
    let n: u64 = words.next()?.parse().ok()?;
    (words.next() == Some("kB")).then(|| n.saturating_mul(KIB))
}

/// `bytes` in the largest binary unit it reaches: `512 MiB`, `8 GiB`,
/// `17.6 GiB`.
pub fn human(bytes: u64) -> String {
    let units = [
        ("TiB", KIB.pow(4)),
        ("GiB", KIB.pow(3)),
        ("MiB", KIB.pow(2)),
        ("KiB", KIB),
    ];
    match units.iter().find(|(_, u)| bytes >= *u) {
        Some((name, u)) if bytes.is_multiple_of(*u) => format!("{} {name}", bytes / u),
        Some((name, u)) => format!("{:.1} {name}", bytes as f64 / *u as f64),
        None => format!("{bytes} bytes"),
    }
}

/// Sets the allocator up for the search's pattern (called by a constructor
/// the loader runs, `src/main.rs`, before anything allocates): its arenas
/// are committed as they are used rather than all at once. Committed up front (mimalloc's default where the kernel
/// overcommits, as Linux does), the pages it freed while a search ran
/// stayed resident until the search ended: the headline's peak was
/// 196 MiB, against 173 MiB this way, in the same time (docs/performance.md).
/// Resident memory is what `--max-memory` bounds, so this matters beyond
/// the figure.
pub fn configure_allocator() {
    // mimalloc's own function and the option's number in its mimalloc.h
    // (`mi_option_arena_eager_commit`), declared here as `mi_collect` is.
    extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    const ARENA_EAGER_COMMIT: std::ffi::c_int = 4;
    // SAFETY: mi_option_set takes no pointer; an option set before the
    // arena it governs is made takes effect for it.
    unsafe { mi_option_set(ARENA_EAGER_COMMIT, 0) }
}

/// Returns the allocator's free memory to the kernel, so that what the
/// process freed stops counting as resident (mimalloc, the allocator,
/// keeps freed pages for reuse otherwise, and `anonymous` would not fall).
/// Called when the search drops its queued states at the memory bound.
pub fn release_free() {
    // mimalloc's own function, in the library the `mimalloc` crate links
    // (its -sys crate declares it only under a feature that needs one more
    // crate).
    extern "C" {
        fn mi_collect(force: bool);
    }
    // SAFETY: mi_collect takes no pointer; it frees the pages mimalloc
    // holds empty, and may be called at any time.
    unsafe { mi_collect(true) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_time_grows_with_work_and_the_page_size_is_read() {
        // Busy until the process's CPU time has grown by 0.05 s, which a
        // clock that does not move never reaches (30 s of wall time is the
        // limit, for a machine as busy as CI's).
        let before = cpu_seconds().expect("/proc/self/stat reads on Linux");
        let start = std::time::Instant::now();
        let mut x = 1u64;
        let mut now = before;
        while now - before < 0.05 && start.elapsed().as_secs() < 30 {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
            now = cpu_seconds().expect("reads again");
        }
        assert!(now - before >= 0.05, "{before} then {now} after 30 s of work");
        assert!(page_size().is_power_of_two() && page_size() >= 4096);
    }
}
