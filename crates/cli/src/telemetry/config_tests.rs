use super::*;

fn setup(vars: &[(&str, &str)]) -> Setup {
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    from_env(move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
}

#[test]
fn off_unless_enabled() {
    assert!(matches!(setup(&[]), Setup::Off));
    assert!(matches!(
        setup(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:1")]),
        Setup::Off
    ));
    assert!(matches!(
        setup(&[("CATUI_ENABLE_TELEMETRY", "0")]),
        Setup::Off
    ));
}

#[test]
fn endpoints_headers_and_defaults() {
    let Setup::On(c) = setup(&[
        ("CATUI_ENABLE_TELEMETRY", "1"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"),
        ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m:9/put"),
        (
            "OTEL_EXPORTER_OTLP_HEADERS",
            "authorization=Bearer%20tok,x-team=a",
        ),
        ("OTEL_RESOURCE_ATTRIBUTES", "team=infra,service.name=no"),
    ]) else {
        panic!("not on")
    };
    assert_eq!(c.traces_url, "http://collector:4318/v1/traces");
    assert_eq!(c.metrics_url, "http://m:9/put");
    assert_eq!(c.headers["authorization"], "Bearer tok");
    assert_eq!(c.headers["x-team"], "a");
    assert_eq!(c.timeout, DEFAULT_TIMEOUT);
    assert!(!c.log_prompts);
    assert!(
        c.resource
            .contains(&("team".into(), Value::Str("infra".into())))
    );
    assert!(
        c.resource
            .contains(&("service.name".into(), Value::Str("catui".into())))
    );
}

#[test]
fn other_protocols_are_refused_by_name() {
    let Setup::Refused(why) = setup(&[
        ("CATUI_ENABLE_TELEMETRY", "1"),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
    ]) else {
        panic!("not refused")
    };
    assert!(why.contains("OTEL_EXPORTER_OTLP_PROTOCOL=grpc"), "{why}");
    assert!(why.contains("http/protobuf"), "{why}");
}

#[test]
fn a_bad_header_is_named_without_its_value() {
    let Setup::Refused(why) = setup(&[
        ("CATUI_ENABLE_TELEMETRY", "1"),
        (
            "OTEL_EXPORTER_OTLP_HEADERS",
            "authorization=secret-token%0A",
        ),
    ]) else {
        panic!("not refused")
    };
    assert!(why.contains("authorization"), "{why}");
    assert!(!why.contains("secret-token"), "{why}");
}

#[test]
fn origins_hide_credentials_and_paths() {
    assert_eq!(
        shown_origin("https://user:pw@collector.example:4318/v1/traces?key=k"),
        "https://collector.example:4318"
    );
}
