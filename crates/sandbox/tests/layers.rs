//! Each layer alone, and the three together, against real attacks: for
//! every guarantee a layer claims to provide ([`Guarantee::providers`]),
//! the attacks on that guarantee run under that layer only and must all
//! fail — no byte at a loopback TCP or UDP listener, no unix-socket
//! connection (on disk or abstract), no change to a file's content, mode,
//! owner, times or extended attributes, no read of another process's
//! environment, no signal or trace to it, no read of a secret store.
//!
//! The inner stage is this crate's `catui-sandbox-stage` binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use catui_sandbox::{Confinement, Guarantee, Layer, Layers, Network};
use common::{World, attacks_on, run};

/// Runs every attack on the guarantees `layer` provides, under `layer`
/// alone, and returns what got through.
async fn leaks_under(layer: Layer) -> Vec<String> {
    let layers = common::only(layer);
    let mut leaks = Vec::new();
    for g in Guarantee::ALL {
        if !layers.provides(layer, g) {
            continue;
        }
        let world = World::new();
        let sandbox = common::sandbox(layers);
        for attack in attacks_on(g, &world) {
            let (_, out) = run(&sandbox, &world, &world.read_only(), &attack.command).await;
            if let Some(leak) = attack.leaked(&world, &out) {
                leaks.push(format!(
                    "{} alone, {g:?}: `{}` {leak}",
                    layer.name(),
                    attack.command
                ));
            }
        }
        world.end();
    }
    leaks
}

#[tokio::test]
async fn bubblewrap_alone_stops_what_it_claims() {
    let leaks = leaks_under(Layer::Bubblewrap).await;
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}

#[tokio::test]
async fn landlock_alone_stops_what_it_claims() {
    let leaks = leaks_under(Layer::Landlock).await;
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}

#[tokio::test]
async fn seccomp_alone_stops_what_it_claims() {
    let leaks = leaks_under(Layer::Seccomp).await;
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}

/// Every attack on every guarantee under `layers`.
async fn leaks_with(layers: Layers, stage: bool) -> Vec<String> {
    let world = World::new();
    let sandbox = if stage {
        common::sandbox(layers)
    } else {
        catui_sandbox::Sandbox::with_layers(layers, None)
    };
    let mut leaks = Vec::new();
    for g in Guarantee::ALL {
        for attack in attacks_on(g, &world) {
            let (_, out) = run(&sandbox, &world, &world.read_only(), &attack.command).await;
            if let Some(leak) = attack.leaked(&world, &out) {
                leaks.push(format!("{g:?}: `{}` {leak}", attack.command));
            }
        }
    }
    world.end();
    leaks
}

#[tokio::test]
async fn all_three_layers_stop_every_attack() {
    let leaks = leaks_with(Layers::detect(), true).await;
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}

#[tokio::test]
async fn landlock_and_seccomp_without_an_inner_stage_stop_every_attack() {
    let layers = Layers {
        bubblewrap: false,
        ..Layers::detect()
    };
    assert!(layers.complete());
    let leaks = leaks_with(layers, false).await;
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}

#[tokio::test]
async fn a_confined_command_still_reads_runs_and_uses_its_temp_dir() {
    let world = World::new();
    let sandbox = common::sandbox(Layers::detect());
    let (code, out) = run(
        &sandbox,
        &world,
        &world.read_only(),
        "cat f && ls sub && git --version >/dev/null && echo t > \"$TMPDIR/x\" && \
         chmod 600 \"$TMPDIR/x\" 2>/dev/null; cat \"$TMPDIR/x\" && echo done > /dev/null && echo ok",
    )
    .await;
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, "original\nnested\nt\nok\n");
    let (_, out) = run(
        &sandbox,
        &world,
        &world.read_only(),
        "ls -a \"$HOME/.ssh\"; echo end",
    )
    .await;
    assert!(!out.contains("id_rsa"), "{out}");
    world.end();
}

#[tokio::test]
async fn the_environment_is_the_allow_list_and_git_is_neutralised() {
    use catui_sandbox::child_env::{EnvPolicy, Tier};
    let world = World::new();
    let sandbox = common::sandbox(Layers::detect());
    let mut launch = sandbox
        .launch(
            "/bin/bash".as_ref(),
            &["-c".into(), "env".into()],
            &world.project,
            &world.read_only(),
        )
        .unwrap();
    assert_eq!(launch.tier(), Tier::Confined);
    // catui's environment as the session would build it: credentials of
    // any name in the parent, one variable the settings set.
    let parent = [
        ("PATH", "/usr/bin:/bin"),
        ("GITHUB_TOKEN", "canary-token"),
        ("OPENAI_API_KEY", "canary-key"),
        ("DATABASE_URL", "postgres://u:canary-pw@h/d"),
    ]
    .map(|(n, v)| (n.into(), v.into()));
    let policy = EnvPolicy {
        set: vec![("HARMLESS".into(), "kept".into())],
        pass: vec!["GITHUB_TOKEN".into()],
    };
    launch.environment(policy.build_from(launch.tier(), parent));
    // A provider key set on the command by mistake is dropped too.
    launch
        .command()
        .current_dir(&world.project)
        .env("ANTHROPIC_API_KEY", "canary-key-2");
    let out = launch.finish().output().await.unwrap();
    let env = String::from_utf8_lossy(&out.stdout);
    assert!(!env.contains("canary"), "{env}");
    assert!(env.contains("HARMLESS=kept"), "{env}");
    assert!(env.contains("PATH=/usr/bin:/bin"), "{env}");
    assert!(env.contains("GIT_CONFIG_COUNT="), "{env}");
    assert!(
        env.contains(&format!("TMPDIR={}", world.temp.display())),
        "{env}"
    );
    world.end();
}

#[tokio::test]
async fn approved_commands_reach_allowed_domains_through_the_proxy_only() {
    let world = World::new();
    let upstream = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = upstream.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut s, _) = upstream.accept().unwrap();
        let mut buf = [0u8; 4096];
        let n = s.read(&mut buf).unwrap();
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
        String::from_utf8_lossy(&buf[..n]).into_owned()
    });
    let socket = world.root.join("proxy.sock");
    let proxy =
        catui_sandbox::proxy::Proxy::start(socket.clone(), vec!["localhost".into()]).unwrap();
    let c = Confinement::workspace(vec![world.project.clone()], Network::Proxy { socket });
    let sandbox = common::sandbox(Layers::detect());
    let script = format!(
        "curl -sS --max-time 5 http://localhost:{port}/allowed; echo; \
         curl -sS --max-time 5 http://127.0.0.1:{port}/denied; echo; \
         curl -sS --noproxy '*' --max-time 5 http://localhost:{port}/direct; echo \" direct=$?\""
    );
    let (_, out) = run(&sandbox, &world, &c, &script).await;
    assert!(out.starts_with("hello\n"), "{out}");
    assert!(out.contains("127.0.0.1 is not on the list"), "{out}");
    assert!(out.contains("direct=7"), "a direct connection fails: {out}");
    let request = server.join().unwrap();
    assert!(request.starts_with("GET /allowed HTTP/1.1"), "{request}");
    drop(proxy);
    world.end();
}

#[tokio::test]
async fn without_bubblewrap_a_proxied_network_fails_closed() {
    let world = World::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let c = Confinement::workspace(
        vec![world.project.clone()],
        Network::Proxy {
            socket: world.root.join("none.sock"),
        },
    );
    let layers = Layers {
        bubblewrap: false,
        ..Layers::detect()
    };
    let sandbox = catui_sandbox::Sandbox::with_layers(layers, None);
    let (_, out) = run(
        &sandbox,
        &world,
        &c,
        &format!("echo x > /dev/tcp/127.0.0.1/{port}; echo \"rc=$? proxy=$HTTP_PROXY\""),
    )
    .await;
    assert!(out.contains("rc=1 proxy=\n"), "{out}");
    assert!(listener.accept().is_err(), "a connection got through");
    world.end();
}

/// The attacks are real: without any layer (and with git left as it
/// is), every one of them gets through.
#[tokio::test]
async fn without_a_sandbox_the_attacks_get_through() {
    let sandbox = catui_sandbox::Sandbox::with_layers(Layers::none(), None);
    let mut held = Vec::new();
    let mut total = 0;
    for g in Guarantee::ALL {
        let count = attacks_on(g, &World::new()).len();
        for i in 0..count {
            total += 1;
            // Each attack in a world of its own: one may undo another.
            let world = World::new();
            let attack = attacks_on(g, &world).swap_remove(i);
            let mut unconfined = world.read_only();
            unconfined.clean_environment = false;
            let (_, out) = run(&sandbox, &world, &unconfined, &attack.command).await;
            if attack.leaked(&world, &out).is_none() {
                held.push(format!("{g:?}: `{}`: {out}", attack.command));
            }
        }
    }
    assert!(
        held.is_empty(),
        "{} of {total} held without a sandbox:\n{}",
        held.len(),
        held.join("\n")
    );
}
