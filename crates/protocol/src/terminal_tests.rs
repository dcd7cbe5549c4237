//! The sanitiser against the sequences terminals act on.

use super::*;

#[test]
fn escape_sequences_go_whole_and_text_stays() {
    let cases = [
        // OSC 52 (clipboard) ended by BEL and by ST; OSC 2 (title).
        ("a\x1b]52;c;ZXZpbA==\x07b", "ab"),
        ("a\x1b]52;c;ZXZpbA==\x1b\\b", "ab"),
        ("a\x1b]2;pwned\x07b", "ab"),
        // CSI: colours, cursor moves, erase, private modes.
        ("\x1b[31mred\x1b[0m", "red"),
        ("x\x1b[2J\x1b[H\x1b[?1049hy", "xy"),
        ("x\x1b[1;1Hy", "xy"),
        // DCS, SOS, PM, APC.
        ("a\x1bPq#0;2;0;0;0\x1b\\b", "ab"),
        ("a\x1bXsos\x1b\\b\x1b^pm\x1b\\c\x1b_apc\x07d", "abcd"),
        // Two-byte escapes and a bare ESC at the end.
        ("a\x1bcb\x1b7c\x1b", "abc"),
        // C1 forms: CSI, OSC, DCS, ST alone.
        ("a\u{9b}31mb", "ab"),
        ("a\u{9d}52;c;ZXZpbA==\u{9c}b", "ab"),
        ("a\u{90}q\u{9c}b\u{9c}", "ab"),
        // Other controls: BEL, BS, DEL, NUL, a lone CR, C1 NEL.
        ("a\x07\x08\x7f\0b\rc\u{85}d", "abcd"),
    ];
    for (input, want) in cases {
        assert_eq!(sanitize(input), want, "{input:?}");
    }
}

#[test]
fn newlines_tabs_and_unicode_are_kept_and_clean_text_is_borrowed() {
    let text = "line 1\n\tindented — ünïcödé 日本語 ✓\r\nline 3\n";
    assert_eq!(
        sanitize(text),
        "line 1\n\tindented — ünïcödé 日本語 ✓\nline 3\n"
    );
    assert!(matches!(sanitize("plain\ntext\t"), Cow::Borrowed(_)));
}

#[test]
fn an_unterminated_string_stops_at_the_line_end() {
    assert_eq!(sanitize("a\x1b]52;c;AAAA\nnext line\n"), "a\nnext line\n");
    assert_eq!(sanitize("a\x1b[12"), "a");
}

#[test]
fn reveal_shows_every_control_but_newline_and_tab() {
    assert_eq!(reveal("a\x1b[31mb\x07\r\x7f\tc\n"), "a␛[31mb␇␍␡\tc\n");
    assert_eq!(reveal("x\u{9b}y"), "x⟨U+009B⟩y");
    assert!(matches!(reveal("echo hi"), Cow::Borrowed(_)));
}

#[test]
fn json_lines_get_their_c1_controls_escaped_and_stay_the_same_json() {
    let value = serde_json::json!({"result": "a\u{9d}52;c;x\u{9c}\x1b]2;t\x07"});
    let line = value.to_string();
    assert!(line.contains('\u{9d}'), "the encoder leaves C1 raw");
    let safe = json_line(&line);
    assert!(!safe.chars().any(char::is_control), "{safe}");
    let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
    assert_eq!(back, value);
}

#[test]
fn a_sequence_split_between_pieces_goes_as_whole() {
    let text = "ok \x1b]52;c;ZXZpbA==\x1b\\ \x1b[2J\u{9d}0;t\u{9c}done\r\n";
    // Every split point, including inside the sequences.
    for at in text.char_indices().map(|(i, _)| i) {
        let mut s = Sanitizer::new();
        let mut out = String::new();
        s.push_str(&text[..at], &mut out);
        s.push_str(&text[at..], &mut out);
        assert_eq!(out, "ok  done\n", "split at {at}");
    }
}

#[test]
fn intermediates_newlines_and_a_second_escape_are_not_swallowed() {
    // `ESC ( B` (character set) goes whole; a newline after a bare ESC
    // stays; `ESC ESC ]52` is still an OSC.
    assert_eq!(sanitize("a\x1b(Bb"), "ab");
    assert_eq!(sanitize("a\x1b\nb"), "a\nb");
    assert_eq!(sanitize("a\x1b\x1b]52;c;AAAA\x07b"), "ab");
    // A string ended by `ESC` and another sequence.
    assert_eq!(sanitize("a\x1b]2;t\x1b[31mb"), "ab");
}

#[test]
fn reveal_shows_invisible_format_characters() {
    assert_eq!(reveal("rm -rf /\u{202e}cod.txt"), "rm -rf /⟨U+202E⟩cod.txt");
    assert_eq!(reveal("a\u{200b}b"), "a⟨U+200B⟩b");
}
