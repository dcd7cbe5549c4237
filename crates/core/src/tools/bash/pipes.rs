//! Reading a running command's pipes: its output (kept for the answer,
//! spilled to a file when long, fed to the live tail, and handed over when
//! the user sends the command to the background) and the final working
//! directory its `EXIT` trap reports.

use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio_util::sync::CancellationToken;

use super::OutputBuffer;

/// After the shell exits, how long to wait for the output pipe to close
/// (background jobs may hold it open) before returning what was read.
pub(super) const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(200);
/// After killing the process group, how long to wait for the pipe to close.
pub(super) const DRAIN_AFTER_KILL: Duration = Duration::from_millis(500);

/// The read end of a pipe whose write end is already closed.
pub(super) fn closed_pipe() -> std::io::Result<pipe::Receiver> {
    let (reader, writer) = std::io::pipe()?;
    drop(writer);
    pipe::Receiver::from_owned_fd(OwnedFd::from(reader))
}

/// Reads the output pipe until end-of-file or `stop`; on `hand_over` it
/// stops reading and returns the pipe too (the command went to the
/// background, whose reader takes over).
pub(super) async fn collect(
    mut rx: pipe::Receiver,
    stop: CancellationToken,
    hand_over: CancellationToken,
    spill: Option<PathBuf>,
    live: Option<crate::tools::live::LiveOutput>,
) -> (OutputBuffer, Option<pipe::Receiver>) {
    let push = |buffer: &mut OutputBuffer, bytes: &[u8]| {
        buffer.push(bytes);
        if let Some(live) = &live {
            live.push(bytes);
        }
    };
    let mut buffer = spill.map_or_else(OutputBuffer::new, OutputBuffer::spilling_to);
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        tokio::select! {
            biased;
            _ = stop.cancelled() => {
                // Take what is already in the pipe, within reason.
                for _ in 0..64 {
                    match rx.try_read(&mut chunk) {
                        Ok(n) if n > 0 => push(&mut buffer, &chunk[..n]),
                        _ => break,
                    }
                }
                break;
            }
            _ = hand_over.cancelled() => return (buffer, Some(rx)),
            read = rx.read(&mut chunk) => match read {
                Ok(0) => break,
                Ok(n) => push(&mut buffer, &chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            },
        }
    }
    (buffer, None)
}

/// The directory the `EXIT` trap reported, if it ran. The trap has run
/// (or never will) once the shell exited, so a short wait suffices even if
/// a background job keeps the pipe open.
pub(super) async fn read_cwd(reader: std::io::PipeReader) -> Option<PathBuf> {
    let mut rx = pipe::Receiver::from_owned_fd(OwnedFd::from(reader)).ok()?;
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    while !bytes.ends_with(b"\n") {
        match tokio::time::timeout(Duration::from_millis(100), rx.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => bytes.extend_from_slice(&chunk[..n]),
            _ => break,
        }
    }
    let text = String::from_utf8(bytes).ok()?;
    let line = text.lines().last()?.trim_end();
    let path = PathBuf::from(line);
    (path.is_absolute() && path.is_dir()).then_some(path)
}
