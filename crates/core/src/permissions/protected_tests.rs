//! Tests of the protected-path list.

use super::*;

#[test]
fn protected_at_any_depth() {
    for p in [
        ".mcp.json",
        ".catui/settings.json",
        ".git/hooks/pre-commit",
        ".husky/pre-commit",
        "web/.husky/pre-push",
        ".githooks/post-merge",
        ".pre-commit-config.yaml",
        ".envrc",
        "sub/.envrc",
        ".vscode/tasks.json",
        ".idea/workspace.xml",
        ".devcontainer/devcontainer.json",
        ".bashrc",
        "vendor/lib/.git/config",
        ".nvim.lua",
    ] {
        assert!(protected_part(Path::new(p)).is_some(), "{p}");
    }
    for p in [
        "src/main.rs",
        "README.md",
        ".gitignore",
        ".github/workflows/ci.yml",
        "docs/mcp.json",
        "husky.md",
        ".env",
    ] {
        assert_eq!(protected_part(Path::new(p)), None, "{p}");
    }
}
