//! The forwarder inside the sandbox's network namespace: accepts TCP
//! connections on `127.0.0.1:`[`PROXY_PORT`] and carries each to the
//! proxy's unix socket (bound into the sandbox from outside). It is the
//! only thing in the namespace that leads out, and it leads only to the
//! proxy, which decides what may be reached.
//!
//! The inner stage forks it before restricting itself; it ends with the
//! sandbox (its parent's death, or the pid namespace's end).

use std::io;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use crate::PROXY_PORT;

/// Binds the port and forks the forwarder. The caller goes on to become
/// the command; the forwarder never returns.
pub(crate) fn start(socket: &Path) -> io::Result<()> {
    let listener = TcpListener::bind(("127.0.0.1", PROXY_PORT))?;
    // SAFETY: the stage is single-threaded here, so the child may go on
    // running ordinary code after fork.
    #[allow(unsafe_code)]
    match unsafe { libc::fork() } {
        -1 => Err(io::Error::last_os_error()),
        0 => {
            detach(listener.as_raw_fd());
            serve(&listener, socket.to_path_buf());
            // SAFETY: ends the forwarder without running the parent's
            // exit handlers.
            #[allow(unsafe_code)]
            unsafe {
                libc::_exit(0)
            }
        }
        _ => Ok(()),
    }
}

/// Lets go of everything but the listener: the command's output pipes
/// (so the command's end is seen when it ends) and any other inherited fd.
fn detach(keep: i32) {
    // SAFETY: plain system calls on integers.
    #[allow(unsafe_code)]
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        for fd in 0..3 {
            libc::dup2(null, fd);
        }
        for fd in 3..1024 {
            if fd != keep {
                libc::close(fd);
            }
        }
    }
}

fn serve(listener: &TcpListener, socket: PathBuf) {
    for conn in listener.incoming() {
        let Ok(client) = conn else { continue };
        let socket = socket.clone();
        std::thread::spawn(move || {
            if let Ok(upstream) = UnixStream::connect(&socket) {
                pipe(client, upstream);
            }
        });
    }
}

/// Copies both ways until either side closes.
fn pipe(client: TcpStream, upstream: UnixStream) {
    let (Ok(mut client_r), Ok(mut upstream_w)) = (client.try_clone(), upstream.try_clone()) else {
        return;
    };
    let up = std::thread::spawn(move || {
        let _ = io::copy(&mut client_r, &mut upstream_w);
        let _ = upstream_w.shutdown(Shutdown::Write);
    });
    let (mut upstream_r, mut client_w) = (upstream, client);
    let _ = io::copy(&mut upstream_r, &mut client_w);
    let _ = client_w.shutdown(Shutdown::Write);
    let _ = up.join();
}
