//! `catui worker --broker URL --name NAME [--project DIR]`: hosts teammates
//! for leads on other machines. The worker is a session of its own in DIR
//! (that checkout's settings, trust and sandbox) whose team mailboxes are on
//! the broker; a lead's `TeamCreate` member with `"host": NAME` is started
//! here as a teammate of that session, talks to its lead through the
//! broker's mailboxes (its plan approval goes to the lead's inbox), asks
//! its permission prompts through the broker (`catui approvals`), and keeps
//! its state in the registry, where the lead reads it. The worker runs
//! until it is stopped (SIGINT/SIGTERM), and stops its teammates then.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use catui_broker::approver::Asker;
use catui_broker::hosts::{HostRequest, teammate_key, worker_key, worker_requests};
use catui_broker::registry::{heartbeat, host_name};
use catui_broker::{
    AgentState, Approvals, Broker, BrokerApprover, BrokerMailboxes, Presence, Registry,
    SessionEntry,
};
use catui_core::builder::{FrontEnd, SessionBuilder, SessionConfig};
use catui_core::session::redact::Redactor;
use catui_core::teams::{TeamBackend, TeamManager, TeammateState, TeammateStatus};
use futures::StreamExt;

pub async fn run(broker: &Broker, name: &str, project: &Path) -> u8 {
    if !catui_broker::names::is_valid_name(name) {
        eprintln!("catui: '{name}' is not a valid worker name: use letters, digits, '-' and '_'");
        return 2;
    }
    let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    match serve(broker, name, &project).await {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("catui: {e}");
            1
        }
    }
}

async fn serve(broker: &Broker, name: &str, project: &Path) -> Result<(), String> {
    let err = |e: catui_broker::BrokerError| e.to_string();
    let registry = Registry::open(broker).await.map_err(err)?;
    let approvals = Approvals::open(broker).await.map_err(err)?;
    let mailboxes = BrokerMailboxes::open(broker).await.map_err(err)?;
    let asker = Asker::new(project.display().to_string());
    let approver = BrokerApprover::new(
        approvals,
        asker.clone(),
        catui_broker::APPROVAL_TIMEOUT,
        Redactor::from_env(),
    );
    let config = SessionConfig {
        trust_project: crate::session_config::trust_project_from_env(),
        sandbox_stage: std::env::current_exe().ok(),
        ..SessionConfig::new(project.to_path_buf(), catui_core::config_dir::config_dir())
    };
    let session = SessionBuilder::new(config)
        .with_team_backend(TeamBackend {
            mailboxes: Some(mailboxes),
            hosts: None,
            remote_lead: true,
        })
        .front_end(
            FrontEnd::interactive(Arc::new(approver))
                .with_warnings(crate::session_config::stderr_warnings()),
        )
        .build()
        .map_err(|e| e.to_string())?;
    let Some(team) = session.team.clone() else {
        return Err("the worker's session has no teams".into());
    };
    let beat = heartbeat();
    let mut entry = SessionEntry::new(
        &worker_key(name),
        "worker",
        &project.display().to_string(),
        beat,
    );
    entry.name = Some(name.to_string());
    entry.state = AgentState::Idle;
    let presence = Presence::start(registry.clone(), entry, beat);
    let _ = asker.session_id.set(session.info.session_id.clone());
    let _ = asker.presence.set(presence.clone());
    eprintln!(
        "catui: worker {name} on {} serves {} through the broker at {}",
        host_name(),
        project.display(),
        broker.shown_url()
    );
    // What the hosted teammates report is for this machine's log only.
    let mut events = session.events;
    tokio::spawn(async move { while events.recv().await.is_some() {} });

    let mut requests = Box::pin(worker_requests(broker, name).await.map_err(err)?);
    let stop = crate::signals::watch(|_| {}, || {});
    let engine = session.engine;
    loop {
        let request = tokio::select! {
            r = requests.next() => r,
            _ = stop.token().cancelled() => break,
        };
        let Some(request) = request else { break };
        match &request {
            HostRequest::Start {
                team: t,
                name: n,
                lead,
                ..
            } => {
                let Some(spec) = request.spec() else { continue };
                match team.spawn(spec, engine.tool_context()) {
                    Ok(state) => {
                        eprintln!("catui: started teammate {n}@{t} for lead session {lead}");
                        presence.set_state(AgentState::Working, None);
                        report(
                            registry.clone(),
                            name,
                            &project.display().to_string(),
                            state,
                            beat,
                        );
                    }
                    Err(e) => eprintln!("catui: cannot start {n}@{t}: {e}"),
                }
            }
            HostRequest::Stop { team: t, name: n } => {
                if team.stop(t, n).is_ok() {
                    eprintln!("catui: stopped teammate {n}@{t}");
                }
            }
        }
    }
    shutdown(&team, &presence).await;
    Ok(())
}

async fn shutdown(team: &TeamManager, presence: &Presence) {
    team.shutdown().await;
    presence.finish(AgentState::Done, None).await;
}

/// Keeps a hosted teammate's registry entry in step with its status until
/// it stops.
fn report(
    registry: Registry,
    worker: &str,
    project: &str,
    state: Arc<TeammateState>,
    beat: Duration,
) {
    let mut entry = SessionEntry::new(
        &teammate_key(state.team(), state.name()),
        "teammate",
        project,
        beat,
    );
    entry.team = Some(state.team().to_string());
    entry.name = Some(state.name().to_string());
    entry.worker = Some(worker.to_string());
    let presence = Presence::start(registry, entry, beat);
    tokio::spawn(async move {
        loop {
            let status = state.status();
            let agent = match status {
                TeammateStatus::Working => AgentState::Working,
                TeammateStatus::Idle => AgentState::Idle,
                TeammateStatus::AwaitingApproval => AgentState::WaitingForYou,
                TeammateStatus::Stopped => {
                    presence.finish(AgentState::Done, None).await;
                    return;
                }
                TeammateStatus::Failed => {
                    presence.finish(AgentState::Failed, None).await;
                    return;
                }
            };
            if presence.entry().state != agent {
                let waiting = (agent == AgentState::WaitingForYou)
                    .then(|| "the lead's approval of its plan".to_string());
                presence.set_state(agent, waiting);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
}
