//! Bash's side of a dry run: which calls run in the throwaway copy, the
//! watch on the scratch area's size while one runs, and the result that
//! tells the model it was a dry run and what the command changed in the
//! copy (the session's area itself is `permissions::dry_run`).

use std::path::PathBuf;
use std::time::Duration;

use catui_protocol::PermissionMode;
use catui_sandbox::overlay::{Changes, Layer, Snapshot};

use super::super::{ToolContext, ToolError, ToolOutput};
use crate::permissions::Grant;
use crate::permissions::dry_run::{DRY_RUN_HEADER, DryRunRecord, ONE_OFF_HEADER, describe_changes};
use crate::permissions::sandbox::SandboxPolicy;

/// How often the scratch area's size is looked at while a dry run runs.
const WATCH_EVERY: Duration = Duration::from_millis(250);

/// The dry-run policy of this call, if it runs dry: plan mode let it run
/// as one, or — once a dry run made the scratch area — any confined
/// command of the planning session, so that it sees what earlier dry runs
/// built; or, outside plan mode, the user answered its prompt with "run as
/// a dry run" (a fresh copy of its own, [`one_off`]).
pub(super) fn policy(ctx: &ToolContext) -> Option<SandboxPolicy> {
    let scratch = match ctx.grant {
        Grant::DryRun if one_off(ctx) => one_off_scratch(ctx),
        Grant::DryRun => ctx.dry_run.scratch(),
        Grant::ReadOnly
            if ctx.dry_run.exists() && ctx.permission_mode() == PermissionMode::Plan =>
        {
            ctx.dry_run.scratch()
        }
        _ => return None,
    };
    Some(SandboxPolicy::DryRun {
        dirs: ctx.working_dirs(),
        scratch,
        max_processes: ctx.dry_run.max_processes(),
    })
}

/// Whether this call is a one-off dry run: the user chose it at the prompt
/// outside plan mode, so it gets a fresh copy that goes when it ends (the
/// planning session's copy, and its evidence, are plan mode's alone).
pub(super) fn one_off(ctx: &ToolContext) -> bool {
    ctx.grant == Grant::DryRun && ctx.permission_mode() != PermissionMode::Plan
}

/// The scratch directory of this call's one-off dry run.
fn one_off_scratch(ctx: &ToolContext) -> PathBuf {
    ctx.dry_run
        .one_off(ctx.tool_use_id.as_deref().unwrap_or("call"))
}

/// Removes a one-off dry run's scratch area when the call ends, however
/// it ends (error and interrupt included).
pub(super) struct OneOff(Option<PathBuf>);

impl OneOff {
    /// For this call: a guard that removes its one-off scratch area, or
    /// one that does nothing when the call is not a one-off dry run.
    pub(super) fn guard(ctx: &ToolContext) -> OneOff {
        OneOff(one_off(ctx).then(|| one_off_scratch(ctx)))
    }
}

impl Drop for OneOff {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take()
            && let Err(e) = catui_sandbox::overlay::remove(&dir)
        {
            tracing::warn!("could not remove a dry run's scratch area: {e}");
        }
    }
}

/// A dry run about to start: the overlays' layers and what they held.
pub(super) struct Before {
    layers: Vec<Layer>,
    snapshot: Snapshot,
    /// The size limit of the scratch area, in bytes.
    pub(super) max_bytes: u64,
    /// The most processes at once.
    pub(super) max_processes: u64,
}

impl Before {
    /// Looks at the scratch area before the command of `policy` runs.
    pub(super) fn take(ctx: &ToolContext, policy: &SandboxPolicy) -> Result<Before, ToolError> {
        let secrets = ctx.secret_stores();
        let layers = ctx
            .confiner
            .confinement(policy, &secrets)
            .map_err(|e| ToolError::failed(format!("Could not prepare the dry run: {e}")))?
            .map(|c| c.overlays())
            .unwrap_or_default();
        let snapshot = Snapshot::take(&layers);
        Ok(Before {
            layers,
            snapshot,
            max_bytes: ctx.dry_run.max_bytes(),
            max_processes: ctx.dry_run.max_processes(),
        })
    }

    /// What the watch needs while the command runs.
    pub(super) fn watch(&self) -> Watch {
        Watch {
            layers: self.layers.clone(),
            max_bytes: self.max_bytes,
            max_processes: self.max_processes,
        }
    }
}

/// The limits a running dry run is watched for.
pub(super) struct Watch {
    layers: Vec<Layer>,
    max_bytes: u64,
    max_processes: u64,
}

/// Which limit a dry run reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Limit {
    /// Its scratch area grew past `dryRun.maxScratchMiB`.
    Scratch,
    /// It sat at `dryRun.maxProcesses` (the kernel refuses it more).
    Processes,
}

/// Returns once the upper layers of the watched layers hold more than
/// their limit, or the command (started as process `pid`) has all but
/// reached its process limit (never otherwise): the caller stops the
/// command then. The kernel already holds it at the limit; this turns a
/// fork bomb spinning there into a stop with a message.
pub(super) async fn watch(w: Watch, pid: Option<u32>) -> Limit {
    // A few short of the limit: the count is taken from outside, between
    // forks, and the sandbox's own init is one of them.
    let near = w
        .max_processes
        .saturating_sub(w.max_processes / 32 + 2)
        .max(1) as usize;
    loop {
        tokio::time::sleep(WATCH_EVERY).await;
        let layers = w.layers.clone();
        let (bytes, tasks) = tokio::task::spawn_blocking(move || {
            let tasks = pid.map_or(0, catui_sandbox::procs::tasks_beneath);
            (Snapshot::take(&layers).bytes, tasks)
        })
        .await
        .unwrap_or((0, 0));
        if bytes > w.max_bytes {
            return Limit::Scratch;
        }
        if tasks >= near {
            return Limit::Processes;
        }
    }
}

/// What the model is told about a dry run stopped at its process limit.
pub(super) fn too_many_processes(max: u64) -> String {
    format!(
        "The dry run was stopped: it reached its limit of {max} processes at once (settings \
         `dryRun.maxProcesses`), so it was forking without end or far more than a build needs; \
         the machine was not affected. Check the plan with a command that starts fewer \
         processes."
    )
}

/// What the model is told about a scratch area that grew past its limit.
pub(super) fn over_limit(max_bytes: u64) -> String {
    format!(
        "The dry run was stopped: its scratch area grew past {} MiB (settings \
         `dryRun.maxScratchMiB`). Check the plan with a smaller command (one test, one \
         package).",
        max_bytes / (1024 * 1024)
    )
}

/// Wraps the result of a dry run: the header line first, what changed in
/// the copy last, and the run recorded for the plan's approval.
pub(super) fn finish(
    mut output: ToolOutput,
    before: &Before,
    ctx: &ToolContext,
    command: &str,
    exit_code: Option<i32>,
    record: bool,
) -> ToolOutput {
    let after = Snapshot::take(&before.layers);
    let changes = Changes::between(&before.snapshot, &after);
    if !one_off(ctx) {
        ctx.dry_run.note_copy(&after);
    }
    let root: PathBuf = ctx.project_root.clone();
    let root = root.canonicalize().unwrap_or(root);
    let note = outcome_note(&output.content);
    let header = if one_off(ctx) {
        ONE_OFF_HEADER
    } else {
        DRY_RUN_HEADER
    };
    output.content = format!(
        "{header}\n{}\n{}",
        output.content,
        describe_changes(&changes, &root)
    );
    if record {
        ctx.dry_run.record(DryRunRecord {
            command: command.to_string(),
            exit_code,
            note,
        });
    }
    output
}

/// A few words on a test run's outcome, when the output says how many
/// tests failed (`test result: FAILED. 3 passed; 2 failed`, `FAILED
/// (failures=2)`, `2 failed`).
fn outcome_note(output: &str) -> Option<String> {
    let number_before = |text: &str, word: &str| -> Option<u64> {
        let at = text.rfind(word)?;
        let digits: String = text[..at]
            .trim_end()
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect::<Vec<char>>()
            .into_iter()
            .rev()
            .collect();
        digits.parse().ok()
    };
    let number_after = |text: &str, key: &str| -> Option<u64> {
        let at = text.rfind(key)? + key.len();
        let digits: String = text[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    let failures = number_after(output, "failures=")
        .map(|n| n + number_after(output, "errors=").unwrap_or(0))
        .or_else(|| number_before(output, " failed"))
        .or_else(|| number_before(output, " failures"))?;
    Some(match failures {
        1 => "1 failure".to_string(),
        n => format!("{n} failures"),
    })
}

#[cfg(test)]
mod tests {
    use super::outcome_note;

    #[test]
    fn failures_are_counted_from_common_test_runners() {
        assert_eq!(
            outcome_note("test result: FAILED. 3 passed; 2 failed; 0 ignored").as_deref(),
            Some("2 failures")
        );
        assert_eq!(
            outcome_note("Ran 4 tests\n\nFAILED (failures=1, errors=1)").as_deref(),
            Some("2 failures")
        );
        assert_eq!(
            outcome_note("== 1 failed, 3 passed in 0.1s ==").as_deref(),
            Some("1 failure")
        );
        assert_eq!(outcome_note("all good"), None);
    }
}
