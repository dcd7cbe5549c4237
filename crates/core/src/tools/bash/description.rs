//! What the model reads about Bash: its description, which says what a
//! command may do unasked and what happens when it needs more, worded for
//! who is asked then ([`Asking`]).

use catui_protocol::tool_names::BASH_INPUT;

use super::{DEFAULT_TIMEOUT_MS, MAX_OUTPUT_CHARS, MAX_TIMEOUT_MS};

/// What Bash's text says happens when a command needs more than it may do
/// unasked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Asking {
    /// The user is asked first.
    #[default]
    User,
    /// Nobody is asked: the permission mode and rules decide (an
    /// unattended run, bypassPermissions).
    Nobody,
    /// A read-only agent: it never widens what it does, and has no
    /// background commands.
    Never,
}

/// Bash's description for `asking`.
pub(super) fn describe(asking: Asking) -> String {
    let unconfined = match asking {
        Asking::User => {
            " If such a command fails because it needs to write or to reach the network, run it \
             again with `unconfined: true` and the user will be asked."
        }
        Asking::Nobody => {
            " If such a command fails because it needs to write or to reach the network, run it \
             again with `unconfined: true`; nobody is asked here, so it runs only where the \
             permission mode or rules allow it."
        }
        Asking::Never => "",
    };
    // Read-only agents get neither `unconfined` nor background commands.
    let background = if asking == Asking::Never {
        String::new()
    } else {
        format!(
            "- With `run_in_background: true` the command starts and the call returns at once \
             with an id (no `&` needed, no time limit). Read what it printed since the last look \
             with BashOutput, type into it with {BASH_INPUT} (it runs on a terminal of its own, so \
             editors, REPLs and prompts work there), stop it with KillShell; when it ends you \
             are told with its exit code, so there is no need to poll or sleep. Use it for \
             servers, watchers, long builds or test runs, and interactive programs.\n\
             - Everything started here ends when the session ends. Add `keep_running: true` \
             (with `run_in_background`) only for a service the task needs after the session: \
             it is then left running, without a terminal or input.\n"
        )
    };
    format!(
        "Runs a command with bash and returns what it printed (stdout and stderr together) \
         and its exit code.\n\n\
         - The working directory carries over between calls, so a `cd` stays in effect; other \
         shell state does not (`export`, `source`, aliases), so set variables in the command \
         that needs them. File tools ignore `cd`: their relative paths start at the project root.\n\
         - A command run this way has no input (stdin is empty) and no terminal: editors, \
         pagers and prompts wait until the time limit, so pass non-interactive flags \
         (`--no-edit`, `-y`, `--no-pager`).\n\
         - Quote paths that contain spaces. Join dependent steps with `&&`; independent \
         read-only commands can go in separate calls.\n\
         - To read or search files use Read, Glob and Grep rather than `cat`, `head`, `find` or \
         `grep`; `ls` is fine for a quick look at one directory.\n\
         - The time limit is `timeout` milliseconds (default {DEFAULT_TIMEOUT_MS}, at most \
         {MAX_TIMEOUT_MS}); when it passes, the command and everything it started are killed.\n\
         - Output longer than {MAX_OUTPUT_CHARS} characters is shortened: the beginning and \
         the end are kept, and the whole output is saved to a file whose path is given.\n\
         {background}- Processes the command leaves running in the background (`server &`) keep \
         running until the session ends, and are stopped then (those of a command run in the \
         read-only sandbox end with it).\n\
         - Commands that only read run without asking, in a read-only sandbox (writes only \
         to a private temporary directory and /dev/null, no network).{unconfined}\n\
         - In plan mode, commands that are not read-only run as dry runs where the system \
         allows it: in a throwaway copy of the project (and home directory), no network; the \
         result says so and lists what changed in the copy, and nothing of it survives \
         planning. Where dry runs are not possible, only read-only commands may run in plan \
         mode."
    )
}
