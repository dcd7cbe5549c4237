//! The picker over a real temporary project: `@` opens it, letters
//! narrow it, Enter/Tab insert the path, Esc closes it for that word only.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// A project with a few files, and a picker over it.
fn project() -> (tempfile::TempDir, FilePicker) {
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "src/main.rs",
        "src/render.rs",
        "docs/guide.md",
        "build/out.o",
    ] {
        let p = dir.path().join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "x").unwrap();
    }
    std::fs::write(dir.path().join(".gitignore"), "build/\n").unwrap();
    let picker = FilePicker::new(dir.path().to_str().unwrap());
    (dir, picker)
}

/// Types `text` and follows it, as the key handler does.
fn type_in(picker: &mut FilePicker, input: &mut InputBox, text: &str) {
    for c in text.chars() {
        input.insert_char(c);
        picker.update(input);
    }
}

/// Updates until the walk has ended and the matches are final.
fn settle(picker: &mut FilePicker, input: &InputBox) {
    let start = Instant::now();
    while !matches!(picker.index.status(), IndexStatus::Ready { .. }) {
        assert!(start.elapsed() < Duration::from_secs(20), "no list");
        std::thread::sleep(Duration::from_millis(5));
    }
    picker.update(input);
}

#[test]
fn the_word_at_the_cursor_is_a_mention_only_when_it_starts_with_at() {
    let mut input = InputBox::new();
    input.set_text("look at @src/ma");
    assert_eq!(
        mention_at_cursor(&input),
        Some(Mention {
            row: 0,
            at: 8,
            query: "src/ma".into()
        })
    );
    input.set_text("mail me@example.com");
    assert_eq!(mention_at_cursor(&input), None);
    input.set_text("@done ");
    assert_eq!(mention_at_cursor(&input), None);
}

#[test]
fn typing_narrows_and_enter_inserts_the_chosen_path() {
    let (_dir, mut picker) = project();
    let mut input = InputBox::new();
    type_in(&mut picker, &mut input, "see @");
    assert!(picker.is_open());
    settle(&mut picker, &input);
    assert!(picker.matches.contains(&"docs/guide.md".to_string()));
    assert!(
        !picker.matches.iter().any(|p| p.starts_with("build")),
        "ignored files listed"
    );
    type_in(&mut picker, &mut input, "rend");
    assert_eq!(picker.matches, ["src/render.rs"]);
    assert!(picker.key(key(KeyCode::Enter), &mut input));
    assert_eq!(input.text(), "see @src/render.rs ");
    assert!(!picker.is_open(), "the picker stays open after inserting");
    // Enter with the picker closed is not the picker's.
    assert!(!picker.key(key(KeyCode::Enter), &mut input));
}

#[test]
fn down_and_tab_insert_another_match_and_a_directory_keeps_the_picker_open() {
    let (_dir, mut picker) = project();
    let mut input = InputBox::new();
    type_in(&mut picker, &mut input, "@s");
    settle(&mut picker, &input);
    assert_eq!(picker.matches[0], "src/", "{:?}", picker.matches);
    assert!(picker.key(key(KeyCode::Tab), &mut input));
    assert_eq!(input.text(), "@src/");
    assert!(picker.is_open());
    type_in(&mut picker, &mut input, "r");
    assert_eq!(picker.matches[0], "src/render.rs", "{:?}", picker.matches);
    assert!(picker.key(key(KeyCode::Down), &mut input));
    let second = picker.matches[1].clone();
    assert!(picker.key(key(KeyCode::Tab), &mut input));
    assert_eq!(input.text(), format!("@{second} "));
}

#[test]
fn esc_closes_the_picker_for_that_word_and_leaves_the_text() {
    let (_dir, mut picker) = project();
    let mut input = InputBox::new();
    type_in(&mut picker, &mut input, "@gui");
    settle(&mut picker, &input);
    assert!(picker.key(key(KeyCode::Esc), &mut input));
    assert_eq!(input.text(), "@gui");
    assert!(!picker.is_open());
    assert!(picker.rows(80).is_empty());
    type_in(&mut picker, &mut input, "d");
    assert!(!picker.is_open(), "reopened on the same word");
    type_in(&mut picker, &mut input, " @");
    assert!(picker.is_open(), "a new @ does not open it");
}

#[test]
fn the_rows_show_the_matches_the_selection_and_a_count() {
    let (_dir, mut picker) = project();
    let mut input = InputBox::new();
    type_in(&mut picker, &mut input, "@md");
    settle(&mut picker, &input);
    let rows: Vec<String> = picker
        .rows(80)
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    assert_eq!(rows[0], "  @docs/guide.md");
    assert!(rows.last().unwrap().starts_with("  1 file ·"), "{rows:?}");
    type_in(&mut picker, &mut input, "zzz");
    let rows = picker.rows(80);
    assert_eq!(rows.len(), 1);
    assert!(rows[0].to_string().contains("no matching files"));
}

#[test]
fn a_long_path_is_cut_at_the_front() {
    assert_eq!(fit_path("a/very/long/path/name.rs", 12), "…ath/name.rs");
    assert_eq!(fit_path("short.rs", 12), "short.rs");
}
