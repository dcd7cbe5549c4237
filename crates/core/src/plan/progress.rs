//! Plan steps ↔ todos: on approval the plan's numbered steps seed the
//! todo list, and as todos are completed the plan file gains a `## Progress`
//! section (checked steps with the time each was done), so the plan stays
//! the record of the work. Pure functions plus [`StepTracker`], the
//! session's binding between the approved steps and the todo list.

use std::sync::Mutex;

use crate::sync::lock;
use crate::tools::{TodoItem, TodoStatus};

/// The heading of the progress section catui maintains in the plan file.
pub const PROGRESS_HEADING: &str = "## Progress";

/// The top-level numbered steps of a plan (`1. Do this`, `2) Then that`),
/// outside code fences and outside the progress section, in order.
pub fn plan_steps(plan: &str) -> Vec<String> {
    let mut steps = Vec::new();
    let mut in_fence = false;
    for line in without_progress(plan).lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || line.starts_with(char::is_whitespace) {
            continue;
        }
        let digits = line.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || digits > 3 {
            continue;
        }
        let rest = &line[digits..];
        let Some(text) = rest
            .strip_prefix(". ")
            .or_else(|| rest.strip_prefix(") "))
            .map(str::trim)
        else {
            continue;
        };
        if !text.is_empty() {
            steps.push(text.to_string());
        }
    }
    steps
}

/// `plan` without catui's progress section (what was approved, and what a
/// revision's identity is computed on).
pub fn without_progress(plan: &str) -> String {
    let Some(start) = section_start(plan) else {
        return plan.to_string();
    };
    let end = section_end(plan, start);
    let mut out = plan[..start].trim_end().to_string();
    let rest = &plan[end..];
    if !rest.trim().is_empty() {
        out.push_str("\n\n");
        out.push_str(rest.trim_start());
    }
    if plan.ends_with('\n') && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// Byte offset of the progress heading line, if the plan has one.
fn section_start(plan: &str) -> Option<usize> {
    let mut offset = 0;
    for line in plan.split_inclusive('\n') {
        if line.trim_end() == PROGRESS_HEADING {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}

/// Where the section starting at `start` ends: the next `#`/`##` heading or
/// the end of the text.
fn section_end(plan: &str, start: usize) -> usize {
    let mut offset = start;
    for (i, line) in plan[start..].split_inclusive('\n').enumerate() {
        let heading = line.starts_with("# ") || line.starts_with("## ");
        if i > 0 && heading {
            return offset;
        }
        offset += line.len();
    }
    plan.len()
}

/// The progress section for `steps`, `done[i]` holding when step `i` was
/// completed.
pub fn progress_section(steps: &[String], done: &[Option<String>]) -> String {
    let finished = done.iter().filter(|d| d.is_some()).count();
    let mut out = format!(
        "{PROGRESS_HEADING}\n\n{finished}/{} steps done (kept by catui from the todo list).\n\n",
        steps.len()
    );
    for (i, step) in steps.iter().enumerate() {
        match done.get(i).and_then(Option::as_deref) {
            Some(at) => out.push_str(&format!("- [x] {}. {step} — done {at}\n", i + 1)),
            None => out.push_str(&format!("- [ ] {}. {step}\n", i + 1)),
        }
    }
    out
}

/// `plan` with its progress section replaced by (or extended with)
/// `section`.
pub fn with_progress(plan: &str, section: &str) -> String {
    let base = without_progress(plan);
    format!("{}\n\n{}", base.trim_end(), section)
}

/// `(done, total)` from a plan's progress section, if it has one.
pub fn progress_of(plan: &str) -> Option<(usize, usize)> {
    let start = section_start(plan)?;
    let body = &plan[start..section_end(plan, start)];
    let total = body
        .lines()
        .filter(|l| l.starts_with("- [ ] ") || l.starts_with("- [x] "))
        .count();
    let done = body.lines().filter(|l| l.starts_with("- [x] ")).count();
    (total > 0).then_some((done, total))
}

/// The todo list seeded from the steps.
pub fn todos_for(steps: &[String]) -> Vec<TodoItem> {
    steps
        .iter()
        .map(|s| TodoItem {
            content: s.clone(),
            status: TodoStatus::Pending,
            active_form: format!("Working on: {s}"),
        })
        .collect()
}

/// The approved plan's steps and when each was completed.
#[derive(Debug, Default)]
pub struct StepTracker {
    bound: Mutex<Option<Bound>>,
}

#[derive(Debug, Clone)]
struct Bound {
    steps: Vec<String>,
    done: Vec<Option<String>>,
}

impl StepTracker {
    /// Binds the steps of a newly approved plan (replacing any earlier).
    pub fn bind(&self, steps: Vec<String>) {
        let done = vec![None; steps.len()];
        *lock(&self.bound) = (!steps.is_empty()).then_some(Bound { steps, done });
    }

    /// Forgets the binding (a new plan-mode episode, `/clear`).
    pub fn unbind(&self) {
        *lock(&self.bound) = None;
    }

    /// Takes a new todo list: each bound step whose todo (same text) is
    /// completed is marked done at `now`. Returns the new progress section
    /// and `(done, total)` when something changed.
    pub fn update(&self, todos: &[TodoItem], now: &str) -> Option<(String, usize, usize)> {
        let mut guard = lock(&self.bound);
        let bound = guard.as_mut()?;
        let mut changed = false;
        for (i, step) in bound.steps.iter().enumerate() {
            let completed = todos
                .iter()
                .any(|t| t.status == TodoStatus::Completed && t.content.trim() == step.trim());
            if completed && bound.done[i].is_none() {
                bound.done[i] = Some(now.to_string());
                changed = true;
            }
        }
        if !changed {
            return None;
        }
        let finished = bound.done.iter().filter(|d| d.is_some()).count();
        Some((
            progress_section(&bound.steps, &bound.done),
            finished,
            bound.steps.len(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = "# Plan\n\n1. Parse --json\n2) Serialise items\n   1. nested, ignored\n```\n3. in a fence\n```\n3. Add tests\n\n## Verification\n- cargo test\n";

    #[test]
    fn steps_are_top_level_numbered_items() {
        assert_eq!(
            plan_steps(PLAN),
            ["Parse --json", "Serialise items", "Add tests"]
        );
        assert!(plan_steps("# Plan\n- a bullet\n").is_empty());
    }

    #[test]
    fn progress_is_written_back_and_read() {
        let steps = plan_steps(PLAN);
        let tracker = StepTracker::default();
        tracker.bind(steps.clone());
        let mut todos = todos_for(&steps);
        assert_eq!(tracker.update(&todos, "t0"), None, "nothing done yet");
        todos[1].status = TodoStatus::Completed;
        let (section, done, total) = tracker.update(&todos, "2026-12-03 10:00 UTC").unwrap();
        assert_eq!((done, total), (1, 3));
        assert!(section.contains("- [x] 2. Serialise items — done 2026-12-03 10:00 UTC"));
        assert!(section.contains("- [ ] 1. Parse --json"));
        let updated = with_progress(PLAN, &section);
        assert_eq!(progress_of(&updated), Some((1, 3)));
        // The steps and the approved text are unchanged by the section.
        assert_eq!(plan_steps(&updated), steps);
        assert_eq!(without_progress(&updated), PLAN);
        // A second update replaces the section instead of adding one.
        todos[0].status = TodoStatus::Completed;
        let (section, ..) = tracker.update(&todos, "later").unwrap();
        let again = with_progress(&updated, &section);
        assert_eq!(again.matches(PROGRESS_HEADING).count(), 1);
        assert_eq!(progress_of(&again), Some((2, 3)));
        assert!(
            again.contains("done 2026-12-03 10:00 UTC"),
            "earlier times are kept"
        );
    }

    #[test]
    fn a_section_in_the_middle_is_replaced_in_place() {
        let plan = "# P\n1. a\n\n## Progress\n\n- [ ] 1. a\n\n## Notes\nkeep me\n";
        assert_eq!(without_progress(plan), "# P\n1. a\n\n## Notes\nkeep me\n");
        assert_eq!(progress_of(plan), Some((0, 1)));
    }
}
