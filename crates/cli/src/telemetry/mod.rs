//! OpenTelemetry for teams (issue 52, docs/TELEMETRY.md): with
//! `CATUI_ENABLE_TELEMETRY=1` the session's engine events become OTLP
//! traces (session → turn → model request / tool call) and metrics
//! (tokens, cost, tool decisions, lines changed), sent over OTLP/HTTP
//! (protobuf) in the background.
//!
//! It sits between the session and its front end: [`attach`] passes every
//! event on unchanged after noting it. Off (the default) it is not there
//! at all — the front end reads the session's own channel, and no task,
//! client or buffer exists — so a run without telemetry costs what it
//! did before.

mod config;
mod export;
mod metrics;
mod proto;
mod spans;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use catui_core::builder::SessionInfo;
use catui_core::engine::{Engine, EngineEvent};
use catui_protocol::PermissionMode;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use config::Config;
pub use config::{Setup, from_env};
use export::Job;
use proto::Origin;
use spans::Tracker;

/// Spans kept before a batch is sent even in the middle of a turn.
const BATCH: usize = 256;

/// What telemetry needs to know about the session it watches.
pub struct SessionFacts<'a> {
    pub session_id: &'a str,
    pub model: &'a str,
    pub mode: PermissionMode,
    pub plan_file: Option<&'a str>,
    /// Whether a full-screen front end reads the events (a failure is
    /// then told as a notification, not on stderr under the screen).
    pub full_screen: bool,
}

/// Telemetry of a running session; [`Telemetry::finish`] at its end.
pub struct Telemetry {
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
    timeout: Duration,
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// [`attach`] for a started session, set up from the process's
/// environment: what every front end (terminal, headless, ACP) does.
pub fn attach_session(
    engine: &Engine,
    info: &SessionInfo,
    full_screen: bool,
    events: UnboundedReceiver<EngineEvent>,
) -> (UnboundedReceiver<EngineEvent>, Option<Telemetry>) {
    let plan_file = engine.plan_file();
    attach(
        from_env(|name| std::env::var(name).ok()),
        SessionFacts {
            session_id: &info.session_id,
            model: &info.model,
            mode: engine.permission_mode(),
            plan_file: plan_file.as_deref(),
            full_screen,
        },
        events,
    )
}

/// The events the front end is to read: `events` itself when telemetry is
/// off, else the same events after telemetry has seen them.
pub fn attach(
    setup: Setup,
    facts: SessionFacts<'_>,
    events: UnboundedReceiver<EngineEvent>,
) -> (UnboundedReceiver<EngineEvent>, Option<Telemetry>) {
    let config = match setup {
        Setup::Off => return (events, None),
        Setup::Refused(why) => {
            eprintln!("catui: {why}");
            return (events, None);
        }
        Setup::On(config) => Arc::new(config),
    };
    let tracker = Tracker::new(
        facts.session_id,
        facts.model,
        facts.mode,
        facts.plan_file,
        config.log_prompts,
        now_ns(),
    );
    let (out_tx, out_rx) = unbounded_channel();
    let (jobs_tx, jobs_rx) = unbounded_channel();
    let front_end = facts.full_screen.then(|| out_tx.downgrade());
    let exporter = tokio::spawn(export::run(config.clone(), jobs_rx, front_end));
    let (stop_tx, stop_rx) = oneshot::channel();
    let watcher = Watcher {
        tracker,
        config: config.clone(),
        jobs: jobs_tx,
        out: out_tx,
    };
    let task = tokio::spawn(watcher.run(events, stop_rx, exporter));
    let telemetry = Telemetry {
        stop: Some(stop_tx),
        task,
        timeout: config.timeout,
    };
    (out_rx, Some(telemetry))
}

impl Telemetry {
    /// Ends the session's span and sends what is left, waiting at most the
    /// export timeout (the session is over: nothing waits on this but the
    /// process's exit).
    pub async fn finish(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if tokio::time::timeout(self.timeout, &mut self.task)
            .await
            .is_err()
        {
            self.task.abort();
        }
    }
}

/// The task between the session and its front end.
struct Watcher {
    tracker: Tracker,
    config: Arc<Config>,
    jobs: UnboundedSender<Job>,
    out: UnboundedSender<EngineEvent>,
}

impl Watcher {
    async fn run(
        mut self,
        mut events: UnboundedReceiver<EngineEvent>,
        mut stop: oneshot::Receiver<()>,
        exporter: JoinHandle<()>,
    ) {
        // A handle dropped without `finish` only stops listening for it.
        let mut stoppable = true;
        loop {
            tokio::select! {
                biased;
                event = events.recv() => match event {
                    Some(event) => self.pass(event),
                    None => break,
                },
                asked = &mut stop, if stoppable => {
                    if asked.is_err() {
                        stoppable = false;
                        continue;
                    }
                    // What the session already said still counts.
                    while let Ok(event) = events.try_recv() {
                        self.pass(event);
                    }
                    break;
                }
            }
        }
        // The front end's stream ends with the session's.
        drop(events);
        let Watcher {
            mut tracker,
            config,
            jobs,
            out,
        } = self;
        drop(out);
        tracker.end_session(now_ns());
        send(&mut tracker, &config, &jobs, true);
        drop(jobs);
        let _ = exporter.await;
    }

    fn pass(&mut self, event: EngineEvent) {
        self.tracker.observe(&event, now_ns());
        let turn_ended = matches!(event, EngineEvent::Result(_));
        if turn_ended || self.tracker.done.len() >= BATCH {
            send(&mut self.tracker, &self.config, &self.jobs, turn_ended);
        }
        let _ = self.out.send(event);
    }
}

/// Queues the finished spans and, with `metrics`, the counters so far.
fn send(tracker: &mut Tracker, config: &Config, jobs: &UnboundedSender<Job>, metrics: bool) {
    let origin = Origin {
        resource: &config.resource,
        scope: "catui",
        version: env!("CARGO_PKG_VERSION"),
    };
    if !tracker.done.is_empty() {
        let spans = std::mem::take(&mut tracker.done);
        let _ = jobs.send(Job::Traces(proto::traces(&origin, &spans)));
    }
    if metrics {
        let counters = tracker.counts.counters(tracker.session_id());
        let body = proto::metrics(&origin, &counters, tracker.session_start_ns(), now_ns());
        let _ = jobs.send(Job::Metrics(body));
    }
}
