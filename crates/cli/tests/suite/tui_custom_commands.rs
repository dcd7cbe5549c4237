//! Custom commands in the terminal UI (tmux): a project's command is in
//! the `/` palette with its description, Tab completes its name, and
//! sending it with arguments sends its prompt with them filled in.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::tmux::{launch, quit_and_check_terminal, require_tmux, setup, wait_for};

#[test]
fn a_project_command_is_in_the_palette_and_runs_with_its_arguments() {
    require_tmux();
    let s = setup(
        |sb, _, _| {
            sb.write(
                ".catui/commands/git/review.md",
                "---\ndescription: Review the branch against main\nargument-hint: BRANCH\n---\nReview branch $1 carefully ($ARGUMENTS)\n",
            );
            Script::new().turn(Turn::text("Reviewed."))
        },
        None,
    );
    launch(&s);
    s.tmux.type_text("/git:");
    let screen = s.tmux.wait_text("/git:review");
    assert!(
        screen.contains("Review the branch against main BRANCH"),
        "{screen}"
    );
    s.tmux.keys(&["Tab"]);
    s.tmux.wait_text("> /git:review");
    s.tmux.submit(" feature-x now");
    s.tmux.wait_text("Reviewed.");
    let request = wait_for("the request", &s.tmux, || {
        s.server.requests().into_iter().next()
    });
    assert_eq!(
        request.last_user_typed().unwrap().trim(),
        "Review branch feature-x carefully (feature-x now)"
    );
    quit_and_check_terminal(&s);
}
