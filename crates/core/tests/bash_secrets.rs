//! A command's environment is built from the allow-list: provider keys
//! and every other variable of catui's own environment not on the list
//! never reach it. This is its own test binary because it changes the
//! process environment.

use catui_core::tools::bash::{BashInput, BashTool};
use catui_core::tools::{ToolContext, TypedTool};

#[allow(unsafe_code)]
#[tokio::test(flavor = "current_thread")]
async fn api_keys_are_removed_from_the_environment() {
    // SAFETY: this binary has this one test and sets the variables before
    // any other thread reads the environment.
    unsafe {
        std::env::set_var("ANTHROPIC_API_KEY", "sk-ant-secret-value");
        std::env::set_var("OPENAI_API_KEY", "sk-openai-secret-value");
        std::env::set_var("CATUI_TEST_PLAIN", "not-on-the-list");
        std::env::set_var("LC_CATUI_TEST", "still-here");
    }
    let ctx = ToolContext::new(std::env::temp_dir());
    let out = BashTool::default()
        .call(
            BashInput {
                command: "env; echo \"[$ANTHROPIC_API_KEY][$OPENAI_API_KEY]\"".into(),
                timeout: None,
                description: None,
                unconfined: None,
                run_in_background: None,
                keep_running: None,
            },
            &ctx,
        )
        .await
        .unwrap();
    assert!(!out.content.contains("secret-value"), "{}", out.content);
    assert!(out.content.contains("LC_CATUI_TEST=still-here"));
    assert!(!out.content.contains("not-on-the-list"), "{}", out.content);
    assert!(out.content.contains("[][]"));
}
