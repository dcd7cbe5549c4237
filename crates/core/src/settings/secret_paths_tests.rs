//! Tests of settings `secretPaths`: every layer adds stores, none removes
//! one, and the result reaches the permission context.

use std::path::Path;

use super::*;
use crate::permissions::secrets::SecretStores;

#[test]
fn every_layer_adds_secret_stores_and_none_removes_a_default() {
    let config = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    std::fs::create_dir_all(root.join(".catui")).unwrap();
    std::fs::write(
        config.path().join("settings.json"),
        r#"{"secretPaths": ["~/vault"]}"#,
    )
    .unwrap();
    // A project may only add: there is no way to write "fewer".
    std::fs::write(
        root.join(".catui/settings.json"),
        r#"{"secretPaths": ["/opt/keys", "~/vault"]}"#,
    )
    .unwrap();
    let (settings, warnings) = Settings::load_from(config.path(), &root, None);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(settings.secret_paths, ["~/vault", "/opt/keys"]);

    let mut ctx = PermissionContext::new(root.clone());
    ctx.secrets = SecretStores::new(Some(Path::new("/home/u")), &[], std::slice::from_ref(&root));
    settings.apply_to(&mut ctx);
    for secret in ["/home/u/vault/a", "/opt/keys/k.pem", "/home/u/.ssh/id_rsa"] {
        assert!(ctx.secrets.is_secret(Path::new(secret)), "{secret}");
    }
    assert!(!ctx.secrets.is_secret(&root.join("src/main.rs")));
}

#[test]
fn a_secret_paths_value_of_the_wrong_type_rejects_the_file() {
    let config = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    std::fs::write(
        config.path().join("settings.json"),
        r#"{"secretPaths": "~/vault"}"#,
    )
    .unwrap();
    let (settings, warnings) = Settings::load_from(config.path(), &root, None);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(settings.secret_paths.is_empty());
}
