//! The rewind picker's stages, keys and preview, without a terminal.

use super::*;
use catui_core::checkpoints::RewindTarget;
use crossterm::event::{KeyCode, KeyModifiers};

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn point(id: &str, kind: PointKind) -> RewindPoint {
    RewindPoint {
        target: RewindTarget::parse(id),
        kind,
        label: format!("point {id}"),
        timestamp: "2026-01-01T10:20:30.000Z".into(),
        files: vec!["a.rs".into()],
        code: true,
        conversation: kind == PointKind::Message,
    }
}

fn text(p: &RewindPicker, width: usize) -> Vec<String> {
    p.lines(width).iter().map(|l| l.to_string()).collect()
}

#[test]
fn a_message_offers_three_restores_and_outside_changes_ask_first() {
    let mut p = RewindPicker::new(vec![
        point("m1", PointKind::Message),
        point("plan:a-b-c", PointKind::PlanApproval),
    ]);
    assert_eq!(p.handle_key(key(KeyCode::Up)), RewindOutcome::Pending);
    // Selecting a point asks for the preview of its code (a dry run).
    let RewindOutcome::Preview(dry) = p.handle_key(key(KeyCode::Enter)) else {
        panic!()
    };
    assert!(dry.dry_run && dry.code && !dry.conversation);
    assert_eq!(dry.target, RewindTarget::parse("m1"));
    let lines = text(&p, 80);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("1. Restore code and conversation"))
    );
    assert!(lines.iter().any(|l| l.contains("3. Restore code only")));
    let RewindOutcome::Check(req) = p.handle_key(key(KeyCode::Char('2'))) else {
        panic!()
    };
    assert!(!req.code && req.conversation && !req.dry_run);
    p.confirm(req, vec!["mine.txt".into()]);
    assert!(text(&p, 80).iter().any(|l| l.contains("mine.txt")));
    let RewindOutcome::Rewind(forced) = p.handle_key(key(KeyCode::Char('y'))) else {
        panic!()
    };
    assert!(forced.force);
}

#[test]
fn a_plan_point_goes_back_to_the_plan() {
    let mut p = RewindPicker::new(vec![point("plan:a-b-c", PointKind::PlanApproval)]);
    assert!(matches!(
        p.handle_key(key(KeyCode::Enter)),
        RewindOutcome::Preview(_)
    ));
    let RewindOutcome::Check(req) = p.handle_key(key(KeyCode::Enter)) else {
        panic!()
    };
    assert_eq!(req.target, RewindTarget::parse("plan:a-b-c"));
    assert_eq!(p.handle_key(key(KeyCode::Esc)), RewindOutcome::Pending);
    assert_eq!(p.handle_key(key(KeyCode::Esc)), RewindOutcome::Close);
}

#[test]
fn the_preview_shows_each_file_with_what_the_restore_adds_and_removes() {
    let mut p = RewindPicker::new(vec![point("m1", PointKind::Message)]);
    p.handle_key(key(KeyCode::Enter));
    let file = |path: &str, insertions, deletions| FileLines {
        path: path.into(),
        insertions,
        deletions,
    };
    let mut files = vec![
        file("src/lib.rs", 12, 3),
        file("src/util.rs", 0, 1),
        file("notes.txt", 1, 1),
    ];
    for i in 0..6 {
        files.push(file(&format!("more/{i}.rs"), 1, 0));
    }
    p.set_preview(Ok(Preview {
        files,
        deleted: vec!["src/util.rs".into()],
        outside: vec!["notes.txt".into()],
    }));
    let lines = text(&p, 80);
    let row = |path: &str| {
        lines
            .iter()
            .find(|l| l.contains(path))
            .cloned()
            .unwrap_or_default()
    };
    assert!(lines.iter().any(|l| l == "Restoring the code changes:"));
    assert_eq!(row("src/lib.rs"), "  +12 −3  src/lib.rs");
    assert_eq!(
        row("src/util.rs"),
        "  +0  −1  src/util.rs (deleted: created since)"
    );
    assert_eq!(
        row("notes.txt"),
        "  +1  −1  notes.txt (changed outside catui)"
    );
    assert!(
        lines.iter().any(|l| l == "  and 3 more files (+3 −0)"),
        "{lines:#?}"
    );
    // Every row fits the box at 80 columns (6 columns of border and padding).
    assert!(lines.iter().all(|l| l.chars().count() <= 74), "{lines:#?}");

    p.set_preview(Ok(Preview::default()));
    assert!(text(&p, 80).iter().any(|l| l.contains("changes nothing")));
    p.set_preview(Err("checkpoints are off".into()));
    assert!(
        text(&p, 80)
            .iter()
            .any(|l| l.contains("cannot be previewed: checkpoints are off"))
    );
}

#[test]
fn every_stage_hint_comes_from_its_key_table() {
    let mut p = RewindPicker::new(vec![point("m1", PointKind::Message)]);
    let last = |p: &RewindPicker| text(p, 80).pop().unwrap_or_default();
    assert_eq!(last(&p), keymap::hint(POINTS, |_| true));
    assert_eq!(last(&p), "↑/↓ choose · Enter select · Esc cancel");
    p.handle_key(key(KeyCode::Enter));
    assert_eq!(last(&p), "↑/↓ choose · Enter restore · Esc back");
    // The keys the hint names do what it says.
    p.handle_key(key(KeyCode::Down));
    let RewindOutcome::Check(req) = p.handle_key(key(KeyCode::Enter)) else {
        panic!()
    };
    assert!(!req.code && req.conversation, "the second option");
    p.confirm(req, vec!["x".into()]);
    assert_eq!(last(&p), "y rewind anyway · n cancel");
    assert_eq!(p.handle_key(key(KeyCode::Char('n'))), RewindOutcome::Close);
}
