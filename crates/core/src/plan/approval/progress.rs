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

/// How a step the user left out is marked in the approved plan:
/// `2. ~~Serialise items~~ (skipped by the user)`.
pub const SKIPPED_SUFFIX: &str = " (skipped by the user)";

/// Where a top-level numbered step sits in its line: the length of its
/// number and separator (`12. `, `3) `) and its text.
fn step_in_line(line: &str) -> Option<(usize, &str)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 3 {
        return None;
    }
    let rest = &line[digits..];
    let text = rest
        .strip_prefix(". ")
        .or_else(|| rest.strip_prefix(") "))?
        .trim();
    (!text.is_empty()).then_some((digits + 2, text))
}

/// The byte ranges of the plan's step lines (as [`plan_steps`] finds
/// them), each with its prefix length and text.
fn step_lines(plan: &str) -> Vec<(usize, &str, usize, &str)> {
    // catui's own progress section lists the steps again: not steps.
    let progress = section_start(plan).map(|start| start..section_end(plan, start));
    let mut out = Vec::new();
    let mut in_fence = false;
    let mut offset = 0;
    for line in plan.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if progress.as_ref().is_some_and(|p| p.contains(&start)) {
            continue;
        }
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some((prefix, text)) = step_in_line(bare) {
            out.push((start, bare, prefix, text));
        }
    }
    out
}

/// The top-level numbered steps of a plan (`1. Do this`, `2) Then that`),
/// outside code fences and outside the progress section, in order.
/// Steps the user skipped are included, marked (see [`is_skipped`]).
pub fn plan_steps(plan: &str) -> Vec<String> {
    step_lines(plan)
        .into_iter()
        .map(|(.., text)| text.to_string())
        .collect()
}

/// Whether a step (as [`plan_steps`] returns it) was skipped by the user.
pub fn is_skipped(step: &str) -> bool {
    step.ends_with(SKIPPED_SUFFIX)
}

/// The steps to carry out: [`plan_steps`] without the skipped ones.
pub fn active_steps(plan: &str) -> Vec<String> {
    plan_steps(plan)
        .into_iter()
        .filter(|s| !is_skipped(s))
        .collect()
}

/// Why steps could not be left out of a plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SkipError {
    #[error("the plan has no numbered steps, so step {0} cannot be skipped")]
    NoSteps(usize),
    #[error("there is no step {number}: the plan's numbered steps are 1 to {count}")]
    NoSuchStep { number: usize, count: usize },
    #[error("skipping steps {0} would leave no step of the plan to carry out")]
    Everything(String),
}

/// `plan` with the steps numbered in `skip` (1-based, in the order of
/// [`plan_steps`]) marked as skipped by the user, and the texts of the
/// steps skipped. Steps already marked stay as they are.
pub fn skip_steps(plan: &str, skip: &[usize]) -> Result<(String, Vec<String>), SkipError> {
    let lines = step_lines(plan);
    let mut wanted: Vec<usize> = skip.to_vec();
    wanted.sort_unstable();
    wanted.dedup();
    if let Some(&first) = wanted.first()
        && lines.is_empty()
    {
        return Err(SkipError::NoSteps(first));
    }
    if let Some(&bad) = wanted.iter().find(|&&n| n == 0 || n > lines.len()) {
        return Err(SkipError::NoSuchStep {
            number: bad,
            count: lines.len(),
        });
    }
    let left = lines
        .iter()
        .enumerate()
        .filter(|(i, (.., text))| !wanted.contains(&(i + 1)) && !is_skipped(text))
        .count();
    if left == 0 && !wanted.is_empty() {
        let named: Vec<String> = wanted.iter().map(usize::to_string).collect();
        return Err(SkipError::Everything(named.join(", ")));
    }
    let mut out = String::with_capacity(plan.len() + wanted.len() * 32);
    let mut copied = 0;
    let mut skipped = Vec::new();
    for (i, (start, line, prefix, text)) in lines.into_iter().enumerate() {
        if !wanted.contains(&(i + 1)) || is_skipped(text) {
            continue;
        }
        out.push_str(&plan[copied..start]);
        out.push_str(&line[..prefix]);
        out.push_str(&format!("~~{text}~~{SKIPPED_SUFFIX}"));
        copied = start + line.len();
        skipped.push(text.to_string());
    }
    out.push_str(&plan[copied..]);
    Ok((out, skipped))
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

/// For each of `steps`, when the plan's progress section says it was done
/// (`- [x] 2. Step — done TIME`), else `None`.
pub fn done_times(plan: &str, steps: &[String]) -> Vec<Option<String>> {
    let Some(start) = section_start(plan) else {
        return vec![None; steps.len()];
    };
    let body = &plan[start..section_end(plan, start)];
    let checked: Vec<(&str, &str)> = body
        .lines()
        .filter_map(|l| l.strip_prefix("- [x] "))
        .filter_map(|l| {
            let (_, rest) = l.split_once(". ")?;
            Some(rest.split_once(" — done ").unwrap_or((rest, "")))
        })
        .collect();
    steps
        .iter()
        .map(|step| {
            checked
                .iter()
                .find(|(text, _)| text.trim() == step.trim())
                .map(|(_, at)| at.trim().to_string())
        })
        .collect()
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

/// The approved plan's steps and when each was completed, the step the
/// work is on, and the lines catui adds about the work (its verification,
/// its end report).
#[derive(Debug, Default)]
pub struct StepTracker {
    bound: Mutex<Option<Bound>>,
}

#[derive(Debug, Clone)]
struct Bound {
    steps: Vec<String>,
    done: Vec<Option<String>>,
    /// The step a todo marks in progress (index).
    in_progress: Option<usize>,
    /// Lines after the steps: the last verification, the end report.
    notes: Vec<(NoteKind, String)>,
}

/// What a line of the progress section after the steps is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    Verification,
    Report,
}

impl Bound {
    fn section(&self) -> String {
        let mut out = progress_section(&self.steps, &self.done);
        for (_, note) in &self.notes {
            out.push('\n');
            out.push_str(note.trim_end());
            out.push('\n');
        }
        out
    }

    fn finished(&self) -> usize {
        self.done.iter().filter(|d| d.is_some()).count()
    }
}

impl StepTracker {
    /// Binds the steps of a newly approved plan (replacing any earlier);
    /// a plan without numbered steps is bound too (its progress section
    /// then holds only what catui adds).
    pub fn bind(&self, steps: Vec<String>) {
        let done = vec![None; steps.len()];
        *lock(&self.bound) = Some(Bound {
            steps,
            done,
            in_progress: None,
            notes: Vec::new(),
        });
    }

    /// Binds the steps of an approved plan taken up again (`/plan use`),
    /// `done[i]` holding when step `i` was done.
    pub fn bind_done(&self, steps: Vec<String>, done: Vec<Option<String>>) {
        let mut done = done;
        done.resize(steps.len(), None);
        *lock(&self.bound) = Some(Bound {
            steps,
            done,
            in_progress: None,
            notes: Vec::new(),
        });
    }

    /// Forgets the binding (a new plan-mode episode, `/clear`).
    pub fn unbind(&self) {
        *lock(&self.bound) = None;
    }

    /// Whether an approved plan's steps are bound.
    pub fn is_bound(&self) -> bool {
        lock(&self.bound).is_some()
    }

    /// Takes a new todo list: each bound step whose todo (same text) is
    /// completed is marked done at `now`, and the step in progress is the
    /// one whose todo says so. Returns the new progress section and
    /// `(done, total)` when a step was done.
    pub fn update(&self, todos: &[TodoItem], now: &str) -> Option<(String, usize, usize)> {
        let mut guard = lock(&self.bound);
        let bound = guard.as_mut()?;
        let mut changed = false;
        let same = |t: &TodoItem, step: &str| t.content.trim() == step.trim();
        bound.in_progress = bound.steps.iter().position(|step| {
            todos
                .iter()
                .any(|t| t.status == TodoStatus::InProgress && same(t, step))
        });
        for (i, step) in bound.steps.iter().enumerate() {
            let completed = todos
                .iter()
                .any(|t| t.status == TodoStatus::Completed && same(t, step));
            if completed && bound.done[i].is_none() {
                bound.done[i] = Some(now.to_string());
                changed = true;
            }
        }
        if !changed {
            return None;
        }
        Some((bound.section(), bound.finished(), bound.steps.len()))
    }

    /// Adds the steps of an approved amendment (not done yet); steps the
    /// plan already has keep their state. The new section.
    pub fn add_steps(&self, steps: &[String]) -> Option<String> {
        let mut guard = lock(&self.bound);
        let bound = guard.as_mut()?;
        for step in steps {
            if !bound.steps.iter().any(|s| s.trim() == step.trim()) {
                bound.steps.push(step.clone());
                bound.done.push(None);
            }
        }
        Some(bound.section())
    }

    /// Sets the line about `kind` after the steps (the last verification,
    /// the end report). The new section.
    pub fn note(&self, kind: NoteKind, text: String) -> Option<String> {
        let mut guard = lock(&self.bound);
        let bound = guard.as_mut()?;
        bound.notes.retain(|(k, _)| *k != kind);
        bound.notes.push((kind, text));
        Some(bound.section())
    }

    /// The steps, and which are done.
    pub fn steps(&self) -> Option<(Vec<String>, Vec<bool>)> {
        lock(&self.bound).as_ref().map(|b| {
            (
                b.steps.clone(),
                b.done.iter().map(Option::is_some).collect(),
            )
        })
    }

    /// The step the work is on: the one a todo marks in progress, else
    /// the first not done. `(1-based number, total, text)`.
    pub fn current(&self) -> Option<(usize, usize, String)> {
        let guard = lock(&self.bound);
        let bound = guard.as_ref()?;
        let i = bound
            .in_progress
            .filter(|i| bound.done[*i].is_none())
            .or_else(|| bound.done.iter().position(Option::is_none))?;
        Some((i + 1, bound.steps.len(), bound.steps[i].clone()))
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
    fn skipped_steps_are_marked_and_left_out_of_the_work() {
        let (marked, skipped) = skip_steps(PLAN, &[2, 2]).unwrap();
        assert_eq!(skipped, ["Serialise items"]);
        assert!(
            marked.contains("\n2) ~~Serialise items~~ (skipped by the user)\n"),
            "{marked}"
        );
        // Everything else is as it was: nested items, fences, sections.
        assert_eq!(
            marked.replace(
                "~~Serialise items~~ (skipped by the user)",
                "Serialise items"
            ),
            PLAN
        );
        assert_eq!(plan_steps(&marked).len(), 3);
        assert_eq!(active_steps(&marked), ["Parse --json", "Add tests"]);
        // A step already skipped stays as it is when skipped again.
        let (again, skipped) = skip_steps(&marked, &[2]).unwrap();
        assert_eq!(again, marked);
        assert!(skipped.is_empty());
    }

    #[test]
    fn steps_that_cannot_be_skipped_are_named() {
        assert_eq!(
            skip_steps(PLAN, &[4]),
            Err(SkipError::NoSuchStep {
                number: 4,
                count: 3
            })
        );
        assert!(matches!(
            skip_steps(PLAN, &[0]),
            Err(SkipError::NoSuchStep { number: 0, .. })
        ));
        assert_eq!(
            skip_steps(PLAN, &[3, 1, 2]),
            Err(SkipError::Everything("1, 2, 3".into()))
        );
        assert_eq!(
            skip_steps("# P\nno steps\n", &[1]),
            Err(SkipError::NoSteps(1))
        );
        assert_eq!(skip_steps(PLAN, &[]).unwrap(), (PLAN.to_string(), vec![]));
    }

    #[test]
    fn a_section_in_the_middle_is_replaced_in_place() {
        let plan = "# P\n1. a\n\n## Progress\n\n- [ ] 1. a\n\n## Notes\nkeep me\n";
        assert_eq!(without_progress(plan), "# P\n1. a\n\n## Notes\nkeep me\n");
        assert_eq!(progress_of(plan), Some((0, 1)));
    }

    #[test]
    fn done_times_come_back_from_the_progress_section() {
        let steps: Vec<String> = vec!["a".into(), "b c".into(), "d".into()];
        let section = progress_section(&steps, &[Some("T1".into()), None, Some("T3".into())]);
        let plan = with_progress("# P\n1. a\n2. b c\n3. d\n", &section);
        assert_eq!(
            done_times(&plan, &steps),
            vec![Some("T1".into()), None, Some("T3".into())]
        );
        assert_eq!(done_times("# P\n1. a\n", &steps), vec![None, None, None]);
    }
}
