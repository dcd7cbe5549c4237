//! The terminal UI harness: the real `catui` binary in a private tmux
//! server, driven by keystrokes and read back with `capture-pane`, against
//! the testkit mock model. Every wait polls the screen with a generous
//! timeout; nothing sleeps for a fixed time beyond a poll.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use catui_testkit::{MockServer, Script};

use super::Sandbox;

/// How long one step may take before the test fails.
pub const STEP: Duration = Duration::from_secs(20);
pub const POLL: Duration = Duration::from_millis(100);
pub const SHELL_PROMPT: &str = "e2e-shell$ ";

/// Fails the calling test when tmux cannot be run: the terminal tests
/// drive the real interface in a tmux pane and never pass without it.
/// `.ci/run` installs tmux (`apt-get install tmux`).
pub fn require_tmux() {
    let found = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "tmux is required by the terminal tests: apt-get install tmux (.ci/run installs it)"
    );
}

/// A private tmux server (its own socket) with one pane running `sh`.
pub struct Tmux {
    socket: PathBuf,
    /// The server's pid, so `Drop` can end it even when its socket is gone.
    server_pid: Option<u32>,
}

impl Tmux {
    /// Starts `sh` in `cwd` with exactly `env` (nothing inherited from the
    /// test process, so no real API key can leak in), in a 110x40 window.
    pub fn start(dir: &Path, cwd: &Path, env: &[(&str, String)]) -> Tmux {
        Tmux::start_sized(dir, cwd, env, (110, 40))
    }

    /// [`Tmux::start`] in a window of `size` (columns, rows).
    pub fn start_sized(dir: &Path, cwd: &Path, env: &[(&str, String)], size: (u16, u16)) -> Tmux {
        let mut tmux = Tmux {
            socket: dir.join("tmux.sock"),
            server_pid: None,
        };
        let (w, h) = (size.0.to_string(), size.1.to_string());
        let mut args: Vec<String> = ["new-session", "-d", "-s", "e2e", "-x", &w, "-y", &h]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.push("-c".into());
        args.push(cwd.display().to_string());
        args.push("env".into());
        args.push("-i".into());
        for (k, v) in env {
            args.push(format!("{k}={v}"));
        }
        args.push("/bin/sh".into());
        let out = tmux.run(&args);
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        tmux.server_pid = tmux.display("#{pid}").trim().parse().ok();
        tmux
    }

    pub fn run<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("-f")
            .arg("/dev/null")
            .args(args)
            .output()
            .unwrap()
    }

    /// Sends key names (`Enter`, `BTab`, `C-c`, ...).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success(), "send-keys {keys:?}");
    }

    /// Types `text` literally.
    pub fn type_text(&self, text: &str) {
        assert!(
            self.run(&["send-keys", "-t", "e2e", "-l", text])
                .status
                .success(),
            "send-keys -l {text}"
        );
    }

    /// Types `text` and presses Enter.
    pub fn submit(&self, text: &str) {
        self.type_text(text);
        self.keys(&["Enter"]);
    }

    /// The visible screen of the pane.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    /// The pane's scrollback and screen, oldest line first.
    pub fn history(&self) -> String {
        String::from_utf8_lossy(
            &self
                .run(&["capture-pane", "-p", "-S", "-", "-E", "-", "-t", "e2e"])
                .stdout,
        )
        .into_owned()
    }

    /// The visible screen with colours and attributes as escape sequences.
    pub fn screen_styled(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-e", "-t", "e2e"]).stdout)
            .into_owned()
    }

    /// Resizes the window to `columns` x `rows`.
    pub fn resize(&self, columns: u16, rows: u16) {
        let (w, h) = (columns.to_string(), rows.to_string());
        let out = self.run(&["resize-window", "-t", "e2e", "-x", &w, "-y", &h]);
        assert!(out.status.success(), "resize-window {w}x{h}");
    }

    /// How many times `marker` occurs in the scrollback and screen.
    pub fn copies_in_history(&self, marker: &str) -> usize {
        self.history().matches(marker).count()
    }

    /// A pane property, e.g. `#{alternate_on}`.
    pub fn display(&self, format: &str) -> String {
        String::from_utf8_lossy(
            &self
                .run(&["display-message", "-p", "-t", "e2e", format])
                .stdout,
        )
        .trim()
        .to_string()
    }

    /// Polls the screen until `pred` holds; fails with the screen shown.
    pub fn wait_screen(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if pred(&screen) {
                return screen;
            }
            if start.elapsed() > STEP {
                panic!("timed out after {STEP:?} waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(POLL);
        }
    }

    pub fn wait_text(&self, text: &str) -> String {
        self.wait_screen(&format!("{text:?} on screen"), |s| s.contains(text))
    }

    /// Polls the scrollback and screen until they contain `text`.
    pub fn wait_history(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let all = self.history();
            if all.contains(text) {
                return all;
            }
            if start.elapsed() > STEP {
                panic!("timed out after {STEP:?} waiting for {text:?} in the scrollback:\n{all}");
            }
            std::thread::sleep(POLL);
        }
    }
}

impl Drop for Tmux {
    /// Ends the server and everything running in it (catui, sh). Falls back
    /// to signalling the server's pid when the socket no longer answers.
    fn drop(&mut self) {
        let killed = self.run(&["kill-server"]).status.success();
        if let (false, Some(pid)) = (killed, self.server_pid) {
            let _ = Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
        }
    }
}

/// Polls `f` until it returns `Some`, failing after one step's timeout.
pub fn wait_for<T>(what: &str, tmux: &Tmux, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        if start.elapsed() > STEP {
            panic!(
                "timed out after {STEP:?} waiting for {what}; screen:\n{}",
                tmux.screen()
            );
        }
        std::thread::sleep(POLL);
    }
}

/// The status line: the live area's last row, the screen's last non-blank
/// one while catui runs (empty when that row is the shell's). It names the
/// model always, the tokens only once some were counted.
pub fn status_line(screen: &str) -> String {
    let last = screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    if last.starts_with(SHELL_PROMPT.trim_end()) || last.contains("catui-exit") {
        return String::new();
    }
    last.to_string()
}

pub fn mode_on_screen(screen: &str) -> &'static str {
    let status = status_line(screen);
    if status.contains("plan mode on") {
        "plan"
    } else if status.contains("accept edits on") {
        "acceptEdits"
    } else if status.contains("default mode") {
        "default"
    } else {
        "unknown"
    }
}

/// The session: a project with one file, a mock model, tmux running `sh`
/// in the project with catui's environment.
/// `tmux` comes first: fields drop in order, and the server must be killed
/// through its socket before the sandbox directory holding it is removed.
pub struct Setup {
    pub tmux: Tmux,
    pub sb: Sandbox,
    pub server: MockServer,
    pub main_rs: PathBuf,
    pub plans_dir: String,
}

pub fn setup(script: impl FnOnce(&Sandbox, &str, &Path) -> Script, editor: Option<&str>) -> Setup {
    setup_sized(script, editor, (110, 40))
}

/// A terminal session whose model plays `script` (tmux required).
pub fn tmux_session(script: Script) -> Setup {
    require_tmux();
    setup(|_, _, _| script, None)
}

/// [`tmux_session`] in a window of `size` (columns, rows).
pub fn tmux_session_sized(script: Script, size: (u16, u16)) -> Setup {
    require_tmux();
    setup_sized(|_, _, _| script, None, size)
}

/// [`setup`] in a window of `size` (columns, rows).
pub fn setup_sized(
    script: impl FnOnce(&Sandbox, &str, &Path) -> Script,
    editor: Option<&str>,
    size: (u16, u16),
) -> Setup {
    let sb = Sandbox::new();
    let main_rs = sb.write("src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n");
    let plans_dir = super::plans_dir(&sb);
    let server = super::mock(script(&sb, &plans_dir, &main_rs));
    let mut env = vec![
        (
            "PATH",
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
        ),
        ("HOME", sb.dir.path().display().to_string()),
        ("TERM", "xterm-256color".to_string()),
        ("LANG", "C.UTF-8".to_string()),
        ("PS1", SHELL_PROMPT.to_string()),
        ("CATUI_CONFIG_DIR", sb.config().display().to_string()),
        ("CATUI_MODEL", "test-model".to_string()),
        ("CATUI_RETRY_BASE_MS", "1".to_string()),
        ("ANTHROPIC_API_KEY", "test-key-not-secret".to_string()),
        ("ANTHROPIC_BASE_URL", server.url()),
    ];
    if let Some(editor) = editor {
        env.push(("VISUAL", editor.to_string()));
    }
    let tmux = Tmux::start_sized(sb.dir.path(), &sb.project(), &env, size);
    tmux.wait_text(SHELL_PROMPT.trim_end());
    Setup {
        tmux,
        sb,
        server,
        main_rs,
        plans_dir,
    }
}

/// Starts catui from the shell and waits for its first frame. The
/// interface draws on the normal screen (no alternate screen), so what it
/// prints stays in the scrollback.
pub fn launch(s: &Setup) {
    launch_with(s, "");
}

/// [`launch`] with `env` (`NAME=value ...`, may be empty) before the command.
pub fn launch_with(s: &Setup, env: &str) {
    launch_command(s, &format!("{env}'{}'", catui_bin().display()));
}

/// The `catui` binary under test.
pub fn catui_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("catui")
}

/// Starts catui with `args` (shell words) and returns its process id: a
/// shell writes its pid to a file and `exec`s catui. With `own_session`
/// catui runs under `setsid`, so the pane's pty is not its controlling
/// terminal and closing the pane sends it no SIGHUP.
pub fn launch_with_pid(s: &Setup, args: &str, own_session: bool) -> u32 {
    let pid_file = s.sb.dir.path().join("catui.pid");
    let _ = std::fs::remove_file(&pid_file);
    let wrapper = if own_session { "setsid -w " } else { "" };
    launch_command(
        s,
        &format!(
            "{wrapper}sh -c 'echo $$ > \"$1\"; shift; exec \"$@\"' sh '{}' '{}' {args}",
            pid_file.display(),
            catui_bin().display()
        ),
    );
    std::fs::read_to_string(&pid_file)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or_else(|| panic!("no pid in {}", pid_file.display()))
}

/// Whether process `pid` has ended (gone, or a zombie nobody reaped yet).
pub fn process_ended(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

/// Runs `command` in the pane's shell (then echoes its exit status) and
/// waits for the interface's first frame.
fn launch_command(s: &Setup, command: &str) {
    s.tmux
        .type_text(&format!("{command}; echo \"catui-exit=$?\""));
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Shift+Tab cycles permission modes");
    s.tmux
        .wait_screen("the status line", |sc| !status_line(sc).is_empty());
    assert_eq!(
        s.tmux.display("#{alternate_on}"),
        "0",
        "the UI must not use the alternate screen"
    );
}

/// Presses Shift+Tab until the status line shows `target`, one press at a
/// time, each waiting for the status line to change.
pub fn cycle_mode_to(tmux: &Tmux, target: &str) {
    for _ in 0..5 {
        let before = mode_on_screen(&tmux.screen());
        if before == target {
            return;
        }
        tmux.keys(&["BTab"]);
        tmux.wait_screen("the mode to change after Shift+Tab", |s| {
            let now = mode_on_screen(s);
            now != before && now != "unknown"
        });
    }
    panic!(
        "Shift+Tab never reached {target}; screen:\n{}",
        tmux.screen()
    );
}

/// Ctrl+C twice quits; the shell gets the terminal back in cooked mode.
pub fn quit_and_check_terminal(s: &Setup) {
    s.tmux.keys(&["C-c", "C-c"]);
    s.tmux.wait_text("catui-exit=0");
    assert_eq!(
        s.tmux.display("#{alternate_on}"),
        "0",
        "the alternate screen was left on"
    );
    let stty = s.sb.dir.path().join("stty.txt");
    s.tmux.type_text(&format!("stty -a > '{}'", stty.display()));
    s.tmux.keys(&["Enter"]);
    let settings = wait_for("stty -a output", &s.tmux, || {
        std::fs::read_to_string(&stty)
            .ok()
            .filter(|t| t.contains("icanon"))
    });
    let flags: Vec<&str> = settings.split_whitespace().collect();
    for flag in ["icanon", "echo", "isig", "icrnl", "opost"] {
        assert!(
            flags.contains(&flag) && !flags.contains(&format!("-{flag}").as_str()),
            "terminal not restored: `{flag}` is off after catui exited:\n{settings}"
        );
    }
}
