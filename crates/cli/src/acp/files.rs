//! The editor's files through the client's `fs` capabilities:
//! `fs/read_text_file` (open buffers, unsaved changes included) and
//! `fs/write_text_file` (the editor applies and tracks the change).

use std::path::Path;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{ReadTextFileRequest, SessionId, WriteTextFileRequest};
use async_trait::async_trait;
use catui_core::tools::editor_files::EditorFiles;

/// What the client said it can do with files (`initialize`).
#[derive(Debug, Clone, Copy, Default)]
pub struct FsCapabilities {
    pub read: bool,
    pub write: bool,
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
