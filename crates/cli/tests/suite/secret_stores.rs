//! The secret stores through the real binary (issue 47, items 4-6): a home
//! with other agents' logins, well-known credential files, shell
//! histories, `.env` files beside and below other projects, and catui's
//! own settings and a past session's transcript holding a secret the user
//! once let through. In default and in plan mode, with nobody to ask,
//! confined commands (`cat`, `grep -r`, `find | xargs cat`, `tar`), Read
//! and Grep return none of it, while the rest of the home stays readable.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use catui_testkit::{Block, Script, Turn};
use common::{Sandbox, output_within};
use serde_json::json;

/// Where each canary lives, relative to the home directory.
const STORES: &[(&str, &str)] = &[
    // Other agents' logins.
    (".claude/.credentials.json", "canary-claude-login-01"),
    (".codex/auth.json", "canary-codex-auth-02"),
    (".config/github-copilot/apps.json", "canary-copilot-03"),
    // Well-known credential files.
    (".vault-token", "canary-vault-04"),
    (".pgpass", "canary-pgpass-05"),
    (".terraform.d/credentials.tfrc.json", "canary-terraform-06"),
    (".config/rclone/rclone.conf", "canary-rclone-07"),
    (".gem/credentials", "canary-gem-08"),
    (".docker/config.json", "canary-docker-09"),
    (".config/containers/auth.json", "canary-containers-10"),
    (".bash_history", "canary-history-11"),
    (".local/share/fish/fish_history", "canary-fish-12"),
    // `.env` files outside the project: beside it, deeper elsewhere.
    ("other/.env", "canary-env-beside-13"),
    ("work/api/deploy/.env.production", "canary-env-deep-14"),
    ("work/web/.envrc", "canary-envrc-15"),
    // catui's own directory: a past transcript, its settings' env.
    (
        "config/projects/-elsewhere/0b9c-old.jsonl",
        "canary-transcript-16",
    ),
];

const SETTINGS_CANARY: &str = "canary-settings-token-17";

/// Readable, and found by the same searches: proves the commands ran.
const VISIBLE: &str = "canary-visible-notes";

fn plant(sb: &Sandbox) {
    let home = sb.dir.path();
    let write = |rel: &str, text: &str| {
        let p = home.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    for (rel, canary) in STORES {
        write(rel, &format!("secret = {canary}\n"));
    }
    write("work/api/README.md", &format!("{VISIBLE}\n"));
    sb.user_settings(&json!({"env": {"DEPLOY_TOKEN": SETTINGS_CANARY}}).to_string());
    // The project's own `.env` is the project's.
    sb.write(".env", "PROJECT_OWN=canary-project-own\n");
}

/// The canaries found in `text`.
fn leaked(text: &str) -> Vec<&'static str> {
    let mut out: Vec<&str> = STORES
        .iter()
        .map(|(_, c)| *c)
        .filter(|c| text.contains(c))
        .collect();
    if text.contains(SETTINGS_CANARY) {
        out.push(SETTINGS_CANARY);
    }
    out
}

fn read(id: &str, path: &Path) -> Block {
    Block::tool_use(id, "Read", json!({"file_path": path}))
}

fn bash(id: &str, command: &str) -> Block {
    Block::tool_use(id, "Bash", json!({"command": command}))
}

#[test]
fn no_store_is_read_back_by_commands_read_or_grep() {
    for mode in ["default", "plan"] {
        let sb = Sandbox::new();
        plant(&sb);
        let home = sb.dir.path().to_path_buf();
        let mut reads: Vec<Block> = STORES
            .iter()
            .enumerate()
            .map(|(n, (rel, _))| read(&format!("r{n}"), &home.join(rel)))
            .collect();
        reads.push(read("rs", &sb.config().join("settings.json")));
        reads.push(Block::tool_use(
            "g",
            "Grep",
            json!({"pattern": "canary", "path": home, "output_mode": "content"}),
        ));
        let cats: Vec<String> = STORES
            .iter()
            .map(|(rel, _)| format!("~/{rel}"))
            .chain(["~/config/settings.json".to_string()])
            .collect();
        let commands = [
            ("c1", format!("cat {} 2>&1; true", cats.join(" "))),
            ("c2", "grep -r canary ~ 2>/dev/null; true".to_string()),
            (
                "c3",
                "find ~ -type f -exec cat {} + 2>/dev/null; true".to_string(),
            ),
            (
                "c6",
                "find ~ -name '.env*' 2>/dev/null | xargs cat 2>/dev/null; true".to_string(),
            ),
            (
                "c4",
                "tar cf - -C ~ . 2>/dev/null | strings; true".to_string(),
            ),
            (
                "c5",
                "cat ../other/.env; head -c 300 ../work/*/.env*; true".to_string(),
            ),
        ];
        let server = common::mock(
            Script::new()
                .turn(Turn::blocks(reads))
                .turn(Turn::blocks(
                    commands.iter().map(|(id, c)| bash(id, c)).collect(),
                ))
                .turn(Turn::text("done")),
        );
        let mut cmd = sb.catui(&server);
        cmd.args(["-p", "look around", "--permission-mode", mode]);
        let out = output_within(cmd, b"", 120);
        let stderr = common::stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{mode}: {stderr}");
        let requests = server.requests();
        assert_eq!(requests.len(), 3, "{mode}: {stderr}");
        for (n, r) in requests.iter().enumerate() {
            let body = r.body.to_string();
            assert_eq!(leaked(&body), Vec::<&str>::new(), "{mode}, request {n}");
        }
        // The commands ran, confined, and saw the rest of the home.
        for id in ["c2", "c3"] {
            let (text, _) = common::result_of(&requests[2], id);
            assert!(text.contains(VISIBLE), "{mode} {id}: {text}");
        }
        let (text, _) = common::result_of(&requests[2], "c2");
        assert!(text.contains("canary-project-own"), "{mode}: {text}");
    }
}
