//! The continuation loop's own rules, with scripted checks: counting,
//! the limit, no progress, what is reported.

use std::sync::Mutex;

use super::*;

/// A check that answers from a script, one verdict per call.
struct Scripted {
    verdicts: Mutex<Vec<CheckResult>>,
}

#[async_trait]
impl TurnEndCheck for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }
    async fn check(&self, _view: &TurnEndView<'_>) -> CheckResult {
        let mut v = self.verdicts.lock().unwrap();
        if v.is_empty() {
            CheckResult::not_applicable()
        } else {
            v.remove(0)
        }
    }
}

fn not_met(what: &str, state: &str) -> CheckResult {
    CheckResult {
        verdict: CheckVerdict::NotMet {
            missing: what.into(),
            reminder: format!("do {what}"),
        },
        reported: true,
        state: Some(state.into()),
    }
}

fn met() -> CheckResult {
    CheckResult {
        verdict: CheckVerdict::Met,
        reported: true,
        state: None,
    }
}

struct Harness {
    client: Arc<dyn ModelClient>,
    ctx: ToolContext,
    cancel: CancellationToken,
}

impl Harness {
    fn new() -> Self {
        // The checks here never ask a model: the client points nowhere.
        let client = catui_providers::client_for(catui_providers::ProviderConfig::new(
            catui_providers::ProviderKind::Anthropic,
            "http://127.0.0.1:9".to_string(),
            "k",
        ))
        .unwrap();
        Harness {
            client,
            ctx: ToolContext::new(std::env::temp_dir()),
            cancel: CancellationToken::new(),
        }
    }

    fn view(&self, continuation: u32, changed: bool) -> TurnEndView<'_> {
        TurnEndView {
            answer: "done",
            messages: &[],
            continuation,
            changed,
            written: &[],
            client: &self.client,
            small_model: "small",
            ctx: &self.ctx,
            cancel: &self.cancel,
        }
    }
}

async fn run(
    checks: &[Arc<dyn TurnEndCheck>],
    turns: &[bool],
    max: u32,
) -> (Vec<String>, Vec<(bool, u32)>, Option<GoalEnd>) {
    let h = Harness::new();
    let mut looping = ContinuationLoop::default();
    let mut reminders = Vec::new();
    let mut reported = Vec::new();
    for changed in turns {
        let view = h.view(looping.used, *changed);
        match looping
            .decide(checks, &view, max, |_, met, _, n| reported.push((met, n)))
            .await
        {
            Decision::Continue(r) => reminders.push(r),
            Decision::End => break,
        }
    }
    (reminders, reported, looping.end.clone())
}

fn scripted(verdicts: Vec<CheckResult>) -> Arc<dyn TurnEndCheck> {
    Arc::new(Scripted {
        verdicts: Mutex::new(verdicts),
    })
}

#[tokio::test]
async fn a_goal_not_met_continues_until_it_is_met() {
    let checks = [scripted(vec![not_met("tests", "a"), met()])];
    let (reminders, reported, end) = run(&checks, &[true, true, true], 8).await;
    assert_eq!(reminders, ["do tests"]);
    assert_eq!(reported, [(false, 1), (true, 0)]);
    let end = end.unwrap();
    assert!(end.met);
    assert_eq!(end.continuations, 1);
}

#[tokio::test]
async fn the_limit_of_continuations_gives_up() {
    let checks = [scripted(
        (0..5).map(|i| not_met("x", &i.to_string())).collect(),
    )];
    let (reminders, _, end) = run(&checks, &[true; 5], 2).await;
    assert_eq!(reminders.len(), 2);
    let end = end.unwrap();
    assert!(!end.met);
    assert_eq!(end.reason, LoopEndReason::MaxContinuations(2));
    assert_eq!(end.missing.as_deref(), Some("x"));
}

#[tokio::test]
async fn two_continuations_that_change_nothing_give_up() {
    // Same state each time and no change: the first continuation is
    // allowed, two without progress end the loop.
    let checks = [scripted((0..6).map(|_| not_met("x", "same")).collect())];
    let (reminders, reported, end) = run(&checks, &[false; 6], 8).await;
    assert_eq!(reminders.len(), 2, "{reminders:?}");
    assert_eq!(end.unwrap().reason, LoopEndReason::NoProgress);
    // The last check is reported without a continuation.
    assert_eq!(reported.last(), Some(&(false, 0)));
    // A change of state is progress.
    let checks = [scripted(
        ["a", "b", "c", "d"]
            .iter()
            .map(|s| not_met("x", s))
            .collect(),
    )];
    let (reminders, _, end) = run(&checks, &[false; 4], 3).await;
    assert_eq!(reminders.len(), 3);
    assert_eq!(end.unwrap().reason, LoopEndReason::MaxContinuations(3));
}

#[tokio::test]
async fn checks_with_nothing_to_say_leave_the_turn_alone() {
    let checks = [scripted(vec![])];
    let (reminders, reported, end) = run(&checks, &[true], 8).await;
    assert!(reminders.is_empty() && reported.is_empty() && end.is_none());
}
