//! How full the model's context window is: the window of each model, the
//! share at which the engine compacts the conversation before the next
//! request, and the prompt size a response reports.

use catui_protocol::Usage;

/// Compact when the prompt uses this share of the context window.
pub const DEFAULT_AUTO_COMPACT_THRESHOLD: f64 = 0.85;
/// The context window assumed for models not in the table.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;

/// The context window of `model` by the built-in model table (see
/// `catui_providers::catalog`), [`DEFAULT_CONTEXT_WINDOW`] when unknown. A
/// running engine asks its client instead, which also knows the settings.
pub fn context_window(model: &str) -> u64 {
    catui_providers::catalog::builtin(model)
        .context_window
        .unwrap_or(DEFAULT_CONTEXT_WINDOW)
}

/// The threshold to use: the setting when it is a share in (0, 1], else
/// [`DEFAULT_AUTO_COMPACT_THRESHOLD`].
pub fn auto_compact_threshold(setting: Option<f64>) -> f64 {
    setting
        .filter(|t| t.is_finite() && *t > 0.0 && *t <= 1.0)
        .unwrap_or(DEFAULT_AUTO_COMPACT_THRESHOLD)
}

/// The tokens a request's prompt took: fresh, cached and cache-written input.
pub fn prompt_tokens(usage: &Usage) -> u64 {
    usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
}

/// Whether the last request's prompt (`usage_input_tokens`, see
/// [`prompt_tokens`]) has filled `threshold` of `context_window`.
pub fn should_auto_compact(usage_input_tokens: u64, context_window: u64, threshold: f64) -> bool {
    if context_window == 0 {
        return false;
    }
    let threshold = auto_compact_threshold(Some(threshold));
    usage_input_tokens as f64 >= context_window as f64 * threshold
}
