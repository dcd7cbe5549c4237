//! The page's files, built into the binary (nothing is fetched from the
//! network): the HTML shell, its script and its style sheet (with the
//! code highlighting classes appended).

use std::sync::OnceLock;

const INDEX_HTML: &str = include_str!("../assets/index.html");
pub const APP_JS: &str = include_str!("../assets/app.js");
const APP_CSS: &str = include_str!("../assets/app.css");
/// Where the page's CSRF token goes in the HTML shell.
const CSRF_SLOT: &str = "{{CSRF}}";

/// The HTML shell carrying the page's CSRF token (hex, so nothing to
/// escape).
pub fn index_html(csrf: &str) -> String {
    INDEX_HTML.replace(CSRF_SLOT, csrf)
}

/// The style sheet.
pub fn app_css() -> String {
    static CSS: OnceLock<String> = OnceLock::new();
    CSS.get_or_init(|| format!("{APP_CSS}\n{}", crate::render::highlight_css()))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_small_and_loads_nothing_from_elsewhere() {
        let total = index_html("x").len() + APP_JS.len() + app_css().len();
        assert!(total < 100 * 1024, "the page's files weigh {total} bytes");
        eprintln!("the page's files: {total} bytes");
        for text in [INDEX_HTML, APP_JS, APP_CSS] {
            assert!(!text.contains("http://") && !text.contains("https://"));
            assert!(!text.contains("@import") && !text.contains("url("));
        }
        // No inline script or style: the policy forbids them.
        assert!(!INDEX_HTML.contains("<script>") && !INDEX_HTML.contains("style="));
        assert!(INDEX_HTML.contains(CSRF_SLOT));
    }
}
