//! Unit tests of the `sandbox` setting: its forms and how layers merge.

use super::*;

fn raw(text: &str) -> Result<RawSandbox, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

fn domains(list: &[&str]) -> SandboxNetwork {
    SandboxNetwork::AllowedDomains(list.iter().map(|d| d.to_string()).collect())
}

#[test]
fn booleans_and_objects_are_read() {
    assert_eq!(raw("true").unwrap().enabled, Some(true));
    assert_eq!(raw("false").unwrap().enabled, Some(false));
    let r = raw(r#"{"network": {"allowedDomains": ["crates.io", " *.npmjs.org "]}}"#).unwrap();
    assert_eq!(r.enabled, Some(true), "an object means enabled");
    assert_eq!(r.network, Some(domains(&["crates.io", "*.npmjs.org"])));
    let r = raw(r#"{"enabled": false, "network": "off"}"#).unwrap();
    assert_eq!(
        (r.enabled, r.network),
        (Some(false), Some(SandboxNetwork::Off))
    );
}

#[test]
fn anything_else_is_refused_saying_what_is_expected() {
    for bad in [
        r#""yes""#,
        "1",
        r#"{"network": "on"}"#,
        r#"{"network": {"allowedDomains": "crates.io"}}"#,
        r#"{"network": {"allowedDomains": [""]}}"#,
        r#"{"network": {"allowedDomains": [1]}}"#,
        r#"{"network": {"blocked": []}}"#,
        r#"{"enabled": "true"}"#,
        r#"{"proxy": 1}"#,
    ] {
        let e = raw(bad).unwrap_err();
        assert!(
            e.contains("expected") || e.contains("empty name"),
            "{bad}: {e}"
        );
    }
    let e = raw(r#""yes""#).unwrap_err();
    assert!(e.contains("boolean") && e.contains("allowedDomains"), "{e}");
}

#[test]
fn the_user_sets_what_they_like_and_later_user_layers_win() {
    let user = merge(
        None,
        raw(r#"{"network": {"allowedDomains": ["a.io"]}}"#).unwrap(),
        false,
    );
    assert_eq!(
        user,
        SandboxSettings {
            enabled: true,
            network: domains(&["a.io"])
        }
    );
    let flag = merge(Some(user), raw("false").unwrap(), false);
    assert!(!flag.enabled);
    assert_eq!(flag.network, domains(&["a.io"]));
}

#[test]
fn a_project_may_only_narrow() {
    let user = SandboxSettings {
        enabled: true,
        network: domains(&["a.io", "b.io"]),
    };
    // Cannot switch it off or add a domain.
    let p = merge(Some(user.clone()), raw("false").unwrap(), true);
    assert_eq!(p, user);
    let p = merge(
        Some(user.clone()),
        raw(r#"{"network": {"allowedDomains": ["b.io", "evil.io"]}}"#).unwrap(),
        true,
    );
    assert_eq!(p.network, domains(&["b.io"]));
    let p = merge(Some(user), raw(r#"{"network": "off"}"#).unwrap(), true);
    assert_eq!(p.network, SandboxNetwork::Off);
    let off = SandboxSettings {
        enabled: true,
        network: SandboxNetwork::Off,
    };
    let p = merge(
        Some(off.clone()),
        raw(r#"{"network": {"allowedDomains": ["a.io"]}}"#).unwrap(),
        true,
    );
    assert_eq!(p, off);
    // Unconfined before: switching it on, with a list, narrows.
    let p = merge(
        None,
        raw(r#"{"network": {"allowedDomains": ["a.io"]}}"#).unwrap(),
        true,
    );
    assert_eq!(
        p,
        SandboxSettings {
            enabled: true,
            network: domains(&["a.io"])
        }
    );
}
