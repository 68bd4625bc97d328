//! Editing another tool's JSON file in place: only the spans Ambry owns change, every other
//! byte (indentation, key order, spacing, blank lines, number spelling) stays as the person or
//! the tool wrote it.
//!
//! Owns: a span map of a strict JSON document (validated by serde_json first, so the map is
//! only ever built over valid JSON), and four text edits on it — add a member to an object,
//! append an item to an array, replace a value, remove a member or item — each rendered in the
//! layout of the container it lands in (its indentation, or one line when the container is on
//! one line). Removing what was added gives back the same bytes: an item appended at the end is
//! removed with the separator that came with it, and an object or array emptied by a removal
//! becomes `{}` / `[]`.
//! Deliberately does not: know which keys mean what (`hooks_json`, `claude_config`), or accept
//! JSON with comments (the agents' own readers do not either).

use std::ops::Range;

use serde_json::Value;

use super::AgentError;

/// One step of a path from the root: an object key or an array index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

#[derive(Debug, Clone)]
pub enum Node {
    Object {
        span: Range<usize>,
        members: Vec<(String, Node)>,
        /// Where each member starts (its key's opening quote).
        starts: Vec<usize>,
    },
    Array {
        span: Range<usize>,
        items: Vec<Node>,
    },
    Scalar {
        span: Range<usize>,
    },
}

impl Node {
    pub fn span(&self) -> Range<usize> {
        match self {
            Node::Object { span, .. } | Node::Array { span, .. } | Node::Scalar { span } => {
                span.clone()
            }
        }
    }

    fn child(&self, step: Step<'_>) -> Option<&Node> {
        match (self, step) {
            (Node::Object { members, .. }, Step::Key(k)) => {
                members.iter().find(|(key, _)| key == k).map(|(_, n)| n)
            }
            (Node::Array { items, .. }, Step::Index(i)) => items.get(i),
            _ => None,
        }
    }

    /// Where each child starts and ends (a member from its key to the end of its value).
    fn child_spans(&self) -> Vec<Range<usize>> {
        match self {
            Node::Object {
                members, starts, ..
            } => members
                .iter()
                .zip(starts)
                .map(|((_, n), s)| *s..n.span().end)
                .collect(),
            Node::Array { items, .. } => items.iter().map(Node::span).collect(),
            Node::Scalar { .. } => vec![],
        }
    }
}

/// A JSON document's text and its span map.
#[derive(Debug, Clone)]
pub struct JsonText {
    pub text: String,
    pub value: Value,
    root: Node,
}

impl JsonText {
    /// Parses `text`; an absent or blank file is an empty object laid out on lines, so what is
    /// added to it reads like a file the agent wrote.
    pub fn parse(path: &std::path::Path, text: Option<&str>) -> Result<JsonText, AgentError> {
        let text = text.unwrap_or("");
        if text.trim().is_empty() {
            return JsonText::parse(path, Some("{\n}\n"));
        }
        let unparseable = |reason: String| AgentError::Unparseable {
            path: path.display().to_string(),
            reason,
        };
        let value: Value = serde_json::from_str(text).map_err(|e| unparseable(e.to_string()))?;
        if !value.is_object() {
            return Err(unparseable("the top level is not a JSON object".into()));
        }
        let mut scanner = Scanner {
            bytes: text.as_bytes(),
            at: 0,
        };
        scanner.ws();
        let root = scanner.value();
        Ok(JsonText {
            text: text.to_string(),
            value,
            root,
        })
    }

    pub fn node(&self, path: &[Step<'_>]) -> Option<&Node> {
        path.iter()
            .try_fold(&self.root, |node, step| node.child(*step))
    }

    pub fn get(&self, path: &[Step<'_>]) -> Option<&Value> {
        path.iter().try_fold(&self.value, |value, step| match step {
            Step::Key(k) => value.get(k),
            Step::Index(i) => value.get(i),
        })
    }

    /// The text with `key: value` added as the last member of the object at `object`.
    pub fn with_member(&self, object: &[Step<'_>], key: &str, value: &Value) -> String {
        let key = serde_json::to_string(key).expect("a string serializes");
        self.insert(object, Some(&key), value)
    }

    /// The text with `value` appended to the array at `array`.
    pub fn with_item(&self, array: &[Step<'_>], value: &Value) -> String {
        self.insert(array, None, value)
    }

    /// The text with the value at `path` replaced.
    pub fn with_value(&self, path: &[Step<'_>], value: &Value) -> String {
        let node = self.node(path).expect("the caller found the value");
        let span = node.span();
        let layout = self.layout_at(span.start);
        let rendered = self.render(value, &layout.own, layout.multi_line);
        self.splice(span, &rendered)
    }

    /// The text without the member or item at `path` (and the separator that came with it).
    pub fn without(&self, path: &[Step<'_>]) -> String {
        let (last, parent) = path.split_last().expect("never the root");
        let container = self.node(parent).expect("the caller found the parent");
        let index = match (container, last) {
            (Node::Object { members, .. }, Step::Key(k)) => {
                members.iter().position(|(key, _)| key == k)
            }
            (Node::Array { items, .. }, Step::Index(i)) => (*i < items.len()).then_some(*i),
            _ => None,
        }
        .expect("the caller found the child");
        let spans = container.child_spans();
        let range = if spans.len() == 1 {
            let outer = container.span();
            outer.start + 1..outer.end - 1
        } else if index > 0 {
            spans[index - 1].end..spans[index].end
        } else {
            spans[0].start..spans[1].start
        };
        self.splice(range, "")
    }

    fn insert(&self, container_path: &[Step<'_>], key: Option<&str>, value: &Value) -> String {
        let container = self
            .node(container_path)
            .expect("the caller found the container");
        let outer = container.span();
        let spans = container.child_spans();
        let colon = self.colon();
        let entry = |indent: &str, multi_line: bool| {
            let rendered = self.render(value, indent, multi_line);
            match key {
                Some(k) => format!("{k}{colon}{rendered}"),
                None => rendered,
            }
        };
        let nl = self.newline();
        match spans.last() {
            None => {
                let multi_line = self.text.trim_end().contains('\n');
                if multi_line {
                    let own = self.layout_at(outer.start).own;
                    let inner = format!("{own}{}", self.unit());
                    let body = format!("{nl}{inner}{}{nl}{own}", entry(&inner, true));
                    self.splice(outer.start + 1..outer.end - 1, &body)
                } else {
                    self.splice(outer.start + 1..outer.end - 1, &entry("", false))
                }
            }
            Some(last) => {
                let first = &spans[0];
                let multi_line = self.text[outer.start..first.start].contains('\n');
                if multi_line {
                    let indent = self.layout_at(first.start).own;
                    let added = format!(",{nl}{indent}{}", entry(&indent, true));
                    self.splice(last.end..last.end, &added)
                } else {
                    let separator = match spans.get(1) {
                        Some(second) => self.text[first.end..second.start].to_string(),
                        None if colon.ends_with(' ') => ", ".into(),
                        None => ",".into(),
                    };
                    let added = format!("{separator}{}", entry("", false));
                    self.splice(last.end..last.end, &added)
                }
            }
        }
    }

    fn splice(&self, range: Range<usize>, with: &str) -> String {
        let mut out = String::with_capacity(self.text.len() + with.len());
        out.push_str(&self.text[..range.start]);
        out.push_str(with);
        out.push_str(&self.text[range.end..]);
        out
    }

    /// The leading whitespace of the line `at` is on, and whether the document spans lines.
    fn layout_at(&self, at: usize) -> Layout {
        let line_start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line = &self.text[line_start..];
        let own = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        Layout {
            own: own.to_string(),
            multi_line: self.text.trim_end().contains('\n'),
        }
    }

    /// One level of indentation: the first indented line's whitespace, else two spaces.
    fn unit(&self) -> String {
        self.text
            .lines()
            .skip(1)
            .map(|line| &line[..line.len() - line.trim_start_matches([' ', '\t']).len()])
            .find(|ws| !ws.is_empty())
            .unwrap_or("  ")
            .to_string()
    }

    /// What separates a key from its value in this file (`": "` unless the file says otherwise).
    fn colon(&self) -> String {
        fn first_member(node: &Node) -> Option<(usize, usize)> {
            match node {
                Node::Object {
                    members, starts, ..
                } => members
                    .first()
                    .map(|(_, n)| (starts[0], n.span().start))
                    .or_else(|| members.iter().find_map(|(_, n)| first_member(n))),
                Node::Array { items, .. } => items.iter().find_map(first_member),
                Node::Scalar { .. } => None,
            }
        }
        match first_member(&self.root) {
            Some((key_start, value_start)) => {
                let between = &self.text[key_start..value_start];
                // The key is a JSON string; the separator is what follows its closing quote.
                let key_len = string_len(between.as_bytes());
                between[key_len..].to_string()
            }
            None if self.text.trim_end().contains('\n') => ": ".into(),
            None => ":".into(),
        }
    }

    fn newline(&self) -> &'static str {
        if self.text.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        }
    }

    /// `value` as JSON: pretty at `indent` (the indentation of the line it starts on) in a
    /// multi-line file, compact in a one-line one.
    fn render(&self, value: &Value, indent: &str, multi_line: bool) -> String {
        if !multi_line || !matches!(value, Value::Object(_) | Value::Array(_)) {
            return serde_json::to_string(value).expect("a JSON value serializes");
        }
        let unit = self.unit();
        let mut buf = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
        serde::Serialize::serialize(value, &mut ser).expect("a JSON value serializes");
        let pretty = String::from_utf8(buf).expect("serde_json writes UTF-8");
        pretty.replace('\n', &format!("{}{indent}", self.newline()))
    }
}

/// Describes a JSON value's kind for an error message.
pub fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
    .to_string()
}

/// One file's new text, what changed in words, and the containers the edit created (paths
/// like `hooks/SessionStart`, so a later disconnect removes exactly those).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edited {
    pub text: String,
    pub summary: Vec<String>,
    pub created: Vec<String>,
}

struct Layout {
    own: String,
    multi_line: bool,
}

/// The byte length of the JSON string starting at `bytes[0]` (a `"`), quotes included.
fn string_len(bytes: &[u8]) -> usize {
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Builds the span map over text serde_json already accepted.
struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.at += 1;
        }
    }

    fn value(&mut self) -> Node {
        let start = self.at;
        match self.bytes[self.at] {
            b'{' => {
                self.at += 1;
                let mut members = Vec::new();
                let mut starts = Vec::new();
                loop {
                    self.ws();
                    if self.bytes[self.at] == b'}' {
                        break;
                    }
                    if self.bytes[self.at] == b',' {
                        self.at += 1;
                        self.ws();
                    }
                    let key_start = self.at;
                    let len = string_len(&self.bytes[self.at..]);
                    let raw = std::str::from_utf8(&self.bytes[key_start..key_start + len])
                        .expect("validated UTF-8");
                    let key: String = serde_json::from_str(raw).expect("validated JSON string");
                    self.at += len;
                    self.ws();
                    self.at += 1; // ':'
                    self.ws();
                    let value = self.value();
                    members.push((key, value));
                    starts.push(key_start);
                }
                self.at += 1;
                Node::Object {
                    span: start..self.at,
                    members,
                    starts,
                }
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    if self.bytes[self.at] == b']' {
                        break;
                    }
                    if self.bytes[self.at] == b',' {
                        self.at += 1;
                        self.ws();
                    }
                    items.push(self.value());
                }
                self.at += 1;
                Node::Array {
                    span: start..self.at,
                    items,
                }
            }
            b'"' => {
                self.at += string_len(&self.bytes[self.at..]);
                Node::Scalar {
                    span: start..self.at,
                }
            }
            _ => {
                while self
                    .bytes
                    .get(self.at)
                    .is_some_and(|b| !matches!(b, b',' | b']' | b'}') && !b.is_ascii_whitespace())
                {
                    self.at += 1;
                }
                Node::Scalar {
                    span: start..self.at,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn parse(text: &str) -> JsonText {
        JsonText::parse(Path::new("f.json"), Some(text)).unwrap()
    }

    /// Adds then removes `key` in the object at `path`; both texts are checked.
    fn round_trip(text: &str, path: &[Step<'_>], key: &str, value: Value, expected: &str) {
        let added = parse(text).with_member(path, key, &value);
        assert_eq!(added, expected, "added");
        let reparsed = parse(&added);
        assert_eq!(
            reparsed.get(&[path, &[Step::Key(key)]].concat()),
            Some(&value)
        );
        let removed = reparsed.without(&[path, &[Step::Key(key)]].concat());
        assert_eq!(removed, text, "removed");
    }

    #[test]
    fn adds_in_the_containers_own_layout_and_removes_to_the_same_bytes() {
        round_trip(
            "{\n    \"theme\": \"dark\",\n    \"n\": 1.50\n}\n",
            &[],
            "hooks",
            json!({"E": [1]}),
            "{\n    \"theme\": \"dark\",\n    \"n\": 1.50,\n    \"hooks\": {\n        \"E\": [\n            1\n        ]\n    }\n}\n",
        );
        round_trip(
            "{\n\t\"a\": {}\n}",
            &[Step::Key("a")],
            "k",
            json!("v"),
            "{\n\t\"a\": {\n\t\t\"k\": \"v\"\n\t}\n}",
        );
        round_trip(
            "{\"z\":1,\"a\":2}",
            &[],
            "k",
            json!({"x": [1]}),
            "{\"z\":1,\"a\":2,\"k\":{\"x\":[1]}}",
        );
        round_trip(
            "{\"z\": 1}",
            &[],
            "k",
            json!(true),
            "{\"z\": 1, \"k\": true}",
        );
        round_trip("{}", &[], "k", json!(1), "{\"k\":1}");
        round_trip(
            "{\r\n  \"a\": 1\r\n}\r\n",
            &[],
            "k",
            json!([2]),
            "{\r\n  \"a\": 1,\r\n  \"k\": [\r\n    2\r\n  ]\r\n}\r\n",
        );
    }

    #[test]
    fn items_append_and_leave_the_way_they_came() {
        let text = "{\n  \"list\": [\n    {\"keep\": \"é\\\"\"}\n  ],\n  \"empty\": []\n}\n";
        let doc = parse(text);
        let added = doc.with_item(&[Step::Key("list")], &json!({"a": 1}));
        assert_eq!(
            added,
            "{\n  \"list\": [\n    {\"keep\": \"é\\\"\"},\n    {\n      \"a\": 1\n    }\n  ],\n  \"empty\": []\n}\n"
        );
        assert_eq!(
            parse(&added).without(&[Step::Key("list"), Step::Index(1)]),
            text
        );
        let into_empty = doc.with_item(&[Step::Key("empty")], &json!("x"));
        assert_eq!(
            into_empty,
            "{\n  \"list\": [\n    {\"keep\": \"é\\\"\"}\n  ],\n  \"empty\": [\n    \"x\"\n  ]\n}\n"
        );
        assert_eq!(
            parse(&into_empty).without(&[Step::Key("empty"), Step::Index(0)]),
            text
        );
        // The first of several goes with the separator after it.
        let first_removed = parse(&added).without(&[Step::Key("list"), Step::Index(0)]);
        assert_eq!(
            first_removed,
            "{\n  \"list\": [\n    {\n      \"a\": 1\n    }\n  ],\n  \"empty\": []\n}\n"
        );
    }

    #[test]
    fn replaces_a_value_in_place() {
        let text = "{ \"cmd\" : \"old\",  \"t\":5 }";
        let doc = parse(text);
        assert_eq!(
            doc.with_value(&[Step::Key("cmd")], &json!("new")),
            "{ \"cmd\" : \"new\",  \"t\":5 }"
        );
    }

    #[test]
    fn refuses_what_is_not_a_json_object() {
        for text in ["[1]", "{\"a\": ", "// comment\n{}", "{\"a\": 1,}"] {
            let err = JsonText::parse(Path::new("f.json"), Some(text)).unwrap_err();
            assert!(
                matches!(err, AgentError::Unparseable { .. }),
                "{text}: {err}"
            );
        }
        let blank = JsonText::parse(Path::new("f.json"), None).unwrap();
        assert_eq!(
            blank.with_member(&[], "k", &json!([1])),
            "{\n  \"k\": [\n    1\n  ]\n}\n"
        );
    }
}
