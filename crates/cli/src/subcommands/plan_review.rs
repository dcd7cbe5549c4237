//! `catui plans review [SLUG]`: the plans an ended session left awaiting
//! approval (a headless planning run ends with its plan), and the review
//! page for one of them. The decision made on the page is recorded in the
//! session's transcript as the answer to its pending presentation; `catui
//! --resume ID` carries it out (see `catui_core::session::plan_review`).

use std::io::Write;
use std::time::SystemTime;

use catui_core::session::plan_review::{awaiting_approval, find_awaiting, record_answer};
use catui_review::{ReviewPage, RunningReview, open_review};
use serde_json::json;

use super::format::{one_line, pad, when};
use super::plan_name;
use super::{CommandError, Project};

/// How much of a plan's first line a row shows.
const TITLE_CHARS: usize = 60;

/// `catui plans review`: the plans awaiting a decision.
pub fn list(project: &Project, out: &mut impl Write) -> Result<(), CommandError> {
    let plans = awaiting_approval(&project.sessions_dir());
    if plans.is_empty() {
        writeln!(
            out,
            "No plan of this project awaits your decision. Plans that a headless planning run \
             (`catui -p --permission-mode plan`) presented wait here until you review them."
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "Plans awaiting your decision ({}):",
        project.cwd.display()
    )?;
    let width = plans
        .iter()
        .map(|p| p.slug.chars().count())
        .max()
        .unwrap_or(4);
    for plan in &plans {
        let title = plan
            .plan
            .lines()
            .find(|l| !l.trim().is_empty())
            .map(|l| one_line(l, TITLE_CHARS))
            .unwrap_or_default();
        let age = std::fs::metadata(&plan.transcript)
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        writeln!(
            out,
            "  {}  session {}  {}  {title}",
            pad(&plan.slug, width),
            plan.session_id,
            pad(&when(age, Some(&plan.presented_at)), 8),
        )?;
    }
    writeln!(
        out,
        "\nReview one in your browser with `catui plans review SLUG`."
    )?;
    Ok(())
}

/// `catui plans review SLUG`: serves the plan's page until the user
/// decides (or presses Ctrl+C), then records the decision.
pub async fn review(
    project: &Project,
    slug: &str,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let name = plan_name(slug)?;
    let sessions_dir = project.sessions_dir();
    let Some(plan) = find_awaiting(&sessions_dir, name) else {
        return Err(CommandError::Usage(format!(
            "plan '{name}' does not await a decision in this project's sessions (it was approved, parked or answered, or never presented); `catui plans review` lists those that do"
        )));
    };
    let page = ReviewPage::for_ended_session(&plan, &sessions_dir);
    let mut running = RunningReview::start(page)
        .map_err(|e| CommandError::Failed(format!("the review page could not be started: {e}")))?;
    let links = running.links();
    // The browser gets a hand-off file, never the token; a link printed
    // for the user works once.
    match open_review(&links, |name| std::env::var(name).ok()) {
        Ok(()) => {
            writeln!(
                out,
                "Opened the review page of {name} in your browser (its link works once; that browser gets back in at):"
            )?;
            writeln!(out, "{}", links.address())?;
        }
        Err(why) => {
            writeln!(
                out,
                "Open the review page of {name} in a browser ({why}; the link works once):"
            )?;
            writeln!(out, "{}", links.link())?;
        }
    }
    writeln!(
        out,
        "Waiting for your decision (Ctrl+C to stop without deciding)…"
    )?;
    out.flush()?;
    let decision = tokio::select! {
        decision = running.decision() => decision,
        _ = tokio::signal::ctrl_c() => None,
    };
    drop(running);
    let Some(decision) = decision else {
        return Err(CommandError::Interrupted(
            "review stopped: nothing was decided".to_string(),
        ));
    };
    let summary = decision.summary();
    let shown = json!({
        "plan": plan.plan,
        "planFilePath": plan.path.display().to_string(),
        "planHash": plan.hash,
    });
    record_answer(&plan, decision.into_response(&shown))
        .map_err(|e| CommandError::Failed(e.to_string()))?;
    writeln!(out, "Decided: {summary}.")?;
    writeln!(
        out,
        "Recorded for session {id}; it is carried out when you continue it: catui --resume {id}",
        id = plan.session_id
    )?;
    Ok(())
}
