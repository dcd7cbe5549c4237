//! Telling a sandbox that failed to set up (nothing of the command ran,
//! so launching once more is safe) from a command that failed by itself.

use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::ExitStatus;

use super::foreground::{End, Run};
use super::launch::Confined;

fn ran(code: i32, output: &str, final_cwd: Option<&str>, confined: bool) -> Run {
    Run {
        output: output.to_string(),
        end: End::Exited(ExitStatus::from_raw(code << 8)),
        final_cwd: final_cwd.map(PathBuf::from),
        confined: confined.then(|| Confined {
            writable: Vec::new(),
            network: false,
        }),
    }
}

#[test]
fn bubblewraps_own_failure_before_the_shell_started_is_a_setup_failure() {
    let gone = "bwrap: Can't mkdir parents for /tmp/.tmpAbc/project/.env: No such file\n";
    assert!(ran(1, gone, None, true).sandbox_not_set_up());
}

#[test]
fn a_command_that_failed_by_itself_is_not_launched_again() {
    let gone = "bwrap: Can't mkdir parents for /tmp/x/.env: No such file\n";
    // The shell ran: its exit trap reported the directory.
    assert!(!ran(1, gone, Some("/project"), true).sandbox_not_set_up());
    // Another exit code, or output that is not bubblewrap's.
    assert!(!ran(2, gone, None, true).sandbox_not_set_up());
    assert!(!ran(1, "rm: cannot remove 'src'\n", None, true).sandbox_not_set_up());
    // Not confined: there was no bubblewrap.
    assert!(!ran(1, gone, None, false).sandbox_not_set_up());
}
