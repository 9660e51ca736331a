//! Work spread over scoped threads, the answers in order: the search's
//! batches (`check::expand`), the liveness passes (`check::liveness`) and
//! the simulation's runs (`sim`). A panic on a thread, a bug in the model,
//! is passed on to the caller as it was.

/// `f(0)`, `f(1)` ... `f(n - 1)`, each on a thread of its own; their
/// answers in that order.
pub fn each<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n).map(|t| scope.spawn(move || f(t))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_answers_come_in_order() {
        assert_eq!(super::each(5, |t| t * 10), vec![0, 10, 20, 30, 40]);
    }

    #[test]
    #[should_panic(expected = "a bug on thread 2")]
    fn a_panic_on_a_thread_reaches_the_caller() {
        super::each(3, |t| assert!(t != 2, "a bug on thread {t}"));
    }
}
