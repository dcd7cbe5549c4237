//! The world the layer tests attack, the attacks on each guarantee, and
//! how to tell whether one got through.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::collections::BTreeMap;
use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use catui_sandbox::{Confinement, Guarantee, Layer, Layers, Sandbox, Stage};

/// Secrets' and the outside process's canaries.
pub const SECRET: &str = "CANARY-SECRET-KEY-3141";
pub const ENV_CANARY: &str = "CANARY-ENVIRON-2718";

/// A sandbox whose inner stage is this crate's stage binary.
pub fn sandbox(layers: Layers) -> Sandbox {
    Sandbox::with_layers(
        layers,
        Some(Stage {
            program: env!("CARGO_BIN_EXE_catui-sandbox-stage").into(),
            args: vec![],
        }),
    )
}

/// This machine's `layer` and nothing else.
pub fn only(layer: Layer) -> Layers {
    let all = Layers::detect();
    assert!(all.has(layer), "this machine lacks {}", layer.name());
    Layers {
        bubblewrap: layer == Layer::Bubblewrap,
        landlock: if layer == Layer::Landlock {
            all.landlock
        } else {
            0
        },
        seccomp: layer == Layer::Seccomp,
    }
}

/// A project, a home with secrets, a temp dir, listeners of every kind
/// and a process outside the sandbox.
pub struct World {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub project: PathBuf,
    pub home: PathBuf,
    pub temp: PathBuf,
    pub tcp: TcpListener,
    pub udp: UdpSocket,
    pub unix_path: PathBuf,
    unix: UnixListener,
    pub abstract_name: String,
    abstract_listener: UnixListener,
    outside: Child,
    before: BTreeMap<PathBuf, String>,
}

impl World {
    pub fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("project");
        let home = root.join("home");
        std::fs::create_dir_all(project.join("sub")).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        std::fs::write(project.join("f"), "original\n").unwrap();
        std::fs::write(project.join("sub/nested"), "nested\n").unwrap();
        std::fs::write(root.join("outside/kept"), "kept\n").unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), format!("{SECRET}\n")).unwrap();
        std::fs::write(home.join(".netrc"), format!("password {SECRET}\n")).unwrap();
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_nonblocking(true).unwrap();
        let unix_path = root.join("agent.sock");
        let unix = UnixListener::bind(&unix_path).unwrap();
        unix.set_nonblocking(true).unwrap();
        static WORLDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = WORLDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let abstract_name = format!("catui-test-{}-{n}", std::process::id());
        let addr = SocketAddr::from_abstract_name(abstract_name.as_bytes()).unwrap();
        let abstract_listener = UnixListener::bind_addr(&addr).unwrap();
        abstract_listener.set_nonblocking(true).unwrap();
        let outside = Command::new("sleep")
            .arg("300")
            .env("OUTSIDE_CANARY", ENV_CANARY)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let mut world = World {
            _dir: dir,
            temp: root.join("tmp"),
            root,
            project,
            home,
            tcp,
            udp,
            unix_path,
            unix,
            abstract_name,
            abstract_listener,
            outside,
            before: BTreeMap::new(),
        };
        world.before = world.snapshot();
        world
    }

    /// The confinement of a command judged read-only, hiding the secrets.
    pub fn read_only(&self) -> Confinement {
        Confinement::read_only(
            self.temp.clone(),
            vec![self.home.join(".ssh"), self.home.join(".netrc")],
        )
    }

    pub fn outside_pid(&self) -> u32 {
        self.outside.id()
    }

    /// Content, mode, owner, times (ctime too, which every metadata
    /// change moves) of everything but the temp dir and the sockets.
    pub fn snapshot(&self) -> BTreeMap<PathBuf, String> {
        let mut out = BTreeMap::new();
        let mut stack = vec![self.root.clone()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                if p == self.temp || p == self.unix_path {
                    continue;
                }
                let m = std::fs::symlink_metadata(&p).unwrap();
                let mut v = format!(
                    "mode {:o} uid {} gid {} mtime {}.{} ctime {}.{}",
                    m.mode(),
                    m.uid(),
                    m.gid(),
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

    /// Ends the world (the outside process is ended when it is dropped,
    /// also when a test fails).
    pub fn end(self) {}
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = self.outside.kill();
        let _ = self.outside.wait();
    }
}

/// One attack and what it would leave behind.
pub struct Attack {
    pub command: String,
    kind: Guarantee,
}

impl Attack {
    /// What got through, if anything (also drains what the listeners
    /// received, so the next attack starts clean).
    pub fn leaked(&self, world: &World, output: &str) -> Option<String> {
        let mut found = Vec::new();
        if let Ok((mut s, _)) = world.tcp.accept() {
            let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
            let mut buf = Vec::new();
            let _ = s.read_to_end(&mut buf);
            found.push(format!("reached the TCP listener ({} bytes)", buf.len()));
        }
        let mut buf = [0u8; 512];
        if let Ok(n) = world.udp.recv(&mut buf) {
            found.push(format!("sent {n} bytes to the UDP listener"));
        }
        if world.unix.accept().is_ok() {
            found.push("connected to the unix socket".into());
        }
        if world.abstract_listener.accept().is_ok() {
            found.push("connected to the abstract unix socket".into());
        }
        if world.temp.join("new.sock").exists() {
            let _ = std::fs::remove_file(world.temp.join("new.sock"));
            found.push("created a unix socket".into());
        }
        let now = world.snapshot();
        let changed: Vec<&PathBuf> = world
            .before
            .keys()
            .chain(now.keys())
            .filter(|k| world.before.get(*k) != now.get(*k))
            .collect();
        if !changed.is_empty() {
            found.push(format!("changed {changed:?}"));
        }
        let status = std::fs::read_to_string(format!("/proc/{}/status", world.outside_pid()))
            .unwrap_or_default();
        let state = status
            .lines()
            .find(|l| l.starts_with("State:"))
            .unwrap_or("gone");
        let tracer = status
            .lines()
            .find(|l| l.starts_with("TracerPid:"))
            .unwrap_or("");
        if !state.contains("S (sleeping)") || tracer.split_whitespace().nth(1) != Some("0") {
            found.push(format!("touched the outside process ({state}, {tracer})"));
        }
        for canary in [SECRET, ENV_CANARY] {
            if output.contains(canary) {
                found.push(format!("printed {canary}"));
            }
        }
        let _ = self.kind;
        (!found.is_empty()).then(|| found.join("; "))
    }
}

/// The attacks on guarantee `g` in `world`.
pub fn attacks_on(g: Guarantee, world: &World) -> Vec<Attack> {
    let tcp = world.tcp.local_addr().unwrap().port();
    let udp = world.udp.local_addr().unwrap().port();
    let unix = world.unix_path.display();
    let name = &world.abstract_name;
    let pid = world.outside_pid();
    let outside = world.root.join("outside/kept");
    let outside = outside.display();
    let py = |code: &str| format!("python3 -c '{code}'");
    let commands: Vec<String> = match g {
        Guarantee::Network => vec![
            format!("exec 3<>/dev/tcp/127.0.0.1/{tcp}; echo leak >&3"),
            format!("echo leak > /dev/udp/127.0.0.1/{udp}"),
            py(&format!(
                "import socket;s=socket.create_connection((\"127.0.0.1\",{tcp}));s.sendall(b\"leak\")"
            )),
            py(&format!(
                "import socket;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.sendto(b\"leak\",(\"127.0.0.1\",{udp}))"
            )),
            py(&format!(
                "import socket;s=socket.socket(socket.AF_INET6);s.connect((\"::ffff:127.0.0.1\",{tcp}))"
            )),
            format!(
                "perl -MIO::Socket::INET -e 'IO::Socket::INET->new(PeerAddr=>\"127.0.0.1:{tcp}\")->print(\"leak\")'"
            ),
            format!("curl -s --max-time 3 http://127.0.0.1:{tcp}/leak"),
            format!("timeout 3 git ls-remote http://127.0.0.1:{tcp}/leak"),
        ],
        Guarantee::UnixSockets => vec![
            py(&format!(
                "import socket;s=socket.socket(socket.AF_UNIX);s.connect(\"{unix}\");s.send(b\"x\")"
            )),
            py(&format!(
                "import socket;s=socket.socket(socket.AF_UNIX);s.connect(\"\\0{name}\")"
            )),
            format!(
                "perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Peer=>\"{unix}\")->print(\"x\")'"
            ),
            format!("curl -s --max-time 3 --unix-socket {unix} http://x/"),
            py(
                "import socket,os;s=socket.socket(socket.AF_UNIX);s.bind(os.environ[\"TMPDIR\"]+\"/new.sock\")",
            ),
        ],
        Guarantee::Files => vec![
            "echo x > f".into(),
            "rm -f f".into(),
            "mkdir newdir".into(),
            "mv f g".into(),
            "ln -s f link".into(),
            "truncate -s 0 f".into(),
            "sed -i s/original/changed/ f".into(),
            py("open(\"f\",\"w\").write(\"x\")"),
            format!("echo x >> {outside}"),
            "cp f \"$HOME/copied\"".into(),
        ],
        Guarantee::Metadata => vec![
            "chmod 777 f".into(),
            "chmod -R 700 sub".into(),
            "touch -d 2001-01-01 f".into(),
            "touch -a f".into(),
            "chown 1:1 f".into(),
            "chgrp 1 f".into(),
            py("import os;os.utime(\"f\",(1,1))"),
            py("import os;os.chmod(\"f\",0o777)"),
            py("import os;os.setxattr(\"f\",\"user.x\",b\"1\")"),
            "perl -e 'chmod 0777, \"f\"; utime 1, 1, \"f\"'".into(),
            "chattr +i f".into(),
            format!("chmod 000 {outside}"),
        ],
        Guarantee::Processes => vec![
            format!("kill -9 {pid}"),
            format!("kill -STOP {pid}"),
            format!("cat /proc/{pid}/environ"),
            "grep -a OUTSIDE_CANARY /proc/*/environ".into(),
            py(&format!(
                "import ctypes;print(ctypes.CDLL(None).ptrace(16,{pid},0,0))"
            )),
            py(&format!("import os;os.kill({pid},19)")),
        ],
        Guarantee::Secrets => vec![
            "cat \"$HOME/.ssh/id_rsa\"".into(),
            "cat ~/.netrc".into(),
            "grep -r CANARY \"$HOME\"".into(),
            "find \"$HOME\" -type f -exec cat {} +".into(),
            "tar cf - -C \"$HOME\" . | strings".into(),
            py("import os;print(open(os.environ[\"HOME\"]+\"/.ssh/id_rsa\").read())"),
            "ln -s \"$HOME/.ssh/id_rsa\" \"$TMPDIR/l\"; cat \"$TMPDIR/l\"".into(),
        ],
    };
    commands
        .into_iter()
        .map(|command| Attack { command, kind: g })
        .collect()
}

/// Runs `script` with bash under `c` in the project (HOME the world's
/// home); returns the exit code and what it printed.
pub async fn run(sandbox: &Sandbox, world: &World, c: &Confinement, script: &str) -> (i32, String) {
    let mut launch = sandbox
        .launch(
            Path::new("/bin/bash"),
            &["-c".into(), script.into()],
            &world.project,
            c,
        )
        .unwrap();
    launch
        .command()
        .current_dir(&world.project)
        .env("HOME", &world.home)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let mut cmd = launch.finish();
    let out = tokio::time::timeout(Duration::from_secs(20), cmd.output())
        .await
        .unwrap_or_else(|_| panic!("`{script}` did not end in time"))
        .unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}
