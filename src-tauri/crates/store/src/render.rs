//! Safe HTML for a memory or an anchor shown in the app (DESIGN §10: no remote content).
//!
//! Owns: markdown → HTML with pulldown-cmark, then an ammonia allow-list: no script, no event
//! handlers, no `javascript:`/`data:` links, no images or links that reach another host
//! (remote images are dropped; a web or mail link keeps its text and carries its target only as
//! `data-external-href`, which the window never follows by itself: the app asks, then hands it
//! to the system browser through `openable_link`).
//! Deliberately does not: read files or resolve `[[other-name]]` links (the UI handles those).

use ammonia::{Builder, UrlRelative};
use pulldown_cmark::{html, Options, Parser};

/// Renders markdown to HTML that is safe to insert into the app's window.
pub fn markdown_to_safe_html(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut raw, Parser::new_ext(markdown, options));
    let clean = sanitizer().clean(&raw).to_string();
    // ammonia writes every attribute as `name="…"` with the value escaped, so this rename
    // cannot reach into text or another attribute.
    clean
        .replace("<a href=\"https://", "<a data-external-href=\"https://")
        .replace("<a href=\"http://", "<a data-external-href=\"http://")
        .replace("<a href=\"mailto:", "<a data-external-href=\"mailto:")
}

/// Whether `url` may be handed to the system's opener from a rendered memory: a web or mail
/// address, nothing that runs or reads a local file.
pub fn openable_link(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://") || lower.starts_with("mailto:"))
        && !url.chars().any(|c| c.is_control() || c.is_whitespace())
}

fn sanitizer() -> Builder<'static> {
    let mut builder = Builder::default();
    builder
        // Nothing that fetches: images are removed outright (a local file path in a memory is
        // meaningless to the window, and a remote one would leak that it was viewed).
        .rm_tags(["img"])
        .add_tags(["input"])
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .add_generic_attributes(["class"])
        // Web and mail links keep their target (renamed to data-external-href below); other
        // schemes and relative references to another host are made inert.
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .url_relative(UrlRelative::Custom(Box::new(keep_in_page_anchor)))
        .link_rel(Some("noopener noreferrer"));
    builder
}

/// Keeps `#fragment` links; drops every other relative reference (`//host/…`, `../file`).
fn keep_in_page_anchor(url: &str) -> Option<std::borrow::Cow<'_, str>> {
    url.starts_with('#').then(|| url.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_ordinary_markdown() {
        let html =
            markdown_to_safe_html("# Title\n\nSome *emphasis* and `code`.\n\n- one\n- two\n");
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<em>emphasis</em>"), "{html}");
        assert!(html.contains("<code>code</code>"), "{html}");
        assert!(html.contains("<li>two</li>"), "{html}");
    }

    #[test]
    fn script_tags_are_removed_with_their_content() {
        let html = markdown_to_safe_html("before\n\n<script>alert('x')</script>\n\nafter");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("alert"), "{html}");
        assert!(html.contains("after"), "{html}");
    }

    #[test]
    fn event_handler_attributes_are_stripped() {
        let html = markdown_to_safe_html("<p onclick=\"steal()\">hi</p> <b onerror=\"x()\">b</b>");
        assert!(!html.contains("onclick"), "{html}");
        assert!(!html.contains("onerror"), "{html}");
        assert!(html.contains("hi"), "{html}");
    }

    #[test]
    fn image_with_onerror_is_dropped() {
        let html = markdown_to_safe_html("<img src=x onerror=\"alert(1)\">");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("onerror"), "{html}");
    }

    #[test]
    fn javascript_links_lose_their_target_but_keep_text() {
        let html = markdown_to_safe_html("[click me](javascript:alert(1))");
        assert!(!html.to_lowercase().contains("javascript:"), "{html}");
        assert!(html.contains("click me"), "{html}");
    }

    #[test]
    fn remote_images_and_links_are_inert() {
        let html = markdown_to_safe_html(
            "![tracker](https://evil.example/pixel.png)\n\n[docs](https://example.com/x) [rel](//cdn.example/x) [data](data:text/html,hi)",
        );
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("evil.example"), "{html}");
        assert!(!html.contains(" href=\"https:"), "{html}");
        assert!(
            html.contains("data-external-href=\"https://example.com/x\""),
            "{html}"
        );
        assert!(!html.contains("cdn.example"), "{html}");
        assert!(!html.contains("data:"), "{html}");
        assert!(html.contains("docs"), "{html}");
    }

    #[test]
    fn only_web_and_mail_links_are_openable() {
        assert!(openable_link("https://example.com/a?b=c"));
        assert!(openable_link("mailto:someone@example.com"));
        assert!(!openable_link("file:///etc/passwd"));
        assert!(!openable_link("javascript:alert(1)"));
        assert!(!openable_link("https://example.com/a b"));
        assert!(!openable_link("/usr/bin/xterm"));
    }

    #[test]
    fn in_page_anchors_survive() {
        let html = markdown_to_safe_html("[see below](#later)");
        assert!(html.contains("href=\"#later\""), "{html}");
    }

    #[test]
    fn style_and_iframe_are_removed() {
        let html = markdown_to_safe_html(
            "<style>body{display:none}</style><iframe src=\"https://x\"></iframe>ok",
        );
        assert!(!html.contains("<style"), "{html}");
        assert!(!html.contains("<iframe"), "{html}");
        assert!(!html.contains("display:none"), "{html}");
    }
}
