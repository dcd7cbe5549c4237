use super::*;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn row(id: &str, status: ShellStatus) -> BashRow {
    BashRow {
        id: id.into(),
        command: format!("run {id}"),
        status,
        elapsed: Duration::from_secs(65),
    }
}

fn panel() -> BashesPanel {
    let mut p = BashesPanel::new();
    p.rows = vec![
        row("bash_1", ShellStatus::Exited(0)),
        row("bash_2", ShellStatus::Running),
    ];
    p
}

fn screen(p: &BashesPanel, width: u16, height: u16) -> String {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    p.render(area, &mut buf);
    (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_list_selects_kills_the_selected_one_and_esc_closes() {
    let mut p = panel();
    let shown = screen(&p, 80, 6);
    assert!(shown.contains("bash_1  exit code 0"), "{shown}");
    assert!(shown.contains("bash_2  running"), "{shown}");
    assert!(shown.contains("1m 05s"), "{shown}");
    assert_eq!(p.handle_key(key(KeyCode::Down)), BashesOutcome::Pending);
    assert_eq!(
        p.handle_key(key(KeyCode::Char('k'))),
        BashesOutcome::Kill("bash_2".into())
    );
    // Past the end the selection stays on the last one.
    p.handle_key(key(KeyCode::Down));
    assert_eq!(
        p.handle_key(key(KeyCode::Char('k'))),
        BashesOutcome::Kill("bash_2".into())
    );
    assert_eq!(p.handle_key(key(KeyCode::Esc)), BashesOutcome::Close);
}

#[test]
fn the_output_view_shows_the_tail_scrolls_and_esc_goes_back_to_the_list() {
    let mut p = panel();
    p.handle_key(key(KeyCode::Enter));
    assert_eq!(p.viewing(), Some("bash_1"));
    if let Some(v) = p.viewing.as_mut() {
        v.lines = (1..=50).map(|i| format!("line {i}")).collect();
    }
    // 10 rows: 2 of border, the command, the footer: 6 output lines.
    let shown = screen(&p, 60, 10);
    assert!(shown.contains("line 50"), "{shown}");
    assert!(shown.contains("line 45"), "{shown}");
    assert!(!shown.contains("line 44"), "{shown}");
    assert!(shown.contains("$ run bash_1"), "{shown}");
    p.handle_key(key(KeyCode::PageUp));
    let shown = screen(&p, 60, 10);
    assert!(
        shown.contains("line 44") && !shown.contains("line 45"),
        "{shown}"
    );
    p.handle_key(key(KeyCode::Home));
    let shown = screen(&p, 60, 10);
    assert!(
        shown.contains("line 1 ") && !shown.contains("line 7"),
        "{shown}"
    );
    p.handle_key(key(KeyCode::End));
    assert!(screen(&p, 60, 10).contains("line 50"));
    assert_eq!(
        p.handle_key(key(KeyCode::Char('k'))),
        BashesOutcome::Kill("bash_1".into())
    );
    assert_eq!(p.handle_key(key(KeyCode::Esc)), BashesOutcome::Pending);
    assert_eq!(p.viewing(), None);
    assert_eq!(p.handle_key(key(KeyCode::Esc)), BashesOutcome::Close);
}

#[test]
fn an_empty_list_says_how_commands_get_there_and_keys_do_nothing() {
    let mut p = BashesPanel::new();
    assert_eq!(p.handle_key(key(KeyCode::Enter)), BashesOutcome::Pending);
    assert_eq!(
        p.handle_key(key(KeyCode::Char('k'))),
        BashesOutcome::Pending
    );
    assert_eq!(p.viewing(), None);
    let shown = screen(&p, 100, 5);
    assert!(shown.contains("No background commands"), "{shown}");
}
