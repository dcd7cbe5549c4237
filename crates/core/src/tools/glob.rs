//! Glob: finds files by name pattern with a parallel, gitignore-aware walk,
//! newest first.

use catui_protocol::tool_names;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::WalkBuilder;
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

pub use super::glob_select::{GlobResult, MAX_RESULTS, MAX_TIME_SORTED};
use super::glob_select::{ThreadMatches, select};
use super::walk::{fold_parallel, is_file_like};
use super::{ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::Access;
use crate::permissions::secret_search::SecretWalk;

pub struct GlobTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobInput {
    /// The glob to match file paths against, e.g. "**/*.rs", "src/**/*.{ts,tsx}" or "*.md".
    pub pattern: String,
    /// The directory to search in (default: the project root).
    #[serde(default)]
    pub path: Option<String>,
}

#[async_trait]
impl TypedTool for GlobTool {
    type Input = GlobInput;
    fn name(&self) -> &'static str {
        tool_names::GLOB
    }
    fn description(&self) -> String {
        "Finds files whose paths match a glob pattern, fast on any size of project.\n\
         \n\
         - Patterns: `*` matches within one path component, `**` across directories, `?` one \
           character, `{a,b}` alternatives, `[abc]` character classes. A pattern with a `/` is \
           matched against the path relative to the search directory (\"src/**/*.ts\"); a pattern \
           without one is matched against file names at any depth (\"*.rs\" finds every Rust file).\n\
         - Searches the project root unless `path` names another directory.\n\
         - Files ignored by .gitignore and hidden files are skipped (hidden ones are included \
           when the pattern itself names a dot-file or dot-directory).\n\
         - Results are absolute paths, most recently modified first, at most 100 (when more \
           than 10,000 files match, the first 100 by path).\n\
         - To search file contents, use Grep. For open-ended searches that take several rounds, \
           consider the Agent tool."
            .into()
    }
    fn is_read_only(&self, _: &GlobInput) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _: &GlobInput) -> bool {
        true
    }
    async fn validate_input(&self, input: &GlobInput, _: &ToolContext) -> Result<(), ToolError> {
        if input.pattern.trim().is_empty() {
            return Err(ToolError::invalid(
                "pattern is empty: give a glob such as \"**/*.rs\".",
            ));
        }
        Ok(())
    }
    fn access(&self, input: &GlobInput, ctx: &ToolContext) -> Access {
        let (root, _) = split_root(&search_dir(input, ctx), &input.pattern);
        Access::Read { paths: vec![root] }
    }
    fn summary(&self, input: &GlobInput) -> String {
        match &input.path {
            Some(p) => format!("Glob({} in {p})", input.pattern),
            None => format!("Glob({})", input.pattern),
        }
    }
    async fn call(&self, input: GlobInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let dir = search_dir(&input, ctx);
        ctx.with_dry_run_note(&dir, glob(input, ctx).await)
    }
}

/// Finds the paths `input` asks for and renders them.
async fn glob(input: GlobInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let dir = search_dir(&input, ctx);
    let (root, _) = split_root(&dir, &input.pattern);
    let secrets = ctx.secret_walk(tool_names::GLOB, &root);
    let cancel = ctx.cancel.clone();
    let walk = secrets.clone();
    let result = tokio::task::spawn_blocking(move || {
        find_files_sorting_up_to(&dir, &input.pattern, &cancel, MAX_TIME_SORTED, walk)
    })
    .await
    .map_err(|e| ToolError::failed(format!("the search task failed: {e}")))??;
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    let mut text = result.render();
    if let Some(note) = secrets.as_ref().and_then(|s| s.note()) {
        text.push('\n');
        text.push_str(&note);
    }
    Ok(ToolOutput::text(text))
}

fn search_dir(input: &GlobInput, ctx: &ToolContext) -> PathBuf {
    match &input.path {
        Some(p) if !p.trim().is_empty() => ctx.resolve(p),
        _ => ctx.project_root.clone(),
    }
}

/// Finds the files under `dir` matching `pattern`: newest first, or by path
/// when more than [`MAX_TIME_SORTED`] match.
pub fn find_files(
    dir: &Path,
    pattern: &str,
    cancel: &CancellationToken,
) -> Result<GlobResult, ToolError> {
    find_files_sorting_up_to(dir, pattern, cancel, MAX_TIME_SORTED, None)
}

/// [`find_files`] with another limit for ordering by time, leaving out
/// what `secrets` says the walk may not enter.
pub(crate) fn find_files_sorting_up_to(
    dir: &Path,
    pattern: &str,
    cancel: &CancellationToken,
    time_limit: usize,
    secrets: Option<Arc<SecretWalk>>,
) -> Result<GlobResult, ToolError> {
    let (root, pattern) = split_root(dir, pattern);
    if !root.is_dir() {
        let what = if root.exists() {
            "is not a directory"
        } else {
            "does not exist"
        };
        return Err(ToolError::failed(format!(
            "The search directory {} {what}. Give an existing directory as path, or leave it out \
             to search the project root.",
            root.display()
        )));
    }
    let matcher = PathMatcher::new(&pattern, &root)?;
    let mut walk = WalkBuilder::new(&root);
    let hidden = matcher.wants_hidden;
    if hidden {
        walk.hidden(false);
    }
    if hidden || secrets.is_some() {
        walk.filter_entry(move |e| {
            (!hidden || e.file_name() != ".git")
                && secrets.as_ref().is_none_or(|s| s.keeps(e.path()))
        });
    }
    let threads = fold_parallel(
        walk.build_parallel(),
        cancel,
        ThreadMatches::default,
        |found, entry| {
            if matcher.is_match(entry.path()) && is_file_like(&entry) {
                found.push(entry.into_path(), time_limit);
            }
        },
    );
    Ok(select(threads, time_limit, cancel))
}

/// Matches a pattern against paths relative to the search root; patterns
/// without `/` match the file name at any depth.
struct PathMatcher {
    /// A one-glob set rather than a `GlobMatcher`: the set picks a cheap
    /// strategy (extension or literal lookups) before falling back to a regex.
    glob: GlobSet,
    by_name: bool,
    wants_hidden: bool,
    root: PathBuf,
}

impl PathMatcher {
    fn new(pattern: &str, root: &Path) -> Result<PathMatcher, ToolError> {
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        let by_name = !pattern.contains('/');
        let invalid = |e: globset::Error| {
            ToolError::invalid(format!(
                "Invalid glob pattern {pattern:?}: {e}. Use *, **, ?, [..] and {{a,b}}."
            ))
        };
        // File names hold no `/`, so for name patterns the separator rule is
        // moot; leaving it off lets `*.rs` use the fast extension strategy.
        let glob = GlobBuilder::new(pattern)
            .literal_separator(!by_name)
            .build()
            .map_err(invalid)?;
        let glob = GlobSetBuilder::new().add(glob).build().map_err(invalid)?;
        let wants_hidden = pattern
            .split('/')
            .any(|part| part.starts_with('.') && part != "." && part != "..");
        Ok(PathMatcher {
            glob,
            by_name,
            wants_hidden,
            root: root.to_path_buf(),
        })
    }

    /// Whether `path` (found under the root) matches.
    fn is_match(&self, path: &Path) -> bool {
        if self.by_name {
            // No need to relativise: only the name counts.
            return path.file_name().is_some_and(|n| self.glob.is_match(n));
        }
        // The walk yields the root joined with the rest, so the relative
        // part is a byte suffix; `strip_prefix` would compare component by
        // component, which shows in a walk of a million files.
        let bytes = path.as_os_str().as_encoded_bytes();
        let root = self.root.as_os_str().as_encoded_bytes();
        if let Some(rest) = bytes.strip_prefix(root)
            && let Ok(rest) = std::str::from_utf8(rest)
        {
            return self.glob.is_match(rest.trim_start_matches('/'));
        }
        path.strip_prefix(&self.root)
            .is_ok_and(|rel| self.glob.is_match(rel))
    }
}

/// An absolute pattern like `/repo/src/**/*.rs` is split into the literal
/// directory prefix (the search root) and the rest. Relative patterns keep
/// `dir` as the root.
fn split_root(dir: &Path, pattern: &str) -> (PathBuf, String) {
    let p = Path::new(pattern);
    if !p.is_absolute() {
        return (dir.to_path_buf(), pattern.to_string());
    }
    let mut root = PathBuf::new();
    let mut rest: Vec<String> = Vec::new();
    for comp in p.components() {
        let s = comp.as_os_str().to_string_lossy();
        let is_glob = s.contains(['*', '?', '[', '{']);
        if rest.is_empty() && !is_glob {
            root.push(comp.as_os_str());
        } else {
            rest.push(s.into_owned());
        }
    }
    // The last literal component is usually a file name, not a directory.
    if let (true, Some(parent), Some(name)) = (rest.is_empty(), root.parent(), root.file_name()) {
        return (parent.to_path_buf(), name.to_string_lossy().into_owned());
    }
    (root, rest.join("/"))
}

#[cfg(test)]
#[path = "glob_tests.rs"]
mod tests;
