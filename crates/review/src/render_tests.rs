use super::*;

#[test]
fn raw_html_and_scripts_in_a_plan_are_shown_as_text() {
    let plan = "# Plan <script>alert(1)</script>\n\n<script>alert('x')</script>\n\nText with <img src=x onerror=alert(1)> inline.\n";
    let r = render_plan(plan);
    assert!(!r.html.contains("<script"), "{}", r.html);
    assert!(!r.html.contains("<img"), "{}", r.html);
    assert!(
        r.html
            .contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"),
        "{}",
        r.html
    );
    assert!(
        r.html.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "{}",
        r.html
    );
    assert_eq!(r.outline[0].text, "Plan <script>alert(1)</script>");
}

#[test]
fn links_keep_only_safe_targets_and_images_are_never_loaded() {
    let r = render_plan(
        "[ok](https://example.org/a?b=1&c=2) [bad](javascript:alert(1)) [data](data:text/html,x) ![logo](http://tracker.example/p.png)\n",
    );
    assert!(
        r.html
            .contains("<a href=\"https://example.org/a?b=1&amp;c=2\""),
        "{}",
        r.html
    );
    assert!(!r.html.contains("href=\"javascript"), "{}", r.html);
    assert!(!r.html.contains("href=\"data"), "{}", r.html);
    assert!(!r.html.contains("<img"), "{}", r.html);
    assert!(r.html.contains("image: logo"), "{}", r.html);
}

#[test]
fn blocks_carry_their_plan_line_and_headings_make_the_outline() {
    let plan = "# Add a flag\n\n1. Parse it\n2. Use it\n\n## Verification\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn main() {}\n```\n";
    let r = render_plan(plan);
    assert!(
        r.html
            .contains("<h1 id=\"h-1\" data-line=\"1\">Add a flag</h1>"),
        "{}",
        r.html
    );
    assert!(
        r.html.contains("<li data-line=\"3\">Parse it</li>"),
        "{}",
        r.html
    );
    assert!(
        r.html.contains("<li data-line=\"4\">Use it</li>"),
        "{}",
        r.html
    );
    assert!(r.html.contains("<th>a</th>"), "{}", r.html);
    assert!(
        r.html.contains("<tr data-line=\"10\"><td>1</td>"),
        "{}",
        r.html
    );
    // Highlighted code: classes, not inline styles.
    assert!(
        r.html
            .contains("<pre class=\"code\" data-line=\"12\"><code><span class=\"hl-"),
        "{}",
        r.html
    );
    assert!(!r.html.contains("style="), "{}", r.html);
    assert_eq!(
        r.outline
            .iter()
            .map(|h| (h.level, h.text.as_str(), h.line))
            .collect::<Vec<_>>(),
        [(1, "Add a flag", 1), (2, "Verification", 6)]
    );
    assert!(highlight_css().contains(".hl-"));
}

#[test]
fn a_plan_cut_off_mid_element_still_closes_its_markup() {
    let r = render_plan("- a\n  - b\n```\nunclosed <b>");
    assert!(r.html.contains("&lt;b&gt;"), "{}", r.html);
    assert_eq!(
        r.html.matches("<ul>").count(),
        r.html.matches("</ul>").count()
    );
    assert_eq!(
        r.html.matches("<pre").count(),
        r.html.matches("</pre>").count()
    );
}
