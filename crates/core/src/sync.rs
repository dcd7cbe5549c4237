//! Locks that survive a panic elsewhere. catui's shared state (permission
//! context, working directory, todo list, transcript writer, team tables) is
//! always left consistent between statements, so a thread that panicked while
//! holding a lock leaves nothing half-written: the holders below take the
//! value over instead of propagating the poison. [`lock`] itself lives in
//! [`catui_protocol::sync`], shared by every crate; this module re-exports
//! it beside the waiting and unwrapping helpers core needs, all deciding
//! the same way.

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

/// Runs `f`, which blocks on the disk (an fsync), so that it does not hold up
/// the other tasks of the async runtime: on a worker of the multi-threaded
/// runtime the worker's other tasks move to another thread while `f` runs.
/// Elsewhere (a plain thread, a single-threaded runtime) `f` just runs.
pub fn blocking_io<T>(f: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
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

    #[test]
    fn blocking_io_lets_the_other_tasks_of_a_worker_run() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let order = rt.block_on(async {
            let order = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let (o1, o2) = (order.clone(), order.clone());
            let slow = tokio::spawn(async move {
                blocking_io(|| std::thread::sleep(std::time::Duration::from_millis(300)));
                lock(&o1).push("slow");
            });
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let quick = tokio::spawn(async move { lock(&o2).push("quick") });
            quick.await.unwrap();
            slow.await.unwrap();
            lock(&order).clone()
        });
        assert_eq!(order, ["quick", "slow"]);
        // Outside a runtime, and on a single-threaded one, it just runs.
        assert_eq!(blocking_io(|| 7), 7);
        let single = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        assert_eq!(single.block_on(async { blocking_io(|| 8) }), 8);
    }
}
