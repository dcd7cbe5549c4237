//! Live output in the terminal UI (the real binary in tmux against the
//! mock model): a running command's latest lines are on screen while it
//! runs, and once it ends its last lines are shown with how many more
//! there are. The command waits for a file this test creates, so "while it
//! runs" is decided by the test, not by timing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::result_of;
use common::tmux::*;

#[test]
fn a_running_command_shows_its_latest_lines_and_then_its_tail() {
    require_tmux();
    let s = setup(
        |sb, _, _| {
            let release = sb.dir.path().join("release");
            let command = format!(
                "echo starting; sleep 1; echo LINE-AT-$((0+1))-SECOND; \
                 while [ ! -e '{}' ]; do sleep 0.1; done; seq 1 20; echo ALL-DONE-$((6*7))",
                release.display()
            );
            Script::new()
                .turn(common::bash("b1", &command))
                .turn(Turn::text("The command finished."))
        },
        None,
    );
    launch(&s);
    s.tmux.submit("run the slow command");
    // The markers are computed by the shell, so the command's own text
    // (shown above its output) never contains them.
    let screen = s.tmux.wait_screen("the live line while it runs", |sc| {
        sc.contains("LINE-AT-1-SECOND") && sc.contains("Running…")
    });
    common::assert_lacks(&screen, "ALL-DONE-42");
    std::fs::write(s.sb.dir.path().join("release"), "").unwrap();
    let done = s.tmux.wait_text("The command finished.");
    // The tail, not the head: the last line and how many are folded.
    common::assert_contains(&done, "ALL-DONE-42");
    common::assert_contains(&done, "… +19 lines (ctrl+o to expand)");
    common::assert_lacks(&done, "Running…");
    quit_and_check_terminal(&s);
}

/// The pid a command wrote to `path`, once it is there.
fn pid_in(s: &Setup, path: &std::path::Path) -> u32 {
    wait_for("a pid file", &s.tmux, || {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
    })
}

/// A command that records its shell's and its job's pids, prints a line,
/// waits for `release`, prints another and then runs until killed. The
/// markers are computed by the shell, so the command's own text never
/// contains them.
fn long_command(dir: &std::path::Path) -> String {
    format!(
        "echo $$ > '{shell}'; sleep 300 & echo $! > '{job}'; echo BEFORE-$((40+2)); \
         while [ ! -e '{release}' ]; do sleep 0.1; done; echo AFTER-$((6*7)); wait",
        shell = dir.join("shell.pid").display(),
        job = dir.join("job.pid").display(),
        release = dir.join("release").display(),
    )
}

/// The model runs [`long_command`], then says it goes on in the background.
fn backgrounds_the_long_command(sb: &common::Sandbox) -> Script {
    Script::new()
        .turn(common::bash("b1", long_command(sb.dir.path())))
        .turn(Turn::text("It goes on in the background."))
}

#[test]
fn ctrl_b_sends_a_running_command_to_the_background_and_bashes_views_and_stops_it() {
    require_tmux();
    let s = setup(
        |sb, _, _| backgrounds_the_long_command(sb).turn(Turn::text("Noted.")),
        None,
    );
    let dir = s.sb.dir.path().to_path_buf();
    launch(&s);
    // Nothing runs yet: Ctrl+B only says so.
    s.tmux.keys(&["C-b"]);
    s.tmux
        .wait_text("No running command to send to the background");
    assert!(!status_line(&s.tmux.screen()).contains("in background"));

    s.tmux.submit("start the long command");
    s.tmux.wait_text("Do you want to proceed?");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_screen("the command running", |sc| {
        sc.contains("BEFORE-42") && sc.contains("Running…")
    });
    let shell_pid = pid_in(&s, &dir.join("shell.pid"));
    let job_pid = pid_in(&s, &dir.join("job.pid"));
    s.tmux.keys(&["C-b"]);
    let screen = s.tmux.wait_text("It goes on in the background.");
    common::assert_contains(&screen, "Sent to the background as bash_1");
    // The model's next request carries the id, and the command runs on.
    let requests = s.server.requests();
    let (result, is_error) = result_of(&requests[1], "b1");
    assert!(!is_error, "{result}");
    assert!(
        result.contains("sent this command to the background") && result.contains("id bash_1"),
        "{result}"
    );
    assert!(!process_ended(shell_pid) && !process_ended(job_pid));
    let screen = s.tmux.wait_screen("the count in the status line", |sc| {
        status_line(sc).contains("1 in background")
    });
    common::assert_lacks(&screen, "AFTER-42");

    // `/bashes`: the list, then the output (its tail, live), then stop it.
    s.tmux.submit("/bashes");
    let panel = s.tmux.wait_text("Background commands");
    common::assert_contains(&panel, "bash_1  running");
    common::assert_contains(&panel, "echo $$ >");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_screen("the output view", |sc| {
        sc.contains("bash_1 · running") && sc.contains("BEFORE-42") && sc.contains("k stop")
    });
    std::fs::write(dir.join("release"), "").unwrap();
    s.tmux.wait_screen("the new line in the view", |sc| {
        sc.contains("AFTER-42") && sc.contains("BEFORE-42")
    });
    s.tmux.keys(&["k"]);
    s.tmux.wait_screen("the command stopped", |sc| {
        sc.contains("bash_1 · killed") && sc.contains("Stopped bash_1")
    });
    wait_for("the command's processes to end", &s.tmux, || {
        (process_ended(shell_pid) && process_ended(job_pid)).then_some(())
    });
    s.tmux.keys(&["Escape"]);
    let list = s.tmux.wait_text("bash_1  killed");
    // The transcript says that it ended; nothing says it still runs.
    let all = s
        .tmux
        .wait_history("Background command bash_1 ended (killed)");
    common::assert_lacks(&all, "Running in the background");
    common::assert_contains(&list, "Esc close");
    s.tmux.keys(&["Escape"]);
    let screen = s
        .tmux
        .wait_screen("the panel closed and the count gone", |sc| {
            !sc.contains("Background commands") && !status_line(sc).contains("in background")
        });
    assert!(!status_line(&screen).is_empty(), "{screen}");

    // The model hears that it ended with its next request.
    s.tmux.submit("anything new?");
    s.tmux.wait_text("Noted.");
    let requests = s.server.requests();
    let sent = serde_json::to_string(requests[2].messages()).unwrap();
    assert!(
        sent.contains("Background command bash_1") && sent.contains("has ended: killed"),
        "{sent}"
    );
    quit_and_check_terminal(&s);
}

#[test]
fn a_command_sent_to_the_background_ends_when_catui_quits() {
    require_tmux();
    let s = setup(|sb, _, _| backgrounds_the_long_command(sb), None);
    let dir = s.sb.dir.path().to_path_buf();
    launch(&s);
    s.tmux.submit("start the long command");
    s.tmux.wait_text("Do you want to proceed?");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("BEFORE-42");
    let shell_pid = pid_in(&s, &dir.join("shell.pid"));
    let job_pid = pid_in(&s, &dir.join("job.pid"));
    s.tmux.keys(&["C-b"]);
    s.tmux.wait_text("It goes on in the background.");
    assert!(!process_ended(shell_pid) && !process_ended(job_pid));
    quit_and_check_terminal(&s);
    wait_for("the background command to end with catui", &s.tmux, || {
        (process_ended(shell_pid) && process_ended(job_pid)).then_some(())
    });
}
