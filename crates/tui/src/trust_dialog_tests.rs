use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::*;

fn prompt() -> TrustPrompt {
    TrustPrompt {
        project: "/home/u/cloned".into(),
        is_home: false,
        about_changes: false,
        items: vec![
            "permissions.allow  Bash(curl:*)  (.catui/settings.json)".into(),
            "env  BASH_ENV: vendor/x.sh  (.catui/settings.json)".into(),
            "MCP servers  evil  (.mcp.json)".into(),
        ],
    }
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn screen(state: &TrustDialogState, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(100, height)).unwrap();
    terminal.draw(|f| render_trust_dialog(f, state)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| {
            (0..100)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_dialog_names_what_the_folder_would_enable_and_the_three_choices() {
    let s = TrustDialogState::new(prompt());
    let text = screen(&s, 24);
    for needle in [
        "Do you trust the files in this folder?",
        "/home/u/cloned",
        "Bash(curl:*)",
        "BASH_ENV",
        "evil",
        "› 1. Trust this folder",
        "2. Continue without it",
        "3. Quit",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
}

#[test]
fn keys_choose_and_answer() {
    let mut s = TrustDialogState::new(prompt());
    assert_eq!(s.on_key(key(KeyCode::Down)), None);
    assert_eq!(s.selected(), TrustAnswer::Continue);
    assert_eq!(s.on_key(key(KeyCode::Enter)), Some(TrustAnswer::Continue));
    s.on_key(key(KeyCode::Up));
    s.on_key(key(KeyCode::Up));
    assert_eq!(s.on_key(key(KeyCode::Enter)), Some(TrustAnswer::Trust));
    assert_eq!(s.on_key(key(KeyCode::Char('3'))), Some(TrustAnswer::Quit));
    assert_eq!(s.on_key(key(KeyCode::Esc)), Some(TrustAnswer::Quit));
    assert_eq!(
        s.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Some(TrustAnswer::Quit)
    );
    for _ in 0..5 {
        s.on_key(key(KeyCode::Down));
    }
    assert_eq!(s.selected(), TrustAnswer::Quit, "stays on the last choice");
}

#[test]
fn a_long_list_scrolls_and_says_how_much_is_left() {
    let mut p = prompt();
    p.items = (0..40).map(|i| format!("env  VAR{i}")).collect();
    let mut s = TrustDialogState::new(p);
    let text = screen(&s, 24);
    assert!(
        text.contains("VAR0") && text.contains("more (PgDn)"),
        "{text}"
    );
    s.on_key(key(KeyCode::PageDown));
    let text = screen(&s, 24);
    assert!(
        !text.lines().any(|l| l.ends_with(" VAR0")) && text.contains("VAR5"),
        "{text}"
    );
}

#[test]
fn changes_and_the_home_directory_are_said_so() {
    let mut p = prompt();
    p.about_changes = true;
    p.is_home = true;
    let text = screen(&TrustDialogState::new(p), 30);
    assert!(text.contains("changed since you trusted it"), "{text}");
    assert!(text.contains("home directory"), "{text}");
}
