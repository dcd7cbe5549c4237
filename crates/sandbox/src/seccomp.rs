//! Layer 3: a seccomp system-call filter, and every capability dropped.
//!
//! The filter is compiled in the parent (or the inner stage) with
//! `seccompiler` and installed in the child as the last step before
//! `exec`, after `PR_SET_NO_NEW_PRIVS`. A refused call fails with `EPERM`
//! (`clone3` with `ENOSYS`, so that the C library falls back to `clone`,
//! whose flags the filter can see); a call of another architecture's ABI
//! (32-bit x86, x32) ends the process.
//!
//! Refused to every confined command: `io_uring` (it would bypass the
//! filter), `ptrace` and `process_vm_readv`/`writev`, `pidfd_getfd`,
//! `setsid` (so that every process it starts stays in its session, which
//! ends with catui's),
//! mounting and new namespaces, `bpf`, `perf_event_open`, `userfaultfd`,
//! the kernel keyring, `open_by_handle_at`, loading kernel code, changing
//! the clock or the host name, and the `TIOCSTI`/`TIOCLINUX` ioctls that
//! push input into a terminal. Depending on the [`Confinement`]: creating
//! sockets (all of them, or those of internet families), and changing
//! modes, owners, times, extended attributes or inode flags.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op, SeccompCondition,
    SeccompFilter, SeccompRule, sock_filter,
};

use crate::{Confinement, Network, SandboxError};

/// Syscall numbers the `libc` crate may not know yet (the same on every
/// architecture since Linux 5.x).
const SYS_SETXATTRAT: i64 = 463;
const SYS_REMOVEXATTRAT: i64 = 466;
const SYS_OPEN_TREE_ATTR: i64 = 467;
const SYS_FILE_SETATTR: i64 = 469;

/// `_IOW('X', 32, struct fsxattr)`: sets inode flags and project ids.
const FS_IOC_FSSETXATTR: u64 = 0x401c_5820;

/// The namespace flags `clone` may not carry.
const NAMESPACE_FLAGS: &[libc::c_int] = &[
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWCGROUP,
    0x80, // CLONE_NEWTIME
];

/// Whether this kernel supports seccomp filters.
pub fn supported() -> bool {
    // SAFETY: PR_GET_SECCOMP reads the calling thread's mode; no memory.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) };
    rc >= 0
}

/// The filter for `c`.
pub fn program(c: &Confinement) -> Result<BpfProgram, SandboxError> {
    let err = |e: seccompiler::BackendError| SandboxError::Seccomp(e.to_string());
    // Per call: `None` refuses every call, `Some(rules)` those matching
    // one of the rules.
    let mut refused: BTreeMap<i64, Option<Vec<SeccompRule>>> = BTreeMap::new();
    let mut deny = |nr: i64, rule: Option<SeccompRule>| {
        let entry = refused.entry(nr).or_insert_with(|| Some(Vec::new()));
        match (entry.as_mut(), rule) {
            (Some(chain), Some(rule)) => chain.push(rule),
            (_, None) => *entry = None,
            (None, Some(_)) => {}
        }
    };
    let cond = |arg: u8, len: Len, op: Op, value: u64| {
        SeccompCondition::new(arg, len, op, value).map_err(err)
    };
    for nr in always_denied() {
        deny(nr, None);
    }
    for flag in NAMESPACE_FLAGS {
        let flag = *flag as u64;
        let rule = SeccompRule::new(vec![cond(0, Len::Qword, Op::MaskedEq(flag), flag)?]);
        deny(libc::SYS_clone, Some(rule.map_err(err)?));
    }
    let mut ioctls = vec![request(libc::TIOCSTI), request(libc::TIOCLINUX)];
    if !c.metadata {
        for nr in metadata_calls() {
            deny(nr, None);
        }
        ioctls.extend([
            request(libc::FS_IOC_SETFLAGS),
            request(libc::FS_IOC32_SETFLAGS),
            FS_IOC_FSSETXATTR,
        ]);
    }
    for request in ioctls {
        // The request is an `unsigned int` to the kernel: compare 32 bits,
        // so that high bits set by the caller cannot slip past.
        let rule = SeccompRule::new(vec![cond(1, Len::Dword, Op::Eq, request)?]);
        deny(libc::SYS_ioctl, Some(rule.map_err(err)?));
    }
    // Lowering another process's limits.
    let rule = SeccompRule::new(vec![cond(0, Len::Qword, Op::Ne, 0)?]);
    deny(libc::SYS_prlimit64, Some(rule.map_err(err)?));
    // Sockets: which families may be created.
    let unix = libc::AF_UNIX as u64;
    if !c.unix_sockets {
        let pairs = SeccompRule::new(vec![cond(0, Len::Dword, Op::Ne, unix)?]);
        deny(libc::SYS_socket, None);
        deny(libc::SYS_socketpair, Some(pairs.map_err(err)?));
    } else {
        let mut allowed = vec![unix];
        if matches!(c.network, Network::Proxy { .. }) {
            allowed.extend([libc::AF_INET as u64, libc::AF_INET6 as u64]);
        }
        let mut conds = Vec::new();
        for family in allowed {
            conds.push(cond(0, Len::Dword, Op::Ne, family)?);
        }
        deny(
            libc::SYS_socket,
            Some(SeccompRule::new(conds).map_err(err)?),
        );
    }
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e: seccompiler::BackendError| SandboxError::Seccomp(e.to_string()))?;
    // An empty chain matches every call.
    let rules: BTreeMap<i64, Vec<SeccompRule>> = refused
        .into_iter()
        .map(|(nr, chain)| (nr, chain.unwrap_or_default()))
        .collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(err)?;
    let body: BpfProgram = filter.try_into().map_err(err)?;
    let mut program = prologue();
    program.extend(body);
    Ok(program)
}

/// An ioctl request number as the filter compares it (its type differs
/// between C libraries).
#[allow(clippy::unnecessary_cast, trivial_numeric_casts)]
fn request(r: libc::Ioctl) -> u64 {
    r as u64
}

/// Checks made before the filter proper: the architecture (another ABI
/// ends the process), x32 calls on x86-64, and `clone3`.
fn prologue() -> BpfProgram {
    const LD_W_ABS: u16 = 0x20;
    const JMP_JEQ_K: u16 = 0x15;
    const JMP_JGE_K: u16 = 0x35;
    const RET_K: u16 = 0x06;
    const RET_KILL_PROCESS: u32 = 0x8000_0000;
    const RET_ERRNO: u32 = 0x0005_0000;
    let stmt = |code, k| sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    let jump = |code, k, jt, jf| sock_filter { code, jt, jf, k };
    #[cfg(target_arch = "x86_64")]
    const AUDIT_ARCH: u32 = 0xc000_003e;
    #[cfg(target_arch = "aarch64")]
    const AUDIT_ARCH: u32 = 0xc000_00b7;
    #[cfg(target_arch = "riscv64")]
    const AUDIT_ARCH: u32 = 0xc000_00f3;
    // x32 calls are numbered from this bit up (x86-64 only; elsewhere no
    // real call reaches it).
    const X32_BIT: u32 = 0x4000_0000;
    vec![
        stmt(LD_W_ABS, 4), // arch
        jump(JMP_JEQ_K, AUDIT_ARCH, 1, 0),
        stmt(RET_K, RET_KILL_PROCESS),
        stmt(LD_W_ABS, 0), // nr
        jump(JMP_JGE_K, X32_BIT, 0, 1),
        stmt(RET_K, RET_ERRNO | libc::EPERM as u32),
        jump(JMP_JEQ_K, libc::SYS_clone3 as u32, 0, 1),
        stmt(RET_K, RET_ERRNO | libc::ENOSYS as u32),
    ]
}

/// Calls no confined command may make.
fn always_denied() -> Vec<i64> {
    use libc::*;
    let mut calls = vec![
        SYS_io_uring_setup,
        SYS_io_uring_enter,
        SYS_io_uring_register,
        SYS_ptrace,
        SYS_process_vm_readv,
        SYS_process_vm_writev,
        SYS_process_madvise,
        SYS_pidfd_getfd,
        // Leaving the session: the command's processes stay in the session
        // its start made, which catui ends as a whole (a daemon started
        // with `setsid` would outlive it where no pid namespace holds it).
        SYS_setsid,
        SYS_mount,
        SYS_umount2,
        SYS_pivot_root,
        SYS_chroot,
        SYS_move_mount,
        SYS_open_tree,
        SYS_OPEN_TREE_ATTR,
        SYS_fsopen,
        SYS_fsconfig,
        SYS_fsmount,
        SYS_fspick,
        SYS_mount_setattr,
        SYS_unshare,
        SYS_setns,
        SYS_bpf,
        SYS_perf_event_open,
        SYS_userfaultfd,
        SYS_keyctl,
        SYS_add_key,
        SYS_request_key,
        SYS_open_by_handle_at,
        SYS_init_module,
        SYS_finit_module,
        SYS_delete_module,
        SYS_kexec_load,
        SYS_kexec_file_load,
        SYS_reboot,
        SYS_swapon,
        SYS_swapoff,
        SYS_acct,
        SYS_settimeofday,
        SYS_clock_settime,
        SYS_clock_adjtime,
        SYS_adjtimex,
        SYS_sethostname,
        SYS_setdomainname,
        SYS_quotactl,
        SYS_quotactl_fd,
        SYS_syslog,
        SYS_vhangup,
        SYS_fanotify_init,
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([SYS_iopl, SYS_ioperm]);
    calls
}

/// Calls that change modes, owners, times or extended attributes.
fn metadata_calls() -> Vec<i64> {
    use libc::*;
    let mut calls = vec![
        SYS_fchmod,
        SYS_fchmodat,
        SYS_fchmodat2,
        SYS_fchown,
        SYS_fchownat,
        SYS_utimensat,
        SYS_setxattr,
        SYS_lsetxattr,
        SYS_fsetxattr,
        SYS_removexattr,
        SYS_lremovexattr,
        SYS_fremovexattr,
        SYS_SETXATTRAT,
        SYS_REMOVEXATTRAT,
        SYS_FILE_SETATTR,
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        SYS_chmod,
        SYS_chown,
        SYS_lchown,
        SYS_utime,
        SYS_utimes,
        SYS_futimesat,
    ]);
    calls
}

/// Installs `program` on the calling thread. Async-signal-safe: one
/// system call on memory the caller owns. `PR_SET_NO_NEW_PRIVS` must be
/// set first.
pub fn install(program: &[sock_filter]) -> std::io::Result<()> {
    let prog = libc::sock_fprog {
        len: u16::try_from(program.len())
            .map_err(|_| std::io::Error::from_raw_os_error(libc::E2BIG))?,
        // seccompiler's `sock_filter` has the kernel's layout.
        filter: program.as_ptr().cast::<libc::sock_filter>().cast_mut(),
    };
    // SAFETY: the kernel copies the program; `prog` and `program` outlive
    // the call.
    #[allow(unsafe_code)]
    let rc = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &prog as *const libc::sock_fprog,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Drops every capability: the bounding set (so that `exec` cannot give
/// them back, also to root), the ambient set, then the effective,
/// permitted and inheritable sets. Async-signal-safe.
pub fn drop_capabilities() -> std::io::Result<()> {
    const PR_CAPBSET_DROP: libc::c_int = 24;
    const PR_CAP_AMBIENT: libc::c_int = 47;
    const PR_CAP_AMBIENT_CLEAR_ALL: libc::c_ulong = 4;
    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    // SAFETY: prctl and capset with plain integers and stack memory.
    #[allow(unsafe_code)]
    unsafe {
        for cap in 0..64 {
            // Fails without CAP_SETPCAP (then there is nothing to drop)
            // and past the last capability: both are fine.
            libc::prctl(PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0);
        }
        libc::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
        let header = Header {
            version: LINUX_CAPABILITY_VERSION_3,
            pid: 0,
        };
        let data = [Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(libc::SYS_capset, &header as *const Header, data.as_ptr()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "seccomp_tests.rs"]
mod tests;
