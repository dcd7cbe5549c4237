//! What the model is told about its surroundings in the system prompt: the
//! working directory, whether it is a git repository and on which branch,
//! the platform, the date and the model. Everything here is cheap and
//! stable for the whole session; the slower git snapshot (changes, recent
//! commits) is collected in the background by [`super::git`].

use std::fmt::Write as _;
use std::path::Path;

/// The `# Environment` section. `branch` is `Some` inside a git work tree.
pub(crate) fn render_environment(
    out: &mut String,
    cwd: &Path,
    branch: Option<&str>,
    platform: &str,
    date: &str,
    model: &str,
) {
    let _ = writeln!(out, "# Environment\n<env>");
    let _ = writeln!(out, "Working directory: {}", cwd.display());
    let _ = writeln!(
        out,
        "Is a git repository: {}",
        if branch.is_some() { "yes" } else { "no" }
    );
    if let Some(branch) = branch {
        let _ = writeln!(out, "Current git branch: {branch}");
    }
    let _ = writeln!(out, "Platform: {platform}");
    let _ = writeln!(out, "Today's date: {date}");
    let _ = writeln!(out, "Shell: bash");
    let _ = writeln!(out, "Model: {model}");
    let _ = writeln!(out, "</env>");
    let _ = writeln!(
        out,
        "The working directory above is the project root: file tools resolve relative paths \
         from it, and a `cd` in Bash does not change that."
    );
}
