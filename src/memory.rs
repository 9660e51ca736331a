//! The process's memory, as Linux reports it in `/proc`: what the search
//! and the progress display read, and what the command line's default
//! memory bound is taken from.

const KIB: u64 = 1 << 10;

/// The resident set size in bytes (`/proc/self/statm`), or `None`
/// where `/proc` cannot be read.
pub fn resident() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages.saturating_mul(page_size()))
}

/// The page size from the auxiliary vector (`AT_PAGESZ`), else 4 KiB.
fn page_size() -> u64 {
    static PAGE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *PAGE.get_or_init(|| {
        const AT_PAGESZ: u64 = 6;
        let word = std::mem::size_of::<usize>();
        let auxv = std::fs::read("/proc/self/auxv").unwrap_or_default();
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
            .find(|pair| read(&pair[..word]) == AT_PAGESZ)
            .map(|pair| read(&pair[word..]))
            .filter(|p| *p > 0)
            .unwrap_or(4 * KIB)
    })
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
