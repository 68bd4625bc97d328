//! The memory file format (DESIGN §3): `---` frontmatter, then a markdown body.
//!
//! Owns: parsing a file's text into fields plus the raw lines of keys Ambry does not know, and
//! rendering it back so those unknown keys survive every rewrite verbatim. The lifecycle keys
//! (DESIGN §14) stay among those raw lines (so they survive as written too); `lifecycle` reads
//! what they say, and `parse` refuses a file whose lifecycle keys do not read.
//! Deliberately does not: validate names against the filename or touch the disk.

use chrono::Datelike;
use chrono::{DateTime, SecondsFormat, Utc};

pub use super::error::FormatError;
use super::model::{Lifecycle, Reviewed};
pub use super::scalar::{quote_if_needed, unquote};

/// A parsed memory file. `extra` holds unknown keys as their original lines, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub name: String,
    pub kind: String,
    pub description: String,
    pub created: Option<DateTime<Utc>>,
    pub updated: Option<DateTime<Utc>>,
    pub tags: Vec<String>,
    pub extra: Vec<String>,
    pub body: String,
}

pub fn parse(text: &str) -> Result<Document, FormatError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Classic Mac line endings (CR only): read as lines, like every editor does.
    let cr_only;
    let text = if text.contains('\r') && !text.contains('\n') {
        cr_only = text.replace('\r', "\n");
        cr_only.as_str()
    } else {
        text
    };
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err(FormatError(
            "missing frontmatter: the file must start with a `---` line".into(),
        ));
    }
    let mut header: Vec<&str> = Vec::new();
    let mut consumed = first.len();
    let mut closed = false;
    for line in lines.by_ref() {
        consumed += line.len();
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        header.push(line.trim_end_matches(['\n', '\r']));
    }
    if !closed {
        return Err(FormatError(
            "unterminated frontmatter: no closing `---` line".into(),
        ));
    }
    let body = text[consumed..].to_string();

    let mut name = None;
    let mut kind = None;
    let mut description = None;
    let mut created = None;
    let mut updated = None;
    let mut tags = Vec::new();
    let mut extra = Vec::new();
    let mut i = 0;
    while i < header.len() {
        let line = header[i];
        let lineno = i + 2;
        i += 1;
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let Some((key, raw_value)) = line.split_once(':') else {
            return Err(FormatError(format!(
                "frontmatter line {lineno}: expected `key: value`, got `{line}`"
            )));
        };
        if key.starts_with(char::is_whitespace) {
            return Err(FormatError(format!(
                "frontmatter line {lineno}: unexpected indentation"
            )));
        }
        // Continuation lines (indented, or YAML list items) belong to the key above them.
        let mut continuation = Vec::new();
        while i < header.len()
            && (header[i].starts_with([' ', '\t']) || header[i].starts_with("- "))
        {
            continuation.push(header[i]);
            i += 1;
        }
        let key = key.trim();
        let value = raw_value.trim();
        let field = |v: &str| {
            unquote(v).map_err(|e| FormatError(format!("frontmatter line {lineno} (`{key}`): {e}")))
        };
        match key {
            "name" => name = Some(field(value)?),
            "type" => kind = Some(field(value)?),
            "description" => description = Some(field(value)?),
            "created" => created = Some(timestamp(&field(value)?, key, lineno)?),
            "updated" => {
                let v = field(value)?;
                if !v.is_empty() {
                    updated = Some(timestamp(&v, key, lineno)?);
                }
            }
            "tags" => tags = parse_tags(value, &continuation, lineno)?,
            _ => {
                extra.push(line.to_string());
                extra.extend(continuation.iter().map(|s| s.to_string()));
            }
        }
    }
    lifecycle(&extra)?;
    let require = |v: Option<String>, key: &str| {
        v.filter(|s| !s.trim().is_empty())
            .ok_or_else(|| FormatError(format!("frontmatter is missing `{key}:`")))
    };
    Ok(Document {
        name: require(name, "name")?,
        kind: require(kind, "type")?,
        description: description.unwrap_or_default(),
        created,
        updated,
        tags,
        extra,
        body,
    })
}

/// The lifecycle keys among a document's raw `extra` lines (the last of a repeated key wins).
pub fn lifecycle(extra: &[String]) -> Result<Lifecycle, FormatError> {
    let mut out = Lifecycle::default();
    let mut i = 0;
    while i < extra.len() {
        let line = &extra[i];
        i += 1;
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        if key.starts_with(char::is_whitespace) {
            continue;
        }
        let mut continuation = Vec::new();
        while i < extra.len() && (extra[i].starts_with([' ', '\t']) || extra[i].starts_with("- ")) {
            continuation.push(extra[i].as_str());
            i += 1;
        }
        let key = key.trim();
        let bad = |why: String| FormatError(format!("frontmatter `{key}`: {why}"));
        let text = || unquote(value.trim()).map_err(&bad);
        match key {
            "expires" => {
                let v = text()?;
                out.expires = (!v.is_empty())
                    .then(|| timestamp(&v, key, 0).map(|t| t.date_naive()))
                    .transpose()
                    .map_err(|_| bad(format!("must be a date like 2026-12-31, got `{v}`")))?;
            }
            "superseded_by" => out.superseded_by = Some(text()?).filter(|v| !v.is_empty()),
            "source" => out.source = Some(text()?).filter(|v| !v.is_empty()),
            "when" => {
                out.when = super::when::bounded(
                    parse_tags(value.trim(), &continuation, 0).map_err(|e| bad(e.0))?,
                )
            }
            "merged_from" => {
                out.merged_from = parse_tags(value.trim(), &continuation, 0)
                    .map_err(|e| bad(e.0))?
                    .into_iter()
                    .filter(|n| !n.is_empty())
                    .collect()
            }
            "reviewed" => {
                let v = text()?;
                let mut parts = v.split_whitespace();
                out.reviewed = match parts.next() {
                    None => None,
                    Some(at) => Some(Reviewed {
                        at: timestamp(at, key, 0).map_err(|_| {
                            bad(format!(
                                "must start with a time like 2026-05-08T12:34:56Z, got `{v}`"
                            ))
                        })?,
                        fingerprint: parts
                            .find_map(|p| p.strip_prefix("sha:"))
                            .map(str::to_string),
                    }),
                };
            }
            _ => {}
        }
    }
    out.enforce = super::rule::read(extra);
    Ok(out)
}

/// The items of a one-line list value (`[a, "b c"]`, or one plain item), as `tags` reads them.
pub(crate) fn list_value(value: &str) -> Result<Vec<String>, FormatError> {
    parse_tags(value.trim(), &[], 0)
}

/// The `reviewed:` value that marks `fingerprint` as kept at `at`.
pub fn reviewed_value(at: DateTime<Utc>, fingerprint: &str) -> String {
    format!("{} sha:{fingerprint}", rfc3339(at))
}

pub fn render(doc: &Document) -> String {
    let mut out = String::with_capacity(doc.body.len() + 256);
    out.push_str("---\n");
    out.push_str(&format!("name: {}\n", quote_if_needed(&doc.name)));
    out.push_str(&format!("type: {}\n", quote_if_needed(&doc.kind)));
    out.push_str(&format!(
        "description: {}\n",
        quote_if_needed(&doc.description)
    ));
    if let Some(created) = doc.created {
        out.push_str(&format!("created: {}\n", rfc3339(created)));
    }
    if let Some(updated) = doc.updated {
        out.push_str(&format!("updated: {}\n", rfc3339(updated)));
    }
    if !doc.tags.is_empty() {
        let tags: Vec<String> = doc.tags.iter().map(|t| quote_if_needed(t)).collect();
        out.push_str(&format!("tags: [{}]\n", tags.join(", ")));
    }
    for line in &doc.extra {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("---\n");
    out.push_str(&doc.body);
    if !doc.body.is_empty() && !doc.body.ends_with('\n') {
        out.push('\n');
    }
    out
}

pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn timestamp(value: &str, key: &str, lineno: usize) -> Result<DateTime<Utc>, FormatError> {
    DateTime::parse_from_rfc3339(value)
        .map(|t| t.with_timezone(&Utc))
        .or_else(|_| {
            // A bare date is common in hand-written files; read it as midnight UTC.
            chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d")
                .map(|d| d.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc())
        })
        .ok()
        // `%Y` also reads signed and five-digit years, which RFC 3339 cannot write back.
        .filter(|t| (0..=9999).contains(&t.year()))
        .ok_or_else(|| FormatError(format!("frontmatter line {lineno}: `{key}` must be an RFC 3339 time like 2026-05-08T12:34:56Z, got `{value}`")))
}

fn parse_tags(
    value: &str,
    continuation: &[&str],
    lineno: usize,
) -> Result<Vec<String>, FormatError> {
    let bad = |why: &str| FormatError(format!("frontmatter line {lineno} (`tags`): {why}"));
    let mut tags = Vec::new();
    if value.is_empty() {
        for item in continuation {
            let item = item.trim();
            let Some(tag) = item.strip_prefix("- ") else {
                return Err(bad("expected `- tag` list items"));
            };
            tags.push(unquote(tag.trim()).map_err(|e| bad(&e))?);
        }
    } else if let Some(inner) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        for part in split_flow_list(inner) {
            let part = part.trim();
            if !part.is_empty() {
                tags.push(unquote(part).map_err(|e| bad(&e))?);
            }
        }
    } else {
        tags.push(unquote(value).map_err(|e| bad(&e))?);
    }
    Ok(tags)
}

/// Splits `a, "b, c", d` on commas outside quotes.
fn split_flow_list(inner: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            // A quote opens a quoted item only at the item's start; inside a plain item it is a
            // character like any other (`it's` stays one tag).
            (None, '"' | '\'') if current.trim().is_empty() => {
                quote = Some(c);
                current.push(c);
            }
            // Inside double quotes a backslash escapes the next character (`\"` does not close).
            (Some('"'), '\\') => {
                current.push(c);
                current.extend(chars.next());
            }
            (Some(q), _) if c == q => {
                quote = None;
                current.push(c);
            }
            (None, ',') => parts.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    parts.push(current);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "---\nname: jwt-refresh-flow\ntype: project\ndescription: How auth refresh interacts with the token cache\ncreated: 2026-05-08T12:34:56Z\nupdated: 2026-06-01T09:00:00Z        # optional\ntags: [auth, cache]\n---\nBody in markdown. May link [[other-name]].\n";

    #[test]
    fn parses_the_design_example() {
        let d = parse(SAMPLE).unwrap();
        assert_eq!(d.name, "jwt-refresh-flow");
        assert_eq!(d.kind, "project");
        assert_eq!(
            d.description,
            "How auth refresh interacts with the token cache"
        );
        assert_eq!(rfc3339(d.created.unwrap()), "2026-05-08T12:34:56Z");
        assert_eq!(rfc3339(d.updated.unwrap()), "2026-06-01T09:00:00Z");
        assert_eq!(d.tags, vec!["auth", "cache"]);
        assert_eq!(d.body, "Body in markdown. May link [[other-name]].\n");
        assert!(d.extra.is_empty());
    }

    #[test]
    fn unknown_keys_survive_a_round_trip_verbatim() {
        let text = "---\nname: a\ntype: user\ndescription: d\nsource: slack   # where it came from\nlinks:\n  - https://example.com/x\n  - other\nreviewed_by: \"Ana: lead\"\n---\nbody\n";
        let d = parse(text).unwrap();
        assert_eq!(
            d.extra,
            vec![
                "source: slack   # where it came from",
                "links:",
                "  - https://example.com/x",
                "  - other",
                "reviewed_by: \"Ana: lead\"",
            ]
        );
        let again = parse(&render(&d)).unwrap();
        assert_eq!(again, d);
        assert!(render(&d).contains("links:\n  - https://example.com/x\n  - other\n"));
    }

    #[test]
    fn render_then_parse_is_identity_for_awkward_values() {
        let d = Document {
            name: "x".into(),
            kind: "how-to".into(),
            description: "Use: colons, \"quotes\", # hashes and, commas".into(),
            created: Some("2026-01-02T03:04:05Z".parse().unwrap()),
            updated: None,
            tags: vec!["a b".into(), "c,d".into(), "-x".into()],
            extra: vec![],
            body: "---\nnot frontmatter\n".into(),
        };
        assert_eq!(parse(&render(&d)).unwrap(), d);
    }

    #[test]
    fn crlf_and_bom_and_block_tags() {
        let text = "\u{feff}---\r\nname: a\r\ntype: user\r\ndescription: d\r\ntags:\r\n  - x\r\n  - 'y z'\r\n---\r\nbody\r\n";
        let d = parse(text).unwrap();
        assert_eq!(d.tags, vec!["x", "y z"]);
        assert_eq!(d.body, "body\r\n");
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let cases = [
            ("no frontmatter", "missing frontmatter"),
            ("---\nname: a\n", "unterminated"),
            (
                "---\nname: a\ntype: user\ndescription: d\ncreated: yesterday\n---\n",
                "RFC 3339",
            ),
            ("---\ntype: user\ndescription: d\n---\n", "missing `name:`"),
            ("---\nname: a\ndescription: d\n---\n", "missing `type:`"),
            ("---\nname: a\njust words\n---\n", "line 3"),
            ("---\nname: \"a\n---\n", "unterminated double quote"),
        ];
        for (text, expected) in cases {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains(expected), "{text:?} → {err}");
        }
    }

    #[test]
    fn tags_with_escaped_quotes_and_commas_survive_a_rewrite() {
        // Found by the frontmatter fuzz target (fuzz/findings/): a tag holding `"` rendered to
        // `"a\"b"`, which the flow-list splitter cut at the escaped quote.
        let doc = Document {
            name: "a".into(),
            kind: "user".into(),
            description: "d".into(),
            tags: vec![
                "x\"y".into(),
                "p\\, q".into(),
                "# c".into(),
                "\"".into(),
                "it's".into(),
                "\\".into(),
            ],
            ..parse("---\nname: a\ntype: user\ndescription: d\n---\n").unwrap()
        };
        let again = parse(&render(&doc)).unwrap();
        assert_eq!(again.tags, doc.tags);
        // Every input the fuzz target ever found stays a regression case.
        // Where cargo runs the test from (a shared build cache may hold a binary built in
        // another checkout).
        let findings = std::env::var_os("CARGO_MANIFEST_DIR")
            .map_or_else(
                || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")),
                std::path::PathBuf::from,
            )
            .join("../../../fuzz/findings");
        for entry in std::fs::read_dir(findings).unwrap().flatten() {
            let found = std::fs::read(entry.path()).unwrap();
            let Ok(text) = std::str::from_utf8(&found) else {
                continue;
            };
            if let Ok(parsed) = parse(text) {
                assert_eq!(
                    parse(&render(&parsed)).unwrap().tags,
                    parsed.tags,
                    "{}",
                    entry.path().display()
                );
            }
        }
    }

    #[test]
    fn dates_that_cannot_be_written_back_are_refused() {
        for bad in ["-2026-06-01", "+12026-06-01", "-0001-01-01T00:00:00Z"] {
            let text = format!("---\nname: a\ntype: user\ndescription: d\nupdated: {bad}\n---\n");
            assert!(parse(&text).is_err(), "{bad}");
        }
    }

    #[test]
    fn cr_only_line_endings_parse() {
        let d = parse("---\rname: a\rtype: user\rdescription: d\r---\rbody\r").unwrap();
        assert_eq!(
            (d.name.as_str(), d.description.as_str(), d.body.as_str()),
            ("a", "d", "body\n")
        );
    }

    #[test]
    fn lifecycle_keys_are_read_and_kept_as_written() {
        let text = "---\nname: a\ntype: user\ndescription: d\nexpires: 2026-12-31\nsuperseded_by: b   # newer\nreviewed: 2026-06-01T10:00:00Z sha:00ff\nmerged_from: [c, d]\nsource: claude-import\n---\nbody\n";
        let d = parse(text).unwrap();
        let l = lifecycle(&d.extra).unwrap();
        assert_eq!(l.expires, Some("2026-12-31".parse().unwrap()));
        assert_eq!(l.superseded_by.as_deref(), Some("b"));
        let reviewed = l.reviewed.unwrap();
        assert_eq!(rfc3339(reviewed.at), "2026-06-01T10:00:00Z");
        assert_eq!(reviewed.fingerprint.as_deref(), Some("00ff"));
        assert_eq!(l.merged_from, vec!["c", "d"]);
        assert_eq!(l.source.as_deref(), Some("claude-import"));
        assert_eq!(render(&d), text);
        let block = "---\nname: a\ntype: user\ndescription: d\nmerged_from:\n  - x\n  - y\n---\n";
        assert_eq!(
            lifecycle(&parse(block).unwrap().extra).unwrap().merged_from,
            vec!["x", "y"]
        );
    }

    #[test]
    fn a_lifecycle_key_that_does_not_read_is_an_error_naming_it() {
        for (line, expected) in [
            ("expires: next week", "`expires`"),
            ("reviewed: yes", "`reviewed`"),
        ] {
            let text = format!("---\nname: a\ntype: user\ndescription: d\n{line}\n---\n");
            let err = parse(&text).unwrap_err().to_string();
            assert!(err.contains(expected), "{line} → {err}");
        }
    }

    #[test]
    fn bare_dates_are_accepted() {
        let d =
            parse("---\nname: a\ntype: user\ndescription: d\ncreated: 2026-05-08\n---\n").unwrap();
        assert_eq!(rfc3339(d.created.unwrap()), "2026-05-08T00:00:00Z");
    }
}
