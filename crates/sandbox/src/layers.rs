//! Which layers this machine has ([`Layers::detect`]), and which of the
//! sandbox's guarantees they cover ([`Guarantee`]).
//!
//! A guarantee holds when at least one layer that provides it works here.
//! When one has no provider, the caller must not rely on the sandbox for
//! it (catui then asks before running what it would have run confined).

use std::path::PathBuf;
use std::sync::OnceLock;

/// One enforcement layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Linux namespaces through bubblewrap (`/usr/bin/bwrap`).
    Bubblewrap,
    /// The Landlock LSM: file access, TCP, scopes.
    Landlock,
    /// A seccomp system-call filter (and dropped capabilities).
    Seccomp,
}

impl Layer {
    /// The name reported to clients (`init.sandbox`).
    pub fn name(self) -> &'static str {
        match self {
            Layer::Bubblewrap => "bubblewrap",
            Layer::Landlock => "landlock",
            Layer::Seccomp => "seccomp",
        }
    }
}

/// What the sandbox promises about a read-only confined command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Guarantee {
    /// No file is created, changed or deleted outside the writable places.
    Files,
    /// No mode, owner, time or extended attribute changes.
    Metadata,
    /// No network of any kind.
    Network,
    /// No unix socket is created or connected to.
    UnixSockets,
    /// No signal, trace or environment read of processes outside the
    /// command's own tree.
    Processes,
    /// The secret stores cannot be read.
    Secrets,
}

impl Guarantee {
    pub const ALL: [Guarantee; 6] = [
        Guarantee::Files,
        Guarantee::Metadata,
        Guarantee::Network,
        Guarantee::UnixSockets,
        Guarantee::Processes,
        Guarantee::Secrets,
    ];

    /// A short phrase for messages ("... is not enforced").
    pub fn describe(self) -> &'static str {
        match self {
            Guarantee::Files => "keeping files unchanged",
            Guarantee::Metadata => "keeping file modes, owners and times unchanged",
            Guarantee::Network => "cutting the network",
            Guarantee::UnixSockets => "refusing unix sockets",
            Guarantee::Processes => {
                "keeping other processes (their signals and environment) out of reach"
            }
            Guarantee::Secrets => "hiding the secret stores",
        }
    }

    /// The layers that enforce this guarantee on their own.
    pub fn providers(self) -> &'static [Layer] {
        match self {
            Guarantee::Files | Guarantee::Secrets => &[Layer::Bubblewrap, Layer::Landlock],
            Guarantee::Metadata | Guarantee::Network => &[Layer::Bubblewrap, Layer::Seccomp],
            // Sockets on disk stay reachable through a read-only mount.
            Guarantee::UnixSockets => &[Layer::Seccomp],
            // Landlock needs its scopes (ABI 6) for signals.
            Guarantee::Processes => &[Layer::Bubblewrap, Layer::Landlock],
        }
    }
}

/// The Landlock ABI whose scopes keep signals inside the sandbox.
pub const LANDLOCK_SCOPES_ABI: u8 = 6;

/// The layers that work on this machine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Layers {
    pub bubblewrap: bool,
    /// The Landlock ABI version the kernel offers (0: none).
    pub landlock: u8,
    pub seccomp: bool,
}

/// Where a working bubblewrap is remembered ([`Layers::prewarm`]).
static REMEMBER: OnceLock<PathBuf> = OnceLock::new();

/// Environment variable listing layers not to use (comma-separated
/// names), for diagnosing a machine where one misbehaves.
pub const DISABLE_VAR: &str = "CATUI_SANDBOX_DISABLE";

impl Layers {
    /// No layer at all.
    pub fn none() -> Self {
        Layers::default()
    }

    /// The layers this machine has, probed once per process: bubblewrap
    /// by really starting it with catui's options, Landlock by asking the
    /// kernel for its ABI, seccomp by asking whether filters are
    /// supported. Layers named in `CATUI_SANDBOX_DISABLE` are left out.
    pub fn detect() -> Layers {
        static DETECTED: OnceLock<Layers> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            let disabled = std::env::var(DISABLE_VAR).unwrap_or_default();
            let off = |layer: Layer| {
                disabled
                    .split(',')
                    .any(|n| n.trim().eq_ignore_ascii_case(layer.name()))
            };
            Layers {
                bubblewrap: !off(Layer::Bubblewrap)
                    && crate::bwrap::works(REMEMBER.get().map(PathBuf::as_path)),
                landlock: if off(Layer::Landlock) {
                    0
                } else {
                    landlock_abi()
                },
                seccomp: !off(Layer::Seccomp) && seccomp_supported(),
            }
        })
    }

    /// Starts [`Layers::detect`] on another thread, so that its probe runs
    /// while the caller does other work. A bubblewrap that works is
    /// remembered in the file `remember` for the rest of this boot (see
    /// [`crate::bwrap::works`]), so later starts skip its probe.
    pub fn prewarm(remember: PathBuf) {
        let _ = REMEMBER.set(remember);
        let _ = std::thread::Builder::new()
            .name("sandbox-probe".into())
            .spawn(Layers::detect);
    }

    /// Whether `layer` works.
    pub fn has(&self, layer: Layer) -> bool {
        match layer {
            Layer::Bubblewrap => self.bubblewrap,
            Layer::Landlock => self.landlock > 0,
            Layer::Seccomp => self.seccomp,
        }
    }

    /// The working layers, in order.
    pub fn list(&self) -> Vec<Layer> {
        [Layer::Bubblewrap, Layer::Landlock, Layer::Seccomp]
            .into_iter()
            .filter(|l| self.has(*l))
            .collect()
    }

    /// The working layers' names (`init.sandbox`).
    pub fn names(&self) -> Vec<String> {
        self.list().iter().map(|l| l.name().to_string()).collect()
    }

    /// Whether `layer` provides `guarantee` here.
    pub fn provides(&self, layer: Layer, guarantee: Guarantee) -> bool {
        self.has(layer)
            && guarantee.providers().contains(&layer)
            && !(layer == Layer::Landlock
                && guarantee == Guarantee::Processes
                && self.landlock < LANDLOCK_SCOPES_ABI)
    }

    /// The guarantees no working layer provides.
    pub fn uncovered(&self) -> Vec<Guarantee> {
        Guarantee::ALL
            .into_iter()
            .filter(|g| !g.providers().iter().any(|l| self.provides(*l, *g)))
            .collect()
    }

    /// Whether some working layer keeps writes beneath the writable
    /// directories, judged on the path really written (bubblewrap's
    /// mounts or Landlock's rules).
    pub fn confines_writes(&self) -> bool {
        !self.uncovered().contains(&Guarantee::Files)
    }

    /// Whether every guarantee has a provider.
    pub fn complete(&self) -> bool {
        self.uncovered().is_empty()
    }

    /// What a session should tell its user about missing layers: what is
    /// not enforced, and what that changes. `None` when nothing is lost
    /// (every guarantee is covered, and bubblewrap is there when
    /// `wants_proxy`: approved commands are to reach allowed domains).
    pub fn notice(&self, wants_proxy: bool) -> Option<String> {
        let missing: Vec<&str> = [Layer::Bubblewrap, Layer::Landlock, Layer::Seccomp]
            .into_iter()
            .filter(|l| !self.has(*l))
            .map(Layer::name)
            .collect();
        let uncovered = self.uncovered();
        if uncovered.is_empty() && (self.bubblewrap || !wants_proxy) {
            return None;
        }
        let mut text = format!(
            "The sandbox for commands that run without asking lacks {} on this system",
            missing.join(" and ")
        );
        if uncovered.is_empty() {
            text.push_str(&format!(
                "; {} still enforce every guarantee",
                self.names().join(" and ")
            ));
            if !self.bubblewrap && wants_proxy {
                text.push_str(
                    ", but approved commands under the `sandbox` setting get no network \
                     (an allowed-domains list needs bubblewrap)",
                );
            }
            text.push('.');
        } else {
            let what: Vec<&str> = uncovered.iter().map(|g| g.describe()).collect();
            text.push_str(&format!(
                ". Nothing enforces {}, so commands judged read-only ask before they run.",
                what.join(", ")
            ));
        }
        Some(text)
    }
}

/// The Landlock ABI version of this kernel, 0 without Landlock.
pub fn landlock_abi() -> u8 {
    #[cfg(target_os = "linux")]
    {
        const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
        // SAFETY: with a null attribute pointer, size 0 and the VERSION flag
        // the kernel only returns the ABI version; no memory is touched.
        #[allow(unsafe_code)]
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                LANDLOCK_CREATE_RULESET_VERSION,
            )
        };
        u8::try_from(v).unwrap_or(0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

fn seccomp_supported() -> bool {
    #[cfg(target_os = "linux")]
    {
        crate::seccomp::supported()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

#[cfg(test)]
#[path = "layers_tests.rs"]
mod tests;
