use super::*;
use catui_protocol::Message;
use serde_json::json;

/// A session transcript in `dir` whose plan `slug` was shown for approval
/// while in plan mode (as a headless planning run leaves it).
fn presented(dir: &Path, id: &str, slug: &str, plan: &str) -> PathBuf {
    let path = dir.join(format!("{id}.jsonl"));
    let mut w = TranscriptWriter::open(&path).unwrap();
    w.set_slug(Some(slug.into()));
    w.append(EntryBody::PermissionMode {
        mode: PermissionMode::Plan,
        pre_plan_mode: Some(PermissionMode::Default),
    })
    .unwrap();
    w.append(EntryBody::user(Message::user_text("plan it")))
        .unwrap();
    w.append(EntryBody::FileSnapshot {
        key: PLAN_REVISION_KEY.into(),
        path: format!("/plans/{slug}.md"),
        content: plan.into(),
    })
    .unwrap();
    path
}

fn append(path: &Path, body: EntryBody) {
    TranscriptWriter::open(path).unwrap().append(body).unwrap();
}

#[test]
fn a_presented_plan_awaits_until_answered_and_the_answer_waits_for_the_resume() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = presented(dir.path(), "s1", "calm-blue-river", "# Plan\n1. a\n");
    let awaiting = awaiting_approval(dir.path());
    assert_eq!(awaiting.len(), 1);
    let plan = &awaiting[0];
    assert_eq!(plan.slug, "calm-blue-river");
    assert_eq!(plan.session_id, "s1");
    assert_eq!(plan.hash, plan_hash("# Plan\n1. a\n"));
    assert_eq!(
        find_awaiting(dir.path(), "calm-blue-river").as_ref(),
        Some(plan)
    );
    assert_eq!(find_awaiting(dir.path(), "other"), None);

    let answer = PermissionResponse::Allow {
        updated_input: Some(json!({"mode": "acceptEdits", "planHash": plan.hash})),
        updated_permissions: None,
        dry_run: false,
    };
    record_answer(plan, answer.clone()).unwrap();
    // Answered: no longer awaiting; a second answer is refused.
    assert!(awaiting_approval(dir.path()).is_empty());
    assert!(matches!(
        record_answer(plan, answer.clone()),
        Err(RecordError::NoLongerAwaiting { .. })
    ));
    let entries = load(&transcript).unwrap().entries;
    let last = entries.last().unwrap();
    assert_eq!(last.session_id, "s1");
    assert_eq!(last.slug.as_deref(), Some("calm-blue-river"));
    assert_eq!(
        pending_answer(&entries),
        Some(RecordedAnswer {
            answer,
            plan: "# Plan\n1. a\n".into(),
            path: "/plans/calm-blue-river.md".into(),
        })
    );
    // Once the conversation went on, it was carried out.
    append(&transcript, EntryBody::user(Message::user_text("go on")));
    assert_eq!(pending_answer(&load(&transcript).unwrap().entries), None);
}

#[test]
fn approved_parked_cleared_or_left_plans_do_not_await() {
    let dir = tempfile::tempdir().unwrap();
    for (id, body) in [
        (
            "approved",
            EntryBody::FileSnapshot {
                key: PLAN_APPROVED_KEY.into(),
                path: "/plans/x.md".into(),
                content: "# P\n".into(),
            },
        ),
        (
            "parked",
            EntryBody::FileSnapshot {
                key: PLAN_PARKED_KEY.into(),
                path: "/plans/x.md".into(),
                content: "# P\n".into(),
            },
        ),
        (
            "cleared",
            EntryBody::System {
                subtype: CONVERSATION_CLEARED.into(),
                text: "cleared".into(),
            },
        ),
        (
            "left",
            EntryBody::PermissionMode {
                mode: PermissionMode::AcceptEdits,
                pre_plan_mode: None,
            },
        ),
    ] {
        let path = presented(dir.path(), id, id, "# P\n");
        append(&path, body);
        assert_eq!(awaiting_in(id, &path), None, "{id}");
    }
    assert!(awaiting_approval(dir.path()).is_empty());
}

#[test]
fn a_session_open_elsewhere_is_not_written_to() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = presented(dir.path(), "s2", "open-plan", "# P\n");
    let plan = awaiting_in("s2", &transcript).unwrap();
    let _held = SessionLock::acquire(&transcript, "s2").unwrap();
    let err = record_answer(
        &plan,
        PermissionResponse::Deny {
            message: "no".into(),
            interrupt: false,
            comments: Vec::new(),
            park: false,
        },
    )
    .unwrap_err();
    assert!(matches!(err, RecordError::Locked(_)), "{err}");
    assert!(
        awaiting_in("s2", &transcript).is_some(),
        "nothing was written"
    );
}
