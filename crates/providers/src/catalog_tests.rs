use super::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn dated_and_prefixed_names_find_their_family() {
    let sonnet = builtin("claude-sonnet-4-5-20250929");
    assert_eq!(sonnet.context_window, Some(200_000));
    let p = sonnet.pricing.unwrap();
    assert!(close(p.input, 3.0) && close(p.output, 15.0));
    assert!(close(p.cache_read, 0.3) && close(p.cache_write, 3.75));
    assert_eq!(sonnet.openai_wire, None);

    // Opus 4 and 4.1 kept the old prices; 4.5 is cheaper.
    assert!(close(
        builtin("claude-opus-4-20250514").pricing.unwrap().input,
        15.0
    ));
    assert!(close(
        builtin("claude-opus-4-1").pricing.unwrap().input,
        15.0
    ));
    assert!(close(
        builtin("claude-opus-4-5").pricing.unwrap().input,
        5.0
    ));

    let codex = builtin("openai/GPT-5-Codex");
    assert_eq!(codex.openai_wire, Some(ProviderKind::OpenAiResponses));
    assert!(codex.reasons);
    assert_eq!(codex.context_window, Some(400_000));
    assert_eq!(
        builtin("gpt-5-mini-2025-08-07").openai_wire,
        Some(ProviderKind::OpenAi)
    );
    assert!(close(builtin("gpt-5-mini").pricing.unwrap().input, 0.25));
    assert!(!builtin("gpt-4.1").reasons);
    assert_eq!(builtin("gpt-4o-2024-08-06").context_window, Some(128_000));
    assert_eq!(builtin("llama3.1:8b"), ModelInfo::default());
    // A Claude model newer than the table: its window, but no price.
    let next = builtin("anthropic/Claude-Next-9");
    assert_eq!(next.context_window, Some(200_000));
    assert_eq!(next.pricing, None);
}

#[test]
fn cost_is_tokens_times_price_per_million() {
    let pricing = builtin("claude-sonnet-4-5").pricing.unwrap();
    let usage = Usage {
        input_tokens: 1_000_000,
        output_tokens: 100_000,
        cache_read_input_tokens: 2_000_000,
        cache_creation_input_tokens: 400_000,
    };
    // 3 + 1.5 + 0.6 + 1.5
    assert!(close(pricing.cost(&usage), 6.6), "{}", pricing.cost(&usage));
    assert!(close(pricing.cost(&Usage::default()), 0.0));
    let gpt = builtin("gpt-5").pricing.unwrap();
    let usage = Usage {
        input_tokens: 10_000,
        output_tokens: 2_000,
        cache_read_input_tokens: 90_000,
        cache_creation_input_tokens: 0,
    };
    // 0.0125 + 0.02 + 0.01125
    assert!(close(gpt.cost(&usage), 0.04375), "{}", gpt.cost(&usage));
}

#[test]
fn overrides_replace_only_what_they_name() {
    let mut catalog = ModelCatalog::new();
    catalog.set(
        "claude-sonnet-4-5",
        ModelOverride {
            pricing: Some(PricingOverride {
                input: Some(2.0),
                ..Default::default()
            }),
            ..Default::default()
        },
    );
    let info = catalog.lookup("Claude-Sonnet-4-5");
    let p = info.pricing.unwrap();
    assert!(close(p.input, 2.0) && close(p.output, 15.0) && close(p.cache_read, 0.3));
    assert_eq!(info.context_window, Some(200_000));

    // A local model gets a price and a window; cache prices default to input.
    catalog.set(
        "qwen*",
        ModelOverride {
            context_window: Some(32_768),
            pricing: Some(PricingOverride {
                input: Some(0.1),
                output: Some(0.2),
                ..Default::default()
            }),
            provider: Some("openai-responses".into()),
            ..Default::default()
        },
    );
    let qwen = catalog.lookup("ollama/qwen2.5-coder:7b");
    assert_eq!(qwen.context_window, Some(32_768));
    let p = qwen.pricing.unwrap();
    assert!(close(p.cache_read, 0.1) && close(p.cache_write, 0.1));
    assert_eq!(qwen.openai_wire, Some(ProviderKind::OpenAiResponses));
    // An exact entry beats a prefix entry.
    catalog.set(
        "qwen2.5-coder:7b",
        ModelOverride {
            context_window: Some(8_192),
            ..Default::default()
        },
    );
    assert_eq!(
        catalog.lookup("qwen2.5-coder:7b").context_window,
        Some(8_192)
    );
    assert_eq!(catalog.lookup("qwen3").context_window, Some(32_768));
    // A price with no output price and no built-in row is left unknown.
    catalog.set(
        "half",
        ModelOverride {
            pricing: Some(PricingOverride {
                input: Some(1.0),
                ..Default::default()
            }),
            ..Default::default()
        },
    );
    assert_eq!(catalog.lookup("half").pricing, None);
}

#[test]
fn reasoning_options_come_from_overrides_and_the_command_line() {
    let mut catalog = ModelCatalog::new();
    catalog.set(
        "gpt-5",
        ModelOverride {
            effort: Some(Effort::Low),
            ..Default::default()
        },
    );
    catalog.set_reasoning(
        "gpt-5",
        Reasoning {
            thinking: Some(Thinking::Enabled {
                budget_tokens: 2048,
            }),
            ..Default::default()
        },
    );
    let r = catalog.lookup("gpt-5").reasoning;
    assert_eq!(r.effort, Some(Effort::Low));
    assert_eq!(
        r.thinking,
        Some(Thinking::Enabled {
            budget_tokens: 2048
        })
    );
    // The command line wins over settings for the same field.
    catalog.set_reasoning(
        "gpt-5",
        Reasoning {
            effort: Some(Effort::High),
            ..Default::default()
        },
    );
    assert_eq!(catalog.lookup("gpt-5").reasoning.effort, Some(Effort::High));
    assert_eq!(catalog.lookup("gpt-5-mini").reasoning, Reasoning::default());
}

#[test]
fn thinking_flags_parse_like_the_sdk_passes_them() {
    assert_eq!(thinking_from(None, None), Ok(None));
    assert_eq!(
        thinking_from(Some("adaptive"), None),
        Ok(Some(Thinking::Adaptive))
    );
    assert_eq!(
        thinking_from(Some("DISABLED"), Some(5000)),
        Ok(Some(Thinking::Disabled))
    );
    assert_eq!(
        thinking_from(None, Some(5000)),
        Ok(Some(Thinking::Enabled {
            budget_tokens: 5000
        }))
    );
    assert_eq!(
        thinking_from(Some("enabled"), None),
        Ok(Some(Thinking::Enabled {
            budget_tokens: DEFAULT_THINKING_BUDGET
        }))
    );
    assert_eq!(thinking_from(None, Some(0)), Ok(Some(Thinking::Disabled)));
    assert!(
        thinking_from(Some("loud"), None)
            .unwrap_err()
            .contains("adaptive")
    );
}

#[test]
fn overrides_are_validated_with_the_field_named() {
    let bad = |o: ModelOverride| o.validate().unwrap_err();
    assert!(
        bad(ModelOverride {
            provider: Some("anthropic".into()),
            ..Default::default()
        })
        .contains("openai-responses")
    );
    assert!(
        bad(ModelOverride {
            pricing: Some(PricingOverride {
                output: Some(-1.0),
                ..Default::default()
            }),
            ..Default::default()
        })
        .contains("pricing.output")
    );
    assert!(
        bad(ModelOverride {
            context_window: Some(0),
            ..Default::default()
        })
        .contains("contextWindow")
    );
    let parsed: ModelOverride = serde_json::from_value(serde_json::json!({
        "contextWindow": 64000,
        "pricing": {"input": 1, "output": 2, "cacheRead": 0.1},
        "effort": "high",
        "thinking": "adaptive"
    }))
    .unwrap();
    assert!(parsed.validate().is_ok());
    assert!(serde_json::from_value::<ModelOverride>(serde_json::json!({"price": 1})).is_err());
}

#[test]
fn every_alias_names_a_known_model_on_every_provider() {
    for kind in [
        ProviderKind::Anthropic,
        ProviderKind::OpenAi,
        ProviderKind::OpenAiResponses,
    ] {
        for alias in MODEL_ALIASES {
            let id = alias_model(kind, alias).unwrap();
            assert!(
                builtin(id).context_window.is_some(),
                "{kind:?} {alias} -> {id}"
            );
            assert_ne!(id, *alias);
        }
        assert_eq!(alias_model(kind, "gpt-9"), None);
        assert_eq!(alias_model(kind, "claude-opus-4-5"), None);
    }
    assert_eq!(
        alias_model(ProviderKind::Anthropic, "opus"),
        Some("claude-opus-4-5")
    );
}
