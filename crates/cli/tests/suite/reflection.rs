//! Loop and error reflection through the real binary: three identical
//! calls in a row add a reminder to step back, and a tool error says what
//! to check first (a missing file: search for it; an Edit that matches
//! several places: where they are, and to widen the context).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::{Sandbox, output_within};

const STEP_BACK: &str = "Step back";

#[test]
fn three_identical_calls_in_a_row_add_a_reminder_to_step_back() {
    let sb = Sandbox::new();
    sb.write("a.txt", "alpha\n");
    let server = common::mock(
        Script::new()
            .turn(common::read("r1", "a.txt"))
            .turn(common::read("r2", "a.txt"))
            .turn(common::read("r3", "a.txt"))
            .turn(Turn::text("stopped looping")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "read it"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    let reqs = server.requests();
    // Not after one or two.
    for r in &reqs[1..3] {
        let last = r.messages().last().unwrap().to_string();
        assert!(!last.contains(STEP_BACK), "{last}");
    }
    let last = reqs[3].messages().last().unwrap().to_string();
    assert!(last.contains("same Read call"), "{last}");
    assert!(last.contains("3 times in a row"), "{last}");
    assert!(last.contains(STEP_BACK), "{last}");
}

#[test]
fn the_same_error_three_times_adds_the_reminder_and_errors_say_what_to_check() {
    let sb = Sandbox::new();
    sb.write("dup.txt", "x = 1\ny = 2\nx = 1\n");
    let server = common::mock(
        Script::new()
            .turn(common::read("r0", "dup.txt"))
            .turn(common::edit("e1", "dup.txt", "x = 1", "x = 3"))
            .turn(common::edit("e2", "./dup.txt", "x = 1", "x = 4"))
            .turn(common::edit("e3", "dup.txt", "x = 1", "x = 5"))
            .turn(common::read("m1", "missing.txt"))
            .turn(Turn::text("done")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "edit it", "--allowed-tools", "Edit"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    let reqs = server.requests();
    let (text, is_error) = common::result_of(&reqs[2], "e1");
    assert!(is_error);
    assert!(
        text.contains("occurs 2 times in the file (at lines 1, 3)"),
        "{text}"
    );
    assert!(text.contains("Widen the context"), "{text}");
    // Three different calls, one error: the error repeating is named.
    let last = reqs[4].messages().last().unwrap().to_string();
    assert!(
        last.contains("same error has now come back 3 times"),
        "{last}"
    );
    let (missing, _) = common::result_of(&reqs[5], "m1");
    assert!(missing.contains("Use Glob to find the file"), "{missing}");
}
