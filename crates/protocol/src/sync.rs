//! The one way catui's crates take a lock. Shared state is always left
//! consistent between statements, so a thread that panicked while holding
//! a lock leaves nothing half-written: [`lock`] takes the value over
//! instead of propagating the poison (and never panics itself). Core
//! re-exports it from its own `sync` module, beside the condvar and
//! `into_inner` helpers only core needs.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `m`, taking the value over if another thread panicked holding it.
pub fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_lock_is_taken_over() {
        let m = std::sync::Arc::new(Mutex::new(vec![1]));
        let held = m.clone();
        let _ = std::thread::spawn(move || {
            let mut v = lock(&held);
            v.push(2);
            panic!("poison it");
        })
        .join();
        assert!(m.is_poisoned());
        lock(&m).push(3);
        assert_eq!(*lock(&m), vec![1, 2, 3]);
    }
}
