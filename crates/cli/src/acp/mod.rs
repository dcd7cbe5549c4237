//! `catui acp`: an Agent Client Protocol agent over stdio, for editors
//! (Zed, JetBrains, Neovim, Emacs; docs/EDITORS.md). A thin front end: each
//! ACP session is a catui session built by core's `SessionBuilder`, whose
//! approver asks through `session/request_permission` and whose events are
//! streamed as `session/update` notifications.

mod approver;
mod files;
mod mapping;
mod session;
mod teammate_plan;
mod updates;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, Implementation, InitializeRequest, InitializeResponse,
    LoadSessionRequest, LoadSessionResponse, McpCapabilities, NewSessionRequest,
    NewSessionResponse, PromptCapabilities, PromptRequest, PromptResponse, SetSessionModeRequest,
    SetSessionModeResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Error, ErrorCode, Stdio};
use catui_core::builder::SessionConfig;
use catui_core::sync::lock;

use crate::args::Args;
use session::{AcpSession, Start};

/// The sessions this process serves.
struct Server {
    template: SessionConfig,
    sessions: Mutex<HashMap<String, Arc<AcpSession>>>,
    /// What the client can do with files, from `initialize`.
    fs: Mutex<files::FsCapabilities>,
}

impl Server {
    fn session(&self, id: &str) -> Result<Arc<AcpSession>, Error> {
        lock(&self.sessions).get(id).cloned().ok_or_else(|| {
            Error::new(
                ErrorCode::RESOURCE_NOT_FOUND,
                format!("no session {id} is open; start one with session/new or session/load"),
            )
        })
    }

    fn open(
        &self,
        cx: ConnectionTo<Client>,
        cwd: PathBuf,
        start: Start,
        mcp_servers: &[agent_client_protocol::v1::schema::McpServer],
    ) -> Result<Arc<AcpSession>, Error> {
        // The editor's servers start without asking: the user configured
        // them in the editor.
        let list: Vec<serde_json::Value> = mcp_servers
            .iter()
            .filter_map(|s| serde_json::to_value(s).ok())
            .collect();
        let (servers, errors) = catui_core::mcp::config::parse_list(
            &list,
            &catui_core::mcp::config::Source::Client,
            "session/new mcpServers",
        );
        for e in errors {
            eprintln!("catui: skipped an MCP server: {e}");
        }
        let fs = *lock(&self.fs);
        let session = AcpSession::open(cx, &self.template, cwd, start, servers, fs)?;
        lock(&self.sessions).insert(session.id.clone(), session.clone());
        Ok(session)
    }

    /// Closes a session of this process that is to be loaded again, so
    /// its transcript is free.
    async fn release(&self, id: &str) {
        let old = lock(&self.sessions).remove(id);
        if let Some(old) = old {
            old.close().await;
        }
    }
}

/// catui speaks protocol version 1, whatever the client asks for (a
/// client that cannot speak it closes the connection).
fn initialize_response(_request: &InitializeRequest) -> InitializeResponse {
    InitializeResponse::new(ProtocolVersion::V1)
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .mcp_capabilities(McpCapabilities::new().http(true))
                .prompt_capabilities(PromptCapabilities::new().image(true).embedded_context(true)),
        )
        .agent_info(
            Implementation::new("catui", env!("CARGO_PKG_VERSION")).title("catui".to_string()),
        )
}

/// Serves ACP on stdin/stdout until the client closes the connection.
pub async fn run(args: &Args) -> u8 {
    let template = match crate::session_config::process_dirs().and_then(|(cwd, config_dir)| {
        crate::session_config::config_from_args(args, cwd, config_dir)
    }) {
        // Someone is at the editor: checkpoints, for `/rewind`.
        Ok(t) => SessionConfig {
            checkpoints_default: true,
            ..t
        },
        Err(e) => {
            eprintln!("catui: {e}");
            return 2;
        }
    };
    let server = Arc::new(Server {
        template,
        sessions: Mutex::new(HashMap::new()),
        fs: Mutex::new(files::FsCapabilities::default()),
    });
    let s_init = server.clone();
    let (s_new, s_load, s_prompt, s_cancel, s_mode) = (
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
    );
    let served = Agent
        .v1()
        .name("catui")
        .on_receive_request(
            async move |request: InitializeRequest,
                        responder: Responder<InitializeResponse>,
                        _cx: ConnectionTo<Client>| {
                let fs = &request.client_capabilities.fs;
                *lock(&s_init.fs) = files::FsCapabilities {
                    read: fs.read_text_file,
                    write: fs.write_text_file,
                    terminal: request.client_capabilities.terminal,
                };
                responder.respond(initialize_response(&request))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest,
                        responder: Responder<NewSessionResponse>,
                        cx: ConnectionTo<Client>| {
                match s_new.open(cx, request.cwd, Start::New, &request.mcp_servers) {
                    Ok(session) => {
                        let answered = responder.respond(
                            NewSessionResponse::new(session.id.clone())
                                .modes(session.modes())
                                .meta(session.meta()),
                        );
                        session.announce();
                        answered
                    }
                    Err(e) => responder.respond_with_error(e),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest,
                        responder: Responder<LoadSessionResponse>,
                        cx: ConnectionTo<Client>| {
                let server = s_load.clone();
                // The history is replayed before the response, outside the
                // dispatch loop.
                tokio::spawn(async move {
                    let id = request.session_id.0.to_string();
                    server.release(&id).await;
                    match server.open(cx, request.cwd, Start::Load(id), &request.mcp_servers) {
                        Ok(session) => {
                            session.replay().await;
                            let _ = responder.respond(
                                LoadSessionResponse::new()
                                    .modes(session.modes())
                                    .meta(session.meta()),
                            );
                            session.announce();
                        }
                        Err(e) => {
                            let _ = responder.respond_with_error(e);
                        }
                    }
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest,
                        responder: Responder<PromptResponse>,
                        _cx: ConnectionTo<Client>| {
                let session = match s_prompt.session(&request.session_id.0) {
                    Ok(s) => s,
                    Err(e) => return responder.respond_with_error(e),
                };
                // The turn asks the client for permissions: it must not
                // hold the dispatch loop.
                tokio::spawn(async move {
                    let input = mapping::prompt_blocks(request.prompt);
                    let response = session.prompt(input).await;
                    let _ = responder.respond(response);
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest,
                        responder: Responder<SetSessionModeResponse>,
                        _cx: ConnectionTo<Client>| {
                let result = s_mode
                    .session(&request.session_id.0)
                    .and_then(|s| s.set_mode(&request.mode_id.0));
                match result {
                    Ok(()) => responder.respond(SetSessionModeResponse::new()),
                    Err(e) => responder.respond_with_error(e),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx: ConnectionTo<Client>| {
                if let Ok(session) = s_cancel.session(&notification.session_id.0) {
                    session.cancel();
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await;
    let sessions: Vec<Arc<AcpSession>> = lock(&server.sessions).drain().map(|(_, s)| s).collect();
    for session in sessions {
        session.close().await;
    }
    match served {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("catui: the ACP connection failed: {}", e.message);
            1
        }
    }
}
