//! The front end's side of a session: how the session reaches its user
//! (who answers permission prompts, who reviews teammates' plans, where
//! warnings go, the editor's files and terminals when it lives in one).

use std::sync::Arc;

use crate::engine::Approver;
use crate::teams::PlanReviewer;

/// Shows the user a warning while the session starts or runs outside a
/// turn (settings problems, an unwritable transcript).
pub type WarningSink = Arc<dyn Fn(&str) + Send + Sync>;

/// How the session reaches its user: the front end's side of the session.
#[derive(Clone)]
pub struct FrontEnd {
    /// Answers permission prompts. With one the session is interactive:
    /// plan mode can be entered by the model, teams are available and a
    /// planning run waits for approval instead of ending with the plan.
    pub approver: Option<Arc<dyn Approver>>,
    /// Reviews teammates' plans; without one the lead model is asked.
    pub plan_reviewer: Option<Arc<dyn PlanReviewer>>,
    pub warnings: WarningSink,
    /// The user's editor, when the front end lives in one (ACP with the
    /// client's `fs` capabilities): the file tools read and write through it.
    pub editor_files: Option<Arc<dyn crate::tools::editor_files::EditorFiles>>,
    /// The editor's terminals: commands the user allowed run there.
    pub editor_terminal: Option<Arc<dyn crate::tools::editor_files::EditorTerminal>>,
    /// Nobody is there to read or answer while the run lasts, even if a
    /// program answers permission prompts (`--unattended`): the model is
    /// told so and is not offered AskUserQuestion.
    pub unattended: bool,
}

impl FrontEnd {
    /// Someone answers prompts through `approver`.
    pub fn interactive(approver: Arc<dyn Approver>) -> Self {
        FrontEnd {
            approver: Some(approver),
            plan_reviewer: None,
            warnings: Arc::new(|_: &str| {}),
            editor_files: None,
            editor_terminal: None,
            unattended: false,
        }
    }

    /// Nobody answers prompts: calls that need approval are refused.
    pub fn unattended() -> Self {
        FrontEnd {
            approver: None,
            plan_reviewer: None,
            warnings: Arc::new(|_: &str| {}),
            editor_files: None,
            editor_terminal: None,
            unattended: true,
        }
    }

    /// Marks the session as one nobody attends (`--unattended`): a program
    /// may answer its prompts, but no person reads or answers questions.
    pub fn with_unattended(mut self, unattended: bool) -> Self {
        self.unattended |= unattended;
        self
    }

    /// Whether nobody is here to answer while the run lasts (no approver,
    /// or `--unattended`).
    pub fn nobody_here(&self) -> bool {
        self.unattended || self.approver.is_none()
    }

    pub fn with_editor_files(
        mut self,
        files: Arc<dyn crate::tools::editor_files::EditorFiles>,
    ) -> Self {
        self.editor_files = Some(files);
        self
    }

    pub fn with_editor_terminal(
        mut self,
        terminal: Arc<dyn crate::tools::editor_files::EditorTerminal>,
    ) -> Self {
        self.editor_terminal = Some(terminal);
        self
    }

    pub fn with_plan_reviewer(mut self, reviewer: Arc<dyn PlanReviewer>) -> Self {
        self.plan_reviewer = Some(reviewer);
        self
    }

    pub fn with_warnings(mut self, sink: WarningSink) -> Self {
        self.warnings = sink;
        self
    }

    pub(super) fn is_interactive(&self) -> bool {
        self.approver.is_some()
    }
}
