use super::*;

fn decode(bytes: &[u8]) -> Vec<Event> {
    let mut d = Decoder::default();
    let mut out = Vec::new();
    d.feed(bytes, &mut out);
    out
}

fn k(code: KeyCode, mods: KeyModifiers) -> Event {
    key(code, mods)
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const ALT: KeyModifiers = KeyModifiers::ALT;

#[test]
fn modify_other_keys_shift_enter_is_a_key_not_dropped() {
    assert_eq!(
        decode(b"a\x1b[27;2;13~b"),
        [
            k(KeyCode::Char('a'), NONE),
            k(KeyCode::Enter, SHIFT),
            k(KeyCode::Char('b'), NONE),
        ]
    );
    assert_eq!(decode(b"\x1b[27;5;13~"), [k(KeyCode::Enter, CTRL)]);
    assert_eq!(decode(b"\x1b[27;3;13~"), [k(KeyCode::Enter, ALT)]);
    assert_eq!(decode(b"\x1b[27;2;9~"), [k(KeyCode::BackTab, SHIFT)]);
    assert_eq!(decode(b"\x1b[27;5;59~"), [k(KeyCode::Char(';'), CTRL)]);
    assert_eq!(
        decode(b"\x1b[27;6;65~"),
        [k(KeyCode::Char('A'), SHIFT | CTRL)]
    );
}

#[test]
fn kitty_csi_u_keys() {
    assert_eq!(decode(b"\x1b[13;2u"), [k(KeyCode::Enter, SHIFT)]);
    assert_eq!(decode(b"\x1b[27u"), [k(KeyCode::Esc, NONE)]);
    assert_eq!(decode(b"\x1b[99;5u"), [k(KeyCode::Char('c'), CTRL)]);
    assert_eq!(
        decode(b"\x1b[97:65;6u"),
        [k(KeyCode::Char('A'), SHIFT | CTRL)]
    );
    let Event::Key(release) = decode(b"\x1b[97;1:3u")[0] else {
        panic!("a key");
    };
    assert_eq!(release.kind, KeyEventKind::Release);
    // A key catui has no code for (a lone modifier) is ignored.
    assert!(decode(b"\x1b[57441;2u").is_empty());
}

#[test]
fn text_and_control_keys() {
    assert_eq!(
        decode("hé€😀".as_bytes()),
        [
            k(KeyCode::Char('h'), NONE),
            k(KeyCode::Char('é'), NONE),
            k(KeyCode::Char('€'), NONE),
            k(KeyCode::Char('😀'), NONE),
        ]
    );
    assert_eq!(decode(b"Q"), [k(KeyCode::Char('Q'), SHIFT)]);
    assert_eq!(
        decode(b"\r\t\x7f\x03\n\x00\x1c"),
        [
            k(KeyCode::Enter, NONE),
            k(KeyCode::Tab, NONE),
            k(KeyCode::Backspace, NONE),
            k(KeyCode::Char('c'), CTRL),
            k(KeyCode::Char('j'), CTRL),
            k(KeyCode::Char(' '), CTRL),
            k(KeyCode::Char('4'), CTRL),
        ]
    );
    // Invalid UTF-8 is dropped, what follows still decodes.
    assert_eq!(decode(b"\xffx"), [k(KeyCode::Char('x'), NONE)]);
}

#[test]
fn escape_alt_and_cursor_keys() {
    assert_eq!(decode(b"\x1b"), [k(KeyCode::Esc, NONE)]);
    assert_eq!(
        decode(b"\x1b\x1b"),
        [k(KeyCode::Esc, NONE), k(KeyCode::Esc, NONE)]
    );
    assert_eq!(decode(b"\x1bb"), [k(KeyCode::Char('b'), ALT)]);
    assert_eq!(decode(b"\x1b\r"), [k(KeyCode::Enter, ALT)]);
    assert_eq!(
        decode(b"\x1b[A\x1b[1;5C\x1bOH\x1b[F\x1b[Z"),
        [
            k(KeyCode::Up, NONE),
            k(KeyCode::Right, CTRL),
            k(KeyCode::Home, NONE),
            k(KeyCode::End, NONE),
            k(KeyCode::BackTab, SHIFT),
        ]
    );
    assert_eq!(
        decode(b"\x1b[3~\x1b[5;2~\x1b[6~\x1bOP\x1b[15~\x1b[24~"),
        [
            k(KeyCode::Delete, NONE),
            k(KeyCode::PageUp, SHIFT),
            k(KeyCode::PageDown, NONE),
            k(KeyCode::F(1), NONE),
            k(KeyCode::F(5), NONE),
            k(KeyCode::F(12), NONE),
        ]
    );
    // Unknown sequences and terminal replies are consumed, not typed.
    assert_eq!(
        decode(b"\x1b[99~\x1b[?1u\x1b[>1;2c\x1b[9Xz"),
        [k(KeyCode::Char('z'), NONE)]
    );
}

#[test]
fn sequences_split_across_reads_wait_for_their_rest() {
    let mut d = Decoder::default();
    let mut out = Vec::new();
    d.feed(b"x\x1b[27;2", &mut out);
    assert_eq!(out, [k(KeyCode::Char('x'), NONE)]);
    d.feed(b";13~", &mut out);
    assert_eq!(out[1], k(KeyCode::Enter, SHIFT));
    out.clear();
    d.feed("€".as_bytes().get(..2).unwrap(), &mut out);
    assert!(out.is_empty());
    d.feed("€".as_bytes().get(2..).unwrap(), &mut out);
    assert_eq!(out, [k(KeyCode::Char('€'), NONE)]);
}

#[test]
fn an_unfinished_sequence_is_given_up_when_nothing_follows() {
    let mut d = Decoder::default();
    let mut out = Vec::new();
    d.feed(b"\x1b[1;", &mut out);
    d.idle(&mut out);
    assert!(out.is_empty());
    d.feed(b"a", &mut out);
    assert_eq!(out, [k(KeyCode::Char('a'), NONE)]);
    out.clear();
    d.feed(b"\x1bO", &mut out);
    d.idle(&mut out);
    assert_eq!(out, [k(KeyCode::Char('O'), SHIFT | ALT)]);
}

#[test]
fn bracketed_paste_keeps_its_text_across_reads_and_pauses() {
    let mut d = Decoder::default();
    let mut out = Vec::new();
    d.feed(b"\x1b[200~line one\r\nline", &mut out);
    d.idle(&mut out);
    assert!(out.is_empty());
    d.feed(" two \x1b[A é\x1b[201~z".as_bytes(), &mut out);
    assert_eq!(
        out,
        [
            Event::Paste("line one\r\nline two \x1b[A é".into()),
            k(KeyCode::Char('z'), NONE),
        ]
    );
}

#[test]
fn a_long_paste_in_many_reads_arrives_whole_once() {
    let body: String = (0..20_000).map(|i| format!("row {i}\n")).collect();
    let mut bytes = PASTE_START.to_vec();
    bytes.extend_from_slice(body.as_bytes());
    bytes.extend_from_slice(PASTE_END);
    bytes.push(b'!');
    let mut d = Decoder::default();
    let mut out = Vec::new();
    // Many reads, the last split inside the end marker.
    let split = PASTE_START.len() + body.len() + 3;
    for chunk in bytes[..split].chunks(4093).chain([&bytes[split..]]) {
        d.feed(chunk, &mut out);
        d.idle(&mut out);
    }
    assert_eq!(out.len(), 2, "{:?}", out.get(1));
    assert_eq!(out[0], Event::Paste(body));
    assert_eq!(out[1], k(KeyCode::Char('!'), NONE));
    assert_eq!(d.scanned, 0);
}

#[test]
fn focus_and_mouse_reports() {
    assert_eq!(
        decode(b"\x1b[I\x1b[O"),
        [Event::FocusGained, Event::FocusLost]
    );
    let kinds: Vec<_> = decode(b"\x1b[<64;10;5M\x1b[<65;1;1M\x1b[<0;3;4M\x1b[<0;3;4m\x1b[M`!!")
        .into_iter()
        .map(|e| match e {
            Event::Mouse(m) => (m.kind, m.column, m.row),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            (MouseEventKind::ScrollUp, 9, 4),
            (MouseEventKind::ScrollDown, 0, 0),
            (MouseEventKind::Down(MouseButton::Left), 2, 3),
            (MouseEventKind::Up(MouseButton::Left), 2, 3),
            (MouseEventKind::ScrollUp, 0, 0),
        ]
    );
}

#[test]
fn overlong_garbage_is_given_up() {
    let mut bytes = b"\x1b[".to_vec();
    bytes.extend(std::iter::repeat_n(b'1', MAX_SEQUENCE + 1));
    let mut d = Decoder::default();
    let mut out = Vec::new();
    d.feed(&bytes, &mut out);
    d.feed(b"k", &mut out);
    assert_eq!(out, [k(KeyCode::Char('k'), NONE)]);
}
