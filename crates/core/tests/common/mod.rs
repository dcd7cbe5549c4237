//! The one way core's integration tests start a session: the production
//! [`SessionBuilder`] over a temporary project and catui home, talking real
//! HTTP + SSE to a testkit mock model. Each test states only what differs
//! (its tools, who answers prompts, settings).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use catui_core::builder::{FrontEnd, LateSetup, Session, SessionBuilder, SessionConfig};
use catui_core::engine::{Approver, Engine, EngineEvent, MemoryRecorder, Record};
use catui_core::teams::TeamManager;
use catui_core::tools::ToolRegistry;
use catui_protocol::PermissionMode;
use catui_testkit::MockServer;
use tokio::sync::mpsc::UnboundedReceiver;

/// A session to be started against `server`.
pub struct TestSession {
    config: SessionConfig,
    tools: Option<ToolRegistry>,
    approver: Option<Arc<dyn Approver>>,
    settings: Option<String>,
    no_classifier: bool,
    project: tempfile::TempDir,
    home: tempfile::TempDir,
}

/// A started test session and what the test inspects.
pub struct Started {
    pub engine: Engine,
    pub events: UnboundedReceiver<EngineEvent>,
    pub team: Option<Arc<TeamManager>>,
    /// The main conversation's plan mode.
    pub plan: Arc<catui_core::plan::PlanSession>,
    /// What a client may still set (as the SDKs' `initialize`).
    pub late: LateSetup,
    /// The main conversation's records (instead of a transcript file).
    pub recorder: Arc<MemoryRecorder>,
    /// The project directory (canonical).
    pub root: PathBuf,
    pub project: tempfile::TempDir,
    pub home: tempfile::TempDir,
}

impl TestSession {
    /// Model `m` (small model `small`) on `server`, retries without delay.
    pub fn new(server: &MockServer) -> Self {
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(project.path()).unwrap();
        let vars = HashMap::from([
            ("ANTHROPIC_API_KEY".to_string(), "k".to_string()),
            ("ANTHROPIC_BASE_URL".to_string(), server.url()),
            ("CATUI_RETRY_BASE_MS".to_string(), "1".to_string()),
            // Scripts end with the model's first answer; the gate's own
            // tests turn it back on.
            ("CATUI_COMPLETION_CHECK".to_string(), "off".to_string()),
        ]);
        let config = SessionConfig {
            vars: Some(vars),
            model: Some("m".into()),
            small_model: Some("small".into()),
            ..SessionConfig::new(root, home.path().to_path_buf())
        };
        TestSession {
            config,
            tools: None,
            approver: None,
            settings: None,
            no_classifier: false,
            project,
            home,
        }
    }

    /// Exactly these tools.
    pub fn tools(mut self, tools: ToolRegistry) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Someone answers prompts (the session is interactive).
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// The user's `settings.json`.
    pub fn settings(mut self, json: &str) -> Self {
        self.settings = Some(json.to_string());
        self
    }

    pub fn mode(mut self, mode: PermissionMode) -> Self {
        self.config.permission_mode = Some(mode);
        self
    }

    pub fn model(mut self, model: &str) -> Self {
        self.config.model = Some(model.into());
        self
    }

    /// A command-line allow rule (`--allowedTools`).
    pub fn allow(mut self, rule: &str) -> Self {
        self.config.allowed_tools.push(rule.into());
        self
    }

    /// No auto-mode classifier even when auto mode is enabled.
    pub fn without_auto_classifier(mut self) -> Self {
        self.no_classifier = true;
        self
    }

    pub fn max_turns(mut self, n: u32) -> Self {
        self.config.max_turns = Some(n);
        self
    }

    /// One of the user's own agent definitions (`agents/NAME.md` in the
    /// catui home).
    pub fn user_agent(self, name: &str, definition: &str) -> Self {
        let dir = self.home.path().join("agents");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.md")), definition).unwrap();
        self
    }

    /// Anything else the command line could ask for.
    pub fn configure(mut self, change: impl FnOnce(&mut SessionConfig)) -> Self {
        change(&mut self.config);
        self
    }

    pub fn start(self) -> Started {
        if let Some(json) = &self.settings {
            std::fs::write(self.home.path().join("settings.json"), json).unwrap();
        }
        let root = self.config.cwd.clone();
        let recorder = Arc::new(MemoryRecorder::default());
        let front_end = match self.approver {
            Some(a) => FrontEnd::interactive(a),
            None => FrontEnd::unattended(),
        };
        let mut builder = SessionBuilder::new(self.config)
            .front_end(front_end)
            .with_recorder(recorder.clone());
        if let Some(tools) = self.tools {
            builder = builder.with_tools(tools);
        }
        if self.no_classifier {
            builder = builder.with_auto_classifier(None);
        }
        let Session {
            engine,
            events,
            team,
            plan,
            late,
            ..
        } = builder.build().unwrap();
        Started {
            engine,
            events,
            team,
            plan,
            late,
            recorder,
            root,
            project: self.project,
            home: self.home,
        }
    }
}

/// The conversation's records without the starting mode the builder
/// records first.
pub fn conversation_records(recorder: &MemoryRecorder) -> Vec<Record> {
    recorder
        .records()
        .into_iter()
        // Reminders (the machine's facts, git status) come and go with
        // what the background probes found in time; they are not turns.
        .filter(|r| !matches!(r, Record::PermissionMode { .. } | Record::Attachment { .. }))
        .collect()
}
