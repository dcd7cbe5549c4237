//! Ranking as a user expects it when typing a few letters of a file, and
//! the incremental matcher agreeing with a fresh one.

use crate::{Entry, Matcher};

use super::score;

fn entries(paths: &[&str]) -> Vec<Entry> {
    paths.iter().map(|p| Entry::new(*p)).collect()
}

fn ranked(paths: &[&str], query: &str) -> Vec<String> {
    let list = entries(paths);
    Matcher::default()
        .rank(&list, 1, query, 50)
        .into_iter()
        .map(|i| list[i].path().to_string())
        .collect()
}

#[test]
fn letters_must_appear_in_order_ignoring_ascii_case() {
    let e = Entry::new("src/Main.rs");
    assert!(score(&e, b"main").is_some());
    assert!(score(&e, b"smr").is_some());
    assert!(score(&e, b"nim").is_none());
    assert!(score(&e, b"mainx").is_none());
    assert_eq!(score(&e, b""), Some(0));
}

#[test]
fn the_file_named_by_the_query_comes_before_paths_that_merely_contain_its_letters() {
    let got = ranked(
        &[
            "docs/maintenance/guide.md",
            "src/domain/model.rs",
            "crates/tui/src/main_loop_helpers.rs",
            "src/main.rs",
        ],
        "main",
    );
    assert_eq!(got[0], "src/main.rs", "{got:?}");
    assert_eq!(got[1], "crates/tui/src/main_loop_helpers.rs", "{got:?}");
}

#[test]
fn a_name_match_beats_the_same_letters_in_a_directory() {
    let got = ranked(&["model/view.rs", "src/model.rs", "model/"], "model");
    assert_eq!(got[0], "model/", "{got:?}");
    assert_eq!(got[1], "src/model.rs", "{got:?}");
    assert_eq!(got[2], "model/view.rs", "{got:?}");
}

#[test]
fn word_starts_and_adjacent_letters_beat_scattered_ones() {
    // "fp" starts both words of file_picker; in "flip" they are scattered.
    let got = ranked(&["src/flip.rs", "src/file_picker.rs"], "fp");
    assert_eq!(got, ["src/file_picker.rs", "src/flip.rs"]);
    // camelCase counts as a word start.
    let got = ranked(&["src/apple_pie.txt", "src/AppState.ts"], "as");
    assert_eq!(got[0], "src/AppState.ts", "{got:?}");
}

#[test]
fn a_query_with_a_slash_matches_across_directories() {
    let got = ranked(
        &[
            "crates/core/src/render.rs",
            "crates/tui/src/render.rs",
            "crates/tui/tests/snapshots.rs",
        ],
        "tui/render",
    );
    assert_eq!(got, ["crates/tui/src/render.rs"]);
}

#[test]
fn ties_go_to_the_shorter_path_then_by_name() {
    let got = ranked(&["b/lib.rs", "a/lib.rs", "deeper/x/lib.rs"], "lib.rs");
    assert_eq!(got, ["a/lib.rs", "b/lib.rs", "deeper/x/lib.rs"]);
}

#[test]
fn the_limit_keeps_only_the_best() {
    let list = entries(&["z/aaa", "aaa", "y/x/aaa", "q/aaa"]);
    let got = Matcher::default().rank(&list, 1, "aaa", 2);
    let paths: Vec<&str> = got.iter().map(|&i| list[i].path()).collect();
    assert_eq!(paths, ["aaa", "q/aaa"]);
}

/// Typing one letter at a time, backspacing, and the list growing under
/// the matcher (a walk still running) give what a fresh matcher gives.
#[test]
fn the_incremental_matcher_agrees_with_a_fresh_one() {
    let all: Vec<String> = (0..2000)
        .map(|i| format!("dir{}/sub{}/file_{}_{}.rs", i % 7, i % 13, i, i % 5))
        .collect();
    let list: Vec<Entry> = all.iter().map(|p| Entry::new(p.as_str())).collect();
    let mut inc = Matcher::default();
    let steps: [(&str, usize); 7] = [
        ("f", 500),
        ("fi", 1200),
        ("fil", 2000),
        ("file_1", 2000),
        ("file_", 2000),
        ("file_12", 2000),
        ("d3s", 2000),
    ];
    for (query, len) in steps {
        let got = inc.rank(&list[..len], 7, query, 20);
        let fresh = Matcher::default().rank(&list[..len], 7, query, 20);
        assert_eq!(got, fresh, "query {query:?} over {len}");
        let expected = list[..len]
            .iter()
            .filter(|e| score(e, query.as_bytes()).is_some())
            .count();
        assert_eq!(inc.matched(), expected, "query {query:?}");
    }
    // Another list (generation) is not narrowed down from the old matches.
    let other = entries(&["zzz/only.rs"]);
    assert_eq!(inc.rank(&other, 8, "d3s", 5), Vec::<usize>::new());
    assert_eq!(inc.rank(&other, 8, "o", 5), vec![0]);
}
