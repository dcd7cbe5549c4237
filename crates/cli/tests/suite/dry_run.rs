//! Dry runs in plan mode through the real binary (issue 50): commands that
//! are not read-only run unasked in a throwaway copy of the project, the
//! results say so and list what changed in the copy, later commands see
//! the copy, the project stays byte-identical (content, modes, times), the
//! network, the secret stores and places outside the working directories
//! stay out of reach, and the scratch area is gone once the plan is
//! approved — or, after a killed catui, at the next start.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use catui_testkit::{Script, Turn};
use common::{Sandbox, StreamSession, result_of};
use serde_json::json;

const HEADER: &str = "Dry run: this command ran in a throwaway copy of the project";
const CANARY: &str = "CANARY-DRY-RUN-SECRET-1618";

/// Content, mode, owner and times of everything beneath `root`.
fn tree(root: &Path) -> BTreeMap<PathBuf, String> {
    tree_of(root, true)
}

/// Content, mode and times of everything beneath `root`, and its owner
/// with `owner`.
pub(super) fn tree_of(root: &Path, owner: bool) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let uid = if owner {
                format!(" uid {}", m.uid())
            } else {
                String::new()
            };
            let mut v = format!(
                "mode {:o}{uid} mtime {}.{} ctime {}.{}",
                m.mode(),
                m.mtime(),
                m.mtime_nsec(),
                m.ctime(),
                m.ctime_nsec()
            );
            if m.is_dir() {
                stack.push(p.clone());
            } else if m.is_file() {
                v.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
            }
            out.insert(p, v);
        }
    }
    out
}

/// The scratch areas beneath `tmp` (catui's `catui-dryrun-UID` folder).
pub(super) fn scratch_areas(tmp: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for root in std::fs::read_dir(tmp).unwrap().flatten() {
        if root
            .file_name()
            .to_string_lossy()
            .starts_with("catui-dryrun-")
        {
            out.extend(
                std::fs::read_dir(root.path())
                    .unwrap()
                    .flatten()
                    .map(|e| e.path()),
            );
        }
    }
    out
}

/// A project with a Python test, a `src` tree and a secret in the home.
fn project(sb: &Sandbox) {
    sb.write("src/main.rs", "fn main() {}\n");
    sb.write("src/util/mod.rs", "pub fn f() {}\n");
    sb.write("sample.py", "def double(x):\n    return 2 * x\n");
    sb.write(
        "test_sample.py",
        "import unittest\nimport sample\n\n\
         class T(unittest.TestCase):\n    def test_double(self):\n        \
         self.assertEqual(sample.double(2), 4)\n",
    );
    let ssh = sb.dir.path().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("id_rsa"), CANARY).unwrap();
}

#[test]
fn plan_mode_checks_the_plan_in_a_throwaway_copy_and_approval_removes_it() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    project(&sb);
    let tmp = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let before = tree(&sb.project());

    let server = common::mock(Script::new());
    let mut cmd = sb.catui(&server);
    cmd.env("TMPDIR", tmp.path());
    let mut s = StreamSession::start(cmd, &["--permission-mode", "plan"]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let plan_file = init["plan_file"].as_str().unwrap().to_string();
    let escape = outside.path().join("escaped");
    let bash = |id: &str, command: String| common::bash(id, &command);
    for turn in [
        bash("t1", "python3 -m unittest".into()),
        bash("t2", "touch x && echo hi > y".into()),
        bash("t3", "cat y".into()),
        bash("t4", "rm -rf src && ls".into()),
        bash(
            "n1",
            format!("curl -sS --max-time 3 http://127.0.0.1:{port}/"),
        ),
        bash(
            "s1",
            "cat \"$HOME/.ssh/id_rsa\"; grep -r CANARY \"$HOME\"".into(),
        ),
        bash("o1", format!("echo x > {}", escape.display())),
        common::write("p1", &plan_file, "# Plan\n\n1. Fix it\n"),
        common::exit_plan("x1"),
        Turn::text("Done."),
    ] {
        server.push(turn);
    }
    s.send_user("Plan a fix, checking it first.");
    // The only prompt is the plan's approval: no dry run asked.
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["tool_name"], "ExitPlanMode", "{ask}");
    // While planning the scratch area exists.
    assert_eq!(scratch_areas(tmp.path()).len(), 1);
    let input = ask["request"]["input"].clone();
    // The evidence for the approval: each command that ran dry, and how
    // it ended (read-only ones that only looked at the copy are not listed).
    let runs = input["dryRuns"].as_array().expect("dryRuns in the request");
    let listed: Vec<(&str, Option<i64>)> = runs
        .iter()
        .map(|r| (r["command"].as_str().unwrap(), r["exit_code"].as_i64()))
        .collect();
    assert_eq!(listed.len(), 5, "{listed:?}");
    assert_eq!(listed[0], ("python3 -m unittest", Some(0)));
    assert_eq!(listed[1], ("touch x && echo hi > y", Some(0)));
    assert_eq!(listed[2], ("rm -rf src && ls", Some(0)));
    assert!(listed[3].1.is_some_and(|c| c != 0), "{listed:?}");
    assert!(listed[4].1.is_some_and(|c| c != 0), "{listed:?}");
    s.send(common::allow_request(
        ask["request_id"].as_str().unwrap(),
        input,
    ));
    let result = s.wait_type("result");
    assert_eq!(result["subtype"], "success", "{result}");
    // Approval removed the scratch area.
    assert_eq!(scratch_areas(tmp.path()), Vec::<PathBuf>::new());
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(
        seen.iter()
            .filter(|v| v["type"] == "control_request")
            .count(),
        1
    );

    let reqs = server.requests();
    let last = reqs.last().unwrap();
    let (t1, _) = result_of(last, "t1");
    assert!(t1.starts_with(HEADER), "{t1}");
    common::assert_contains(&t1, "OK");
    common::assert_contains(&t1, "+ __pycache__/sample.");
    let (t2, t2_err) = result_of(last, "t2");
    assert!(!t2_err && t2.starts_with(HEADER), "{t2}");
    common::assert_contains(
        &t2,
        "Changes in the copy: 2 added, 0 modified, 0 deleted:\n+ x\n+ y",
    );
    let (t3, _) = result_of(last, "t3");
    assert!(t3.starts_with(HEADER) && t3.contains("\nhi\n"), "{t3}");
    common::assert_contains(&t3, "Changes in the copy: none.");
    let (t4, _) = result_of(last, "t4");
    common::assert_contains(&t4, "0 added, 0 modified, 1 deleted:\n- src");
    common::assert_lacks(&t4, "main.rs");
    let (n1, _) = result_of(last, "n1");
    assert!(n1.contains("Exit code:"), "curl must fail: {n1}");
    assert!(listener.accept().is_err(), "the listener was reached");
    let (s1, _) = result_of(last, "s1");
    common::assert_lacks(&s1, CANARY);
    let (o1, _) = result_of(last, "o1");
    common::assert_contains(&o1, "Exit code:");
    assert!(!escape.exists());

    // The project is byte-identical: contents, modes, times.
    assert_eq!(tree(&sb.project()), before);
}

#[test]
fn a_killed_catui_leaves_no_mount_and_its_scratch_goes_at_the_next_start() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false}"#);
    project(&sb);
    let tmp = tempfile::tempdir().unwrap();
    let server = common::mock(Script::new());
    let mut cmd = sb.catui(&server);
    cmd.env("TMPDIR", tmp.path());
    let mut s = StreamSession::start(cmd, &["--permission-mode", "plan"]);
    s.wait_for("init", |v| v["subtype"] == "init");
    server.push(common::bash("t1", "echo built > artefact"));
    server.push(Turn::text("Checked."));
    s.send_user("Check the build.");
    s.wait_type("result");
    let areas = scratch_areas(tmp.path());
    assert_eq!(areas.len(), 1, "{areas:?}");
    let area = areas[0].clone();
    assert!(!sb.project().join("artefact").exists());
    // Killed: nothing gets to clean up.
    let pid = s.child.id() as i32;
    // SAFETY: a signal to the child this test started.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
    let _ = s.child.wait();
    assert!(area.exists());
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    common::assert_lacks(&mounts, &area.display().to_string());

    let server = common::mock(Script::new().turn(Turn::text("hi")));
    let mut cmd = sb.catui(&server);
    cmd.env("TMPDIR", tmp.path()).args(["-p", "hi"]);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(!area.exists(), "the dead session's scratch is still there");
}

#[test]
fn a_scratch_area_over_its_limit_stops_the_command() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "dryRun": {"maxScratchMiB": 1}}"#);
    let tmp = tempfile::tempdir().unwrap();
    let server = common::mock(
        Script::new()
            .turn(common::bash_timeout(
                "t1",
                "head -c 4000000 /dev/zero > big && sleep 60",
                120000,
            ))
            .turn(Turn::text("Stopped.")),
    );
    let mut cmd = sb.catui(&server);
    cmd.env("TMPDIR", tmp.path())
        .args(["-p", "check", "--permission-mode", "plan"]);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let (t1, err) = result_of(&server.requests()[1], "t1");
    assert!(err, "{t1}");
    common::assert_contains(&t1, "scratch area grew past 1 MiB");
    assert!(!sb.project().join("big").exists());
}

#[test]
fn with_dry_runs_off_plan_mode_refuses_as_before() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "dryRun": false}"#);
    let server = common::mock(
        Script::new()
            .turn(common::bash("t1", "touch x"))
            .turn(Turn::text("Refused.")),
    );
    let out = sb.run(&server, ["-p", "check", "--permission-mode", "plan"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let (t1, err) = result_of(&server.requests()[1], "t1");
    assert!(err && t1.contains("Plan mode is active"), "{t1}");
    common::assert_lacks(&t1, HEADER);
    assert!(!sb.project().join("x").exists());
}

/// Plan mode through stream-json with the given `CATUI_SANDBOX_DISABLE`
/// (`None`: every layer this machine has) and user settings: the `init`
/// line's `sandbox`, and the tool result of `touch x` run in plan mode.
fn init_sandbox_and_touch(disable: Option<&str>, settings: &str) -> (Vec<String>, String) {
    let sb = Sandbox::new();
    sb.user_settings(settings);
    let tmp = tempfile::tempdir().unwrap();
    let server = common::mock(Script::new());
    let mut cmd = sb.catui(&server);
    cmd.env("TMPDIR", tmp.path());
    if let Some(d) = disable {
        cmd.env("CATUI_SANDBOX_DISABLE", d);
    }
    let mut s = StreamSession::start(cmd, &["--permission-mode", "plan"]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let sandbox = init["sandbox"]
        .as_array()
        .expect("init.sandbox is a list")
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    server.push(common::bash("t1", "touch x"));
    server.push(Turn::text("Done."));
    s.send_user("Check.");
    s.wait_type("result");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    // The reason is in init alone: no other line repeats it.
    assert!(
        !seen
            .iter()
            .any(|v| v["subtype"] != "init" && v.to_string().contains("no dry runs")),
        "{seen:?}"
    );
    let (t1, _) = result_of(server.requests().last().unwrap(), "t1");
    assert!(!sb.project().join("x").exists());
    (sandbox, t1)
}

#[test]
fn where_overlays_cannot_be_mounted_init_sandbox_says_why_and_plan_mode_refuses() {
    // Without bubblewrap there are no namespaces to mount overlays in.
    let (sandbox, t1) = init_sandbox_and_touch(Some("bubblewrap"), r#"{"planGoal": false}"#);
    let reasons: Vec<&String> = sandbox
        .iter()
        .filter(|e| e.starts_with("no dry runs: "))
        .collect();
    assert_eq!(
        reasons,
        vec!["no dry runs: bubblewrap does not work here (overlays need its namespaces)"],
        "{sandbox:?}"
    );
    assert_eq!(sandbox.last(), reasons.last().copied(), "{sandbox:?}");
    assert!(!sandbox.iter().any(|e| e == "bubblewrap"), "{sandbox:?}");
    common::assert_contains(&t1, "Plan mode is active");
    common::assert_lacks(&t1, HEADER);
}

#[test]
fn init_sandbox_names_no_reason_where_dry_runs_work_or_are_off() {
    // Every layer here: dry runs work, the list is the layers alone.
    let (sandbox, t1) = init_sandbox_and_touch(None, r#"{"planGoal": false}"#);
    assert_eq!(sandbox, ["bubblewrap", "landlock", "seccomp"]);
    assert!(t1.starts_with(HEADER), "{t1}");
    // Turned off by the user: nothing is unavailable, so no reason either.
    let (sandbox, t1) = init_sandbox_and_touch(
        Some("bubblewrap"),
        r#"{"planGoal": false, "dryRun": false}"#,
    );
    assert!(
        !sandbox.iter().any(|e| e.starts_with("no dry runs")),
        "{sandbox:?}"
    );
    common::assert_contains(&t1, "Plan mode is active");
}

/// Processes whose command line holds `marker`.
fn processes_with(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
        })
        .count()
}

#[test]
/// Many processes at once (more than the limit, but a bounded number: a real
/// fork bomb is not run here, since the machine's tests run as root, whom
/// the kernel exempts from RLIMIT_NPROC, and one would starve the tests
/// beside it before the 250 ms watch stops it).
fn a_dry_run_with_more_processes_than_its_limit_is_stopped() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "dryRun": {"maxProcesses": 64}}"#);
    let tmp = tempfile::tempdir().unwrap();
    // A sleep's command line holds it, as does the shell's; the touch
    // makes the line not read-only, so it runs dry.
    let marker = "1050.25";
    let server = common::mock(
        Script::new()
            .turn(common::bash_timeout(
                "t1",
                format!("touch started; for i in $(seq 300); do sleep {marker} & done; wait"),
                120000,
            ))
            .turn(Turn::text("Stopped.")),
    );
    let mut cmd = sb.catui(&server);
    cmd.env("TMPDIR", tmp.path())
        .args(["-p", "check", "--permission-mode", "plan"]);
    let out = common::output_within(cmd, b"", 100);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let (t1, err) = result_of(&server.requests()[1], "t1");
    assert!(err, "{t1}");
    assert!(t1.starts_with(HEADER), "{t1}");
    assert!(
        t1.contains("reached its limit of 64 processes"),
        "stopped by the process limit, not the time limit: {t1}"
    );
    // Nothing of it is left running.
    let mut left = processes_with(marker);
    for _ in 0..50 {
        if left == 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        left = processes_with(marker);
    }
    assert_eq!(left, 0, "the processes outlived the dry run");
}

#[test]
fn read_grep_and_glob_show_the_real_project_and_say_a_dry_run_changed_it() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    project(&sb);
    let tmp = tempfile::tempdir().unwrap();
    let before = tree(&sb.project());
    let server = common::mock(
        Script::new()
            .turn(common::bash(
                "b1",
                "echo built > made.txt && echo '// DRYMARK' >> src/main.rs",
            ))
            .turn(common::read("r1", "made.txt"))
            .turn(common::read("r2", "src/main.rs"))
            .turn(common::read("r3", "src/util/mod.rs"))
            .turn(Turn::tool_use(
                "g1",
                "Grep",
                json!({"pattern": "DRYMARK", "path": "src"}),
            ))
            .turn(Turn::tool_use(
                "g2",
                "Grep",
                json!({"pattern": "pub fn", "path": "src/util"}),
            ))
            .turn(Turn::tool_use("f1", "Glob", json!({"pattern": "*.txt"})))
            .turn(Turn::text("Checked.")),
    );
    let out = sb
        .catui(&server)
        .env("TMPDIR", tmp.path())
        .args(["-p", "check", "--permission-mode", "plan"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let reqs = server.requests();
    let last = reqs.last().unwrap();
    let (b1, _) = result_of(last, "b1");
    assert!(b1.starts_with(HEADER), "{b1}");
    const NOTE: &str = "Note: a dry run changed";
    // A file only the copy has: the read fails, and says why.
    let (r1, r1_err) = result_of(last, "r1");
    assert!(
        r1_err && r1.contains(NOTE) && r1.contains("made.txt"),
        "{r1}"
    );
    // A file the copy changed: the real one is shown, and said so.
    let (r2, _) = result_of(last, "r2");
    assert!(
        r2.contains("fn main() {}") && !r2.contains("DRYMARK"),
        "{r2}"
    );
    common::assert_contains(&r2, &format!("{NOTE} this path"));
    // Untouched by the dry run: no note.
    let (r3, _) = result_of(last, "r3");
    assert!(r3.contains("pub fn f()") && !r3.contains(NOTE), "{r3}");
    let (g1, _) = result_of(last, "g1");
    assert!(
        !g1.contains("main.rs:"),
        "the real project has no mark: {g1}"
    );
    common::assert_contains(&g1, &format!("{NOTE} 1 path beneath this one"));
    let (g2, _) = result_of(last, "g2");
    common::assert_lacks(&g2, NOTE);
    let (f1, _) = result_of(last, "f1");
    assert!(!f1.contains("made.txt\n") && f1.contains(NOTE), "{f1}");
    common::assert_contains(&f1, "2 paths beneath this one");
    assert_eq!(tree(&sb.project()), before);
}
