fn main() {
    std::process::exit(locksmith::cli::main());
}
