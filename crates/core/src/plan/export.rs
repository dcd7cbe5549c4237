//! `/plan export` and `catui plans export`: the interface between plan mode
//! and the export, and what can go wrong with it. The export itself reads
//! the project's transcripts (`session::plan_history::export`, a layer
//! above); a session reaches it through the [`PlanExporter`] the builder
//! hands to its [`PlanSession`](crate::plan::state::plan_session::PlanSession).

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Writes a plan's approved revision: `(slug, target directory)` -> the
/// file written, or why not.
#[derive(Clone)]
#[allow(clippy::type_complexity)]
pub struct PlanExporter(
    pub Arc<dyn Fn(&str, Option<&Path>) -> Result<PathBuf, ExportError> + Send + Sync>,
);

impl std::fmt::Debug for PlanExporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlanExporter")
    }
}

/// Why a plan was not exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(
        "plan '{0}' was never approved in this project's sessions (see `catui plans show {0}`); only an approved plan is exported"
    )]
    NeverApproved(String),
    #[error("could not write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Why `/plan export` wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum PlanExportError {
    /// The session was built without an exporter (nothing to read the
    /// approved revision from).
    #[error("plan export is not available in this session")]
    Unavailable,
    /// The export ran and failed.
    #[error(transparent)]
    Export(#[from] ExportError),
}
