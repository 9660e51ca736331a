fn main() {
    std::process::exit(locksmith::cli::main());
}

/// The allocator is configured before anything allocates (the Rust runtime
/// allocates before `main`, and mimalloc makes its first arena then), as a
/// constructor that the loader runs.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static CONFIGURE_ALLOCATOR: extern "C" fn() = {
    extern "C" fn configure() {
        locksmith::memory::configure_allocator();
    }
    configure
};
