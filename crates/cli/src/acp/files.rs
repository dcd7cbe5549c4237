//! The editor's files through the client's `fs` capabilities:
//! `fs/read_text_file` (open buffers, unsaved changes included) and
//! `fs/write_text_file` (the editor applies and tracks the change); and its
//! terminals (`terminal/*`) for the commands the user allowed.

use std::path::Path;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, KillTerminalRequest, ReadTextFileRequest, ReleaseTerminalRequest,
    SessionId, TerminalOutputRequest, WaitForTerminalExitRequest, WriteTextFileRequest,
};
use async_trait::async_trait;
use catui_core::tools::editor_files::{EditorFiles, EditorTerminal, TerminalRun};

/// What the client said it can do with files (`initialize`).
#[derive(Debug, Clone, Copy, Default)]
pub struct FsCapabilities {
    pub read: bool,
    pub write: bool,
    pub terminal: bool,
}

impl FsCapabilities {
    pub fn any(self) -> bool {
        self.read || self.write
    }
}

pub struct AcpFiles {
    pub cx: ConnectionTo<Client>,
    pub session_id: SessionId,
    pub can: FsCapabilities,
}

#[async_trait]
impl EditorFiles for AcpFiles {
    async fn read(&self, path: &Path) -> Option<String> {
        if !self.can.read {
            return None;
        }
        let request = ReadTextFileRequest::new(self.session_id.clone(), path.to_path_buf());
        // A client that fails to read leaves it to the disk.
        self.cx
            .send_request(request)
            .block_task()
            .await
            .ok()
            .map(|r| r.content)
    }

    async fn write(&self, path: &Path, content: &str) -> Option<Result<(), String>> {
        if !self.can.write {
            return None;
        }
        let request = WriteTextFileRequest::new(
            self.session_id.clone(),
            path.to_path_buf(),
            content.to_string(),
        );
        Some(
            self.cx
                .send_request(request)
                .block_task()
                .await
                .map(|_| ())
                .map_err(|e| e.message),
        )
    }
}

/// Commands in the editor's terminals (`terminal/*`).
pub struct AcpTerminal {
    pub cx: ConnectionTo<Client>,
    pub session_id: SessionId,
}

/// Output kept from one command (the editor keeps the rest on screen).
const OUTPUT_LIMIT: u64 = 256 * 1024;

#[async_trait]
impl EditorTerminal for AcpTerminal {
    async fn run(
        &self,
        command: &str,
        cwd: &Path,
        timeout: std::time::Duration,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<TerminalRun, String> {
        let request = CreateTerminalRequest::new(self.session_id.clone(), "bash")
            .args(vec!["-c".to_string(), command.to_string()])
            .cwd(cwd.to_path_buf())
            .output_byte_limit(OUTPUT_LIMIT);
        let created = self
            .cx
            .send_request(request)
            .block_task()
            .await
            .map_err(|e| e.message)?;
        let id = created.terminal_id;
        let wait = WaitForTerminalExitRequest::new(self.session_id.clone(), id.clone());
        let (timed_out, cancelled) = tokio::select! {
            _ = self.cx.send_request(wait).block_task() => (false, false),
            _ = tokio::time::sleep(timeout) => (true, false),
            _ = cancel.cancelled() => (false, true),
        };
        if timed_out || cancelled {
            let kill = KillTerminalRequest::new(self.session_id.clone(), id.clone());
            let _ = self.cx.send_request(kill).block_task().await;
        }
        let output = TerminalOutputRequest::new(self.session_id.clone(), id.clone());
        let output = self
            .cx
            .send_request(output)
            .block_task()
            .await
            .map_err(|e| e.message);
        let release = ReleaseTerminalRequest::new(self.session_id.clone(), id);
        let _ = self.cx.send_request(release).block_task().await;
        let output = output?;
        let status = output.exit_status.unwrap_or_default();
        let mut text = output.output;
        if output.truncated {
            text = format!("[the beginning of the output was cut]\n{text}");
        }
        Ok(TerminalRun {
            output: text,
            exit_code: status.exit_code,
            signal: status.signal,
            timed_out,
            cancelled,
        })
    }
}
