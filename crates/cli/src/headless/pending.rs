//! Control requests catui sends to the stream-json client and still waits
//! for: one registry ([`Pending`]) of `control_response` waiters by
//! request id. A request nobody answers fails closed (see
//! `stdio_approver.rs`).

use catui_core::sync::lock;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use catui_protocol::stream_json::ControlResponse;
use tokio::sync::oneshot;

type Waiters = HashMap<String, oneshot::Sender<ControlResponse>>;

/// Control requests sent to the client and still waiting for their
/// `control_response` line.
#[derive(Default)]
pub struct Pending {
    next: AtomicU64,
    waiting: Mutex<Waiters>,
    /// Set when the client's input ended: a request made after that has
    /// nobody to answer it and fails at once instead of waiting forever.
    closed: AtomicBool,
}

impl Pending {
    fn lock(&self) -> std::sync::MutexGuard<'_, Waiters> {
        lock(&self.waiting)
    }

    /// Registers a waiter under a fresh id `<prefix>-<n>`. The receiver
    /// gets the client's raw response; it errors when the client closes its
    /// input first (callers must then fail closed).
    pub fn register(&self, prefix: &str) -> (String, oneshot::Receiver<ControlResponse>) {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let request_id = format!("{prefix}-{n}");
        let (tx, rx) = oneshot::channel();
        let mut waiting = self.lock();
        // Checked under the lock `drop_all` takes, so no request slips in
        // between the input closing and the waiters being dropped.
        if !self.closed.load(Ordering::Relaxed) {
            waiting.insert(request_id.clone(), tx);
        }
        (request_id, rx)
    }

    /// Forgets a waiter whose request could not be sent.
    pub fn forget(&self, request_id: &str) {
        self.lock().remove(request_id);
    }

    /// Answers a request; false when nothing waits for it.
    pub fn answer(&self, response: ControlResponse) -> bool {
        match self.lock().remove(response.request_id()) {
            Some(tx) => tx.send(response).is_ok(),
            None => false,
        }
    }

    /// Drops the waiters whose id starts with `prefix` (their askers fail
    /// closed) and returns their ids, so the client can be told.
    pub fn cancel(&self, prefix: &str) -> Vec<String> {
        let mut waiting = self.lock();
        let ids: Vec<String> = waiting
            .keys()
            .filter(|id| id.starts_with(prefix))
            .cloned()
            .collect();
        for id in &ids {
            waiting.remove(id);
        }
        ids
    }

    /// Drops every waiter (stdin closed): their receivers error, and the
    /// askers fail closed.
    pub fn drop_all(&self) {
        let mut waiting = self.lock();
        self.closed.store(true, Ordering::Relaxed);
        waiting.clear();
    }
}
