#![allow(clippy::unwrap_used)]

use super::*;
use serde_json::json;

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| map.get(k).cloned()
}

#[test]
fn both_transports_parse_and_bad_servers_are_named() {
    let value = json!({"mcpServers": {
        "fs": {"command": "npx", "args": ["-y", "server"], "env": {"K": "v"}, "readOnly": {"write_file": false}},
        "api": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "timeoutMs": 500},
        "bad name": {"command": "x"},
        "nocmd": {"args": []},
        "old": {"type": "sse", "url": "http://x"}
    }});
    let (servers, errors) =
        parse_servers(&value, &Source::Project(".mcp.json".into()), ".mcp.json");
    assert_eq!(servers.len(), 2, "{errors:?}");
    assert_eq!(servers[0].name, "fs");
    assert!(
        matches!(&servers[0].transport, Transport::Stdio { command, args, .. } if command == "npx" && args.len() == 2)
    );
    assert_eq!(servers[0].read_only.get("write_file"), Some(&false));
    assert!(
        matches!(&servers[1].transport, Transport::Http { headers, .. } if headers["Authorization"] == "Bearer ${TOKEN}")
    );
    assert_eq!(servers[1].call_timeout, Duration::from_millis(500));
    assert!(servers[0].source.needs_approval());
    assert_eq!(errors.len(), 3);
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert!(text.iter().any(|e| e.contains("`bad name`")), "{text:?}");
    assert!(
        text.iter()
            .any(|e| e.contains("`nocmd`") && e.contains("command")),
        "{text:?}"
    );
    assert!(text.iter().any(|e| e.contains("SSE")), "{text:?}");
}

#[test]
fn the_bare_map_is_accepted_and_non_objects_refused() {
    let (servers, errors) = parse_servers(&json!({"a": {"command": "x"}}), &Source::Flag, "flag");
    assert_eq!((servers.len(), errors.len()), (1, 0));
    let (servers, errors) = parse_servers(&json!({"mcpServers": [1]}), &Source::Flag, "flag");
    assert_eq!((servers.len(), errors.len()), (0, 1));
}

#[test]
fn variables_expand_with_defaults_and_missing_ones_are_named_not_shown() {
    let lookup = env(&[("TOKEN", "s3cret")]);
    assert_eq!(expand("Bearer ${TOKEN}", &lookup).unwrap(), "Bearer s3cret");
    assert_eq!(
        expand("${NOPE:-fallback}/x", &lookup).unwrap(),
        "fallback/x"
    );
    assert_eq!(
        expand("plain ${ unclosed", &lookup).unwrap(),
        "plain ${ unclosed"
    );
    let err = expand("${MISSING}", &lookup).unwrap_err();
    assert!(err.to_string().contains("MISSING"));
}

#[test]
fn flag_takes_inline_json_or_a_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.json"),
        r#"{"mcpServers": {"a": {"command": "x"}}}"#,
    )
    .unwrap();
    assert!(
        read_flag("m.json", dir.path())
            .unwrap()
            .get("mcpServers")
            .is_some()
    );
    assert!(read_flag(r#"{"mcpServers": {}}"#, dir.path()).is_ok());
    assert!(
        read_flag("missing.json", dir.path())
            .unwrap_err()
            .to_string()
            .contains("does not exist")
    );
    assert!(
        read_flag("{nope", dir.path())
            .unwrap_err()
            .to_string()
            .contains("JSON")
    );
    // Not a regular file: refused, not read.
    assert!(read_flag(".", dir.path()).is_err());
}

#[test]
fn acp_lists_become_servers() {
    let list = vec![
        serde_json::json!({"name": "fs", "command": "/bin/fs-mcp", "args": ["/srv"],
            "env": [{"name": "TOKEN", "value": "t"}]}),
        serde_json::json!({"type": "http", "name": "web", "url": "http://127.0.0.1:9/mcp",
            "headers": [{"name": "Authorization", "value": "Bearer x"}]}),
        serde_json::json!({"type": "sse", "name": "old", "url": "http://127.0.0.1:9/sse", "headers": []}),
        serde_json::json!({"command": "nameless"}),
    ];
    let (servers, errors) = parse_list(&list, &Source::Client, "session/new");
    assert_eq!(servers.len(), 2, "{servers:?}");
    assert_eq!(errors.len(), 2, "{errors:?}");
    let fs = servers.iter().find(|s| s.name == "fs").unwrap();
    assert_eq!(
        fs.transport,
        Transport::Stdio {
            command: "/bin/fs-mcp".into(),
            args: vec!["/srv".into()],
            env: [("TOKEN".to_string(), "t".to_string())]
                .into_iter()
                .collect(),
        }
    );
    assert!(!fs.source.needs_approval());
    let web = servers.iter().find(|s| s.name == "web").unwrap();
    assert_eq!(
        web.transport,
        Transport::Http {
            url: "http://127.0.0.1:9/mcp".into(),
            headers: [("Authorization".to_string(), "Bearer x".to_string())]
                .into_iter()
                .collect(),
        }
    );
}

#[test]
fn startup_timeouts_come_from_the_server_then_the_environment() {
    let value = json!({"mcpServers": {
        "slow": {"command": "x", "startupTimeoutMs": 1500},
        "plain": {"command": "x"},
        "bad": {"command": "x", "startupTimeoutMs": 0}
    }});
    let (servers, errors) = parse_servers(&value, &Source::Flag, "flag");
    assert_eq!(servers.len(), 2, "{errors:?}");
    assert_eq!(
        servers[0].startup_timeout,
        Some(Duration::from_millis(1500))
    );
    assert_eq!(servers[1].startup_timeout, None);
    assert!(
        errors[0].to_string().contains("`startupTimeoutMs`"),
        "{errors:?}"
    );

    assert_eq!(startup_timeout_from(&env(&[])), DEFAULT_STARTUP_TIMEOUT);
    assert_eq!(
        startup_timeout_from(&env(&[("MCP_TIMEOUT", "2500")])),
        Duration::from_millis(2500)
    );
    // catui's own name wins; nonsense is ignored.
    assert_eq!(
        startup_timeout_from(&env(&[
            ("CATUI_MCP_TIMEOUT", "700"),
            ("MCP_TIMEOUT", "2500")
        ])),
        Duration::from_millis(700)
    );
    assert_eq!(
        startup_timeout_from(&env(&[("MCP_TIMEOUT", "soon")])),
        DEFAULT_STARTUP_TIMEOUT
    );
}
