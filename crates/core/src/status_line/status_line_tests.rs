//! The status line command run for real (`sh -c`): its first line cleaned
//! for the terminal, the session's JSON on its stdin, the allow-listed
//! environment, and failures and the time limit as errors.

use std::time::Duration;

use super::*;

fn command(text: &str, dir: &std::path::Path) -> StatusLineCommand {
    StatusLineCommand::new(text, dir, EnvPolicy::default())
}

#[tokio::test]
async fn the_first_line_is_shown_without_escape_sequences() {
    let dir = tempfile::tempdir().unwrap();
    let c = command(
        r"printf '\033[31mred\033[0m\tbranch \033]52;c;ZXZpbA==\007ok\nsecond\n'",
        dir.path(),
    );
    assert_eq!(c.run("{}", TIMEOUT).await, Ok(Some("red branch ok".into())));
    let silent = command("true", dir.path());
    assert_eq!(silent.run("{}", TIMEOUT).await, Ok(None));
}

#[tokio::test]
async fn it_reads_the_session_on_stdin_in_the_sessions_directory() {
    let dir = tempfile::tempdir().unwrap();
    let c = command(
        r#"printf '%s in %s' "$(cat)" "$(basename "$PWD")""#,
        dir.path(),
    );
    let name = dir
        .path()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let got = c.run(r#"{"model":"m"}"#, TIMEOUT).await.unwrap();
    assert_eq!(got, Some(format!(r#"{{"model":"m"}} in {name}"#)));
}

#[tokio::test]
async fn the_child_gets_the_allow_listed_environment() {
    let dir = tempfile::tempdir().unwrap();
    // cargo sets CARGO_MANIFEST_DIR in the test process, the parent here:
    // a name off the allow-list does not reach the child; a settings
    // `env` value does.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let policy = EnvPolicy {
        set: vec![("STATUS_FLAVOUR".into(), "plain".into())],
        pass: Vec::new(),
    };
    let c = StatusLineCommand::new(
        r#"echo "cargo=[${CARGO_MANIFEST_DIR:-none}] flavour=$STATUS_FLAVOUR""#,
        dir.path(),
        policy,
    );
    let got = c.run("{}", TIMEOUT).await;
    assert_eq!(got, Ok(Some("cargo=[none] flavour=plain".into())));
}

#[tokio::test]
async fn a_failing_or_slow_command_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let failing = command("echo 'no such theme' >&2; exit 3", dir.path());
    let err = failing.run("{}", TIMEOUT).await.unwrap_err();
    assert_eq!(err.to_string(), "it exited with status 3: no such theme");
    let slow = command("sleep 5; echo late", dir.path());
    let err = slow
        .run("{}", Duration::from_millis(200))
        .await
        .unwrap_err();
    assert_eq!(err, StatusLineError::TimedOut(Duration::from_millis(200)));
}

#[test]
fn the_debug_form_shows_no_environment_values() {
    let c = StatusLineCommand::new(
        "echo hi",
        "/tmp",
        EnvPolicy {
            set: vec![("TOKEN".into(), "secret-value".into())],
            pass: Vec::new(),
        },
    );
    assert!(!format!("{c:?}").contains("secret-value"));
}
