//! The restrictions a confined process applies to itself right before
//! `exec`: built (allocating, reporting errors) beforehand, applied with a
//! few async-signal-safe system calls, so that they can run between `fork`
//! and `exec` as well as in the inner stage.

use std::os::fd::OwnedFd;

use seccompiler::BpfProgram;

use crate::{Confinement, Layers, SandboxError};

/// Landlock and seccomp, ready to apply.
#[derive(Debug)]
pub(crate) struct Restrictions {
    landlock: Option<OwnedFd>,
    seccomp: Option<BpfProgram>,
}

impl Restrictions {
    /// The restrictions of `c` for the layers in `layers` (bubblewrap's
    /// part is done elsewhere).
    pub(crate) fn build(c: &Confinement, layers: Layers) -> Result<Self, SandboxError> {
        let landlock = if layers.landlock > 0 {
            crate::landlock::ruleset(c)?
        } else {
            None
        };
        let seccomp = if layers.seccomp {
            Some(crate::seccomp::program(c)?)
        } else {
            None
        };
        Ok(Restrictions { landlock, seccomp })
    }

    /// Applies them to the calling thread: capabilities dropped, no new
    /// privileges, Landlock, then seccomp last (its filter allows what is
    /// left to do before `exec`). Async-signal-safe.
    pub(crate) fn apply(&self) -> std::io::Result<()> {
        crate::seccomp::drop_capabilities()?;
        // SAFETY: prctl with plain integers.
        #[allow(unsafe_code)]
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if let Some(fd) = &self.landlock {
            crate::landlock::restrict(fd)?;
        }
        if let Some(program) = &self.seccomp {
            crate::seccomp::install(program)?;
        }
        Ok(())
    }
}
