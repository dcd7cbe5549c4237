//! A real `nats-server` with JetStream for tests of catui's broker mode:
//! started on a free loopback port with a temporary store directory,
//! killed by pid (`-9`) and restarted on the same port and store (a
//! broker restart), and killed when dropped. Debian's package `nats-server`
//! provides the binary (`.ci/run` installs it); `CATUI_NATS_SERVER` names
//! another. A missing server is a test failure, never a skip.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running (or killed, until restarted) nats-server.
pub struct NatsServer {
    port: u16,
    store: PathBuf,
    /// Kept for the store's lifetime.
    _dir: Option<TempDirGuard>,
    child: Option<Child>,
}

/// Removes the store directory on drop.
struct TempDirGuard(PathBuf);

impl Drop for TempDirGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The server binary: `CATUI_NATS_SERVER`, `nats-server` on `PATH`, or
/// Debian's `/usr/sbin/nats-server`.
pub fn server_binary() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CATUI_NATS_SERVER") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/local/sbin")])
        .map(|d| d.join("nats-server"))
        .find(|p| p.is_file())
}

impl NatsServer {
    /// Starts a server with JetStream on a free port; panics (failing the
    /// test) when there is no nats-server or it does not come up.
    pub fn start() -> NatsServer {
        let port = free_port();
        let store = std::env::temp_dir().join(format!(
            "catui-nats-{}-{port}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        std::fs::create_dir_all(&store).unwrap_or_else(|e| panic!("store dir: {e}"));
        let mut server = NatsServer {
            port,
            store: store.clone(),
            _dir: Some(TempDirGuard(store)),
            child: None,
        };
        server.restart();
        server
    }

    /// `nats://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn store(&self) -> &Path {
        &self.store
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills the server with SIGKILL (no clean shutdown) and reaps it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server (again) on the same port and store, and waits
    /// until it accepts connections.
    pub fn restart(&mut self) {
        self.kill();
        let Some(binary) = server_binary() else {
            panic!(
                "nats-server is not installed (apt-get install nats-server, or set CATUI_NATS_SERVER); the broker tests need it"
            );
        };
        let port = self.port.to_string();
        let child = Command::new(&binary)
            .args(["-a", "127.0.0.1", "-p", &port, "-js", "-sd"])
            .arg(&self.store)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        // A port freed by the killed server may take a moment to be taken.
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if Instant::now() > deadline {
                panic!(
                    "nats-server did not listen on port {} within 20 s",
                    self.port
                );
            }
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("nats-server exited at start: {status}");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

fn free_port() -> u16 {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("no free port: {e}"))
}
