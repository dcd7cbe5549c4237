use super::*;

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

#[test]
fn only_http_and_https_urls_with_a_host() {
    assert!(parse_url("https://example.com/a").is_ok());
    assert!(parse_url("  http://127.0.0.1:8080/x ").is_ok());
    for bad in [
        "file:///etc/passwd",
        "ftp://example.com/",
        "example.com",
        "",
        "data:text/plain,hi",
    ] {
        let err = parse_url(bad).unwrap_err().to_string();
        assert!(err.contains("http"), "{bad}: {err}");
    }
}

#[test]
fn same_site_ignores_www_but_not_other_hosts_or_ports() {
    assert!(same_site(
        &url("https://example.com/a"),
        &url("https://www.example.com/b")
    ));
    assert!(same_site(
        &url("http://example.com/a"),
        &url("http://EXAMPLE.com:80/b")
    ));
    assert!(!same_site(
        &url("https://example.com/"),
        &url("https://evil.example.net/")
    ));
    assert!(!same_site(
        &url("https://example.com/"),
        &url("https://docs.example.com/")
    ));
    assert!(!same_site(
        &url("http://127.0.0.1:1/"),
        &url("http://127.0.0.1:2/")
    ));
    assert!(!same_site(
        &url("http://127.0.0.1:1/"),
        &url("http://localhost:1/")
    ));
}

#[test]
fn html_becomes_markdown_without_scripts_or_styles() {
    let md = html_to_markdown(
        "<html><head><title>T</title><style>p{color:red}</style></head><body>\
         <h1>Install</h1><p>Run <code>cargo build</code> then see <a href=\"/docs\">the docs</a>.</p>\
         <script>alert('x')</script><ul><li>one</li><li>two</li></ul></body></html>",
    );
    assert!(md.contains("# Install"), "{md}");
    assert!(md.contains("`cargo build`"), "{md}");
    assert!(md.contains("[the docs](/docs)"), "{md}");
    assert!(md.contains("one") && md.contains("two"), "{md}");
    assert!(!md.contains("alert") && !md.contains("color:red"), "{md}");
}

#[test]
fn cap_chars_cuts_on_character_boundaries() {
    assert_eq!(cap_chars("héllo", 2), ("hé", true));
    assert_eq!(cap_chars("héllo", 5), ("héllo", false));
    assert_eq!(cap_chars("", 0), ("", false));
}

#[test]
fn text_kinds() {
    for k in [
        "text/plain",
        "text/markdown",
        "application/json",
        "application/ld+json",
        "image/svg+xml",
    ] {
        assert!(is_text(k), "{k}");
    }
    for k in ["image/png", "application/octet-stream", "application/zip"] {
        assert!(!is_text(k), "{k}");
    }
}

#[test]
fn the_permission_layer_sees_the_domain_and_a_read() {
    let ctx = ToolContext::new(std::env::temp_dir());
    let input = WebFetchInput {
        url: "https://Docs.Rs/serde".into(),
        prompt: None,
    };
    assert_eq!(
        WebFetchTool.access(&input, &ctx),
        Access::External {
            domain: Some("docs.rs".into()),
            read_only: true
        }
    );
}
