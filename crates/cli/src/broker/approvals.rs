//! `catui approvals`: the requests waiting on the broker (`--all`: answered
//! ones too), `show ID`, `approve ID [--mode M] [--skip-steps N,…]` and
//! `reject ID [--feedback TEXT]`. The first answer applies; a later one is
//! refused with who answered first (exit 1).

use std::io::Write;

use catui_broker::approvals::{RequestStatus, answerer, stamp};
use catui_broker::{ApprovalAnswer, Approvals, Broker, RequestKind, Verdict};
use catui_protocol::PermissionMode;

use crate::args::ApprovalsAction;

pub async fn run(broker: &Broker, json: bool, all: bool, action: Option<&ApprovalsAction>) -> u8 {
    let approvals = match Approvals::open(broker).await {
        Ok(a) => a,
        Err(e) => {
            eprintln!("catui: {e}");
            return 1;
        }
    };
    let (result, is_json) = match action {
        None if json => (list_json(&approvals, all).await, true),
        Some(ApprovalsAction::Show { id }) if json => (show_json(&approvals, id).await, true),
        _ => (perform(&approvals, all, action).await, false),
    };
    match result {
        Ok(text) => {
            // What other machines wrote reaches the terminal through the
            // sanitiser; a closed stdout is not an error.
            let _ = if is_json {
                writeln!(
                    std::io::stdout().lock(),
                    "{}",
                    crate::output::json_line(&text)
                )
            } else {
                crate::output::stdout().write_all(text.as_bytes())
            };
            0
        }
        Err(e) => {
            eprintln!("catui: {e}");
            1
        }
    }
}

/// `action` (none: the list) as text, for `catui approvals` and the
/// terminal UI's `/approvals`.
pub async fn perform(
    approvals: &Approvals,
    all: bool,
    action: Option<&ApprovalsAction>,
) -> Result<String, String> {
    match action {
        None => {
            let requests = approvals.list(all).await.map_err(|e| e.to_string())?;
            let mut out = Vec::new();
            table(&mut out, &requests).map_err(|e| e.to_string())?;
            Ok(String::from_utf8_lossy(&out).into_owned())
        }
        Some(ApprovalsAction::Show { id }) => show(approvals, id).await,
        Some(ApprovalsAction::Approve {
            id,
            mode,
            skip_steps,
        }) => approve(approvals, id, mode.as_deref(), skip_steps).await,
        Some(ApprovalsAction::Reject { id, feedback }) => {
            answer(
                approvals,
                id,
                Verdict::Reject,
                None,
                Vec::new(),
                feedback.clone(),
            )
            .await
        }
    }
}

async fn list_json(approvals: &Approvals, all: bool) -> Result<String, String> {
    let requests = approvals.list(all).await.map_err(|e| e.to_string())?;
    serde_json::to_string_pretty(&requests).map_err(|e| e.to_string())
}

async fn show_json(approvals: &Approvals, id: &str) -> Result<String, String> {
    let (request, answer) = fetch(approvals, id).await?;
    let status = RequestStatus { request, answer };
    serde_json::to_string_pretty(&status).map_err(|e| e.to_string())
}

async fn fetch(
    approvals: &Approvals,
    id: &str,
) -> Result<(catui_broker::ApprovalRequest, Option<ApprovalAnswer>), String> {
    let request = approvals
        .request(id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| catui_broker::BrokerError::UnknownRequest(id.to_string()).to_string())?;
    let answer = approvals.answer_of(id).await.map_err(|e| e.to_string())?;
    Ok((request, answer))
}

fn table(out: &mut impl Write, requests: &[RequestStatus]) -> std::io::Result<()> {
    if requests.is_empty() {
        return writeln!(out, "No approval requests waiting.");
    }
    writeln!(
        out,
        "{:<32} {:<10} {:<14} {:<10} {:<8} WHAT",
        "ID", "KIND", "HOST", "SESSION", "SINCE"
    )?;
    for r in requests {
        let q = &r.request;
        let kind = match q.kind {
            RequestKind::Plan => "plan",
            RequestKind::Permission => "permission",
        };
        let state = r
            .answer
            .as_ref()
            .map(|a| format!("  [{}]", a.summary()))
            .unwrap_or_default();
        writeln!(
            out,
            "{:<32} {:<10} {:<14} {:<10} {:<8} {}{state}",
            q.id,
            kind,
            q.host,
            q.session_id.get(..8).unwrap_or(&q.session_id),
            q.created.get(11..19).unwrap_or(&q.created),
            q.summary
        )?;
    }
    Ok(())
}

async fn show(approvals: &Approvals, id: &str) -> Result<String, String> {
    let (request, answer) = fetch(approvals, id).await?;
    let mut text = format!(
        "Request {}: {}\nSession {} on {} ({}), project {}\nAsked {} · refused after {}\nWhy: {}\n",
        request.id,
        request.summary,
        request.session_id,
        request.host,
        if request.user.is_empty() {
            "?"
        } else {
            &request.user
        },
        request.project,
        request.created,
        request.expires,
        request.reason,
    );
    if let Some(agent) = &request.agent {
        text.push_str(&format!("Asked by {agent}\n"));
    }
    match (&request.plan, &request.diff) {
        (Some(plan), _) => {
            text.push_str(&format!(
                "\nPlan ({}):\n\n{plan}\n",
                request.plan_file.as_deref().unwrap_or("no file")
            ));
        }
        (None, Some(diff)) => text.push_str(&format!("\nChange:\n{diff}")),
        (None, None) => {
            let input = serde_json::to_string_pretty(&request.input).unwrap_or_default();
            text.push_str(&format!("\nInput:\n{input}\n"));
        }
    }
    text.push_str(&match &answer {
        Some(a) => format!("\nAnswered: {}\n", a.summary()),
        None => "\nWaiting for an answer: catui approvals approve|reject ID\n".to_string(),
    });
    Ok(text)
}

async fn approve(
    approvals: &Approvals,
    id: &str,
    mode: Option<&str>,
    skip_steps: &[usize],
) -> Result<String, String> {
    if let Some(mode) = mode {
        let parsed = mode.parse::<PermissionMode>().map_err(|e| e.to_string())?;
        if parsed == PermissionMode::Plan {
            return Err("--mode plan would not leave plan mode; choose default, acceptEdits, bypassPermissions or auto".into());
        }
    }
    if skip_steps.contains(&0) {
        return Err("--skip-steps counts steps from 1".into());
    }
    answer(
        approvals,
        id,
        Verdict::Approve,
        mode.map(str::to_string),
        skip_steps.to_vec(),
        None,
    )
    .await
}

async fn answer(
    approvals: &Approvals,
    id: &str,
    verdict: Verdict,
    mode: Option<String>,
    skip_steps: Vec<usize>,
    feedback: Option<String>,
) -> Result<String, String> {
    let request = approvals
        .request(id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| catui_broker::BrokerError::UnknownRequest(id.to_string()).to_string())?;
    if request.kind == RequestKind::Permission && (mode.is_some() || !skip_steps.is_empty()) {
        return Err(format!(
            "request {id} asks permission for {}: --mode and --skip-steps are for plans",
            request.summary
        ));
    }
    let answer = ApprovalAnswer {
        request_id: request.id.clone(),
        // Bound to the revision that was published.
        plan_hash: request.plan_hash.clone(),
        verdict,
        mode,
        skip_steps,
        feedback,
        by: answerer(),
        at: stamp(),
    };
    approvals.answer(&answer).await.map_err(|e| e.to_string())?;
    Ok(format!(
        "{} {id}: {}\n",
        match verdict {
            Verdict::Approve => "Approved",
            _ => "Rejected",
        },
        request.summary
    ))
}
