//! What the broker tests share: a command put on a machine of a NATS
//! broker, and a child that is ended when a test fails before it exits.

use std::process::{Child, Command};

use catui_testkit::nats::NatsServer;

/// `cmd` as machine `host` on `broker`, with a short heartbeat.
pub fn on(mut cmd: Command, host: &str, broker: &NatsServer) -> Command {
    cmd.env("CATUI_HOST", host)
        .env("CATUI_BROKER", broker.url())
        .env("CATUI_BROKER_HEARTBEAT_MS", "300");
    cmd
}

/// A child ended by pid if the test fails before it exits.
pub struct Killed(pub Option<Child>);

impl Drop for Killed {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
