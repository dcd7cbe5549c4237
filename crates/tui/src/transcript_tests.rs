//! Tests of the transcript: windows, the row index and the row cache.

use super::*;

#[test]
fn window_matches_full_render_and_cache_follows_changes() {
    let mut t = Transcript::default();
    for i in 0..50 {
        t.push(EntryKind::User(format!("message {i}\nsecond line")));
    }
    let total = t.height(40);
    assert_eq!(total, 150);
    let all = t.window(40, 0, total);
    let part = t.window(40, 99, 10);
    assert_eq!(part, all[99..109].to_vec());
    assert_eq!(part[0].to_string(), "> message 33");

    t.push(EntryKind::Tool(Box::new(ToolEntry {
        id: "t1".into(),
        name: "Read".into(),
        input: serde_json::json!({"file_path": "a.rs"}),
        summary: "Read(a.rs)".into(),
        status: ToolStatus::Running,
        result: None,
        agent: None,
        live: None,
    })));
    let h = t.height(40);
    assert_eq!(t.window(40, h - 2, 1)[0].to_string(), "  ⎿  Running…");
    if let Some(tool) = t.tool_mut("t1") {
        tool.status = ToolStatus::Done;
        tool.result = Some("Read 3 lines".into());
    }
    assert_eq!(t.window(40, h - 2, 1)[0].to_string(), "  ⎿  Read 3 lines");
    assert!(t.open_tool_ids().is_empty());
}

#[test]
fn rows_stay_cached_only_for_recent_and_paged_entries() {
    let mut t = Transcript::default();
    for i in 0..2_000 {
        t.push(EntryKind::User(format!("message {i}\nsecond line")));
        // The live area reads the newest entry on every frame.
        let _ = t.entries()[i].rows(40);
    }
    assert!(t.entries_with_rows() <= RECENT_ROWS);
    // Printing to the scrollback keeps nothing.
    let printed: usize = t.entries().iter().map(|e| e.rows_once(40).len()).sum();
    assert_eq!(printed, 6_000);
    assert!(t.entries_with_rows() <= RECENT_ROWS);
    // The transcript view scrolls through everything, and the index
    // needs every height: still bounded, and every window is right.
    let total = t.total_rows(40, true);
    assert_eq!(total, 6_000);
    for start in (0..total).step_by(37) {
        let got = t.window_at(40, true, start, 20);
        let first = start / 3;
        let want = format!("> message {first}");
        let row = got[0].to_string();
        assert!(
            row == want || row == "  second line" || row.is_empty(),
            "row {start}: {row:?}"
        );
        if start % 3 == 0 {
            assert_eq!(row, want);
        }
    }
    assert!(t.entries_with_rows() <= RECENT_ROWS + PAGER_ROWS);
    // Scrolling back re-renders what was let go, identically.
    assert_eq!(t.window_at(40, true, 0, 1)[0].to_string(), "> message 0");
    assert_eq!(t.height(40), 6_000);
}

/// Every row, entry by entry, without the index: what a window must match.
fn brute(t: &Transcript, width: usize, expanded: bool) -> Vec<String> {
    t.entries()
        .iter()
        .flat_map(|e| {
            e.rows_at(width, expanded)
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn tool(id: &str, lines: usize) -> EntryKind {
    let out: String = (1..=lines).map(|i| format!("line {i}\n")).collect();
    EntryKind::Tool(Box::new(ToolEntry {
        id: id.into(),
        name: "Bash".into(),
        input: serde_json::json!({"command": "seq"}),
        summary: "Bash(seq)".into(),
        status: ToolStatus::Done,
        result: Some(out),
        agent: None,
        live: None,
    }))
}

#[test]
fn the_row_index_follows_pushes_edits_pops_widths_and_unfolding() {
    let mut t = Transcript::default();
    let check = |t: &Transcript, width: usize, expanded: bool| {
        let all = brute(t, width, expanded);
        assert_eq!(t.total_rows(width, expanded), all.len());
        for start in [
            0,
            1,
            all.len() / 3,
            all.len() / 2,
            all.len().saturating_sub(7),
        ] {
            let got: Vec<String> = t
                .window_at(width, expanded, start, 7)
                .iter()
                .map(|r| r.to_string())
                .collect();
            let want: Vec<String> = all.iter().skip(start).take(7).cloned().collect();
            assert_eq!(
                got, want,
                "width {width}, expanded {expanded}, start {start}"
            );
        }
    };
    for i in 0..30 {
        t.push(EntryKind::User(format!("question {i}")));
        t.push(tool(&format!("t{i}"), 3 + i % 9));
    }
    check(&t, 60, false);
    check(&t, 60, true);
    check(&t, 33, true);
    // An early entry grows: everything after it moves down.
    if let Some(entry) = t.tool_mut("t2") {
        entry.result = Some("one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\nthirteen\nfourteen\n".into());
    }
    check(&t, 33, true);
    check(&t, 33, false);
    t.pop();
    t.pop();
    check(&t, 33, false);
    t.push(EntryKind::User("after the pops".into()));
    check(&t, 33, false);
    assert_eq!(
        t.window_at(33, false, t.total_rows(33, false) - 2, 1)[0].to_string(),
        "> after the pops"
    );
    t.clear();
    assert_eq!(t.total_rows(33, false), 0);
    assert!(t.window_at(33, false, 0, 5).is_empty());
    t.push(EntryKind::User("fresh".into()));
    check(&t, 33, false);
}

#[test]
fn a_compliance_report_is_one_line_with_its_details_unfolded() {
    let report = catui_protocol::checkpoint::PlanCompliance {
        slug: "brisk-cedar-otter".into(),
        unplanned_files: vec!["setup.cfg".into()],
        untouched_files: vec!["tests/test_a.py".into()],
        steps_done: 1,
        steps_total: 2,
        undone_steps: vec!["Add tests".into()],
    };
    let kind = EntryKind::Compliance(report);
    let folded: Vec<String> = render_entry(&kind, 100, false)
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert_eq!(
        folded[0],
        "◇ Plan brisk-cedar-otter: 1/2 steps done, 1 unplanned file, 1 planned file untouched"
    );
    assert!(folded[1].contains("ctrl+o for details"), "{folded:?}");
    let unfolded: Vec<String> = render_entry(&kind, 100, true)
        .iter()
        .map(|l| l.to_string())
        .collect();
    let text = unfolded.join("\n");
    assert!(
        text.contains("Changed, not in the plan: setup.cfg"),
        "{text}"
    );
    assert!(
        text.contains("In the plan, unchanged: tests/test_a.py"),
        "{text}"
    );
    assert!(text.contains("Steps not done: Add tests"), "{text}");
}
