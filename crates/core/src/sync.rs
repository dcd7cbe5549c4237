//! Locks that survive a panic elsewhere. catui's shared state (permission
//! context, working directory, todo list, transcript writer, team tables) is
//! always left consistent between statements, so a thread that panicked while
//! holding a lock leaves nothing half-written: the holders below take the
//! value over instead of propagating the poison. This is the one place that
//! decision is made.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Locks `m`, taking the value over if another thread panicked holding it
/// (shared with the other crates).
pub use catui_protocol::sync::lock;

/// Waits on `cv` with `guard`, taking the value over as [`lock`] does.
pub fn wait<'a, T>(cv: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    cv.wait(guard)
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Waits on `cv` at most `timeout`; true when the wait timed out.
pub fn wait_timeout<'a, T>(
    cv: &Condvar,
    guard: MutexGuard<'a, T>,
    timeout: std::time::Duration,
) -> (MutexGuard<'a, T>, bool) {
    let (guard, result) = cv
        .wait_timeout(guard, timeout)
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    (guard, result.timed_out())
}

/// The value of a mutex nobody else holds any more.
pub fn into_inner<T>(m: Mutex<T>) -> T {
    m.into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The value behind a mutex borrowed exclusively.
pub fn get_mut<T: ?Sized>(m: &mut Mutex<T>) -> &mut T {
    m.get_mut()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_lock_poisoned_by_a_panicking_thread_still_yields_its_value() {
        let m = Arc::new(Mutex::new(vec![1]));
        let held = Arc::clone(&m);
        let joined = std::thread::spawn(move || {
            let mut g = held.lock().unwrap();
            g.push(2);
            panic!("poison the lock");
        })
        .join();
        assert!(joined.is_err());
        assert!(m.is_poisoned());
        lock(&m).push(3);
        assert_eq!(*lock(&m), vec![1, 2, 3]);
        let m = Arc::into_inner(m).unwrap();
        assert_eq!(into_inner(m), vec![1, 2, 3]);
    }
}
